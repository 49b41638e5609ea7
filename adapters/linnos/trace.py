"""Load FlashNet block traces and derive the in-flight (pending) I/O count.

A FlashNet trace (``*.trace``) is a headerless CSV with one I/O per line and seven columns::

    ts_record_ms, latency_us, io_type (1 = read, 0 = write), size_bytes, offset_bytes,
    ts_submit_ms, size_after_replay_bytes

``ts_submit_ms`` is when the replayer submitted the I/O to the device (ms, microsecond
resolution) and ``latency_us`` how long the device took to complete it, so an I/O is *pending*
(in flight) from ``submit`` until ``submit + latency``. ``ts_record_ms`` is the time of the
original production record (coarse, whole seconds in the Tencent slices) and is not used.

Example
-------
>>> from adapters.linnos.trace import load_trace
>>> trace = load_trace("../shared/data/linnos/flashnet_nvme/tencent.cut.per_50k.rw_60_40.490.trace")  # doctest: +SKIP
>>> trace[["submit_us", "latency_us", "io_type", "pending"]].head(3)  # doctest: +SKIP
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

TRACE_COLUMNS = (
    "ts_record_ms",
    "latency_us",
    "io_type",
    "size_bytes",
    "offset_bytes",
    "ts_submit_ms",
    "size_after_replay_bytes",
)
READ, WRITE = 1, 0
TRACE_SUBDIR = Path("linnos") / "flashnet_nvme"


class TraceFormatError(ValueError):
    """A file is not a well-formed FlashNet trace (the message names the file and the problem)."""


def list_traces(data_dir: str | os.PathLike) -> list[Path]:
    """Return the FlashNet ``*.trace`` files under ``<data_dir>/linnos/flashnet_nvme``, sorted by name.

    Parameters
    ----------
    data_dir : path
        The shared data directory (see ``primo.datasets.resolve_data_dir``).

    Example
    -------
    >>> from primo.datasets import resolve_data_dir
    >>> [p.name for p in list_traces(resolve_data_dir())][:1]  # doctest: +SKIP
    ['tencent.cut.per_50k.most_rand_iops.537.trace']
    """
    folder = Path(data_dir) / TRACE_SUBDIR
    traces = sorted(folder.glob("*.trace"))
    if not traces:
        raise FileNotFoundError(f"no *.trace files in {folder}")
    return traces


def short_name(trace_name: str) -> str:
    """A trace's name without the common Tencent prefix and the suffix, for tables.

    Example
    -------
    >>> short_name("tencent.cut.per_50k.rw_60_40.490.trace")
    'rw_60_40.490'
    """
    return trace_name.replace("tencent.cut.per_50k.", "").replace(".trace", "")


def pending_counts(submit_us: np.ndarray, latency_us: np.ndarray) -> np.ndarray:
    """Number of I/Os in flight when each I/O is submitted (the I/O itself excluded).

    I/O ``j`` is in flight at the submission of I/O ``i`` if it was submitted before ``i`` and
    has not completed strictly before ``i``'s submit time (``submit_j + latency_j >= submit_i``).
    I/Os submitted at the same instant are ordered by their position in the input (stable sort),
    so an earlier-listed I/O counts as pending for a later-listed one.

    Because latencies are non-negative, every I/O that completed strictly before ``submit_i`` was
    submitted before ``i``. The count is therefore ``rank(i) - #{j : end_j < submit_i}``: one sort
    and one ``searchsorted``, O(n log n).

    Parameters
    ----------
    submit_us : array of int
        Submit times (any common origin, integer microseconds to avoid float ties).
    latency_us : array of int
        Completion latencies in microseconds (>= 0), same length.

    Returns
    -------
    numpy.ndarray of int64, in the input order.

    Example
    -------
    >>> pending_counts(np.array([0, 10, 20, 30]), np.array([25, 5, 100, 1]))
    array([0, 1, 1, 1])
    """
    submit_us = np.asarray(submit_us, dtype=np.int64)
    latency_us = np.asarray(latency_us, dtype=np.int64)
    if submit_us.shape != latency_us.shape or submit_us.ndim != 1:
        raise ValueError(
            f"submit_us and latency_us must be 1-D arrays of equal length, got shapes "
            f"{submit_us.shape} and {latency_us.shape}"
        )
    if (latency_us < 0).any():
        raise ValueError("latency_us must be non-negative")
    order = np.argsort(submit_us, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    ends = np.sort(submit_us + latency_us)
    completed = np.searchsorted(ends, submit_us, side="left")
    return rank - completed


def load_trace(path: str | os.PathLike) -> pd.DataFrame:
    """Read and validate a FlashNet trace; return it sorted by submit time with derived columns.

    The seven raw columns keep their names (``TRACE_COLUMNS``). Added columns:
    ``submit_us`` (int64, ``ts_submit_ms`` in integer microseconds) and ``pending`` (int64, I/Os
    of either type in flight at this submission, see ``pending_counts``). Rows are stably sorted
    by ``submit_us``; the index is reset.

    Parameters
    ----------
    path : path
        A ``*.trace`` file.

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    TraceFormatError
        If the file is empty, has a header or a column count other than 7, holds non-numeric or
        missing values, an ``io_type`` other than 0/1, or negative latencies, sizes or times.

    Example
    -------
    >>> trace = load_trace("tencent.cut.per_50k.rw_60_40.490.trace")  # doctest: +SKIP
    >>> int(trace["pending"].max())  # doctest: +SKIP
    65
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"trace file not found: {path}")
    try:
        raw = pd.read_csv(path, header=None, dtype=str, skip_blank_lines=True)
    except pd.errors.EmptyDataError:
        raise TraceFormatError(f"{path}: empty file") from None
    except pd.errors.ParserError as err:
        raise TraceFormatError(f"{path}: not a comma-separated trace ({err})") from None
    if raw.shape[1] != len(TRACE_COLUMNS):
        raise TraceFormatError(
            f"{path}: expected {len(TRACE_COLUMNS)} columns ({', '.join(TRACE_COLUMNS)}), "
            f"found {raw.shape[1]}"
        )
    raw.columns = list(TRACE_COLUMNS)
    trace = raw.apply(pd.to_numeric, errors="coerce")
    bad = trace.isna().any(axis=1).to_numpy()
    if bad.any():
        line = int(np.flatnonzero(bad)[0]) + 1
        raise TraceFormatError(
            f"{path}: line {line} has a missing or non-numeric value "
            f"({','.join(str(v) for v in raw.iloc[line - 1])!r}); FlashNet traces have no header"
        )
    _check_values(trace, path)

    trace["submit_us"] = np.rint(trace["ts_submit_ms"].to_numpy() * 1000).astype(np.int64)
    trace = trace.sort_values("submit_us", kind="stable").reset_index(drop=True)
    for column in ("latency_us", "io_type", "size_bytes", "offset_bytes", "size_after_replay_bytes"):
        trace[column] = trace[column].astype(np.int64)
    trace["pending"] = pending_counts(trace["submit_us"].to_numpy(), trace["latency_us"].to_numpy())
    return trace


def _check_values(trace: pd.DataFrame, path: Path) -> None:
    """Raise ``TraceFormatError`` naming the first row that breaks a column's domain."""
    rules = {
        "io_type": (trace["io_type"].isin([READ, WRITE]), "io_type must be 1 (read) or 0 (write)"),
        "latency_us": (trace["latency_us"] >= 0, "latency_us must be >= 0"),
        "size_bytes": (trace["size_bytes"] >= 0, "size_bytes must be >= 0"),
        "offset_bytes": (trace["offset_bytes"] >= 0, "offset_bytes must be >= 0"),
        "ts_submit_ms": (trace["ts_submit_ms"] >= 0, "ts_submit_ms must be >= 0"),
    }
    for ok, message in rules.values():
        if not ok.all():
            line = int(np.flatnonzero(~ok.to_numpy())[0]) + 1
            raise TraceFormatError(f"{path}: line {line}: {message}")
