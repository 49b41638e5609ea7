"""Explicit PrAM/PrDT edits, the edit log (save/load, replay, undo), compare_models, the CLI."""
import numpy as np
import pandas as pd
import pytest

import primo
from primo import PrAMRegressor
from primo.adjust import (
    compare_models,
    edits_of,
    format_edits,
    monotonize,
    replay,
    scale_term_scores,
    set_leaf_value,
    set_term_scores,
    set_threshold,
    shift_term_scores,
    undo,
)
from primo.cli import main


def test_shift_moves_exactly_the_rows_in_the_bins(pram_ms, clara):
    X_test = clara[2]
    low, high = X_test["R_i"].quantile([0.3, 0.6])
    edited = shift_term_scores(pram_ms, "R_i", 2.5, value_range=(low, high))
    change = edited.predict(X_test) - pram_ms.predict(X_test)
    record = edits_of(edited)[-1]
    cuts = pram_ms.ebm_.bins_[pram_ms.feature_names_.index("R_i")][0]
    inner = np.searchsorted(cuts, X_test["R_i"], side="right")
    inside = np.isin(inner, record["bins"])
    assert inside.any() and (~inside).any()
    assert np.allclose(change[inside], 2.5) and np.allclose(change[~inside], 0.0)
    assert record["arguments"] == {"term": "R_i", "delta": 2.5, "value_range": [low, high]}


def test_set_and_scale_and_pair_bins(pram_ms, clara):
    X_test = clara[2]
    silenced = scale_term_scores(pram_ms, "A_i", 0.0)
    assert np.allclose(silenced.eval_terms(X_test)[:, silenced.term_names_.index("A_i")], 0.0)
    pair = next(n for n in pram_ms.term_names_ if " & " in n)
    edited = set_term_scores(pram_ms, pair, 1.0, bins=([0, 1], slice(0, 2)))
    scores = np.asarray(edited.ebm_.term_scores_[edited.term_names_.index(pair)])
    assert np.allclose(scores[1:3, 1:3], 1.0)
    assert np.allclose(np.delete(scores, [1, 2], axis=0), np.delete(pram_ms.ebm_.term_scores_[edited.term_names_.index(pair)], [1, 2], axis=0))
    with pytest.raises(ValueError, match="out of range"):
        shift_term_scores(pram_ms, "A_i", 1.0, bins=[999])
    with pytest.raises(ValueError, match="at most one"):
        shift_term_scores(pram_ms, "A_i", 1.0, bins=[0], values=[3.0])


def test_edit_log_survives_save_load_and_replays_on_a_fresh_fit(pram_ms, clara, tmp_path):
    X, y, X_test, _ = clara
    edited = monotonize(pram_ms, ["A_i", "R_ec"])
    edited = shift_term_scores(edited, "R_i", -1.0, values=[X["R_i"].median()], inplace=True)
    path = edited.save(tmp_path / "edited.primo")
    loaded = primo.load(path)
    assert edits_of(loaded) == edits_of(edited)
    assert [r["operation"] for r in edits_of(loaded)] == ["monotonize", "monotonize", "shift_term_scores"]
    assert np.allclose(loaded.predict(X_test), edited.predict(X_test))
    fresh = PrAMRegressor(**pram_ms.get_params()).fit(X, y)
    replayed = replay(fresh, edits_of(loaded))
    assert np.allclose(replayed.predict(X_test), edited.predict(X_test))
    assert "R_i" in format_edits(loaded) and "shift_term_scores" in format_edits(loaded)


def test_undo_restores_each_step_and_refuses_a_changed_model(pram_ms, clara):
    X_test = clara[2]
    one = shift_term_scores(pram_ms, "A_i", 1.0)
    two = monotonize(one, "A_i", direction="decreasing")
    back = undo(two)
    assert np.allclose(back.predict(X_test), one.predict(X_test)) and len(edits_of(back)) == 1
    assert np.allclose(undo(back).predict(X_test), pram_ms.predict(X_test)) and edits_of(undo(back)) == []
    tampered = shift_term_scores(pram_ms, "A_i", 1.0)
    tampered.ebm_.term_scores_[tampered.term_names_.index("A_i")][3] += 5.0
    with pytest.raises(ValueError, match="changed since"):
        undo(tampered)
    with pytest.raises(ValueError, match="no edits"):
        undo(pram_ms)


def test_prdt_leaf_and_threshold_edits(prdt_regressor, prdt_classifier, clara, linnos):
    X, y, X_test, _ = clara
    leaves = prdt_regressor.apply(X_test)
    leaf = int(np.bincount(leaves).argmax())
    edited = set_leaf_value(prdt_regressor, leaf, 99.0)
    assert np.allclose(edited.predict(X_test)[leaves == leaf], 99.0)
    assert np.allclose(edited.predict(X_test)[leaves != leaf], prdt_regressor.predict(X_test)[leaves != leaf])
    root_feature = prdt_regressor.feature_names_[prdt_regressor.tree_.feature[0]]
    moved = set_threshold(edited, 0, float(X_test[root_feature].max()) + 1.0)  # everything goes left
    right = prdt_regressor.tree_.children_right[0]
    assert prdt_regressor.decision_path(X_test)[:, right].nnz > 0 and moved.decision_path(X_test)[:, right].nnz == 0
    restored = undo(undo(moved))
    assert np.allclose(restored.predict(X_test), prdt_regressor.predict(X_test)) and edits_of(restored) == []
    with pytest.raises(ValueError, match="not a leaf"):
        set_leaf_value(prdt_regressor, 0, 1.0)
    Xl, _ = linnos
    leaf = int(prdt_classifier.apply(Xl)[0])
    to_slow = set_leaf_value(prdt_classifier, leaf, 1)
    assert np.all(to_slow.predict(Xl)[prdt_classifier.apply(Xl) == leaf] == 1)
    assert edits_of(to_slow)[-1]["after"] == [0.0, 1.0]


def test_prdt_monotonize_undo_replays_on_the_original(prdt_regressor, clara):
    X, y, X_test, _ = clara
    feature = prdt_regressor.feature_names_[prdt_regressor.tree_.feature[0]]
    leaf = int(prdt_regressor.apply(X_test)[0])
    edited = set_leaf_value(prdt_regressor, leaf, 10.0)
    plus = monotonize(edited, feature, direction="decreasing", X_train=X, y_train=y)
    with pytest.raises(ValueError, match="X_train"):
        undo(plus)
    back = undo(plus, X_train=X, y_train=y)
    assert np.allclose(back.predict(X_test), edited.predict(X_test))
    assert [r["operation"] for r in edits_of(back)] == ["set_leaf_value"]


def test_compare_models_reports_metrics_and_shapes(pram_ms, clara):
    _, _, X_test, y_test = clara
    plus = monotonize(pram_ms, "A_i")
    report = compare_models(pram_ms, plus, X_test, y_test)
    assert np.isclose(report.metrics.loc["mae", "before"], np.mean(np.abs(pram_ms.predict(X_test) - y_test)))
    assert np.isclose(report.metrics.loc["mae", "after"], np.mean(np.abs(plus.predict(X_test) - y_test)))
    assert "A_i" in report.shape_changes
    assert np.allclose(report.prediction_shift, plus.predict(X_test) - pram_ms.predict(X_test))
    assert "mae:" in report.summary()


@pytest.mark.parametrize("family", ["PrDTClassifier", "PrAMClassifier"])
def test_compare_models_warns_about_the_rows_names_once_per_call(family):
    """An array for models fit on a DataFrame (or the reverse) gets scikit-learn's warning once per
    compare_models; before, once per prediction (4 times). With one model fit each way, the one the rows do not
    suit warns, once. Rows as the models were fit give no warning, and the report is that of the named rows."""
    import warnings

    family = getattr(primo, family)
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=120), "b": rng.normal(size=120)})
    y = (X["a"] + X["b"] > 0).astype(int).to_numpy()
    small, large = ((dict(max_depth=2, random_state=0), dict(max_depth=4, random_state=0))
                    if family.__name__.startswith("PrDT") else
                    (dict(max_rounds=10, outer_bags=1, n_jobs=1, random_state=0),
                     dict(max_rounds=40, outer_bags=1, n_jobs=1, random_state=0)))
    before, after = family(**small).fit(X, y), family(**large).fit(X, y)
    before_array, after_array = family(**small).fit(X.to_numpy(), y), family(**large).fit(X.to_numpy(), y)
    without = f"X does not have valid feature names, but {family.__name__} was fitted with feature names"
    with_names = f"X has feature names, but {family.__name__} was fitted without feature names"
    for models, rows, message in [((before, after), X.to_numpy(), without),
                                  ((before_array, after_array), X, with_names),
                                  ((before, after_array), X.to_numpy(), without),
                                  ((before, after_array), X, with_names),
                                  ((before_array, after), X.to_numpy(), without)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            compare_models(*models, rows, y)
        assert [str(w.message) for w in caught] == [message]
    with pytest.warns(UserWarning, match=without):
        from_array = compare_models(before, after, X.to_numpy(), y)
    named = compare_models(before, after, X, y)
    assert np.array_equal(from_array.prediction_shift, named.prediction_shift)
    pd.testing.assert_frame_equal(from_array.metrics, named.metrics)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare_models(before, after, X, y)
        compare_models(before_array, after_array, X.to_numpy(), y)


def test_cli_monotone_history_undo_counterfactual(tmp_path, data_dir, prdt_regressor, capsys):
    clara_dir = data_dir / "clara"
    train = pd.read_csv(clara_dir / "ms_train.csv")
    model = PrAMRegressor(max_bins=16, interactions=0, max_rounds=100, outer_bags=1, n_jobs=1).fit(
        train.drop(columns="cores"), train["cores"])
    model.save(tmp_path / "ms.primo")
    assert main(["adjust", "monotone", str(tmp_path / "ms.primo"), "--feature", "A_i", "--feature", "R_ec",
                 "--data", str(clara_dir / "ms_test.csv"), "--target", "cores", "--out", str(tmp_path / "plus.primo")]) == 0
    out = capsys.readouterr().out
    assert "mae:" in out and "A_i made increasing" in out
    assert len(edits_of(primo.load(tmp_path / "plus.primo"))) == 2
    assert main(["adjust", "history", str(tmp_path / "plus.primo")]) == 0
    assert "2. monotonize: R_ec" in capsys.readouterr().out
    assert main(["adjust", "undo", str(tmp_path / "plus.primo"), "--out", str(tmp_path / "back.primo")]) == 0
    assert len(edits_of(primo.load(tmp_path / "back.primo"))) == 1
    counterfactual = ["adjust", "counterfactual", str(tmp_path / "ms.primo"), "--data", str(clara_dir / "ms_test.csv"),
                      "--row", "3", "--desired", "50:", "--k", "3", "--reference", str(clara_dir / "ms_train.csv")]
    assert main([*counterfactual, "--method", "nearest"]) == 0
    out = capsys.readouterr().out
    assert "3 counterfactual(s) (nearest)" in out and "term contribution changes" in out
    assert main([*counterfactual, "--immutable", "A_i"]) == 0  # structural, the default
    out = capsys.readouterr().out
    assert "(structural)" in out and "option 1:" in out and "A_i " not in out.split("counterfactuals:")[0]
    assert main(["info", str(tmp_path / "plus.primo")]) == 0
    assert "edits: 2" in capsys.readouterr().out
    prdt_regressor.save(tmp_path / "tree.primo")
    assert main(["adjust", "monotone", str(tmp_path / "tree.primo"), "--feature", "A_i", "--out", str(tmp_path / "t.primo")]) == 2
