"""Embedded scheduler API: features identical to the training pipeline, exported-model predictions."""
import numpy as np
import pandas as pd
import pytest

from adapters.scheduler import packing, throughput, workload
from adapters.scheduler.embedded import (
    EmbeddedScheduler,
    JobQueue,
    id_inputs,
    next_bin_features,
    training_codes,
)
from adapters.scheduler.jobs import load_swf
from adapters.scheduler.simulator import QSSFPolicy, Simulator, ThroughputHistory
from adapters.scheduler.simulator.run_policies import min_nodes
from primo import PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.export import model_tables


def test_next_bin_features_match_the_training_features(data_dir):
    frame = throughput.load_cluster_throughput(data_dir)
    X, _ = throughput.throughput_dataset(frame, holidays=("2020-06-25",))
    for t in (X.index[0], X.index[7000]):
        i = frame.index.get_loc(t)
        feats = next_bin_features(t, {s: frame[s].to_numpy()[:i] for s in throughput.TARGETS}, ("2020-06-25",))
        assert list(feats) == list(X.columns)
        np.testing.assert_allclose([feats[c] for c in X.columns], X.loc[t].to_numpy(dtype=float), rtol=1e-9)


@pytest.fixture(scope="module")
def nasa(data_dir):
    jobs = load_swf(data_dir / "scheduler/jobs/NASA-iPSC-1993-3.1-cln.swf.gz").iloc[:1200].copy()
    boundary = jobs["submit_time"].iloc[900]
    data = workload.workload_dataset(jobs, boundary, name_mode="exact",
                                     estimator=workload.RollingEstimator(similarity_threshold=1.0))
    model = PrAMRegressor(max_rounds=40, outer_bags=1, interactions=2, n_jobs=1).fit(
        data.X_train, np.log1p(data.y_train))
    return jobs, boundary, data, model


def test_embedded_rows_reproduce_the_offline_features(nasa):
    jobs, boundary, data, model = nasa
    sched = EmbeddedScheduler(model, training_codes(jobs, boundary), jobs.attrs["epoch"])
    # replay the trace the way online_history does: finished jobs are observed before each submission
    ends = workload.job_end_times(jobs)
    pending = []
    rows = []
    for i, job in enumerate(jobs.to_dict("records")):
        for j in sorted((p for p in pending if ends[p] <= job["submit_time"]), key=lambda p: (ends[p], p)):
            sched.observe(jobs.iloc[j].to_dict())
            pending.remove(j)
        rows.append(sched.job_row(job))
        pending.append(i)
    offline = pd.concat([data.X_train, data.X_test])[model.feature_names_].to_numpy(dtype=float)
    np.testing.assert_allclose(np.array(rows), offline, rtol=1e-9)
    queue = jobs.iloc[-20:].to_dict("records")
    many = sched.estimate_many(queue)
    np.testing.assert_allclose(many, [sched.estimate(j) for j in queue], rtol=1e-9)
    assert sched.priority(queue[0]) == pytest.approx(queue[0]["gpu_num"] * many[0])


@pytest.mark.parametrize("family", ["pram", "prdt"])
def test_category_ids_are_read_as_the_model_reads_them(nasa, family):
    """Ids as pandas categories (the case study's encoding). NASA's user ids are numbers as text: a PrAM reads
    such a category as the number itself, a PrDT by its code in the model's vocabulary; users the model never
    saw are missing in the data and unseen in the scheduler, which a PrAM and a PrDT score alike."""
    jobs, boundary, _, _ = nasa
    data = workload.workload_dataset(jobs, boundary, name_mode="exact", id_encoding="categorical",
                                     estimator=workload.RollingEstimator(similarity_threshold=1.0))
    model = (PrAMRegressor(max_rounds=40, outer_bags=1, interactions=2, n_jobs=1, random_state=0) if family == "pram"
             else PrDTRegressor(min_samples_leaf=5, random_state=0)).fit(data.X_train, np.log1p(data.y_train))
    tables = model_tables(model)
    kinds = id_inputs(tables, model.feature_names_)
    assert kinds["user"] == ("number" if family == "pram" else "text")
    codes = {model.feature_names_[j]: list(v) for j, v in tables.vocabularies.items()}
    sched = EmbeddedScheduler(model, codes, jobs.attrs["epoch"])
    ends, pending, estimates = workload.job_end_times(jobs), [], []
    for i, job in enumerate(jobs.to_dict("records")):
        for j in sorted((p for p in pending if ends[p] <= job["submit_time"]), key=lambda p: (ends[p], p)):
            sched.observe(jobs.iloc[j].to_dict())
            pending.remove(j)
        estimates.append(np.log1p(sched.duration(job)))
        pending.append(i)
    assert data.X_test["user"].isna().any()  # unseen users
    test = jobs.index.get_indexer(data.X_test.index)
    np.testing.assert_allclose(np.array(estimates)[test], np.clip(model.predict(data.X_test), 0.0, None), rtol=1e-9)


def test_sharing_score_and_forecast(data_dir, nasa):
    jobs, boundary, _, model = nasa
    singles = packing.load_single_profiles(data_dir)
    X, y = singles[list(packing.FEATURES)].astype(float), singles["label"]
    tree = PrDTClassifier(max_depth=3, random_state=0).fit(X, y)
    frame = throughput.load_cluster_throughput(data_dir).iloc[:2000]
    Xt, yt = throughput.throughput_dataset(frame)
    tp = PrAMRegressor(max_rounds=30, outer_bags=1, interactions=0, n_jobs=1).fit(Xt, np.log1p(yt))
    sched = EmbeddedScheduler(model, training_codes(jobs, boundary), jobs.attrs["epoch"], packing_model=tree,
                              throughput_model=tp)
    assert [sched.sharing_score(r) for r in singles.to_dict("records")[:10]] == tree.predict(X.iloc[:10]).tolist()
    history = ThroughputHistory(bin_start=np.arange(1500) * 600.0, submit_gpu_job=frame["submit_gpu_job"].to_numpy()[:1500],
                                submit_gpu_num=frame["submit_gpu_num"].to_numpy()[:1500], epoch=frame.index[0],
                                bin_seconds=600.0)
    expected = np.expm1(tp.predict(Xt.loc[[frame.index[1500]]]))[0]
    assert sched.forecast(history) == pytest.approx(max(expected, 0.0), rel=1e-9)
    short = ThroughputHistory(history.bin_start[:10], history.submit_gpu_job[:10], history.submit_gpu_num[:10],
                              history.epoch, 600.0)
    assert sched.forecast(short) == pytest.approx(history.submit_gpu_job[4:10].mean())


class _CheckedQSSF(QSSFPolicy):
    """Helios' QSSF in the simulator, with a JobQueue fed the same arrivals and asked first at every pass."""

    def attach(self, sim) -> None:
        super().attach(sim)
        self.mirrors = {vc: JobQueue(self.estimator) for vc in sim.pools}
        self.passes = self.passes_with_waiting_jobs = self.multi_node_starts = 0

    def on_arrival(self, job) -> None:
        super().on_arrival(job)
        self.mirrors[job.vc].push(job)

    def schedule(self, pool) -> None:
        decided = self.mirrors[pool.name].decide(list(pool.node_free), backfill=self.backfill)
        before = set(pool.running)
        super().schedule(pool)
        started = sorted((j.idx, tuple(sorted({(g - pool.gpu_offset) // 8 for g in j.gpus})))
                         for j in pool.running - before)
        assert sorted((job.idx, nodes) for job, nodes in decided) == started
        assert [j.idx for j in self.mirrors[pool.name].order()] == [e[3].idx for e in self.queues[pool.name]]
        self.passes += 1
        self.passes_with_waiting_jobs += bool(self.queues[pool.name])
        self.multi_node_starts += sum(len(nodes) > 1 for _, nodes in decided)


@pytest.mark.parametrize("backfill", [False, True])
def test_job_queue_decides_like_the_simulated_qssf_on_a_real_log(nasa, backfill):
    jobs, boundary, _, model = nasa
    trace = jobs.copy()
    trace["submit_time"] = trace["submit_time"] / 4.0  # 4x the arrival rate: queues build up
    sched = EmbeddedScheduler(model, training_codes(jobs, boundary), jobs.attrs["epoch"])
    policy = _CheckedQSSF(estimator=sched, backfill=backfill)
    Simulator(trace, {"default": min_nodes(trace)}, policy).run()
    assert policy.passes > 500 and policy.passes_with_waiting_jobs > 100 and policy.multi_node_starts > 10


def test_job_queue_batches_match_single_pushes_and_reject_bad_nodes(nasa):
    jobs, boundary, _, model = nasa
    sched = EmbeddedScheduler(model, training_codes(jobs, boundary), jobs.attrs["epoch"])
    waiting = jobs.iloc[900:1000].to_dict("records")
    one_by_one, batch = JobQueue(sched), JobQueue(sched)
    singles = [one_by_one.push(j) for j in waiting]
    np.testing.assert_allclose(batch.push_many(waiting), singles, rtol=1e-9)
    assert [j["job_id"] for j in batch.order()] == [j["job_id"] for j in one_by_one.order()]
    assert batch.order()[0]["job_id"] == waiting[int(np.argmin(singles))]["job_id"]
    batch.remove(waiting[3]["job_id"])
    assert len(batch) == 99
    with pytest.raises(KeyError, match="not queued"):
        batch.remove(waiting[3]["job_id"])
    with pytest.raises(ValueError, match="node 1 has 9 idle GPUs"):
        batch.decide([8, 9])
    assert batch.decide([0, 0]) == [] and len(batch) == 99


def test_a_request_the_job_did_not_make_is_missing(nasa):
    jobs, boundary, _, _ = nasa
    jobs = jobs.assign(req_time=np.where(np.arange(len(jobs)) % 3 == 0, np.nan, jobs["duration"] * 2.0))
    data = workload.workload_dataset(jobs, boundary, name_mode="exact", extra_features=("req_time",),
                                     estimator=workload.RollingEstimator(similarity_threshold=1.0), user_typical=True)
    model = PrAMRegressor(max_rounds=40, outer_bags=1, interactions=0, n_jobs=1).fit(data.X_train,
                                                                                     np.log1p(data.y_train))
    sched = EmbeddedScheduler(model, training_codes(jobs, boundary), jobs.attrs["epoch"])
    column = model.feature_names_.index("req_time")
    job = jobs.iloc[-1].to_dict()
    assert sched.job_row(job)[column] == job["req_time"]
    without = {k: v for k, v in job.items() if k != "req_time"}  # e.g. a simulated job: no request recorded
    assert np.isnan(sched.job_row(without)[column])
    # the exported tables read the missing request as the model does
    row = pd.DataFrame([sched.job_row(without)], columns=model.feature_names_)
    assert np.log1p(sched.duration(without)) == pytest.approx(model.predict(row)[0], rel=1e-9)
