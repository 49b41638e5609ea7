"""Policy study: cluster sized to a load, windows, and no estimator sees a duration before the job ends."""
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from adapters.scheduler import casestudy, packing, throughput, workload
from adapters.scheduler.policy_study import (POOL, WarmStart, offered_load, paired_comparisons, policy_factories,
                                             scale_arrivals, size_cluster, submission_attributes, window_starts)
from adapters.scheduler.simulator import OracleEstimator, Simulator, WorkloadCatalog, assign_profiles
from adapters.scheduler.simulator.job import JobState
from primo import PrAMRegressor, PrDTClassifier, PrDTRegressor

from .sim_fixtures import random_jobs

FIXTURES = Path(__file__).parent / "fixtures"
STUDY_MODEL: list = []  # the duration model of the `study` fixture


def test_cluster_is_sized_to_the_target_load():
    jobs = random_jobs(300, seed=1, horizon=50_000.0)
    for target in (0.6, 0.8, 0.95):
        nodes, scale = size_cluster(jobs, target)
        assert nodes * 8 >= jobs["gpu_num"].max()
        assert offered_load(scale_arrivals(jobs, scale), nodes) == pytest.approx(target)
    # a largest job bigger than the load allows: the smallest cluster that runs it, arrivals compressed
    light = jobs.assign(duration=1.0)
    light.loc[0, "gpu_num"] = 64
    nodes, scale = size_cluster(light, 0.95)
    assert nodes == 8 and scale < 1
    assert window_starts(100, 5, 50) == [0, 20, 40, 60, 80]  # windows shrink to fit
    with pytest.raises(ValueError, match="cannot make 5 windows"):
        window_starts(6, 5, 10)


class DurationHidden:
    """A job as an estimator may see it before it ends: reading its duration (or what is left of it) fails."""

    def __init__(self, job):
        self._job = job

    def __getattr__(self, key):
        if key in ("duration", "remaining"):
            raise AssertionError(f"the estimator read the {key} of job {self._job.job_id} before it ended")
        return getattr(self._job, key)


class Spy:
    """Wraps a policy's estimator: estimates on duration-hidden jobs, and observes only finished jobs."""

    def __init__(self, inner, sim_time):
        self.inner, self.sim_time = inner, sim_time
        self.estimates = self.observed = 0

    def estimate(self, job):
        self.estimates += 1
        return self.inner.estimate(DurationHidden(job))

    def estimate_many(self, jobs):
        self.estimates += len(jobs)
        hidden = [DurationHidden(j) for j in jobs]
        if hasattr(self.inner, "estimate_many"):
            return self.inner.estimate_many(hidden)
        return np.array([self.inner.estimate(j) for j in hidden])

    def observe(self, job):
        assert job.state is JobState.DONE and job.end_time <= self.sim_time(), f"{job!r} observed before it ended"
        self.observed += 1
        self.inner.observe(job)


@pytest.fixture(scope="module")
def study(data_dir):
    trace = random_jobs(700, seed=3, horizon=60_000.0)
    trace["name"] = trace["name"].str.removeprefix("app")  # application ids
    trace.loc[trace.index[-60:], "user"] = "newcomer"  # an id the models never saw
    trace["req_time"] = np.ceil(trace["duration"] * 1.5 / 600) * 600  # what users ask for, known at submission
    boundary = float(trace["submit_time"].iloc[450])
    data = workload.workload_dataset(trace, boundary, estimator=workload.RollingEstimator(similarity_threshold=1.0),
                                     id_encoding="categorical", extra_features=("req_time",), user_typical=True,
                                     user_requests=True)
    assert {"req_time", "user_log_mean_duration", "user_last_duration", "user_request_ratio",
            "request_estimate"} <= set(data.X_train.columns)
    model = PrDTRegressor(max_depth=3, random_state=0).fit(data.X_train, np.log1p(data.y_train))
    singles = packing.load_single_profiles(data_dir)
    tree = PrDTClassifier(max_depth=2, random_state=0).fit(singles[list(packing.FEATURES)].astype(float),
                                                           singles["label"])
    Xt, yt = throughput.throughput_dataset(throughput.load_cluster_throughput(data_dir).iloc[:1500])
    tp = PrAMRegressor(max_rounds=20, outer_bags=1, interactions=0, n_jobs=1).fit(Xt, np.log1p(yt))
    STUDY_MODEL[:] = [model]
    context = {"jobs": trace, "data": data, "model": model, "log_range": (0.0, 12.0)}
    return trace, data, casestudy.primo_factory(context, packing_model=tree, throughput_model=tp)


def test_warm_start_holds_only_jobs_that_had_ended(study):
    trace, _, make = study
    t = float(trace["submit_time"].iloc[500])
    ends = workload.job_end_times(trace)
    warm = WarmStart.at(trace, t)
    assert len(warm.finished) == int((ends <= t).sum()) > 0
    # durations of jobs still running at t (and of every later job) are changed: nothing known at t may move
    unknown = ends > t
    perturbed = trace.assign(duration=np.where(unknown, trace["duration"] * 1000.0, trace["duration"]))
    warm_perturbed = WarmStart.at(perturbed, t)
    window = trace.iloc[500:540]
    submitted_as = submission_attributes(window)
    records = [dict(r, duration=np.nan) for r in window.to_dict("records")]
    assert all("duration" not in r for r in warm.recent)  # recent submissions: known, but not their durations
    for build in (lambda w: workload.OnlineRollingEstimator(w.rolling()), lambda w: make(w, submitted_as).embedded):
        assert [build(warm).estimate(r) for r in records] == [build(warm_perturbed).estimate(r) for r in records]
    assert casestudy.primo_factory.__kwdefaults__["holidays"] == ()  # no country's calendar by default


@pytest.mark.parametrize("offset", [None, "rolling_estimate"])
def test_simulated_primo_scheduler_predicts_like_the_model(study, offset):
    trace, data, make = study
    model = STUDY_MODEL[0]
    model.metadata_.pop("offset_feature", None)
    if offset:  # a model of the correction to the rolling estimate (fit_duration_model's default form)
        model.metadata_["offset_feature"] = offset
    sched = make(WarmStart([], []), submission_attributes(trace))
    # replay the trace as online_history does: finished jobs are observed before each submission
    ends, pending, estimates = workload.job_end_times(trace), [], []
    is_test = trace.index.isin(data.X_test.index)
    for i, job in enumerate(trace.to_dict("records")):
        for j in sorted((p for p in pending if ends[p] <= job["submit_time"]), key=lambda p: (ends[p], p)):
            sched.observe(trace.iloc[j].to_dict())
            pending.remove(j)
        estimate = sched.embedded.duration(job)  # every submission is seen (user_recent_submits)
        if is_test[i]:
            estimates.append(estimate)
        pending.append(i)
    assert data.X_test["user"].isna().sum() == 60  # unseen ids are missing for the model...
    # ...and the exported tables the scheduler runs read them the same way
    expected = casestudy.primo_models.predict_duration(model, data.X_test, (0.0, 12.0))
    plain = np.expm1(np.clip(model.predict(data.X_test), 0.0, 12.0))
    assert (not offset) == np.allclose(expected, plain)
    np.testing.assert_allclose(estimates, expected, rtol=1e-9)
    queue = trace.iloc[-20:].to_dict("records")
    np.testing.assert_allclose(sched.embedded.estimate_many(queue), [sched.embedded.estimate(j) for j in queue])
    model.metadata_.pop("offset_feature", None)


def test_no_estimator_sees_a_duration_before_the_job_ends(study, data_dir):
    trace, data, make = study
    test = trace.loc[data.X_test.index]
    window = test.iloc[:120].copy()
    window.attrs = dict(trace.attrs)
    warm = WarmStart.at(trace, float(window["submit_time"].iloc[0]))
    submitted_as = submission_attributes(window)
    catalog = WorkloadCatalog.from_data_dir(data_dir)
    nodes, scale = size_cluster(window, 0.95)
    jobs = scale_arrivals(window, scale).assign(vc=POOL)
    checked = []
    for name, factory in policy_factories(lambda: make(warm, submitted_as), warm.rolling).items():
        policy = factory()
        if name in ("fifo", "tiresias", "sjf_oracle"):  # no estimator (SJF reads durations by design)
            continue
        sim = Simulator(jobs, {POOL: nodes}, policy, catalog=catalog, profiles=assign_profiles(jobs, catalog))
        policy.estimator = spy = Spy(policy.estimator, lambda sim=sim: sim.now)
        sim.run()
        assert spy.estimates > 0 and spy.observed == len(jobs), name
        checked.append(name)
    assert checked == ["qssf_rolling", "qssf_primo", "lucid_primo", "lucid_primo_noprof"]
    # the check can fail: an estimator that reads the true duration is caught
    with pytest.raises(AssertionError, match="read the duration"):
        Spy(OracleEstimator(), lambda: 0.0).estimate(sim.jobs[0])


def test_paired_comparisons_pair_windows_and_name_the_best():
    runs = [{"load": 0.8, "window": w, "policies": {
        "fifo": {"avg_jct_h": 2.0 + w, "avg_queue_h": 1.0 + w},
        "sjf_oracle": {"avg_jct_h": 0.1, "avg_queue_h": 0.0},
        "qssf_rolling": {"avg_jct_h": 1.5 + w, "avg_queue_h": 0.5 + w},
        "lucid_primo": {"avg_jct_h": 1.0 + w, "avg_queue_h": 0.2 + w}}} for w in range(5)]
    rows = paired_comparisons(runs, n_resamples=200)
    lucid = next(r for r in rows if r["policy"] == "lucid_primo" and r["reference"] == "qssf_rolling"
                 and r["metric"] == "avg_jct_h")
    assert lucid["difference"]["mean"] == pytest.approx(-0.5) and lucid["difference"]["high"] == pytest.approx(-0.5)
    best = next(r for r in rows if r["policy"] == "best_non_oracle")
    assert best["best"] == "lucid_primo"  # the oracle is never the best contender


def test_default_logs_are_the_job_logs_of_the_data_dir(tmp_path):
    jobs_dir = tmp_path / "scheduler" / "jobs"
    jobs_dir.mkdir(parents=True)
    shutil.copy(FIXTURES / "tiny.swf", jobs_dir / "b.swf")
    shutil.copy(FIXTURES / "helios_cluster_log.csv", jobs_dir / "a.csv")
    (jobs_dir / "nodes.csv").write_text("sn,gpu\nn1,8\n")
    assert [p.name for p in casestudy.find_job_logs(tmp_path)] == ["a.csv", "b.swf"]
    log = casestudy.load_log(jobs_dir / "b.swf")
    assert log.attrs["procs_per_gpu"] == 1 and (log["gpu_num"] == log["cpu_num"]).all()
    big = pd.read_csv(FIXTURES / "helios_cluster_log.csv")
    assert casestudy.load_log(jobs_dir / "a.csv")["gpu_num"].max() == big.loc[big["duration"] > 0, "gpu_num"].max()
