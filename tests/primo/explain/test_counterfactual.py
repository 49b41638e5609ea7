"""Counterfactual results from any producer are checked and normalized for rendering."""
from types import SimpleNamespace

import pandas as pd
import pytest

from primo.explain import as_counterfactual


def _result(X, **extra):
    x = X.iloc[0]
    neighbors = X.iloc[1:4].assign(distance=[0.5, 0.7, 0.9], prediction=[1, 1, 1])
    return SimpleNamespace(neighbors=neighbors, differences=X.iloc[1:4] - x, x=x, desired=1, **extra)


def test_counterfactual_view_keeps_tables_and_finds_changed_features(linnos):
    X, _ = linnos
    deltas = pd.Series({"size_kb": 0.3, "gap_ms": -0.1})
    view = as_counterfactual(_result(X, term_deltas=deltas), label="row 0")
    assert view.label == "row 0" and view.desired == 1
    assert list(view.term_deltas.columns) == ["size_kb", "gap_ms"] and len(view.term_deltas) == 1
    differences = (X.iloc[1] - X.iloc[0]).abs()
    assert view.changed_features == list(differences[differences > 0].sort_values(ascending=False).index)
    assert view.query["size_kb"] == X.iloc[0]["size_kb"]


def test_counterfactual_errors_name_the_problem(linnos):
    X, _ = linnos
    with pytest.raises(TypeError, match="'neighbors'"):
        as_counterfactual(SimpleNamespace(differences=X.iloc[:2]))
    bad = _result(X, term_deltas=None)
    bad.neighbors = bad.neighbors.drop(columns="distance")
    with pytest.raises(ValueError, match="distance"):
        as_counterfactual(bad)
    with pytest.raises(TypeError, match="term_deltas"):
        as_counterfactual(_result(X, term_deltas=[1, 2]))


def test_structural_result_keeps_its_method_and_changes(prdt_classifier, linnos):
    from primo.adjust import counterfactuals

    X, _ = linnos
    x = X[prdt_classifier.predict(X) == 0].iloc[0]
    view = as_counterfactual(counterfactuals(prdt_classifier, x, 1, X, k=3), label="row")
    assert view.method == "structural" and len(view.changes) == len(view.neighbors)
    assert view.changed_features == list(view.changes[0])
    for change in view.changes:  # feature -> (x's value, the counterfactual's)
        assert all(old == x[f] and new != old for f, (old, new) in change.items())
    nearest = as_counterfactual(counterfactuals(prdt_classifier, x, 1, X, k=3, method="nearest"), label="row")
    assert nearest.method == "nearest" and nearest.changes == ()
    with pytest.raises(ValueError, match="method must be"):
        as_counterfactual(_result(X, term_deltas=None, method="closest"))
