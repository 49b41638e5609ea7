"""Integer mode: a model that runs without floating point (for kernels, as LinnOS requires).

Every feature ``j`` gets an integer scale ``s_j``; the caller passes ``round(x_j · s_j)`` as a 64-bit
integer and :data:`~primo.export.tables.INT_MISSING` (``INT64_MIN``) for a missing value. Thresholds
are scaled the same way, so a split ``x <= t`` becomes ``x_int <= floor(t · s)`` and a PrAM cut ``x >= c``
becomes ``x_int >= ceil(c · s)``: exact whenever ``x · s`` is an integer (where ``t`` or ``c`` lies
within float noise of such an ``x``, the integer edge is moved to the side the float model puts ``x``).
Scores (PrAM terms, PrDT regression leaves) become fixed-point integers ``round(score · score_scale)``;
``score_scale="auto"`` is 10^6, or the largest smaller power of ten under which no score, nor a PrAM's sum of its terms, can
overflow 64 bits (a target of 1e15 gets 10^3); a scale that would overflow is an error, never a wrap.

With ``feature_scales="auto"`` each feature gets the smallest power of ten (up to 10^6) that makes all
its thresholds multiples of one half (and its numeric categories integers). PrDT thresholds on
integer data (queue lengths, latencies in µs) are naturally integers or ``.5`` — the paper's
observation — so such features get scale 1 and the integer model is exact on integer data (in
general: on inputs that are multiples of ``1 / scale``).

When no power of ten does (interpret's edges are midpoints between arbitrary measured values, e.g.
fractions such as Clara's ``R_*`` features), the feature gets a power of **two** ``2^k`` with ``2^-k``
no larger than the gap between any edge and the float64 just below it: ``x · 2^k`` is exact in
floating point, every edge becomes an integer, and every other float64 lands at least one unit away
from it, so ``round(x · 2^k)`` is on the same side of every edge as ``x`` — exact for **every** input.
For PrDT the edge is the float64 that ``float32(x) <= t`` amounts to
(:func:`~primo.export.codegen.float32_threshold`). When ``2^62`` cannot hold a feature's edges that
finely (edges spanning too many binary orders of magnitude, or an edge at 0), the largest fitting
power of two is used and
``exactness`` / :meth:`~_IntegerModel.exactness_note` say so (the C header too).

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

from primo.export.codegen import float32_threshold
from primo.export.tables import (
    INT_MISSING,
    RELATIVE_TOLERANCE,
    AdditiveTables,
    Binning,
    TreeTables,
    class_index,
)

MAX_DECIMALS = 6
_INT_LIMIT = 9.2e18  # a float just inside int64's range, for clipping before conversion
_INT64_MAX = np.iinfo(np.int64).max
#: PrDT thresholds are midpoints of float32 values (two float32 steps of noise); PrAM edges are float64.
FLOAT32_NOISE, FLOAT64_NOISE = 2.5e-7, 1e-12
MAX_BINARY_EXPONENT = 62  # scaled edges stay below 2^62, leaving room for inputs a little beyond them


@dataclass(frozen=True)
class QuantizationReport:
    """How the integer model compares with the float model on some data.

    ``n_different_paths``: rows reaching another leaf (PrDT) or another bin in some term (PrAM).
    ``n_different_predictions``: classifiers, rows with another label; regressors, rows whose output
    differs by more than fixed-point rounding can explain (``0.5 · n_tables / score_scale``, and
    :data:`~primo.export.tables.RELATIVE_TOLERANCE` of the value, as an exported file is verified).
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


#: How a feature's scale keeps integer mode exact: on inputs that are multiples of 1/scale (a power
#: of ten), on every input (a power of two fine enough for every edge), or not exactly.
EXACT_ON_MULTIPLES, EXACT_EDGES, NOT_EXACT = "multiples", "edges", "not exact"


class _IntegerModel:
    feature_scales: np.ndarray
    score_scale: int
    exactness: list[str]

    @property
    def exact_features(self) -> list[bool]:
        """Per feature: whether its scale holds every edge exactly (see the module docstring for what that gives)."""
        return [kind != NOT_EXACT for kind in self.exactness]

    def exactness_note(self, j: int) -> str:
        """What feature ``j``'s scale guarantees, in words (for headers and reports)."""
        scale = int(self.feature_scales[j])
        if self.exactness[j] == EXACT_EDGES:
            return f"2^{scale.bit_length() - 1}: exact for every value"  # scale is a power of two
        if self.exactness[j] == EXACT_ON_MULTIPLES:
            return f"{scale}: exact for multiples of 1/{scale}"
        return f"{scale}: NOT exact (no power of two holds every bin edge below 2^{MAX_BINARY_EXPONENT})"

    @property
    def prediction_tolerance(self) -> float:
        """How far a regression prediction may move by fixed-point rounding of the score tables alone."""
        # Each fixed-point table entry is off by at most half a unit; 1e-9 absorbs float noise.
        return 0.5 * self._n_score_tables / self.score_scale + 1e-9

    def _close(self, dequantized: np.ndarray, exact: np.ndarray) -> np.ndarray:
        """Regression predictions equal up to fixed-point rounding and float64 precision."""
        return np.isclose(dequantized, exact, rtol=RELATIVE_TOLERANCE, atol=self.prediction_tolerance)

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
    exactness: list[str]
    thresholds: np.ndarray
    leaf_values: np.ndarray | None  # fixed-point, regressors only

    _n_score_tables = 1  # the leaf values

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
            dequantized, exact = self.leaf_values[int_leaf] / self.score_scale, self.tables.leaf_values[float_leaf, 0]
            error = np.abs(dequantized - exact)
            n_predictions = int(np.sum(~self._close(dequantized, exact)))
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
    exactness: list[str]
    binnings: list[Binning]
    scores: list[np.ndarray]
    intercept: np.ndarray

    @property
    def _n_score_tables(self) -> int:
        return len(self.scores) + 1  # the terms and the intercept

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
            n_predictions = int(np.sum(~self._close(int_scores[:, 0] / self.score_scale, float_scores[:, 0])))
        return QuantizationReport(
            n_rows=len(X),
            n_different_paths=int(paths.sum()),
            n_different_predictions=n_predictions,
            max_abs_error=float(error.max(initial=0.0)),
            feature_scales=[int(s) for s in self.feature_scales],
            score_scale=int(self.score_scale),
        )


def quantize(tables: TreeTables | AdditiveTables, *, feature_scales="auto",
             score_scale: int | str = "auto") -> IntegerTree | IntegerAdditive:
    """Integer version of a model's tables.

    Parameters
    ----------
    tables : :func:`~primo.export.tables.model_tables` of the model.
    feature_scales : ``"auto"``, one int for all features, or one int per feature.
    score_scale : fixed-point scale of scores (PrAM terms, PrDT regression leaves), or ``"auto"``.

    Example
    -------
    >>> integer = quantize(model_tables(tree), feature_scales=1)  # doctest: +SKIP
    >>> integer.thresholds  # doctest: +SKIP
    """
    if isinstance(tables, TreeTables):
        largest = 0.0 if tables.is_classifier else float(np.abs(tables.leaf_values[:, 0]).max(initial=0.0))
        return _quantize_tree(tables, feature_scales, _score_scale(score_scale, largest))
    if isinstance(tables, AdditiveTables):
        # The decision sums the intercept and one entry of each term: bound the sum, not only each entry.
        largest = float(np.abs(tables.intercept).max(initial=0.0)
                        + sum(np.abs(term.scores).max(initial=0.0) for term in tables.terms))
        return _quantize_additive(tables, feature_scales, _score_scale(score_scale, largest))
    raise TypeError(f"expected TreeTables or AdditiveTables, got {type(tables).__name__}")


def _score_scale(requested, largest: float) -> int:
    """The fixed-point scale: ``requested``, or for ``"auto"`` the largest power of ten up to
    ``10^MAX_DECIMALS`` under which scores up to ``largest`` in absolute value fit in int64."""
    fits = (lambda scale: largest * scale + 1 <= _INT_LIMIT)  # + 1: rounding of each table entry
    if isinstance(requested, str):
        if requested != "auto":
            raise ValueError(f"score_scale must be 'auto' or a positive integer, got {requested!r}")
        scale = next((10 ** k for k in range(MAX_DECIMALS, -1, -1) if fits(10 ** k)), None)
        if scale is None:
            raise ValueError(f"scores up to {largest:.3g} overflow 64-bit integers even at score_scale 1")
        return scale
    scale = int(requested)
    if scale < 1:
        raise ValueError(f"score_scale must be a positive integer, got {scale}")
    if not fits(scale):
        raise ValueError(f"score_scale {scale} overflows 64-bit integers on scores up to {largest:.3g}; "
                         f"use at most {int(_INT_LIMIT // max(largest, 1.0)):d}, or 'auto'")
    return scale


def _quantize_tree(tables: TreeTables, feature_scales, score_scale: int) -> IntegerTree:
    internal = tables.left != -1
    splits = {j: tables.threshold[internal & (tables.feature == j)] for j in range(tables.n_features)}
    # What x <= t means for a float64 x (scikit-learn compares float32(x)): a power-of-two scale holds it exactly.
    exact_edges = np.asarray([float32_threshold(t) for t in tables.threshold])
    binary_edges = {j: exact_edges[internal & (tables.feature == j)] for j in range(tables.n_features)}
    scales, exactness = _feature_scales(feature_scales, tables.n_features, splits, {}, binary_edges, FLOAT32_NOISE)
    kind = np.asarray(exactness)[tables.feature]
    scale = scales[tables.feature]
    floor = np.floor(_scaled(np.where(kind == EXACT_EDGES, exact_edges, tables.threshold), scale))
    # The float tree tests float32(m / scale) <= t. A split between two float32 neighbours of one decimal
    # (diamonds: 4.7999997 and float32(4.8)) puts t within noise of m: take the largest m that passes.
    agreeing = _agreeing_edge(floor, lambda m: (m / scale).astype(np.float32) <= tables.threshold, step=1)
    thresholds = _to_int(np.where(kind == EXACT_ON_MULTIPLES, agreeing, floor))
    thresholds[~internal] = _INT64_MAX
    leaf_values = None if tables.is_classifier else _fixed_point(tables.leaf_values[:, 0], score_scale)
    return IntegerTree(tables=tables, feature_scales=scales, score_scale=score_scale, exactness=exactness,
                       thresholds=thresholds, leaf_values=leaf_values)


def _quantize_additive(tables: AdditiveTables, feature_scales, score_scale: int) -> IntegerAdditive:
    splits: dict[int, list] = {}
    categories: dict[int, list] = {}
    for binning in tables.binnings:
        if binning.is_categorical and binning.feature not in tables.vocabularies:
            categories.setdefault(binning.feature, []).append(binning.categories)
        elif not binning.is_categorical:
            splits.setdefault(binning.feature, []).append(binning.cuts)
    edges = {j: np.concatenate(v) for j, v in splits.items()}
    values = {j: np.concatenate(v) for j, v in categories.items()}
    binary_edges = {j: np.concatenate([edges.get(j, np.empty(0)), values.get(j, np.empty(0))])
                    for j in set(edges) | set(values)}
    scales, exactness = _feature_scales(feature_scales, tables.n_features, edges, values, binary_edges, FLOAT64_NOISE)
    binnings = []
    for binning in tables.binnings:
        scale = scales[binning.feature]
        if binning.cuts is not None:
            ceiling = np.ceil(_scaled(binning.cuts, scale))
            if exactness[binning.feature] == EXACT_ON_MULTIPLES:
                # The float model bins m / scale past a cut c when m / scale >= c. A cut within noise of a data
                # value (the midpoint (4.7 + 4.9) / 2 = 4.800000000000001) bins 4.8 below: take the smallest m
                # that passes.
                ceiling = _agreeing_edge(ceiling, lambda m: m / scale >= binning.cuts, step=-1)
            binnings.append(Binning(binning.feature, binning.n_bins, cuts=_to_int(ceiling)))
        else:
            binnings.append(Binning(binning.feature, binning.n_bins,
                                    categories=_to_int(np.rint(_scaled(binning.categories, scale))),
                                    category_bins=binning.category_bins))
    return IntegerAdditive(
        tables=tables, feature_scales=scales, score_scale=score_scale, exactness=exactness, binnings=binnings,
        scores=[_fixed_point(term.scores, score_scale) for term in tables.terms],
        intercept=_fixed_point(tables.intercept, score_scale),
    )


def _agreeing_edge(edge: np.ndarray, passes, step: int) -> np.ndarray:
    """Integer edges that put every multiple m on the side the float model puts m / scale.

    ``edge`` is the scaled edge rounded (floor for a tree's ``<=``, ceiling for a cut's ``>=``), right
    unless the float edge lies within noise of an integer; ``passes(m)`` is the float model's own test.
    The answer is ``edge + step`` if it passes, else ``edge`` if it passes, else ``edge - step``
    (``step=1``: the largest passing m, for a tree; ``step=-1``: the smallest, for a cut).
    """
    with np.errstate(invalid="ignore", over="ignore"):  # infinite edges stay infinite
        return np.where(passes(edge + step), edge + step, np.where(passes(edge), edge, edge - step))


def _feature_scales(requested, n_features: int, splits: dict, categories: dict, binary_edges: dict,
                    noise: float) -> tuple[np.ndarray, list[str]]:
    """Scales and how exact each keeps the model; ``binary_edges`` are what a power of two must hold,
    ``noise`` the relative error up to which a scaled split still counts as a multiple of 1/2."""
    if isinstance(requested, str):
        if requested != "auto":
            raise ValueError(f"feature_scales must be 'auto', an int or one int per feature, got {requested!r}")
        chosen = [_auto_scale(splits.get(j), categories.get(j), binary_edges.get(j), noise) for j in range(n_features)]
        # float64 holds every auto scale exactly (10^k up to 10^6, 2^k beyond int64's range).
        return np.asarray([scale for scale, _ in chosen], dtype=np.float64), [kind for _, kind in chosen]
    scales = np.broadcast_to(np.asarray(requested), (n_features,)) if np.ndim(requested) == 0 else np.asarray(requested)
    if scales.shape != (n_features,):
        raise ValueError(f"feature_scales has {scales.size} entries, the model has {n_features} features")
    if not np.all(np.equal(np.mod(scales, 1), 0)) or np.any(scales < 1):
        raise ValueError(f"feature_scales must be positive integers, got {list(scales)}")
    # A scale the caller chose is exact on multiples of 1/scale only when it holds every edge as the auto rule would.
    exactness = [EXACT_ON_MULTIPLES if _holds(splits.get(j), categories.get(j), int(s), noise) else NOT_EXACT
                 for j, s in enumerate(scales)]
    return scales.astype(np.float64), exactness


def _auto_scale(splits, categories, binary_edges, noise: float) -> tuple[int, str]:
    """Smallest 10^k (k ≤ MAX_DECIMALS) making splits multiples of 1/2 and categories integers;
    else the power of two that holds every edge exactly (module docstring)."""
    for k in range(MAX_DECIMALS + 1):
        if _holds(splits, categories, 10 ** k, noise):
            return 10 ** k, EXACT_ON_MULTIPLES
    edges = np.asarray([] if binary_edges is None else binary_edges, dtype=np.float64)
    edges = edges[np.isfinite(edges)]
    # With 2^k at least 1 / (gap from an edge to the double below it), every edge is an integer after
    # scaling and every other double lands at least 1 away from it, so round(x · 2^k) keeps its side.
    gaps = edges - np.nextafter(edges, -np.inf)
    needed = int(np.max(-np.log2(gaps), initial=0))  # gaps are powers of two: exact
    exponents = np.frexp(edges[edges != 0])[1]  # |edge| < 2^exponent
    room = MAX_BINARY_EXPONENT - (int(exponents.max()) if len(exponents) else 0)  # |edge| · 2^k below 2^62
    k = max(0, min(needed, room))
    return 2 ** k, EXACT_EDGES if needed <= room else NOT_EXACT


def _holds(splits, categories, scale: int, noise: float) -> bool:
    """Whether ``scale`` makes splits multiples of 1/2 and categories integers."""
    splits = np.asarray([] if splits is None else splits, dtype=np.float64)
    categories = np.asarray([] if categories is None else categories, dtype=np.float64)
    splits, categories = splits[np.isfinite(splits)], categories[np.isfinite(categories)]
    return _near_integers(2 * splits * scale, noise) and _near_integers(categories * scale, noise)


def _scaled(values: np.ndarray, scale) -> np.ndarray:
    """``values · scale`` with products that are half-integers up to float noise snapped onto them
    (``0.3 · 10`` is ``3.0000000000000004``, whose ceiling would move the edge a whole unit)."""
    product = np.asarray(values, dtype=np.float64) * scale
    halves = np.rint(2 * product) / 2
    with np.errstate(invalid="ignore"):  # infinite products stay as they are
        close = np.abs(product - halves) <= 1e-9 * np.maximum(1.0, np.abs(product))
    return np.where(close, halves, product)


def _near_integers(values: np.ndarray, noise: float) -> bool:
    return bool(np.all(np.abs(values - np.rint(values)) <= noise * np.maximum(1.0, np.abs(values))))


def _to_int(values: np.ndarray) -> np.ndarray:
    out = np.clip(values, -_INT_LIMIT, _INT_LIMIT).astype(np.int64)
    out[values >= _INT_LIMIT] = _INT64_MAX
    out[values <= -_INT_LIMIT] = INT_MISSING + 1  # below every input, yet not the missing marker
    return out


def _fixed_point(values: np.ndarray, score_scale: int) -> np.ndarray:
    return np.rint(np.asarray(values, dtype=np.float64) * score_scale).astype(np.int64)
