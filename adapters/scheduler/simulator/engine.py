"""Discrete-event simulation of a GPU cluster driven by a job trace.

One heap holds every event: job arrivals, job completions and policy ticks (profiling time
limits, Tiresias demotions and starvation promotions). All events at one time are applied,
then the policy schedules every pool those events touched. With ``scheduling_interval`` (and
optionally explicit ``scheduling_times``) the policy schedules only at passes (Slurm's scheduler):
events in between mark pools and wait for the next pass. Completion events are invalidated
by a per-job version number instead of being removed (the version bumps whenever a job
starts, stops or changes speed), which keeps the heap simple and exact.
"""
from __future__ import annotations

import heapq
import logging
import math
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from .cluster import ResourcePool
from .job import JobState, SimJob
from .metrics import SimulationResult
from .predictors import ThroughputHistory
from .profiles import WorkloadCatalog

if TYPE_CHECKING:
    from .policies.base import Policy

logger = logging.getLogger(__name__)

JOB_COLUMNS = ("job_id", "user", "name", "vc", "gpu_num", "cpu_num", "submit_time", "duration")

_ARRIVAL, _FINISH, _TICK, _PASS = 0, 1, 2, 3
_EPS = 1e-6


class InvariantError(AssertionError):
    """The simulation broke one of its invariants (a simulator or policy bug)."""


def _check_jobs(jobs: pd.DataFrame) -> None:
    if not isinstance(jobs, pd.DataFrame):
        raise TypeError(f"jobs must be a pandas DataFrame, got {type(jobs).__name__}")
    missing = [c for c in JOB_COLUMNS if c not in jobs.columns]
    if missing:
        raise ValueError(f"job table is missing columns {missing}")
    if jobs.empty:
        raise ValueError("job table is empty")
    if (jobs["gpu_num"] < 1).any():
        raise ValueError("gpu_num must be >= 1 for every job")
    if not (jobs["duration"] > 0).all():
        raise ValueError("duration must be > 0 for every job (drop or fix zero-length jobs first)")
    if not jobs["submit_time"].is_monotonic_increasing:
        raise ValueError("submit_time must be sorted ascending")


class Simulator:
    """Run one policy over one job trace.

    Parameters
    ----------
    jobs : job table (``job_id, user, name, vc, gpu_num, cpu_num, submit_time, duration``;
        ``submit_time`` ascending, ``duration`` > 0). Its ``attrs["epoch"]`` is passed on to
        throughput forecasters.
    vcs : virtual clusters, ``{vc name: node count}`` (8 GPUs per node). Every job's ``vc``
        must be a key.
    policy : a :class:`~adapters.scheduler.simulator.policies.base.Policy`.
    catalog : workload catalog; required when the policy packs jobs (colocated speeds).
    profiles : profile index per job (e.g. from :func:`assign_profiles`); required with
        ``catalog``.
    check_invariants : after each scheduling pass, assert that the head of every queue does
        not fit on idle GPUs (work conservation); placements always check capacity.
    bin_seconds : width of the submission-history bins handed to throughput forecasters.
    progress : show a tqdm bar of finished jobs.
    scheduling_interval : when given, the policy schedules only at the times
        ``scheduling_phase + k * scheduling_interval`` (integer k), like a scheduler that runs a
        pass every interval (Slurm's ``sched/builtin`` about once a second); ``None`` schedules
        right after every event.
    scheduling_phase : a time on that grid (same unit as ``submit_time``).
    scheduling_times : explicit pass times (e.g. the passes a real scheduler logged); after the last
        one, passes go on every ``scheduling_interval`` (required with them) from it.

    Example
    -------
    >>> from adapters.scheduler.simulator import Simulator, FIFOPolicy
    >>> result = Simulator(jobs, {"vc1": 4}, FIFOPolicy()).run()  # doctest: +SKIP
    >>> result.summary()["avg_jct"]  # doctest: +SKIP
    1234.5
    """

    def __init__(self, jobs: pd.DataFrame, vcs: dict[str, int], policy: "Policy", *,
                 catalog: WorkloadCatalog | None = None, profiles=None, check_invariants: bool = True,
                 bin_seconds: float = 600.0, progress: bool = False, scheduling_interval: float | None = None,
                 scheduling_phase: float = 0.0, scheduling_times=None):
        _check_jobs(jobs)
        if scheduling_interval is not None and not scheduling_interval > 0:
            raise ValueError(f"scheduling_interval must be > 0 (or None: schedule after every event), "
                             f"got {scheduling_interval}")
        if scheduling_times is not None and scheduling_interval is None:
            raise ValueError("scheduling_times need scheduling_interval: the passes after the last given time")
        if not vcs:
            raise ValueError("vcs must name at least one virtual cluster")
        unknown = sorted(set(jobs["vc"].astype(str)) - set(vcs))
        if unknown:
            raise ValueError(f"jobs name virtual clusters missing from vcs: {unknown[:10]}")
        if policy.packs and (catalog is None or profiles is None):
            raise ValueError(f"policy {policy.name!r} packs jobs: pass catalog= and profiles= (colocated speeds)")
        if profiles is not None:
            profiles = np.asarray(profiles)
            if len(profiles) != len(jobs):
                raise ValueError(f"profiles has {len(profiles)} entries for {len(jobs)} jobs")
            if catalog is not None and len(profiles) and not (0 <= profiles.min() and profiles.max() < len(catalog)):
                raise ValueError(f"profile indices must lie in [0, {len(catalog)}) (the catalog's profiles)")
        self.policy = policy
        self.catalog = catalog
        self.check_invariants = check_invariants
        self.progress = progress
        self.scheduling_interval = None if scheduling_interval is None else float(scheduling_interval)
        self.scheduling_phase = float(scheduling_phase)
        self.scheduling_times = None
        if scheduling_times is not None and len(scheduling_times):
            self.scheduling_times = np.unique(np.asarray(scheduling_times, dtype=float))
            self.scheduling_phase = float(self.scheduling_times[-1])
        self._pending_pass: float | None = None   # time of the pass already in the heap
        self.epoch = jobs.attrs.get("epoch")
        self.now = float(jobs["submit_time"].iloc[0])
        self.pools: dict[str, ResourcePool] = {}
        self._gpu_count = 0
        for name, nodes in vcs.items():
            self.add_pool(str(name), int(nodes))

        cols = {c: jobs[c].to_numpy() for c in JOB_COLUMNS}
        prof = catalog.profiles if catalog is not None else None
        self.jobs = [
            SimJob(i, str(cols["job_id"][i]), str(cols["user"][i]), str(cols["name"][i]), str(cols["vc"][i]),
                   int(cols["gpu_num"][i]), int(cols["cpu_num"][i]), float(cols["submit_time"][i]),
                   float(cols["duration"][i]), prof[int(profiles[i])] if profiles is not None and prof else None)
            for i in range(len(jobs))
        ]
        too_big = [j for j in self.jobs if not self.pools[j.vc].fits_ever(j.gpu_num)]
        if too_big:
            raise ValueError(f"{len(too_big)} jobs can never fit their virtual cluster, e.g. {too_big[0]!r} "
                             f"in {too_big[0].vc!r} ({self.pools[too_big[0].vc].n_nodes} nodes)")

        self._heap: list = []
        self._seq = 0
        self._dirty: set[str] = set()
        self._scheduling: str | None = None   # pool being scheduled (its own changes need no new pass)
        self._segments: list[tuple[int, str, float, float, tuple[int, ...]]] = []
        self._busy_gpu_seconds = 0.0
        self._finished = 0
        # Submission counters per bin, for throughput forecasters.
        self.bin_seconds = float(bin_seconds)
        self._bin_origin = min(0.0, float(cols["submit_time"][0]))
        self._bin_jobs = np.zeros(1024, dtype=np.int64)
        self._bin_gpus = np.zeros(1024, dtype=np.int64)
        for j in self.jobs:
            self._push(j.submit_time, _ARRIVAL, j, None)
        policy.attach(self)

    # ---- API for policies -----------------------------------------------------------------
    def add_pool(self, name: str, n_nodes: int) -> ResourcePool:
        """Create a pool of ``n_nodes`` 8-GPU nodes (policies may add their own, e.g. a profiler)."""
        if name in self.pools:
            raise ValueError(f"pool {name!r} exists already")
        pool = ResourcePool(name, n_nodes, gpu_offset=self._gpu_count)
        self._gpu_count += pool.capacity
        self.pools[name] = pool
        return pool

    def mark_dirty(self, pool_name: str) -> None:
        """Ask for a scheduling pass on ``pool_name`` once the current events are applied."""
        if pool_name != self._scheduling:
            self._dirty.add(pool_name)

    def add_tick(self, time: float, job: SimJob, kind: str) -> None:
        """Call ``policy.on_tick(job, kind)`` at ``time`` unless the job starts or stops before."""
        self._push(time, _TICK, job, (job.epoch, kind))

    def start(self, job: SimJob, pool: ResourcePool, host: SimJob | None = None) -> None:
        """Run ``job`` in ``pool``: exclusively, or on the GPUs of running ``host`` (sharing)."""
        if job.state is not JobState.WAITING:
            raise InvariantError(f"cannot start {job!r}: it is {job.state.value}")
        if host is None:
            job.gpus = pool.allocate(job)
            job.speed = 1.0
        else:
            if self.catalog is None or job.true_profile is None or host.true_profile is None:
                raise InvariantError("sharing needs workload profiles for both jobs")
            job.gpus = pool.share(job, host)
            self._settle(host)
            speed_job, speed_host = self.catalog.colocated_speeds(job.true_profile.index, host.true_profile.index)
            job.partner, host.partner = host, job
            job.speed = speed_job
            self._set_speed(host, speed_host)
        job.pool = pool
        job.state = JobState.RUNNING
        if math.isnan(job.first_start):
            job.first_start = self.now
        job.run_start = self.now
        job.last_update = self.now
        job.epoch += 1
        self._schedule_finish(job)

    def preempt(self, job: SimJob, restart_cost: float = 0.0) -> None:
        """Stop ``job``, keeping its progress (checkpoint) plus ``restart_cost`` exclusive-seconds to redo."""
        self._stop(job)
        job.preemptions += 1
        job.remaining += restart_cost
        job.overhead += restart_cost

    def evict(self, job: SimJob) -> None:
        """Stop ``job`` and drop its progress (no checkpoint: it will restart from scratch)."""
        self._stop(job)
        job.remaining = job.duration

    def current_bin(self) -> int:
        """Index of the submission-history bin that contains ``now``."""
        return max(0, int((self.now - self._bin_origin) // self.bin_seconds))

    def throughput_history(self) -> ThroughputHistory:
        """Submissions per bin for every bin completed before ``now``."""
        cur = self.current_bin()
        self._ensure_bins(cur)
        starts = self._bin_origin + self.bin_seconds * np.arange(cur, dtype=float)
        return ThroughputHistory(starts, self._bin_jobs[:cur], self._bin_gpus[:cur], self.epoch, self.bin_seconds)

    # ---- internals -------------------------------------------------------------------------
    def _push(self, time: float, kind: int, job: SimJob, token) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (time, self._seq, kind, job, token))

    def _next_pass(self, t: float) -> float:
        """The first pass time at or after ``t`` (``t`` itself, or a hair before it, when ``t`` is a pass)."""
        times = self.scheduling_times
        if times is not None:
            i = int(np.searchsorted(times, t - 1e-9 * max(1.0, abs(t))))  # tolerance: t copied from a pass time
            if i < len(times):
                return float(times[i])
        interval, phase = self.scheduling_interval, self.scheduling_phase
        k = math.ceil((t - phase) / interval - 1e-9)  # tolerance: t computed as phase + k * interval
        return phase + k * interval

    def _ensure_bins(self, b: int) -> None:
        if b >= len(self._bin_jobs):
            size = max(2 * len(self._bin_jobs), b + 1)
            self._bin_jobs = np.resize(self._bin_jobs, size)
            self._bin_gpus = np.resize(self._bin_gpus, size)
            self._bin_jobs[b:] = 0
            self._bin_gpus[b:] = 0

    def _settle(self, job: SimJob) -> None:
        dt = self.now - job.last_update
        if dt > 0:
            job.remaining -= dt * job.speed
            job.run_time += dt
            job.attained += dt * job.gpu_num
            if job.partner is not None:
                job.packed_time += dt
        job.last_update = self.now

    def _schedule_finish(self, job: SimJob) -> None:
        job.version += 1
        self._push(self.now + max(job.remaining, 0.0) / job.speed, _FINISH, job, job.version)

    def _set_speed(self, job: SimJob, speed: float) -> None:
        self._settle(job)
        job.speed = speed
        self._schedule_finish(job)

    def _release(self, job: SimJob) -> None:
        """Settle and take ``job`` off its GPUs; its partner (if any) runs alone again."""
        if job.state is not JobState.RUNNING:
            raise InvariantError(f"cannot stop {job!r}: it is {job.state.value}")
        self._settle(job)
        job.pool.release(job)
        self._segments.append((job.idx, job.pool.name, job.run_start, self.now, job.gpus))
        partner = job.partner
        if partner is not None:
            job.partner = None
            self._settle(partner)
            partner.partner = None
            self._set_speed(partner, 1.0)
        self.mark_dirty(job.pool.name)
        job.gpus = ()
        job.speed = 0.0
        job.version += 1
        job.epoch += 1

    def _stop(self, job: SimJob) -> None:
        self._release(job)
        job.state = JobState.WAITING

    def _complete(self, job: SimJob) -> None:
        tol = _EPS * max(1.0, job.duration + job.overhead)
        self._settle(job)
        if job.remaining > tol:
            raise InvariantError(f"{job!r} completes with {job.remaining:.6g} s of work left")
        self._release(job)
        job.remaining = 0.0
        job.state = JobState.DONE
        job.end_time = self.now
        self._finished += 1
        self.policy.on_finish(job)

    def _check_head(self, name: str) -> None:
        head = self.policy.queue_head(name)
        if head is not None and self.pools[name].can_place(head.gpu_num):
            raise InvariantError(f"work conservation: {head!r} waits at t={self.now} although "
                                 f"{self.pools[name].free} GPUs are idle in {name!r} and it fits")

    def advance(self, until: float = math.inf) -> None:
        """Apply every event up to time ``until`` (inclusive), scheduling after each event time."""
        heap = self._heap
        pools = list(self.pools.values())
        with tqdm(total=len(self.jobs), initial=self._finished, desc=f"simulate {self.policy.name}",
                  disable=not self.progress, mininterval=1.0) as bar:
            while heap and heap[0][0] <= until:
                t = heap[0][0]
                self._busy_gpu_seconds += sum(p.busy for p in pools) * (t - self.now)
                self.now = t
                done_before = self._finished
                passing = self.scheduling_interval is None
                while heap and heap[0][0] == t:
                    _, _, kind, job, token = heapq.heappop(heap)
                    if kind == _ARRIVAL:
                        job.state = JobState.WAITING
                        b = int((t - self._bin_origin) // self.bin_seconds)
                        self._ensure_bins(b)
                        self._bin_jobs[b] += 1
                        self._bin_gpus[b] += job.gpu_num
                        self.mark_dirty(job.vc)
                        self.policy.on_arrival(job)
                    elif kind == _FINISH:
                        if token == job.version and job.state is JobState.RUNNING:
                            self._complete(job)
                    elif kind == _PASS:
                        passing = True
                        self._pending_pass = None
                    elif job.state is not JobState.DONE and token[0] == job.epoch:
                        self.policy.on_tick(job, token[1])
                if self._dirty and not passing:
                    when = self._next_pass(t)
                    if when <= t:  # an event on the grid: this is a pass
                        passing = True
                    elif self._pending_pass != when:
                        self._pending_pass = when
                        self._push(when, _PASS, None, None)
                while self._dirty and passing:
                    # Policies may mark more pools while scheduling (e.g. a profiler handing jobs on).
                    dirty = sorted(self._dirty)
                    self._dirty.clear()
                    for name in dirty:
                        self._scheduling = name
                        self.policy.schedule(self.pools[name])
                        self._scheduling = None
                        if self.check_invariants:
                            self._check_head(name)
                if self._finished != done_before:
                    bar.update(self._finished - done_before)

    def run(self) -> SimulationResult:
        """Simulate until every job has finished; return the result."""
        self.advance()
        if self._finished != len(self.jobs):
            stuck = [j for j in self.jobs if j.state is not JobState.DONE]
            raise InvariantError(f"{len(stuck)} jobs never finished, e.g. {stuck[0]!r}")
        logger.info("%s: %d jobs simulated, makespan %.0f s", self.policy.name, len(self.jobs),
                    max(j.end_time for j in self.jobs) - self.jobs[0].submit_time)
        return SimulationResult.from_simulator(self)
