"""Counterfactuals: desired outcome, true k nearest (vs brute force), term deltas, error diagnosis."""
import numpy as np
import pandas as pd
import pytest

from primo import PrAMClassifier, PrAMRegressor
from primo.adjust import (
    CounterfactualIndex,
    counterfactuals,
    diagnose_errors,
    shift_term_scores,
    suggest_term_edits,
)
from primo.explain import as_counterfactual


def _brute_force(reference, x, qualifying, k, scale=None):
    values = reference.to_numpy(dtype=float)
    scale = values.std(axis=0) if scale is None else scale
    scale = np.where(scale > 0, scale, 1.0)
    distances = np.sqrt((((values - np.asarray(x, dtype=float)) / scale) ** 2).sum(axis=1))
    distances[~qualifying] = np.inf
    order = np.argsort(distances, kind="stable")[:k]
    return order, distances[order]


def test_regression_counterfactuals_are_the_true_nearest_in_range(pram_ms, clara):
    X, y, X_test, _ = clara
    index = CounterfactualIndex(pram_ms, X)
    predictions = pram_ms.predict(X)
    for row in (0, 7, 42):
        x = X_test.iloc[row]
        own = pram_ms.predict(X_test.iloc[[row]])[0]
        # Ask for a clearly different prediction, towards the bulk of the data.
        desired = (own + 3.0, None) if own < np.median(predictions) else (None, own - 3.0)
        qualifying = predictions >= desired[0] if desired[1] is None else predictions <= desired[1]
        result = index.query(x, desired, k=6)
        assert len(result.neighbors) == 6
        assert np.all(qualifying[X.index.get_indexer(result.neighbors.index)])
        order, distances = _brute_force(X, x, qualifying, 6)
        assert list(result.neighbors.index) == list(X.index[order])
        assert np.allclose(result.neighbors["distance"], distances)
        assert np.allclose(result.differences.to_numpy(), X.iloc[order].to_numpy() - x.to_numpy())
        # term deltas add up to the change of prediction (identity link)
        assert np.allclose(result.term_deltas.sum(axis=1), result.neighbors["prediction"] - pram_ms.predict(X_test.iloc[[row]])[0])
        mean_abs = result.term_deltas.abs().mean().to_numpy()
        assert np.all(np.diff(mean_abs) <= 1e-12), "term deltas must be sorted by impact"
    one_off = counterfactuals(pram_ms, X_test.iloc[0], (40, 45), X, method="nearest")
    assert list(one_off.neighbors.index) == list(index.query(X_test.iloc[0], (40, 45)).neighbors.index)
    batch = index.query_many(X_test.iloc[:5], (50, 60), k=3)
    for i, result in enumerate(batch):
        assert list(result.neighbors.index) == list(index.query(X_test.iloc[i], (50, 60), k=3).neighbors.index)
        assert result.neighbors["prediction"].between(50, 60).all()


def test_labels_user_scale_and_trees(prdt_classifier, linnos):
    X, y = linnos
    scale = X.std().to_numpy() * np.array([1.0, 2.0, 2.0, 0.5])
    index = CounterfactualIndex(prdt_classifier, X, y, match="both", scale=dict(zip(X.columns, scale)))
    x = X.iloc[np.flatnonzero(prdt_classifier.predict(X) == 0)[0]]
    result = index.query(x, 1, k=5)
    assert result.term_deltas is None
    assert (result.neighbors["prediction"] == 1).all() and (result.neighbors["label"] == 1).all()
    qualifying = (prdt_classifier.predict(X) == 1) & (y.to_numpy() == 1)
    _, distances = _brute_force(X, x, qualifying, 5, scale=scale)
    assert np.allclose(result.neighbors["distance"], distances)
    view = as_counterfactual(result, "row")
    assert view.query is not None and len(view.neighbors) == 5
    with pytest.raises(ValueError, match="not one of the model's classes"):
        index.query(x, 7)
    with pytest.raises(ValueError, match="k must be"):
        index.query(x, 1, k=0)
    with pytest.raises(ValueError, match="lacks the model's features"):
        index.query(x.drop("gap_ms"), 1)


def test_categorical_features_count_one_per_mismatch(clara):
    X, y, X_test, _ = clara
    X = X.assign(A_e=lambda f: "e" + f["A_e"].astype(int).astype(str))
    X_test = X_test.assign(A_e=lambda f: "e" + f["A_e"].astype(int).astype(str))
    model = PrAMRegressor(max_bins=16, interactions=0, max_rounds=100, outer_bags=1, n_jobs=1, random_state=0).fit(X, y)
    result = counterfactuals(model, X_test.iloc[0], (None, 40.0), X, k=5, method="nearest")
    numeric = X.drop(columns="A_e")
    values, x = numeric.to_numpy(dtype=float), X_test.iloc[0]
    std = np.where(values.std(axis=0) > 0, values.std(axis=0), 1.0)
    squared = (((values - x.drop("A_e").to_numpy(dtype=float)) / std) ** 2).sum(axis=1) + (X["A_e"] != x["A_e"]).to_numpy()
    qualifying = model.predict(X) <= 40.0
    expected = np.sort(np.sqrt(squared[qualifying]))[:5]
    assert np.allclose(result.neighbors["distance"], expected)
    changed = result.differences["A_e"]
    assert all((text == "") == (value == x["A_e"]) for text, value in zip(changed, result.neighbors["A_e"]))
    assert all(t == "" or t.startswith(x["A_e"] + " → ") for t in changed)


def test_diagnose_false_negatives_and_suggested_edit(pram_classifier, linnos):
    X, y = linnos
    diagnosis = diagnose_errors(pram_classifier, X, y, kind="false_negatives", k=4)
    predicted = pram_classifier.predict(X)
    expected = list(X.index[(y == 1) & (predicted == 0)])
    assert diagnosis.rows == expected and len(expected) > 5
    for result in diagnosis.results[:10]:
        assert (result.neighbors["prediction"] == 1).all() and (result.neighbors["label"] == 1).all()
    impact = diagnosis.term_impact
    assert list(impact["mean_push"]) == sorted(impact["mean_push"], reverse=True)
    assert impact["n_top"].sum() == len(expected)
    fps = diagnose_errors(pram_classifier, X, y, kind="false_positives", k=2)
    assert all((r.neighbors["prediction"] == 0).all() for r in fps.results)
    candidates = suggest_term_edits(pram_classifier, diagnosis)
    best = candidates.iloc[0]
    assert best["n_errors"] == candidates["n_errors"].max() and best["flip_shift"] > 0
    # Shifting the bin by the suggested flip shift (+ a hair) fixes at least half of its errors.
    edited = shift_term_scores(pram_classifier, best["term"], best["flip_shift"] + 1e-6, bins=[int(best["bin"])])
    feature = best["term"]
    members = [r.x.name for r in diagnosis.results
               if np.searchsorted(pram_classifier.ebm_.bins_[list(X.columns).index(feature)][0], r.x[feature], side="right") == best["bin"]]
    assert len(members) == best["n_errors"]
    fixed = edited.predict(X.loc[members]) == 1
    assert fixed.mean() >= 0.5
    with pytest.raises(ValueError, match="kind"):
        diagnose_errors(pram_classifier, X, y, kind="misses")


def test_arrow_tables_diagnose_as_their_pandas_frames():
    """A pyarrow Table with its columns in another order than the model's is matched by name: the same
    errors, neighbors and term deltas as its pandas frame; before, it was read as an array, by position."""
    pa = pytest.importorskip("pyarrow")
    from tests.primo.tables_any import housing

    X, price = housing(n=200)
    y = np.where(price > 300, "high", "low")
    model = PrAMClassifier(max_rounds=100, outer_bags=1, interactions=0, n_jobs=1, random_state=0).fit(X, y)
    table = pa.Table.from_pandas(X[X.columns[::-1]], preserve_index=False)
    expected = diagnose_errors(model, X, y, k=3)
    diagnosis = diagnose_errors(model, table, y, k=3)
    assert diagnosis.rows == expected.rows and len(expected.rows) > 0
    pd.testing.assert_frame_equal(diagnosis.term_impact, expected.term_impact)
    for result, reference in zip(diagnosis.results, expected.results):
        pd.testing.assert_frame_equal(result.neighbors, reference.neighbors)
        pd.testing.assert_frame_equal(result.term_deltas, reference.term_deltas)
