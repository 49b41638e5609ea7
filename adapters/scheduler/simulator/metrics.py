"""Simulation results: per-job table, summary metrics and an offline invariant check.

Definitions:

- JCT = end time - submit time.
- Queuing delay = JCT - time spent running anywhere (profiler included), so time waiting
  after a preemption or a profiler eviction counts as queuing; slow-down while sharing does not.
- Makespan = last end time - first submit time.
- GPU utilization = busy GPU-seconds / (GPUs of all pools x makespan); a GPU is busy while
  at least one job runs on it, so a shared GPU counts once.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from .engine import Simulator


@dataclass
class SimulationResult:
    """What one simulation produced.

    Attributes
    ----------
    policy : policy name.
    jobs : one row per job (trace columns plus ``start_time, end_time, jct, queue_delay,
        run_time, preemptions, overhead, packed_time, profiled, finished_in_profiler, model``).
    segments : one row per continuous run of a job on one set of GPUs
        (``job, pool, start, end, gpus``).
    pool_gpus : GPUs per pool.
    busy_gpu_seconds : integral of the number of busy GPUs over time.
    max_jobs_per_gpu : the sharing limit the run allowed (1 without packing, 2 with).
    fallback_pair_lookups : colocations whose speeds came from the fallback fit (unmeasured pairs).

    Example
    -------
    >>> result.summary()  # doctest: +SKIP
    {'n_jobs': 18066, 'avg_jct': ..., 'avg_queue': ..., 'p99_queue': ..., ...}
    """

    policy: str
    jobs: pd.DataFrame
    segments: pd.DataFrame
    pool_gpus: dict[str, int]
    busy_gpu_seconds: float
    max_jobs_per_gpu: int
    fallback_pair_lookups: int = 0
    extra: dict = field(default_factory=dict)

    @classmethod
    def from_simulator(cls, sim: "Simulator") -> "SimulationResult":
        js = sim.jobs
        submit = np.array([j.submit_time for j in js])
        end = np.array([j.end_time for j in js])
        run = np.array([j.run_time for j in js])
        table = pd.DataFrame({
            "job_id": [j.job_id for j in js],
            "user": [j.user for j in js],
            "vc": [j.vc for j in js],
            "gpu_num": np.array([j.gpu_num for j in js], dtype=np.int64),
            "submit_time": submit,
            "duration": np.array([j.duration for j in js]),
            "start_time": np.array([j.first_start for j in js]),
            "end_time": end,
            "jct": end - submit,
            "queue_delay": np.maximum(end - submit - run, 0.0),
            "run_time": run,
            "preemptions": np.array([j.preemptions for j in js], dtype=np.int64),
            "overhead": np.array([j.overhead for j in js]),
            "packed_time": np.array([j.packed_time for j in js]),
            "profiled": np.array([j.profiled for j in js]),
            "finished_in_profiler": np.array([j.finished_in_profiler for j in js]),
            "model": [j.true_profile.model if j.true_profile is not None else "" for j in js],
        })
        seg = pd.DataFrame(sim._segments, columns=["job", "pool", "start", "end", "gpus"])
        return cls(
            policy=sim.policy.name,
            jobs=table,
            segments=seg,
            pool_gpus={name: p.capacity for name, p in sim.pools.items()},
            busy_gpu_seconds=sim._busy_gpu_seconds,
            max_jobs_per_gpu=2 if sim.policy.packs else 1,
            fallback_pair_lookups=sim.catalog.n_fallback_pairs if sim.catalog is not None else 0,
        )

    def summary(self) -> dict:
        """Headline metrics (seconds; utilization as a fraction).

        Keys: ``n_jobs, avg_jct, avg_queue, p99_queue, p999_queue, makespan, gpu_util,
        preemptions, packed_jobs, profiler_finished``.
        """
        t = self.jobs
        q = t["queue_delay"].to_numpy()
        makespan = float(t["end_time"].max() - t["submit_time"].min())
        capacity = sum(self.pool_gpus.values())
        return {
            "n_jobs": int(len(t)),
            "avg_jct": float(t["jct"].mean()),
            "avg_queue": float(q.mean()),
            "p99_queue": float(np.percentile(q, 99)),
            "p999_queue": float(np.percentile(q, 99.9)),
            "makespan": makespan,
            "gpu_util": self.busy_gpu_seconds / (capacity * makespan) if makespan > 0 else 0.0,
            "preemptions": int(t["preemptions"].sum()),
            "packed_jobs": int((t["packed_time"] > 0).sum()),
            "profiler_finished": int(t["finished_in_profiler"].sum()),
        }

    def validate(self, rtol: float = 1e-6) -> None:
        """Re-check the run from its records; raise ``InvariantError`` on the first violation.

        Checks: every job finished exactly once and after it was submitted; first start is not
        before submit; JCT = queuing + running; no GPU ever held more jobs than allowed (1, or 2
        when the policy packs), from a sweep over all run segments.
        """
        from .engine import InvariantError

        t = self.jobs
        if t["end_time"].isna().any():
            raise InvariantError(f"{int(t['end_time'].isna().sum())} jobs never finished")
        if (t["start_time"] < t["submit_time"] - rtol).any():
            raise InvariantError("a job started before it was submitted")
        if (t["end_time"] < t["start_time"]).any():
            raise InvariantError("a job ended before it started")
        if (t["run_time"] < t["duration"] * (1 - rtol) - rtol).any():
            raise InvariantError("a job ran for less wall time than its exclusive duration")
        last_end = self.segments.groupby("job")["end"].max().reindex(range(len(t))).to_numpy()
        if not np.allclose(last_end, t["end_time"].to_numpy(), rtol=rtol):
            raise InvariantError("a job's last run segment does not end at its end time")
        # Over-allocation sweep: +1 at each segment start, -1 at its end, per GPU.
        seg = self.segments
        lengths = seg["gpus"].map(len).to_numpy()
        gpu = np.concatenate([np.asarray(g, dtype=np.int64) for g in seg["gpus"]]) if len(seg) else np.zeros(0, int)
        start = np.repeat(seg["start"].to_numpy(), lengths)
        end = np.repeat(seg["end"].to_numpy(), lengths)
        ids = np.concatenate([gpu, gpu])
        times = np.concatenate([start, end])
        delta = np.concatenate([np.ones_like(gpu), -np.ones_like(gpu)])
        order = np.lexsort((delta, times, ids))   # per GPU, by time, releases before starts
        load = np.cumsum(delta[order])
        if len(load) and load.max() > self.max_jobs_per_gpu:
            k = int(np.argmax(load))
            raise InvariantError(f"GPU {ids[order][k]} held {load[k]} jobs at t={times[order][k]} "
                                 f"(limit {self.max_jobs_per_gpu})")
