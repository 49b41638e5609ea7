"""The policy interface and the non-preemptive queue-order policies (FIFO, SJF, QSSF).

A policy owns its queues. The simulator tells it about arrivals, completions and ticks it
asked for, and calls :meth:`Policy.schedule` for every pool whose state changed; the policy
acts through the simulator (``sim.start``, ``sim.preempt``, ``sim.evict``, ``sim.add_tick``).
"""
from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING

from ..cluster import ResourcePool
from ..job import SimJob
from ..predictors import OracleEstimator

if TYPE_CHECKING:
    from ..engine import Simulator


class Policy:
    """Base class of scheduling policies.

    Subclasses set ``name``, ``packs`` (True when two jobs may share GPUs) and implement
    :meth:`on_arrival`, :meth:`schedule` and :meth:`queue_head`.
    """

    name = "policy"
    packs = False
    estimator = None

    def attach(self, sim: "Simulator") -> None:
        """Bind to a simulator before the run (add pools here if the policy needs its own)."""
        self.sim = sim

    def on_arrival(self, job: SimJob) -> None:
        raise NotImplementedError

    def on_finish(self, job: SimJob) -> None:
        """A job finished: feed it to the estimator's update hook when there is one."""
        observe = getattr(self.estimator, "observe", None)
        if observe is not None:
            observe(job)

    def on_tick(self, job: SimJob, kind: str) -> None:
        raise NotImplementedError(f"{self.name} asked for no ticks, got {kind!r}")

    def schedule(self, pool: ResourcePool) -> None:
        raise NotImplementedError

    def queue_head(self, pool_name: str) -> SimJob | None:
        """The highest-priority job waiting for ``pool_name`` (for the work-conservation check)."""
        raise NotImplementedError


class QueueOrderPolicy(Policy):
    """Non-preemptive scheduling of one queue per VC, ordered by a static key.

    The key is computed once, when the job arrives (ties: submit time, then trace order).
    Each pass places jobs in key order with consolidated placement. Without ``backfill`` the
    pass stops at the first job that does not fit (Helios' Algorithm 1, which ``break``\\ s);
    with ``backfill`` it goes on and places any later job that fits.

    Parameters
    ----------
    backfill : place later jobs when the head does not fit.
    """

    def __init__(self, backfill: bool = False):
        self.backfill = backfill

    def attach(self, sim: "Simulator") -> None:
        super().attach(sim)
        self.queues: dict[str, list] = {name: [] for name in sim.pools}

    def sort_key(self, job: SimJob) -> float:
        raise NotImplementedError

    def on_arrival(self, job: SimJob) -> None:
        job.priority = self.sort_key(job)
        insort(self.queues[job.vc], (job.priority, job.submit_time, job.idx, job))

    def schedule(self, pool: ResourcePool) -> None:
        queue = self.queues[pool.name]
        start = self.sim.start
        if not self.backfill:
            n = 0
            while n < len(queue) and pool.can_place(queue[n][3].gpu_num):
                start(queue[n][3], pool)
                n += 1
            del queue[:n]
            return
        kept = []
        for pos, entry in enumerate(queue):
            if pool.free == 0:
                kept.extend(queue[pos:])
                break
            if pool.can_place(entry[3].gpu_num):
                start(entry[3], pool)
            else:
                kept.append(entry)
        queue[:] = kept

    def queue_head(self, pool_name: str) -> SimJob | None:
        queue = self.queues.get(pool_name)
        return queue[0][3] if queue else None


class FIFOPolicy(QueueOrderPolicy):
    """First in, first out (Slurm's default in Helios): order by submit time.

    Example
    -------
    >>> Simulator(jobs, {"vc": 2}, FIFOPolicy()).run()  # doctest: +SKIP
    """

    name = "fifo"

    def sort_key(self, job: SimJob) -> float:
        return job.submit_time


class SJFPolicy(QueueOrderPolicy):
    """Shortest job first with the true durations (an oracle, not deployable)."""

    name = "sjf"

    def sort_key(self, job: SimJob) -> float:
        return job.duration


class QSSFPolicy(QueueOrderPolicy):
    """Helios' Quasi-Shortest-Service-First: order by GPUs x estimated duration.

    Parameters
    ----------
    estimator : object with ``estimate(job) -> seconds`` (and optionally ``observe(job)``,
        called when a job finishes); default :class:`OracleEstimator`.
    backfill : see :class:`QueueOrderPolicy` (Helios does not backfill).

    Example
    -------
    >>> QSSFPolicy(estimator=RollingHistoryEstimator())  # doctest: +SKIP
    """

    name = "qssf"

    def __init__(self, estimator=None, backfill: bool = False):
        super().__init__(backfill=backfill)
        self.estimator = OracleEstimator() if estimator is None else estimator

    def sort_key(self, job: SimJob) -> float:
        return job.gpu_num * float(self.estimator.estimate(job))
