"""Counterfactual explanations: the reference rows nearest to x that get the outcome you wanted.

"Why is this row predicted 0, and what would have to change for it to be 1?" — here, the nearest-row
answer: the ``k`` reference rows (e.g. the training set) closest to ``x`` whose prediction (or
label) is the desired class, or lies in the desired range, together with the per-feature
differences and, for a PrAM, the change of every term's contribution between ``x`` and each of
them: the terms whose scores move the prediction most are the shape functions a developer may
want to edit. Such rows may differ from x in every feature; the smallest change of x's mutable
features is :mod:`primo.adjust.minimal_change` (the default of :func:`primo.adjust.counterfactuals`).
This module also holds what both methods share: the result, the distance, the desired outcome.

Distances are Euclidean on an encoding built once from the reference rows: numeric features
divided by their standard deviation (or by a user-given scale; missing values count as the
column mean), categorical features one-hot encoded with weight 1/√2 per column, so a category
mismatch costs as much as one standard deviation. Nearest rows are found with scikit-learn's
:class:`~sklearn.neighbors.BallTree` (the paper's choice: nested hyper-spheres bound the distance
to whole groups of rows), one tree per desired outcome, built on first use and reused by every
later query.

Example
-------
>>> from primo.adjust import CounterfactualIndex, counterfactuals, diagnose_errors
>>> result = counterfactuals(pram, X_test.iloc[3], 1, X_train, k=5, method="nearest")  # doctest: +SKIP
>>> result.neighbors[["distance", "prediction"]]  # doctest: +SKIP
>>> result.term_deltas.iloc[0].head(3)  # the terms that move the prediction most  # doctest: +SKIP
>>> index = CounterfactualIndex(pram, X_train, y_train)  # reuse for many queries  # doctest: +SKIP
>>> diagnosis = diagnose_errors(pram, X_train, y_train, kind="false_negatives")  # doctest: +SKIP
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.neighbors import BallTree
from sklearn.preprocessing import OneHotEncoder
from sklearn.utils.validation import check_is_fitted

from primo.errors import ColumnMismatchError
from primo.models.encoding import frame_from_arrow

logger = logging.getLogger(__name__)

MATCHES = ("auto", "prediction", "label", "both")
RESULT_COLUMNS = ("distance", "prediction", "label", "n_changed")


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class CounterfactualResult:
    """Counterfactual explanation of one row.

    Attributes
    ----------
    x : the explained row (Series, feature → value).
    desired : the requested class, or ``(low, high)`` range for a regressor.
    prediction : the model's prediction for x.
    neighbors : the counterfactual rows, best first, with extra columns ``distance``,
        ``prediction``, ``n_changed`` (features that differ from x) and, for the nearest-row method
        with reference labels, ``label``. Nearest rows keep their labels in the reference data as
        index; structural changes are ``option 1``, ``option 2``…
    differences : counterfactual − x per feature (same index as ``neighbors``); for a categorical
        feature the text ``"a → b"`` where the category differs and ``""`` where it does not.
    term_deltas : PrAM: contribution of each term for the counterfactual minus that for x (raw
        units: target units, or log-odds of ``classes_[1]``; for multiclass, of the desired class),
        one row per counterfactual, columns sorted by mean |delta| (largest first); None for a PrDT.
    method : ``"structural"`` (smallest changes, :class:`primo.adjust.MinimalChangeSearch`) or
        ``"nearest"`` (existing rows, :class:`primo.adjust.CounterfactualIndex`).
    changes : structural: per option, feature → (old value, new value) of the features it moves.
    """

    x: pd.Series
    desired: object
    prediction: object
    neighbors: pd.DataFrame
    differences: pd.DataFrame
    term_deltas: pd.DataFrame | None
    feature_scales: pd.Series | None = None  # distance units per feature (orders the summary)
    method: str = "nearest"
    changes: tuple = ()

    def summary(self, n_features: int = 5) -> str:
        """A short text: the query, the best counterfactual, what differs and which terms matter."""
        if self.neighbors.empty:
            where = "no change of the mutable features gives" if self.method == "structural" else "no reference row has"
            return f"row {self.x.name}: {where} the desired outcome {_text(self.desired)}"
        distance = self.neighbors["distance"]
        lines = [f"row {self.x.name}: predicted {_text(self.prediction)}, desired {_text(self.desired)}; "
                 f"{len(self.neighbors)} counterfactual(s) ({self.method}) at distance "
                 f"{distance.min():.4g}–{distance.max():.4g}"]
        if self.method == "structural":
            for label, change in zip(self.neighbors.index, self.changes):
                parts = [f"{f} {_text(old)} → {_text(new)}" for f, (old, new) in change.items()]
                lines.append(f"{label}: " + (", ".join(parts) or "no change (x already has it)"))
        else:
            nearest = self.differences.iloc[0]
            changed = [(f, v) for f, v in nearest.items() if _is_change(v)]
            scales = self.feature_scales if self.feature_scales is not None else pd.Series(1.0, index=nearest.index)
            # Largest change in distance units first (a category change counts as 1).
            changed.sort(key=lambda item: -(1.0 if isinstance(item[1], str) else abs(item[1]) / scales[item[0]]))
            if changed:
                parts = [f"{f} {_text(self.x[f])} → {_text(self.neighbors.iloc[0][f])}" for f, _ in changed[:n_features]]
                more = f" (+{len(changed) - n_features} more)" if len(changed) > n_features else ""
                lines.append(f"nearest ({self.neighbors.index[0]}): " + ", ".join(parts) + more)
        if self.term_deltas is not None and not self.term_deltas.empty:
            first = self.term_deltas.iloc[0]
            first = first[first != 0]  # terms the change leaves alone are not news
            top = first.reindex(first.abs().sort_values(ascending=False).index)[:n_features]
            lines.append(f"term contributions changing most ({self.neighbors.index[0]}): "
                         + ", ".join(f"{t} {v:+.4g}" for t, v in top.items()))
        return "\n".join(lines)


def _count_changed(rows: pd.DataFrame, x: pd.Series) -> np.ndarray:
    """Features of each row that differ from x (two missing values are no difference)."""
    values, query = rows.to_numpy(dtype=object), x.to_numpy(dtype=object)
    both_missing = pd.isna(values) & pd.isna(query)
    return ((values != query) & ~both_missing).sum(axis=1)


def _is_change(value) -> bool:
    if isinstance(value, str):
        return value != ""
    return bool(pd.notna(value) and value != 0)


def _text(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{value:.4g}"
    if isinstance(value, (tuple, list)):  # a desired (low, high) range; None is an open end
        low, high = ("−∞" if v is None or v == -np.inf else "∞" if v == np.inf else f"{v:.4g}" for v in value)
        return f"[{low}, {high if value[1] is not None else '∞'}]"
    return str(value.item() if isinstance(value, np.generic) else value)


# --------------------------------------------------------------------------- encoding


class DistanceEncoder:
    """Maps rows to the space where Euclidean distance is the counterfactual distance."""

    def __init__(self, scale, categorical):
        self.scale = scale
        self.categorical = categorical

    def fit(self, frame: pd.DataFrame, nominal: list[str]):
        columns = list(frame.columns)
        if self.categorical is None:
            auto = [c for c in columns if not pd.api.types.is_numeric_dtype(frame[c]) or c in nominal]
            self.categorical_ = auto
        else:
            unknown = [c for c in self.categorical if c not in columns]
            if unknown:
                raise ValueError(f"categorical features {unknown} are not features of the model")
            self.categorical_ = [c for c in columns if c in set(self.categorical)]
        self.numeric_ = [c for c in columns if c not in set(self.categorical_)]
        if self.numeric_:
            values = self._numeric(frame)
            self.imputer_ = SimpleImputer(strategy="mean", keep_empty_features=True).fit(values)
            self.scale_ = self._scales(self.imputer_.transform(values))
        if self.categorical_:
            self.onehot_ = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
            self.onehot_.fit(frame[self.categorical_].astype(str))
        return self

    def _numeric(self, frame):
        try:
            return frame[self.numeric_].to_numpy(dtype=float)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"numeric features {self.numeric_} hold non-numbers ({exc}); "
                             "name the categorical ones with categorical=[...]") from None

    def _scales(self, values: np.ndarray) -> np.ndarray:
        scale = self.scale
        if isinstance(scale, str):
            if scale != "standard":
                raise ValueError(f"scale must be 'standard', a number, a dict or an array, got {scale!r}")
            std = values.std(axis=0)
            return np.where(std > 0, std, 1.0)  # a constant feature never separates rows
        if isinstance(scale, dict):
            unknown = set(scale) - set(self.numeric_)
            if unknown:
                raise ValueError(f"scale given for unknown or categorical features {sorted(unknown)}")
            std = values.std(axis=0)
            default = np.where(std > 0, std, 1.0)
            out = np.array([float(scale.get(c, d)) for c, d in zip(self.numeric_, default)])
        else:
            out = np.broadcast_to(np.asarray(scale, dtype=float), (len(self.numeric_),)).copy()
        if not np.all(np.isfinite(out)) or np.any(out <= 0):
            raise ValueError(f"scales must be finite and positive, got {out.tolist()}")
        return out

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        parts = []
        if self.numeric_:
            parts.append(self.imputer_.transform(self._numeric(frame)) / self.scale_)
        if self.categorical_:
            # 1/√2 per one-hot column: a mismatch (two columns differ by 1) adds 1 to the squared distance.
            parts.append(self.onehot_.transform(frame[self.categorical_].astype(str)) / np.sqrt(2.0))
        return np.hstack(parts)



# --------------------------------------------------------------------------- outcomes and rows


def desired_key(model, desired):
    """The desired outcome checked against the model: a class label, or a (low, high) range for a regressor.

    Example
    -------
    >>> from primo import PrDTRegressor
    >>> desired_key(PrDTRegressor().fit([[0.0], [1.0]], [0.0, 1.0]), (None, 0.5))
    (-inf, 0.5)
    """
    if hasattr(model, "classes_"):
        if isinstance(desired, (list, tuple, np.ndarray)):
            raise ValueError("for a classifier, desired is one class label")
        if desired not in list(model.classes_):
            raise ValueError(f"desired class {desired!r} is not one of the model's classes {list(model.classes_)}")
        return desired
    if isinstance(desired, (list, tuple)) and len(desired) == 2:
        low, high = desired
        low = -np.inf if low is None else float(low)
        high = np.inf if high is None else float(high)
    elif np.ndim(desired) == 0 and desired is not None:
        low = high = float(desired)
    else:
        raise ValueError(f"for a regressor, desired is a value or a (low, high) range, got {desired!r}")
    if low > high:
        raise ValueError(f"empty desired range ({low}, {high})")
    return (low, high)


def meets_desired(model, values: np.ndarray, key) -> np.ndarray:
    """Which outcomes (predictions or labels) are the desired class, or lie in the desired range."""
    if isinstance(key, tuple) and not hasattr(model, "classes_"):
        values = np.asarray(values).astype(float)
        return (values >= key[0]) & (values <= key[1])
    return np.asarray(values) == key


def pram_nominal_features(model) -> list[str]:
    """Names of a PrAM's nominal features (the distance treats them as categories); none for a PrDT."""
    if not hasattr(model, "ebm_"):
        return []
    return [n for n, t in zip(model.feature_names_, model.ebm_.feature_types_in_) if t == "nominal"]


def term_deltas(model, x: pd.DataFrame, rows: pd.DataFrame, key) -> pd.DataFrame:
    """PrAM: contribution of each term for every row of ``rows`` minus that for the one-row ``x``.

    Raw units (target units, or log-odds of ``classes_[1]``; of the desired class for multiclass);
    columns sorted by mean |delta|, largest first.
    """
    names = [str(t) for t in model.ebm_.term_names_]
    if rows.empty:
        return pd.DataFrame(columns=names, index=rows.index, dtype=float)
    query_terms = model.eval_terms(model_input(model, x))
    row_terms = model.eval_terms(model_input(model, rows))
    if query_terms.ndim == 3:  # multiclass: contributions towards the desired class
        column = list(model.classes_).index(key)
        query_terms, row_terms = query_terms[:, :, column], row_terms[:, :, column]
    deltas = pd.DataFrame(row_terms - query_terms[0], index=rows.index, columns=names)
    return deltas[deltas.abs().mean().sort_values(ascending=False, kind="stable").index]


def feature_frame(model, X, what: str) -> pd.DataFrame:
    """``X`` (Series, dict, DataFrame, Arrow table or array) as a DataFrame of the model's features, in its
    order. The one input check of every counterfactual entry point (index, search, diagnosis)."""
    names = model.feature_names_
    X = frame_from_arrow(X)  # a polars or pyarrow table is matched by its column names, not by position
    if isinstance(X, pd.Series):
        X = X.to_frame().T
    elif isinstance(X, dict):
        X = pd.DataFrame([X])
    if isinstance(X, pd.DataFrame):
        if getattr(model, "feature_names_in_", None) is not None:
            missing = [n for n in names if n not in set(map(str, X.columns))]
            if missing:
                raise ColumnMismatchError(f"{what} lacks the model's features {missing}", argument=what, column=missing[0])
            X = X.set_axis([str(c) for c in X.columns], axis=1)
            return X[names].infer_objects()
        if X.shape[1] != len(names):
            raise ColumnMismatchError(f"{what} has {X.shape[1]} columns but the model has {len(names)} features",
                                      argument=what)
        return X.set_axis(names, axis=1).infer_objects()
    values = np.asarray(X)
    if values.ndim == 1:
        values = values.reshape(1, -1)
    if values.ndim != 2 or values.shape[1] != len(names):
        raise ColumnMismatchError(f"{what} must have {len(names)} features per row, got shape {np.shape(X)}",
                                  argument=what)
    return pd.DataFrame(values, columns=names).infer_objects()


def model_input(model, frame: pd.DataFrame):
    """What the model's predict takes: the frame, or its values for a model fit on an array."""
    # A model fit on an array is given an array (scikit-learn warns about unexpected names).
    return frame if getattr(model, "feature_names_in_", None) is not None else frame.to_numpy()


# --------------------------------------------------------------------------- the index


class CounterfactualIndex:
    """Reference rows encoded once, with a BallTree per desired outcome, for many queries.

    Parameters
    ----------
    model : fitted PrAM or PrDT (classifier or regressor).
    reference_X : the rows counterfactuals are drawn from (DataFrame or Arrow table, e.g. polars or
        pyarrow, with the model's features, or an array in the model's feature order), e.g. the training set.
    reference_y : optional true labels/targets of the reference rows.
    match : which outcome must be the desired one: ``"prediction"`` (the model's), ``"label"``
        (``reference_y``), ``"both"``, or ``"auto"`` = label when ``reference_y`` is given, else
        prediction.
    scale : ``"standard"`` (divide numeric features by their standard deviation), a number (the
        same scale for every numeric feature, e.g. 1 for Hamming-like distance on 0/1 patterns),
        a dict feature → scale (others standard), or one scale per numeric feature.
    categorical : names of categorical features; default: non-numeric columns and the PrAM's
        nominal features.
    leaf_size : BallTree leaf size.

    Example
    -------
    >>> from sklearn.datasets import load_wine
    >>> from primo import PrDTClassifier
    >>> X, y = load_wine(return_X_y=True, as_frame=True)
    >>> index = CounterfactualIndex(PrDTClassifier(ccp_alpha=0.01, random_state=0).fit(X, y), X)
    >>> [int(r.neighbors.index[0]) for r in index.query_many(X.iloc[:3], desired=1)]  # nearest rows predicted 1
    [81, 81, 65]
    """

    def __init__(self, model, reference_X, reference_y=None, *, match="auto", scale="standard",
                 categorical=None, leaf_size=40):
        check_is_fitted(model)
        if not (hasattr(model, "ebm_") or hasattr(model, "tree_")):
            raise TypeError(f"expected a fitted PrAM or PrDT, got {type(model).__name__}")
        if match not in MATCHES:
            raise ValueError(f"match must be one of {MATCHES}, got {match!r}")
        clash = [c for c in RESULT_COLUMNS if c in model.feature_names_]
        if clash:
            raise ValueError(f"features named {clash} clash with the result columns {RESULT_COLUMNS}")
        self.model = model
        self.reference = feature_frame(model, reference_X, "reference_X")
        if len(self.reference) == 0:
            raise ValueError("reference_X has no rows")
        self.labels = None if reference_y is None else np.asarray(reference_y).ravel()
        if self.labels is not None and len(self.labels) != len(self.reference):
            raise ValueError(f"reference_X has {len(self.reference)} rows but reference_y has {len(self.labels)}")
        if match == "auto":
            match = "label" if self.labels is not None else "prediction"
        if match in ("label", "both") and self.labels is None:
            raise ValueError(f"match={match!r} needs reference_y")
        self.match = match
        self.leaf_size = int(leaf_size)
        self.predictions = np.asarray(model.predict(model_input(model, self.reference)))
        self.encoder = DistanceEncoder(scale, categorical).fit(self.reference, pram_nominal_features(model))
        self.encoded = self.encoder.transform(self.reference)
        self.feature_scales = pd.Series(1.0, index=self.reference.columns)
        if self.encoder.numeric_:
            self.feature_scales[self.encoder.numeric_] = self.encoder.scale_
        self._trees: dict = {}

    def qualifying(self, desired) -> np.ndarray:
        """Positions of the reference rows whose outcome (per ``match``) is ``desired``."""
        key = desired_key(self.model, desired)
        return self._tree(key)[1]

    def _tree(self, key):
        if key not in self._trees:
            mask = np.ones(len(self.reference), dtype=bool)
            if self.match in ("prediction", "both"):
                mask &= meets_desired(self.model, self.predictions, key)
            if self.match in ("label", "both"):
                mask &= meets_desired(self.model, self.labels, key)
            positions = np.flatnonzero(mask)
            tree = BallTree(self.encoded[positions], leaf_size=self.leaf_size) if positions.size else None
            self._trees[key] = (tree, positions)
        return self._trees[key]

    # ------------------------------------------------------------------ queries
    def query(self, x, desired, k: int = 5) -> CounterfactualResult:
        """The k nearest reference rows to ``x`` with the desired outcome (see :class:`CounterfactualResult`).

        Parameters
        ----------
        x : one row: Series, dict, 1-row DataFrame or 1-D array in the model's feature order.
        desired : a class label (classifier) or a value / ``(low, high)`` range (regressor; None
            for an open end).
        k : number of counterfactuals (fewer when fewer reference rows qualify).
        """
        frame = feature_frame(self.model, x, "x")
        if len(frame) != 1:
            raise ValueError(f"x must be one row, got {len(frame)}; use query_many for several")
        return self.query_many(frame, desired, k)[0]

    def query_many(self, X, desired, k: int = 5) -> list[CounterfactualResult]:
        """:meth:`query` for every row of X, in one BallTree query."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        frame = feature_frame(self.model, X, "X")
        key = desired_key(self.model, desired)
        tree, positions = self._tree(key)
        predictions = np.asarray(self.model.predict(model_input(self.model, frame)))
        if tree is None:
            logger.warning("no reference row has the desired outcome %r (match=%s)", desired, self.match)
            distances = np.empty((len(frame), 0))
            found = np.empty((len(frame), 0), dtype=int)
        else:
            if positions.size < k:
                logger.warning("only %d reference rows have the desired outcome %r; returning them all", positions.size, desired)
            distances, found = tree.query(self.encoder.transform(frame), k=min(int(k), positions.size))
        deltas = self._term_deltas(frame, positions[found], key) if hasattr(self.model, "ebm_") else None
        results = []
        for i in range(len(frame)):
            rows = positions[found[i]]
            results.append(self._result(frame.iloc[i], desired, predictions[i], rows, distances[i],
                                        None if deltas is None else deltas[i]))
        return results

    def _result(self, x: pd.Series, desired, prediction, rows, distances, deltas) -> CounterfactualResult:
        neighbors = self.reference.iloc[rows].copy()
        columns = {}
        for column in self.reference.columns:
            if column in self.encoder.categorical_:
                new, old = neighbors[column].astype(str), str(x[column])
                columns[column] = np.where(new != old, old + " → " + new, "")
            else:
                columns[column] = pd.to_numeric(neighbors[column]).to_numpy(dtype=float) - float(x[column])
        differences = pd.DataFrame(columns, index=neighbors.index)
        neighbors["distance"] = distances
        neighbors["prediction"] = self.predictions[rows]
        neighbors["n_changed"] = _count_changed(self.reference.iloc[rows], x)
        if self.labels is not None:
            neighbors["label"] = self.labels[rows]
        if deltas is not None:
            deltas = pd.DataFrame(deltas, index=neighbors.index, columns=[str(t) for t in self.model.ebm_.term_names_])
            deltas = deltas[deltas.abs().mean().sort_values(ascending=False, kind="stable").index]
        return CounterfactualResult(x=x, desired=desired, prediction=prediction, neighbors=neighbors,
                                    differences=differences, term_deltas=deltas, feature_scales=self.feature_scales)

    def _term_deltas(self, frame: pd.DataFrame, rows: np.ndarray, key) -> np.ndarray:
        """(n_queries, k, n_terms) contribution of each term for the neighbor minus that for the query."""
        model = self.model
        unique, inverse = np.unique(rows.ravel(), return_inverse=True)
        if unique.size == 0:
            return np.empty(rows.shape + (len(model.ebm_.term_names_),))
        query_terms = model.eval_terms(model_input(model, frame))
        neighbor_terms = model.eval_terms(model_input(model, self.reference.iloc[unique]))
        if query_terms.ndim == 3:  # multiclass: contributions towards the desired class
            column = list(model.classes_).index(key)
            query_terms, neighbor_terms = query_terms[:, :, column], neighbor_terms[:, :, column]
        neighbor_terms = neighbor_terms[inverse].reshape(rows.shape + (query_terms.shape[1],))
        return neighbor_terms - query_terms[:, None, :]


# --------------------------------------------------------------------------- batch diagnosis


@dataclass(frozen=True)
class ErrorDiagnosis:
    """Counterfactuals of every false negative (or false positive) of a binary classifier.

    Attributes
    ----------
    kind : ``"false_negatives"`` or ``"false_positives"``.
    desired : the class the errors should have been given.
    rows : labels (DataFrame index, or positions) of the misclassified rows in X.
    results : one :class:`CounterfactualResult` per error, in the order of ``rows``.
    term_impact : PrAM: one row per term, sorted by ``mean_push`` (largest first): ``mean_push``
        = mean over errors and their neighbors of the term's contribution change *towards the
        desired class* (log-odds); ``mean_abs_delta``; ``n_top`` = errors for which the term has
        the largest mean push. None for a PrDT.
    """

    kind: str
    desired: object
    rows: list
    results: list[CounterfactualResult]
    term_impact: pd.DataFrame | None

    def summary(self, n_terms: int = 5) -> str:
        """Number of errors and the terms that would move them most towards the desired class."""
        lines = [f"{len(self.rows)} {self.kind.replace('_', ' ')} (desired class {_text(self.desired)})"]
        if self.term_impact is not None and not self.term_impact.empty:
            top = self.term_impact.head(n_terms)
            lines.append("terms pushing towards the desired class in their counterfactuals: " + ", ".join(
                f"{t} (mean {r['mean_push']:+.3g}, top for {int(r['n_top'])})" for t, r in top.iterrows()))
        return "\n".join(lines)


def diagnose_errors(model, X, y, *, kind: str = "false_negatives", positive=None, reference_X=None,
                    reference_y=None, k: int = 5, match=None, scale="standard", categorical=None,
                    index: CounterfactualIndex | None = None) -> ErrorDiagnosis:
    """Explain every false negative (or false positive) of a binary classifier at once.

    Parameters
    ----------
    model : fitted binary PrAM or PrDT classifier.
    X, y : rows and true labels in which to find the errors.
    kind : ``"false_negatives"`` (true positives predicted negative; desired = positive) or
        ``"false_positives"`` (desired = the negative class).
    positive : the positive class (default ``classes_[1]``).
    reference_X, reference_y : where counterfactuals come from (default: X and y themselves).
    k : counterfactuals per error.
    match : as for :class:`CounterfactualIndex`; default ``"both"`` when reference labels are
        known (rows correctly given the desired class), else ``"prediction"``.
    scale, categorical : distance settings of :class:`CounterfactualIndex`.
    index : a prebuilt :class:`CounterfactualIndex` to reuse (then reference_* and match are ignored).

    Example
    -------
    >>> diagnosis = diagnose_errors(pram, X_train, y_train, kind="false_negatives")  # doctest: +SKIP
    >>> diagnosis.term_impact.head()  # doctest: +SKIP
    """
    classes = list(getattr(model, "classes_", []))
    if len(classes) != 2:
        raise ValueError("false negatives/positives are defined for binary classifiers")
    if kind not in ("false_negatives", "false_positives"):
        raise ValueError(f"kind must be 'false_negatives' or 'false_positives', got {kind!r}")
    positive = classes[1] if positive is None else positive
    if positive not in classes:
        raise ValueError(f"positive class {positive!r} is not one of {classes}")
    negative = classes[1 - classes.index(positive)]
    frame = feature_frame(model, X, "X")
    y = np.asarray(y).ravel()
    if len(y) != len(frame):
        raise ValueError(f"X has {len(frame)} rows but y has {len(y)}")
    predicted = np.asarray(model.predict(model_input(model, frame)))
    if kind == "false_negatives":
        errors, desired = (y == positive) & (predicted != positive), positive
    else:
        errors, desired = (y != positive) & (predicted == positive), negative
    if index is None:
        if reference_X is None:
            reference_X, reference_y = frame, y
        if match is None:
            match = "both" if reference_y is not None else "prediction"
        index = CounterfactualIndex(model, reference_X, reference_y, match=match, scale=scale, categorical=categorical)
    positions = np.flatnonzero(errors)
    results = index.query_many(frame.iloc[positions], desired, k) if positions.size else []
    impact = _term_impact(results, push_sign=1.0 if desired == classes[1] else -1.0) if hasattr(model, "ebm_") else None
    return ErrorDiagnosis(kind=kind, desired=desired, rows=list(frame.index[positions]), results=results,
                          term_impact=impact)


def _term_impact(results: list[CounterfactualResult], push_sign: float) -> pd.DataFrame:
    frames = [r.term_deltas for r in results if r.term_deltas is not None and not r.term_deltas.empty]
    if not frames:
        return pd.DataFrame(columns=["mean_push", "mean_abs_delta", "n_top"])
    pushes = [push_sign * f for f in frames]
    stacked = pd.concat(pushes, ignore_index=True)
    top = pd.Series([p.mean().idxmax() for p in pushes]).value_counts()
    impact = pd.DataFrame({"mean_push": stacked.mean(), "mean_abs_delta": stacked.abs().mean()})
    impact["n_top"] = top.reindex(impact.index).fillna(0).astype(int)
    impact.index.name = "term"
    return impact.sort_values("mean_push", ascending=False, kind="stable")
