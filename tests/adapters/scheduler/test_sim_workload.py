"""Workload profiles (Lucid's tables, hierarchical sampling) and the default predictors."""
import numpy as np
import pandas as pd
import pytest

from adapters.scheduler.simulator import (FIFOPolicy, ModelEstimator, MovingAverageForecast, OracleThroughputForecast,
                                          RollingHistoryEstimator, SimJob, Simulator, ThroughputAwareStrategy,
                                          ThroughputHistory, WorkloadCatalog, assign_profiles)
from tests.adapters.scheduler.sim_fixtures import make_jobs, random_jobs


@pytest.fixture(scope="module")
def catalog(data_dir):
    return WorkloadCatalog.from_data_dir(data_dir)


@pytest.fixture(scope="module")
def colocate(data_dir):
    return pd.read_csv(data_dir / "scheduler" / "lucid_profiles" / "colocate_info.csv", index_col=0)


def _key(row, k):
    return row[f"model{k}"], row[f"dataset{k}"], row[f"batchsize{k}"], row[f"amp{k}"]


def test_catalog_reads_the_measured_tables(catalog, colocate):
    assert len(catalog) == 66
    row = colocate.query("speed1 < 1 and speed2 < 1").iloc[0]
    a, b = catalog.find(*_key(row, 1)), catalog.find(*_key(row, 2))
    assert catalog.colocated_speeds(a.index, b.index) == (row.speed1, row.speed2)
    assert catalog.colocated_speeds(b.index, a.index) == (row.speed2, row.speed1)
    fast = colocate.query("speed1 > 1.2").iloc[0]      # measurement noise above exclusive speed
    a, b = catalog.find(*_key(fast, 1)), catalog.find(*_key(fast, 2))
    assert catalog.colocated_speeds(a.index, b.index)[0] == 1.0


def test_unmeasured_pairs_use_the_utilization_fit(catalog):
    bert = catalog.find("BERT", "SQuAD", 32, 0)
    light = min(catalog.profiles, key=lambda p: p.gpu_util)
    heavy = max((p for p in catalog.profiles if p.model == "ResNet50"), key=lambda p: p.gpu_util)
    assert not catalog.is_measured(bert.index, light.index)
    before = catalog.n_fallback_pairs
    s_light = catalog.colocated_speeds(bert.index, light.index)
    s_heavy = catalog.colocated_speeds(bert.index, heavy.index)
    assert catalog.n_fallback_pairs == before + 2
    assert s_light[0] == s_light[1] and 0 < s_light[0] <= 1
    assert s_heavy[0] < s_light[0]          # more summed utilization, more interference (Fig. 2a)


def test_catalog_rejects_a_wrong_file(tmp_path):
    base = tmp_path / "scheduler" / "lucid_profiles"
    base.mkdir(parents=True)
    pd.DataFrame({"model": ["x"], "speed": [1.0]}).to_csv(base / "single_data.csv", index=False)
    with pytest.raises(ValueError, match="missing columns"):
        WorkloadCatalog.from_data_dir(tmp_path)


def test_hierarchical_sampling_is_seeded_and_stratified(catalog):
    rng = np.random.default_rng(0)
    n = 4000
    jobs = pd.DataFrame({"gpu_num": rng.choice([1, 8], n), "duration": rng.lognormal(6, 2, n)})
    p0, p0_again, p1 = (assign_profiles(jobs, catalog, seed=s) for s in (0, 0, 1))
    assert np.array_equal(p0, p0_again) and not np.array_equal(p0, p1)
    util = np.array([catalog.profiles[i].gpu_util for i in p0])
    short_single = (jobs["duration"] < jobs["duration"].quantile(0.3)) & (jobs["gpu_num"] == 1)
    long_multi = (jobs["duration"] > jobs["duration"].quantile(0.7)) & (jobs["gpu_num"] == 8)
    assert util[long_multi.to_numpy()].mean() > util[short_single.to_numpy()].mean() + 15
    assert len(set(p0)) > 50                 # every tier and configuration gets used


def _job(user="u", name="a", gpus=1, duration=100.0):
    return SimJob(0, "j", user, name, "vc", gpus, 0, 0.0, duration)


def test_rolling_history_estimator_follows_helios_cases():
    est = RollingHistoryEstimator(decay=0.5, prior=999)
    assert est.estimate(_job()) == 999                               # nothing seen yet
    est.observe(_job(duration=100))
    est.observe(_job(duration=300))
    assert est.estimate(_job()) == pytest.approx(200)                # same user+name: EWMA (0.5*300 + 0.5*100)
    assert est.estimate(_job(name="b")) == pytest.approx(200)        # user's jobs with this GPU count
    est.observe(_job(user="v", name="z", gpus=4, duration=1000))
    assert est.estimate(_job(name="b", gpus=4)) == pytest.approx(200)  # known user, new GPU count: user mean
    assert est.estimate(_job(user="new", name="", gpus=4)) == pytest.approx(1000)  # new user: GPU-demand mean
    assert est.estimate(_job(user="new", name="", gpus=2)) == pytest.approx(1400 / 3)  # unseen demand: all jobs


def test_model_estimator_calls_the_batch_predictor():
    calls = []

    def predict(x):
        calls.append(x.shape)
        return x[:, 0] * 10

    est = ModelEstimator(predict, features=("gpu_num", "cpu_num"))
    jobs = [_job(gpus=g) for g in (1, 2, 4)]
    assert est.estimate_many(jobs).tolist() == [10, 20, 40]
    assert calls == [(3, 2)]
    with pytest.raises(ValueError, match="unknown job feature"):
        ModelEstimator(predict, features=("nope",)).estimate(jobs[0])


def _history(counts):
    counts = np.asarray(counts)
    return ThroughputHistory(600.0 * np.arange(len(counts)), counts, counts, None, 600.0)


class _Fixed:
    def __init__(self, value):
        self.value = value

    def forecast(self, history):
        return self.value


def test_throughput_strategy_modes():
    h = _history([10] * 20 + [4])              # long-run mean ~9.7, last bin 4
    assert ThroughputAwareStrategy(_Fixed(3)).capacity(h) == 1      # low and not rising: apathetic
    assert ThroughputAwareStrategy(_Fixed(0)).capacity(h) == 0      # very low: sharing off
    assert ThroughputAwareStrategy(_Fixed(6)).capacity(h) == 2      # rising: default
    assert ThroughputAwareStrategy(_Fixed(3)).capacity(_history([])) == 2
    assert MovingAverageForecast(window=2).forecast(_history([1, 2, 6])) == 4


def test_simulator_history_and_oracle_forecast():
    jobs = make_jobs([(0, 1, 10), (100, 2, 10), (700, 1, 10), (1250, 4, 10)])
    sim = Simulator(jobs, {"vc": 1}, FIFOPolicy())
    sim.advance(until=1300)
    h = sim.throughput_history()
    assert h.submit_gpu_job.tolist() == [2, 1] and h.submit_gpu_num.tolist() == [3, 1]
    assert OracleThroughputForecast(jobs["submit_time"]).forecast(h) == 1     # the job at 1250
    frame = h.to_frame()
    assert list(frame.columns) == ["time", "submit_gpu_job", "submit_gpu_num"]
    assert frame["time"].iloc[1] == pd.Timestamp("2020-09-01 00:10:00")


def test_lucid_strategy_uses_a_pluggable_forecast(catalog):
    from adapters.scheduler.simulator import LucidPolicy

    class Counting(_Fixed):
        calls = 0

        def forecast(self, history):
            Counting.calls += 1
            return 0.0

    jobs = random_jobs(200, seed=1)
    policy = LucidPolicy(throughput_forecast=Counting(0))
    Simulator(jobs, {"vc": 2}, policy, catalog=catalog, profiles=assign_profiles(jobs, catalog)).run()
    assert Counting.calls > 0
    assert set(policy.capacity_bins) <= {0, 2}
    assert policy.capacity_bins.get(0, 0) > 0   # forecast 0 switches sharing off
