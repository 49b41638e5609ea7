"""Primo scheduler models: time validation split, searched PrAM/PrDT, the duration model."""
import numpy as np
import pytest

from adapters.scheduler import primo_models, workload
from adapters.scheduler.jobs import load_swf

TINY = primo_models.Budget(n_trials=2, max_rounds=40, outer_bags=1, packing_trials=2, packing_repeats=1)


def test_time_validation_split_holds_out_the_latest_rows():
    (train, valid), = list(primo_models.time_validation_split(10, 0.3).split())
    assert valid.tolist() == [7, 8, 9] and train.tolist() == list(range(7))
    with pytest.raises(ValueError, match="fraction"):
        primo_models.time_validation_split(10, 1.0)


@pytest.fixture(scope="module")
def nasa_data(data_dir):
    jobs = load_swf(data_dir / "scheduler/jobs/NASA-iPSC-1993-3.1-cln.swf.gz").iloc[:1500].copy()
    return workload.workload_dataset(jobs, jobs["submit_time"].quantile(0.7), name_mode="exact",
                                     estimator=workload.RollingEstimator(similarity_threshold=1.0))


def test_duration_model_is_chosen_on_how_well_it_orders_validation_jobs(nasa_data):
    from scipy.stats import spearmanr

    model, selection, _ = primo_models.fit_duration_model(nasa_data, n_trials=2, budget=TINY)
    valid = primo_models.time_validation_split(len(nasa_data.y_train))
    (_, rows), = list(valid.split())
    X_valid = nasa_data.X_train.iloc[rows]
    chosen = next(row for row in selection if row["selected"])
    # the selection report's loss is 1 - Spearman of the durations it estimates (rolling estimate added back)
    estimate = primo_models.predict_duration(model, X_valid)
    assert chosen["loss"] == pytest.approx(1 - spearmanr(nasa_data.y_train.iloc[rows], estimate).statistic, abs=0.05)
    assert 0.0 <= chosen["loss"] < 1.0  # better than ordering nothing
    ranking = primo_models.ranking_loss()
    # constant estimates, or rows without the offset column (the trivial predictor's stand-in), order nothing
    assert ranking(type("Flat", (), {"predict": lambda self, X: np.zeros(len(X))})(),
                   np.zeros((5, 1)), np.arange(5.0)) == 1.0
    assert model.size_ <= primo_models.READABLE_SIZE  # a model a person can read
    tiny, _, _ = primo_models.fit_duration_model(nasa_data, n_trials=2, budget=TINY, max_size=3)
    assert tiny.size_ <= 3
    with pytest.raises(ValueError, match="selection"):
        primo_models.fit_duration_model(nasa_data, n_trials=2, budget=TINY, selection="r2")
    metrics = primo_models.evaluate_workload_metrics(nasa_data, model, (0.0, 20.0))
    assert {"r2", "r2_log", "spearman", "kendall", "gpu_time_spearman"} <= set(metrics)
    assert metrics["spearman"] > 0.0  # the estimates order the test jobs


def test_packing_nested_cv_reports_protocols(data_dir):
    result = primo_models.evaluate_packing(data_dir, TINY)
    table = result["table"].set_index("protocol")
    assert set(table.index) == {"stratified", "leave_model_out", "in_sample"}
    assert table.loc["stratified", "folds"] == 5
    assert 0.4 < table.loc["stratified", "accuracy"] <= 1.0  # well above the 1/3 of guessing
    assert result["model"].predict(result["X"].iloc[:3]).shape == (3,)
