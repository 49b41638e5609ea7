"""Scheduling policies on tiny hand-made traces whose outcome can be computed by hand."""
import pandas as pd
import pytest

from adapters.scheduler.simulator import (FIFOPolicy, LucidPolicy, QSSFPolicy, SJFPolicy, Simulator, TiresiasPolicy,
                                          WorkloadCatalog)
from adapters.scheduler.simulator.policies.lucid import PROFILER_POOL
from tests.adapters.scheduler.sim_fixtures import make_jobs, random_jobs


def starts(result):
    return result.jobs["start_time"].tolist()


# ---- FIFO / SJF / QSSF ----------------------------------------------------------------------------
def test_fifo_runs_jobs_in_submit_order():
    # one node, all 8-GPU jobs: strictly sequential in arrival order
    jobs = make_jobs([(0, 8, 100), (1, 8, 10), (2, 8, 50)])
    r = Simulator(jobs, {"vc": 1}, FIFOPolicy()).run()
    assert starts(r) == [0, 100, 110]


def test_fifo_head_of_line_blocking_and_backfill():
    # A(4) runs; B(8) waits for the whole node; C(2) fits but FIFO does not pass B
    jobs = make_jobs([(0, 4, 100), (1, 8, 10), (2, 2, 10)])
    assert starts(Simulator(jobs, {"vc": 1}, FIFOPolicy()).run()) == [0, 100, 110]
    assert starts(Simulator(jobs, {"vc": 1}, FIFOPolicy(backfill=True)).run()) == [0, 100, 2]


def test_sjf_picks_the_shortest_waiting_job():
    jobs = make_jobs([(0, 8, 100), (1, 8, 50), (2, 8, 10), (3, 8, 30)])
    r = Simulator(jobs, {"vc": 1}, SJFPolicy()).run()
    assert starts(r) == [0, 140, 100, 110]


class _FixedEstimator:
    def __init__(self, values):
        self.values = values
        self.observed = []

    def estimate(self, job):
        return self.values[job.job_id]

    def observe(self, job):
        self.observed.append(job.job_id)


def test_qssf_orders_by_gpus_times_estimate_and_learns():
    # after A: X (8 GPUs, 20 s -> 160 GPU-s) and Y (1 GPU, 100 s -> 100 GPU-s)
    jobs = make_jobs([(0, 8, 50), (1, 8, 20), (2, 1, 100)])
    assert starts(Simulator(jobs, {"vc": 1}, SJFPolicy()).run()) == [0, 50, 70]
    est = _FixedEstimator({"j0": 50, "j1": 20, "j2": 100})
    r = Simulator(jobs, {"vc": 1}, QSSFPolicy(estimator=est)).run()
    assert starts(r) == [0, 150, 50]          # Y first; X needs the whole node, after Y ends
    assert sorted(est.observed) == ["j0", "j1", "j2"]
    # the estimate, not the truth, decides: swap the estimates and X goes first
    est = _FixedEstimator({"j0": 50, "j1": 1, "j2": 1000})
    assert starts(Simulator(jobs, {"vc": 1}, QSSFPolicy(estimator=est)).run()) == [0, 50, 70]


# ---- Tiresias ---------------------------------------------------------------------------------------
def test_tiresias_preemption_accounting():
    # A (8 GPUs, 1000 s) crosses 800 GPU-s at t=100 and drops to the low queue. B (8 GPUs,
    # 50 s) arrives at 200 in the high queue and preempts A, which resumes at 250 with its
    # remaining 800 s plus the 62 s restart cost.
    jobs = make_jobs([(0, 8, 1000), (200, 8, 50)])
    r = Simulator(jobs, {"vc": 1}, TiresiasPolicy(threshold=800, restart_cost=62)).run()
    a, b = r.jobs.iloc[0], r.jobs.iloc[1]
    assert (b.start_time, b.end_time, b.queue_delay) == (200, 250, 0)
    assert a.preemptions == 1 and a.overhead == 62
    assert a.end_time == pytest.approx(250 + 800 + 62)
    assert a.queue_delay == pytest.approx(50)
    assert a.run_time == pytest.approx(1062)
    assert r.segments.query("job == 0")[["start", "end"]].values.tolist() == [[0, 200], [250, 1112]]


def test_tiresias_does_not_preempt_within_a_queue():
    # B arrives while A is still in the high queue: it waits, no preemption
    jobs = make_jobs([(0, 8, 100), (10, 8, 10)])
    r = Simulator(jobs, {"vc": 1}, TiresiasPolicy(threshold=10_000)).run()
    assert r.jobs["preemptions"].sum() == 0
    assert starts(r) == [0, 100]


def test_tiresias_starvation_guard_promotes_a_waiting_job():
    # A is demoted at 10 and preempted by B at 20 after running 20 s; with factor 1 it is
    # promoted at 40, when B (demoted at 30) is in the low queue, so A preempts B at 40.
    jobs = make_jobs([(0, 8, 100), (20, 8, 30)])
    r = Simulator(jobs, {"vc": 1}, TiresiasPolicy(threshold=80, restart_cost=62, starvation_factor=1)).run()
    a_runs = r.segments.query("job == 0")[["start", "end"]].values.tolist()
    assert a_runs[:2] == [[0, 20], [40, 60]]
    r.validate()
    # without the guard (huge factor) A waits for B to finish
    r = Simulator(jobs, {"vc": 1}, TiresiasPolicy(threshold=80, restart_cost=62, starvation_factor=1e9)).run()
    assert r.segments.query("job == 0")[["start", "end"]].values.tolist() == [[0, 20], [50, 50 + 80 + 62]]


# ---- Lucid --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def catalog(data_dir):
    return WorkloadCatalog.from_data_dir(data_dir)


@pytest.fixture(scope="module")
def measured_pair(data_dir):
    """A Tiny and a Medium profile whose measured colocated speeds are both below 1."""
    row = pd.read_csv(data_dir / "scheduler" / "lucid_profiles" / "colocate_info.csv", index_col=0).query(
        "model1 == 'MobileNetV3' and batchsize1 == 32 and amp1 == 0 and "
        "model2 == 'MobileNetV3' and batchsize2 == 64 and amp2 == 0").iloc[0]
    return row


class _Capacity:
    def __init__(self, value):
        self.value = value

    def capacity(self, history):
        return self.value


def test_lucid_profiler_finishes_short_jobs_and_restarts_long_ones(catalog):
    # short (50 s) finishes in the profiler; long (500 s) is evicted at T_prof=200 and
    # restarts from scratch in the (idle) main cluster.
    jobs = make_jobs([(0, 1, 50), (10, 1, 500)])
    policy = LucidPolicy(profile_time=200, profiler_nodes=1)
    r = Simulator(jobs, {"vc": 1}, policy, catalog=catalog, profiles=[0, 1]).run()
    short, long_ = r.jobs.iloc[0], r.jobs.iloc[1]
    assert short.finished_in_profiler and short.end_time == 50 and not short.profiled
    assert not long_.finished_in_profiler and long_.profiled
    assert long_.end_time == pytest.approx(210 + 500)
    assert long_.run_time == pytest.approx(700) and long_.queue_delay == pytest.approx(0)
    pools = r.segments.groupby("job")["pool"].apply(list).to_dict()
    assert pools == {0: [PROFILER_POOL], 1: [PROFILER_POOL, "vc"]}


def test_lucid_space_aware_profiling_orders_by_gpu_demand(catalog):
    # the profiler (8 GPUs) is busy; then an 8-GPU and a 1-GPU job wait: the smaller goes first
    jobs = make_jobs([(0, 8, 100), (1, 8, 100), (2, 1, 20)])
    policy = LucidPolicy(profile_time=1000, profiler_nodes=1, profiler_max_wait=None)
    r = Simulator(jobs, {"vc": 1}, policy, catalog=catalog, profiles=[0, 1, 2]).run()
    assert starts(r) == [0, 120, 100]


def test_lucid_packed_pair_progresses_at_colocated_speeds(catalog, measured_pair):
    tiny = catalog.find(measured_pair.model1, measured_pair.dataset1, measured_pair.batchsize1, measured_pair.amp1)
    medium = catalog.find(measured_pair.model2, measured_pair.dataset2, measured_pair.batchsize2, measured_pair.amp2)
    s_a, s_b = measured_pair.speed1, measured_pair.speed2
    assert s_a < 1 and s_b < 1
    # A (8 GPUs, 1000 s) is profiled 0-10 and starts in main at 10. B (8 GPUs, 500 s) is
    # profiled 20-30; main is full, so B shares A's GPUs from 30.
    jobs = make_jobs([(0, 8, 1000), (20, 8, 500)])
    policy = LucidPolicy(profile_time=10, profiler_nodes=1, strategy=_Capacity(2), min_partner_remaining=0)
    r = Simulator(jobs, {"vc": 1}, policy, catalog=catalog, profiles=[tiny.index, medium.index]).run()
    a, b = r.jobs.iloc[0], r.jobs.iloc[1]
    assert b.start_time == 20 and a.packed_time > 0 and b.packed_time > 0
    a_left = 1000 - 20                          # A's work left when B joins at t=30
    b_end = 30 + 500 / s_b
    assert b_end < 30 + a_left / s_a            # B finishes first ...
    assert b.end_time == pytest.approx(b_end)
    a_end = b_end + (a_left - (b_end - 30) * s_a) / 1.0   # ... then A runs alone again
    assert a.end_time == pytest.approx(a_end)
    r.validate()


def test_lucid_indolent_packing_respects_capacity_and_memory(catalog):
    jumbo = next(p for p in catalog.profiles if p.label == 2 and p.gmem > 10_000)
    medium = next(p for p in catalog.profiles if p.label == 1)
    jobs = make_jobs([(0, 8, 1000), (20, 8, 500)])

    def run(profiles, capacity, **kw):
        policy = LucidPolicy(profile_time=10, strategy=_Capacity(capacity), min_partner_remaining=0, **kw)
        return Simulator(jobs, {"vc": 1}, policy, catalog=catalog, profiles=profiles).run().jobs

    assert run([medium.index, medium.index], 2)["packed_time"].gt(0).all()        # 1 + 1 <= 2
    assert run([medium.index, medium.index], 1)["packed_time"].eq(0).all()        # 1 + 1 > 1
    assert run([medium.index, medium.index], 0)["packed_time"].eq(0).all()        # sharing off
    assert run([jumbo.index, medium.index], 2)["packed_time"].eq(0).all()         # 2 + 1 > 2
    assert run([medium.index, medium.index], 2, gmem_limit=medium.gmem)["packed_time"].eq(0).all()
    assert run([medium.index, medium.index], 2, packing=False)["packed_time"].eq(0).all()


def test_lucid_orders_the_main_queue_by_estimated_gpu_time(catalog):
    # no profiler: X (8 GPUs, 20 s) and Y (1 GPU, 100 s) wait behind A; Y has less GPU time
    jobs = make_jobs([(0, 8, 50), (1, 8, 20), (2, 1, 100)])
    r = Simulator(jobs, {"vc": 1}, LucidPolicy(profiler_nodes=0, packing=False), catalog=catalog,
                  profiles=[0, 0, 0]).run()
    assert starts(r) == [0, 150, 50]


def test_lucid_profiler_max_wait_sends_jobs_to_the_main_cluster(catalog):
    # the profiler is held by A for 1000 s; B waits there 60 s, then skips profiling
    jobs = make_jobs([(0, 8, 1000), (10, 8, 100)])
    policy = LucidPolicy(profile_time=5000, profiler_max_wait=60)
    r = Simulator(jobs, {"vc": 1}, policy, catalog=catalog, profiles=[0, 1]).run()
    b = r.jobs.iloc[1]
    assert b.start_time == 70 and b.end_time == 170 and not b.profiled
    assert r.segments.query("job == 1")["pool"].tolist() == ["vc"]


def test_lucid_reprioritizing_each_pass_matches_static_priorities(catalog):
    # with estimates that do not change while a job waits, recomputing them (batched,
    # numpy-sorted) at every pass must give the same schedule as computing them once
    from adapters.scheduler.simulator import assign_profiles

    jobs = random_jobs(300, seed=7)
    prof = assign_profiles(jobs, catalog, seed=0)
    runs = [Simulator(jobs, {"vc": 2}, LucidPolicy(reprioritize=flag), catalog=catalog, profiles=prof).run().jobs
            for flag in (False, True)]
    pd.testing.assert_frame_equal(runs[0], runs[1])
    assert runs[0]["packed_time"].gt(0).any()
