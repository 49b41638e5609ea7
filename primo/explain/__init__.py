"""Global and local explanations of Primo models as plain data (value objects).

The same objects are rendered as HTML by :mod:`primo.report` and as text/Markdown by the CLI:
nothing here draws anything.

* :func:`explain_global` — PrAM: intercept and every shape function (bins, scores, density);
  PrDT: every node (test, traffic, impurity, value). Both carry term/feature importances.
* :func:`explain_local` — PrAM: intercept + per-term contributions = prediction; PrDT: the
  decision path with the tested conditions.
* :func:`model_card` — family, parameters, complexity, metrics against baselines, measured latency,
  search/distillation/edit history.
* :func:`row_cautions` — what is unusual about each row's prediction: outside the training target
  range, unseen categories, numbers beyond a PrAM's training range.
* :func:`as_counterfactual` — a counterfactual result (from :mod:`primo.adjust`) checked for rendering.

Example
-------
>>> from primo.explain import explain_global, explain_local
>>> explain_global(model).importances.head()  # doctest: +SKIP
>>> explain_local(model, X_test, rows=3)  # three rows spanning the prediction range  # doctest: +SKIP
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from primo.explain.additive import (
    AdditiveContribution,
    AdditiveExplanation,
    ShapeFunction,
    explain_additive,
    explain_additive_rows,
)
from primo.explain.card import Baseline, Distillation, ModelCard, SearchHistory, model_card, prediction_metrics
from primo.explain.cautions import CautionCounts, RowCautions, row_cautions, target_range
from primo.explain.counterfactual import CounterfactualView, as_counterfactual
from primo.explain.tree import DecisionPath, PathStep, TreeExplanation, TreeNode, explain_tree, explain_tree_rows
from primo.models.encoding import frame_from_arrow


def explain_global(model) -> AdditiveExplanation | TreeExplanation:
    """Global explanation of a fitted PrAM (:class:`AdditiveExplanation`) or PrDT (:class:`TreeExplanation`).

    Example
    -------
    >>> explain_global(prdt).n_leaves  # doctest: +SKIP
    7
    """
    if hasattr(model, "ebm_"):
        return explain_additive(model)
    if hasattr(model, "tree_"):
        return explain_tree(model)
    raise TypeError(f"expected a fitted PrDT or PrAM model, got {type(model).__name__}")


def select_rows(model, X, rows=None) -> tuple[pd.DataFrame | np.ndarray, list[str]]:
    """The rows of X to explain, and their display labels.

    Parameters
    ----------
    model : fitted model (used to spread an ``int`` choice over the predictions).
    X : DataFrame, Arrow table (polars, pyarrow; returned as a DataFrame) or 2-D array.
    rows : None (every row), an int ``n`` (n rows spread evenly over the range of predictions,
        lowest to highest, classes grouped), or a sequence of row positions.

    Example
    -------
    >>> select_rows(model, X_test, 3)[1]  # doctest: +SKIP
    ['row 12', 'row 40', 'row 3']
    """
    X = frame_from_arrow(X)  # as an array its columns would be taken by position, not by name
    n = len(X)
    if rows is None:
        positions = np.arange(n)
    elif isinstance(rows, (int, np.integer)) and not isinstance(rows, bool):
        if rows < 1:
            raise ValueError(f"rows must be >= 1, got {rows}")
        positions = np.unique(np.round(np.linspace(0, n - 1, min(rows, n))).astype(int))
        positions = np.argsort(_ranking_key(model, X), kind="stable")[positions]
    elif isinstance(rows, (Sequence, np.ndarray)) and not isinstance(rows, str):
        positions = np.asarray(rows, dtype=int).ravel()
        bad = positions[(positions < -n) | (positions >= n)]
        if bad.size:
            raise IndexError(f"row positions {bad.tolist()} are out of range for {n} rows")
    else:
        raise TypeError(f"rows must be None, an int or a sequence of positions, got {type(rows).__name__}")
    if isinstance(X, pd.DataFrame):
        subset = X.iloc[positions]
        labels = [f"row {label}" for label in subset.index]
    else:
        subset = np.asarray(X)[positions]
        labels = [f"row {p}" for p in positions]
    return subset, labels


def _ranking_key(model, X) -> np.ndarray:
    if hasattr(model, "predict_proba"):
        proba = model.predict_proba(X)
        winner = np.argmax(proba, axis=1)
        return winner * 2.0 + proba[np.arange(len(winner)), winner]
    return np.asarray(model.predict(X), dtype=float)


def explain_local(model, X, rows=None) -> list[AdditiveContribution] | list[DecisionPath]:
    """Local explanations of chosen rows: additive contributions (PrAM) or decision paths (PrDT).

    Parameters
    ----------
    model : fitted PrAM or PrDT.
    X : DataFrame, Arrow table (polars, pyarrow) or 2-D array of rows.
    rows : which rows, as for :func:`select_rows` (default: all of X).

    Example
    -------
    >>> [c.raw_score for c in explain_local(pram, X_test, rows=[0, 1])]  # doctest: +SKIP
    """
    from primo.models._base import check_prediction_input, names_warned_once

    if not (hasattr(model, "ebm_") or hasattr(model, "tree_")):
        raise TypeError(f"expected a fitted PrDT or PrAM model, got {type(model).__name__}")
    # The caller's rows, checked here: scikit-learn's warning about their names (when due) once per call,
    # not once more from every prediction made for them below.
    X = check_prediction_input(model, X)
    with names_warned_once():
        subset, labels = select_rows(model, X, rows)
        if hasattr(model, "ebm_"):
            return explain_additive_rows(model, subset, labels)
        return explain_tree_rows(model, subset, labels)


__all__ = [
    "AdditiveContribution",
    "AdditiveExplanation",
    "Baseline",
    "CautionCounts",
    "CounterfactualView",
    "DecisionPath",
    "Distillation",
    "ModelCard",
    "PathStep",
    "RowCautions",
    "SearchHistory",
    "ShapeFunction",
    "TreeExplanation",
    "TreeNode",
    "as_counterfactual",
    "explain_additive",
    "explain_additive_rows",
    "explain_global",
    "explain_local",
    "explain_tree",
    "explain_tree_rows",
    "model_card",
    "prediction_metrics",
    "row_cautions",
    "select_rows",
    "target_range",
]
