"""PRIMO+ on Clara: monotone MS shape functions, a CV-chosen counterfactual edit on AI."""
import numpy as np
import pandas as pd
import pytest

from adapters.clara.data import load_ai, load_ms
from adapters.clara.metrics import positive_class_scores
from adapters.clara.primo_plus import cross_fitted_fix, fix_false_negatives, monotone_ms, training_directions
from primo import PrAMClassifier, PrAMRegressor
from primo.adjust.terms import resolve_term


@pytest.fixture(scope="module")
def ms(data_dir):
    return load_ms("train", data_dir)


@pytest.fixture(scope="module")
def ms_pram(ms):
    return PrAMRegressor(max_rounds=200, outer_bags=1, interactions=3, n_jobs=1, random_state=0).fit(ms.X, ms.y)


def test_directions_follow_the_training_data(ms):
    # R_ec: the paper's "more cores for more memory/compute intensity"; A_i falls with the cores.
    assert training_directions(ms.X, ms.y) == {"A_i": "decreasing", "R_ec": "increasing"}
    assert training_directions(ms.X, -ms.y) == {"A_i": "increasing", "R_ec": "decreasing"}


def test_monotone_ms_makes_both_shapes_monotone_and_logs_the_edits(ms, ms_pram):
    plus = monotone_ms(ms_pram, ms.X, ms.y)
    for feature, sign in (("A_i", -1), ("R_ec", 1)):
        scores = plus.ebm_.term_scores_[resolve_term(plus, feature)][1:-1]  # inner bins
        assert np.all(sign * np.diff(scores) >= -1e-9)
        before = ms_pram.ebm_.term_scores_[resolve_term(ms_pram, feature)][1:-1]
        assert np.any(sign * np.diff(before) < -1e-9)  # it was not monotone before the edit
    assert [(e["term"], e["direction"]) for e in plus.metadata_["edits"]] == [("A_i", "decreasing"), ("R_ec", "increasing")]
    assert "edits" not in ms_pram.metadata_  # a new model; the original is untouched
    forced = monotone_ms(ms_pram, ms.X, ms.y, directions="increasing")
    assert {e["direction"] for e in forced.metadata_["edits"]} == {"increasing"}


@pytest.fixture(scope="module")
def ai_subset(data_dir):
    ai = load_ai("train", data_dir)
    rows = np.r_[np.flatnonzero(ai.y == 1), np.flatnonzero(ai.y == 0)[:500]]
    return pd.DataFrame(ai.X[rows], columns=[f"pattern_{i:03d}" for i in range(102)]), ai.y[rows]


def test_guided_edit_is_chosen_on_training_folds_and_helps_there(ai_subset):
    X, y = ai_subset
    # An under-fit model (few rounds, tiny learning rate) misses positives: there is something to fix.
    weak = PrAMClassifier(max_rounds=20, learning_rate=0.005, outer_bags=1, interactions=0, n_jobs=1,
                          random_state=0).fit(X, y)
    fix = fix_false_negatives(weak, X, y, cv=3, n_candidates=4, multipliers=(1.0, 2.0), random_state=0)
    assert sum(len(d.rows) for d in fix.diagnoses) > 0
    assert fix.chosen is not None and fix.chosen["f1"] > fix.before["f1"]
    edit = fix.model.metadata_["edits"][-1]
    assert edit["operation"] == "shift_term_scores" and fix.chosen["term"] in edit["summary"]
    assert fix.model is not weak and "edits" not in weak.metadata_
    # The edit raises recall on the training rows it was chosen on.
    assert positive_class_scores(y, fix.model.predict(X))["recall"] > positive_class_scores(y, weak.predict(X))["recall"]


def test_guided_edit_needs_named_features(ai_subset):
    X, y = ai_subset
    model = PrAMClassifier(max_rounds=10, outer_bags=1, interactions=0, n_jobs=1).fit(X, y)
    with pytest.raises(TypeError, match="DataFrame"):
        fix_false_negatives(model, X.to_numpy(), y)


def test_cross_fitted_fix_scores_each_half_with_the_edit_chosen_on_the_other(ai_subset):
    X, y = ai_subset
    weak = PrAMClassifier(max_rounds=20, learning_rate=0.005, outer_bags=1, interactions=0, n_jobs=1,
                          random_state=0).fit(X, y)
    # Half the rows play the training set (counterfactual references), the other half the evaluation rows.
    positives, negatives = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    reference = np.r_[positives[::2], negatives[::2]]
    evaluation = np.r_[positives[1::2], negatives[1::2]]
    crossfit = cross_fitted_fix(weak, X.iloc[evaluation], y[evaluation], X.iloc[reference], y[reference],
                                n_candidates=3, multipliers=(1.0, 2.0))
    assert len(crossfit.fixes) == 2 and crossfit.predictions.shape == (len(evaluation),)
    all_rows = np.arange(len(evaluation))
    assert set(crossfit.halves[0]).isdisjoint(crossfit.halves[1])
    for dev, fix in zip(crossfit.halves, crossfit.fixes):
        # The rows outside the half an edit was chosen on are the ones it predicts.
        held_out = np.setdiff1d(all_rows, dev)
        np.testing.assert_array_equal(crossfit.predictions[held_out], fix.model.predict(X.iloc[evaluation[held_out]]))
        assert fix.chosen is None or fix.chosen["f1"] > fix.before["f1"]
    assert any(fix.chosen is not None for fix in crossfit.fixes)
