"""Run every policy on the NASA iPSC/860 job log and print JCT and queuing per policy.

``python -m adapters.scheduler.simulator.run_policies [--jobs LOG] [--format swf] [--procs-per-gpu 8] [--nodes auto]``

``--jobs`` takes any job log :func:`adapters.scheduler.jobs.load_jobs` reads (default: the NASA iPSC
log of the data directory, whose mapping is described below).

Mapping of the SWF log to a GPU trace:

- ``gpu_num = ceil(procs / procs_per_gpu)``; with the default 8 processors per GPU the
  machine's 128 processors become 16 GPUs (two 8-GPU nodes), 61% of jobs ask for one GPU
  and the largest (128-processor) jobs become 2-node jobs. Jobs with a zero run time are
  dropped by the loader; user and application id become ``user`` and ``name``; one VC.
- Cluster size (``--nodes auto``): the smallest cluster that can run the largest job under
  consolidated placement, i.e. the iPSC/860's own size. The log's submit times are in fact
  start times of the real (128-processor) machine, so any larger cluster makes the queue
  vanish (3 nodes: FIFO waits ~2 s on average); at 2 nodes the offered load is 0.49 and FIFO
  queues for about a third of the mean run time. ``--arrival-scale k`` divides all submit
  times by ``k`` to raise the load further (a standard load-scaling of logs).
- Lucid's profiling cluster (``--profiler-nodes``, default 1) is *extra* capacity: the main
  cluster cannot give a node away and still run the 2-node jobs. ``lucid-noprof`` is Lucid
  on the same GPUs as the other policies (no profiler), for a like-for-like row.
- Workload profiles are drawn by hierarchical sampling (seeded); QSSF and Lucid use the
  online rolling-history estimator (no oracle), SJF the true durations.
"""
from __future__ import annotations

import argparse
import logging
import math
import time

import pandas as pd

from primo.datasets import resolve_data_dir

from ..jobs import load_jobs
from .cluster import GPUS_PER_NODE
from .engine import Simulator
from .policies import FIFOPolicy, LucidPolicy, QSSFPolicy, SJFPolicy, TiresiasPolicy
from .predictors import RollingHistoryEstimator
from .profiles import WorkloadCatalog, assign_profiles

logger = logging.getLogger(__name__)

NASA_LOG = "scheduler/jobs/NASA-iPSC-1993-3.1-cln.swf.gz"
PUBLISHED_VENUS_JCT_H = {"fifo": 18.57, "sjf": 5.86, "qssf": 5.15, "tiresias": 4.09, "lucid": 3.58}
PUBLISHED_VENUS_QUEUE_H = {"fifo": 15.30, "sjf": 2.59, "qssf": 1.88, "tiresias": 0.82, "lucid": 0.25}


def make_policies(profiler_nodes: int = 1) -> dict:
    """Factories of the compared policies (fresh state per run)."""
    return {
        "fifo": FIFOPolicy,
        "sjf": SJFPolicy,
        "qssf": lambda: QSSFPolicy(estimator=RollingHistoryEstimator()),
        "tiresias": TiresiasPolicy,
        "lucid": lambda: LucidPolicy(estimator=RollingHistoryEstimator(), profiler_nodes=profiler_nodes),
        "lucid-noprof": lambda: LucidPolicy(estimator=RollingHistoryEstimator(), profiler_nodes=0),
    }


def min_nodes(jobs: pd.DataFrame) -> int:
    """Smallest node count that can run the largest job with consolidated placement."""
    return max(1, math.ceil(int(jobs["gpu_num"].max()) / GPUS_PER_NODE))


def offered_load(jobs: pd.DataFrame, n_nodes: int) -> float:
    """GPU-seconds asked for / GPU-seconds available over the submission span."""
    span = float(jobs["submit_time"].max() - jobs["submit_time"].min())
    return float((jobs["gpu_num"] * jobs["duration"]).sum()) / (n_nodes * GPUS_PER_NODE * span)


def run_all(jobs: pd.DataFrame, n_nodes: int, seed: int = 0, data_dir=None, policies=None,
            profiler_nodes: int = 1) -> pd.DataFrame:
    """Simulate each policy on ``jobs`` (one VC of ``n_nodes`` nodes); one summary row per policy.

    Example
    -------
    >>> table = run_all(jobs, n_nodes=2)  # doctest: +SKIP
    >>> table.loc["fifo", "avg_jct_h"]  # doctest: +SKIP
    """
    catalog = WorkloadCatalog.from_data_dir(data_dir)
    profiles = assign_profiles(jobs, catalog, seed=seed)
    vcs = {vc: n_nodes for vc in jobs["vc"].unique()}
    factories = make_policies(profiler_nodes)
    rows = {}
    for name in policies or factories:
        t0 = time.perf_counter()
        result = Simulator(jobs, vcs, factories[name](), catalog=catalog, profiles=profiles).run()
        s = result.summary()
        s["sim_seconds"] = time.perf_counter() - t0
        s["gpus"] = sum(result.pool_gpus.values())
        rows[name] = s
        logger.info("%s done in %.1f s", name, s["sim_seconds"])
    table = pd.DataFrame.from_dict(rows, orient="index")
    for col in ("avg_jct", "avg_queue", "p99_queue", "p999_queue"):
        table[f"{col}_h"] = table[col] / 3600.0
    return table


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--jobs", default=None, help="job log (default: the NASA iPSC log of the data dir)")
    parser.add_argument("--format", choices=("swf", "helios", "alibaba"), default=None,
                        help="format of --jobs (default: detected)")
    parser.add_argument("--procs-per-gpu", type=int, default=8, help="SWF processors per GPU")
    parser.add_argument("--nodes", default="auto", help="node count, or 'auto' (smallest that fits every job)")
    parser.add_argument("--arrival-scale", type=float, default=1.0, help="divide submit times by this factor")
    parser.add_argument("--profiler-nodes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--policies", nargs="*", default=None)
    parser.add_argument("--out", default=None, help="write the summary table to this CSV file")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")

    jobs = load_jobs(args.jobs or resolve_data_dir(args.data_dir) / NASA_LOG, args.format,
                     procs_per_gpu=args.procs_per_gpu)
    if args.arrival_scale != 1.0:
        jobs["submit_time"] = jobs["submit_time"] / args.arrival_scale
    n_nodes = min_nodes(jobs) if args.nodes == "auto" else int(args.nodes)
    print(f"{jobs.attrs['source']}: {len(jobs)} jobs, procs/GPU {args.procs_per_gpu}, {n_nodes} nodes "
          f"({n_nodes * GPUS_PER_NODE} GPUs), offered load {offered_load(jobs, n_nodes):.2f}, "
          f"mean run time {jobs['duration'].mean():.0f} s")
    table = run_all(jobs, n_nodes, seed=args.seed, data_dir=args.data_dir, policies=args.policies,
                    profiler_nodes=args.profiler_nodes)
    print(f"{'policy':14s}{'GPUs':>5s}{'avg JCT h':>11s}{'avg queue h':>12s}{'p99.9 queue h':>14s}"
          f"{'util':>6s}{'preempt':>8s}{'packed':>7s}{'prof.done':>10s}{'sim s':>7s}"
          f"{'Venus JCT h':>12s}{'Venus queue h':>14s}")
    for name, r in table.iterrows():
        pub_jct = PUBLISHED_VENUS_JCT_H.get(name)
        pub_q = PUBLISHED_VENUS_QUEUE_H.get(name)
        print(f"{name:14s}{int(r.gpus):5d}{r.avg_jct_h:11.3f}{r.avg_queue_h:12.3f}{r.p999_queue_h:14.3f}"
              f"{r.gpu_util:6.2f}{int(r.preemptions):8d}{int(r.packed_jobs):7d}{int(r.profiler_finished):10d}"
              f"{r.sim_seconds:7.1f}{'' if pub_jct is None else f'{pub_jct:12.2f}'}"
              f"{'' if pub_q is None else f'{pub_q:14.2f}'}")
    if args.out:
        table.to_csv(args.out)
    return table


if __name__ == "__main__":
    main()
