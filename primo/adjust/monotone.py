"""Monotonic constraints from prior knowledge ("more cores for a higher EMEM/compute ratio").

**PrAM** (the paper's method, from DP-EBM): the feature's shape function is replaced by its
weighted isotonic fit — minimize Σ_b w_b (s_b − ŝ_b)² subject to ŝ monotone over the ordered bins,
with w_b the training weight of bin b — solved by Pool Adjacent Violators in scikit-learn's
:class:`~sklearn.isotonic.IsotonicRegression`. Because PAV pools bins into weighted means, the
term's mean contribution on the training data is unchanged, so the intercept stays as it is.

interpret's own ``ebm.monotonize`` runs the same weighted isotonic fit on a 1-D term; Primo does
it itself to also (1) make every *pair* term that contains the feature monotone along that feature
(slice by slice, with the pair's bin weights) — main and pair terms then both move the same way, so
the whole model is monotone in the feature, all else fixed, which a 1-D edit alone does not
guarantee (a pair of two monotonized features is made monotone in both, by alternating
projections); (2) choose ``direction="auto"`` as the direction whose isotonic fit changes the shape
least (weighted squared change), instead of the sign of an unweighted rank correlation; (3) keep
bins without training weight monotone by interpolation instead of passing zero weights to PAV.

**PrDT**: a tree is refit with scikit-learn's ``monotonic_cst`` (constraints enforced while the
tree grows, kept by cost-complexity pruning). Post-processing leaf values is not used because the
leaves of a tree are boxes that are only *partially* ordered along a feature (a leaf is below
another only where their other coordinates overlap), so PAV, which needs a total order, does not
apply; a partial-order isotonic fit would be a hand-written solver where scikit-learn already
grows constrained trees. The refit needs the training data, and scikit-learn supports it for
regression and binary classification without missing values.

Example
-------
>>> from primo.adjust import monotonize
>>> plus = monotonize(pram, ["A_i", "R_ec"], direction="increasing")  # doctest: +SKIP
>>> [e["term"] for e in plus.metadata_["edits"]]  # doctest: +SKIP
['A_i', 'R_ec']
"""
from __future__ import annotations

import copy
import logging

import numpy as np
import pandas as pd
from scipy.optimize import isotonic_regression
from scipy.stats import spearmanr
from sklearn.base import clone
from sklearn.isotonic import IsotonicRegression

from primo.adjust.log import append_record, edits_of, operation, replay, target_model
from primo.adjust.terms import check_pram, forget_bag_spread, resolve_term, restore_term, term_cuts
from primo.errors import InputError
from primo.models._base import _is_sparse, check_prediction_input

logger = logging.getLogger(__name__)

DIRECTIONS = ("increasing", "decreasing", "auto")
#: Relative weight of a pair cell without training rows in the 2-D fit (keeps the problem well posed).
EMPTY_WEIGHT = 1e-2


def isotonic_shape(scores, weights, direction: str = "increasing") -> tuple[np.ndarray, str]:
    """Weighted isotonic (PAV) fit of a sequence of bin scores.

    Parameters
    ----------
    scores : 1-D scores over ordered bins.
    weights : non-negative bin weights (training rows per bin). Zero-weight bins are left out of the
        fit and get interpolated values, so the result stays monotone; if every weight is zero the
        bins count equally.
    direction : ``"increasing"``, ``"decreasing"`` or ``"auto"`` (the direction whose fit changes
        the scores least, in weighted squared error).

    Returns
    -------
    (fitted scores, direction used)

    Example
    -------
    >>> fitted, used = isotonic_shape([0.0, 2.0, 1.0, 3.0], [1, 1, 1, 1])
    >>> fitted.tolist(), used
    ([0.0, 1.5, 1.5, 3.0], 'increasing')
    """
    scores = np.asarray(scores, dtype=float)
    weights = np.asarray(weights, dtype=float)
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    if scores.ndim != 1 or weights.shape != scores.shape:
        raise ValueError(f"scores and weights must be 1-D of the same length, got {scores.shape} and {weights.shape}")
    if scores.size < 2:
        return scores.copy(), "increasing" if direction == "auto" else direction
    keep = weights > 0
    if not keep.any():
        keep, weights = np.ones_like(keep), np.ones_like(weights)
    position = np.arange(scores.size)
    candidates = ("increasing", "decreasing") if direction == "auto" else (direction,)
    fits = {}
    for candidate in candidates:
        iso = IsotonicRegression(increasing=candidate == "increasing", out_of_bounds="clip")
        iso.fit(position[keep], scores[keep], sample_weight=weights[keep])
        fitted = iso.predict(position)
        fits[candidate] = (float(np.sum(weights * (fitted - scores) ** 2)), fitted)
    used = min(fits, key=lambda c: fits[c][0])
    return fits[used][1], used


def _directions(features, direction) -> list[str]:
    if isinstance(direction, dict):
        unknown = set(map(str, direction)) - set(map(str, features))
        if unknown:
            raise InputError(f"direction given for features not being monotonized: {sorted(unknown)}",
                             argument="direction")
        out = [direction.get(f, "increasing") for f in features]
    elif isinstance(direction, (list, tuple)):
        if len(direction) != len(features):
            raise InputError(f"{len(direction)} directions for {len(features)} features", argument="direction")
        out = list(direction)
    else:
        out = [direction] * len(features)
    for d in out:
        if d not in DIRECTIONS:
            raise InputError(f"direction must be one of {DIRECTIONS}, got {d!r}", argument="direction")
    return out


@operation("monotonize", revert=lambda model, record, **data: _revert_monotonize(model, record, **data),
           needs_data=True)
def monotonize(model, features, direction="increasing", *, pairs=True, inplace=False,
               X_train=None, y_train=None, sample_weight=None):
    """Make a fitted model monotone in one or more features.

    Parameters
    ----------
    model : fitted PrAM (regression or binary) or PrDT (regression or binary).
    features : a feature name/index or a list of them.
    direction : ``"increasing"``, ``"decreasing"``, ``"auto"``, or one per feature (list, or dict
        feature → direction). For a PrDT, ``"auto"`` takes the sign of the Spearman correlation
        between the feature and the target in the training data.
    pairs : PrAM only: also make pair terms containing the feature monotone along it (default),
        so that the model as a whole is monotone; False edits the 1-D shape function only.
    inplace : edit ``model`` itself instead of returning an edited copy.
    X_train, y_train, sample_weight : PrDT only (required): the training data to refit on. A
        DataFrame's (or Arrow table's) columns are matched to the model's features by name.

    Returns
    -------
    The monotone model. Its edit log gains one ``"monotonize"`` record per feature for a PrAM
    (``term``, ``before``/``after`` per-bin scores incl. the missing and unknown bins, ``pairs``),
    one record for all features of a PrDT (``monotonic_cst`` before/after, tree size).

    Example
    -------
    >>> plus = monotonize(pram, "R_ec")  # doctest: +SKIP
    >>> tree = monotonize(prdt, "A_i", X_train=X, y_train=y)  # doctest: +SKIP
    """
    names = features if isinstance(features, (list, tuple)) else [features]
    if not names:
        raise InputError("give at least one feature to monotonize", argument="features")
    directions = _directions(names, direction)
    if hasattr(model, "ebm_"):
        for feature in names:  # every feature checked before any is edited, so a bad one changes nothing
            _main_term(model, feature)
        model = target_model(model, inplace)
        for feature, feature_direction in zip(names, directions):
            _monotonize_term(model, feature, feature_direction, pairs)
        return model
    if hasattr(model, "tree_"):
        return _monotonize_tree(model, names, directions, inplace, X_train, y_train, sample_weight)
    raise TypeError(f"monotonize needs a fitted PrAM or PrDT, got {type(model).__name__}")


# --------------------------------------------------------------------------- PrAM


def _main_term(model, feature) -> int:
    """Index of the ordered feature's main term, or an error naming the feature."""
    ebm = check_pram(model, "monotonize")
    index = resolve_term(model, feature)
    name = str(ebm.term_names_[index])
    if len(ebm.term_features_[index]) != 1:
        raise InputError(f"{feature!r} names the pair term {name!r}; give a feature (its main term is edited)",
                         argument="features", column=name)
    if isinstance(term_cuts(ebm, index, 0), dict):
        raise InputError(f"feature {name!r} is nominal: monotone constraints need an ordered feature",
                         argument="features", column=name)
    return index


def _monotonize_term(model, feature, direction: str, pairs: bool) -> None:
    ebm = model.ebm_
    index = _main_term(model, feature)
    term_features = tuple(ebm.term_features_[index])
    name = str(ebm.term_names_[index])
    before = np.array(ebm.term_scores_[index], dtype=float)
    after = before.copy()
    # The missing (first) and unknown (last) bins are outside the feature's order.
    after[1:-1], used = isotonic_shape(before[1:-1], ebm.bin_weights_[index][1:-1], direction)
    ebm.term_scores_[index] = after
    forget_bag_spread(ebm, index)
    pair_records = _monotonize_pairs(model, term_features[0], used) if pairs else []
    if not pairs:
        others = [str(ebm.term_names_[t]) for t, f in enumerate(ebm.term_features_) if len(f) > 1 and term_features[0] in f]
        if others:
            logger.warning("%s: pair terms %s still contain the feature; the model may not be monotone in it", name, others)
    change = np.abs(after - before)[1:-1]
    moved = int(np.sum(change > 1e-12))
    requested = f" (auto → {used})" if direction == "auto" else ""
    summary = (f"{name} made {used}{requested} by weighted PAV: {moved} of {change.size} bins moved, "
               f"max |Δscore| {change.max(initial=0.0):.4g}")
    if pair_records:
        summary += f"; pair terms made {used} along it: {', '.join(p['term'] for p in pair_records)}"
    append_record(model, {
        "operation": "monotonize",
        "summary": summary,
        "arguments": {"features": [name], "direction": used, "pairs": bool(pairs)},
        "term": name,
        "direction": used,
        "method": "weighted isotonic regression (PAV) of the shape function",
        "before": before.tolist(),
        "after": after.tolist(),
        "pairs": pair_records,
    })


def _monotonize_pairs(model, feature: int, direction: str) -> list[dict]:
    ebm = model.ebm_
    # Features made monotone by earlier edits: a pair of two such features must stay monotone in both.
    constrained = {}
    for record in edits_of(model):
        if record["operation"] == "monotonize" and "term" in record:
            term = resolve_term(model, record["term"])
            constrained[ebm.term_features_[term][0]] = record["direction"]
    constrained[feature] = direction
    records = []
    for index, term_features in enumerate(ebm.term_features_):
        if len(term_features) < 2 or feature not in term_features:
            continue
        directions = [constrained.get(f) for f in term_features]
        before = np.array(ebm.term_scores_[index], dtype=float)
        after = isotonic_pair(before, np.asarray(ebm.bin_weights_[index], dtype=float), directions)
        ebm.term_scores_[index] = after
        forget_bag_spread(ebm, index)
        records.append({"term": str(ebm.term_names_[index]), "before": before.tolist(), "after": after.tolist()})
    return records


def isotonic_pair(scores, weights, directions, *, tol: float = 1e-12, max_iter: int = 20000) -> np.ndarray:
    """Make a pair term's score grid monotone along its constrained axes (weighted least squares).

    ``scores``/``weights`` include the missing (first) and unknown (last) bins on both axes;
    ``directions`` holds, per axis, ``"increasing"``, ``"decreasing"`` or None (free). Along one
    constrained axis every slice gets a weighted PAV fit. When both axes are constrained the inner
    grid is the weighted projection onto the functions monotone in both, found by Dykstra's
    alternating projections between the two slice-wise PAV fits (their intersection has no
    closed form); empty cells get a tiny weight there so that they follow their neighbors.
    """
    out = np.array(scores, dtype=float)
    for axis, direction in enumerate(directions):
        if direction is None:
            continue
        # Slices along this axis, one per bin of the other axis (borders only when both are constrained:
        # the inner grid is handled jointly below).
        other = out.shape[1 - axis]
        positions = range(other) if directions[1 - axis] is None else (0, other - 1)
        for j in positions:
            index = (slice(1, -1), j) if axis == 0 else (j, slice(1, -1))
            out[index], _ = isotonic_shape(out[index], weights[index], direction)
    if None in directions:
        return out
    inner = (slice(1, -1), slice(1, -1))
    w = np.asarray(weights, dtype=float)[inner]
    w = np.where(w > 0, w, EMPTY_WEIGHT * (w[w > 0].mean() if (w > 0).any() else 1.0))
    x = out[inner].copy()
    p, q = np.zeros_like(x), np.zeros_like(x)
    sign = 1.0 if directions[0] == "increasing" else -1.0
    limit = tol * (1.0 + np.max(np.abs(x)))
    for _ in range(max_iter):
        y = _slice_pav(x + p, w, 0, directions[0])
        p = x + p - y
        x = _slice_pav(y + q, w, 1, directions[1])
        q = y + q - x
        # x is exactly monotone along axis 1; stop once axis 0 is too (to rounding).
        if np.min(sign * np.diff(x, axis=0), initial=0.0) >= -limit:
            break
    else:
        logger.warning("pair term: alternating projections stopped after %d iterations", max_iter)
    out[inner] = x
    return out


def _slice_pav(grid: np.ndarray, weights: np.ndarray, axis: int, direction: str) -> np.ndarray:
    """Weighted PAV of every 1-D slice of a 2-D grid along ``axis`` (strictly positive weights)."""
    out = np.empty_like(grid)
    increasing = direction == "increasing"
    for j in range(grid.shape[1 - axis]):
        index = (slice(None), j) if axis == 0 else (j, slice(None))
        out[index] = isotonic_regression(grid[index], weights=weights[index], increasing=increasing).x
    return out


# --------------------------------------------------------------------------- PrDT


def _tree_directions(model, names, directions, X_train, y_train) -> dict[int, int]:
    features = model.feature_names_
    signs = {}
    for name, direction in zip(names, directions):
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
            index = int(name)
            if not 0 <= index < len(features):
                raise InputError(f"feature index {index} out of range ({len(features)} features)", argument="features")
        elif str(name) in features:
            index = features.index(str(name))
        else:
            raise InputError(f"unknown feature {name!r}; features: {', '.join(features)}", argument="features",
                             column=str(name))
        if index in getattr(model, "categories_", {}):  # codes follow the target, not an order of the feature
            raise InputError(f"feature {features[index]!r} is nominal: monotone constraints need an ordered feature",
                             argument="features", column=features[index])
        if direction == "auto":
            column = X_train.iloc[:, index] if hasattr(X_train, "iloc") else np.asarray(X_train)[:, index]
            target = np.asarray(y_train)
            if hasattr(model, "classes_"):
                target = (target == model.classes_[-1]).astype(float)
            rho = spearmanr(np.asarray(column, dtype=float), target.astype(float)).statistic
            direction = "decreasing" if np.isfinite(rho) and rho < 0 else "increasing"
        signs[index] = 1 if direction == "increasing" else -1
    return signs


def _training_columns(model, X_train, y_train, action: str):
    """``X_train`` with a frame's columns matched by name and put in the model's order (as predict does):
    ``monotonic_cst`` and the "auto" direction read features by position. Rows without names, for a tree fit on
    named columns, become a frame under the model's names (taken by position, as predict reads them): the refit
    keeps the names the model was fit with (``feature_names_in_``, its printed rules)."""
    if X_train is None or y_train is None:
        raise ValueError(f"{action}: pass X_train and y_train")
    X_train = check_prediction_input(model, X_train, argument="X_train")
    names = getattr(model, "feature_names_in_", None)
    if names is not None and not isinstance(X_train, pd.DataFrame) and not _is_sparse(X_train):
        # As PrDT reads an array when predicting (_PrDTMixin._encode_checked): column by column.
        X_train = pd.DataFrame(np.asarray(X_train), columns=[str(n) for n in names]).infer_objects()
    return X_train


def _monotonize_tree(model, names, directions, inplace, X_train, y_train, sample_weight):
    X_train = _training_columns(model, X_train, y_train, "monotonize of a PrDT refits the tree with monotonic_cst")
    if len(getattr(model, "classes_", ())) > 2:
        raise ValueError("scikit-learn supports monotonic constraints for regression and binary classification only")
    signs = _tree_directions(model, names, directions, X_train, y_train)
    previous = None if model.monotonic_cst is None else [int(v) for v in model.monotonic_cst]
    constraint = list(previous) if previous is not None else [0] * model.n_features_in_
    for index, sign in signs.items():
        constraint[index] = sign
    edits = edits_of(model)
    node_edits = [e["operation"] for e in edits if e["operation"] in ("set_leaf_value", "set_threshold")]
    if node_edits:
        logger.warning("refitting the tree discards %d earlier node edit(s) (%s); they stay in the log as history",
                       len(node_edits), ", ".join(node_edits))
    metadata = copy.deepcopy(getattr(model, "metadata_", {}) or {})
    before_size = (model.n_leaves_, model.depth_)
    refit = model if inplace else clone(model)
    refit.set_params(monotonic_cst=constraint)
    refit.fit(X_train, y_train, sample_weight=sample_weight)
    refit.metadata_ = metadata
    features = [model.feature_names_[i] for i in signs]
    used = ["increasing" if signs[i] > 0 else "decreasing" for i in signs]
    append_record(refit, {
        "operation": "monotonize",
        "summary": (f"refit with monotonic_cst: {', '.join(f'{f} {d}' for f, d in zip(features, used))}; "
                    f"tree {before_size[0]} → {refit.n_leaves_} leaves, depth {before_size[1]} → {refit.depth_}"),
        "arguments": {"features": features, "direction": used},
        "method": "refit with scikit-learn monotonic_cst",
        "features": features,
        "direction": used,
        "monotonic_cst_before": previous,
        "monotonic_cst_after": constraint,
    })
    return refit


# --------------------------------------------------------------------------- undo


def _revert_monotonize(model, record, *, X_train=None, y_train=None, sample_weight=None):
    if hasattr(model, "ebm_"):
        for pair in reversed(record.get("pairs") or []):
            restore_term(model, pair["term"], pair["before"], pair["after"])
        restore_term(model, record["term"], record["before"], record["after"])
        return model
    # A refit cannot be inverted from the record: refit the original tree and replay earlier edits.
    X_train = _training_columns(model, X_train, y_train, "undoing monotonize of a PrDT refits the original tree")
    edits = edits_of(model)
    refits = [e for e in edits if e["operation"] == "monotonize"]
    original = clone(model).set_params(monotonic_cst=refits[0].get("monotonic_cst_before"))
    original.fit(X_train, y_train, sample_weight=sample_weight)
    original.metadata_ = {k: copy.deepcopy(v) for k, v in model.metadata_.items() if k != "edits"}
    return replay(original, edits[:-1], inplace=True, X_train=X_train, y_train=y_train, sample_weight=sample_weight)
