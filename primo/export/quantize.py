"""Integer mode: a model that runs without floating point (for kernels, as LinnOS requires).

Every feature ``j`` gets an integer scale ``s_j``; the caller passes ``round(x_j · s_j)`` as a 64-bit
integer and :data:`~primo.export.tables.INT_MISSING` (``INT64_MIN``) for a missing value. Thresholds
are scaled the same way, so a split ``x <= t`` becomes ``x_int <= floor(t · s)`` and a PrAM cut ``x >= c``
becomes ``x_int >= ceil(c · s)``: exact whenever ``x · s`` is an integer. Scores (PrAM terms, PrDT
regression leaves) become fixed-point integers ``round(score · score_scale)``.

With ``feature_scales="auto"`` each feature gets the smallest power of ten (up to 10^6) that makes all
its thresholds multiples of one half (and its numeric categories integers). PrDT thresholds on
integer data (queue lengths, latencies in µs) are naturally integers or ``.5`` — the paper's
observation — so such features get scale 1 and the integer model is exact on integer data.

:meth:`IntegerTree.compare` / :meth:`IntegerAdditive.compare` count, on given data, how many rows take a
different path (leaf or bin) than the float model and how many predictions differ.

Example
-------
>>> integer = quantize(model_tables(model))  # doctest: +SKIP
>>> integer.compare(X_test).n_different_predictions  # doctest: +SKIP
0
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from primo.export.tables import INT_MISSING, AdditiveTables, Binning, TreeTables, class_index

DEFAULT_SCORE_SCALE = 1_000_000
MAX_DECIMALS = 6
_INT_LIMIT = 9.2e18  # a float just inside int64's range, for clipping before conversion
_INT64_MAX = np.iinfo(np.int64).max


@dataclass(frozen=True)
class QuantizationReport:
    """How the integer model compares with the float model on some data.

    ``n_different_paths``: rows reaching another leaf (PrDT) or another bin in some term (PrAM).
    ``n_different_predictions``: classifiers, rows with another label; regressors, rows whose output
    differs by more than fixed-point rounding can explain (``0.5 · n_tables / score_scale``).
    ``max_abs_error``: largest |dequantized integer score − float score| (raw scores for PrAM, the
    prediction for PrDT regressors; ``None`` for PrDT classifiers, whose integer output is a label).
    """

    n_rows: int
    n_different_paths: int
    n_different_predictions: int
    max_abs_error: float | None
    feature_scales: list[int]
    score_scale: int

    def summary(self) -> str:
        error = "" if self.max_abs_error is None else f", max |score error| {self.max_abs_error:.3g}"
        return (
            f"on {self.n_rows} rows: {self.n_different_predictions} predictions and "
            f"{self.n_different_paths} paths differ from the float model{error}"
        )

    def to_dict(self) -> dict:
        return asdict(self)


class _IntegerModel:
    feature_scales: np.ndarray
    score_scale: int

    def scale_inputs(self, X) -> np.ndarray:
        """Integer rows as the caller must build them: ``round(x · scale)``, missing → ``INT64_MIN``."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != len(self.feature_scales):
            raise ValueError(f"expected rows of {len(self.feature_scales)} features, got shape {X.shape}")
        scaled = np.clip(np.rint(X * self.feature_scales), -_INT_LIMIT, _INT_LIMIT)
        out = np.where(np.isnan(scaled), 0, scaled).astype(np.int64)
        out[np.isnan(X)] = INT_MISSING
        return out


@dataclass(frozen=True)
class IntegerTree(_IntegerModel):
    """A PrDT with integer thresholds (and fixed-point leaf values for regressors)."""

    tables: TreeTables
    feature_scales: np.ndarray
    score_scale: int
    thresholds: np.ndarray
    leaf_values: np.ndarray | None  # fixed-point, regressors only

    def apply(self, X_int) -> np.ndarray:
        """Leaf number of each integer row."""
        return self.tables.apply(np.asarray(X_int, dtype=np.int64), threshold=self.thresholds)

    def compare(self, X) -> QuantizationReport:
        """Compare with the float tree on float rows ``X`` (scaled here as a caller would)."""
        X = np.asarray(X, dtype=np.float64)
        float_leaf = self.tables.apply(X)
        int_leaf = self.apply(self.scale_inputs(X))
        if self.tables.is_classifier:
            labels = self.tables.leaf_labels
            n_predictions = int(np.sum(labels[float_leaf] != labels[int_leaf]))
            max_error = None
        else:
            error = np.abs(self.leaf_values[int_leaf] / self.score_scale - self.tables.leaf_values[float_leaf, 0])
            n_predictions = int(np.sum(error > _rounding_bound(1, self.score_scale)))
            max_error = float(error.max(initial=0.0))
        return QuantizationReport(
            n_rows=len(X),
            n_different_paths=int(np.sum(float_leaf != int_leaf)),
            n_different_predictions=n_predictions,
            max_abs_error=max_error,
            feature_scales=[int(s) for s in self.feature_scales],
            score_scale=int(self.score_scale),
        )


@dataclass(frozen=True)
class IntegerAdditive(_IntegerModel):
    """A PrAM with integer cuts and categories and fixed-point score tables."""

    tables: AdditiveTables
    feature_scales: np.ndarray
    score_scale: int
    binnings: list[Binning]
    scores: list[np.ndarray]
    intercept: np.ndarray

    def decision_function(self, X_int) -> np.ndarray:
        """Fixed-point scores (n_rows, n_scores) of integer rows."""
        X_int = np.asarray(X_int, dtype=np.int64)
        bins = [b.lookup(X_int[:, b.feature]) for b in self.binnings]
        scores = np.tile(self.intercept, (len(X_int), 1))
        for term, table in zip(self.tables.terms, self.scores):
            scores += table[tuple(bins[b] for b in term.binnings)]
        return scores

    def compare(self, X) -> QuantizationReport:
        """Compare with the float model on float rows ``X`` (scaled here as a caller would)."""
        X = np.asarray(X, dtype=np.float64)
        X_int = self.scale_inputs(X)
        float_bins = self.tables.bins(X)
        int_bins = [b.lookup(X_int[:, b.feature]) for b in self.binnings]
        paths = np.zeros(len(X), dtype=bool)
        for f_bins, i_bins in zip(float_bins, int_bins):
            paths |= f_bins != i_bins
        float_scores = self.tables.decision_function(X)
        int_scores = self.decision_function(X_int)
        error = np.abs(int_scores / self.score_scale - float_scores).max(axis=1, initial=0.0)
        if self.tables.is_classifier:
            n_predictions = int(np.sum(class_index(float_scores) != class_index(int_scores)))
        else:
            n_predictions = int(np.sum(error > _rounding_bound(len(self.scores) + 1, self.score_scale)))
        return QuantizationReport(
            n_rows=len(X),
            n_different_paths=int(paths.sum()),
            n_different_predictions=n_predictions,
            max_abs_error=float(error.max(initial=0.0)),
            feature_scales=[int(s) for s in self.feature_scales],
            score_scale=int(self.score_scale),
        )


def _rounding_bound(n_tables: int, score_scale: int) -> float:
    # Each fixed-point table entry is off by at most half a unit; 1e-9 absorbs float noise.
    return 0.5 * n_tables / score_scale + 1e-9


def quantize(tables: TreeTables | AdditiveTables, *, feature_scales="auto",
             score_scale: int = DEFAULT_SCORE_SCALE) -> IntegerTree | IntegerAdditive:
    """Integer version of a model's tables.

    Parameters
    ----------
    tables : :func:`~primo.export.tables.model_tables` of the model.
    feature_scales : ``"auto"``, one int for all features, or one int per feature.
    score_scale : fixed-point scale of scores (PrAM terms, PrDT regression leaves).

    Example
    -------
    >>> integer = quantize(model_tables(tree), feature_scales=1)  # doctest: +SKIP
    >>> integer.thresholds  # doctest: +SKIP
    """
    score_scale = int(score_scale)
    if score_scale < 1:
        raise ValueError(f"score_scale must be a positive integer, got {score_scale}")
    if isinstance(tables, TreeTables):
        return _quantize_tree(tables, feature_scales, score_scale)
    if isinstance(tables, AdditiveTables):
        return _quantize_additive(tables, feature_scales, score_scale)
    raise TypeError(f"expected TreeTables or AdditiveTables, got {type(tables).__name__}")


def _quantize_tree(tables: TreeTables, feature_scales, score_scale: int) -> IntegerTree:
    internal = tables.left != -1
    splits = {j: tables.threshold[internal & (tables.feature == j)] for j in range(tables.n_features)}
    scales = _feature_scales(feature_scales, tables.n_features, splits, {})
    thresholds = _to_int(np.floor(tables.threshold * scales[tables.feature]))
    thresholds[~internal] = _INT64_MAX
    leaf_values = None if tables.is_classifier else _fixed_point(tables.leaf_values[:, 0], score_scale)
    return IntegerTree(tables=tables, feature_scales=scales, score_scale=score_scale,
                       thresholds=thresholds, leaf_values=leaf_values)


def _quantize_additive(tables: AdditiveTables, feature_scales, score_scale: int) -> IntegerAdditive:
    splits: dict[int, list] = {}
    categories: dict[int, list] = {}
    for binning in tables.binnings:
        if binning.is_categorical and binning.feature not in tables.vocabularies:
            categories.setdefault(binning.feature, []).append(binning.categories)
        elif not binning.is_categorical:
            splits.setdefault(binning.feature, []).append(binning.cuts)
    scales = _feature_scales(
        feature_scales, tables.n_features,
        {j: np.concatenate(v) for j, v in splits.items()}, {j: np.concatenate(v) for j, v in categories.items()},
    )
    binnings = []
    for binning in tables.binnings:
        scale = scales[binning.feature]
        if binning.cuts is not None:
            binnings.append(Binning(binning.feature, binning.n_bins, cuts=_to_int(np.ceil(binning.cuts * scale))))
        else:
            binnings.append(Binning(binning.feature, binning.n_bins,
                                    categories=_to_int(np.rint(binning.categories * scale)),
                                    category_bins=binning.category_bins))
    for term in tables.terms:
        if np.abs(term.scores).max(initial=0.0) * score_scale * (len(tables.terms) + 1) > _INT_LIMIT:
            raise ValueError(f"score_scale {score_scale} overflows 64-bit integers on term {term.name!r}")
    return IntegerAdditive(
        tables=tables, feature_scales=scales, score_scale=score_scale, binnings=binnings,
        scores=[_fixed_point(term.scores, score_scale) for term in tables.terms],
        intercept=_fixed_point(tables.intercept, score_scale),
    )


def _feature_scales(requested, n_features: int, splits: dict, categories: dict) -> np.ndarray:
    if isinstance(requested, str):
        if requested != "auto":
            raise ValueError(f"feature_scales must be 'auto', an int or one int per feature, got {requested!r}")
        return np.asarray([_auto_scale(splits.get(j), categories.get(j)) for j in range(n_features)], dtype=np.int64)
    scales = np.broadcast_to(np.asarray(requested), (n_features,)) if np.ndim(requested) == 0 else np.asarray(requested)
    if scales.shape != (n_features,):
        raise ValueError(f"feature_scales has {scales.size} entries, the model has {n_features} features")
    if not np.all(np.equal(np.mod(scales, 1), 0)) or np.any(scales < 1):
        raise ValueError(f"feature_scales must be positive integers, got {list(scales)}")
    return scales.astype(np.int64)


def _auto_scale(splits, categories) -> int:
    """Smallest 10^k (k ≤ MAX_DECIMALS) making splits multiples of 1/2 and categories integers."""
    splits = np.asarray([] if splits is None else splits, dtype=np.float64)
    categories = np.asarray([] if categories is None else categories, dtype=np.float64)
    splits, categories = splits[np.isfinite(splits)], categories[np.isfinite(categories)]
    for k in range(MAX_DECIMALS + 1):
        scale = 10 ** k
        if _near_integers(2 * splits * scale) and _near_integers(categories * scale):
            return scale
    return 10 ** MAX_DECIMALS


def _near_integers(values: np.ndarray) -> bool:
    # PrDT thresholds are float32 midpoints, so allow float32-sized relative noise.
    return bool(np.all(np.abs(values - np.rint(values)) <= 1e-6 * np.maximum(1.0, np.abs(values))))


def _to_int(values: np.ndarray) -> np.ndarray:
    out = np.clip(values, -_INT_LIMIT, _INT_LIMIT).astype(np.int64)
    out[values >= _INT_LIMIT] = _INT64_MAX
    out[values <= -_INT_LIMIT] = INT_MISSING + 1  # below every input, yet not the missing marker
    return out


def _fixed_point(values: np.ndarray, score_scale: int) -> np.ndarray:
    return np.rint(np.asarray(values, dtype=np.float64) * score_scale).astype(np.int64)
