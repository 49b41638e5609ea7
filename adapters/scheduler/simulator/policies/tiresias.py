"""Tiresias (NSDI'19): discretized two-queue least-attained-service with preemption.

- Attained service = GPUs x wall time run. A job is in the high queue (level 0) until its
  attained service since arrival (or since its last promotion) reaches ``threshold``
  GPU-seconds, then in the low queue (level 1). Within a level, jobs go by submit time.
- A pass considers waiting jobs in priority order (level, then submit time). A job that fits
  on idle GPUs starts. A high-queue job that does not fit may preempt running *low-queue*
  jobs (no preemption within a queue, which would thrash), latest-submitted first on the
  node needing the fewest preempted GPUs, and only when that frees enough room under the
  consolidated-placement rules (no useless preemptions).
- A preempted job keeps its progress (checkpoint) and pays ``restart_cost`` seconds of extra
  work when it runs again (Tiresias measured ~62 s per preemption, as Lucid quotes).
- Starvation guard: a job waiting in the low queue for ``starvation_factor`` times the wall
  time it has run so far is promoted to the high queue (its service count restarts).

Whether a waiting job can start depends only on its level and GPU count, so waiting jobs are
kept in one FIFO bucket per (level, GPU count) and a pass looks at bucket heads only: once a
head can neither fit nor preempt, no job of its bucket can until the cluster changes. This
keeps a pass cheap when thousands of jobs wait.
"""
from __future__ import annotations

from bisect import insort

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
        # pool -> (level, gpu_num) -> [(submit_time, idx, job)] sorted
        self.waiting: dict[str, dict[tuple[int, int], list]] = {name: {} for name in sim.pools}
        self._credit_base: dict[int, float] = {}   # attained service when the job last entered level 0

    # ---- queue bookkeeping --------------------------------------------------------------------
    def _enqueue(self, job: SimJob) -> None:
        insort(self.waiting[job.vc].setdefault((job.level, job.gpu_num), []), (job.submit_time, job.idx, job))

    def _dequeue(self, job: SimJob) -> None:
        bucket = self.waiting[job.vc][(job.level, job.gpu_num)]
        bucket.remove((job.submit_time, job.idx, job))

    # ---- events ------------------------------------------------------------------------------
    def on_arrival(self, job: SimJob) -> None:
        job.level = 0
        self._credit_base[job.idx] = 0.0
        self._enqueue(job)

    def on_tick(self, job: SimJob, kind: str) -> None:
        if kind == _DEMOTE and job.state is JobState.RUNNING and job.level == 0:
            job.level = 1
        elif kind == _PROMOTE and job.state is JobState.WAITING and job.level == 1:
            self._dequeue(job)
            job.level = 0
            self._credit_base[job.idx] = job.attained
            self._enqueue(job)
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
        self._enqueue(job)
        if job.level == 1:
            self.sim.add_tick(self.sim.now + self.starvation_factor * job.run_time, job, _PROMOTE)

    @staticmethod
    def _victims(pool: ResourcePool, job: SimJob) -> list[SimJob] | None:
        """Fewest-GPU set of running jobs of a lower queue whose preemption lets ``job`` fit."""
        g = job.gpu_num

        def on_node(n: int) -> list[tuple[SimJob, int]]:
            """(job, GPUs it holds on node n) for the jobs on node n, lowest priority first."""
            held: dict[int, list] = {}
            base = n * GPUS_PER_NODE
            for occ in pool.occupants[base:base + GPUS_PER_NODE]:
                for other in occ:
                    held.setdefault(other.idx, [other, 0])[1] += 1
            return sorted(((o, h) for o, h in held.values()), key=lambda p: (-p[0].level, -p[0].submit_time, -p[0].idx))

        if g <= GPUS_PER_NODE:
            best = None
            for n in range(pool.n_nodes):
                free, chosen, cost = pool.node_free[n], [], 0
                for other, held in on_node(n):
                    if free >= g or other.level <= job.level:
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
            if all(o.level > job.level for o in occupants):
                candidates.append((sum(o.gpu_num for o in occupants), n, occupants))
        if len(candidates) < k:
            return None
        candidates.sort(key=lambda c: (c[0], c[1]))
        victims: dict[int, SimJob] = {}
        for _, _, occupants in candidates[:k]:
            for o in occupants:
                victims[o.idx] = o
        return list(victims.values())

    def schedule(self, pool: ResourcePool) -> None:
        buckets = self.waiting[pool.name]
        blocked: set[tuple[int, int]] = set()   # buckets whose head can do nothing in the current state
        low_gpus = sum(j.gpu_num for j in pool.running if j.level == 1)   # preemptible GPUs
        while True:
            heads = [(key[0], bucket[0][0], bucket[0][1], key) for key, bucket in buckets.items()
                     if bucket and key not in blocked]
            if not heads:
                return
            level, _, _, key = min(heads)
            job = buckets[key][0][2]
            if pool.can_place(job.gpu_num):
                del buckets[key][0]
                self._start(job, pool)      # idle GPUs only shrink: blocked buckets stay blocked
                low_gpus += job.gpu_num if level == 1 else 0
                continue
            can_preempt = level == 0 and pool.free + low_gpus >= job.gpu_num
            victims = self._victims(pool, job) if can_preempt else None
            if not victims:
                blocked.add(key)
                continue
            for v in victims:
                self._preempt(v)
                low_gpus -= v.gpu_num
            del buckets[key][0]
            self._start(job, pool)
            blocked.clear()                 # preemption may have freed more than this job needed

    def queue_head(self, pool_name: str) -> SimJob | None:
        heads = [(key[0], b[0][0], b[0][1], b[0][2]) for key, b in self.waiting[pool_name].items() if b]
        return min(heads)[3] if heads else None
