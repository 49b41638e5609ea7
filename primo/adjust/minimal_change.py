"""Actionable counterfactuals: the smallest change of x that makes the model itself decide otherwise.

"What is the least I must change, among the features I can change, for this row to be predicted
1?" The answer is searched over the model's own structure, not over other rows:

* **PrDT** — every prediction is a leaf, and a leaf is a box: the path's tests bound each feature
  to an interval (or, for a text feature, a set of categories; missing values follow the path's
  missing-value branches). The change that reaches a leaf with the desired outcome moves exactly
  the features whose test x fails, each to the nearest value inside its interval. Enumerating the
  leaves therefore finds the true minimum (fewest features, then smallest distance, up to rounding
  each new value to a readable number: at most :data:`READABLE_TOLERANCE` of a standard deviation).
* **PrAM** — a prediction only changes where some feature crosses one of its bin boundaries (main
  or pair bins). The candidate moves of a feature are the value nearest to x in each of its bins.
  A beam search evaluates every single move, then extends the ``beam_width`` best partial changes
  (half that raise the desired outcome most — the model's own probability margin, or its distance
  to the desired range — half that raise it most per unit of distance) by one more feature, using
  the moves of distinct effect (of moves giving x the same outcome, the smallest). Every change
  found is then shrunk: each moved feature back to x, or to a bin closer to x, while the outcome
  holds. Beam search is not exhaustive: it finds small changes, not provably the smallest.

Every change respects the reference data: numeric values stay within the observed range (and
stay integers in integer-valued columns), categories are observed ones, and a value is never set
to missing. Only ``mutable`` features move (or all but ``immutable``). Every returned change is
verified by calling the model's own ``predict``. Options are diverse: the first ones change
different sets of features; then the next smallest changes follow.

Distance is that of the nearest-row method (:class:`primo.adjust.CounterfactualIndex`):
Euclidean on numeric features divided by their standard deviation (a missing value counts as the
column mean), a category change counting as one standard deviation.

Example
-------
>>> from sklearn.datasets import load_wine
>>> from primo import PrDTClassifier
>>> from primo.adjust import MinimalChangeSearch
>>> X, y = load_wine(return_X_y=True, as_frame=True)
>>> tree = PrDTClassifier(ccp_alpha=0.01, random_state=0).fit(X, y)
>>> search = MinimalChangeSearch(tree, X, immutable=["magnesium"])
>>> print(search.query(X.iloc[0], desired=1, k=2).summary())
row 0: predicted 0, desired 1; 2 counterfactual(s) (structural) at distance 0.9036–1.201
option 1: flavanoids 3.06 → 2.16
option 2: color_intensity 5.64 → 4.06, proline 1065 → 755
"""
from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from primo.adjust.counterfactual import (
    RESULT_COLUMNS,
    CounterfactualIndex,
    CounterfactualResult,
    DistanceEncoder,
    desired_key,
    feature_frame,
    meets_desired,
    model_input,
    pram_nominal_features,
    term_deltas,
)
from primo.errors import ColumnMismatchError

logger = logging.getLogger(__name__)

#: A moved value is rounded to fewer significant digits when that moves it by at most this fraction
#: of the feature's distance scale (and keeps the same bin or leaf): 2.42 rather than 2.4249999999999994.
READABLE_TOLERANCE = 0.01


class MinimalChangeSearch:
    """The smallest changes of a row that flip a PrDT's or PrAM's decision (see the module docstring).

    Parameters
    ----------
    model : fitted PrDT or PrAM (classifier or regressor; one output).
    reference_X : rows that define the observed ranges, categories and distance scales (e.g. the
        training set).
    mutable, immutable : feature names that may change (default all), or that may not; give one.
    max_changes : PrAM: most features one change may move (a PrDT's leaves need no bound).
    beam_width : PrAM: partial changes kept per step of the beam search.
    scale, categorical : distance settings, as for :class:`primo.adjust.CounterfactualIndex`.

    Example
    -------
    >>> from sklearn.datasets import load_wine
    >>> from primo import PrDTClassifier
    >>> X, y = load_wine(return_X_y=True, as_frame=True)
    >>> tree = PrDTClassifier(ccp_alpha=0.01, random_state=0).fit(X, y)
    >>> search = MinimalChangeSearch(tree, X, mutable=["flavanoids", "color_intensity", "proline"])
    >>> [r.neighbors["n_changed"].tolist() for r in search.query_many(X.iloc[:3], 1, k=2)]
    [[1, 2], [1, 2], [1]]
    """

    def __init__(self, model, reference_X, *, mutable=None, immutable=None, max_changes: int = 3,
                 beam_width: int = 24, scale="standard", categorical=None):
        if not (hasattr(model, "tree_") or hasattr(model, "ebm_")):
            raise TypeError(f"expected a fitted PrAM or PrDT, got {type(model).__name__}")
        check_is_fitted(model)
        if hasattr(model, "tree_"):
            if getattr(model, "n_outputs_", 1) != 1:
                raise ValueError("actionable counterfactuals need a single-output PrDT")
            self.family = "prdt"
        elif hasattr(model, "ebm_"):
            self.family = "pram"
        if isinstance(max_changes, bool) or not isinstance(max_changes, (int, np.integer)) or max_changes < 1:
            raise ValueError(f"max_changes must be a positive integer, got {max_changes!r}")
        if isinstance(beam_width, bool) or not isinstance(beam_width, (int, np.integer)) or beam_width < 1:
            raise ValueError(f"beam_width must be a positive integer, got {beam_width!r}")
        names = model.feature_names_
        clash = [c for c in RESULT_COLUMNS if c in names]
        if clash:
            raise ValueError(f"features named {clash} clash with the result columns {RESULT_COLUMNS}")
        self.model = model
        self.max_changes = int(max_changes)
        self.beam_width = int(beam_width)
        self.reference = feature_frame(model, reference_X, "reference_X")
        if len(self.reference) == 0:
            raise ValueError("reference_X has no rows")
        self.mutable = _mutable_mask(names, mutable, immutable)
        self.encoder = DistanceEncoder(scale, categorical).fit(self.reference, pram_nominal_features(model))
        self.feature_scales = pd.Series(1.0, index=self.reference.columns)
        if self.encoder.numeric_:
            self.feature_scales[self.encoder.numeric_] = self.encoder.scale_
        self.categorical = _model_categorical(model)
        self._ranges = {j: _observed_range(self.reference.iloc[:, j]) for j in range(len(names))
                        if j not in self.categorical}
        self._categories = {j: _observed_categories(self.reference.iloc[:, j]) for j in self.categorical}
        # A missing x moves towards the column mean (where the distance counts it): a whole number in an
        # integer-valued column, so that its moves stay whole.
        self._means = {}
        for j, (_, _, integer) in self._ranges.items():
            mean = float(pd.to_numeric(self.reference.iloc[:, j], errors="coerce").mean())
            self._means[j] = float(np.round(mean)) if integer else mean
        self._scales = self.feature_scales.to_numpy(dtype=float)
        if self.family == "prdt":
            self._boxes = _LeafBoxes(model, self._ranges, self._categories, self._scales)
        else:
            self._cuts = {j: _pram_cuts(model.ebm_, j) for j in self._ranges}

    # ------------------------------------------------------------------ queries
    def query(self, x, desired, k: int = 5) -> CounterfactualResult:
        """Up to ``k`` verified smallest changes of one row ``x`` that give the ``desired`` outcome.

        ``desired`` is a class label (classifier), or a value / ``(low, high)`` range with None for
        an open end (regressor). The result's ``neighbors`` are the changed rows (index ``option
        1``…) with ``distance``, ``prediction`` and ``n_changed``; ``changes`` lists, per option,
        feature → (old, new).
        """
        frame = feature_frame(self.model, x, "x")
        if len(frame) != 1:
            raise ValueError(f"x must be one row, got {len(frame)}; use query_many for several")
        return self.query_many(frame, desired, k)[0]

    def query_many(self, X, desired, k: int = 5) -> list[CounterfactualResult]:
        """:meth:`query` for every row of X."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        frame = feature_frame(self.model, X, "X")
        key = desired_key(self.model, desired)
        predictions = np.asarray(self.model.predict(model_input(self.model, frame)))
        results = []
        for i in range(len(frame)):
            row = frame.iloc[[i]]
            if self.family == "prdt":
                candidates = self._boxes.changes(self.model, row, key, self.mutable, self._target(row))
            else:
                candidates = self._beam(row, key, int(k))
            results.append(self._result(row, desired, key, predictions[i], candidates, int(k)))
        return results

    # ------------------------------------------------------------------ PrAM
    def _beam(self, row: pd.DataFrame, key, k: int) -> list[dict]:
        """Changes ({feature position: new value}) that give the desired outcome, by beam search."""
        target = self._target(row)
        moves = [(j, value) for j in np.flatnonzero(self.mutable) for value in self._moves(row, j, target)]
        if not moves:
            return []
        already, baseline = self._evaluate(row, [{}], key)
        if already[0]:
            return [{}]  # x already has the desired outcome
        states, seen, solutions = [{}], set(), []
        for level in range(self.max_changes):
            expansions = []
            for state in states:
                for j, value in moves:
                    if j in state:
                        continue
                    change = {**state, j: value}
                    signature = frozenset(change.items())  # values are numbers or text, never NaN
                    if signature not in seen:
                        seen.add(signature)
                        expansions.append(change)
            if not expansions:
                break
            met, progress = self._evaluate(row, expansions, key)
            distance = self._distances(row, expansions)
            solutions += [(len(expansions[i]), distance[i], expansions[i]) for i in np.flatnonzero(met)]
            if len({frozenset(change) for _, _, change in solutions}) >= k:
                break  # enough options that move different features
            open_ = np.flatnonzero(~met)
            order = open_[np.lexsort((distance[open_], -progress[open_]))]
            # Changes of equal outcome are one state: the smallest is kept (bins with equal scores
            # would otherwise fill the beam with copies of one move). Half the beam goes to the
            # changes that raise the outcome most, half to those that raise it most per unit of distance.
            _, first = np.unique(progress[order], return_index=True)
            distinct = order[np.sort(first)]
            efficiency = (progress[distinct] - baseline[0]) / np.maximum(distance[distinct], 1e-12)
            half = (self.beam_width + 1) // 2
            kept = list(dict.fromkeys([*distinct[:half], *distinct[np.argsort(-efficiency, kind="stable")]]))
            states = [expansions[i] for i in kept[: self.beam_width]]
            if level == 0:
                # Later steps add only single moves of distinct effect: of the moves of a feature that
                # give x the same outcome (bins with equal scores), the smallest.
                distinct_moves = {}
                for i in np.argsort(distance, kind="stable"):
                    ((j, value),) = expansions[i].items()
                    distinct_moves.setdefault((j, progress[i]), (j, value))
                moves = list(distinct_moves.values())
        # Shrink a few more than k, smallest first (fewest features, then distance), different
        # sets of features first.
        order = sorted(range(len(solutions)), key=lambda i: solutions[i][:2])
        chosen = _diverse(order, [frozenset(change) for _, _, change in solutions], 3 * k)
        return [self._shrink(row, solutions[i][2], key) for i in chosen]

    def _shrink(self, row: pd.DataFrame, change: dict, key) -> dict:
        """Move each changed feature back to x, or to the candidate closest to x, while the outcome holds."""
        change, target = dict(change), self._target(row)

        def cost(j, value):
            return self._feature_distance(row, target, j, value)

        for j in sorted(change, key=lambda f: -cost(f, change[f])):
            options = [{f: v for f, v in change.items() if f != j}] if len(change) > 1 else []
            closer = sorted((v for v in self._moves(row, j, target) if cost(j, v) < cost(j, change[j])),
                            key=lambda v: cost(j, v))
            options += [{**change, j: v} for v in closer]
            if not options:
                continue
            met, _ = self._evaluate(row, options, key)
            if met.any():
                change = options[int(np.argmax(met))]  # options are ordered smallest first
        return change

    def _moves(self, row: pd.DataFrame, j: int, target: dict) -> list:
        """The values feature ``j`` of ``row`` can move to: the nearest point of each other bin
        (nearest to ``target``, see :meth:`_target`)."""
        x = row.iat[0, j]
        if j in self.categorical:
            return [value for text, value in self._categories[j].items() if pd.isna(x) or text != str(x)]
        low, high, integer = self._ranges[j]
        if not np.isfinite(low):
            return []  # no observed value
        cuts = self._cuts[j]
        edges = np.concatenate([[-np.inf], cuts, [np.inf]])
        starts, ends = edges[:-1], edges[1:]  # bin = [start, end): interpret puts a value equal to a cut above it
        if integer:
            lows, highs = np.ceil(starts), np.ceil(ends) - 1
        else:
            lows, highs = starts, np.nextafter(ends, -np.inf)
        lows, highs = np.maximum(lows, low), np.minimum(highs, high)
        feasible = lows <= highs
        if not pd.isna(x):
            feasible &= ~((starts <= x) & (x < ends))  # x's own bin is no change
        values = np.clip(target[j], lows[feasible], highs[feasible])
        tolerance = READABLE_TOLERANCE * self._scales[j]
        return [readable_number(float(v), lambda c, a=a, b=b: a <= c <= b, tolerance)
                for v, a, b in zip(values, lows[feasible], highs[feasible])]

    def _evaluate(self, row: pd.DataFrame, changes: list[dict], key) -> tuple[np.ndarray, np.ndarray]:
        """Whether the model gives each changed row the desired outcome, and how close it gets."""
        inputs = model_input(self.model, self._apply(row, changes))
        if hasattr(self.model, "classes_"):
            # One pass: a PrAM predicts its most probable class (what is returned is verified by predict).
            probabilities = self.model.predict_proba(inputs)
            column = list(self.model.classes_).index(key)
            others = np.delete(probabilities, column, axis=1)
            progress = probabilities[:, column] - others.max(axis=1)
            return probabilities.argmax(axis=1) == column, progress
        values = np.asarray(self.model.predict(inputs), dtype=float)
        return meets_desired(self.model, values, key), -np.maximum(key[0] - values, 0) - np.maximum(values - key[1], 0)

    # ------------------------------------------------------------------ shared
    def _target(self, row: pd.DataFrame) -> dict:
        """Per numeric feature, the value a move should stay closest to: x's, or the mean if x is missing
        (where the distance counts a missing value)."""
        numbers = pd.to_numeric(row.iloc[0], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        return {j: float(numbers[j]) if np.isfinite(numbers[j]) else self._means[j] for j in self._ranges}

    def _apply(self, row: pd.DataFrame, changes: list[dict]) -> pd.DataFrame:
        """One copy of ``row`` per change, with the change's features set (in the reference's types)."""
        frame = row.iloc[np.zeros(len(changes), dtype=int)].reset_index(drop=True)
        assigned: dict[int, np.ndarray] = {}
        for i, change in enumerate(changes):
            for j, value in change.items():
                if j not in assigned:
                    assigned[j] = np.full(len(changes), row.iat[0, j], dtype=object)
                assigned[j][i] = value
        for j, values in assigned.items():
            column = frame.columns[j]
            dtype = self.reference[column].dtype
            if pd.api.types.is_bool_dtype(dtype):
                frame[column] = values.astype(bool)
            elif pd.api.types.is_numeric_dtype(dtype):
                frame[column] = pd.to_numeric(pd.Series(values))
            else:
                frame[column] = pd.Series(values).infer_objects()
        return frame

    def _distances(self, row: pd.DataFrame, changes: list[dict]) -> np.ndarray:
        encoded = self.encoder.transform(self._apply(row, changes))
        return np.sqrt(((encoded - self.encoder.transform(row)) ** 2).sum(axis=1))

    def _feature_distance(self, row: pd.DataFrame, target: dict, j: int, value) -> float:
        """The distance one moved feature adds (a category change counts 1), to order moves."""
        if j in self.categorical:
            return 0.0 if str(value) == str(row.iat[0, j]) else 1.0
        return abs(float(value) - target[j]) / self._scales[j]

    def _in_kind(self, j: int, value):
        """A moved value as column ``j`` holds it: the search moves numbers as floats (True, not 1.0, in a
        bool column; 4, not 4.0, in an integer one, whose moves are whole numbers)."""
        dtype = self.reference.dtypes.iloc[j]
        if pd.api.types.is_bool_dtype(dtype):
            return bool(value)
        if pd.api.types.is_integer_dtype(dtype):
            return int(value)
        return value

    def _result(self, row: pd.DataFrame, desired, key, prediction, candidates: list[dict], k: int):
        # In the columns' kinds, drop duplicates, verify with the model, order by (features changed, distance),
        # pick diverse options.
        candidates = [{j: self._in_kind(j, v) for j, v in c.items()} for c in candidates]
        unique = list({frozenset(c.items()): c for c in candidates}.values())
        if unique:
            frame = self._apply(row, unique)
            verified = meets_desired(self.model, np.asarray(self.model.predict(model_input(self.model, frame))), key)
            unique = [c for c, ok in zip(unique, verified) if ok]
        distances = self._distances(row, unique) if unique else np.empty(0)
        order = sorted(range(len(unique)), key=lambda i: (len(unique[i]), distances[i]))
        chosen = _diverse(order, [frozenset(unique[i]) for i in range(len(unique))], k)
        changes = [unique[i] for i in chosen]
        if not changes:
            logger.warning("row %s: no change of the mutable features within the observed ranges gives %s",
                           row.index[0], _plain(desired))
        neighbors = self._apply(row, changes) if changes else row.iloc[:0].copy()
        neighbors.index = pd.Index([f"option {i}" for i in range(1, len(changes) + 1)], dtype=object)
        x = row.iloc[0]
        differences = _differences(neighbors, x, self.categorical)
        predictions = (np.asarray(self.model.predict(model_input(self.model, neighbors))) if changes
                       else np.empty(0, dtype=np.asarray(prediction).dtype))
        deltas = None
        if self.family == "pram":
            deltas = term_deltas(self.model, row, neighbors, key)
        neighbors["distance"] = distances[chosen] if changes else np.empty(0)
        neighbors["prediction"] = predictions
        neighbors["n_changed"] = [len(c) for c in changes]
        names = self.model.feature_names_
        # x's values from the row, not the Series x (which holds an all-numeric row as floats).
        described = tuple({names[j]: (_plain(row.iat[0, j]), _plain(v)) for j, v in sorted(c.items())} for c in changes)
        return CounterfactualResult(x=x, desired=desired, prediction=prediction, neighbors=neighbors,
                                    differences=differences, term_deltas=deltas, feature_scales=self.feature_scales,
                                    method="structural", changes=described)


def counterfactuals(model, x, desired, reference_X, k: int = 5, *, method: str = "structural", mutable=None,
                    immutable=None, max_changes: int = 3, reference_y=None, match="auto", scale="standard",
                    categorical=None) -> CounterfactualResult:
    """Counterfactuals of one row: what would have to change for the model to give ``desired``.

    ``method="structural"`` (default): the smallest changes of x's ``mutable`` features (fewest
    features, then smallest distance), searched over the model's own structure, within the ranges
    and categories observed in ``reference_X``, each verified by the model
    (:class:`MinimalChangeSearch`; ``max_changes`` bounds a PrAM's beam search).
    ``method="nearest"``: the k rows of ``reference_X`` nearest to x whose prediction (or label,
    see ``reference_y``/``match``) is ``desired`` (:class:`primo.adjust.CounterfactualIndex`); they may differ
    from x in every feature.

    A one-off convenience: build the search or the index yourself to answer many queries against
    the same reference rows. Other parameters are those of the two classes.

    Example
    -------
    >>> from sklearn.datasets import load_wine
    >>> from primo import PrDTClassifier
    >>> X, y = load_wine(return_X_y=True, as_frame=True)
    >>> tree = PrDTClassifier(ccp_alpha=0.01, random_state=0).fit(X, y)
    >>> counterfactuals(tree, X.iloc[0], 1, X, k=1, immutable=["magnesium"]).changes
    ({'flavanoids': (3.06, 2.16)},)
    >>> counterfactuals(tree, X.iloc[0], 1, X, k=1, method="nearest").neighbors[["distance", "n_changed"]].round(3)
        distance  n_changed
    81     4.333         13
    """
    if method == "structural":
        if reference_y is not None or match != "auto":
            raise ValueError("reference_y and match choose existing rows: they apply to method='nearest'")
        search = MinimalChangeSearch(model, reference_X, mutable=mutable, immutable=immutable,
                                     max_changes=max_changes, scale=scale, categorical=categorical)
        return search.query(x, desired, k)
    if method == "nearest":
        if mutable is not None or immutable is not None:
            raise ValueError("the nearest-row method returns existing rows, which may differ from x anywhere; "
                             "mutable/immutable apply to method='structural'")
        index = CounterfactualIndex(model, reference_X, reference_y, match=match, scale=scale, categorical=categorical)
        return index.query(x, desired, k)
    raise ValueError(f"method must be 'structural' or 'nearest', got {method!r}")


# --------------------------------------------------------------------------- PrDT leaves as boxes


class _LeafBoxes:
    """Each leaf of a PrDT as bounds per feature, and the nearest allowed value of each bound."""

    def __init__(self, model, ranges: dict, categories: dict, scales: np.ndarray):
        tree = model.tree_
        self.scales = scales
        d = tree.n_features
        leaves, lows, highs, missing = [], [], [], []
        # An explicit stack: unpruned trees can be deeper than Python's recursion limit.
        stack = [(0, np.full(d, -np.inf), np.full(d, np.inf), np.ones(d, dtype=bool))]
        while stack:
            node, low, high, miss = stack.pop()
            left, right = tree.children_left[node], tree.children_right[node]
            if left == -1:
                leaves.append(node)
                lows.append(low)
                highs.append(high)
                missing.append(miss)
                continue
            f, threshold = tree.feature[node], tree.threshold[node]
            goes_left = bool(tree.missing_go_to_left[node])
            left_high, left_miss = high.copy(), miss.copy()
            left_high[f] = min(high[f], threshold)
            left_miss[f] = miss[f] and goes_left
            right_low, right_miss = low.copy(), miss.copy()
            right_low[f] = max(low[f], threshold)
            right_miss[f] = miss[f] and not goes_left
            stack.append((int(right), right_low, high, right_miss))
            stack.append((int(left), low, left_high, left_miss))
        self.leaves = np.asarray(leaves)
        self.low, self.high, self.missing = np.array(lows), np.array(highs), np.array(missing)
        values = tree.value[self.leaves, 0, :]
        self.outcomes = (np.asarray(model.classes_)[values.argmax(axis=1)] if hasattr(model, "classes_")
                         else values[:, 0])
        # Allowed values per leaf and feature: (value > low, value <= high) in the float32 the tree compares,
        # within the observed range, integers in integer columns.
        self.observed = {j: (low, high) for j, (low, high, _) in ranges.items()}
        self.first = np.full(self.low.shape, np.nan)
        self.last = np.full(self.low.shape, np.nan)
        for j, (low, high, integer) in ranges.items():
            if integer:
                first, last = np.floor(self.low[:, j]) + 1, np.floor(self.high[:, j])
            else:
                first, last = _float32_above(self.low[:, j]), _float32_at_most(self.high[:, j])
            self.first[:, j], self.last[:, j] = np.maximum(first, low), np.minimum(last, high)
        # Text features: the codes in (low, high] are categories; the most frequent observed one is chosen.
        vocabularies = getattr(model, "categories_", {})
        self.category = {}
        for j, observed in categories.items():
            vocabulary = vocabularies.get(j)
            choice = []
            for low, high in zip(self.low[:, j], self.high[:, j]):
                allowed = [c for c in observed if vocabulary is not None and c in vocabulary
                           and low < vocabulary.index(c) <= high]
                choice.append(observed[allowed[0]] if allowed else None)
            self.category[j] = choice

    def changes(self, model, row: pd.DataFrame, key, mutable: np.ndarray, target: dict) -> list[dict]:
        """For every leaf with the desired outcome that x can reach: {feature position: new value}."""
        encoded = np.asarray(model.encode_rows(model_input(model, row)), dtype=float).reshape(1, -1)
        read = encoded.astype(np.float32).astype(np.float64)  # the tree compares float32 inputs
        inside = np.where(np.isnan(read), self.missing, (read > self.low) & (read <= self.high))
        wanted = meets_desired(model, self.outcomes, key)
        changes = []
        for leaf in np.flatnonzero(wanted):
            move = np.flatnonzero(~inside[leaf])
            if not mutable[move].all():
                continue
            change = {}
            for j in move:
                if j in self.category:
                    value = self.category[j][leaf]
                else:
                    first, last = self.first[leaf, j], self.last[leaf, j]
                    value = None
                    if first <= last:
                        value = readable_number(float(np.clip(target[j], first, last)),
                                                lambda v, leaf=leaf, j=j: self._allows(leaf, j, v),
                                                READABLE_TOLERANCE * self.scales[j])
                if value is None:
                    break
                change[int(j)] = value
            else:
                changes.append(change)
        return changes

    def _allows(self, leaf: int, j: int, value: float) -> bool:
        """Whether numeric feature ``j`` = ``value`` passes the tests of ``leaf``'s path and stays in the
        observed range (the tree compares the float32 of its input with float64 thresholds)."""
        low, high = self.observed[j]
        return low <= value <= high and self.low[leaf, j] < np.float32(value) <= self.high[leaf, j]


# --------------------------------------------------------------------------- helpers


def _mutable_mask(names: list[str], mutable, immutable) -> np.ndarray:
    if mutable is not None and immutable is not None:
        raise ValueError("give mutable or immutable features, not both")
    given = mutable if mutable is not None else immutable
    if given is None:
        return np.ones(len(names), dtype=bool)
    given = [given] if isinstance(given, str) else [str(n) for n in given]
    unknown = [n for n in given if n not in names]
    if unknown:
        argument = "mutable" if mutable is not None else "immutable"
        raise ColumnMismatchError(f"{argument} names unknown features {unknown}; the model's are {names}",
                                  argument=argument, column=unknown[0])
    listed = np.isin(names, given)
    return listed if mutable is not None else ~listed


def _model_categorical(model) -> set[int]:
    """Positions of the features the model reads as categories (PrDT text columns, PrAM nominal)."""
    if hasattr(model, "tree_"):
        return set(getattr(model, "categories_", {}))
    return {j for j, kind in enumerate(model.ebm_.feature_types_in_) if kind in ("nominal", "ordinal")}


def _observed_range(column: pd.Series) -> tuple[float, float, bool]:
    """(min, max, integer-valued) of the present values; (inf, -inf, False) when there are none."""
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return np.inf, -np.inf, False
    return float(values.min()), float(values.max()), bool(np.all(values == np.round(values)))


def _observed_categories(column: pd.Series) -> dict[str, object]:
    """Present categories, most frequent first: text (how the search compares them, as a PrDT encodes
    them) → the value itself (what a change sets: ``False``, not ``"False"``, in a nominal bool column)."""
    present = column.dropna()
    text = present.astype(str)
    values = dict(zip(text, present))
    return {t: values[t] for t in text.value_counts(sort=True).index}


def _pram_cuts(ebm, j: int) -> np.ndarray:
    """Every bin boundary interpret uses for continuous feature ``j`` (main and pair binning)."""
    levels = [np.asarray(level, dtype=float) for level in ebm.bins_[j] if not isinstance(level, dict)]
    return np.unique(np.concatenate(levels)) if levels else np.empty(0)


def _float32_above(bound: np.ndarray) -> np.ndarray:
    """The smallest value whose float32 is above ``bound`` (−inf stays −inf)."""
    single = bound.astype(np.float32)
    single = np.where(single.astype(np.float64) <= bound, np.nextafter(single, np.float32(np.inf)), single)
    return np.where(np.isneginf(bound), -np.inf, single.astype(np.float64))


def _float32_at_most(bound: np.ndarray) -> np.ndarray:
    """The largest value whose float32 is at most ``bound`` (+inf stays +inf)."""
    single = bound.astype(np.float32)
    single = np.where(single.astype(np.float64) > bound, np.nextafter(single, np.float32(-np.inf)), single)
    return np.where(np.isposinf(bound), np.inf, single.astype(np.float64))


def readable_number(value: float, allowed, tolerance: float) -> float:
    """The number with the fewest significant digits within ``tolerance`` of ``value`` that ``allowed``
    accepts, else ``value`` (so a move reads 2.42, not 2.4249999999999994, when both reach the same bin
    or leaf).

    Example
    -------
    >>> readable_number(2.4249999999999994, lambda v: 2.4 <= v < 2.425, tolerance=0.01)
    2.42
    """
    if value == 0 or not np.isfinite(value):
        return value
    exponent = math.floor(math.log10(abs(value)))
    for digits in range(1, 17):
        if digits - 1 - exponent > 308:  # beyond float64: a tiny value (the float just below a bin edge at 0)
            break
        scale = 10.0 ** (digits - 1 - exponent)
        candidates = {float(f"{math.floor(value * scale) / scale:.{digits}g}"),
                      float(f"{math.ceil(value * scale) / scale:.{digits}g}")}
        for candidate in sorted(candidates, key=lambda c: abs(c - value)):
            if abs(candidate - value) <= tolerance and allowed(candidate):
                return candidate
    return value


def _diverse(order: list[int], feature_sets: list[frozenset], k: int) -> list[int]:
    """Up to k candidates in ``order``: first one per distinct set of changed features, then the rest."""
    chosen, seen = [], set()
    for i in order:
        if feature_sets[i] not in seen:
            seen.add(feature_sets[i])
            chosen.append(i)
    chosen += [i for i in order if i not in set(chosen)]
    chosen = chosen[:k]
    return sorted(chosen, key=order.index)


def _differences(neighbors: pd.DataFrame, x: pd.Series, categorical: set[int]) -> pd.DataFrame:
    columns = {}
    for j, column in enumerate(x.index):
        if j in categorical or not pd.api.types.is_numeric_dtype(pd.Series([x[column]])):
            new, old = neighbors[column].astype(str), str(x[column])
            columns[column] = np.where(new != old, old + " → " + new, "")
        else:
            columns[column] = pd.to_numeric(neighbors[column]).to_numpy(dtype=float) - float(x[column])
    return pd.DataFrame(columns, index=neighbors.index)


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    return value
