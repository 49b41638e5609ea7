"""Tiresias (NSDI'19): discretized two-queue least-attained-service with preemption.

- Attained service = GPUs x wall time run. A job is in the high queue (level 0) until its
  attained service since arrival (or since its last promotion) reaches ``threshold``
  GPU-seconds, then in the low queue (level 1). Within a level, jobs go by submit time.
- Every pass walks all jobs of the VC (running and waiting) in priority order. A waiting job
  that fits on idle GPUs starts. One that does not fit may preempt running jobs of *lower*
  priority in a *lower queue* (no preemption within a queue, which would thrash), fewest
  preempted GPUs first, and only when that frees enough room under the consolidated-placement
  rules (no useless preemptions).
- A preempted job keeps its progress (checkpoint) and pays ``restart_cost`` seconds of extra
  work when it runs again (Tiresias measured ~62 s per preemption, as Lucid quotes).
- Starvation guard: a job waiting in the low queue for ``starvation_factor`` times the wall
  time it has run so far is promoted to the high queue (its service count restarts).
"""
from __future__ import annotations

from ..cluster import GPUS_PER_NODE, ResourcePool
from ..job import JobState, SimJob
from .base import Policy

_DEMOTE, _PROMOTE = "demote", "promote"


class TiresiasPolicy(Policy):
    """Two-queue discretized LAS with preemption (Tiresias).

    Parameters
    ----------
    threshold : attained GPU-seconds that move a job from the high to the low queue.
    restart_cost : exclusive-seconds of work added to a preempted job.
    starvation_factor : waiting time / run time ratio that promotes a low-queue job.

    Example
    -------
    >>> Simulator(jobs, {"vc": 4}, TiresiasPolicy(threshold=3600)).run()  # doctest: +SKIP
    """

    name = "tiresias"

    def __init__(self, threshold: float = 3600.0, restart_cost: float = 62.0, starvation_factor: float = 10.0):
        if threshold <= 0 or restart_cost < 0 or starvation_factor <= 0:
            raise ValueError("threshold and starvation_factor must be > 0, restart_cost >= 0")
        self.threshold = threshold
        self.restart_cost = restart_cost
        self.starvation_factor = starvation_factor

    def attach(self, sim) -> None:
        super().attach(sim)
        self.active: dict[str, dict[int, SimJob]] = {name: {} for name in sim.pools}
        self._credit_base: dict[int, float] = {}   # attained service when the job last entered level 0

    @staticmethod
    def _key(job: SimJob):
        return (job.level, job.submit_time, job.idx)

    # ---- events ------------------------------------------------------------------------------
    def on_arrival(self, job: SimJob) -> None:
        job.level = 0
        self._credit_base[job.idx] = 0.0
        self.active[job.vc][job.idx] = job

    def on_finish(self, job: SimJob) -> None:
        super().on_finish(job)
        del self.active[job.vc][job.idx]

    def on_tick(self, job: SimJob, kind: str) -> None:
        if kind == _DEMOTE and job.state is JobState.RUNNING and job.level == 0:
            job.level = 1
        elif kind == _PROMOTE and job.state is JobState.WAITING and job.level == 1:
            job.level = 0
            self._credit_base[job.idx] = job.attained
        else:
            return
        self.sim.mark_dirty(job.vc)

    # ---- scheduling ----------------------------------------------------------------------------
    def _start(self, job: SimJob, pool: ResourcePool) -> None:
        self.sim.start(job, pool)
        if job.level == 0:
            left = self.threshold - (job.attained - self._credit_base[job.idx])
            self.sim.add_tick(self.sim.now + max(left, 0.0) / job.gpu_num, job, _DEMOTE)

    def _preempt(self, job: SimJob) -> None:
        self.sim.preempt(job, self.restart_cost)
        if job.level == 1:
            self.sim.add_tick(self.sim.now + self.starvation_factor * job.run_time, job, _PROMOTE)

    def _victims(self, pool: ResourcePool, job: SimJob, rank: dict[int, int], my_rank: int) -> list[SimJob] | None:
        """Fewest-GPU set of running jobs of a lower queue whose preemption lets ``job`` fit."""
        g = job.gpu_num

        def on_node(n: int) -> list[tuple[SimJob, int]]:
            """(job, GPUs it holds on node n) for the jobs on node n, lowest priority first."""
            held: dict[int, int] = {}
            jobs: dict[int, SimJob] = {}
            base = n * GPUS_PER_NODE
            for occ in pool.occupants[base:base + GPUS_PER_NODE]:
                for other in occ:
                    held[other.idx] = held.get(other.idx, 0) + 1
                    jobs[other.idx] = other
            return sorted(((jobs[i], h) for i, h in held.items()), key=lambda p: -rank[p[0].idx])

        if g <= GPUS_PER_NODE:
            best = None
            for n in range(pool.n_nodes):
                free, chosen, cost = pool.node_free[n], [], 0
                for other, held in on_node(n):
                    if free >= g or rank[other.idx] <= my_rank or other.level <= job.level:
                        break
                    chosen.append(other)
                    cost += other.gpu_num
                    free += held
                if free >= g and chosen and (best is None or cost < best[0]):
                    best = (cost, chosen)
            return best[1] if best is not None else None
        k = -(-g // GPUS_PER_NODE)
        candidates = []
        for n in range(pool.n_nodes):
            occupants = [o for o, _ in on_node(n)]
            if all(rank[o.idx] > my_rank and o.level > job.level for o in occupants):
                candidates.append((sum(o.gpu_num for o in occupants), n, occupants))
        if len(candidates) < k:
            return None
        candidates.sort(key=lambda c: (c[0], c[1]))
        victims: dict[int, SimJob] = {}
        for _, _, on_node in candidates[:k]:
            for o in on_node:
                victims[o.idx] = o
        return list(victims.values())

    def schedule(self, pool: ResourcePool) -> None:
        jobs = sorted(self.active[pool.name].values(), key=self._key)
        running_left = sum(1 for j in jobs if j.state is JobState.RUNNING)
        rank = {j.idx: r for r, j in enumerate(jobs)}
        for r, job in enumerate(jobs):
            if job.state is JobState.RUNNING:
                running_left -= 1
                continue
            if pool.free == 0 and running_left == 0:
                break    # nothing idle and nobody of lower priority to preempt
            if pool.can_place(job.gpu_num):
                self._start(job, pool)
                continue
            victims = self._victims(pool, job, rank, r) if running_left else None
            if victims:
                for v in victims:
                    self._preempt(v)
                running_left -= len(victims)
                self._start(job, pool)

    def queue_head(self, pool_name: str) -> SimJob | None:
        waiting = [j for j in self.active[pool_name].values() if j.state is JobState.WAITING]
        return min(waiting, key=self._key) if waiting else None
