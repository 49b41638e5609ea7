"""What an edit changed: shape functions, predictions on given data, metrics before and after.

Example
-------
>>> from primo.adjust import compare_models, monotonize
>>> plus = monotonize(pram, ["A_i", "R_ec"])  # doctest: +SKIP
>>> print(compare_models(pram, plus, X_test, y_test).summary())  # doctest: +SKIP
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.metrics import (
    accuracy_score,
    f1_score,
    mean_absolute_error,
    precision_score,
    r2_score,
    recall_score,
    root_mean_squared_error,
)

from primo.models._base import names_warned_once, names_warning_due


@dataclass(frozen=True)
class ChangeReport:
    """The difference between two versions of a model on the same data.

    Attributes
    ----------
    shape_changes : PrAM: ``{term: DataFrame}`` with one row per bin (missing and unknown bins
        included) and columns ``before``, ``after``, ``delta`` — only the terms that changed
        (1-D terms; a pair term is flattened). Empty for trees.
    prediction_shift : per-row change of the prediction on the given data (after − before); for
        classifiers the change of the positive-class probability (binary) or of the predicted
        class's probability (multiclass).
    labels_changed : classifiers: number of rows whose predicted class changed; None for regressors.
    metrics : DataFrame indexed by metric name with columns ``before``, ``after`` (empty without y).
    """

    shape_changes: dict[str, pd.DataFrame]
    prediction_shift: pd.Series
    labels_changed: int | None
    metrics: pd.DataFrame

    def summary(self) -> str:
        """A few lines: changed terms, prediction shift and metrics before → after."""
        shift = self.prediction_shift.abs()
        lines = []
        if self.shape_changes:
            parts = [f"{t} (max |Δ| {frame['delta'].abs().max():.4g})" for t, frame in self.shape_changes.items()]
            lines.append("changed terms: " + ", ".join(parts))
        lines.append(f"prediction shift on {len(shift)} rows: mean |Δ| {shift.mean():.4g}, max |Δ| {shift.max():.4g}, "
                     f"{int((shift > 1e-12).sum())} rows changed")
        if self.labels_changed is not None:
            lines.append(f"predicted class changed on {self.labels_changed} rows")
        for name, row in self.metrics.iterrows():
            lines.append(f"{name}: {row['before']:.4f} → {row['after']:.4f}")
        return "\n".join(lines)


def _metrics(model, y, prediction) -> dict[str, float]:
    if hasattr(model, "classes_"):
        out = {"accuracy": accuracy_score(y, prediction)}
        if len(model.classes_) == 2:
            positive = model.classes_[1]
            out.update(precision=precision_score(y, prediction, pos_label=positive, zero_division=0),
                       recall=recall_score(y, prediction, pos_label=positive, zero_division=0),
                       f1=f1_score(y, prediction, pos_label=positive, zero_division=0))
        else:
            out["f1_macro"] = f1_score(y, prediction, average="macro", zero_division=0)
        return out
    return {"mae": mean_absolute_error(y, prediction), "rmse": root_mean_squared_error(y, prediction),
            "r2": r2_score(y, prediction)}


def _score(model, X) -> np.ndarray:
    if not hasattr(model, "predict_proba"):
        return np.asarray(model.predict(X), dtype=float)
    proba = model.predict_proba(X)
    return proba[:, 1] if proba.shape[1] == 2 else proba.max(axis=1)


def _shape_changes(before, after) -> dict[str, pd.DataFrame]:
    if not (hasattr(before, "ebm_") and hasattr(after, "ebm_")):
        return {}
    changes = {}
    old_terms = dict(zip(map(str, before.ebm_.term_names_), before.ebm_.term_scores_))
    for name, new in zip(map(str, after.ebm_.term_names_), after.ebm_.term_scores_):
        old = old_terms.get(name)
        if old is None or np.shape(old) != np.shape(new) or np.allclose(old, new, rtol=0, atol=1e-12):
            continue
        old, new = np.asarray(old, dtype=float).ravel(), np.asarray(new, dtype=float).ravel()
        changes[name] = pd.DataFrame({"before": old, "after": new, "delta": new - old})
    return changes


def compare_models(before, after, X, y=None) -> ChangeReport:
    """Compare two versions of a model (e.g. before and after :func:`monotonize`) on data X.

    Parameters
    ----------
    before, after : fitted models with the same features.
    X : rows to predict on (DataFrame or array, as the models expect).
    y : optional true targets; adds metrics before/after (regression: MAE, RMSE, R²;
        classification: accuracy, and precision/recall/F1 of ``classes_[1]`` or macro F1).

    Example
    -------
    >>> report = compare_models(pram, plus, X_test, y_test)  # doctest: +SKIP
    >>> report.metrics.loc["mae"]  # doctest: +SKIP
    """
    index = X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(len(X))
    # scikit-learn's warning about X's names, when due, once per call: from each model's first prediction (the
    # second model's only when the first's was not due), not from all four predictions.
    after_score = _score(after, X)
    with names_warned_once() if names_warning_due(after, X) else contextlib.nullcontext():
        before_score = _score(before, X)
    shift = pd.Series(after_score - before_score, index=index, name="prediction_shift")
    labels_changed = None
    predictions = {}
    with names_warned_once():
        for name, model in (("before", before), ("after", after)):
            predictions[name] = model.predict(X)
    if hasattr(before, "classes_"):
        labels_changed = int(np.sum(predictions["before"] != predictions["after"]))
    metrics = pd.DataFrame(columns=["before", "after"], dtype=float)
    if y is not None:
        y = np.asarray(y)
        if len(y) != len(index):
            raise ValueError(f"X has {len(index)} rows but y has {len(y)}")
        values = {name: _metrics(model, y, predictions[name]) for name, model in (("before", before), ("after", after))}
        metrics = pd.DataFrame(values, dtype=float)
    return ChangeReport(shape_changes=_shape_changes(before, after), prediction_shift=shift,
                        labels_changed=labels_changed, metrics=metrics)
