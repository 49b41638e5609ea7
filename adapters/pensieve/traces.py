"""Bandwidth traces for the Pensieve simulator: Norway HSDPA (tab-separated) and FCC (space-separated).

Each trace file holds one ``time_s  bandwidth_Mbps`` point per line (Pensieve's "cooked" format).
The simulator reads the bandwidth of point ``i`` as the rate over the interval that ends at
``time[i]``. A user's directory may also hold Mahimahi link traces (one millisecond timestamp per
line, one 1500-byte delivery opportunity each, the format Pensieve's emulation experiments replay),
converted to rates over fixed windows by :func:`load_mahimahi_trace`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from primo.datasets import resolve_data_dir

#: Trace collections shipped in ``<data_dir>/pensieve/traces/`` and their column separator.
TRACE_SETS = {"hsdpa": "\t", "fcc": " "}
#: File formats :func:`load_trace_dir` reads ("auto": told apart by the number of columns).
TRACE_FORMATS = ("auto", "cooked", "mahimahi")
MAHIMAHI_PACKET_BYTES = 1500


class TraceFormatError(ValueError):
    """A trace file is not a list of ``time bandwidth`` points."""


@dataclass(frozen=True)
class Trace:
    """One bandwidth trace.

    Attributes
    ----------
    name : str
        File name of the trace (``norway_bus_1``); golden logs are named after it.
    times_s : ndarray of float, shape (n,)
        Non-decreasing time stamps in seconds.
    bandwidth_mbps : ndarray of float, shape (n,)
        Bandwidth in megabits per second at each time stamp.
    """

    name: str
    times_s: np.ndarray
    bandwidth_mbps: np.ndarray

    def __len__(self) -> int:
        return len(self.times_s)


def load_trace(path: str | os.PathLike, delimiter: str | None = None) -> Trace:
    """Read one trace file.

    Parameters
    ----------
    path : path-like
        The trace file.
    delimiter : str, optional
        Column separator (``"\\t"`` for HSDPA, ``" "`` for FCC); ``None`` accepts any whitespace.

    Raises
    ------
    TraceFormatError
        If a line does not hold exactly two numbers, if there are fewer than two points,
        if time goes backwards or a bandwidth is negative.

    Example
    -------
    >>> trace = load_trace("../shared/data/pensieve/traces/hsdpa/norway_bus_1", "\\t")  # doctest: +SKIP
    >>> trace.times_s[:2]  # doctest: +SKIP
    array([0.  , 0.55])
    """
    path = Path(path)
    times, bandwidths = [], []
    for line_number, line in _lines(path):
        fields = line.split(delimiter)
        try:
            time_s, mbps = (float(field) for field in fields)
        except ValueError:
            raise TraceFormatError(
                f"{path}:{line_number}: expected two numbers (time s, Mbps) separated by "
                f"{'whitespace' if delimiter is None else repr(delimiter)}, got {line.rstrip()!r}"
            ) from None
        times.append(time_s)
        bandwidths.append(mbps)
    times_s, bandwidth_mbps = np.array(times), np.array(bandwidths)
    if len(times_s) < 2:
        raise TraceFormatError(f"{path}: a trace needs at least two points, found {len(times_s)}")
    if np.any(np.diff(times_s) < 0):
        raise TraceFormatError(f"{path}: time stamps must be non-decreasing")
    if np.any(bandwidth_mbps < 0):
        raise TraceFormatError(f"{path}: negative bandwidth")
    return Trace(path.name, times_s, bandwidth_mbps)


def _lines(path: Path):
    """(line number, text) of the non-empty lines of a text file; a binary file is a TraceFormatError."""
    try:
        text = path.read_text(encoding="ascii")
    except UnicodeDecodeError:
        raise TraceFormatError(f"{path}: not a text trace file (non-ASCII bytes)") from None
    return [(number, line) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]


def load_mahimahi_trace(path: str | os.PathLike, window_s: float = 1.0) -> Trace:
    """Read a Mahimahi link trace as bandwidth points, one per ``window_s`` window.

    Each line is the time in ms at which one 1500-byte packet can be delivered (repeated times mean
    several packets). The rate of a window is its packets × 1500 B × 8 / window; point ``k`` (time
    ``k · window_s``) carries the rate of the window that ends there, the simulator's convention.

    Raises
    ------
    TraceFormatError
        If a line is not one non-negative integer, the times go backwards, or the trace is shorter
        than two windows.

    Example
    -------
    >>> trace = load_mahimahi_trace("traces/Verizon-LTE-short.up")  # doctest: +SKIP
    >>> trace.bandwidth_mbps[:3]  # doctest: +SKIP
    """
    path = Path(path)
    if not window_s > 0:
        raise ValueError(f"window_s must be > 0, got {window_s}")
    stamps = []
    for line_number, line in _lines(path):
        try:
            stamps.append(int(line.strip()))
        except ValueError:
            raise TraceFormatError(f"{path}:{line_number}: expected one integer (ms) per line, got {line!r}") from None
    stamps_ms = np.array(stamps)
    if np.any(stamps_ms < 0) or np.any(np.diff(stamps_ms) < 0):
        raise TraceFormatError(f"{path}: Mahimahi times must be non-negative and non-decreasing")
    n_windows = int(np.ceil((stamps_ms[-1] + 1) / 1000.0 / window_s)) if len(stamps_ms) else 0
    if n_windows < 2:
        raise TraceFormatError(f"{path}: a Mahimahi trace must span at least two {window_s:g} s windows")
    packets = np.bincount((stamps_ms / 1000.0 / window_s).astype(int), minlength=n_windows)[:n_windows]
    rates = packets * MAHIMAHI_PACKET_BYTES * 8 / window_s / 1e6
    return Trace(path.name, np.arange(n_windows + 1) * window_s, np.concatenate([rates[:1], rates]))


def detect_trace_format(path: str | os.PathLike) -> str:
    """"cooked" (two numbers per line) or "mahimahi" (one), from the first non-empty line.

    Example
    -------
    >>> detect_trace_format("../shared/data/pensieve/traces/fcc/apple_10")  # doctest: +SKIP
    'cooked'
    """
    path = Path(path)
    lines = _lines(path)
    if not lines:
        raise TraceFormatError(f"{path}: empty trace file")
    n_fields = len(lines[0][1].split())
    if n_fields not in (1, 2):
        raise TraceFormatError(f"{path}:{lines[0][0]}: expected 'time_s bandwidth_Mbps' (cooked) or one ms "
                               f"timestamp (Mahimahi) per line, got {lines[0][1]!r}")
    return "cooked" if n_fields == 2 else "mahimahi"


def load_trace_set(name: str, data_dir: str | os.PathLike | None = None) -> list[Trace]:
    """Load every trace of one collection, sorted by file name.

    Parameters
    ----------
    name : {"hsdpa", "fcc"}
        The collection under ``<data_dir>/pensieve/traces/``.
    data_dir : path-like, optional
        The shared data directory (see :func:`primo.datasets.resolve_data_dir`).

    Example
    -------
    >>> traces = load_trace_set("hsdpa")  # doctest: +SKIP
    >>> len(traces)  # doctest: +SKIP
    142
    """
    if name not in TRACE_SETS:
        raise ValueError(f"unknown trace set {name!r}; expected one of {sorted(TRACE_SETS)}")
    return load_trace_dir(shared_trace_dir(name, data_dir), TRACE_SETS[name])


def shared_trace_dir(name: str, data_dir: str | os.PathLike | None = None) -> Path:
    """Directory of a shared trace collection (``<data_dir>/pensieve/traces/<name>``).

    Example
    -------
    >>> shared_trace_dir("fcc", "../shared/data").as_posix()  # doctest: +SKIP
    '../shared/data/pensieve/traces/fcc'
    """
    return resolve_data_dir(data_dir) / "pensieve" / "traces" / name


def load_trace_dir(directory: str | os.PathLike, delimiter: str | None = None,
                   trace_format: str = "auto") -> list[Trace]:
    """Load every trace file of a directory (a user's own traces), sorted by file name.

    ``trace_format="cooked"``: ``time_s bandwidth_Mbps`` per line, as Pensieve's ``cooked_traces``
    (tab- or space-separated: with ``delimiter=None`` any whitespace is accepted); ``"mahimahi"``:
    Mahimahi link traces (:func:`load_mahimahi_trace`); ``"auto"``: each file's format is detected
    (:func:`detect_trace_format`). Hidden files are skipped.

    Raises
    ------
    FileNotFoundError
        If ``directory`` does not exist or holds no trace file.
    TraceFormatError
        If a file is not a trace (the message names the file and line).

    Example
    -------
    >>> traces = load_trace_dir("my_traces/")  # doctest: +SKIP
    >>> [t.name for t in traces][:2]  # doctest: +SKIP
    ['bus_1', 'bus_2']
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"trace directory not found: {directory}")
    files = sorted(p for p in directory.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise FileNotFoundError(f"no trace files in {directory}")
    if trace_format not in TRACE_FORMATS:
        raise ValueError(f"trace_format must be one of {TRACE_FORMATS}, got {trace_format!r}")
    traces = []
    for path in files:
        kind = detect_trace_format(path) if trace_format == "auto" else trace_format
        traces.append(load_trace(path, delimiter) if kind == "cooked" else load_mahimahi_trace(path))
    return traces


def split_traces(traces: Sequence[Trace], fraction: float, seed: int = 0) -> tuple[list[Trace], list[Trace]]:
    """Split traces at random into (kept, held out), ``round(fraction * n)`` held out, each part in
    the input order; the split depends only on the trace names and ``seed``.

    Example
    -------
    >>> a, b = (Trace(f"t{i}", np.array([0.0, 1.0]), np.array([1.0, 1.0])) for i in range(2))
    >>> kept, held = split_traces([a, b], 0.5, seed=0)
    >>> len(kept), len(held)
    (1, 1)
    """
    if not 0.0 <= fraction < 1.0:
        raise ValueError(f"the held-out fraction must be in [0, 1), got {fraction}")
    names = sorted(t.name for t in traces)
    if len(set(names)) != len(names):
        raise ValueError("trace names must be unique to split them reproducibly")
    n_held = int(round(fraction * len(traces)))
    held_names = set(np.random.default_rng(seed).permutation(names)[:n_held].tolist())
    return [t for t in traces if t.name not in held_names], [t for t in traces if t.name in held_names]
