"""Measured prediction latency (Primo measures it rather than assuming it).

Wall-clock helpers (``single_row_latency_us``, ``batch_latency_us``) time what a caller waits;
:func:`cpu_us_per_call` times the CPU the calling process spends, which other jobs on a shared
machine disturb far less.
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from primo.models._base import names_warned_once
from primo.models.encoding import frame_from_arrow


def single_row_latency_us(predict, X, *, n_rows: int = 50, repeats: int = 3) -> float:
    """Median over rows of the best-of-``repeats`` time of ``predict`` on one row, in µs.

    Parameters
    ----------
    predict : callable taking a 2-D batch of one row (e.g. ``model.predict``).
    X : array, DataFrame or Arrow table (polars, pyarrow; rows drawn as DataFrames) to draw rows from
        (the first ``n_rows``).

    Example
    -------
    >>> single_row_latency_us(model.predict, X_test)  # doctest: +SKIP
    95.3
    """
    return float(np.median(single_row_timings_us(predict, X, n_rows=n_rows, repeats=repeats)))


def single_row_timings_us(predict, X, *, n_rows: int = 50, repeats: int = 3) -> np.ndarray:
    """The best-of-``repeats`` time (µs) of ``predict`` on each of the first ``n_rows`` rows of X, one row a call.

    A Primo model's warning about the names of X's columns, when due, is given once (by the untimed warm-up call).

    Example
    -------
    >>> timings = single_row_timings_us(model.predict, X_test)  # doctest: +SKIP
    >>> np.median(timings), np.percentile(timings, 90)  # doctest: +SKIP
    """
    X = frame_from_arrow(X)  # rows keep their column names (as an array, they would be matched by position)
    n_rows = min(n_rows, len(X))
    if n_rows == 0:
        raise ValueError("need at least one row to measure latency")
    rows = [X.iloc[[i]] for i in range(n_rows)] if isinstance(X, pd.DataFrame) else [np.asarray(X)[i:i + 1] for i in range(n_rows)]
    predict(rows[0])  # warm-up: first calls pay for imports and caches
    timings = []
    # Every row is of X's kind: a Primo model's warning about their names, when due, was given by the warm-up,
    # not once more per timed call.
    with names_warned_once():
        for row in rows:
            best = np.inf
            for _ in range(repeats):
                start = time.perf_counter_ns()
                predict(row)
                best = min(best, time.perf_counter_ns() - start)
            timings.append(best / 1e3)
    return np.asarray(timings)


def batch_latency_us(predict, X, *, repeats: int = 3) -> float:
    """Best-of-``repeats`` time of ``predict`` on the whole batch X, in µs per row (a Primo model's warning about
    the names of X's columns, when due, once)."""
    predict(X)  # warm-up, and a Primo model's warning about X's names when due: not again per timed call
    best = np.inf
    with names_warned_once():
        for _ in range(repeats):
            start = time.perf_counter_ns()
            predict(X)
            best = min(best, time.perf_counter_ns() - start)
    return float(best / 1e3 / len(X))


def cpu_us_per_call(call, inputs, *, passes: int = 3) -> float:
    """Best over ``passes`` of the mean CPU time (µs) of ``call(x)`` over ``inputs``.

    Example
    -------
    >>> cpu_us_per_call(abs, [-1, 2, -3]) >= 0
    True
    """
    if len(inputs) == 0:
        raise ValueError("no inputs to time")
    call(inputs[0])  # warm-up: first calls pay for caches and lazy imports
    best = np.inf
    for _ in range(passes):
        start = time.process_time_ns()
        for x in inputs:
            call(x)
        best = min(best, (time.process_time_ns() - start) / len(inputs) / 1e3)
    return float(best)
