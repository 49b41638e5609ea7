"""Load LinnOS's own per-read training data (the digit-encoded lines its trace tools write).

LinnOS trains each device's network on a CSV file (``mlData/mldrive<N>.csv`` in its training
scripts) produced by its trace parser from a replayed trace. Each line is one **read**, with no
header and 32 comma-separated integers::

    p4 p4 p4, p3 p3 p3, p2 p2 p2, p1 p1 p1, p0 p0 p0, l4 l4 l4 l4, l3 ..., l2 ..., l1 ..., latency_us

* 5 queue lengths, 3 decimal digits each (most significant first): at the submissions of the 4
  reads that **completed** most recently before this one, oldest first (``p4`` … ``p1``), then
  at this read's own submission (``p0``); values above 999 are saturated at 999;
* the latencies (µs) of those 4 history reads, 4 digits each, oldest first; above 9,999 saturated;
* the read's own latency in µs, not digit-encoded (the training script labels it slow above a
  percentile or the CDF's inflection point).

Reads before the 4th completed read are not written. LinnOS's parser counts the queue in
**4 KB pages in flight** (an I/O of ``s`` bytes counts about ``⌈s / 4096⌉``), whereas
``trace.load_trace`` counts I/Os; models trained on one kind of file read the other's queue
lengths on a different scale.

:func:`load_training_data` turns such a file into this adapter's raw features
(``features.RAW_FEATURE_NAMES``, ``prev1`` = most recent) plus ``latency_us``, so that Primo's
trees and the LinnOS network here can train on data collected by LinnOS itself
(``primo casestudy linnos --traces mldrive0.csv ...`` detects the format). It has no submit
times, so it feeds classification, not the failover simulator. :func:`write_training_data`
writes reads in the same format.

Example
-------
>>> reads = load_training_data("mlData/mldrive0.csv")  # doctest: +SKIP
>>> y = label_slow(reads["latency_us"], slow_threshold(reads["latency_us"], "p85"))  # doctest: +SKIP
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from primo.io import atomic_write_bytes

from .features import LATENCY_DIGITS, LATENCY_FEATURES, N_DIGIT_FEATURES, N_HISTORY, PENDING_DIGITS, \
    PENDING_FEATURES, RAW_FEATURE_NAMES, decimal_digits

N_FIELDS = N_DIGIT_FEATURES + 1  # 31 digits, then the read's latency
_DIGITS = frozenset("0123456789")
_LATENCY = re.compile(r"[0-9]+")  # ASCII only: str.isdigit() would accept "²"


class TrainingDataFormatError(ValueError):
    """A file is not LinnOS training data (the message names the file, the line and the problem)."""


def load_training_data(path: str | os.PathLike) -> pd.DataFrame:
    """Read and validate a LinnOS training-data file; one row per line, in file order.

    Returns a DataFrame with ``latency_us`` and ``RAW_FEATURE_NAMES`` (int64). Saturated values
    stay saturated (999 pages, 9,999 µs): the digits cannot say more.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    TrainingDataFormatError
        If the file is empty or a line does not hold 31 single digits and a non-negative latency.

    Example
    -------
    >>> reads = load_training_data("tests/adapters/linnos/data/mldrive_fixture.csv")
    >>> reads.loc[0, ["pending_now", "pending_prev1", "latency_prev4", "latency_us"]].tolist()
    [64, 130, 180, 3120]
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"LinnOS training-data file not found: {path}")
    lines = [(number, line.strip()) for number, line in enumerate(path.read_text().splitlines(), 1)]
    lines = [(number, line) for number, line in lines if line]
    if not lines:
        raise TrainingDataFormatError(f"{path}: empty file")
    values = np.empty((len(lines), N_FIELDS), dtype=np.int64)
    for row, (number, line) in enumerate(lines):
        values[row] = _parse_line(line, number, path)
    pending = _undigit(values[:, : len(PENDING_FEATURES) * PENDING_DIGITS], PENDING_DIGITS)
    latency = _undigit(values[:, len(PENDING_FEATURES) * PENDING_DIGITS: N_DIGIT_FEATURES], LATENCY_DIGITS)
    # The file lists history oldest first (prev4 … prev1), then the current queue length.
    out = {"latency_us": values[:, -1], "pending_now": pending[:, N_HISTORY]}
    for k in range(1, N_HISTORY + 1):
        out[f"pending_prev{k}"] = pending[:, N_HISTORY - k]
        out[f"latency_prev{k}"] = latency[:, N_HISTORY - k]
    return pd.DataFrame(out)[["latency_us", *RAW_FEATURE_NAMES]]


def write_training_data(reads: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write reads (``latency_us`` and ``RAW_FEATURE_NAMES``) in LinnOS's training-data format, atomically.

    The inverse of :func:`load_training_data` up to saturation (queue lengths above 999 and
    latencies above 9,999 µs are written saturated, as LinnOS's parser does). Queue lengths are
    written as given: reads from ``trace.load_trace`` count I/Os, not LinnOS's 4 KB pages.

    Example
    -------
    >>> write_training_data(read_features(load_trace("my.trace")), "mldrive0.csv")  # doctest: +SKIP
    """
    missing = {"latency_us", *RAW_FEATURE_NAMES} - set(reads.columns)
    if missing:
        raise ValueError(f"reads lack columns {sorted(missing)}")
    # LinnOS's order: history oldest first, then the current queue length (digit_encode's is the reverse).
    pending = reads[[f"pending_prev{k}" for k in range(N_HISTORY, 0, -1)] + ["pending_now"]].to_numpy(np.int64)
    latency = reads[[f"latency_prev{k}" for k in range(N_HISTORY, 0, -1)]].to_numpy(np.int64)
    own = reads["latency_us"].to_numpy(np.int64)
    if (pending < 0).any() or (latency < 0).any() or (own < 0).any():
        raise ValueError("queue lengths and latencies must be non-negative")
    digits = np.hstack([decimal_digits(np.minimum(pending, 10**PENDING_DIGITS - 1), PENDING_DIGITS),
                        decimal_digits(np.minimum(latency, 10**LATENCY_DIGITS - 1), LATENCY_DIGITS), own[:, None]])
    text = "".join(",".join(map(str, row)) + "\n" for row in digits.tolist())
    atomic_write_bytes(Path(path), text.encode())


def is_training_data(path: str | os.PathLike) -> bool:
    """Whether the first non-blank line of ``path`` looks like LinnOS training data (32 fields, 31 digits).

    Example
    -------
    >>> is_training_data("tests/adapters/linnos/data/mldrive_fixture.csv")
    True
    """
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.strip():
                fields = line.strip().split(",")
                fields = [field.strip() for field in fields]
                return (len(fields) == N_FIELDS and all(f in _DIGITS for f in fields[:-1])
                        and _LATENCY.fullmatch(fields[-1]) is not None)
    return False


def _parse_line(line: str, number: int, path: Path) -> list[int]:
    fields = [field.strip() for field in line.split(",")]
    if len(fields) != N_FIELDS:
        raise TrainingDataFormatError(
            f"{path}: line {number} has {len(fields)} fields, expected {N_FIELDS} "
            f"({N_DIGIT_FEATURES} digits of {len(PENDING_FEATURES)} queue lengths and {len(LATENCY_FEATURES)} "
            "latencies, then the read's latency in µs)")
    for position, field in enumerate(fields[:-1], 1):
        if field not in _DIGITS:
            raise TrainingDataFormatError(f"{path}: line {number}, field {position} is {field!r}, expected one "
                                          "decimal digit 0-9")
    if _LATENCY.fullmatch(fields[-1]) is None:
        raise TrainingDataFormatError(f"{path}: line {number}: the latency {fields[-1]!r} is not a non-negative "
                                      "integer (µs)")
    return [int(field) for field in fields]


def _undigit(digits: np.ndarray, n_digits: int) -> np.ndarray:
    """(n, m * n_digits) decimal digits, most significant first -> (n, m) integers."""
    powers = 10 ** np.arange(n_digits - 1, -1, -1)
    return (digits.reshape(digits.shape[0], -1, n_digits) * powers).sum(axis=2)
