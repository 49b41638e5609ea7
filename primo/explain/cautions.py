"""Predictions to read with caution: outside the training target range, or made from inputs the
model never saw in training (unseen categories, numbers beyond a PrAM's training range).

An additive model adds up its terms with no bound, so a PrAM can predict a negative house price
(−23.4) from ordinary-looking inputs; both families score an unseen category silently (a PrAM gives
it a contribution of 0, a PrDT sends it down the missing-value branch). These checks make that
visible, row by row, from what the fitted model itself records:

* the training target range: a PrAM regressor's ``ebm_.min_target_``/``max_target_``. A PrDT
  regressor predicts leaf means of training targets, so it stays inside the range by construction
  (and does not record the range): it is not checked;
* the categories seen in training: a PrAM's nominal bins (``ebm_.bins_``), a PrDT's vocabularies
  (``categories_``, see :mod:`primo.models.encoding`);
* for a PrAM, each numeric feature's training range (``ebm_.feature_bounds_``): beyond it, the
  model scores the value as its outermost bin (it extrapolates flat).

Example
-------
>>> cautions = row_cautions(pram, X_new)                   # doctest: +SKIP
>>> cautions[0].messages                                    # doctest: +SKIP
['prediction -23.4 is below the training target range 34,900 to 755,000']
>>> CautionCounts.of(cautions).sentence(len(X_new))         # doctest: +SKIP
'1 of 20 predictions outside the training target range; ...'
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from primo.models.encoding import as_text


@dataclass(frozen=True)
class RowCautions:
    """What is unusual about one row's prediction (nothing, for most rows).

    ``outside_target_range`` is the prediction when it lies outside ``target_range`` (else None);
    ``unseen_categories`` maps a feature to the category, not seen in training, that the row holds;
    ``beyond_training_range`` maps a numeric feature of a PrAM to its value outside the training
    range, with that range in ``feature_ranges``; ``unseen_effect`` says how the model scores an
    unseen category.
    """

    prediction: object = None
    target_range: tuple[float, float] | None = None
    outside_target_range: float | None = None
    unseen_categories: dict[str, str] = field(default_factory=dict)
    beyond_training_range: dict[str, float] = field(default_factory=dict)
    feature_ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    unseen_effect: str = "scored like a missing value"

    @property
    def flagged(self) -> bool:
        return bool(self.outside_target_range is not None or self.unseen_categories or self.beyond_training_range)

    @property
    def messages(self) -> list[str]:
        """One sentence per caution, e.g. ``"city = 'Atlantis' was never seen in training (...)"``."""
        out = []
        if self.outside_target_range is not None:
            low, high = self.target_range
            side = "below" if self.outside_target_range < low else "above"
            out.append(f"prediction {_number(self.outside_target_range)} is {side} the training target range "
                       f"{_number(low)} to {_number(high)}")
        for feature, category in self.unseen_categories.items():
            out.append(f"{feature} = {category!r} was never seen in training ({self.unseen_effect})")
        for feature, value in self.beyond_training_range.items():
            low, high = self.feature_ranges[feature]
            out.append(f"{feature} = {_number(value)} is outside its training range {_number(low)} to "
                       f"{_number(high)} (scored as the nearest bin)")
        return out


@dataclass(frozen=True)
class CautionCounts:
    """How many rows of a batch carry each caution (for the report's summary)."""

    rows: int
    flagged: int
    outside_target_range: int
    unseen_categories: dict[str, int]
    beyond_training_range: dict[str, int]
    target_range: tuple[float, float] | None
    checks_target_range: bool

    @classmethod
    def of(cls, cautions: list[RowCautions], *, checks_target_range: bool | None = None) -> CautionCounts:
        """Count the cautions of a batch of rows.

        Example
        -------
        >>> CautionCounts.of([RowCautions(), RowCautions(unseen_categories={"city": "Oz"})]).flagged
        1
        """
        unseen: dict[str, int] = {}
        beyond: dict[str, int] = {}
        for row in cautions:
            for feature in row.unseen_categories:
                unseen[feature] = unseen.get(feature, 0) + 1
            for feature in row.beyond_training_range:
                beyond[feature] = beyond.get(feature, 0) + 1
        target_range = next((row.target_range for row in cautions if row.target_range is not None), None)
        return cls(rows=len(cautions), flagged=sum(row.flagged for row in cautions),
                   outside_target_range=sum(row.outside_target_range is not None for row in cautions),
                   unseen_categories=unseen, beyond_training_range=beyond, target_range=target_range,
                   checks_target_range=target_range is not None if checks_target_range is None else checks_target_range)

    def sentences(self) -> list[str]:
        """The counts as sentences (an empty list when nothing was flagged and nothing was checked)."""
        out = []
        if self.checks_target_range:
            low, high = self.target_range
            out.append(f"{self.outside_target_range} of {self.rows} predictions outside the training target range "
                       f"{_number(low)} to {_number(high)}")
        if self.unseen_categories:
            out.append("categories never seen in training: " + _per_feature(self.unseen_categories))
        if self.beyond_training_range:
            out.append("numbers outside their feature's training range: " + _per_feature(self.beyond_training_range))
        return out


def target_range(model) -> tuple[float, float] | None:
    """The training target range a regressor's predictions are checked against, or None.

    Only PrAM regressors record it (``ebm_.min_target_``/``max_target_``); files written before
    interpret recorded it, classifiers and PrDTs give None.
    """
    ebm = getattr(model, "ebm_", None)
    if ebm is None or hasattr(model, "classes_"):
        return None
    low, high = getattr(ebm, "min_target_", None), getattr(ebm, "max_target_", None)
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return None
    return float(low), float(high)


def row_cautions(model, X, predictions=None) -> list[RowCautions]:
    """The cautions of every row of ``X`` for a fitted PrAM or PrDT.

    Parameters
    ----------
    model : fitted PrAM or PrDT.
    X : DataFrame (or 2-D array) of rows in the model's features.
    predictions : ``model.predict(X)``, when already computed.

    Example
    -------
    >>> [c.messages for c in row_cautions(pram, X_test) if c.flagged]  # doctest: +SKIP
    """
    from primo.models._base import check_prediction_input, names_warned_once

    X = check_prediction_input(model, X)  # the warning about names, when due: here only, not again from predict
    names = list(model.feature_names_)
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X, dtype=object), columns=names)
    if predictions is None:
        with names_warned_once():
            predictions = model.predict(X)
    bounds = target_range(model)
    unseen = _unseen_categories(model, frame, names)
    beyond, ranges = _beyond_training_range(model, frame, names)
    rows = []
    for i in range(len(frame)):
        prediction = predictions[i]
        outside = None
        if bounds is not None and not (bounds[0] <= float(prediction) <= bounds[1]):
            outside = float(prediction)
        rows.append(RowCautions(
            prediction=prediction.item() if isinstance(prediction, np.generic) else prediction,
            target_range=bounds, outside_target_range=outside,
            unseen_categories={feature: values[i] for feature, values in unseen.items() if values[i] is not None},
            beyond_training_range={feature: values[i] for feature, values in beyond.items() if values[i] is not None},
            feature_ranges=ranges,
            unseen_effect=("the model gives it no contribution" if hasattr(model, "ebm_")
                           else "it takes the missing-value branch")))
    return rows


def _unseen_categories(model, frame: pd.DataFrame, names: list[str]) -> dict[str, list[str | None]]:
    """Per categorical feature, each row's category when training never saw it (None otherwise)."""
    vocabularies = {}
    if hasattr(model, "ebm_"):
        for j, levels in enumerate(model.ebm_.bins_):
            if isinstance(levels[0], dict):
                vocabularies[j] = set(levels[0])
    else:
        vocabularies = {int(j): set(vocabulary) for j, vocabulary in getattr(model, "categories_", {}).items()}
    out = {}
    for j, known in vocabularies.items():
        column = frame.iloc[:, j]
        present = column.notna().to_numpy()
        text = as_text(column)
        # interpret reads a whole number in a nominal column as "3", Primo's vocabularies too
        alternative = [_integer_text(v) for v in column]
        flags = [None if not present[i] or text[i] in known or alternative[i] in known else str(text[i])
                 for i in range(len(column))]
        if any(flag is not None for flag in flags):
            out[names[j]] = flags
    return out


def _integer_text(value) -> str | None:
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return None


def _beyond_training_range(model, frame, names) -> tuple[dict[str, list[float | None]], dict[str, tuple[float, float]]]:
    """Per numeric feature of a PrAM, each row's value when outside the training range (None otherwise)."""
    ebm = getattr(model, "ebm_", None)
    bounds = getattr(ebm, "feature_bounds_", None)
    if ebm is None or bounds is None:
        return {}, {}
    out, ranges = {}, {}
    for j, levels in enumerate(ebm.bins_):
        low, high = (float(v) for v in bounds[j])
        if isinstance(levels[0], dict) or not (math.isfinite(low) and math.isfinite(high)):
            continue
        values = pd.to_numeric(frame.iloc[:, j], errors="coerce").to_numpy(dtype=float)
        outside = (values < low) | (values > high)
        if outside.any():
            out[names[j]] = [float(v) if flag else None for v, flag in zip(values, outside)]
            ranges[names[j]] = (low, high)
    return out, ranges


def _per_feature(counts: dict[str, int]) -> str:
    return ", ".join(f"{feature} in {n} row{'s' if n != 1 else ''}" for feature, n in counts.items())


def _number(value) -> str:
    """4 significant digits, thousands separated (as the report's numbers; explain does not import report)."""
    value = float(value)
    return f"{value:,.0f}" if 1e4 <= abs(value) < 1e12 else f"{value:.4g}"
