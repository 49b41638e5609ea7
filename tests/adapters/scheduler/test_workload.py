"""Workload Estimate Model: QSSF rolling estimator, online history without leakage, name buckets."""
import numpy as np
import pandas as pd
import pytest

from adapters.scheduler.jobs import last_month_start, load_swf
from adapters.scheduler.workload import (NameClusterer, OnlineRollingEstimator, RollingEstimator,
                                         default_name_mode, duration_metrics, evaluate_workload_models,
                                         finished_by, online_history, qssf_priority, spearman_difference,
                                         workload_dataset)


def job(user, name, gpu, duration=None):
    return {"user": user, "name": name, "gpu_num": gpu, "duration": duration}


def test_rolling_estimator_follows_the_three_qssf_branches():
    est = RollingEstimator(similarity_threshold=0.8, decay=0.5, default_duration=42.0)
    assert est.estimate(job("u", "x", 1), return_case=True) == (42.0, "new_user")  # nothing seen yet
    for j in (job("alice", "resnet50_lr0.1", 1, 100.0), job("alice", "resnet50_lr0.2", 1, 300.0),
              job("alice", "bert_large", 8, 5000.0), job("bob", "gan", 1, 20.0)):
        est.update(j)
    # 1. new user: mean of every job with the same GPU demand, else of all jobs
    assert est.estimate(job("carol", "x", 1), return_case=True) == (pytest.approx(140.0), "new_user")
    assert est.estimate(job("carol", "x", 4)) == pytest.approx((100 + 300 + 5000 + 20) / 4)
    # 2. known user, no similar name: the user's mean at this GPU demand, else the user's mean
    assert est.estimate(job("alice", "vit_tiny", 1), return_case=True) == (pytest.approx(200.0), "new_name")
    assert est.estimate(job("alice", "vit_tiny", 2)) == pytest.approx((100 + 300 + 5000) / 3)
    # 3. similar names: decayed mean, most recently finished first (300 weighs 1, 100 weighs 0.5)
    value, case = est.estimate(job("alice", "resnet50_lr0.3", 1), return_case=True)
    assert case == "similar_name" and value == pytest.approx((300 + 0.5 * 100) / 1.5)
    # similar-name matching is per user
    assert est.estimate(job("bob", "resnet50_lr0.3", 1), return_case=True)[1] == "new_name"


def test_exact_name_matching_and_parameter_checks():
    est = RollingEstimator(similarity_threshold=1.0)
    est.update(job("u", "101", 1, 10.0))
    assert est.estimate(job("u", "102", 1), return_case=True)[1] == "new_name"
    assert est.estimate(job("u", "101", 1), return_case=True) == (10.0, "similar_name")
    assert est.estimate(job("u", "", 1), return_case=True)[1] == "new_name"  # unknown names never match
    with pytest.raises(ValueError, match="decay"):
        RollingEstimator(decay=0.0)
    with pytest.raises(ValueError, match="similarity_threshold"):
        RollingEstimator(similarity_threshold=1.5)


def make_jobs(rows):
    jobs = pd.DataFrame(rows, columns=["job_id", "user", "name", "gpu_num", "submit_time", "duration"])
    jobs["vc"], jobs["cpu_num"], jobs["state"] = "default", 0, "COMPLETED"
    jobs["queue_delay"] = 0.0
    jobs.attrs["epoch"] = pd.Timestamp("2020-04-01")
    return jobs


def test_online_history_uses_only_jobs_finished_before_submission():
    jobs = make_jobs([
        ("a", "u", "train", 1, 0.0, 100.0),   # ends at 100
        ("b", "u", "train", 1, 50.0, 500.0),  # ends at 550
        ("c", "u", "train", 1, 200.0, 10.0),  # sees a only
        ("d", "u", "train", 1, 600.0, 10.0),  # sees a, b, c
    ])
    hist = online_history(jobs, RollingEstimator(similarity_threshold=1.0, decay=0.5))
    assert hist["rolling_case"].tolist() == [0.0, 0.0, 2.0, 2.0]  # u unknown until a finishes at 100
    assert hist.loc[2, "rolling_estimate"] == 100.0 and hist.loc[2, "name_finished"] == 1
    # d: finish order a (100), c (210), b (550) -> newest first 500, 10, 100
    assert hist.loc[3, "rolling_estimate"] == pytest.approx((500 + 0.5 * 10 + 0.25 * 100) / 1.75)
    assert hist.loc[3, "user_finished"] == 3 and hist.loc[3, "name_last_duration"] == 500.0
    assert hist["user_recent_submits"].tolist() == [0.0, 1.0, 2.0, 3.0]
    # the user's typical job: mean log1p duration; the last one is the most recently *finished* (b, at 550)
    assert hist.loc[3, "user_log_mean_duration"] == pytest.approx(np.mean(np.log1p([100.0, 10.0, 500.0])))
    assert hist.loc[3, "user_last_duration"] == 500.0 and hist.loc[2, "user_last_duration"] == 100.0
    assert np.isnan(hist.loc[0, "user_log_mean_duration"]) and np.isnan(hist.loc[1, "user_last_duration"])
    assert np.isnan(hist["user_request_ratio"]).all()  # no requests recorded
    asked = online_history(jobs.assign(req_time=[200.0, 1000.0, np.nan, 20.0]), RollingEstimator())
    # d sees a (used log1p(100) - log1p(200)) and b (log1p(500) - log1p(1000)); c asked for nothing
    ratio = np.mean(np.log1p([100.0, 500.0]) - np.log1p([200.0, 1000.0]))
    assert asked.loc[3, "user_request_ratio"] == pytest.approx(ratio)
    assert asked.loc[3, "request_estimate"] == pytest.approx(np.log1p(20.0) + ratio)
    assert np.isnan(asked.loc[2, "request_estimate"]) and asked.loc[2, "user_request_ratio"] == pytest.approx(
        np.log1p(100.0) - np.log1p(200.0))
    # b's duration is unknown when c is submitted: changing it must not move c's features
    longer = jobs.copy()
    longer.loc[1, "duration"] = 5000.0
    hist2 = online_history(longer, RollingEstimator(similarity_threshold=1.0, decay=0.5))
    pd.testing.assert_series_equal(hist.iloc[2], hist2.iloc[2])
    assert hist2.loc[3, "name_finished"] == 2  # b (now ending at 5050) is no longer finished for d
    with pytest.raises(ValueError, match="sorted"):
        online_history(jobs.iloc[::-1])


def test_queue_delay_delays_the_finish():
    jobs = make_jobs([("a", "u", "n", 1, 0.0, 100.0), ("b", "u", "n", 1, 150.0, 10.0)])
    assert online_history(jobs)["rolling_case"].tolist() == [0.0, 2.0]
    jobs.loc[0, "queue_delay"] = 60.0  # a ends at 160, after b's submission
    assert online_history(jobs)["rolling_case"].tolist() == [0.0, 0.0]


def test_name_clusterer_buckets_similar_names():
    names = ["resnet50_lr0.1_bs64", "resnet50_lr0.01_bs64", "resnet50_lr0.1_bs128",
             "bert_finetune_squad_v1", "bert_finetune_squad_v2", "bert_finetune_glue_v1",
             "yolo_coco_exp3", "yolo_coco_exp4"]
    clusterer = NameClusterer().fit(names * 2)
    labels = clusterer.transform(names)
    assert len(set(labels[:3])) == 1 and len(set(labels[3:6])) == 1 and len(set(labels[6:])) == 1
    assert len({labels[0], labels[3], labels[6]}) == 3
    unseen = clusterer.transform(["resnet50_lr0.5_bs64", "yolo_coco_exp9", ""])
    assert unseen.tolist() == [labels[0], labels[6], -1]
    with pytest.raises(RuntimeError, match="not fitted"):
        NameClusterer().transform(["x"])


def test_qssf_priority_and_metrics():
    assert qssf_priority([4, 1], [10.0, 100.0], [30.0, 300.0], lam=0.25).tolist() == [100.0, 250.0]
    with pytest.raises(ValueError, match="lam"):
        qssf_priority([1], [1.0], [1.0], lam=2.0)
    perfect = duration_metrics([10.0, 100.0, 1000.0], [10.0, 100.0, 1000.0])
    assert perfect["r2"] == 1.0 and perfect["spearman"] == 1.0 and perfect["kendall"] == 1.0
    reversed_ = duration_metrics([10.0, 100.0, 1000.0], [1000.0, 100.0, 10.0])
    assert reversed_["spearman"] == -1.0 and reversed_["r2"] < 0


def test_dataset_codes_come_from_training_jobs_only():
    rows = [(str(i), f"user{i % 3}", f"exp_{'ab'[i % 2]}_{i}", 1 + i % 2, 100.0 * i, 50.0 + i) for i in range(30)]
    rows.append(("30", "newcomer", "exp_a_99", 1, 3100.0, 60.0))
    jobs = make_jobs(rows)
    data = workload_dataset(jobs, 2000.0, name_mode="cluster")
    assert len(data.X_train) == 20 and len(data.X_test) == 11
    assert data.X_test["user"].iloc[-1] == -1 and (data.X_train["user"] >= 0).all()
    assert {"name", "rolling_estimate", "hour", "gpu_num"} <= set(data.X_train.columns)
    unnamed = workload_dataset(jobs, 2000.0, name_mode="none").X_train.columns
    assert "name" not in unnamed and "name_last_duration" not in unnamed
    with pytest.raises(ValueError, match="empty train or test"):
        workload_dataset(jobs, 1e9)
    with pytest.raises(ValueError, match="extra_features"):
        workload_dataset(jobs, 2000.0, extra_features=("req_time",))
    assert "user_last_duration" not in data.X_train.columns  # the Slurm plugin's features by default
    assert "request_estimate" not in workload_dataset(jobs, 2000.0, name_mode="cluster", user_requests=True).X_train
    typical = workload_dataset(jobs.assign(req_time=120.0), 2000.0, name_mode="cluster", user_typical=True,
                               extra_features=("req_time",)).X_test
    assert (typical["req_time"] == 120.0).all()
    assert np.isfinite(typical["user_log_mean_duration"].iloc[:-1]).all()  # known users...
    assert np.isnan(typical["user_log_mean_duration"].iloc[-1])  # ...but nothing of the newcomer
    # durations are log1p like the other history durations; the log mean is log already
    assert typical["user_last_duration"].max() < np.log1p(200.0) and typical["user_log_mean_duration"].max() < 5


def test_spearman_difference_is_paired_over_jobs():
    rng = np.random.default_rng(0)
    y = rng.lognormal(size=400)
    good, bad = y * rng.lognormal(0.0, 0.2, 400), y * rng.lognormal(0.0, 3.0, 400)
    d = spearman_difference(y, good, bad, n_resamples=300)
    assert d.mean == pytest.approx(duration_metrics(y, good)["spearman"] - duration_metrics(y, bad)["spearman"])
    assert 0 < d.low < d.mean < d.high and d.median is None and d.n == 400
    same = spearman_difference(y, good, good * 2.0, n_resamples=100)  # same ranking: exactly no difference
    assert same.mean == same.low == same.high == 0.0
    with pytest.raises(ValueError, match="length"):
        spearman_difference(y, good, bad[:-1])
    with pytest.raises(ValueError, match="finite"):
        spearman_difference(y, np.where(y > 1, np.nan, y), bad)


def test_real_nasa_log_model_ranks_durations(data_dir):
    jobs = load_swf(data_dir / "scheduler" / "jobs" / "NASA-iPSC-1993-3.1-cln.swf.gz")
    data = workload_dataset(jobs, last_month_start(jobs), name_mode="exact",
                            estimator=RollingEstimator(similarity_threshold=1.0))
    assert len(data.y_train) + len(data.y_test) == len(jobs)
    assert data.case_counts["similar_name"] > 0.8 * len(data.y_test)  # a recurring workload
    table = evaluate_workload_models(data, models=("lightgbm",), include_ebm=False).set_index("model")
    assert table.loc["lightgbm", "r2_log"] > 0.3 and table.loc["lightgbm", "spearman"] > 0.5
    assert table.loc["rolling", "spearman"] > 0.5
    # the GPU count is part of the priority: ranking GPU time is easier than ranking duration
    assert table.loc["lightgbm", "gpu_time_spearman"] > table.loc["lightgbm", "spearman"]


def test_defaults_work_without_names_and_ids_can_be_categories():
    rows = [(str(i), f"user{i % 3}", "", 1 + i % 2, 100.0 * i, 50.0 + i) for i in range(30)]
    rows.append(("30", "newcomer", "", 1, 3100.0, 60.0))
    jobs = make_jobs(rows)
    assert default_name_mode(jobs) == "none"
    data = workload_dataset(jobs, 2000.0)  # no name_mode: must not raise on a log without names
    assert "name" not in data.X_train.columns
    assert default_name_mode(jobs.assign(name="17")) == "exact"
    assert default_name_mode(jobs.assign(name="resnet_a")) == "cluster"
    cat = workload_dataset(jobs.assign(name=[str(i % 4) for i in range(31)]), 2000.0, id_encoding="categorical",
                           max_train_jobs=12)
    assert len(cat.X_train) == 12 and len(cat.X_test) == 11
    assert isinstance(cat.X_train["user"].dtype, pd.CategoricalDtype)
    assert sorted(cat.X_train["user"].cat.categories) == ["user0", "user1", "user2"]
    assert pd.isna(cat.X_test["user"].iloc[-1])  # an unseen user is missing, not a number
    assert cat.X_train["name"].astype(str).isin(["0", "1", "2", "3"]).all()
    with pytest.raises(ValueError, match="id_encoding"):
        workload_dataset(jobs, 2000.0, id_encoding="onehot")


def test_finished_by_excludes_jobs_still_running():
    jobs = make_jobs([("0", "a", "", 1, 0.0, 100.0), ("1", "a", "", 1, 10.0, 30.0), ("2", "a", "", 1, 50.0, 10.0)])
    assert finished_by(jobs, 60.0)["job_id"].tolist() == ["1", "2"]  # job 0 ends at 100
    assert finished_by(jobs, 100.0)["job_id"].tolist() == ["1", "2", "0"]  # in the order they ended
    est = OnlineRollingEstimator(RollingEstimator(similarity_threshold=1.0))
    for job in finished_by(jobs, 60.0).to_dict("records"):
        est.observe(job)
    assert est.estimate({"user": "a", "name": "", "gpu_num": 1}) == 20.0
