"""LinnOS case study (flash storage, OSDI'20): slow-read prediction on replicated SSDs.

Modules:

* ``trace``: load and validate FlashNet block traces; pending (in-flight) I/O counts.
* ``training_data``: load LinnOS's own per-read training data (its digit-encoded lines).
* ``features``: LinnOS's per-read features (31-digit and 9-raw encodings), slow thresholds
  (CDF inflection point or percentile) and labels.
* ``linnos_net``: the LinnOS 31-256-2 network with biased training, and its integer version.
* ``primo_models``: Primo-E / Primo-P (Bayesian-searched PrDTs) and PrDTs distilled from the network.
* ``c_inference``: C implementations of the predictors (Primo's via ``primo.export.to_c``) and a
  gcc harness timing them.
* ``metrics``: false submit / false revoke rates and slow-class F1.
* ``robustness``: the noise and 10%-training perturbations.
* ``simulator``: trace-driven failover simulation of a 3-replica array.
* ``evaluate``: ``python -m adapters.linnos.evaluate``, the phase-1 measurements.
* ``study``: the phase-2 measurements of one trace, the failover arrays, the cross-trace test.
* ``casestudy``: ``primo casestudy linnos [--traces FILE...] [--history H]``, writing ``results.json``,
  ``README.md`` (``readme``, with the paper's claims judged by ``primo.report.claims``),
  HTML reports, model files and integer C headers.
"""
