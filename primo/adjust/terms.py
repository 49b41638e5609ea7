"""Explicit edits of PrAM shape functions: set, shift or scale a term's scores over chosen bins.

A PrAM's prediction is ``link⁻¹(intercept + Σ_t score_t[bin of x])``; ``model.ebm_.term_scores_[t]``
holds one score per bin, index 0 being the *missing* bin and the last index the *unknown* bin.
The edits here address the **inner** bins (the ones a value falls in), numbered from 0, either
directly (``bins=``) or through feature values (``values=``, ``value_range=``), which is what a
developer thinks in and what survives a refit with different cut points.

Every edit returns a new model unless ``inplace=True`` and appends a record to
``model.metadata_["edits"]`` (see :mod:`primo.adjust.log`). Term edits support regression and
binary classification (multiclass terms have one score column per class).

Example
-------
>>> from primo.adjust import shift_term_scores
>>> edited = shift_term_scores(pram, "feature_0083", 1.5, values=[1])  # doctest: +SKIP
>>> edited.metadata_["edits"][-1]["summary"]  # doctest: +SKIP
'shift_term_scores: feature_0083 bins [1] shifted by +1.5 (scores 0.31 → 1.81)'
"""
from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from primo.adjust.log import append_record, jsonable, operation, target_model
from primo.errors import InputError

_TOLERANCE = 1e-9


# --------------------------------------------------------------------------- resolution


def check_pram(model, what: str = "this edit"):
    """The fitted EBM of a regression or binary PrAM; a clear error otherwise."""
    if not hasattr(model, "ebm_"):
        raise TypeError(f"{what} needs a fitted PrAM (PrAMRegressor/PrAMClassifier), got {type(model).__name__}")
    check_is_fitted(model, "ebm_")
    if len(getattr(model, "classes_", ())) > 2:
        raise ValueError(f"{what} supports regression and binary PrAMs; this model has "
                         f"{len(model.classes_)} classes (one score column per class)")
    return model.ebm_


def resolve_term(model, term) -> int:
    """Index of a PrAM term given by term name, feature name (its main term) or integer index.

    Example
    -------
    >>> resolve_term(pram, "A_i")  # doctest: +SKIP
    1
    """
    ebm = model.ebm_
    names = [str(n) for n in ebm.term_names_]
    if isinstance(term, (int, np.integer)) and not isinstance(term, bool):
        if not 0 <= term < len(names):
            raise InputError(f"term index {term} out of range (the model has {len(names)} terms)", argument="term")
        return int(term)
    if str(term) in names:
        return names.index(str(term))
    features = model.feature_names_
    if str(term) in features:
        feature = features.index(str(term))
        for index, term_features in enumerate(ebm.term_features_):
            if tuple(term_features) == (feature,):
                return index
        raise InputError(f"feature {term!r} has no main (1-D) term in this model", argument="term", column=str(term))
    raise InputError(f"unknown term {term!r}; terms: {', '.join(names)}", argument="term", column=str(term))


def term_cuts(ebm, term: int, axis: int):
    """Bin definition of one axis of a term: cut points (continuous) or category → bin map."""
    features = ebm.term_features_[term]
    levels = ebm.bins_[features[axis]]
    # interpret bins pairs with the coarser second level when there is one.
    return levels[min(len(features), len(levels)) - 1]


def value_bins(model, term: int, values, axis: int = 0) -> np.ndarray:
    """Inner bin of each value along one axis of a term; -1 for missing or unknown values.

    Example
    -------
    >>> value_bins(pram, resolve_term(pram, "A_i"), [3.0, 40.0])  # doctest: +SKIP
    array([0, 6])
    """
    ebm = model.ebm_
    cuts = term_cuts(ebm, term, axis)
    values = list(np.ravel(np.asarray(values, dtype=object)))
    if isinstance(cuts, dict):  # nominal: category -> bin index, 1-based (0 = missing)
        return np.array([int(cuts.get(v, cuts.get(str(v), 0))) - 1 for v in values], dtype=int)
    numbers = np.array([np.nan if v is None else v for v in values], dtype=float)
    n_inner = ebm.term_scores_[term].shape[axis] - 2
    # interpret puts a value equal to a cut point in the bin above it.
    bins = np.clip(np.searchsorted(np.asarray(cuts, dtype=float), numbers, side="right"), 0, n_inner - 1)
    return np.where(np.isnan(numbers), -1, bins)


def _inner_bins_for_values(model, term: int, axis: int, values) -> list[int]:
    ebm = model.ebm_
    bins = value_bins(model, term, values, axis)
    if np.any(bins < 0):
        bad = [v for v, b in zip(np.ravel(np.asarray(values, dtype=object)), bins) if b < 0]
        raise ValueError(f"values {bad} fall in no bin of term {ebm.term_names_[term]!r} "
                         "(missing, or a category the model never saw)")
    return sorted({int(b) for b in bins})


def select_bins(model, term: int, *, bins=None, values=None, value_range=None) -> list[list[int]]:
    """Inner-bin indices selected along each axis of a term (one list per feature of the term).

    Parameters
    ----------
    bins : None (every inner bin), an int, a slice, or a sequence of inner-bin indices; for a pair
        term a tuple of two such selections.
    values : feature values whose bins are selected (categories for nominal features); for a pair
        term a tuple of two lists (None = every bin along that axis).
    value_range : ``(low, high)`` for a continuous 1-D term: every bin that holds a value in it
        (None for an open end).
    """
    ebm = model.ebm_
    n_axes = len(ebm.term_features_[term])
    given = [name for name, v in (("bins", bins), ("values", values), ("value_range", value_range)) if v is not None]
    if len(given) > 1:
        raise ValueError(f"give at most one of bins, values and value_range (got {', '.join(given)})")
    if value_range is not None:
        if n_axes != 1:
            raise ValueError("value_range selects bins of a 1-D term; use values=(…, …) or bins=(…, …) for pairs")
        low, high = value_range
        low, high = (-np.inf if low is None else low), (np.inf if high is None else high)  # open ends
        if isinstance(term_cuts(ebm, term, 0), dict):
            raise ValueError(f"value_range needs a continuous feature; {ebm.term_names_[term]!r} is nominal")
        first = _inner_bins_for_values(model, term, 0, [low])[0]
        last = _inner_bins_for_values(model, term, 0, [high])[0]
        if last < first:
            raise ValueError(f"empty value_range {value_range!r} (low must be <= high)")
        return [list(range(first, last + 1))]
    spec = values if values is not None else bins
    per_axis = _per_axis(spec, n_axes, "values" if values is not None else "bins")
    selected = []
    for axis, axis_spec in enumerate(per_axis):
        n_inner = ebm.term_scores_[term].shape[axis] - 2
        if axis_spec is None:
            selected.append(list(range(n_inner)))
        elif values is not None:
            selected.append(_inner_bins_for_values(model, term, axis, axis_spec))
        else:
            selected.append(_bin_indices(axis_spec, n_inner, ebm.term_names_[term]))
    return selected


def _per_axis(spec, n_axes: int, name: str) -> list:
    if n_axes == 1:
        return [spec]
    if spec is None:
        return [None] * n_axes
    if not isinstance(spec, (tuple, list)) or len(spec) != n_axes:
        raise ValueError(f"for a pair term, {name} must be a tuple of {n_axes} selections (None = all)")
    return list(spec)


def _bin_indices(spec, n_inner: int, term_name) -> list[int]:
    if isinstance(spec, slice):
        return list(range(n_inner))[spec]
    indices = np.atleast_1d(np.asarray(spec))
    if indices.dtype.kind not in "iu":
        raise ValueError(f"bins must be integers (inner-bin indices), got {spec!r}")
    bad = indices[(indices < 0) | (indices >= n_inner)]
    if bad.size:
        raise ValueError(f"bins {bad.tolist()} out of range for term {term_name!r} ({n_inner} inner bins: 0..{n_inner - 1})")
    return sorted({int(i) for i in indices})


def _cells(selected: list[list[int]]):
    """Index into ``term_scores_[t]`` (which has the missing bin first) for the selected inner bins."""
    return np.ix_(*[np.asarray(axis, dtype=int) + 1 for axis in selected])


def forget_bag_spread(ebm, term: int) -> None:
    """Drop the outer-bag scores of an edited term: they no longer describe its scores (as interpret does)."""
    ebm.bagged_scores_[term] = None
    ebm.standard_deviations_[term] = None


def restore_term(model, term_name: str, before, after) -> None:
    """Put a term's scores back to ``before``, after checking they still equal ``after``."""
    ebm = model.ebm_
    index = resolve_term(model, term_name)
    current = np.asarray(ebm.term_scores_[index], dtype=float)
    if current.shape != np.shape(after) or not np.allclose(current, after, rtol=0, atol=_TOLERANCE):
        raise ValueError(f"term {term_name!r} changed since this edit was logged; cannot undo it safely")
    ebm.term_scores_[index] = np.asarray(before, dtype=float)


# --------------------------------------------------------------------------- edits


def _edit_scores(model, operation_name, transform, describe, term, bins, values, value_range, inplace, **parameter):
    model = target_model(model, inplace)
    ebm = check_pram(model, operation_name)
    index = resolve_term(model, term)
    selected = select_bins(model, index, bins=bins, values=values, value_range=value_range)
    before = np.array(ebm.term_scores_[index], dtype=float)
    after = before.copy()
    cells = _cells(selected)
    after[cells] = transform(before[cells])
    ebm.term_scores_[index] = after
    forget_bag_spread(ebm, index)
    name = str(ebm.term_names_[index])
    arguments = {"term": name, **parameter}
    for key, spec in (("values", values), ("value_range", value_range)):
        if spec is not None:
            arguments[key] = jsonable(spec)
    if values is None and value_range is None:
        arguments["bins"] = selected[0] if len(selected) == 1 else selected
    where = selected[0] if len(selected) == 1 else selected
    changed = before[cells].ravel(), after[cells].ravel()
    summary = (f"{name}: {describe} on {changed[0].size} bin(s) {_short_bins(where)}; "
               f"scores {_range_text(changed[0])} → {_range_text(changed[1])}")
    append_record(model, {
        "operation": operation_name,
        "summary": summary,
        "arguments": arguments,
        "term": name,
        "bins": where,
        "before": before.tolist(),
        "after": after.tolist(),
    })
    return model


def _short_bins(bins) -> str:
    if bins and isinstance(bins[0], list):
        return " × ".join(_short_bins(b) for b in bins)
    if len(bins) > 2 and bins == list(range(bins[0], bins[-1] + 1)):
        return f"{bins[0]}–{bins[-1]}"
    return str(bins)


def _range_text(values: np.ndarray) -> str:
    low, high = float(np.min(values)), float(np.max(values))
    return f"{low:.4g}" if np.isclose(low, high) else f"[{low:.4g}, {high:.4g}]"


def _revert_scores(model, record, **_):
    restore_term(model, record["term"], record["before"], record["after"])
    forget_bag_spread(model.ebm_, resolve_term(model, record["term"]))
    return model


@operation("set_term_scores", revert=_revert_scores)
def set_term_scores(model, term, value, *, bins=None, values=None, value_range=None, inplace=False):
    """Set the score of a PrAM term to ``value`` on the selected bins.

    Parameters
    ----------
    model : fitted regression or binary PrAM.
    term : term name, feature name (its main term) or term index.
    value : new score (in the model's raw units: target units, or log-odds for classifiers).
    bins, values, value_range : which bins (see :func:`select_bins`; default: every inner bin).
    inplace : edit ``model`` itself instead of a copy.

    Example
    -------
    >>> capped = set_term_scores(pram, "R_ec", 0.0, value_range=(0.8, None))  # doctest: +SKIP
    """
    value = float(value)
    return _edit_scores(model, "set_term_scores", lambda s: np.full_like(s, value), f"set to {value:.6g}",
                        term, bins, values, value_range, inplace, value=value)


@operation("shift_term_scores", revert=_revert_scores)
def shift_term_scores(model, term, delta, *, bins=None, values=None, value_range=None, inplace=False):
    """Add ``delta`` to the score of a PrAM term on the selected bins.

    Parameters are as for :func:`set_term_scores`; ``delta`` is in raw units (log-odds for classifiers).

    Example
    -------
    >>> boosted = shift_term_scores(pram, "feature_0083", 2.0, values=[1])  # doctest: +SKIP
    """
    delta = float(delta)
    return _edit_scores(model, "shift_term_scores", lambda s: s + delta, f"shifted by {delta:+.6g}",
                        term, bins, values, value_range, inplace, delta=delta)


@operation("scale_term_scores", revert=_revert_scores)
def scale_term_scores(model, term, factor, *, bins=None, values=None, value_range=None, inplace=False):
    """Multiply the score of a PrAM term by ``factor`` on the selected bins (0 silences them).

    Parameters are as for :func:`set_term_scores`.

    Example
    -------
    >>> damped = scale_term_scores(pram, "R_i & R_res", 0.5)  # doctest: +SKIP
    """
    factor = float(factor)
    return _edit_scores(model, "scale_term_scores", lambda s: s * factor, f"scaled by {factor:.6g}",
                        term, bins, values, value_range, inplace, factor=factor)

