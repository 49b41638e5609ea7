"""LinnOS per-read features, their two encodings, and the fast/slow labels.

For every **read** I/O LinnOS looks at nine numbers (Hao et al., OSDI'20, §4):

* ``pending_now``: I/Os of either type in flight when the read is submitted (the queue length);
* ``pending_prev1..4``: the queue length when each of the 4 history reads was submitted;
* ``latency_prev1..4``: the latencies (µs) of the 4 history reads (``prev1`` = most recent).

The history reads are, by default (``history="completed"``), the 4 reads that **completed most
recently before** this read's submission: that is what LinnOS records in the kernel and what is
knowable at prediction time. ``history="submitted"`` takes the 4 reads submitted just before
(the simpler variant of the Primo artifact); it can use the latency of a read still in flight,
which a deployed predictor cannot know. Reads with fewer than 4 history reads (the start of a
trace) get zeros, as an empty in-kernel history would.

Encodings:

* Primo: the 9 raw integers, named ``RAW_FEATURE_NAMES`` (in this order);
* LinnOS: 31 decimal digits, most significant first: 3 digits for each of the 5 queue lengths
  (15) and 4 digits for each of the 4 latencies (16). Latencies are expressed in
  ``latency_unit_us`` (1 µs by default, as LinnOS stores them), so 4 digits cover 0–9,999 µs;
  larger values saturate at 9999 and queue lengths above 999 at 999. On the FlashNet NVMe
  traces this caps only the slowest ~0.1–0.3% of reads, all of them far above any slow
  threshold (≈ 2.6–3.7 ms), so the fast/slow information survives.

Labels: a read is slow (1) if its latency is above a threshold computed from training reads,
either the inflection point of the latency CDF (LinnOS) or a percentile (p85, the Primo
artifact), see ``slow_threshold``.

Example
-------
>>> from adapters.linnos.trace import load_trace
>>> reads = read_features(load_trace("tencent.cut.per_50k.rw_60_40.490.trace"))  # doctest: +SKIP
>>> X31 = digit_encode(reads[RAW_FEATURE_NAMES])  # doctest: +SKIP
>>> y = label_slow(reads["latency_us"], slow_threshold(reads["latency_us"], "p85"))  # doctest: +SKIP
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .trace import READ

N_HISTORY = 4
PENDING_FEATURES = ["pending_now"] + [f"pending_prev{k}" for k in range(1, N_HISTORY + 1)]
LATENCY_FEATURES = [f"latency_prev{k}" for k in range(1, N_HISTORY + 1)]
RAW_FEATURE_NAMES = PENDING_FEATURES + LATENCY_FEATURES
PENDING_DIGITS, LATENCY_DIGITS = 3, 4
N_DIGIT_FEATURES = len(PENDING_FEATURES) * PENDING_DIGITS + len(LATENCY_FEATURES) * LATENCY_DIGITS
HISTORY_MODES = ("completed", "submitted")


def read_features(trace: pd.DataFrame, history: str = "completed") -> pd.DataFrame:
    """One row per read I/O, in submit order: ``submit_us``, ``latency_us`` and the 9 raw features.

    Parameters
    ----------
    trace : DataFrame
        Output of ``adapters.linnos.trace.load_trace`` (sorted by ``submit_us``, with ``pending``).
    history : {"completed", "submitted"}
        Which 4 earlier reads form the history (see the module docstring).

    Returns
    -------
    DataFrame with columns ``submit_us``, ``latency_us`` and ``RAW_FEATURE_NAMES`` (all int64),
    index reset.

    Example
    -------
    >>> reads = read_features(trace, history="completed")  # doctest: +SKIP
    >>> list(reads.columns[:3])  # doctest: +SKIP
    ['submit_us', 'latency_us', 'pending_now']
    """
    missing = {"submit_us", "latency_us", "io_type", "pending"} - set(trace.columns)
    if missing:
        raise ValueError(f"trace lacks columns {sorted(missing)}; load it with load_trace()")
    if history not in HISTORY_MODES:
        raise ValueError(f"history must be one of {HISTORY_MODES}, got {history!r}")
    reads = trace.loc[trace["io_type"] == READ, ["submit_us", "latency_us", "pending"]]
    submit = reads["submit_us"].to_numpy(np.int64)
    latency = reads["latency_us"].to_numpy(np.int64)
    pending = reads["pending"].to_numpy(np.int64)
    if np.any(np.diff(submit) < 0):
        raise ValueError("trace must be sorted by submit_us; load it with load_trace()")

    history_index = _history_index(submit, latency, history)
    out = {"submit_us": submit, "latency_us": latency, "pending_now": pending}
    for k in range(1, N_HISTORY + 1):
        j = history_index[:, k - 1]
        valid = j >= 0
        out[f"pending_prev{k}"] = np.where(valid, pending[np.maximum(j, 0)], 0)
        out[f"latency_prev{k}"] = np.where(valid, latency[np.maximum(j, 0)], 0)
    return pd.DataFrame(out)[["submit_us", "latency_us"] + RAW_FEATURE_NAMES]


def _history_index(submit: np.ndarray, latency: np.ndarray, history: str) -> np.ndarray:
    """(n, 4) positions of each read's history reads, most recent first; -1 where none exists."""
    lags = np.arange(1, N_HISTORY + 1)
    if history == "submitted":
        return np.arange(submit.size)[:, None] - lags
    # Reads ordered by completion time; the reads done strictly before submission i are the first
    # n_done[i] of that order, so the k-th most recent one sits at position n_done[i] - k.
    end = submit + latency
    by_end = np.argsort(end, kind="stable")
    n_done = np.searchsorted(end[by_end], submit, side="left")
    position = n_done[:, None] - lags
    return np.where(position >= 0, by_end[np.maximum(position, 0)], -1)


def digit_encode(raw, latency_unit_us: int = 1) -> np.ndarray:
    """LinnOS's 31-input encoding of the 9 raw features (decimal digits, most significant first).

    Parameters
    ----------
    raw : DataFrame or array of shape (n, 9)
        Raw features in ``RAW_FEATURE_NAMES`` order (a DataFrame is reordered by name).
        Non-negative; fractional values are floored.
    latency_unit_us : int
        Unit of the latency digits in µs (1 = LinnOS). Larger units trade resolution for range.

    Returns
    -------
    numpy.ndarray of shape (n, 31), dtype int8, values 0–9.

    Example
    -------
    >>> digit_encode(np.array([[15, 0, 0, 0, 0, 1234, 0, 0, 12345]]))[0, :3].tolist()
    [0, 1, 5]
    >>> digit_encode(np.array([[15, 0, 0, 0, 0, 1234, 0, 0, 12345]]))[0, -4:].tolist()
    [9, 9, 9, 9]
    """
    values = as_raw_matrix(raw)
    if (values < 0).any():
        raise ValueError("raw features must be non-negative to be digit-encoded")
    if latency_unit_us < 1:
        raise ValueError(f"latency_unit_us must be a positive integer, got {latency_unit_us}")
    n_pending = len(PENDING_FEATURES)
    pending = np.minimum(np.floor(values[:, :n_pending]), 10**PENDING_DIGITS - 1).astype(np.int64)
    latency = np.minimum(
        np.floor(values[:, n_pending:] / latency_unit_us), 10**LATENCY_DIGITS - 1
    ).astype(np.int64)
    return np.hstack([decimal_digits(pending, PENDING_DIGITS), decimal_digits(latency, LATENCY_DIGITS)])


def decimal_digits(values: np.ndarray, n_digits: int) -> np.ndarray:
    """(n, m) non-negative ints -> (n, m * n_digits) decimal digits, most significant first.

    Example
    -------
    >>> decimal_digits(np.array([[15, 7]]), 3).tolist()
    [[0, 1, 5, 0, 0, 7]]
    """
    powers = 10 ** np.arange(n_digits - 1, -1, -1)
    return ((values[:, :, None] // powers) % 10).reshape(values.shape[0], -1).astype(np.int8)


def as_raw_matrix(raw) -> np.ndarray:
    """Return the 9 raw features as a float (n, 9) array, checking shape, names and NaNs.

    Example
    -------
    >>> as_raw_matrix(np.zeros((2, 9))).shape
    (2, 9)
    """
    if isinstance(raw, pd.DataFrame):
        missing = [name for name in RAW_FEATURE_NAMES if name not in raw.columns]
        if missing:
            raise ValueError(f"raw features lack columns {missing}")
        raw = raw[RAW_FEATURE_NAMES]
    values = np.asarray(raw, dtype=float)
    if values.ndim != 2 or values.shape[1] != len(RAW_FEATURE_NAMES):
        raise ValueError(
            f"expected raw features of shape (n, {len(RAW_FEATURE_NAMES)}) in the order "
            f"{RAW_FEATURE_NAMES}, got shape {values.shape}"
        )
    if np.isnan(values).any():
        raise ValueError("raw features contain NaN")
    return values


def inflection_point(latency_us, upper_quantile: float = 0.999) -> float:
    """Latency at the knee of the empirical CDF (the Kneedle rule: max distance to the chord).

    Both axes of the CDF are scaled to [0, 1] between the smallest latency and the
    ``upper_quantile`` latency; the knee is the latency where the scaled CDF lies furthest above
    the straight chord joining its two ends. There the CDF's slope (the latency density) falls
    below the chord's slope: past this point the curve flattens into the tail, which is LinnOS's
    definition of the inflection point. The upper end is a high quantile rather than the maximum
    so that one extreme I/O cannot stretch the chord. (Satopää et al., "Finding a 'Kneedle' in a
    haystack", ICDCSW 2011; hand-written because it is one ``argmax`` over the sorted sample.)

    Parameters
    ----------
    latency_us : array-like
        Latencies (any unit; the result has the same unit).
    upper_quantile : float in (0, 1]
        Quantile taken as the right end of the chord.

    Example
    -------
    >>> rng = np.random.default_rng(0)
    >>> lat = np.concatenate([rng.uniform(100, 200, 9000), rng.uniform(200, 2000, 1000)])
    >>> round(inflection_point(lat, upper_quantile=1.0))
    200
    """
    lat = np.sort(np.asarray(latency_us, dtype=float).ravel())
    if lat.size < 2 or np.isnan(lat).any():
        raise ValueError("inflection_point needs at least 2 latencies and no NaN")
    if not 0 < upper_quantile <= 1:
        raise ValueError(f"upper_quantile must be in (0, 1], got {upper_quantile}")
    x, counts = np.unique(lat, return_counts=True)
    cdf = np.cumsum(counts) / lat.size
    keep = x <= np.quantile(lat, upper_quantile)
    x, cdf = x[keep], cdf[keep]
    if x[-1] == x[0]:
        return float(x[0])
    u = (x - x[0]) / (x[-1] - x[0])
    v = (cdf - cdf[0]) / (cdf[-1] - cdf[0])
    return float(x[np.argmax(v - u)])


def slow_threshold(latency_us, rule: str = "p85") -> float:
    """Latency above which a read is labelled slow.

    Parameters
    ----------
    latency_us : array-like
        Latencies of the *training* reads (µs).
    rule : str
        ``"inflection"`` for the CDF knee (``inflection_point``), or ``"pNN"`` / ``"pNN.N"`` for
        a percentile (``"p85"``: the Primo artifact's default).

    Example
    -------
    >>> round(slow_threshold(np.arange(1, 101), "p85"), 2)
    85.15
    """
    latency = np.asarray(latency_us, dtype=float)
    if rule == "inflection":
        return inflection_point(latency)
    if rule.startswith("p"):
        try:
            q = float(rule[1:])
        except ValueError:
            q = -1.0
        if 0 < q < 100:
            return float(np.percentile(latency, q))
    raise ValueError(f"rule must be 'inflection' or a percentile like 'p85', got {rule!r}")


def label_slow(latency_us, threshold_us: float) -> np.ndarray:
    """1 for reads slower than ``threshold_us`` (strictly), else 0.

    Example
    -------
    >>> label_slow([100, 200, 300], 200).tolist()
    [0, 0, 1]
    """
    return (np.asarray(latency_us) > threshold_us).astype(np.int64)
