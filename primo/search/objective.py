"""The search objective S(θ) = P(θ) + λ·C(θ)^γ and the validation losses P can be.

Every loss is "lower is better": named metrics are turned into losses (F1 → 1 − F1, R² → 1 − R²),
and any scikit-learn scorer name is sign-normalized (loss = −score).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from sklearn import metrics
from sklearn.base import is_classifier
from sklearn.dummy import DummyClassifier, DummyRegressor


def wmape(y_true, y_pred) -> float:
    """Weighted MAPE: Σ|y − ŷ| / Σ|y|."""
    y_true = np.asarray(y_true, dtype=float)
    denominator = np.abs(y_true).sum()
    if denominator == 0:
        raise ValueError("WMAPE is undefined when every target is zero")
    return float(np.abs(y_true - np.asarray(y_pred, dtype=float)).sum() / denominator)


def _f1(y_true, y_pred) -> float:
    labels = np.unique(y_true)
    average = "binary" if len(labels) <= 2 and set(np.unique(np.r_[labels, y_pred])) <= {0, 1} else "macro"
    return float(metrics.f1_score(y_true, y_pred, average=average, zero_division=0))


def expected_calibration_error(y_true, proba, classes, n_bins: int = 10) -> float:
    """Top-label expected calibration error: Σ_b (n_b / n) · |accuracy_b − confidence_b| over
    ``n_bins`` equal-width bins of the predicted class's probability.

    Example
    -------
    >>> expected_calibration_error([0, 1, 1, 0], [[0.9, 0.1], [0.2, 0.8], [0.4, 0.6], [0.6, 0.4]], [0, 1])
    0.275
    """
    proba = np.asarray(proba, dtype=float)
    confidence = proba.max(axis=1)
    correct = np.asarray(classes)[proba.argmax(axis=1)] == np.asarray(y_true)
    bins = np.minimum((confidence * n_bins).astype(int), n_bins - 1)
    total = 0.0
    for b in np.unique(bins):
        rows = bins == b
        total += rows.sum() * abs(correct[rows].mean() - confidence[rows].mean())
    return float(total / len(confidence))


def class_probabilities(estimator, X, y) -> tuple[np.ndarray, np.ndarray]:
    """``predict_proba`` over the sorted union of the model's classes and the labels in ``y``.

    A class missing from a training fold (a rare class under k-fold) gets probability 0, so it
    costs what a confident miss costs instead of failing the loss.
    """
    proba = np.asarray(estimator.predict_proba(X), dtype=float)
    classes = np.asarray(estimator.classes_)
    labels = np.unique(np.concatenate([classes, np.unique(np.asarray(y))]))
    if len(labels) == len(classes):
        return proba, classes
    full = np.zeros((len(proba), len(labels)))
    full[:, np.searchsorted(labels, classes)] = proba
    return full, labels


def log_loss_from_proba(y, proba, labels) -> float:
    """Mean negative log-likelihood of ``y`` under ``proba`` (columns in ``labels`` order), each
    probability clipped to [ε, 1 − ε] as scikit-learn's ``log_loss`` does; every label of ``y`` must be
    in ``labels``. Written here because ``log_loss``'s input validation costs ~15 ms a call, which was
    most of PrDT's pruning-path search (every subtree on every fold: 1,182 rows of ``fishing``, 13 s)."""
    labels = np.asarray(labels)
    order = np.argsort(labels, kind="stable")
    column = order[np.searchsorted(labels, np.asarray(y), sorter=order)]
    eps = np.finfo(float).eps
    picked = np.asarray(proba, dtype=float)[np.arange(len(column)), column]
    return float(-np.log(np.clip(picked, eps, 1 - eps)).mean())


def _log_loss(estimator, X, y) -> float:
    return log_loss_from_proba(y, *class_probabilities(estimator, X, y))


# name -> (loss on predictions, short description)
_NAMED_LOSSES: dict[str, tuple[Callable, str]] = {
    "error": (lambda y, p: 1.0 - metrics.accuracy_score(y, p), "error rate (1 − accuracy)"),
    "1-f1": (lambda y, p: 1.0 - _f1(y, p), "1 − F1 (positive class; macro for multiclass)"),
    "mae": (metrics.mean_absolute_error, "mean absolute error"),
    "rmse": (lambda y, p: float(np.sqrt(metrics.mean_squared_error(y, p))), "root mean squared error"),
    "mape": (metrics.mean_absolute_percentage_error, "mean absolute percentage error (fraction)"),
    "wmape": (wmape, "weighted MAPE Σ|y − ŷ| / Σ|y|"),
    "1-r2": (lambda y, p: 1.0 - metrics.r2_score(y, p), "1 − R²"),
}
_ALIASES = {"accuracy": "error", "f1": "1-f1", "r2": "1-r2"}
#: Absolute-error losses: a regressor's trivial predictor under them is the median of the target, not the mean.
MEDIAN_REFERENCE_LOSSES = ("mae", "mape", "wmape")


@dataclass(frozen=True)
class ValidationLoss:
    """A validation loss P: ``loss(estimator, X, y) -> float``, lower is better."""

    name: str
    function: Callable

    def __call__(self, estimator, X, y) -> float:
        return float(self.function(estimator, X, y))


#: The classifiers' default loss; a search that already holds the probabilities computes it from them.
LOG_LOSS = ValidationLoss("log_loss", _log_loss)


def resolve_loss(scoring, estimator) -> ValidationLoss:
    """Turn ``scoring`` into a :class:`ValidationLoss`.

    Parameters
    ----------
    scoring : None, str or callable
        ``None`` → ``"log_loss"`` for classifiers (a proper score: the chosen model's probabilities
        can be trusted; accuracy alone picks over-confident models on small validation sets),
        ``"mae"`` for regressors. A name among
        ``log_loss, error, 1-f1 (f1), mae, rmse, mape, wmape, 1-r2 (r2)``; any scikit-learn scorer name
        (``"roc_auc"``, ``"neg_log_loss"``…, negated so lower is better); a callable
        ``loss(y_true, y_pred) -> float`` (lower is better); or a :class:`ValidationLoss`, taken as it
        is (a loss that needs the rows, e.g. one that adds back an input the model corrects).

    Example
    -------
    >>> from primo import PrDTClassifier
    >>> resolve_loss("f1", PrDTClassifier()).name
    '1-f1'
    """
    if scoring is None:
        scoring = "log_loss" if is_classifier(estimator) else "mae"
    if isinstance(scoring, ValidationLoss):
        return scoring
    if scoring == "log_loss":
        return LOG_LOSS
    if callable(scoring):
        name = getattr(scoring, "__name__", "custom")
        return ValidationLoss(name, lambda est, X, y: scoring(y, est.predict(X)))
    if not isinstance(scoring, str):
        raise TypeError(f"scoring must be None, a name or a callable, not {type(scoring).__name__}")
    key = _ALIASES.get(scoring, scoring)
    if key in _NAMED_LOSSES:
        function = _NAMED_LOSSES[key][0]
        return ValidationLoss(key, lambda est, X, y: function(y, est.predict(X)))
    try:
        scorer = metrics.get_scorer(scoring)
    except ValueError:
        known = ", ".join(["log_loss", *_NAMED_LOSSES, *_ALIASES])
        raise ValueError(f"unknown scoring {scoring!r}: use one of {known}, a scikit-learn scorer name, or a callable") from None
    return ValidationLoss(f"-{scoring}", lambda est, X, y: -scorer(est, X, y))


def reference_loss(loss: ValidationLoss, estimator, y_train, y_valid, sample_weight=None) -> float:
    """The validation loss of the trivial predictor fit on ``y_train``: the class priors for a
    classifier, the median (absolute-error losses) or mean target for a regressor. It is the unit of
    the scale-free ``relative_loss`` (1.0 = no better than knowing nothing about X), so tolerances
    mean the same on every table. NaN when the loss is undefined for the trivial predictor.
    """
    if is_classifier(estimator):
        dummy = DummyClassifier(strategy="prior")
    else:
        dummy = DummyRegressor(strategy="median" if loss.name in MEDIAN_REFERENCE_LOSSES else "mean")
    # The trivial predictor ignores X; a one-column stand-in avoids validating text columns.
    dummy.fit(np.zeros((len(y_train), 1)), y_train, sample_weight=sample_weight)
    try:
        return loss(dummy, np.zeros((len(y_valid), 1)), y_valid)
    except (ValueError, ZeroDivisionError):
        return math.nan


@dataclass(frozen=True)
class ComplexityPenalty:
    """λ·C^γ, the complexity term of S(θ) = P(θ) + λ·C(θ)^γ.

    Parameters
    ----------
    lam : float ≥ 0 — weight of complexity (0 = accuracy only).
    gamma : float > 0 — normalization exponent of the complexity.
    """

    lam: float = 0.0
    gamma: float = 1.0

    def __post_init__(self):
        if self.lam < 0 or not np.isfinite(self.lam):
            raise ValueError(f"lam must be a finite number >= 0, got {self.lam}")
        if self.gamma <= 0 or not np.isfinite(self.gamma):
            raise ValueError(f"gamma must be a finite number > 0, got {self.gamma}")

    def __call__(self, complexity: float) -> float:
        return self.lam * float(complexity) ** self.gamma if self.lam else 0.0

    def score(self, loss: float, complexity: float) -> float:
        """S = P + λ·C^γ."""
        return float(loss) + self(complexity)
