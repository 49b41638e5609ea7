"""Scheduling policies compared fairly: offered loads, several windows, one warm start, paired intervals.

For one job log, with duration models trained on the jobs before the held-out period:

- **Windows**: ``n_windows`` runs of ``window_jobs`` consecutive held-out jobs, spread evenly over
  the held-out period (the units the paired intervals resample).
- **Offered load**: GPU-seconds asked for / GPU-seconds available over the window's submission
  span. The cluster (one pool of 8-GPU nodes) is the node count that gives the target load, but
  never smaller than the largest job needs; the remaining gap to the exact target (integer node
  counts, or a largest job that needs a larger cluster than the load allows) is closed by scaling
  the window's inter-arrival times, a standard load-scaling of job logs. The factor is recorded.
- **Same information**: every estimator (the rolling estimate of QSSF, the Primo scheduler of QSSF
  and Lucid) starts a window knowing exactly the jobs of the trace that had *ended* by the window's
  start (:func:`adapters.scheduler.workload.finished_by`), and then learns from the jobs it sees finish in the
  simulation. Nothing else of a duration is visible before the job ends. (The Primo scheduler also
  counts the last hour's submissions, a feature of its model; submissions are known when they happen.)
  Names are matched exactly (application ids, or the name buckets of :func:`casestudy.study_log`).
- **Paired statistics**: for each policy, the per-window differences of average JCT and queueing
  delay against FIFO and against QSSF with the rolling estimate, through
  :func:`primo.report.claims.paired_bootstrap`.
"""
from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from adapters.scheduler import workload
from adapters.scheduler.embedded import job_value
from adapters.scheduler.jobs import submit_time_columns
from adapters.scheduler.simulator import (
    FIFOPolicy,
    LucidPolicy,
    QSSFPolicy,
    Simulator,
    SJFPolicy,
    TiresiasPolicy,
    WorkloadCatalog,
    assign_profiles,
)
from adapters.scheduler.simulator.cluster import GPUS_PER_NODE
from primo.report.claims import paired_bootstrap

logger = logging.getLogger(__name__)

POOL = "cluster"
"""The one pool every job of a window runs in (queues of HPC logs share their nodes)."""

ORACLE_POLICIES = ("sjf_oracle",)
"""Policies that read true durations: context rows, never contenders."""

REFERENCES = ("fifo", "qssf_rolling")
"""Policies every other one is paired against."""


def offered_load(jobs: pd.DataFrame, n_nodes: int) -> float:
    """GPU-seconds asked for / GPU-seconds available over the submission span.

    Example
    -------
    >>> offered_load(pd.DataFrame({"gpu_num": [8, 8], "duration": [50.0, 50.0], "submit_time": [0.0, 100.0]}), 1)
    1.0
    """
    span = float(jobs["submit_time"].max() - jobs["submit_time"].min())
    if span <= 0:
        raise ValueError("offered load needs jobs submitted at two or more distinct times")
    return float((jobs["gpu_num"] * jobs["duration"]).sum()) / (n_nodes * GPUS_PER_NODE * span)


def size_cluster(jobs: pd.DataFrame, target_load: float) -> tuple[int, float]:
    """(nodes, arrival scale) that give ``jobs`` exactly ``target_load``.

    Nodes: the count closest to the target load, at least what the largest job needs. Arrival
    scale ``s``: submit offsets from the first submission are multiplied by ``s`` (``s < 1``
    compresses the arrivals) so that the offered load on that cluster is the target.

    Example
    -------
    >>> jobs = pd.DataFrame({"gpu_num": [8, 8], "duration": [50.0, 50.0], "submit_time": [0.0, 100.0]})
    >>> size_cluster(jobs, 0.5)
    (2, 1.0)
    """
    if not 0 < target_load:
        raise ValueError(f"target_load must be > 0, got {target_load}")
    smallest = max(1, math.ceil(int(jobs["gpu_num"].max()) / GPUS_PER_NODE))
    nodes = max(smallest, round(offered_load(jobs, 1) / target_load))
    return nodes, offered_load(jobs, nodes) / target_load


def scale_arrivals(jobs: pd.DataFrame, scale: float) -> pd.DataFrame:
    """A copy of ``jobs`` whose submit offsets from the first submission are multiplied by ``scale``.

    Example
    -------
    >>> scale_arrivals(pd.DataFrame({"submit_time": [10.0, 20.0, 40.0]}), 0.5)["submit_time"].tolist()
    [10.0, 15.0, 25.0]
    """
    out = jobs.copy()
    start = float(jobs["submit_time"].iloc[0])
    out["submit_time"] = start + (jobs["submit_time"] - start) * scale
    out.attrs = dict(jobs.attrs)
    return out


def window_starts(n_test: int, n_windows: int, window_jobs: int) -> list[int]:
    """First row of each window, spread evenly; windows shrink to fit when the period is short.

    Example
    -------
    >>> window_starts(1000, 5, 100)
    [0, 225, 450, 675, 900]
    """
    size = min(window_jobs, n_test // n_windows)
    if size < 2:
        raise ValueError(f"{n_test} held-out jobs cannot make {n_windows} windows")
    return [round(v) for v in np.linspace(0, n_test - size, n_windows)]


class QueueAwareScheduler:
    """The Primo scheduler of one simulated window, reading each job's queue (``vc``) and the other
    submission attributes the simulator does not carry (:data:`adapters.scheduler.jobs.SUBMIT_TIME_COLUMNS`,
    e.g. the requested run time) from the trace.

    The simulator runs every job in one pool, so a simulated job's ``vc`` is the pool; the workload
    model reads the queue the job was submitted to, which is known at submission, as is what the user
    requested. Every other question goes to the wrapped
    :class:`adapters.scheduler.embedded.EmbeddedScheduler` unchanged.

    Parameters
    ----------
    embedded : the scheduler.
    submitted_as : job id -> ``{"vc": queue, ...}`` (see :func:`submission_attributes`).

    Example
    -------
    >>> sched = QueueAwareScheduler(embedded, {"17": {"vc": "short", "req_time": 3600.0}})  # doctest: +SKIP
    """

    def __init__(self, embedded, submitted_as: dict[str, dict]):
        self.embedded = embedded
        self.submitted_as = submitted_as

    def _record(self, job) -> dict:
        return {"job_id": job.job_id, "user": job.user, "name": job.name, "gpu_num": job.gpu_num,
                "cpu_num": job.cpu_num, "submit_time": job.submit_time, **self.submitted_as[job.job_id]}

    def estimate(self, job) -> float:
        return self.embedded.estimate(self._record(job))

    def estimate_many(self, jobs) -> np.ndarray:
        return self.embedded.estimate_many([self._record(j) for j in jobs])

    def observe(self, job) -> None:
        """A job finished: it joins the history with what it was submitted with (its request)."""
        fields = {k: job_value(job, k) for k in ("job_id", "user", "name", "gpu_num", "duration")}
        self.embedded.observe({**fields, **self.submitted_as[str(fields["job_id"])]})

    def sharing_score(self, profile) -> int:
        return self.embedded.sharing_score(profile)

    def forecast(self, history) -> float:
        return self.embedded.forecast(history)


def submission_attributes(jobs: pd.DataFrame) -> dict[str, dict]:
    """Job id -> what the job was submitted with that a simulated job does not carry: its queue (``vc``) and
    its :func:`adapters.scheduler.jobs.submit_time_columns` (for :class:`QueueAwareScheduler`).

    Example
    -------
    >>> submission_attributes(pd.DataFrame({"job_id": ["7"], "vc": ["short"], "req_time": [60.0]}))
    {'7': {'vc': 'short', 'req_time': 60.0}}
    """
    columns = ["vc", *submit_time_columns(jobs)]
    frame = jobs[columns].astype({"vc": str})
    frame.index = jobs["job_id"].astype(str)
    return frame.to_dict("index")


@dataclass
class WarmStart:
    """What every estimator knows when a window starts: the trace's jobs that had ended by then (with their
    durations) and the submissions of the last ``recent_window`` seconds (without: they may still run)."""

    finished: list[dict]
    recent: list[dict]

    @classmethod
    def at(cls, trace: pd.DataFrame, time: float, recent_window: float = 3600.0) -> WarmStart:
        done = workload.finished_by(trace, time)
        submit = trace["submit_time"]
        recent = trace[(submit >= time - recent_window) & (submit < time)]
        return cls(done[["user", "name", "gpu_num", "duration", *submit_time_columns(trace)]].to_dict("records"),
                   recent[["job_id", "user", "name", "vc", "gpu_num", "cpu_num", "submit_time",
                           *submit_time_columns(trace)]].to_dict("records"))

    def rolling(self, similarity_threshold: float = 1.0) -> workload.RollingEstimator:
        """A fresh rolling estimator holding the finished jobs, in the order they ended."""
        estimator = workload.RollingEstimator(similarity_threshold=similarity_threshold)
        for job in self.finished:
            estimator.update(job)
        return estimator


def policy_factories(primo_scheduler: Callable[[], object],
                     rolling: Callable[[], workload.RollingEstimator]) -> dict[str, Callable]:
    """Fresh policies for one run: ``rolling()`` is a warm-started rolling estimator, ``primo_scheduler()`` the
    Primo scheduler with the same warm start (so both QSSF variants start from the same history).

    Example
    -------
    >>> policies = policy_factories(lambda: make_primo(warm, submitted_as), warm.rolling)  # doctest: +SKIP
    """
    def lucid(profiler_nodes: int):
        def make():
            sched = primo_scheduler()
            return LucidPolicy(estimator=sched, sharing_scorer=sched, throughput_forecast=sched,
                               profiler_nodes=profiler_nodes)
        return make

    return {
        "fifo": FIFOPolicy,
        "sjf_oracle": SJFPolicy,
        "tiresias": TiresiasPolicy,
        "qssf_rolling": lambda: QSSFPolicy(estimator=workload.OnlineRollingEstimator(rolling())),
        "qssf_primo": lambda: QSSFPolicy(estimator=primo_scheduler()),
        "lucid_primo": lucid(1),
        "lucid_primo_noprof": lucid(0),
    }


def simulate_windows(trace: pd.DataFrame, test: pd.DataFrame, make_primo: Callable, *, loads=(0.6, 0.8, 0.95),
                     n_windows: int = 5, window_jobs: int = 1000, catalog: WorkloadCatalog | None = None,
                     policies=None) -> list[dict]:
    """Simulate every policy on every (load, window) of the held-out jobs ``test`` of ``trace``.

    Parameters
    ----------
    trace : the whole job table (the warm start reads its jobs that ended before each window).
    test : the held-out jobs (rows of ``trace``), in submit order.
    make_primo : ``make_primo(warm, submitted_as)`` returns the Primo scheduler (estimator, sharing scorer,
        throughput forecaster) warm-started with ``warm`` (a :class:`WarmStart`); ``submitted_as`` is
        :func:`submission_attributes` of the window.
    loads : offered loads the cluster is sized to.
    catalog : workload profiles (Lucid's packing); the shared data's by default.
    policies : subset of policy names (all by default).

    Returns
    -------
    One dict per (load, window): ``load, window, first_job, n_jobs, nodes, arrival_scale`` and
    ``policies`` (name -> ``avg_jct_h, avg_queue_h, p99_queue_h, gpu_util, packed_jobs, sim_s``).

    Example
    -------
    >>> runs = simulate_windows(jobs, test, make_primo, loads=(0.8,), n_windows=5)  # doctest: +SKIP
    """
    catalog = catalog or WorkloadCatalog.from_data_dir(None)
    runs = []
    for w, first in enumerate(window_starts(len(test), n_windows, window_jobs)):
        size = min(window_jobs, len(test) // n_windows)
        window = test.iloc[first:first + size].copy()
        window.attrs = dict(trace.attrs)
        warm = WarmStart.at(trace, float(window["submit_time"].iloc[0]))
        submitted_as = submission_attributes(window)
        profiles = assign_profiles(window, catalog, seed=w)
        factories = policy_factories(lambda warm=warm, submitted_as=submitted_as: make_primo(warm, submitted_as),
                                     warm.rolling)
        for load in loads:
            nodes, scale = size_cluster(window, load)
            jobs = scale_arrivals(window, scale).assign(vc=POOL)
            row = {"load": load, "window": w, "first_job": str(window["job_id"].iloc[0]), "n_jobs": len(window),
                   "warm_start_jobs": len(warm.finished), "nodes": nodes, "arrival_scale": scale, "policies": {}}
            for name, factory in factories.items():
                if policies is not None and name not in policies:
                    continue
                start = time.perf_counter()
                s = Simulator(jobs, {POOL: nodes}, factory(), catalog=catalog, profiles=profiles).run().summary()
                row["policies"][name] = {"avg_jct_h": s["avg_jct"] / 3600, "avg_queue_h": s["avg_queue"] / 3600,
                                         "p99_queue_h": s["p99_queue"] / 3600, "gpu_util": s["gpu_util"],
                                         "packed_jobs": s["packed_jobs"], "sim_s": time.perf_counter() - start}
            logger.info("load %.2f window %d (%d jobs, %d nodes, arrivals x%.2f): %s", load, w, len(window), nodes,
                        scale, {k: round(v["avg_jct_h"], 3) for k, v in row["policies"].items()})
            runs.append(row)
    return runs


def paired_comparisons(runs: list[dict], *, n_resamples: int = 5000) -> list[dict]:
    """Per load, each policy against each of :data:`REFERENCES`: paired differences over windows.

    Rows: ``load, policy, reference, metric`` (``avg_jct_h`` or ``avg_queue_h``), the two means, and
    ``difference`` (:class:`primo.report.claims.PairedDifference` as a dict; negative = the policy is
    better). Also one row per load, ``policy="best_non_oracle"``, naming the policy with the lowest
    average JCT among the non-oracle ones.

    Example
    -------
    >>> rows = paired_comparisons(simulate_windows(...))  # doctest: +SKIP
    """
    rows = []
    for load in sorted({r["load"] for r in runs}):
        at = [r for r in runs if r["load"] == load]
        names = list(at[0]["policies"])
        for metric in ("avg_jct_h", "avg_queue_h"):
            values = {p: np.array([r["policies"][p][metric] for r in at]) for p in names}
            for reference in (r for r in REFERENCES if r in values):
                for policy in names:
                    if policy == reference:
                        continue
                    d = paired_bootstrap(values[policy], values[reference], n_resamples=n_resamples)
                    rows.append({"load": load, "policy": policy, "reference": reference, "metric": metric,
                                 "policy_mean": float(values[policy].mean()),
                                 "reference_mean": float(values[reference].mean()), "difference": d.to_dict()})
        jct = {p: float(np.mean([r["policies"][p]["avg_jct_h"] for r in at])) for p in names if p not in ORACLE_POLICIES}
        rows.append({"load": load, "policy": "best_non_oracle", "best": min(jct, key=jct.get), "avg_jct_h": jct})
    return rows
