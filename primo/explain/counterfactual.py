"""Counterfactual explanations as plain data, whatever object produced them.

:mod:`primo.adjust` computes counterfactuals (the smallest changes of x that the model decides
otherwise, or the k reference rows nearest to x with the desired prediction); this module only
checks and normalizes such a result so that reports can render it: ``neighbors`` (the
counterfactual rows, with ``distance`` and ``prediction`` columns), ``differences``
(counterfactual − x per feature), for PrAM ``term_deltas`` (per-term contribution changes) and,
when the producer gives them, ``method`` and ``changes`` (per option, feature → (old, new)). Any
object with those attributes is accepted.

Example
-------
>>> view = as_counterfactual(result, label="row 17")  # doctest: +SKIP
>>> view.neighbors[["distance", "prediction"]]  # doctest: +SKIP
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from primo.explain._values import plain


@dataclass(frozen=True)
class CounterfactualView:
    """A counterfactual explanation of one row, checked and normalized.

    ``term_deltas`` is a DataFrame with one row per neighbor and one column per term, or None.
    ``query`` is the explained row (feature → value) and ``desired`` the requested outcome when
    the result object carries them (attributes ``x`` and ``desired``), else None. ``method`` is
    ``"structural"`` (smallest changes) or ``"nearest"`` (existing rows; also when not said);
    ``changes`` lists, for structural results, each option's feature → (old, new).
    """

    label: str
    query: dict | None
    desired: object
    neighbors: pd.DataFrame
    differences: pd.DataFrame
    term_deltas: pd.DataFrame | None
    method: str = "nearest"
    changes: tuple = ()

    @property
    def changed_features(self) -> list[str]:
        """Features the first counterfactual changes: its moved features (structural), or those that
        differ from x, largest |difference| first (nearest)."""
        if self.changes:
            return list(self.changes[0])
        if self.differences.empty:
            return []
        first = pd.to_numeric(self.differences.iloc[0], errors="coerce").abs()
        return [str(k) for k in first[first > 0].sort_values(ascending=False).index]


def as_counterfactual(result, label: str = "counterfactual") -> CounterfactualView:
    """Check a counterfactual result object and return it as a :class:`CounterfactualView`.

    Parameters
    ----------
    result : object with ``neighbors`` and ``differences`` DataFrames and an optional
        ``term_deltas`` (DataFrame, Series, dict or None); optional ``x`` and ``desired``.
    label : display name (e.g. which row it explains).

    Raises
    ------
    TypeError, ValueError
        The object lacks an attribute or a required column; the message names it.

    Example
    -------
    >>> from sklearn.datasets import load_wine
    >>> from primo import PrDTClassifier
    >>> from primo.adjust import counterfactuals
    >>> X, y = load_wine(return_X_y=True, as_frame=True)
    >>> tree = PrDTClassifier(ccp_alpha=0.01, random_state=0).fit(X, y)
    >>> view = as_counterfactual(counterfactuals(tree, X.iloc[0], 1, X, k=2), label="row 0")
    >>> view.method, view.changes
    ('structural', ({'magnesium': (127.0, 136.0)}, {'flavanoids': (3.06, 2.16)}))
    """
    for attribute in ("neighbors", "differences"):
        if not isinstance(getattr(result, attribute, None), pd.DataFrame):
            raise TypeError(f"counterfactual {label!r}: expected a DataFrame attribute {attribute!r} "
                            f"on {type(result).__name__}")
    neighbors, differences = result.neighbors, result.differences
    missing = [c for c in ("distance", "prediction") if c not in neighbors.columns]
    if missing:
        raise ValueError(f"counterfactual {label!r}: neighbors lack the column(s) {missing}")
    if len(differences) != len(neighbors):
        raise ValueError(f"counterfactual {label!r}: {len(neighbors)} neighbors but {len(differences)} rows of differences")
    deltas = getattr(result, "term_deltas", None)
    if deltas is not None:
        if isinstance(deltas, dict):
            deltas = pd.Series(deltas)
        if isinstance(deltas, pd.Series):
            deltas = deltas.to_frame().T
        if not isinstance(deltas, pd.DataFrame):
            raise TypeError(f"counterfactual {label!r}: term_deltas must be a DataFrame, Series, dict or None, "
                            f"got {type(deltas).__name__}")
    query = getattr(result, "x", None)
    if query is not None:
        if isinstance(query, pd.DataFrame):
            query = query.iloc[0]
        query = (dict(query.items()) if isinstance(query, pd.Series)
                 else dict(zip(differences.columns, np.ravel(np.asarray(query, dtype=object)))))
        query = {str(k): plain(v) for k, v in query.items()}
    method = getattr(result, "method", "nearest")
    if method not in ("structural", "nearest"):
        raise ValueError(f"counterfactual {label!r}: method must be 'structural' or 'nearest', got {method!r}")
    changes = tuple({str(f): (plain(old), plain(new)) for f, (old, new) in dict(change).items()}
                    for change in getattr(result, "changes", ()) or ())
    return CounterfactualView(label=str(label), query=query, desired=plain(getattr(result, "desired", None)),
                              neighbors=neighbors, differences=differences, term_deltas=deltas, method=method,
                              changes=changes)
