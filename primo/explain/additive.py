"""Explanations of a PrAM (additive model): shape functions, term importances, per-row contributions.

Everything is read from the fitted EBM (``model.ebm_``): ``bins_`` (cut points or category maps),
``term_scores_`` (one score per bin; index 0 is the *missing* bin, the last index the *unknown*
bin), ``bin_weights_`` (training weight per bin: the density) and ``standard_deviations_`` (spread
of the scores across the outer bags).

Example
-------
>>> from primo.explain import explain_global, explain_local
>>> explanation = explain_global(pram)            # doctest: +SKIP
>>> explanation.terms[0].name, explanation.intercept  # doctest: +SKIP
>>> explain_local(pram, X_test, rows=[0])[0].contributions  # doctest: +SKIP
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from primo.explain._values import plain
from primo.explain.cautions import row_cautions


@dataclass(frozen=True)
class ShapeFunction:
    """One term of an additive model as plain data.

    Attributes
    ----------
    name : term name (``"a"`` or ``"a & b"``).
    features : names of the term's features (one or two).
    feature_types : ``"continuous"`` or ``"nominal"`` per feature.
    bins : per feature, the bin labels: for a continuous feature the bin *edges* (length n_bins + 1,
        from the training minimum to the maximum), for a nominal feature the category names.
    scores : contribution per bin, shape ``(n_bins,)`` or ``(n_bins_a, n_bins_b)``, with a trailing
        class axis for multiclass models. Missing/unknown bins are left out (see ``missing_score``).
    weights : training weight (row count) per bin, same shape as ``scores`` without the class axis.
    stdev : spread of ``scores`` across the outer bags (same shape as ``scores``), or None when
        unknown (interpret drops it when a term is edited).
    missing_score : contribution of a missing value (1-D terms only), or None.
    importance : mean absolute contribution on the training data.
    missing_weight : training weight (row count) of the missing bin (1-D terms; 0 for pairs). When it
        is positive the missing bin was learned from data and :meth:`missing_text` describes it.
    """

    name: str
    features: tuple[str, ...]
    feature_types: tuple[str, ...]
    bins: tuple[np.ndarray, ...]
    scores: np.ndarray
    weights: np.ndarray
    stdev: np.ndarray | None
    missing_score: np.ndarray | float | None
    importance: float
    missing_weight: float = 0.0

    @property
    def is_pair(self) -> bool:
        return len(self.features) == 2

    def missing_text(self, digits: int = 4) -> str | None:
        """``"missing (60 training rows): +33"``, or None when no training row was missing.

        Example
        -------
        >>> explain_additive(pram).term("dist_center_km").missing_text()  # doctest: +SKIP
        'missing (60 training rows): +33'
        """
        if self.missing_score is None or not self.missing_weight > 0:
            return None
        score = np.atleast_1d(np.asarray(self.missing_score, dtype=float))
        shown = ", ".join(f"{v:+.{digits}g}" for v in score)
        return f"missing ({self.missing_weight:.{digits}g} training rows): {shown}"

    def bin_labels(self, axis: int = 0, digits: int = 4) -> list[str]:
        """Human labels of the bins along ``axis``: ``"[a, b)"`` intervals or category names."""
        if self.feature_types[axis] == "nominal":
            return [str(c) for c in self.bins[axis]]
        edges = self.bins[axis]
        return [f"[{_fmt(lo, digits)}, {_fmt(hi, digits)})" for lo, hi in zip(edges[:-1], edges[1:])]


@dataclass(frozen=True)
class AdditiveExplanation:
    """Global explanation of a PrAM: intercept, every shape function, term importances.

    ``link`` is interpret's link function (``"identity"`` for regression, ``"logit"``/``"mlogit"``
    for classification): the prediction is ``link⁻¹(intercept + Σ term contributions)``.
    """

    task: str
    link: str
    intercept: np.ndarray
    classes: list | None
    terms: list[ShapeFunction]
    importances: pd.Series
    importance_kind: str = "mean |contribution| on the training data"

    def importance_shares(self) -> pd.Series:
        """Each term's share of the summed importances (mean |contribution|), largest first.

        A term's mean |contribution| is how far, on average, it moves a training row's score away from
        the intercept; its share is the part of all the terms' movement that it accounts for.

        Example
        -------
        >>> explain_additive(pram).importance_shares().head(3)  # doctest: +SKIP
        R_i       0.41
        R_res     0.22
        A_i & R_i 0.03
        """
        importances = self.importances.astype(float).clip(lower=0)
        total = float(importances.sum())
        shares = importances / total if total > 0 else importances * 0.0
        return shares.sort_values(ascending=False).rename("share")

    def term(self, name: str) -> ShapeFunction:
        """The shape function named ``name`` (KeyError naming the known terms otherwise)."""
        for term in self.terms:
            if term.name == name:
                return term
        raise KeyError(f"no term named {name!r} (terms: {', '.join(t.name for t in self.terms)})")


@dataclass(frozen=True)
class AdditiveContribution:
    """Local explanation of one row: intercept + Σ contributions = raw score → prediction.

    For multiclass models the contributions are those towards ``class_shown`` (the predicted class).
    ``cautions`` lists what is unusual about the prediction (see :mod:`primo.explain.cautions`):
    outside the training target range, unseen categories, numbers beyond the training range.
    """

    label: str
    features: dict
    intercept: float
    contributions: pd.Series
    raw_score: float
    prediction: object
    link: str
    class_shown: object = None
    probability: float | None = None
    extra: dict = field(default_factory=dict)
    cautions: tuple[str, ...] = ()


def _fmt(value: float, digits: int = 4) -> str:
    return f"{value:.{digits}g}"


def _feature_bins(ebm, feature: int, level: int):
    """Bin labels of one feature at an interaction level (pairs may use coarser bins)."""
    levels = ebm.bins_[feature]
    bins = levels[min(level, len(levels) - 1)]
    if isinstance(bins, dict):  # nominal: category -> bin index (1-based)
        ordered = sorted(bins.items(), key=lambda item: item[1])
        return "nominal", np.asarray([category for category, _ in ordered], dtype=object)
    low, high = ebm.feature_bounds_[feature]
    cuts = np.asarray(bins, dtype=float)
    # Close the outer intervals at the training range so that every bin has finite edges.
    low = min(low, cuts[0]) if cuts.size else low
    high = max(high, cuts[-1]) if cuts.size else high
    return "continuous", np.concatenate([[low], cuts, [high]])


def explain_additive(model) -> AdditiveExplanation:
    """Global explanation of a fitted PrAM (see :class:`AdditiveExplanation`).

    Parameters
    ----------
    model : fitted :class:`~primo.PrAMClassifier` or :class:`~primo.PrAMRegressor`.

    Example
    -------
    >>> explanation = explain_additive(pram)  # doctest: +SKIP
    >>> explanation.importances.head()  # doctest: +SKIP
    """
    check_is_fitted(model, "ebm_")
    ebm = model.ebm_
    names = model.feature_names_
    importances = model.term_importances()
    terms = []
    for index, (term_name, feature_ids) in enumerate(zip(ebm.term_names_, ebm.term_features_)):
        level = len(feature_ids) - 1
        types, bins = zip(*(_feature_bins(ebm, f, level) for f in feature_ids))
        # Drop the missing (first) and unknown (last) bin along every feature axis.
        inner = tuple(slice(1, -1) for _ in feature_ids)
        scores = np.asarray(ebm.term_scores_[index], dtype=float)
        stdev = np.asarray(ebm.standard_deviations_[index], dtype=float)
        terms.append(ShapeFunction(
            name=str(term_name),
            features=tuple(names[f] for f in feature_ids),
            feature_types=tuple(types),
            bins=tuple(bins),
            scores=scores[inner],
            weights=np.asarray(ebm.bin_weights_[index], dtype=float)[inner],
            # Edits such as monotonize reset the spread to a scalar 0: no band then.
            stdev=stdev[inner] if stdev.shape == scores.shape else None,
            missing_score=scores[0] if len(feature_ids) == 1 else None,
            importance=float(importances.get(str(term_name), np.nan)),
            missing_weight=float(np.asarray(ebm.bin_weights_[index], dtype=float)[0]) if len(feature_ids) == 1 else 0.0,
        ))
    classes = list(model.classes_) if hasattr(model, "classes_") else None
    return AdditiveExplanation(
        task="classification" if classes is not None else "regression",
        link=str(ebm.link_),
        intercept=np.atleast_1d(np.asarray(ebm.intercept_, dtype=float)),
        classes=classes,
        terms=terms,
        importances=importances,
    )


def explain_additive_rows(model, X: pd.DataFrame, labels: list[str]) -> list[AdditiveContribution]:
    """Per-row additive contributions of a fitted PrAM for every row of ``X``.

    Parameters
    ----------
    model : fitted PrAM.
    X : the rows to explain (DataFrame or Arrow table with the model's features, or a 2-D array).
    labels : one display label per row.

    Example
    -------
    >>> explain_additive_rows(pram, X_test.iloc[:2], ["row 0", "row 1"])[0].raw_score  # doctest: +SKIP
    """
    from primo.models._base import check_prediction_input, names_warned_once

    check_is_fitted(model, "ebm_")
    # An Arrow table as a frame, a frame's columns in the model's order: the features are listed as the model
    # reads them (and as its terms are), whatever the caller's column order. The warning about names, when
    # due, is given by this check only, not again by each method the rows are passed to.
    X = check_prediction_input(model, X)
    ebm = model.ebm_
    with names_warned_once():
        contributions = np.asarray(model.eval_terms(X), dtype=float)
        predictions = model.predict(X)
        probabilities = model.predict_proba(X) if hasattr(model, "predict_proba") else None
        cautions = row_cautions(model, X, predictions)
    intercept = np.atleast_1d(np.asarray(ebm.intercept_, dtype=float))
    classes = list(model.classes_) if hasattr(model, "classes_") else None
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X), columns=model.feature_names_)
    rows = []
    for i, label in enumerate(labels):
        class_shown, probability = None, None
        if contributions.ndim == 3:  # multiclass: explain the predicted class's score
            k = classes.index(predictions[i])
            row_contrib, row_intercept, class_shown = contributions[i, :, k], intercept[k], predictions[i]
            probability = float(probabilities[i, k])
        else:
            row_contrib, row_intercept = contributions[i], intercept[0]
            if probabilities is not None:  # binary: the score is the log-odds of classes_[1]
                class_shown, probability = classes[1], float(probabilities[i, 1])
        rows.append(AdditiveContribution(
            label=str(label),
            features={str(k): plain(v) for k, v in frame.iloc[i].items()},
            intercept=float(row_intercept),
            contributions=pd.Series(row_contrib, index=[str(t) for t in ebm.term_names_], name="contribution"),
            raw_score=float(row_intercept + row_contrib.sum()),
            prediction=plain(predictions[i]),
            link=str(ebm.link_),
            class_shown=plain(class_shown),
            probability=probability,
            cautions=tuple(cautions[i].messages),
        ))
    return rows
