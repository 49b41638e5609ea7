"""Perturbations used to test how robust the slow-read predictors are.

* ``add_feature_noise``: the Primo chapter's robustness test (§5.4.3): Gaussian noise with
  σ = 5 on the 4 history queue lengths and σ = 100 µs on the 4 history latencies. The current
  queue length is left alone, as in the paper ("the most significant feature, we do not modify
  its value to avoid changing the real label"). Noisy values are rounded to integers and clipped
  at 0, since queue lengths and latencies are non-negative integers (and LinnOS's digit encoding
  needs them so).
* ``subsample_training``: keep a random fraction (10% by default) of the training reads, for
  the "less training data" experiment; stratified so the slow fraction is kept.

Example
-------
>>> noisy = add_feature_noise(reads[RAW_FEATURE_NAMES], random_state=0)  # doctest: +SKIP
>>> X_small, y_small = subsample_training(X_train, y_train, fraction=0.1, random_state=0)  # doctest: +SKIP
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from .features import LATENCY_FEATURES, PENDING_FEATURES, RAW_FEATURE_NAMES

HISTORY_PENDING = PENDING_FEATURES[1:]  # the current queue length stays exact


def add_feature_noise(
    raw: pd.DataFrame,
    pending_sigma: float = 5.0,
    latency_sigma_us: float = 100.0,
    random_state: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Return a copy of the raw features with Gaussian noise on the history columns.

    Parameters
    ----------
    raw : DataFrame
        Raw features with the columns ``features.RAW_FEATURE_NAMES`` (other columns are kept
        unchanged).
    pending_sigma : float
        Standard deviation added to ``pending_prev1..4``.
    latency_sigma_us : float
        Standard deviation (µs) added to ``latency_prev1..4``.
    random_state : int, Generator or None
        Seed or generator of the noise.

    Example
    -------
    >>> raw = pd.DataFrame([[10, 10, 10, 10, 10, 500, 500, 500, 500]], columns=RAW_FEATURE_NAMES)
    >>> add_feature_noise(raw, random_state=0)["pending_now"].item()
    10
    """
    missing = [name for name in RAW_FEATURE_NAMES if name not in raw.columns]
    if missing:
        raise ValueError(f"raw features lack columns {missing}")
    rng = np.random.default_rng(random_state)
    noisy = raw.copy()
    for columns, sigma in ((HISTORY_PENDING, pending_sigma), (LATENCY_FEATURES, latency_sigma_us)):
        values = raw[columns].to_numpy(float) + rng.normal(0.0, sigma, size=(len(raw), len(columns)))
        noisy[columns] = np.maximum(np.rint(values), 0).astype(np.int64)
    return noisy


def subsample_training(X, y, fraction: float = 0.1, random_state: int | None = None):
    """A stratified random ``fraction`` of the training rows (``X`` and ``y`` alike).

    Parameters
    ----------
    X : DataFrame or array
        Training features.
    y : array-like
        Labels (stratification keeps their proportions).
    fraction : float in (0, 1)
        Share of rows kept.
    random_state : int or None

    Example
    -------
    >>> X_small, y_small = subsample_training(np.arange(20).reshape(10, 2), [0, 1] * 5, 0.4, 0)
    >>> len(X_small), sorted(y_small)
    (4, [0, 0, 1, 1])
    """
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must be in (0, 1), got {fraction}")
    X_small, _, y_small, _ = train_test_split(
        X, y, train_size=fraction, stratify=y, random_state=random_state
    )
    return X_small, y_small
