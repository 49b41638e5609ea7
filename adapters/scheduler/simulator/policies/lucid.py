"""Lucid (ASPLOS'23): non-intrusive profiler, indolent packing, estimate-based priority.

Our reading of the paper (§3), module by module:

- **Non-intrusive Job Profiler** (Algorithm 1, space-aware profiling). New jobs asking for at
  most ``profile_max_gpus`` GPUs (N_prof) first go to a separate profiling cluster of
  ``profiler_nodes`` nodes. Its queue is ordered by GPU demand, least first (ties by submit
  time), placed exclusively and consolidated, stopping at the first job that does not fit.
  A job runs there for at most ``profile_time`` seconds (T_prof): if it finishes, it is done;
  otherwise it is evicted, its profile (GPU utilization, memory utilization, memory) becomes
  known, and it joins its VC's queue. Lucid is non-intrusive (no checkpoint), so the evicted
  job restarts from scratch. Larger jobs skip profiling; their profile is read "on the fly"
  when they start. Not from the paper: a job that waited ``profiler_max_wait`` seconds in the
  profiling queue skips profiling, a guard against the starvation of larger jobs behind a
  stream of small ones (the paper's answer, *time-aware scaling* of the profiler, is not
  modelled).
- **Resource Orchestrator** (Algorithm 2). Priority = GPUs x estimated duration, from a
  pluggable ``estimator`` (``estimate(job)``; it sees the profile once known). The queue is
  walked in ascending priority; every job that fits on idle GPUs starts (consolidated).
- **Affine-jobpair Binder**, indolent packing. A job that does *not* fit on idle GPUs may
  share the GPUs of one running job ("pack only when the queue builds up") if both are
  single-node, have the same GPU count, are profiled, their sharing scores (pluggable
  ``sharing_scorer``) sum to at most the GPU sharing capacity G_SS, their exclusive GPU
  memory fits in ``gmem_limit``, and the running job's estimated remaining time is at least
  ``min_partner_remaining`` (Algorithm 2 "eliminates jobs with little remaining runtime":
  do not slow down a job about to finish). Among allowed partners, the lowest score sum,
  then the lowest memory, is chosen. At most two jobs share a GPU.
- **Dynamic strategy** (throughput-aware). :class:`ThroughputAwareStrategy` sets G_SS from a
  pluggable forecast of GPU-job submissions: Default mode (2) normally, Apathetic mode (1)
  when the forecast is low and not rising, sharing off (0) when it is very low.
"""
from __future__ import annotations

from bisect import insort

import numpy as np

from ..cluster import GPUS_PER_NODE, ResourcePool
from ..job import JobState, SimJob
from ..predictors import (MovingAverageForecast, OracleEstimator, TableSharingScorer, ThroughputHistory,
                          estimate_many)
from .base import Policy

_PROFILE_END, _PROFILE_SKIP = "profile_end", "profile_skip"
PROFILER_POOL = "lucid-profiler"


class ThroughputAwareStrategy:
    """GPU sharing capacity G_SS from a throughput forecast (Lucid §3.3, dynamic strategy).

    With ``f`` the forecast of GPU-job submissions for the current bin, ``mean`` the mean over
    all completed bins and ``last`` the last completed bin: if ``f <= last`` (not rising) and
    ``f < off_fraction * mean`` sharing is off (0); if ``f <= last`` and
    ``f < low_fraction * mean`` the Apathetic capacity applies; otherwise the Default one.
    The thresholds are our choice; the paper leaves them to the operator ("customizable").

    Parameters
    ----------
    forecast : object with ``forecast(history) -> float``; default 1-hour moving average.
    default_capacity, apathetic_capacity : G_SS of the two modes (paper: 2 and 1).
    low_fraction, off_fraction : thresholds as fractions of the long-run mean.

    Example
    -------
    >>> ThroughputAwareStrategy().capacity(history)  # doctest: +SKIP
    2
    """

    def __init__(self, forecast=None, default_capacity: int = 2, apathetic_capacity: int = 1,
                 low_fraction: float = 0.5, off_fraction: float = 0.1):
        self.forecast = MovingAverageForecast() if forecast is None else forecast
        self.default_capacity = default_capacity
        self.apathetic_capacity = apathetic_capacity
        self.low_fraction = low_fraction
        self.off_fraction = off_fraction

    def capacity(self, history: ThroughputHistory) -> int:
        if len(history) == 0:
            return self.default_capacity
        f = float(self.forecast.forecast(history))
        mean = float(history.submit_gpu_job.mean())
        if f <= float(history.submit_gpu_job[-1]):
            if f < self.off_fraction * mean:
                return 0
            if f < self.low_fraction * mean:
                return self.apathetic_capacity
        return self.default_capacity


class LucidPolicy(Policy):
    """Lucid's scheduler (see module doc for the reading of each part).

    Parameters
    ----------
    estimator : duration estimator (``estimate(job)``, optional ``estimate_many(jobs)`` and
        ``observe(job)``); default :class:`OracleEstimator`.
    sharing_scorer : ``sharing_score(profile) -> 0|1|2``; default: the measured label.
    strategy : object with ``capacity(history) -> G_SS``; default
        :class:`ThroughputAwareStrategy` over ``throughput_forecast``.
    throughput_forecast : ``forecast(history) -> GPU-job submissions in the current bin``
        for the default strategy; default a 1-hour moving average.
    profiler_nodes : nodes of the profiling cluster (0 disables profiling).
    profile_time : T_prof, seconds a job may run in the profiler (paper default 200).
    profile_max_gpus : N_prof, the largest job that is profiled.
    profiler_max_wait : seconds in the profiling queue after which a job skips profiling (None: never).
    packing : allow GPU sharing at all (False gives "Lucid w/o sharing").
    gmem_limit : GPU memory (MiB) two sharing jobs may use together (RTX 3090: 24 GiB).
    min_partner_remaining : seconds of estimated remaining time a running job needs to be
        given a partner.
    reprioritize : recompute every queued job's priority at each pass (Algorithm 2 as
        written). Off by default: estimates are computed when a job joins the queue, since a
        waiting job's features do not change; the latency benchmark turns it on.

    Example
    -------
    >>> policy = LucidPolicy(estimator=RollingHistoryEstimator(), profiler_nodes=1)  # doctest: +SKIP
    >>> Simulator(jobs, {"vc": 3}, policy, catalog=cat, profiles=prof).run()  # doctest: +SKIP
    """

    name = "lucid"
    packs = True

    def __init__(self, estimator=None, sharing_scorer=None, strategy=None, *, throughput_forecast=None,
                 profiler_nodes: int = 1,
                 profile_time: float = 200.0, profile_max_gpus: int = 8, profiler_max_wait: float | None = 600.0,
                 packing: bool = True, gmem_limit: float = 24576.0, min_partner_remaining: float = 300.0,
                 reprioritize: bool = False):
        if profiler_nodes < 0 or profile_time <= 0 or profile_max_gpus < 1:
            raise ValueError("profiler_nodes must be >= 0, profile_time > 0 and profile_max_gpus >= 1")
        if profiler_nodes and profile_max_gpus > profiler_nodes * GPUS_PER_NODE:
            raise ValueError(f"profile_max_gpus={profile_max_gpus} does not fit a {profiler_nodes}-node profiler")
        self.estimator = OracleEstimator() if estimator is None else estimator
        self.sharing_scorer = TableSharingScorer() if sharing_scorer is None else sharing_scorer
        if strategy is not None and throughput_forecast is not None:
            raise ValueError("pass either strategy= or throughput_forecast=, not both")
        self.strategy = ThroughputAwareStrategy(throughput_forecast) if strategy is None else strategy
        self.profiler_nodes = profiler_nodes
        self.profile_time = profile_time
        self.profile_max_gpus = profile_max_gpus
        self.profiler_max_wait = profiler_max_wait
        self.packing = packing
        self.gmem_limit = gmem_limit
        self.min_partner_remaining = min_partner_remaining
        self.reprioritize = reprioritize

    def attach(self, sim) -> None:
        super().attach(sim)
        self.main: dict[str, list] = {name: [] for name in sim.pools}
        self.profiler = sim.add_pool(PROFILER_POOL, self.profiler_nodes) if self.profiler_nodes else None
        self.profile_queue: list = []
        self._estimate: dict[int, float] = {}
        self._score: dict[int, int] = {}
        self._capacity_bin = -1
        self._capacity = 0
        self.capacity_bins: dict[int, int] = {}   # G_SS -> number of bins (with a pass) it was used in

    # ---- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _reveal(job: SimJob) -> None:
        """The profile becomes known (profiler eviction, or on the fly at start)."""
        if job.profile is None:
            job.profile = job.true_profile

    def _score_of(self, job: SimJob) -> int:
        """Sharing score of a profiled job (one scorer call per job)."""
        score = self._score.get(job.idx)
        if score is None:
            score = int(self.sharing_scorer.sharing_score(job.profile))
            if score not in (0, 1, 2):
                raise ValueError(f"sharing_score must be 0, 1 or 2, got {score} for {job!r}")
            self._score[job.idx] = score
        return score

    def _enqueue_main(self, job: SimJob) -> None:
        est = float(self.estimator.estimate(job))
        self._estimate[job.idx] = est
        job.priority = job.gpu_num * est
        insort(self.main[job.vc], (job.priority, job.submit_time, job.idx, job))
        self.sim.mark_dirty(job.vc)

    def _sharing_capacity(self) -> int:
        if not self.packing:
            return 0
        b = self.sim.current_bin()
        if b != self._capacity_bin:   # the strategy is consulted once per history bin
            self._capacity_bin = b
            self._capacity = int(self.strategy.capacity(self.sim.throughput_history()))
            self.capacity_bins[self._capacity] = self.capacity_bins.get(self._capacity, 0) + 1
        return self._capacity

    # ---- events -------------------------------------------------------------------------------
    def on_arrival(self, job: SimJob) -> None:
        if self.profiler is not None and job.gpu_num <= self.profile_max_gpus:
            insort(self.profile_queue, (job.gpu_num, job.submit_time, job.idx, job))
            self.sim.mark_dirty(PROFILER_POOL)
            if self.profiler_max_wait is not None:
                self.sim.add_tick(self.sim.now + self.profiler_max_wait, job, _PROFILE_SKIP)
        else:
            self._enqueue_main(job)

    def on_finish(self, job: SimJob) -> None:
        super().on_finish(job)
        if job.pool is self.profiler:
            job.finished_in_profiler = True

    def on_tick(self, job: SimJob, kind: str) -> None:
        if kind == _PROFILE_END and job.state is JobState.RUNNING and job.pool is self.profiler:
            self.sim.evict(job)
            job.profiled = True
            self._reveal(job)
            self._enqueue_main(job)
        elif kind == _PROFILE_SKIP and job.state is JobState.WAITING:
            entry = (job.gpu_num, job.submit_time, job.idx, job)
            self.profile_queue.remove(entry)
            self._enqueue_main(job)

    # ---- scheduling ----------------------------------------------------------------------------
    def schedule(self, pool: ResourcePool) -> None:
        if pool is self.profiler:
            self._schedule_profiler(pool)
        else:
            self._schedule_main(pool)

    def _schedule_profiler(self, pool: ResourcePool) -> None:
        queue, n = self.profile_queue, 0
        while n < len(queue) and pool.can_place(queue[n][0]):
            job = queue[n][3]
            self.sim.start(job, pool)
            self.sim.add_tick(self.sim.now + self.profile_time, job, _PROFILE_END)
            n += 1
        del queue[:n]

    def _can_host(self, job: SimJob, capacity: int) -> bool:
        """Whether running ``job`` may take a partner now."""
        return (job.partner is None and job.profile is not None and job.gpu_num <= GPUS_PER_NODE
                and self._score_of(job) <= capacity
                and self._estimate[job.idx] - (self.sim.now - job.run_start) >= self.min_partner_remaining)

    def _add_host(self, hosts: dict[int, list[list]], job: SimJob) -> None:
        # Per GPU count, one list per sharing score, each sorted by (GPU memory, job index):
        # the best partner is then the head of the first list that fits (see _pick_host).
        insort(hosts.setdefault(job.gpu_num, [[], [], []])[self._score_of(job)], (job.profile.gmem, job.idx, job))

    def _hosts(self, pool: ResourcePool, capacity: int) -> dict[int, list[list]]:
        """Running jobs that may take a partner, by GPU count and sharing score."""
        hosts: dict[int, list[list]] = {}
        for job in pool.running:
            if self._can_host(job, capacity):
                self._add_host(hosts, job)
        return hosts

    def _pick_host(self, job: SimJob, by_score: list[list], capacity: int) -> SimJob | None:
        """Remove and return the allowed partner with the lowest (score sum, memory sum, index)."""
        score, room = self._score_of(job), self.gmem_limit - job.profile.gmem
        for host_score in range(0, min(capacity - score, 2) + 1):
            candidates = by_score[host_score]
            if candidates and candidates[0][0] <= room:
                return candidates.pop(0)[2]
        return None

    def _schedule_main(self, pool: ResourcePool) -> None:
        queue = self.main[pool.name]
        if not queue:
            return
        if self.reprioritize:
            jobs = [e[3] for e in queue]
            est = estimate_many(self.estimator, jobs)
            gpus = np.fromiter((j.gpu_num for j in jobs), dtype=float, count=len(jobs))
            priority = gpus * est
            submit = np.fromiter((j.submit_time for j in jobs), dtype=float, count=len(jobs))
            idx = np.fromiter((j.idx for j in jobs), dtype=np.int64, count=len(jobs))
            order = np.lexsort((idx, submit, priority))   # numpy: the sort is most of a pass
            for job, e, p in zip(jobs, est.tolist(), priority.tolist()):
                self._estimate[job.idx] = e
                job.priority = p
            queue[:] = [(jobs[k].priority, jobs[k].submit_time, jobs[k].idx, jobs[k]) for k in order.tolist()]
        capacity = self._sharing_capacity()
        hosts = self._hosts(pool, capacity) if capacity > 0 else {}
        n_hosts = {g: sum(map(len, by_score)) for g, by_score in hosts.items()}   # partners left per GPU count
        any_hosts = sum(n_hosts.values())
        start = self.sim.start
        kept = []
        for pos, entry in enumerate(queue):
            job = entry[3]
            if pool.can_place(job.gpu_num):
                self._reveal(job)
                start(job, pool)
                if capacity > 0 and self._can_host(job, capacity):
                    self._add_host(hosts, job)
                    n_hosts[job.gpu_num] = n_hosts.get(job.gpu_num, 0) + 1
                    any_hosts += 1
                continue
            if job.profile is not None and n_hosts.get(job.gpu_num):
                host = self._pick_host(job, hosts[job.gpu_num], capacity)
                if host is not None:
                    n_hosts[job.gpu_num] -= 1
                    any_hosts -= 1
                    start(job, pool, host=host)
                    continue
            kept.append(entry)
            if not pool.free and not any_hosts:
                kept.extend(queue[pos + 1:])
                break
        queue[:] = kept

    def queue_head(self, pool_name: str) -> SimJob | None:
        if pool_name == PROFILER_POOL:
            return self.profile_queue[0][3] if self.profile_queue else None
        queue = self.main.get(pool_name)
        return queue[0][3] if queue else None
