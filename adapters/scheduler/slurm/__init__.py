"""A real Slurm running the QSSF priorities of an exported Primo model, replaying real job logs.

- :mod:`.cluster`: :class:`SlurmCluster` starts munge, slurmctld and N slurmd daemons (one per
  emulated 8-GPU node) in a temporary directory, bound to 127.0.0.1 only, and stops every process it
  started by pid, even on errors and Ctrl-C.
- :mod:`.plugin`: writes the ``job_submit.lua`` plugin (template ``job_submit.lua`` next to this file),
  the Workload Estimate Model exported with :func:`primo.export.to_lua` and the plugin's context (training
  vocabularies, the rolling QSSF history known so far, λ, the time scale).
- :mod:`.replay`: replays a window of a real log in Slurm under FIFO, QSSF-Primo and SJF-oracle, replays
  the same window in the project's simulator, and writes ``reports/scheduler/slurm/``.

``primo casestudy scheduler --slurm`` regenerates the report; ``primo casestudy scheduler --slurm-setup DIR``
writes a plugin for a real cluster.
"""
