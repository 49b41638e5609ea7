"""PrAM: a GA²M additive model (shape functions + pairwise interactions) fit by interpret's EBM.

The fitted :class:`interpret.glassbox.ExplainableBoostingClassifier`/``Regressor`` is kept as
``ebm_`` so interpret's own tools (``monotonize``, ``term_importances``, ``eval_terms``,
``explain_global``) keep working on it.

Boosting follows interpret's defaults (learning rate, leaves, up to 50,000 rounds, stopping early when a
bag's held-out rows stop improving); the model is smaller than interpret's default: 8 bags instead of
14, 256 bins instead of 1,024, 32 pair bins instead of 64, and 10 pair terms instead of a multiple of the
feature count. :meth:`bags_out_of_rounds` tells when boosting ran out of rounds instead of stopping.
Rounds are not bounded lower by default: on tables whose main effects need many small steps (an
id-like column of 79 trees), 5,000 rounds left the model 20–85% worse than EBM
(``reports/benchmarks/README.md``, "The boosting round cap"); searches bound their trials' rounds
instead (``primo.selection``).

Simplified models, after boosting: ``max_terms=t`` keeps the t most important terms (mean absolute
contribution on the training rows, :meth:`term_importances`) and drops the others, whose weighted
mean is zero, so the intercept keeps its meaning; ``max_pieces=k`` then approximates every kept
term's shape function by at most k constant pieces (pair terms: k rectangles of the heatmap), so that
a person reads k steps instead of hundreds of bins. Boosting fits a little of the noise into every
term it is given, and on large tables the noise terms are most of the pieces (a 100k-row table with
4 real terms among 23: 11,486 pieces, 1,357 in the 4 real terms, which validate as well alone).
:meth:`simplified` gives the same without refitting, which is how searches score every t and k
from one fit per fold.

Pair terms: interpret cuts a continuous feature to ``max_interaction_bins`` bins in a pair but keeps every
category of a categorical one, so interpret's choice of pairs here skips a pair with a categorical feature
whose heatmap would have more than :data:`MAX_PAIR_CELLS` cells (e.g. a text column of over 256 values
against a number; two numbers are never skipped): free text
made such pairs hundreds by hundreds of cells that cost 300x the main effects to fit and that nobody
reads. Its main effect stays, and pairs named in ``interactions`` are kept.

Target scale: a regressor boosts its target in units of a power of two (:func:`_target_exponent`), so a
target of 1e40 or 1e-30 is learned as one near 1 is; interpret learned an intercept alone on the former.
For a target already in interpret's range the fitted model is bit-identical.

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

import copy
import math
import numbers
import time
import warnings

import numpy as np
import pandas as pd
from interpret.glassbox import ExplainableBoostingClassifier, ExplainableBoostingRegressor
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.model_selection import train_test_split
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d

from primo.errors import InputError
from primo.models._base import PrimoModelMixin, check_prediction_input, check_training_input
from primo.models.encoding import CATEGORICAL, dtype_kind
from primo.validation import validate_additive_state

#: interpret's fit warnings about its own plots, whose advice misleads here: Primo's explanations and reports
#: show a term's missing bin and its contribution (interpret's say to encode NaN as -1000 instead) and a
#: multiclass model's pair terms (interpret's say to set interactions=0).
INTERPRET_PLOT_WARNINGS = ("Missing values detected. Our visualizations do not currently display missing values",
                           "For multiclass we cannot currently visualize pairs")

#: Share of each cross-fitted bag's training rows kept for early stopping (interpret's own default).
EARLY_STOPPING_FRACTION = 0.15

_EBM_CLASSES = {cls.__name__: cls for cls in (ExplainableBoostingClassifier, ExplainableBoostingRegressor)}


def _text_as_nominal(X) -> list[str] | None:
    """interpret's per-column types for a DataFrame fitted without ``feature_types``: text is nominal.

    interpret's "auto" reads a text column whose values all look like numbers ("4", "6") as
    continuous, so a later "rotary" in it fails at predict time, and whether a column is continuous
    depends on which rows a CV fold drew. Text columns are categories, as PrDT reads them
    (:mod:`primo.models.encoding`); ``category`` and numeric columns keep interpret's choice.
    """
    if not isinstance(X, pd.DataFrame):
        return None
    return ["nominal" if dtype_kind(dtype, name) == CATEGORICAL and not isinstance(dtype, pd.CategoricalDtype)
            else "auto" for name, dtype in X.dtypes.items()]


#: The most cells a pair term may have for interpret's choice of pairs to consider it: a categorical feature of
#: 256 values (the default ``max_bins``) against a continuous one cut to the default 32 pair bins.
MAX_PAIR_CELLS = 256 * 32


def _pairs_too_large(X, feature_types, max_interaction_bins: int) -> list[tuple[int, int]]:
    """The pairs of features whose pair term would have more than :data:`MAX_PAIR_CELLS` cells.

    interpret cuts a continuous feature to ``max_interaction_bins`` bins in a pair term but keeps every
    category of a nominal or ordinal one: pairs of free-text columns are heatmaps of hundreds by hundreds
    of cells that nobody reads, most holding a row or none, and ranking and boosting them took 300x the
    time of the main effects (one bag of draw 6's nace_rev2, text columns of up to 847 values: 157 s
    against 0.5 s). Two continuous features are never left out: interpret cuts both to
    ``max_interaction_bins``, the caller's choice. ``feature_types`` are the types interpret is given (None:
    "auto" for every column).
    """
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)
    cells, is_categorical = [], []
    for j, (name, column) in enumerate(frame.items()):
        kind = "auto" if feature_types is None else feature_types[j]
        if kind == "auto":
            if isinstance(X, pd.DataFrame):
                categorical = dtype_kind(column.dtype, name) == CATEGORICAL
            else:  # interpret's "auto" reads an object column whose values all parse as numbers as continuous
                values = column.dropna()
                categorical = values.dtype == object and pd.to_numeric(values, errors="coerce").isna().any()
        else:  # a list names categories (text) or continuous cut points (numbers)
            categorical = kind in ("nominal", "ordinal") or (
                isinstance(kind, (list, tuple)) and any(isinstance(value, str) for value in kind))
        if isinstance(kind, (list, tuple)):  # the caller's categories, or cut points (one bin more)
            distinct = len(kind) + (0 if categorical else 1)
        else:
            distinct = column.nunique(dropna=True)
        cells.append(distinct if categorical else min(distinct, max_interaction_bins))
        is_categorical.append(categorical)
    return [(j, k) for j in range(len(cells)) for k in range(j + 1, len(cells))
            if (is_categorical[j] or is_categorical[k]) and cells[j] * cells[k] > MAX_PAIR_CELLS]


class _StopAt:
    """interpret's boosting callback that stops every bag at a wall-clock time (``time.time()``).

    A class, not a closure: interpret calls it in its worker processes, which unpickle it."""

    def __init__(self, at: float):
        self.at = float(at)

    def __call__(self, bag: int, step: int, progress: bool, metric: float) -> bool:
        return time.time() >= self.at


class _PrAMBase(PrimoModelMixin, BaseEstimator):
    _ebm_class: type
    # interpret bins ±infinity beyond the outermost edges (the exports reproduce it), at fit and predict.
    _accepts_infinity = True
    #: Parameters whose smaller values make a smaller model, and how small searches try them.
    _shrink_toward = {"interactions": 0, "max_bins": 32}
    #: Parameters applied after fitting, in the order they apply (see :meth:`simplified`), and the values
    #: searches score.
    _post_fit_path = {"max_terms": (1, 2, 3, 4, 6, 8, 12, 16, 24, 32),
                      "max_pieces": (2, 3, 4, 6, 8, 12, 16, 24, 32, 48)}
    #: One-bag configurations that together left the least regret on four development tables (greedily,
    #: ``benchmarks/pram_portfolio.py``; values rounded), in the order a Bayesian search with
    #: ``initial_point_generator="portfolio"`` starts from them.
    _search_portfolio = (
        {"max_bins": 136, "learning_rate": 0.00735, "min_samples_leaf": 10, "max_leaves": 2, "interactions": 24},
        {"max_bins": 130, "learning_rate": 0.0939, "min_samples_leaf": 4, "max_leaves": 2, "interactions": 32},
        {"max_bins": 47, "learning_rate": 0.286, "min_samples_leaf": 14, "max_leaves": 2, "interactions": 3},
        {"max_bins": 85, "learning_rate": 0.0273, "min_samples_leaf": 3, "max_leaves": 4, "interactions": 28},
        {"max_bins": 11, "learning_rate": 0.00880, "min_samples_leaf": 27, "max_leaves": 2, "interactions": 27},
        {"max_bins": 78, "learning_rate": 0.0182, "min_samples_leaf": 10, "max_leaves": 3, "interactions": 1},
        {"max_bins": 157, "learning_rate": 0.0222, "min_samples_leaf": 1, "max_leaves": 3, "interactions": 17},
        {"max_bins": 98, "learning_rate": 0.0516, "min_samples_leaf": 26, "max_leaves": 2, "interactions": 27},
    )

    def __init__(
        self,
        *,
        max_bins=256,
        interactions=10,
        learning_rate=None,
        max_rounds=50_000,
        outer_bags=8,
        min_samples_leaf=4,
        max_leaves=None,
        max_interaction_bins=32,
        feature_types=None,
        monotone_constraints=None,
        max_pieces=None,
        max_terms=None,
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
        self.max_pieces = max_pieces
        self.max_terms = max_terms
        self.n_jobs = n_jobs
        self.random_state = random_state

    # ------------------------------------------------------------------ fitting
    def _make_ebm(self, feature_names, outer_bags, feature_types=None, exclude=None):
        kwargs = dict(
            feature_names=feature_names,
            feature_types=feature_types,
            max_bins=int(self.max_bins),
            max_interaction_bins=int(self.max_interaction_bins),
            interactions=self.interactions,
            exclude=exclude or None,
            max_rounds=self.max_rounds,
            outer_bags=int(outer_bags),
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

    def fit(self, X, y, sample_weight=None, *, stop_at=None):
        """Fit the additive model; X may be an array or a DataFrame (text columns are categorical).

        Bad input (see :mod:`primo.errors`) raises before the model changes. ``stop_at`` (a ``time.time()``
        value; searches pass their time budget's end) stops boosting then: each bag keeps its best model so
        far, as early stopping would, boosted less than the configuration asks.
        """
        return self._fit(X, y, sample_weight, bags=None, stop_at=stop_at)

    def cross_fit(self, X, y, splits, sample_weight=None, bags_per_fold=1, *, stop_at=None):
        """Fit bags on each validation fold's training rows only; the model is the average of all of them.

        ``splits`` is a list of (train, valid) row indices, e.g. a K-fold CV's. Each of fold *i*'s
        ``bags_per_fold`` bags boosts on its own 85% of ``train`` (early stopping on the other 15%, as
        interpret does inside every bag) and never sees ``valid``, so :meth:`bag_model` of fold *i*'s
        bags (``fold_bags(i, bags_per_fold)``) scored on ``valid`` is an honest validation of a
        ``bags_per_fold``-bag model, and the averaged model is the one that was validated, not a refit.
        What the bags share was computed from every row: the bin edges and category vocabularies
        (from X only) and the choice of pair terms (interpret ranks pairs over all bags). Sets
        ``outer_bags`` to the number of bags. Searches use this to validate a configuration with one
        fit (``BayesianSearch(cross_fit=True)``, which automatic selection uses), and refit the one they keep.

        Example
        -------
        >>> splits = list(KFold(5, shuffle=True, random_state=0).split(X))  # doctest: +SKIP
        >>> model = PrAMRegressor().cross_fit(X, y, splits, bags_per_fold=2)  # doctest: +SKIP
        >>> fold0 = model.bag_model(fold_bags(0, 2))  # doctest: +SKIP
        >>> mean_absolute_error(y[splits[0][1]], fold0.predict(X.iloc[splits[0][1]]))  # doctest: +SKIP

        ``stop_at``: as in :meth:`fit`.
        """
        if len(splits) < 1:
            raise ValueError("cross_fit needs at least one (train, valid) split")
        if int(bags_per_fold) < 1:
            raise ValueError(f"bags_per_fold must be >= 1, got {bags_per_fold}")
        y_array = np.asarray(y)
        classifier = isinstance(self, ClassifierMixin)
        all_classes = np.unique(y_array) if classifier else None
        bags = np.zeros((len(y_array), len(splits) * int(bags_per_fold)), dtype=np.int8)
        rng = np.random.RandomState(self.random_state)
        for fold, (train, _) in enumerate(splits):
            counts = None
            if classifier:
                classes, counts = np.unique(y_array[train], return_counts=True)
                if classes.size < all_classes.size:
                    raise ValueError(f"split {fold}'s training rows hold no row of class "
                                     f"{np.setdiff1d(all_classes, classes).tolist()}: every bag of a cross-fitted "
                                     "classifier must know every class (fit such folds one by one)")
            n_stop = math.ceil(EARLY_STOPPING_FRACTION * len(train))
            # Stratified only where every class fits in both parts (scikit-learn refuses otherwise).
            stratify = (y_array[train] if counts is not None and counts.min() >= 2
                        and len(counts) <= min(n_stop, len(train) - n_stop) else None)
            for bag in fold_bags(fold, bags_per_fold):
                boost, stop = train_test_split(np.asarray(train), test_size=EARLY_STOPPING_FRACTION,
                                               stratify=stratify, random_state=rng.randint(2**31 - 1))
                if classifier and stratify is None:  # a class left out of the boosting rows: boost on it too
                    lost = ~np.isin(y_array[stop], y_array[boost])
                    boost, stop = np.r_[boost, stop[lost]], stop[~lost]
                bags[boost, bag], bags[stop, bag] = 1, -1
        return self._fit(X, y, sample_weight, bags=bags, stop_at=stop_at)

    @property
    def n_bags_(self) -> int:
        """How many bags the model averages (``outer_bags`` of a fit; all folds' bags after :meth:`cross_fit`)."""
        check_is_fitted(self)
        return len(self.ebm_.bagged_intercept_)

    def bag_model(self, bags):
        """A copy that predicts with the average of some bags only (an index or a range of them).

        After :meth:`cross_fit`, ``bag_model(fold_bags(i, bags_per_fold))`` is fold *i*'s model.
        """
        chosen = np.atleast_1d(np.asarray(bags, dtype=np.intp))
        if chosen.size == 0 or chosen.min() < 0 or chosen.max() >= self.n_bags_:
            raise IndexError(f"bags {bags} out of range: the model has {self.n_bags_} bags")
        model = copy.deepcopy(self)
        ebm = model.ebm_
        weights = np.asarray(ebm.bag_weights_, dtype=np.float64)[chosen]
        ebm.bagged_scores_ = [np.array(scores[chosen]) for scores in ebm.bagged_scores_]
        ebm.bagged_intercept_ = np.array(ebm.bagged_intercept_[chosen])
        ebm.bag_weights_ = np.array(ebm.bag_weights_[chosen])
        ebm.term_scores_ = [np.average(scores, axis=0, weights=weights) for scores in ebm.bagged_scores_]
        intercept = np.average(ebm.bagged_intercept_, axis=0, weights=weights)  # interpret's layout kept:
        ebm.intercept_ = float(intercept) if np.ndim(self.ebm_.intercept_) == 0 else np.reshape(
            intercept, np.shape(self.ebm_.intercept_))  # a float (regression) or one value per class score
        ebm.standard_deviations_ = [np.std(scores, axis=0) for scores in ebm.bagged_scores_]
        model.outer_bags = int(chosen.size)
        return model

    def _check_training_input(self, X, y, sample_weight=None):
        """``fit``'s checks of its input (a search runs them once, before any trial)."""
        return check_training_input(self, X, y, sample_weight, classifier=isinstance(self, ClassifierMixin),
                                    multi_output=False, accept_sparse=False, text_in_arrays=True)

    def _fit(self, X, y, sample_weight, bags, stop_at=None):
        """``fit``, with interpret's bag matrix (rows x bags: 1 boost, -1 early stopping, 0 unused) when given."""
        X = self._check_training_input(X, y, sample_weight)
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
                bags = None if bags is None else bags[keep]
            sample_weight = sample_weight[keep]
        y = self._check_target(y)
        exponent = self._target_exponent(y)
        _check_post_fit(max_pieces=self.max_pieces, max_terms=self.max_terms)
        feature_types = self.feature_types if self.feature_types is not None else _text_as_nominal(X_fit)
        # Pairs named by the caller are kept; only interpret's own choice of pairs skips pairs too large.
        exclude = (_pairs_too_large(X_fit, feature_types, int(self.max_interaction_bins))
                   if isinstance(self.interactions, numbers.Number) and self.interactions > 0 else None)
        ebm = self._make_ebm(feature_names, self.outer_bags if bags is None else bags.shape[1], feature_types, exclude)
        if stop_at is not None:  # only then: interpret starts a shared-memory server for a callback (~50 ms a fit)
            ebm.set_params(callback=_StopAt(stop_at))
        with warnings.catch_warnings():
            for message in INTERPRET_PLOT_WARNINGS:
                warnings.filterwarnings("ignore", message=message, category=UserWarning)
            ebm.fit(X_fit, np.ldexp(y, -exponent) if exponent else y, sample_weight=sample_weight, bags=bags)
        ebm.set_params(callback=None)  # a deadline is the fit's, not the model's
        if exponent:
            _scale_target_units(ebm, exponent)
        if self.max_terms is not None:
            keep_terms(ebm, int(self.max_terms))
        if self.max_pieces is not None:
            simplify_terms(ebm, int(self.max_pieces))
        # Attributes are set only once the fit succeeded: a failed refit leaves a fitted model as it was.
        if feature_names is not None:
            self.feature_names_in_ = np.asarray(feature_names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.n_features_in_ = X_fit.shape[1]
        if isinstance(self, ClassifierMixin):
            self.classes_ = np.unique(y)
        if bags is not None:
            self.outer_bags = bags.shape[1]
        self.ebm_ = ebm
        self.metadata_ = {}
        return self

    def _target_exponent(self, y) -> int:
        """The power of two interpret boosts the target in units of (0: as it is; regressors only)."""
        return 0

    def simplified(self, max_pieces: int | None = None, *, max_terms: int | None = None):
        """A copy with at most ``max_terms`` terms of at most ``max_pieces`` constant pieces, without refitting.

        The same model as a fit with these parameters (simplification runs after boosting: the terms
        first, then the pieces), so a search scores every value from one fit. Only a model fitted
        without them (or with larger ones) can be simplified further; None leaves that part unchanged.

        Example
        -------
        >>> model = PrAMRegressor(outer_bags=1).fit(X, y)  # doctest: +SKIP
        >>> model.size_, model.simplified(4).size_, model.simplified(4, max_terms=3).size_  # doctest: +SKIP
        (1873, 61, 12)
        """
        check_is_fitted(self)
        _check_post_fit(max_pieces=max_pieces, max_terms=max_terms)
        model = copy.deepcopy(self)
        for name, value, simplify in (("max_terms", max_terms, keep_terms), ("max_pieces", max_pieces, simplify_terms)):
            if value is not None:
                simplify(model.ebm_, int(value))
                fitted_with = getattr(self, name)
                setattr(model, name, int(value) if fitted_with is None else min(int(value), fitted_with))
        return model

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
        return int(sum(term_pieces(scores, len(features))
                       for features, scores in zip(ebm.term_features_, ebm.term_scores_)))

    def bags_out_of_rounds(self) -> dict[str, float]:
        """Share of bags, per boosting stage (``main`` effects, ``pairs``), that ran all ``max_rounds`` rounds
        instead of stopping early: more rounds would have changed them.

        interpret counts a bag's boosting steps (``best_iteration_``), one per term per round, so a stage
        ran out of rounds when its steps reach ``max_rounds`` × its number of terms (the terms kept: after
        ``max_terms`` drops some, a share can only be overstated).
        """
        check_is_fitted(self)
        pairs = self.n_interactions_
        terms = {"main": len(self.ebm_.term_features_) - pairs, "pairs": pairs}
        steps = np.atleast_2d(self.ebm_.best_iteration_)
        return {stage: float(np.mean(steps[i] >= int(self.max_rounds) * count)) if count and i < len(steps) else 0.0
                for i, (stage, count) in enumerate(terms.items())}

    @property
    def term_names_(self) -> list[str]:
        check_is_fitted(self)
        return list(self.ebm_.term_names_)

    def term_importances(self) -> pd.Series:
        """Mean absolute contribution of each term on the training data, largest first."""
        check_is_fitted(self)
        scores = self.ebm_.term_importances("avg_weight")
        return pd.Series(scores, index=self.term_names_, name="importance").sort_values(ascending=False)

    def _ebm_rows(self, X, numeric_frames_as_arrays: bool = False):
        """``X`` checked (:func:`~primo.models._base.check_prediction_input`) as interpret reads it: a table for a
        model fit without names under interpret's own names for its columns (``feature_0000``...), which the model
        reads by position; interpret would otherwise warn again, in its words, about the table's names."""
        X = check_prediction_input(self, X, numeric_frames_as_arrays=numeric_frames_as_arrays)
        if isinstance(X, pd.DataFrame) and getattr(self, "feature_names_in_", None) is None:
            X = X.set_axis([str(n) for n in self.ebm_.feature_names_in_], axis=1)
        return X

    def eval_terms(self, X) -> np.ndarray:
        """Per-term contributions (n_samples, n_terms); intercept + row sum = raw score."""
        X = self._ebm_rows(X)
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


def fold_bags(fold: int, bags_per_fold: int) -> range:
    """The bags :meth:`PrAMRegressor.cross_fit` fits on fold ``fold``'s training rows (fold-major order)."""
    return range(fold * bags_per_fold, (fold + 1) * bags_per_fold)


def _check_post_fit(**values) -> None:
    """Each of ``max_pieces`` and ``max_terms`` is None or a whole number >= 1 (an InputError naming it otherwise)."""
    for name, value in values.items():
        whole = isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value).is_integer()
        if value is not None and not (whole and value >= 1):
            raise InputError(f"{name} must be None or an integer >= 1, got {value!r}", argument=name)


def keep_terms(ebm, max_terms: int) -> None:
    """Keep the ``max_terms`` most important terms of a fitted EBM (interpret's mean absolute contribution
    on the training rows, ties to the earlier term), in place; interpret's ``remove_terms`` drops the others."""
    importances = np.asarray(ebm.term_importances("avg_weight"), dtype=np.float64)
    if max_terms < importances.size:
        ebm.remove_terms(np.sort(np.argsort(-importances, kind="stable")[max_terms:]).tolist())


def simplify_terms(ebm, max_pieces: int) -> None:
    """Approximate every term's scores by at most ``max_pieces`` constant pieces, in place.

    Each term's ordinary bins (interpret's layout: bin 0 is missing, the last unseen; both are
    kept) are fitted by a regression tree of at most ``max_pieces`` leaves on the bin coordinates,
    weighted by the training rows in each bin: contiguous runs of bins (rectangles for a pair term)
    share their weighted mean score, so a term's weighted mean, and the intercept's meaning, are kept.
    A categorical axis is ordered by its mean score first, so that similar categories can share a
    piece. scikit-learn's tree does the segmentation (best-first splits of least weighted squared
    error). The simplified scores replace ``term_scores_``, which predictions, reports and exports
    read. Each bag's scores (``bagged_scores_``) are averaged over the same pieces and
    ``standard_deviations_`` recomputed from them, so a report's error band belongs to the drawn shape.
    """
    from sklearn.tree import DecisionTreeRegressor

    if max_pieces < 1:
        raise ValueError(f"max_pieces must be >= 1, got {max_pieces}")
    for term, features in enumerate(ebm.term_features_):
        scores = np.array(ebm.term_scores_[term], dtype=np.float64)
        inner = (slice(1, -1),) * len(features)
        weights = np.asarray(ebm.bin_weights_[term], dtype=np.float64)[inner]
        block = scores[inner]
        if weights.size <= max_pieces or weights.sum() <= 0:
            continue
        targets = block.reshape(weights.size, -1)
        coordinates = np.indices(weights.shape).reshape(len(features), -1).T.astype(np.float64)
        for axis, feature in enumerate(features):
            if ebm.feature_types_in_[feature] == "nominal":
                other = tuple(a for a in range(len(features)) if a != axis)
                mean = np.average(block.reshape(*weights.shape, -1).mean(axis=-1), axis=other,
                                  weights=weights + 1e-12) if other else targets.mean(axis=1)
                rank = np.argsort(np.argsort(mean, kind="stable"), kind="stable")
                coordinates[:, axis] = rank[coordinates[:, axis].astype(np.intp)]
        if max_pieces == 1:  # scikit-learn's trees need two leaves at least
            pieces = np.zeros(weights.size, dtype=np.intp)
        else:
            tree = DecisionTreeRegressor(max_leaf_nodes=max_pieces, random_state=0)
            pieces = tree.fit(coordinates, targets, sample_weight=weights.reshape(-1)).apply(coordinates)
        scores[inner] = _piece_means(block, pieces, weights)
        ebm.term_scores_[term] = scores
        bagged = getattr(ebm, "bagged_scores_", None)
        if bagged is not None and bagged[term] is not None:
            bags = np.array(bagged[term], dtype=np.float64)
            for bag in bags:
                bag[inner] = _piece_means(bag[inner], pieces, weights)
            bag_weights = getattr(ebm, "bag_weights_", None)
            spread = np.average((bags - np.average(bags, axis=0, weights=bag_weights)) ** 2, axis=0,
                                weights=bag_weights)
            bagged[term] = bags
            ebm.standard_deviations_[term] = np.sqrt(spread)


def _piece_means(block: np.ndarray, pieces: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``block`` (bins[, classes]) with every bin replaced by the weighted mean of its piece's bins."""
    targets = block.reshape(weights.size, -1)
    flat = weights.reshape(-1) + 1e-300  # a piece of empty bins gets their plain mean
    _, piece = np.unique(pieces, return_inverse=True)
    totals = np.zeros((piece.max() + 1, targets.shape[1]))
    np.add.at(totals, piece, targets * flat[:, None])
    return (totals / np.bincount(piece, weights=flat)[:, None])[piece].reshape(block.shape)


def _runs(block: np.ndarray, axis: int) -> int:
    """Number of runs of equal slices along ``axis`` of a term's ordinary bins."""
    moved = np.moveaxis(block, axis, 0)
    if len(moved) == 0:
        return 0
    # explicit width: reshape(-1) cannot infer it from an empty array (a single bin, e.g. an all-missing feature)
    slices = moved.reshape(len(moved), int(np.prod(moved.shape[1:])))
    return 1 + int(np.any(slices[1:] != slices[:-1], axis=1).sum())


def term_pieces(scores, n_features: int) -> int:
    """Readable pieces of one term's score table (the rule of ``PrAM.size_``).

    ``scores`` is in interpret's layout (on every feature axis bin 0 is missing, the last unseen; a
    trailing class axis for multiclass). Runs are counted over the ordinary bins only, so a missing
    row or column counts once, as the "+1", whatever its scores.

    Example
    -------
    >>> term_pieces(np.array([0.0, 1.0, 1.0, 2.0, 0.0]), 1)  # bins 1, 1, 2: two pieces
    2
    """
    scores = np.asarray(scores)
    if not np.any(scores):
        return 0
    inner = scores[(slice(1, -1),) * n_features]
    grid = int(np.prod([_runs(inner, axis) for axis in range(n_features)]))
    missing = any(np.any(np.moveaxis(scores, axis, 0)[0] != 0) for axis in range(n_features))
    return grid + int(missing)


#: EBM regressor attributes in the target's units, rescaled by :func:`_scale_target_units`.
_TARGET_UNIT_ATTRIBUTES = ("term_scores_", "bagged_scores_", "standard_deviations_", "intercept_",
                           "bagged_intercept_", "min_target_", "max_target_")


def _target_exponent(y: np.ndarray) -> int:
    """k such that y / 2**k has a standard deviation about 1 (0 for a constant target).

    interpret's boosting is exactly scale-equivariant in powers of two only while the target's spread is within
    roughly 2**-54 to 2**61 (diabetes' target scaled by 2**-60 ... 2**55 gave bit-identical predictions); beyond,
    it learns other terms, or none at all (physical constants up to 1e50: an intercept alone). Boosting in units
    of 2**k keeps every target inside that range, and changes nothing for one already inside it.
    """
    deviation = y - np.median(y)
    largest = np.max(np.abs(deviation))
    if not largest > 0:
        return 0
    return int(np.round(np.log2(largest * np.std(deviation / largest))))  # divided first: no overflow of squares


def _scale_target_units(ebm, exponent: int) -> None:
    """Multiply a fitted EBM regressor's target-unit attributes by 2**exponent (exact, a power of two)."""
    for name in _TARGET_UNIT_ATTRIBUTES:
        value = getattr(ebm, name)
        if isinstance(value, list):
            setattr(ebm, name, [np.ldexp(v, exponent) for v in value])
        else:
            setattr(ebm, name, type(value)(np.ldexp(value, exponent)) if np.isscalar(value) else np.ldexp(value, exponent))


class PrAMRegressor(RegressorMixin, _PrAMBase):
    """GA²M regressor (PrAM). See the module docstring for parameters and complexity."""

    _ebm_class = ExplainableBoostingRegressor

    def _check_target(self, y):
        return np.asarray(y, dtype=float)  # check_training_input refused text and non-finite values

    def _target_exponent(self, y) -> int:
        return _target_exponent(y)

    def predict(self, X):
        """Predicted values."""
        X = self._ebm_rows(X, numeric_frames_as_arrays=True)
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
        X = self._ebm_rows(X, numeric_frames_as_arrays=True)
        return self.ebm_.predict(X)

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``."""
        X = self._ebm_rows(X, numeric_frames_as_arrays=True)
        return self.ebm_.predict_proba(X)

    def decision_function(self, X):
        """Raw additive score (log-odds for binary problems)."""
        X = self._ebm_rows(X, numeric_frames_as_arrays=True)
        return self.ebm_.decision_function(X)
