"""GPU pools (virtual clusters) with consolidated placement and two-job GPU sharing.

Placement rules (Helios' and Lucid's *consolidated* placement):

- A job asking for ``g <= 8`` GPUs runs on one node, never split. Among the nodes with
  ``g`` idle GPUs it takes the one with the fewest idle GPUs (best fit), ties to the lowest
  node index, so large holes stay open for large jobs.
- A job asking for ``g > 8`` GPUs needs ``ceil(g / 8)`` entirely idle nodes. It takes 8
  GPUs on each and ``g - 8 * (k - 1)`` on the last; the rest of the last node stays
  available to other jobs.
- Sharing: a second job may be placed on exactly the GPUs of one running job with the same
  GPU count (Lucid never packs jobs of different GPU demands, nor more than two jobs per GPU).
  Whether two jobs *may* share is the policy's decision; the pool only enforces the
  mechanics (at most two jobs per GPU, same GPU set).
"""
from __future__ import annotations

from .job import SimJob

GPUS_PER_NODE = 8


class AllocationError(RuntimeError):
    """A placement broke the pool's capacity rules (a simulator or policy bug)."""


class ResourcePool:
    """A set of 8-GPU nodes: one virtual cluster, or Lucid's profiling cluster.

    Parameters
    ----------
    name : pool name (the VC name).
    n_nodes : number of nodes (>= 1).
    gpu_offset : global index of this pool's first GPU (GPU ids are unique across pools).

    Example
    -------
    >>> pool = ResourcePool("vc1", n_nodes=2)
    >>> pool.can_place(8), pool.can_place(16), pool.can_place(24)
    (True, True, False)
    """

    def __init__(self, name: str, n_nodes: int, gpu_offset: int = 0):
        if n_nodes < 1:
            raise ValueError(f"pool {name!r} needs at least one node, got {n_nodes}")
        self.name = name
        self.n_nodes = int(n_nodes)
        self.gpu_offset = gpu_offset
        self.capacity = self.n_nodes * GPUS_PER_NODE
        self.node_free = [GPUS_PER_NODE] * self.n_nodes                     # idle GPUs per node
        self.occupants: list[list[SimJob]] = [[] for _ in range(self.capacity)]  # jobs per local GPU
        self.busy = 0                                                        # GPUs with >= 1 job
        self._max_free: int | None = GPUS_PER_NODE                           # cache of max(node_free)
        self.running: set[SimJob] = set()

    # ---- queries -------------------------------------------------------------------------
    @property
    def free(self) -> int:
        return self.capacity - self.busy

    def _find_nodes(self, g: int) -> list[int] | None:
        if g <= GPUS_PER_NODE:
            best = None
            for n, f in enumerate(self.node_free):
                if f >= g and (best is None or f < self.node_free[best]):
                    best = n
                    if f == g:
                        break
            return None if best is None else [best]
        k = -(-g // GPUS_PER_NODE)
        idle = [n for n, f in enumerate(self.node_free) if f == GPUS_PER_NODE]
        return idle[:k] if len(idle) >= k else None

    def can_place(self, g: int) -> bool:
        """Whether a ``g``-GPU job fits on idle GPUs right now."""
        # max()/count() run in C: this is the scheduler's inner loop (thousands of calls per pass).
        if g > self.free:
            return False
        if g <= GPUS_PER_NODE:
            if self._max_free is None:
                self._max_free = max(self.node_free)
            return self._max_free >= g
        return self.node_free.count(GPUS_PER_NODE) >= -(-g // GPUS_PER_NODE)

    def fits_ever(self, g: int) -> bool:
        """Whether a ``g``-GPU job fits in the empty pool."""
        return g <= GPUS_PER_NODE or -(-g // GPUS_PER_NODE) <= self.n_nodes

    # ---- mutations -----------------------------------------------------------------------
    def allocate(self, job: SimJob) -> tuple[int, ...]:
        """Place ``job`` exclusively (consolidated); return its global GPU ids."""
        g = job.gpu_num
        nodes = self._find_nodes(g) if g <= self.free else None
        if nodes is None:
            raise AllocationError(f"{job!r} does not fit in pool {self.name!r} (idle GPUs per node {self.node_free})")
        local: list[int] = []
        need = g
        for n in nodes:
            take = min(need, GPUS_PER_NODE)
            base = n * GPUS_PER_NODE
            got = [i for i in range(base, base + GPUS_PER_NODE) if not self.occupants[i]][:take]
            if len(got) < take:
                raise AllocationError(f"node {n} of pool {self.name!r} has fewer idle GPUs than recorded")
            local.extend(got)
            self.node_free[n] -= take
            need -= take
        for i in local:
            self.occupants[i].append(job)
        self.busy += g
        self._max_free = None
        self.running.add(job)
        return tuple(self.gpu_offset + i for i in local)

    def share(self, job: SimJob, host: SimJob) -> tuple[int, ...]:
        """Place ``job`` on exactly the GPUs of running ``host``; return the GPU ids."""
        if host not in self.running or host.partner is not None:
            raise AllocationError(f"{host!r} is not running alone in pool {self.name!r}")
        if job.gpu_num != host.gpu_num:
            raise AllocationError(f"cannot pack {job!r} with {host!r}: different GPU counts")
        for gid in host.gpus:
            occ = self.occupants[gid - self.gpu_offset]
            if len(occ) != 1:
                raise AllocationError(f"GPU {gid} holds {len(occ)} jobs; sharing allows at most 2")
            occ.append(job)
        self.running.add(job)
        return host.gpus

    def release(self, job: SimJob) -> None:
        """Remove ``job`` from its GPUs."""
        if job not in self.running:
            raise AllocationError(f"{job!r} is not running in pool {self.name!r}")
        self.running.discard(job)
        freed = 0
        for gid in job.gpus:
            i = gid - self.gpu_offset
            occ = self.occupants[i]
            occ.remove(job)
            if not occ:
                self.node_free[i // GPUS_PER_NODE] += 1
                freed += 1
        self.busy -= freed
        if freed:
            self._max_free = None
