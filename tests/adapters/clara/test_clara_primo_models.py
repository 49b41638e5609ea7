"""Primo's Clara models: templates, search spaces, the CP pipeline, search + refit bookkeeping."""
import numpy as np
import pytest
from skopt.space import Integer

from adapters.clara.data import load_ai, load_cp, load_ms
from adapters.clara.primo_models import (
    CP_STEPS, FULL, QUICK, MeasuredOrTeacher, SearchBudget, cp_pipeline, fit_best, pram_template, search_pram,
    search_space, searched_params,
)
from primo import PrAMClassifier, PrAMRegressor

TINY = SearchBudget(n_trials=2, cv=2, max_rounds=30, outer_bags=1)
#: TINY whose reported models get 2 bags.
TINY_BAGGED = SearchBudget(n_trials=2, cv=2, max_rounds=30, outer_bags=1, reported_outer_bags=2)


def test_templates_bound_boosting_and_pick_the_task_family():
    ai, ms = pram_template("AI", FULL["AI"]), pram_template("MS", QUICK["MS"], random_state=7)
    assert isinstance(ai, PrAMClassifier) and isinstance(ms, PrAMRegressor)
    assert (ai.max_rounds, ai.outer_bags, ai.n_jobs) == (FULL["AI"].max_rounds, FULL["AI"].outer_bags, 1)
    assert ms.random_state == 7 and ms.max_rounds == QUICK["MS"].max_rounds
    with pytest.raises(ValueError, match="unknown Clara task"):
        pram_template("XY", TINY)


def test_reported_models_get_more_bags_than_the_search_fits():
    assert pram_template("MS", TINY_BAGGED).outer_bags == 2
    assert pram_template("MS", TINY_BAGGED, for_search=True).outer_bags == 1
    assert TINY.final_outer_bags == TINY.outer_bags  # unset: the search's count


def test_search_spaces_fit_each_task():
    ms, ai, cp = search_space("MS"), search_space("AI"), search_space("CP")
    assert "max_bins" in ms and "max_bins" not in ai  # 0/1 flags: bins are moot
    assert ai["interactions"].high == 10 and cp["pram__interactions"].high == 8
    assert all(name.startswith("pram__") for name in cp)
    assert isinstance(cp["pram__max_bins"], Integer) and cp["pram__max_bins"].high == 64
    # Every space names parameters the estimator really has.
    assert set(ms) <= set(pram_template("MS", TINY).get_params())
    assert set(cp) <= set(cp_pipeline().get_params())


def test_cp_pipeline_gives_the_pram_named_token_features(data_dir):
    cp = load_cp("synthetic", data_dir)
    model = cp_pipeline(pram_template("CP", TINY)).fit(cp.X[:300], cp.y[:300])
    pram = model.named_steps[CP_STEPS[1]]
    names = pram.feature_names_
    assert names[0] == "length" and "count_tok_74" in names and any(n.startswith("last_tok_is_") for n in names)
    prediction = model.predict(cp.X[300:310])
    assert prediction.shape == (10,) and np.all(np.isfinite(prediction))
    params = searched_params(model)
    assert sorted(params) == sorted(search_space("CP")) and params["pram__max_bins"] == 256  # PrAM default


def test_search_then_fit_best_records_the_search(data_dir):
    ms = load_ms("train", data_dir)
    search = search_pram("MS", ms.X, ms.y, TINY, random_state=0)
    assert len(search.trials_) == TINY.n_trials and not hasattr(search, "best_estimator_")  # no refit inside
    model = fit_best(search, ms.X, ms.y, TINY_BAGGED)
    assert model.get_params()["max_bins"] == search.best_params_["max_bins"]
    assert search.estimator.outer_bags == 1 and model.outer_bags == len(model.ebm_.bagged_intercept_) == 2
    history = model.metadata_["search"]
    assert history["method"] == "bayesian" and history["scoring"] == "mae" and len(history["trials"]) == 2


def test_ai_search_scores_log_loss_with_stratified_folds(data_dir):
    ai = load_ai("train", data_dir)
    rows = np.r_[np.flatnonzero(ai.y == 1), np.flatnonzero(ai.y == 0)[:400]]
    search = search_pram("AI", ai.X[rows], ai.y[rows], TINY, random_state=0)
    rate = ai.y[rows].mean()
    base_rate_loss = -(rate * np.log(rate) + (1 - rate) * np.log(1 - rate))
    assert search.scoring_ == "-neg_log_loss" and 0 < search.best_loss_ < 0.1 * base_rate_loss
    assert {"learning_rate", "interactions"} <= set(search.best_params_)


def test_measured_or_teacher_keeps_measured_counts_and_asks_the_teacher_otherwise():
    known = np.zeros((3, 70), dtype=int)
    known[0, :2] = [5, 9]
    known[1, :2] = [5, 9]  # the same block measured twice: its mean is used
    known[2, :3] = [7, 7, 9]
    calls = []

    def teacher(X):
        calls.append(len(X))
        return np.full(len(X), 0.5)

    labels = MeasuredOrTeacher(teacher, known, [0.1, 0.3, 0.05])
    generated = np.zeros((2, 70), dtype=int)
    generated[0, :1] = [9]
    queries = np.vstack([known[[2, 0]], generated])
    np.testing.assert_allclose(labels.predict(queries), [0.05, 0.2, 0.5, 0.5])
    assert calls == [4]
    with pytest.raises(ValueError, match="rows"):
        MeasuredOrTeacher(teacher, known, [0.1])
