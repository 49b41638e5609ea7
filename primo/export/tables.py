"""Language-neutral tables of a fitted model: what every exporter (C, JavaScript, ONNX, Python) reads.

A PrDT becomes a :class:`TreeTables` (scikit-learn's node arrays plus leaf tables); a PrAM becomes an
:class:`AdditiveTables` (one :class:`Binning` per feature and binning level, one :class:`Term` per shape
function or pair). Both evaluate themselves with NumPy, which is the reference the exporters are tested
against and, with integer tables, the simulation behind the integer-mode report
(:mod:`primo.export.quantize`).

Input convention shared by all exports: one row is a vector of numbers, one per feature, in the
model's feature order. NaN means missing. A categorical feature whose categories are all numbers
(e.g. ``io_type`` 0/1) takes the number itself; a categorical feature with text categories takes the
category's *code*, its position in the tables' ``vocabularies`` (:func:`encode_categories` turns a
DataFrame into such rows). Booleans are 0/1.

**Unseen categories** (text not in the vocabulary) follow one rule per family, the same in Python,
ONNX, C, JavaScript, JSON and the compiled Python: a **PrDT** treats them as **missing** (code NaN;
they take each node's learned missing-value branch), a **PrAM** gives them code **-1**, which lands
in interpret's *unseen* bin (its score is 0). :func:`encode_categories` applies this rule.

Example
-------
>>> tables = model_tables(model)  # doctest: +SKIP
>>> np.array_equal(tables.predict(X), model.predict(X))  # doctest: +SKIP
True
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
import pandas as pd

from primo.errors import ColumnMismatchError
from primo.models._base import check_is_fitted
from primo.models.encoding import as_text, frame_from_arrow

#: The integer that stands for a missing value in integer mode (C: ``INT64_MIN``).
INT_MISSING = np.iinfo(np.int64).min
#: Relative precision to which two computations of one prediction agree (float64 sums of the same scores
#: in another order, or a fixed-point score scaled back): a target of 1e15 carries rounding beyond 1e-9.
RELATIVE_TOLERANCE = 1e-12

_SUPPORTED_LINKS = ("identity", "logit", "mlogit")


def _is_missing(column: np.ndarray) -> np.ndarray:
    if column.dtype.kind == "f":
        return np.isnan(column)
    return column == INT_MISSING


# --------------------------------------------------------------------------- PrDT


@dataclass(frozen=True)
class TreeTables:
    """A fitted PrDT as flat arrays (node ``i`` is a leaf when ``left[i] == -1``).

    Routing follows scikit-learn: a row goes left when ``float32(x[feature]) <= threshold``; a missing
    value goes left when ``missing_left`` is true. ``leaf_index`` numbers the leaves 0..n_leaves-1 in
    node order; ``leaf_values`` holds class probabilities (classifiers) or the predicted value
    (regressors) of each leaf, ``leaf_labels`` the index into ``classes`` of its predicted class.
    ``vocabularies`` maps each text-categorical feature to its categories in code order (code ``i``
    is ``vocabularies[feature][i]``; PrDT orders them by the target statistic, see
    :mod:`primo.models.encoding`); an unseen category is missing (NaN). ``fit_with_names`` says whether
    ``feature_names`` are the columns the model was fit on (see :func:`encode_categories`).
    """

    feature_names: list[str]
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    missing_left: np.ndarray
    leaf_index: np.ndarray
    leaf_values: np.ndarray
    leaf_labels: np.ndarray | None
    classes: np.ndarray | None
    vocabularies: dict[int, list[str]] = field(default_factory=dict)
    fit_with_names: bool = True

    @property
    def is_classifier(self) -> bool:
        return self.classes is not None

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    def apply(self, X, threshold=None) -> np.ndarray:
        """Leaf number (0..n_leaves-1) of each row; ``threshold`` replaces the node thresholds (integer mode)."""
        X = np.asarray(X)
        if X.dtype.kind == "f":  # scikit-learn compares float32 inputs with float64 thresholds
            X = X.astype(np.float32).astype(np.float64)
        threshold = self.threshold if threshold is None else threshold
        node = np.zeros(len(X), dtype=np.intp)
        active = self.left[node] != -1
        while active.any():
            rows = np.flatnonzero(active)
            current = node[rows]
            values = X[rows, self.feature[current]]
            go_left = np.where(_is_missing(values), self.missing_left[current], values <= threshold[current])
            node[rows] = np.where(go_left, self.left[current], self.right[current])
            active[rows] = self.left[node[rows]] != -1
        return self.leaf_index[node]

    def predict(self, X) -> np.ndarray:
        leaves = self.apply(X)
        if self.is_classifier:
            return self.classes[self.leaf_labels[leaves]]
        return self.leaf_values[leaves, 0]

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities of each row's leaf (columns in the order of ``classes``)."""
        if not self.is_classifier:
            raise ValueError("predict_proba needs a classifier; these are a regressor's tables")
        return self.leaf_values[self.apply(X)]


def tree_tables(model) -> TreeTables:
    """The :class:`TreeTables` of a fitted PrDT (or any single-output scikit-learn decision tree)."""
    check_is_fitted(model)
    tree = model.tree_
    return _tree_tables(
        left=tree.children_left, right=tree.children_right, feature=tree.feature, threshold=tree.threshold,
        missing_left=tree.missing_go_to_left, value=tree.value, classes=getattr(model, "classes_", None),
        feature_names=_feature_names(model), vocabularies=getattr(model, "categories_", {}),
        fit_with_names=getattr(model, "feature_names_in_", None) is not None)


def _tree_tables(*, left, right, feature, threshold, missing_left, value, classes, feature_names,
                 vocabularies, fit_with_names) -> TreeTables:
    """:class:`TreeTables` from scikit-learn's node arrays (``value``: node × output × class)."""
    if value.shape[1] != 1:
        raise ValueError(f"cannot export a tree with {value.shape[1]} outputs; only single-output trees are supported")
    left = np.asarray(left, dtype=np.intp)
    is_leaf = left == -1
    leaf_index = np.full(len(left), -1, dtype=np.intp)
    leaf_index[is_leaf] = np.arange(is_leaf.sum())
    values = value[is_leaf, 0, :]
    if classes is not None:
        # scikit-learn (>= 1.4) stores class fractions and predict_proba returns them as they are:
        # renormalising here would move the last bit of a quarter of the probabilities.
        labels = np.argmax(values, axis=1)
    else:
        labels = None
    return TreeTables(
        feature_names=feature_names,
        feature=np.where(is_leaf, 0, feature).astype(np.intp),
        threshold=np.asarray(threshold, dtype=np.float64),
        left=left,
        right=np.asarray(right, dtype=np.intp),
        missing_left=np.asarray(missing_left).astype(bool),
        leaf_index=leaf_index,
        leaf_values=values.astype(np.float64),
        leaf_labels=labels,
        classes=None if classes is None else np.asarray(classes),
        vocabularies={int(j): list(v) for j, v in vocabularies.items()},
        fit_with_names=fit_with_names,
    )


# --------------------------------------------------------------------------- PrAM


@dataclass(frozen=True)
class Binning:
    """How one feature is cut into bins at one level (level 0 for main terms, 1 for pairs).

    Bin 0 holds missing values and bin ``n_bins - 1`` unseen values (interpret's layout).
    Continuous: ``cuts`` is sorted and a value ``x`` falls in bin ``1 + #{cuts <= x}``.
    Categorical: ``categories`` is sorted and a value equal to ``categories[i]`` falls in
    ``category_bins[i]``; any other value is unseen.
    """

    feature: int
    n_bins: int
    cuts: np.ndarray | None = None
    categories: np.ndarray | None = None
    category_bins: np.ndarray | None = None

    @property
    def is_categorical(self) -> bool:
        return self.categories is not None

    def lookup(self, column: np.ndarray) -> np.ndarray:
        """Bin index of each value of ``column`` (float with NaN, or int64 with :data:`INT_MISSING`)."""
        missing = _is_missing(column)
        if self.is_categorical:
            position = np.searchsorted(self.categories, column, side="left")
            found = position < len(self.categories)
            found[found] = self.categories[position[found]] == column[found]
            bins = np.full(len(column), self.n_bins - 1, dtype=np.intp)
            bins[found] = self.category_bins[position[found]]
        else:
            bins = 1 + np.searchsorted(self.cuts, column, side="right")
        bins[missing] = 0
        return bins


@dataclass(frozen=True)
class SharedBinning:
    """One feature binned **once** for every binning of it (interpret bins main terms and pairs apart).

    ``binning`` cuts the feature at the union of its binnings' edges (or categories); for each of
    its binnings ``b``, ``level_bins[b][s]`` is the bin of ``b`` that shared bin ``s`` lies in (shared
    bin 0 is missing, the last one unseen). Batch predictors look every feature up once and gather
    each term's bins from these small maps.
    """

    binning: Binning
    level_bins: dict[int, np.ndarray]


def share_binnings(binnings: list[Binning], terms: list[Term] | None = None,
                   scores: list[np.ndarray] | None = None) -> list[SharedBinning]:
    """One :class:`SharedBinning` per feature that ``binnings`` cut, in feature order.

    Given the ``terms`` (and their ``scores``, by default the terms' own), a continuous feature also
    loses every cut across which no term that reads it changes its score (simplified models have
    many: equal neighbouring bins): the same predictions from a shallower search. Shared bins then
    stand for runs of the union's bins, so ``level_bins`` gives one bin of each run, which scores
    like all the others.

    Example
    -------
    >>> fine = Binning(feature=0, n_bins=5, cuts=np.array([1.0, 2.0]))
    >>> coarse = Binning(feature=0, n_bins=4, cuts=np.array([2.0]))
    >>> shared = share_binnings([fine, coarse])[0]
    >>> shared.level_bins[1].tolist()  # shared bins: missing, <1, [1, 2), >=2, unseen
    [0, 1, 1, 2, 3]
    """
    by_feature: dict[int, list[int]] = {}
    for index, binning in enumerate(binnings):
        by_feature.setdefault(binning.feature, []).append(index)
    shared = []
    for feature in sorted(by_feature):
        members = by_feature[feature]
        if binnings[members[0]].is_categorical:
            values = np.unique(np.concatenate([binnings[b].categories for b in members]))
            union = Binning(feature=feature, n_bins=len(values) + 2, categories=values,
                            category_bins=np.arange(1, len(values) + 1, dtype=np.intp))
            # A shared bin's value is its category; missing (0) and unseen stay missing and unseen.
            representatives = np.r_[np.nan, values, np.nan]
        else:
            cuts = np.unique(np.concatenate([binnings[b].cuts for b in members]))
            union = Binning(feature=feature, n_bins=len(cuts) + 3, cuts=cuts)
            # Shared bin s >= 2 starts at cuts[s - 2]; bin 1 lies below every cut.
            representatives = np.r_[np.nan, -np.inf, cuts, np.nan]
        level_bins = {}
        for b in members:
            mapped = binnings[b].lookup(representatives)
            mapped[-1] = binnings[b].n_bins - 1
            level_bins[b] = mapped
        shared.append(SharedBinning(binning=union, level_bins=level_bins))
    if terms is not None:
        tables = [term.scores for term in terms] if scores is None else scores
        shared = [one if one.binning.is_categorical else _without_silent_cuts(one, terms, tables) for one in shared]
    return shared


def _without_silent_cuts(shared: SharedBinning, terms: list[Term], scores: list[np.ndarray]) -> SharedBinning:
    """``shared`` without the cuts across which every term reading the feature scores the same."""
    cuts = shared.binning.cuts
    needed = np.zeros(len(cuts), dtype=bool)  # cut j separates shared bins j + 1 and j + 2
    for term, table in zip(terms, scores):
        for axis, b in enumerate(term.binnings):
            if b not in shared.level_bins:
                continue
            level = shared.level_bins[b]
            rows = np.moveaxis(table, axis, 0).reshape(table.shape[axis], -1)
            below, above = level[1:len(cuts) + 1], level[2:len(cuts) + 2]
            needed |= (below != above) & np.any(rows[below] != rows[above], axis=1)
    if needed.all():
        return shared
    kept = np.flatnonzero(needed)
    # Each new bin's first union bin: missing, the bin below every cut, one per kept cut, unseen.
    first = np.r_[0, 1, kept + 2, len(cuts) + 2]
    binning = Binning(feature=shared.binning.feature, n_bins=len(kept) + 3, cuts=cuts[kept])
    return SharedBinning(binning=binning, level_bins={b: level[first] for b, level in shared.level_bins.items()})


@dataclass(frozen=True)
class Term:
    """One shape function (one binning) or pair (two binnings) with its score table.

    ``scores`` has one axis per binning, indexed by bin, and a last axis of length ``n_scores``.
    """

    name: str
    binnings: tuple[int, ...]
    scores: np.ndarray

    def strides(self, binnings: list[Binning]) -> list[tuple[int, int]]:
        """``(binning, stride)`` pairs of the term's row-major index: ``index = Σ bin[b] · stride``.

        Example
        -------
        >>> pair = Term("a & b", (0, 1), np.zeros((4, 5, 1)))
        >>> pair.strides([Binning(0, 4), Binning(1, 5)])
        [(0, 5), (1, 1)]
        """
        strides = np.cumprod([1] + [binnings[b].n_bins for b in reversed(self.binnings[1:])])[::-1]
        return [(b, int(stride)) for b, stride in zip(self.binnings, strides)]


#: :func:`fold_main_terms` keeps every term's table within this many entries (x scores): 128 KiB of float64.
FOLD_MAX_ENTRIES = 2 ** 14


def fold_main_terms(binnings: list[Binning], terms: list[Term],
                    max_entries: int = FOLD_MAX_ENTRIES) -> tuple[list[Binning], list[Term]]:
    """The same score sum with fewer terms: main terms added into pair tables that read their feature.

    A batch predictor pays per term (ONNX: two index lookups and one score lookup each), so a
    main term of feature ``a`` and a pair ``(a, b)`` become one table over ``a``'s two binnings merged
    (:func:`share_binnings`) and ``b``'s pair bins: ``table[s, j] = main[level_main[s]] + pair[level_pair[s], j]``.
    Each main term folds into at most one pair, and only while that table stays within ``max_entries``
    scores per output (the gathers then stay in cache). Sums equal the unfolded ones up to float64
    rounding (one addition moves). Returns ``(binnings, terms)``: the merged binnings are appended, the
    folded main terms dropped, the pairs keep their names.

    Example
    -------
    >>> binnings = [Binning(0, 4, cuts=np.array([1.0, 2.0])), Binning(0, 3, cuts=np.array([1.5])), Binning(1, 3, cuts=np.array([0.0]))]
    >>> main, pair = Term("a", (0,), np.arange(4.0)[:, None]), Term("a & b", (1, 2), np.zeros((3, 3, 1)))
    >>> new_binnings, new_terms = fold_main_terms(binnings, [main, pair])
    >>> [t.name for t in new_terms], new_terms[0].scores.shape
    (['a & b'], (6, 3, 1))
    """
    binnings = list(binnings)
    main_of = {binnings[term.binnings[0]].feature: i for i, term in enumerate(terms) if len(term.binnings) == 1}
    folded: set[int] = set()
    pairs: dict[int, Term] = {}
    for i, term in enumerate(terms):
        if len(term.binnings) != 2:
            continue
        for axis, b in enumerate(term.binnings):
            m = main_of.get(binnings[b].feature)
            if m is None or m in folded:
                continue
            shared = share_binnings([binnings[terms[m].binnings[0]], binnings[b]])[0]
            if shared.binning.n_bins * term.scores.shape[1 - axis] > max_entries:
                continue
            # the pair's scores along the merged bins of this axis, plus the main term's
            along = np.moveaxis(term.scores, axis, 0)[shared.level_bins[1]]
            along = along + terms[m].scores[shared.level_bins[0]][:, np.newaxis, :]
            axes = list(term.binnings)
            axes[axis] = len(binnings)
            binnings.append(shared.binning)
            pairs[i] = Term(term.name, tuple(axes), np.ascontiguousarray(np.moveaxis(along, 0, axis)))
            folded.add(m)
            break
    return binnings, [pairs.get(i, term) for i, term in enumerate(terms) if i not in folded]


@dataclass(frozen=True)
class AdditiveTables:
    """A fitted PrAM as bin tables: score = intercept + Σ terms, then the inverse ``link``.

    ``link`` is ``"identity"`` (regression), ``"logit"`` (binary: one score, the log-odds of
    ``classes[1]``) or ``"mlogit"`` (multiclass: one score per class, softmax).
    ``vocabularies`` maps each text-categorical feature to its categories; code ``i`` is
    ``vocabularies[feature][i]``; an unseen category has code -1 (interpret's unseen bin).
    ``fit_with_names`` says whether ``feature_names`` are the columns the model was fit on (False: interpret's
    ``feature_0000``… of a PrAM fit on an array; see :func:`encode_categories`).
    """

    feature_names: list[str]
    binnings: list[Binning]
    terms: list[Term]
    intercept: np.ndarray
    link: str
    classes: np.ndarray | None
    vocabularies: dict[int, list[str]]
    fit_with_names: bool = True

    @property
    def n_scores(self) -> int:
        return len(self.intercept)

    @property
    def is_classifier(self) -> bool:
        return self.classes is not None

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @functools.cached_property
    def shared_binnings(self) -> list[SharedBinning]:
        """Each feature's binnings merged into one lookup (:func:`share_binnings`)."""
        return share_binnings(self.binnings)

    def bins(self, X) -> list[np.ndarray]:
        """Bin index of every row for every binning; each feature is looked up once."""
        X = np.asarray(X)
        bins: list[np.ndarray] = [None] * len(self.binnings)  # type: ignore[list-item]
        for shared in self.shared_binnings:
            shared_bins = shared.binning.lookup(X[:, shared.binning.feature])
            for b, level_bins in shared.level_bins.items():
                bins[b] = level_bins[shared_bins]
        return bins

    def decision_function(self, X) -> np.ndarray:
        """Raw scores, shape (n_rows, n_scores)."""
        bins = self.bins(X)
        scores = np.tile(self.intercept, (len(bins[0]) if bins else np.asarray(X).shape[0], 1))
        for term in self.terms:
            scores += term.scores[tuple(bins[b] for b in term.binnings)]
        return scores

    def predict(self, X) -> np.ndarray:
        scores = self.decision_function(X)
        if not self.is_classifier:
            return scores[:, 0]
        return self.classes[class_index(scores)]

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (columns in the order of ``classes``), computed as interpret does.

        The same operations in the same order as interpret's inverse link; interpret's exponential is its
        own native one, so a probability may differ from interpret's in the last bit or two.

        Example
        -------
        >>> tables.predict_proba(rows)  # doctest: +SKIP
        array([[0.93, 0.07], ...])
        """
        if not self.is_classifier:
            raise ValueError("predict_proba needs a classifier; these are a regressor's tables")
        scores = self.decision_function(X)
        with np.errstate(over="ignore", invalid="ignore"):  # +inf exponentials are mapped to 1 below
            if scores.shape[1] == 1:
                odds = np.exp(scores)
                positive = odds / (odds + 1.0)
                positive[np.isposinf(odds)] = 1.0
                return np.c_[1.0 - positive, positive]
            weights = np.exp(scores - scores.max(axis=1, keepdims=True))
            return weights / weights.sum(axis=1, keepdims=True)


def class_index(scores: np.ndarray) -> np.ndarray:
    """Predicted class index from raw scores: log-odds > 0 (binary) or the first largest score."""
    if scores.shape[1] == 1:
        return (scores[:, 0] > 0).astype(np.intp)
    return np.argmax(scores, axis=1)


def additive_tables(model) -> AdditiveTables:
    """The :class:`AdditiveTables` of a fitted PrAM (or interpret EBM)."""
    check_is_fitted(model)
    if hasattr(model, "ebm_"):  # a PrAM: its EBM has interpret's generated names when it was fit on an array
        return _additive_tables(model.ebm_, fit_with_names=getattr(model, "feature_names_in_", None) is not None)
    return _additive_tables(model, fit_with_names=True)


def _additive_tables(ebm, *, fit_with_names: bool) -> AdditiveTables:
    """:class:`AdditiveTables` from an EBM's fitted attributes (an EBM, or a namespace of its saved ones)."""
    link = str(ebm.link_)
    if link not in _SUPPORTED_LINKS:
        raise ValueError(f"cannot export an EBM with link {link!r}; supported links: {', '.join(_SUPPORTED_LINKS)}")
    vocabularies: dict[int, list[str]] = {}
    binnings: list[Binning] = []
    binning_of: dict[tuple[int, int], int] = {}

    def binning_index(feature: int, n_term_features: int) -> int:
        levels = ebm.bins_[feature]
        level = min(len(levels), n_term_features) - 1
        if (feature, level) not in binning_of:
            binning_of[(feature, level)] = len(binnings)
            binnings.append(_binning(feature, levels, level, vocabularies))
        return binning_of[(feature, level)]

    terms = []
    for name, features, scores in zip(ebm.term_names_, ebm.term_features_, ebm.term_scores_):
        indices = tuple(binning_index(f, len(features)) for f in features)
        scores = np.asarray(scores, dtype=np.float64)
        if scores.ndim == len(features):
            scores = scores[..., np.newaxis]
        expected = tuple(binnings[i].n_bins for i in indices)
        if scores.shape[:-1] != expected:
            raise ValueError(f"term {name!r}: score table of shape {scores.shape} does not match its bins {expected}")
        terms.append(Term(name=str(name), binnings=indices, scores=scores))
    for feature, levels in enumerate(ebm.bins_):
        # A text feature no term reads (max_terms dropped them) still arrives as text: it needs its codes.
        if feature not in vocabularies and isinstance(levels[0], dict) and _numeric_keys(levels[0]) is None:
            _vocabulary(feature, levels, vocabularies)
    classes = getattr(ebm, "classes_", None)
    return AdditiveTables(
        feature_names=[str(n) for n in ebm.feature_names_in_],
        binnings=binnings,
        terms=terms,
        intercept=np.atleast_1d(np.asarray(ebm.intercept_, dtype=np.float64)).copy(),
        link=link,
        classes=None if classes is None else np.asarray(classes),
        vocabularies=vocabularies,
        fit_with_names=fit_with_names,
    )


def _binning(feature: int, levels: list, level: int, vocabularies: dict[int, list[str]]) -> Binning:
    spec = levels[level]
    if not isinstance(spec, dict):
        cuts = np.ascontiguousarray(spec, dtype=np.float64)
        return Binning(feature=feature, n_bins=len(cuts) + 3, cuts=cuts)
    n_bins = 2 if not spec else max(spec.values()) + 2
    numbers = _numeric_keys(spec)
    if numbers is not None:
        values = np.asarray(numbers, dtype=np.float64)
    else:
        position = {key: i for i, key in enumerate(_vocabulary(feature, levels, vocabularies))}
        values = np.asarray([position[key] for key in spec], dtype=np.float64)
    bins = np.asarray(list(spec.values()), dtype=np.intp)
    order = np.argsort(values, kind="stable")
    values, bins = values[order], bins[order]
    keep = np.r_[True, values[1:] != values[:-1]]  # '1' and '1.0' cannot both be meant
    return Binning(feature=feature, n_bins=n_bins, categories=values[keep], category_bins=bins[keep])


def _numeric_keys(spec: dict) -> list[float] | None:
    """The categories of a level as numbers, or None when one of them is text."""
    numbers = [_as_number(key) for key in spec]
    return numbers if all(n is not None for n in numbers) else None


def _vocabulary(feature: int, levels: list, vocabularies: dict[int, list[str]]) -> list[str]:
    """A text feature's vocabulary, registered in ``vocabularies``: text categories are passed as codes, the
    position in the union of all levels' categories in level-0 order, so every level reads the same code."""
    vocabulary = vocabularies.setdefault(feature, [])
    known = set(vocabulary)
    for level_spec in levels:
        for key in level_spec:
            if key not in known:
                vocabulary.append(key)
                known.add(key)
    return vocabulary


def _as_number(key: str) -> float | None:
    try:
        value = float(key)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


# --------------------------------------------------------------------------- shared


def _feature_names(model) -> list[str]:
    names = getattr(model, "feature_names_", None)
    if names is not None:
        return list(names)
    known = getattr(model, "feature_names_in_", None)
    if known is not None:
        return [str(n) for n in known]
    return [f"x{i}" for i in range(model.n_features_in_)]


def model_tables(model) -> TreeTables | AdditiveTables:
    """Tables of a fitted Primo model: :class:`TreeTables` for PrDT, :class:`AdditiveTables` for PrAM.

    Raises
    ------
    TypeError
        For anything else (an auto-selecting ``PrimoClassifier`` exports its ``best_estimator_``).
    """
    if hasattr(model, "tree_"):
        return tree_tables(model)
    if hasattr(model, "ebm_") or hasattr(model, "term_scores_"):
        return additive_tables(model)
    if hasattr(model, "best_estimator_"):
        raise TypeError(f"{type(model).__name__} selects a model: export its best_estimator_")
    raise TypeError(f"cannot export {type(model).__name__}: expected a fitted PrDT or PrAM model")


def state_tables(model_class: str, state: dict) -> TreeTables | AdditiveTables:
    """Tables of a saved model from its ``model_class`` and decoded ``state`` (:mod:`primo.io`), without
    building its scikit-learn or interpret estimator.

    ``state`` must have passed :func:`primo.validation.validate_state` (``building_estimator=False``
    is enough). A tree with several outputs raises ``ValueError``, as :func:`tree_tables` does.

    Example
    -------
    >>> document, arrays = primo.io.read_document("model.primo")  # doctest: +SKIP
    >>> tables = state_tables(document["model_class"], primo.io.decode_tree(document["state"], arrays))  # doctest: +SKIP
    """
    if model_class.startswith("PrAM"):
        return _additive_tables(SimpleNamespace(**state["ebm_"]["fitted"]),
                                fit_with_names=state.get("feature_names_in_") is not None)
    tree, names = state["tree_"], state.get("feature_names_in_")
    nodes = tree["nodes"]
    return _tree_tables(
        left=nodes["left_child"], right=nodes["right_child"], feature=nodes["feature"], threshold=nodes["threshold"],
        missing_left=nodes["missing_go_to_left"], value=tree["values"], classes=state.get("classes_"),
        feature_names=[f"x{i}" for i in range(state["n_features_in_"])] if names is None else [str(n) for n in names],
        vocabularies=state.get("categories_", {}), fit_with_names=names is not None)


def encode_categories(tables: TreeTables | AdditiveTables, X) -> np.ndarray:
    """The numeric rows exports take: text categories replaced by their codes, missing by NaN.

    Parameters
    ----------
    tables : the model's tables (:func:`model_tables`).
    X : array or DataFrame with the model's features, in its feature order. DataFrames and Arrow tables
        such as polars or pyarrow are read by name (as text, in any order; extra columns are ignored) when
        the model was fit on named columns: a missing feature is a
        :class:`~primo.errors.ColumnMismatchError` naming it and the columns it does not know. Input
        without names, and any table for a model fit on an array, is read by position.

    Unseen text categories become NaN (missing) for a PrDT and -1 (the unseen bin) for a PrAM, the
    rule every export follows (module docstring); booleans become 0/1; numeric columns are taken as
    they are (so rows that are already encoded stay unchanged).

    Example
    -------
    >>> rows = encode_categories(model_tables(model), X_test)  # doctest: +SKIP
    """
    # The rows every export check reads (integer_c's check_data, verify_export): an Arrow table by name.
    X = frame_from_arrow(X)
    if isinstance(X, pd.DataFrame) and tables.fit_with_names:
        # By name only: columns of the right count under other names are not the model's features.
        position = {}
        for i, column in enumerate(X.columns):
            position.setdefault(str(column), i)  # names as text, as the models match them
        missing = [n for n in tables.feature_names if n not in position]
        if missing:
            known = set(tables.feature_names)
            unexpected = [str(c) for c in X.columns if str(c) not in known]
            raise ColumnMismatchError(
                f"X lacks the model's features {missing}; columns it does not know: {unexpected or 'none'} "
                "(columns are matched by name, in any order)", argument="X", column=missing[0])
        columns = [X.iloc[:, position[name]] for name in tables.feature_names]
    elif isinstance(X, pd.DataFrame):  # a model fit on an array reads a table's columns by position
        if X.shape[1] != tables.n_features:
            raise ColumnMismatchError(f"expected rows of {tables.n_features} features, got a table of "
                                      f"{X.shape[1]} columns", argument="X")
        columns = [X.iloc[:, i] for i in range(X.shape[1])]
    else:
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != tables.n_features:
            raise ValueError(f"expected rows of {tables.n_features} features, got an array of shape {X.shape}")
        columns = [X[:, i] for i in range(X.shape[1])]
    unseen = np.nan if isinstance(tables, TreeTables) else -1.0
    out = np.empty((len(columns[0]) if columns else 0, len(columns)), dtype=np.float64)
    for i, column in enumerate(columns):
        values = pd.Series(column, copy=False)
        if values.dtype == object:
            values = values.infer_objects()  # an object array's numeric columns are codes already
        if i in tables.vocabularies and not pd.api.types.is_numeric_dtype(values):
            codes = pd.Index(tables.vocabularies[i], dtype=object).get_indexer(as_text(values)).astype(np.float64)
            codes[codes < 0] = unseen
            codes[values.isna().to_numpy()] = np.nan
            out[:, i] = codes
        else:
            try:
                out[:, i] = pd.to_numeric(values, errors="raise").to_numpy(dtype=np.float64, na_value=np.nan)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"feature {tables.feature_names[i]!r} must be numeric: {exc}") from None
    return out
