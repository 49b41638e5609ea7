"""Primo's trees for LinnOS: time-ordered search, biased weights, distillation, integer C export."""
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

import primo
from adapters.linnos.c_inference import measure_c_predictor, primo_tree_c_source
from adapters.linnos.features import RAW_FEATURE_NAMES
from adapters.linnos.primo_models import (
    TreePredictor, distill_tree, search_tree, slow_weights, time_ordered_validation, tree_structure,
)


def drifting_rule(n, seed):
    """Slow when the last latency is high and the queue is long; 10% label noise."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 100, (n, 9)), columns=RAW_FEATURE_NAMES)
    X["latency_prev1"] = rng.integers(100, 5000, n)
    y = ((X["latency_prev1"] > 3500) & (X["pending_now"] > 30)).to_numpy().astype(int)
    return X, np.where(rng.random(n) < 0.1, 1 - y, y)


def test_validation_is_the_last_part_in_time():
    train, valid = next(time_ordered_validation(100, 0.25).split())
    assert train.tolist() == list(range(75)) and valid.tolist() == list(range(75, 100))
    with pytest.raises(ValueError, match="too few"):
        time_ordered_validation(2, 0.1)


def test_slow_weights():
    assert slow_weights([1, 0, 1], 2.5).tolist() == [2.5, 1.0, 2.5]
    with pytest.raises(ValueError, match="positive"):
        slow_weights([1], 0)


def test_search_finds_the_rule_and_lambda_shrinks_the_tree():
    X, y = drifting_rule(2000, 0)
    small = search_tree(X, y, lam=1e-2, n_trials=5, random_state=0)
    large = search_tree(X, y, lam=0.0, n_trials=5, random_state=0)
    assert small.complexity_ <= large.complexity_
    assert set(tree_structure(small)["features_used"]) <= {"latency_prev1", "pending_now"}
    X_test, y_test = drifting_rule(2000, 1)
    predicted = TreePredictor(small).predict(X_test)
    assert set(np.unique(predicted)) <= {0, 1}
    assert (predicted == y_test).mean() > 0.8
    search = small.metadata_["search"]
    assert search["scoring"] == "1-f1" and search["lam"] == 1e-2
    assert small.metadata_["training"]["slow_weight"] == 4.0
    assert small.metadata_["training"]["search_cpu_s"] > 0


def test_search_rejects_bad_input():
    X, y = drifting_rule(200, 0)
    with pytest.raises(ValueError, match="both"):
        search_tree(X, np.zeros(len(X), dtype=int), lam=0.0, n_trials=2)
    with pytest.raises(ValueError, match="lack columns"):
        search_tree(X.drop(columns="pending_now"), y, lam=0.0, n_trials=2)
    with pytest.raises(TypeError, match="DataFrame"):
        search_tree(X.to_numpy(), y, lam=0.0, n_trials=2)


@pytest.fixture(scope="module")
def distilled():
    X, y = drifting_rule(2000, 2)
    teacher = LogisticRegression(max_iter=500).fit(X, y)
    X_test, y_test = drifting_rule(1000, 3)
    return teacher, X_test, {labels: distill_tree(teacher, X, X_test, y_test, labels=labels, n_trials=4)
                             for labels in ("hard", "soft")}


def test_distilled_students_follow_the_teacher(distilled):
    teacher, X_test, students = distilled
    assert isinstance(students["hard"], primo.PrDTClassifier)
    assert isinstance(students["soft"], primo.PrDTClassifier)  # leaves hold the network's mean P(slow)
    assert students["soft"].min_samples_leaf == 20
    for student in students.values():
        agreement = (TreePredictor(student).predict(X_test) == teacher.predict(X_test)).mean()
        assert agreement > 0.85
        assert student.metadata_["distillation"]["fidelity"] == pytest.approx(agreement)
    with pytest.raises(ValueError, match="hard"):
        distill_tree(teacher, X_test, X_test, np.zeros(len(X_test)), labels="warm")


def test_integer_c_export_answers_like_python(distilled):
    _, X_test, students = distilled
    X, y = drifting_rule(2000, 4)
    searched = search_tree(X, y, lam=1e-3, n_trials=3, random_state=0)
    for model in (searched, *students.values()):
        source = primo_tree_c_source(model, check_data=X_test)
        assert "0 predictions" in source  # the export's own integer-vs-float check, in its header
        # compiled with -mgeneral-regs-only: any floating point would fail to build
        timing = measure_c_predictor(source, X_test, passes=2)
        np.testing.assert_array_equal(timing.predictions, TreePredictor(model).predict(X_test))
        assert timing.ns_per_prediction > 0


def test_integer_c_export_rejects_what_it_cannot_answer():
    X, y = drifting_rule(300, 5)
    with pytest.raises(ValueError, match="9 raw features"):
        primo_tree_c_source(primo.PrDTClassifier().fit(X.iloc[:, :3], y))
    with pytest.raises(ValueError, match=r"classes \[0, 1\]"):
        primo_tree_c_source(primo.PrDTClassifier().fit(X, y + 1))
    with pytest.raises(ValueError, match="soft-label"):
        primo_tree_c_source(primo.PrDTRegressor(max_depth=2).fit(X, y.astype(float)))
