"""Cluster placement, the event engine, metrics and invariants of the GPU-cluster simulator."""
import numpy as np
import pandas as pd
import pytest

from adapters.scheduler.simulator import (AllocationError, FIFOPolicy, InvariantError, LucidPolicy, QSSFPolicy,
                                          ResourcePool, RollingHistoryEstimator, SimJob, Simulator, SJFPolicy,
                                          TiresiasPolicy, WorkloadCatalog, assign_profiles)
from tests.adapters.scheduler.sim_fixtures import make_jobs, random_jobs


def _job(idx, gpus):
    return SimJob(idx, str(idx), "u", "", "vc", gpus, 0, 0.0, 10.0)


# ---- placement ------------------------------------------------------------------------------------
def test_consolidated_placement_best_fit_and_whole_nodes():
    pool = ResourcePool("vc", n_nodes=3)
    a = _job(0, 6)
    a.gpus = pool.allocate(a)
    assert a.gpus == tuple(range(6))
    b = _job(1, 2)                       # best fit: the node with 2 idle GPUs, not an empty one
    b.gpus = pool.allocate(b)
    assert b.gpus == (6, 7)
    big = _job(2, 12)                    # 2 whole idle nodes, 8 + 4 GPUs
    big.gpus = pool.allocate(big)
    assert big.gpus == tuple(range(8, 20))
    assert pool.node_free == [0, 0, 4]
    assert pool.can_place(4) and not pool.can_place(5)
    assert not pool.can_place(9)         # multi-node jobs need whole idle nodes
    with pytest.raises(AllocationError):
        pool.allocate(_job(3, 5))
    pool.release(big)
    assert pool.node_free == [0, 8, 8] and pool.busy == 8


def test_single_node_jobs_are_never_split():
    pool = ResourcePool("vc", n_nodes=2)
    for i in range(2):
        j = _job(i, 6)
        j.gpus = pool.allocate(j)
    assert pool.free == 4 and not pool.can_place(3)   # 2 + 2 idle GPUs on two nodes


def test_sharing_rules():
    pool = ResourcePool("vc", n_nodes=1)
    host = _job(0, 2)
    host.gpus = pool.allocate(host)
    with pytest.raises(AllocationError):
        pool.share(_job(1, 1), host)          # different GPU demand
    guest = _job(2, 2)
    guest.gpus = pool.share(guest, host)
    assert guest.gpus == host.gpus and pool.busy == 2
    host.partner, guest.partner = guest, host
    with pytest.raises(AllocationError):
        pool.share(_job(3, 2), host)          # a third job on the same GPUs
    pool.release(host)
    assert pool.busy == 2                      # the guest still holds both GPUs
    pool.release(guest)
    assert pool.busy == 0 and pool.node_free == [8]


# ---- input validation -----------------------------------------------------------------------------
def test_bad_job_tables_raise_clear_errors():
    jobs = make_jobs([(0, 1, 10)])
    with pytest.raises(ValueError, match="missing columns"):
        Simulator(jobs.drop(columns="duration"), {"vc": 1}, FIFOPolicy())
    with pytest.raises(ValueError, match="virtual clusters missing"):
        Simulator(jobs, {"other": 1}, FIFOPolicy())
    with pytest.raises(ValueError, match="never fit"):
        Simulator(make_jobs([(0, 16, 10)]), {"vc": 1}, FIFOPolicy())
    with pytest.raises(ValueError, match="duration must be > 0"):
        Simulator(make_jobs([(0, 1, 0)]), {"vc": 1}, FIFOPolicy())
    with pytest.raises(ValueError, match="catalog"):
        Simulator(jobs, {"vc": 1}, LucidPolicy())


# ---- invariants -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def catalog(data_dir):
    return WorkloadCatalog.from_data_dir(data_dir)


POLICIES = {
    "fifo": FIFOPolicy, "fifo-backfill": lambda: FIFOPolicy(backfill=True), "sjf": SJFPolicy,
    "qssf": lambda: QSSFPolicy(RollingHistoryEstimator()), "tiresias": lambda: TiresiasPolicy(threshold=2000),
    "lucid": lambda: LucidPolicy(estimator=RollingHistoryEstimator(), profiler_nodes=1),
}


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_every_policy_keeps_the_invariants(name, catalog):
    jobs = random_jobs(400, seed=3)
    prof = assign_profiles(jobs, catalog, seed=0)
    sim = Simulator(jobs, {"vc": 3}, POLICIES[name](), catalog=catalog, profiles=prof, check_invariants=True)
    result = sim.run()
    result.validate()                               # no GPU over-allocated, each job done once
    t = result.jobs
    assert len(t) == 400 and t["end_time"].notna().all()
    assert (t["queue_delay"] >= 0).all()
    np.testing.assert_allclose(t["jct"], t["queue_delay"] + t["run_time"], rtol=1e-9, atol=1e-6)
    # Exclusive work is conserved: without sharing or restarts a job runs exactly its duration.
    plain = (t["packed_time"] == 0) & (t["preemptions"] == 0) & ~t["profiled"]
    np.testing.assert_allclose(t.loc[plain, "run_time"], t.loc[plain, "duration"], rtol=1e-9)
    s = result.summary()
    assert s["avg_queue"] > 0                       # the trace is busy enough to queue
    assert 0 < s["gpu_util"] <= 1


def test_validate_catches_over_allocation():
    result = Simulator(make_jobs([(0, 8, 100), (10, 8, 100)]), {"vc": 1}, FIFOPolicy()).run()
    result.validate()
    bad = result.segments.copy()
    bad.loc[1, "start"] = 50.0                       # second job overlapping the first on the same GPUs
    result.segments = bad
    with pytest.raises(InvariantError, match="held 2 jobs"):
        result.validate()


class _LazyFIFO(FIFOPolicy):
    """Leaves jobs waiting whenever the cluster is half busy: breaks work conservation."""

    def schedule(self, pool):
        if pool.busy == 0:
            super().schedule(pool)


def test_work_conservation_check_fires():
    jobs = make_jobs([(0, 4, 100), (1, 4, 100)])
    with pytest.raises(InvariantError, match="work conservation"):
        Simulator(jobs, {"vc": 1}, _LazyFIFO()).run()
    Simulator(jobs, {"vc": 1}, FIFOPolicy()).run().validate()


def test_metrics_on_a_hand_computed_trace():
    # one node: A(8 GPUs, 100 s) at 0, B(4, 50) at 10, C(4, 30) at 20 -> B and C start at 100
    result = Simulator(make_jobs([(0, 8, 100), (10, 4, 50), (20, 4, 30)]), {"vc": 1}, FIFOPolicy()).run()
    t = result.jobs
    assert t["start_time"].tolist() == [0, 100, 100]
    assert t["end_time"].tolist() == [100, 150, 130]
    s = result.summary()
    assert s["avg_jct"] == pytest.approx((100 + 140 + 110) / 3)
    assert s["avg_queue"] == pytest.approx((0 + 90 + 80) / 3)
    assert s["makespan"] == 150
    # busy GPU-seconds: 8*100 + 4*50 + 4*30 = 1120 over 8 GPUs x 150 s
    assert s["gpu_util"] == pytest.approx(1120 / 1200)


def test_results_are_deterministic_for_a_seed(catalog):
    jobs = random_jobs(300, seed=5)

    def run(seed):
        prof = assign_profiles(jobs, catalog, seed=seed)
        return Simulator(jobs, {"vc": 2}, LucidPolicy(), catalog=catalog, profiles=prof).run().jobs

    first, again, other = run(0), run(0), run(1)
    pd.testing.assert_frame_equal(first, again)
    assert not first["model"].equals(other["model"])


def test_periodic_scheduling_passes_start_jobs_only_on_the_grid():
    # passes at 5, 15, 25, ...: A(8 GPUs, 101 s) submitted at 3 starts at 5 and ends at 106; B, submitted
    # at 5 (a pass, but A is first in line), waits for the pass after A's end (115), not for A's end (106);
    # C, queued behind B, starts at B's end (165), which lies on the grid
    jobs = make_jobs([(3, 8, 101), (5, 8, 50), (120, 2, 10)])
    result = Simulator(jobs, {"vc": 1}, FIFOPolicy(), scheduling_interval=10.0, scheduling_phase=5.0).run()
    assert result.jobs["start_time"].tolist() == [5.0, 115.0, 165.0]
    assert result.jobs["end_time"].tolist() == [106.0, 165.0, 175.0]
    result.validate()
    eager = Simulator(jobs, {"vc": 1}, FIFOPolicy()).run()
    assert eager.jobs["start_time"].tolist() == [3.0, 104.0, 154.0]
    with pytest.raises(ValueError, match="scheduling_interval"):
        Simulator(jobs, {"vc": 1}, FIFOPolicy(), scheduling_interval=0.0)


def test_explicit_scheduling_times_then_the_interval():
    # passes at 2 and 7 (as a scheduler logged them), then every 10 from 7: A(8 GPUs, 4 s) at 1 runs 2-6;
    # B at 3 waits for the pass at 7 and runs 7-107; C at 50 waits behind B for 107, a pass on the grid
    jobs = make_jobs([(1, 8, 4), (3, 8, 100), (50, 1, 1)])
    result = Simulator(jobs, {"vc": 1}, FIFOPolicy(), scheduling_interval=10.0, scheduling_times=[7.0, 2.0]).run()
    assert result.jobs["start_time"].tolist() == [2.0, 7.0, 107.0]
    with pytest.raises(ValueError, match="need scheduling_interval"):
        Simulator(jobs, {"vc": 1}, FIFOPolicy(), scheduling_times=[2.0])
