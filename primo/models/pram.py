"""PrAM: a GA²M additive model (shape functions + pairwise interactions) fit by interpret's EBM.

The fitted :class:`interpret.glassbox.ExplainableBoostingClassifier`/``Regressor`` is kept as
``ebm_`` so interpret's own tools (``monotonize``, ``term_importances``, ``eval_terms``,
``explain_global``) keep working on it.

Defaults follow interpret's, except that boosting is bounded (``max_rounds=5000``,
``outer_bags=8``): interpret's 50,000 rounds × 14 bags can run for minutes on small, noise-free data.

Complexity: the paper defines C(θ) = interactions × max_bins, which is zero for a model with no
pair terms. Primo uses C = (1 + number of fitted pair terms) × max_bins instead, so that a pure
additive model costs ``max_bins`` and every pair term adds another ``max_bins``; it orders models
the same way as the paper whenever interactions ≥ 1.

Example
-------
>>> from sklearn.datasets import load_diabetes
>>> from primo import PrAMRegressor
>>> X, y = load_diabetes(return_X_y=True, as_frame=True)
>>> model = PrAMRegressor(interactions=3, max_rounds=500, outer_bags=2).fit(X, y)
>>> model.n_interactions_, model.complexity_
(3, 1024)
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from interpret.glassbox import ExplainableBoostingClassifier, ExplainableBoostingRegressor
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d

from primo.errors import InputError
from primo.models._base import PrimoModelMixin, check_prediction_input, check_training_input
from primo.validation import validate_additive_state

_EBM_CLASSES = {cls.__name__: cls for cls in (ExplainableBoostingClassifier, ExplainableBoostingRegressor)}


class _PrAMBase(PrimoModelMixin, BaseEstimator):
    _ebm_class: type
    # interpret bins ±infinity beyond the outermost edges (the exports reproduce it), at fit and predict.
    _accepts_infinity = True
    #: Parameters whose smaller values make a smaller model, and how small searches try them.
    _shrink_toward = {"interactions": 0, "max_bins": 32}

    def __init__(
        self,
        *,
        max_bins=256,
        interactions=10,
        learning_rate=None,
        max_rounds=5000,
        outer_bags=8,
        min_samples_leaf=4,
        max_leaves=None,
        max_interaction_bins=32,
        feature_types=None,
        monotone_constraints=None,
        n_jobs=-1,
        random_state=42,
    ):
        self.max_bins = max_bins
        self.interactions = interactions
        self.learning_rate = learning_rate
        self.max_rounds = max_rounds
        self.outer_bags = outer_bags
        self.min_samples_leaf = min_samples_leaf
        self.max_leaves = max_leaves
        self.max_interaction_bins = max_interaction_bins
        self.feature_types = feature_types
        self.monotone_constraints = monotone_constraints
        self.n_jobs = n_jobs
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting
    def _make_ebm(self, feature_names):
        kwargs = dict(
            feature_names=feature_names,
            feature_types=self.feature_types,
            max_bins=int(self.max_bins),
            max_interaction_bins=int(self.max_interaction_bins),
            interactions=self.interactions,
            max_rounds=self.max_rounds,
            outer_bags=int(self.outer_bags),
            min_samples_leaf=self.min_samples_leaf,
            monotone_constraints=self.monotone_constraints,
            n_jobs=self.n_jobs,
            random_state=self.random_state,
        )
        # None keeps interpret's task-specific default.
        if self.learning_rate is not None:
            kwargs["learning_rate"] = float(self.learning_rate)
        if self.max_leaves is not None:
            kwargs["max_leaves"] = int(self.max_leaves)
        return self._ebm_class(**kwargs)

    def fit(self, X, y, sample_weight=None):
        """Fit the additive model; X may be an array or a DataFrame (text columns are categorical).

        Bad input (see :mod:`primo.errors`) raises before the model changes.
        """
        X = check_training_input(self, X, y, sample_weight, classifier=isinstance(self, ClassifierMixin),
                                 multi_output=False, accept_sparse=False, text_in_arrays=True)
        if isinstance(X, pd.DataFrame):
            feature_names = list(X.columns)
            X_fit = X
        else:
            X_fit = check_array(X, dtype=None, ensure_all_finite=False, ensure_min_samples=2)
            feature_names = None
        y = column_or_1d(y, warn=True)
        if sample_weight is not None:
            sample_weight = np.broadcast_to(np.asarray(sample_weight, dtype=float), y.shape)
            # interpret rejects zero weights; a zero-weight row contributes nothing, so drop it.
            keep = sample_weight > 0
            if not keep.all():
                X_fit = X_fit[keep] if not isinstance(X_fit, pd.DataFrame) else X_fit.iloc[np.flatnonzero(keep)]
                y = y[keep]
            sample_weight = sample_weight[keep]
        y = self._check_target(y)
        ebm = self._make_ebm(feature_names)
        ebm.fit(X_fit, y, sample_weight=sample_weight)
        # Attributes are set only once the fit succeeded: a failed refit leaves a fitted model as it was.
        if feature_names is not None:
            self.feature_names_in_ = np.asarray(feature_names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.n_features_in_ = X_fit.shape[1]
        if isinstance(self, ClassifierMixin):
            self.classes_ = np.unique(y)
        self.ebm_ = ebm
        self.metadata_ = {}
        return self

    # ------------------------------------------------------------------ structure
    @property
    def n_interactions_(self) -> int:
        """Number of fitted pair terms."""
        check_is_fitted(self)
        return sum(len(t) == 2 for t in self.ebm_.term_features_)

    @property
    def complexity_(self) -> int:
        """C = (1 + fitted pair terms) × max_bins; see the module docstring."""
        return (1 + self.n_interactions_) * int(self.max_bins)

    @property
    def size_(self) -> int:
        """Readable size (what model selection minimizes): the constant pieces a person reads.

        A main term counts the runs of equal scores along its ordinary bins (adjacent bins with the
        same score read as one piece), plus one when its missing-value bin carries a score; a pair
        term counts the cells of its heatmap after merging equal adjacent rows and columns, plus one
        when a missing-value row or column carries a score. A multiclass score changes when any
        class's does. A term whose scores are all zero counts nothing.
        """
        check_is_fitted(self)
        ebm = self.ebm_
        return int(sum(_term_pieces(np.asarray(scores), len(features))
                       for features, scores in zip(ebm.term_features_, ebm.term_scores_)))

    @property
    def term_names_(self) -> list[str]:
        check_is_fitted(self)
        return list(self.ebm_.term_names_)

    def term_importances(self) -> pd.Series:
        """Mean absolute contribution of each term on the training data, largest first."""
        check_is_fitted(self)
        scores = self.ebm_.term_importances("avg_weight")
        return pd.Series(scores, index=self.term_names_, name="importance").sort_values(ascending=False)

    def eval_terms(self, X) -> np.ndarray:
        """Per-term contributions (n_samples, n_terms); intercept + row sum = raw score."""
        X = check_prediction_input(self, X)
        return self.ebm_.eval_terms(X)

    def __str__(self) -> str:
        try:
            check_is_fitted(self)
        except Exception:
            return repr(self)
        importances = self.term_importances()
        intercept = np.atleast_1d(self.ebm_.intercept_)
        lines = [
            f"{type(self).__name__}: {len(importances)} terms ({self.n_interactions_} pairs), "
            f"max_bins={self.max_bins}, complexity {self.complexity_}",
            f"  intercept: {', '.join(f'{v:.6g}' for v in intercept)}",
            "  terms by importance (mean |contribution|):",
        ]
        width = max(len(n) for n in importances.index)
        lines += [f"    {name:<{width}}  {value:.6g}" for name, value in importances.items()]
        return "\n".join(lines)

    def _features_read_as_numbers(self) -> list[int]:
        # interpret bins text in a continuous feature as missing; Primo refuses it instead.
        return [j for j, kind in enumerate(self.ebm_.feature_types_in_) if kind == "continuous"]

    # ------------------------------------------------------------------ model files
    def _get_state(self) -> dict:
        check_is_fitted(self)
        state = {k: v for k, v in vars(self).items() if k.endswith("_") and k not in ("ebm_", "metadata_")}
        ebm = self.ebm_
        state["ebm_"] = {
            "class": type(ebm).__name__,
            "params": {k: v for k, v in ebm.get_params(deep=False).items() if k != "callback"},
            "fitted": {k: v for k, v in vars(ebm).items() if k.endswith("_")},
        }
        return state

    def _set_state(self, state: dict) -> None:
        # A state may come from a hostile file: interpret indexes score tables without bounds checks.
        validate_additive_state(state, classifier=isinstance(self, ClassifierMixin))
        state = dict(state)
        ebm_state = state.pop("ebm_")
        ebm = _EBM_CLASSES[ebm_state["class"]](**ebm_state["params"])
        for key, value in ebm_state["fitted"].items():
            setattr(ebm, key, value)
        for key, value in state.items():
            setattr(self, key, value)
        self.ebm_ = ebm

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def _runs(scores: np.ndarray, axis: int) -> int:
    """Number of runs of equal slices along ``axis`` (interpret's layout: bin 0 missing, last unseen)."""
    inner = np.moveaxis(scores, axis, 0)[1:-1]
    if len(inner) == 0:
        return 0
    changes = np.any((inner[1:] != inner[:-1]).reshape(len(inner) - 1, -1), axis=1)
    return 1 + int(changes.sum())


def _term_pieces(scores: np.ndarray, n_features: int) -> int:
    """Readable pieces of one term's score table (see ``size_``)."""
    if not np.any(scores):
        return 0
    if n_features == 1:
        return _runs(scores, 0) + int(np.any(scores[0] != 0))
    missing = np.any(scores[0] != 0) or np.any(scores[:, 0] != 0)
    return _runs(scores, 0) * _runs(scores, 1) + int(missing)


class PrAMRegressor(RegressorMixin, _PrAMBase):
    """GA²M regressor (PrAM). See the module docstring for parameters and complexity."""

    _ebm_class = ExplainableBoostingRegressor

    def _check_target(self, y):
        return np.asarray(y, dtype=float)  # check_training_input refused text and non-finite values

    def predict(self, X):
        """Predicted values."""
        X = check_prediction_input(self, X, numeric_frames_as_arrays=True)
        return self.ebm_.predict(X)


class PrAMClassifier(ClassifierMixin, _PrAMBase):
    """GA²M classifier (PrAM), binary or multiclass. See the module docstring."""

    _ebm_class = ExplainableBoostingClassifier

    def _check_target(self, y):
        check_classification_targets(y)
        classes = np.unique(y)
        if len(classes) < 2:
            raise InputError(f"y has a single class ({str(classes[0])!r}); a classifier needs at least two", argument="y")
        return y

    def predict(self, X):
        """Predicted class labels."""
        X = check_prediction_input(self, X, numeric_frames_as_arrays=True)
        return self.ebm_.predict(X)

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``."""
        X = check_prediction_input(self, X, numeric_frames_as_arrays=True)
        return self.ebm_.predict_proba(X)

    def decision_function(self, X):
        """Raw additive score (log-odds for binary problems)."""
        X = check_prediction_input(self, X, numeric_frames_as_arrays=True)
        return self.ebm_.decision_function(X)
