"""New inputs for the teacher to label: perturbations of the given rows, or draws from feature marginals.

A teacher can label any input, so a student can learn from more points than the training set has.
Two generators, both staying on each feature's observed range:

* :func:`perturb` — pick a row, move each feature by Gaussian noise *in that feature's quantile
  space* (its empirical CDF, via scikit-learn's ``QuantileTransformer``) and map back. Noise of
  ``scale=0.05`` moves a value by about 5 percentiles whatever the feature's units or skew, so
  heavy-tailed features (rates, sizes) are not pushed into regions the teacher never saw.
* :func:`sample_marginals` — draw every feature independently from its observed values
  (TREPAN-style); covers the box of the data but ignores correlations between features.

Integer-valued features (counts, 0/1 flags) are snapped to their nearest observed value. Tables with
text, ``category`` and boolean columns and missing values are accepted: :func:`perturb` moves numeric
values only (a new row keeps the picked row's categories and booleans, and its missing values stay
missing); :func:`sample_marginals` draws every column, missing values included, from its observed values.

Example
-------
>>> import numpy as np
>>> X = np.random.default_rng(0).normal(size=(100, 3))
>>> augment(X, 50, method="perturb", random_state=0).shape
(50, 3)
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.preprocessing import QuantileTransformer

from primo.models.encoding import column_kinds, frame_from_arrow

METHODS = ("perturb", "marginal", "both")


def augment(X, n_samples: int, *, method: str = "perturb", scale: float = 0.05, random_state=None):
    """Generate ``n_samples`` new inputs like ``X`` (same type, columns and dtypes; a pandas DataFrame for
    an Arrow table).

    Parameters
    ----------
    X : array-like of shape (n, d) (numbers, NaN = missing), DataFrame (any column kinds but dates) or a
        table in the Arrow C stream protocol (polars DataFrame, pyarrow Table), read as a DataFrame
        The inputs to augment around.
    n_samples : int
        Number of new rows.
    method : {"perturb", "marginal", "both"}, default "perturb"
        ``"both"`` draws half of the rows each way.
    scale : float, default 0.05
        Standard deviation of the perturbation noise in quantile space (0–1).
    random_state : int, numpy Generator or None

    Example
    -------
    >>> augment(X, 1000, method="both", random_state=0)  # doctest: +SKIP
    """
    if method not in METHODS:
        raise ValueError(f"augmentation method must be one of {METHODS}, got {method!r}")
    X = frame_from_arrow(X)  # once for both generators, and for the concatenation below
    rng = np.random.default_rng(random_state)
    if method == "perturb":
        return perturb(X, n_samples, scale=scale, random_state=rng)
    if method == "marginal":
        return sample_marginals(X, n_samples, random_state=rng)
    half = n_samples // 2
    first = perturb(X, half, scale=scale, random_state=rng)
    second = sample_marginals(X, n_samples - half, random_state=rng)
    if isinstance(X, pd.DataFrame):
        return pd.concat([first, second], ignore_index=True)
    return np.vstack([first, second])


def perturb(X, n_samples: int, *, scale: float = 0.05, random_state=None):
    """Rows of ``X`` picked at random and moved by Gaussian noise in each feature's quantile space.

    Parameters
    ----------
    X : array-like of shape (n, d) (numbers, NaN = missing), DataFrame (any column kinds but dates) or
        Arrow table (read as a DataFrame, as in :func:`augment`)
    n_samples : int
    scale : float, default 0.05
        Noise standard deviation in quantile units (0.05 ≈ 5 percentiles).
    random_state : int, numpy Generator or None

    Example
    -------
    >>> perturb(X, 500, scale=0.02, random_state=0)  # doctest: +SKIP
    """
    if not 0 < scale <= 1:
        raise ValueError(f"scale must be in (0, 1] (quantile units), got {scale}")
    table, wrap = _table(frame_from_arrow(X), n_samples)
    numeric = _numeric_columns(table)
    values = table[numeric].to_numpy(dtype=float)
    rng = np.random.default_rng(random_state)
    rows = rng.integers(len(table), size=n_samples)
    new = table.iloc[rows].reset_index(drop=True)  # text, category and bool values: the picked row's
    if numeric:
        # NaN is ignored when fitting the quantiles and kept by the transforms: missing stays missing.
        quantiles = QuantileTransformer(n_quantiles=min(1000, len(values)), subsample=None)
        uniform = quantiles.fit_transform(values)
        moved = np.clip(uniform[rows] + rng.normal(scale=scale, size=(n_samples, len(numeric))), 0.0, 1.0)
        moved_values = quantiles.inverse_transform(moved) if n_samples else values[:0]
        new[numeric] = _snap_integer_columns(moved_values, values)
    return wrap(new)


def sample_marginals(X, n_samples: int, *, random_state=None):
    """Rows whose features are drawn independently from each column's observed values (``X`` as in
    :func:`perturb`).

    Example
    -------
    >>> sample_marginals(X, 500, random_state=0)  # doctest: +SKIP
    """
    table, wrap = _table(frame_from_arrow(X), n_samples)
    rng = np.random.default_rng(random_state)
    rows = rng.integers(len(table), size=(n_samples, table.shape[1]))
    new = pd.concat([table.iloc[rows[:, j], j].reset_index(drop=True) for j in range(table.shape[1])], axis=1)
    return wrap(new)


def _table(X, n_samples):
    """X as a DataFrame with positional columns, and a function that turns new rows back into X's type."""
    if int(n_samples) != n_samples or n_samples < 0:
        raise ValueError(f"n_samples must be a non-negative integer, got {n_samples}")
    if isinstance(X, pd.DataFrame):
        column_kinds(X)  # a clear error for date/time columns
        table = X.set_axis(range(X.shape[1]), axis=1).reset_index(drop=True)
        dtypes = X.dtypes.to_dict()

        def wrap(new):
            return new.set_axis(X.columns, axis=1).astype(dtypes)
    else:
        try:
            values = np.asarray(X, dtype=float)
        except (TypeError, ValueError):
            raise ValueError("augmentation of arrays needs numbers; pass text columns in a DataFrame") from None
        if values.ndim != 2:
            raise ValueError(f"augmentation needs a 2-D X, got shape {values.shape}")
        table = pd.DataFrame(values)
        dtype = np.asarray(X).dtype

        def wrap(new):
            out = new.to_numpy(dtype=float)
            return out.astype(dtype) if dtype.kind in "iub" else out
    if len(table) < 2:
        raise ValueError(f"augmentation needs a 2-D X with at least 2 rows, got shape {table.shape}")
    numeric = table[_numeric_columns(table)].to_numpy(dtype=float)
    if np.isinf(numeric).any():
        raise ValueError("augmentation needs finite (or missing) features; X contains infinity")
    return table, wrap


def _numeric_columns(table: pd.DataFrame) -> list:
    """Columns holding numbers (not booleans, which keep the picked row's value like categories)."""
    return [c for c in table.columns
            if pd.api.types.is_numeric_dtype(table[c]) and not pd.api.types.is_bool_dtype(table[c])]


def _snap_integer_columns(new: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Move integer-valued features (counts, flags) to their nearest observed value; NaN stays NaN."""
    for j in range(observed.shape[1]):
        column = observed[:, j][~np.isnan(observed[:, j])]
        present = ~np.isnan(new[:, j])
        if column.size == 0 or not np.all(column == np.round(column)):
            continue
        levels = np.unique(column)
        if len(levels) == 1:
            new[present, j] = levels[0]
            continue
        values = new[present, j]
        upper = np.clip(np.searchsorted(levels, values), 1, len(levels) - 1)
        lower_values, upper_values = levels[upper - 1], levels[upper]
        new[present, j] = np.where(values - lower_values <= upper_values - values, lower_values, upper_values)
    return new
