"""New inputs for the teacher to label: perturbations of the given rows, or draws from feature marginals.

A teacher can label any input, so a student can learn from more points than the training set has.
Two generators, both staying on each feature's observed range:

* :func:`perturb` — pick a row, move each feature by Gaussian noise *in that feature's quantile
  space* (its empirical CDF, via scikit-learn's ``QuantileTransformer``) and map back. Noise of
  ``scale=0.05`` moves a value by about 5 percentiles whatever the feature's units or skew, so
  heavy-tailed features (rates, sizes) are not pushed into regions the teacher never saw.
* :func:`sample_marginals` — draw every feature independently from its observed values
  (TREPAN-style); covers the box of the data but ignores correlations between features.

Integer-valued features (counts, 0/1 flags) are snapped to their nearest observed value.

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

METHODS = ("perturb", "marginal", "both")


def augment(X, n_samples: int, *, method: str = "perturb", scale: float = 0.05, random_state=None):
    """Generate ``n_samples`` new inputs like ``X`` (same type, columns and dtypes).

    Parameters
    ----------
    X : array-like of shape (n, d) or DataFrame, numeric
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
    X : array-like of shape (n, d) or DataFrame, numeric
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
    values, wrap = _numeric(X, n_samples)
    rng = np.random.default_rng(random_state)
    quantiles = QuantileTransformer(n_quantiles=min(1000, len(values)), subsample=None)
    uniform = quantiles.fit_transform(values)
    rows = rng.integers(len(values), size=n_samples)
    moved = np.clip(uniform[rows] + rng.normal(scale=scale, size=(n_samples, values.shape[1])), 0.0, 1.0)
    new = quantiles.inverse_transform(moved) if n_samples else values[:0]
    return wrap(_snap_integer_columns(new, values))


def sample_marginals(X, n_samples: int, *, random_state=None):
    """Rows whose features are drawn independently from each column's observed values.

    Example
    -------
    >>> sample_marginals(X, 500, random_state=0)  # doctest: +SKIP
    """
    values, wrap = _numeric(X, n_samples)
    rng = np.random.default_rng(random_state)
    rows = rng.integers(len(values), size=(n_samples, values.shape[1]))
    return wrap(np.take_along_axis(values, rows, axis=0) if n_samples else values[:0])


def _numeric(X, n_samples):
    """X as a float array, and a function that turns new rows back into X's type."""
    if int(n_samples) != n_samples or n_samples < 0:
        raise ValueError(f"n_samples must be a non-negative integer, got {n_samples}")
    if isinstance(X, pd.DataFrame):
        non_numeric = [str(c) for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
        if non_numeric:
            raise ValueError(f"augmentation needs numeric features; non-numeric columns: {non_numeric}")
        values = X.to_numpy(dtype=float)
        dtypes = X.dtypes

        def wrap(new):
            return pd.DataFrame(new, columns=X.columns).astype(dtypes.to_dict())
    else:
        try:
            values = np.asarray(X, dtype=float)
        except (TypeError, ValueError):
            raise ValueError("augmentation needs numeric features; X has non-numeric values") from None
        dtype = np.asarray(X).dtype

        def wrap(new):
            return new.astype(dtype) if dtype.kind in "iub" else new
    if values.ndim != 2 or len(values) < 2:
        raise ValueError(f"augmentation needs a 2-D X with at least 2 rows, got shape {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError("augmentation needs finite features; X contains NaN or infinity")
    return values, wrap


def _snap_integer_columns(new: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Move integer-valued features (counts, flags) to their nearest observed value."""
    for j in range(observed.shape[1]):
        column = observed[:, j]
        if not np.all(column == np.round(column)):
            continue
        levels = np.unique(column)
        upper = np.clip(np.searchsorted(levels, new[:, j]), 1, len(levels) - 1) if len(levels) > 1 else None
        if upper is None:
            new[:, j] = levels[0]
            continue
        lower_values, upper_values = levels[upper - 1], levels[upper]
        new[:, j] = np.where(new[:, j] - lower_values <= upper_values - new[:, j], lower_values, upper_values)
    return new
