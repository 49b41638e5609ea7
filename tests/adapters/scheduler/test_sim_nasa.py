"""The simulator on the real NASA iPSC/860 log (a slice by default, the whole log when slow)."""
import pytest

from adapters.scheduler.jobs import load_swf
from adapters.scheduler.simulator import (FIFOPolicy, LucidPolicy, RollingHistoryEstimator, Simulator, TiresiasPolicy,
                                          WorkloadCatalog, assign_profiles)
from adapters.scheduler.simulator.run_policies import NASA_LOG, min_nodes, offered_load, run_all


@pytest.fixture(scope="module")
def nasa(data_dir):
    return load_swf(data_dir / NASA_LOG, procs_per_gpu=8)


def test_cluster_sizing_rule(nasa):
    assert nasa["gpu_num"].max() == 16 and min_nodes(nasa) == 2
    assert offered_load(nasa, 2) == pytest.approx(0.49, abs=0.01)


def test_policies_on_a_slice_of_the_log(nasa, data_dir):
    jobs = nasa.iloc[12000:15000].copy()          # a busy month (FIFO queues ~12 min on average)
    catalog = WorkloadCatalog.from_data_dir(data_dir)
    profiles = assign_profiles(jobs, catalog, seed=0)
    fifo = Simulator(jobs, {"default": 2}, FIFOPolicy()).run()
    tiresias = Simulator(jobs, {"default": 2}, TiresiasPolicy()).run()
    lucid = Simulator(jobs, {"default": 2}, LucidPolicy(estimator=RollingHistoryEstimator()), catalog=catalog,
                      profiles=profiles).run()
    for result in (fifo, tiresias, lucid):
        result.validate()
        assert result.jobs["end_time"].notna().all()
    s_fifo, s_tir, s_lucid = fifo.summary(), tiresias.summary(), lucid.summary()
    assert s_fifo["avg_queue"] > 60                  # the queue is not trivial at this size
    assert s_tir["avg_queue"] < s_fifo["avg_queue"]
    assert s_lucid["avg_queue"] < s_fifo["avg_queue"]
    # NASA jobs are short (median 86 s): most finish inside the 200 s profiling limit
    assert s_lucid["profiler_finished"] > 0.5 * len(jobs)


@pytest.mark.slow
def test_whole_log_every_policy_under_a_minute(nasa, data_dir):
    table = run_all(nasa, n_nodes=2, data_dir=data_dir)
    assert (table["sim_seconds"] < 60).all(), table["sim_seconds"].to_dict()
    assert (table["n_jobs"] == len(nasa)).all()
    assert table.loc["sjf", "avg_jct"] < table.loc["fifo", "avg_jct"]
    assert table.loc["tiresias", "avg_queue"] < table.loc["fifo", "avg_queue"]
