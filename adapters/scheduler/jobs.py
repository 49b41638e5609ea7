"""Load public job traces into the scheduler case study's job table.

Every loader returns the same schema (shared with the cluster simulator):

=============  =====  ==========================================================
column         dtype  meaning
=============  =====  ==========================================================
job_id         str    job identifier from the trace
user           str    user id ("" when the trace has none)
name           str    job name or application id ("" when unknown)
vc             str    virtual cluster / queue / QoS class ("default" when unknown)
gpu_num        int    GPUs requested, >= 1
cpu_num        int    CPUs requested (0 when unknown)
submit_time    float  seconds since ``df.attrs["epoch"]``, sorted ascending
duration       float  actual run time in seconds, > 0
state          str    final state as the trace records it (COMPLETED, FAILED, ...)
queue_delay    float  optional: queuing delay the trace recorded (NaN when unknown)
=============  =====  ==========================================================

``df.attrs["epoch"]`` is the :class:`pandas.Timestamp` of time 0 in the cluster's local
time (time-zone aware when the trace names its zone; used for calendar features) and ``df.attrs["source"]`` a short trace name. Some loaders add a few
trace-specific numeric columns that are known at submit time (``req_time``,
``gpu_milli``, ``mem_mib``); they are documented on each loader.
"""
from __future__ import annotations

import gzip
import logging
import os
from pathlib import Path

import numpy as np
import pandas as pd

logger = logging.getLogger(__name__)

JOB_COLUMNS = ("job_id", "user", "name", "vc", "gpu_num", "cpu_num", "submit_time", "duration", "state")
"""Required columns of a job table, in order."""

SUBMIT_TIME_COLUMNS = ("req_time", "gpu_milli", "mem_mib")
"""Optional numeric columns some loaders add (SWF requested run time; Alibaba GPU share and memory
request): what the user asked for, known when the job is submitted."""

HELIOS_COLUMNS = ("job_id", "user", "vc", "gpu_num", "cpu_num", "node_num", "state",
                  "submit_time", "start_time", "end_time", "duration", "queue")
"""Columns of a Helios ``cluster_log.csv``."""

SWF_FIELDS = ("job", "submit", "wait", "runtime", "alloc_procs", "avg_cpu", "mem", "req_procs",
              "req_time", "req_mem", "status", "user", "group", "executable", "queue",
              "partition", "prev_job", "think")
"""The 18 fields of the Standard Workload Format, in file order."""

# SWF status codes (Parallel Workloads Archive definition), named like Slurm states.
SWF_STATUS = {0: "FAILED", 1: "COMPLETED", 2: "PARTIAL", 3: "PARTIAL_COMPLETED",
              4: "PARTIAL_FAILED", 5: "CANCELLED", -1: "UNKNOWN"}

ALIBABA_COLUMNS = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "qos",
                   "pod_phase", "creation_time", "deletion_time", "scheduled_time")
"""Columns the Alibaba GPU-2023 pod list loader needs."""

# Unix times after this (2001-09-09) are treated as absolute timestamps, not offsets.
_ABSOLUTE_TIME_THRESHOLD = 1e9


def _finish(df: pd.DataFrame, epoch: pd.Timestamp, source: str) -> pd.DataFrame:
    """Cast to the schema dtypes, sort by submit time and attach the attributes."""
    for col in ("job_id", "user", "name", "vc", "state"):
        df[col] = df[col].astype(str)
    df["gpu_num"] = df["gpu_num"].astype(np.int64)
    df["cpu_num"] = df["cpu_num"].astype(np.int64)
    df["submit_time"] = df["submit_time"].astype(float)
    df["duration"] = df["duration"].astype(float)
    df = df.sort_values("submit_time", kind="stable").reset_index(drop=True)
    df.attrs["epoch"] = pd.Timestamp(epoch)
    df.attrs["source"] = source
    return df


def _require_columns(df: pd.DataFrame, required, path) -> None:
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}; found {list(df.columns)}")


def load_helios(path: str | os.PathLike, *, gpu_only: bool = True, source: str | None = None) -> pd.DataFrame:
    """Load a Helios ``cluster_log.csv`` (SenseTime Venus, Saturn, Earth, Uranus, Philly-style).

    Times may be datetime strings (the Helios release) or numbers (seconds). The epoch is
    midnight of the day of the first submission, so calendar features are local
    cluster time. An optional ``jobname`` or ``name`` column becomes ``name``. ``queue``
    (seconds the job waited) becomes ``queue_delay``.

    Parameters
    ----------
    path : path to the CSV file.
    gpu_only : drop CPU-only jobs (``gpu_num == 0``); the scheduler study only places GPU jobs.
    source : short trace name; defaults to the parent folder name (e.g. ``venus``).

    Returns
    -------
    DataFrame in the job-table schema. Jobs with non-positive duration are dropped (logged).

    Example
    -------
    >>> jobs = load_helios("helios/venus/cluster_log.csv")  # doctest: +SKIP
    >>> jobs.attrs["epoch"]  # doctest: +SKIP
    Timestamp('2020-03-01 00:00:00')
    """
    path = Path(path)
    raw = pd.read_csv(path)
    _require_columns(raw, ("job_id", "user", "vc", "gpu_num", "cpu_num", "state", "submit_time", "duration"), path)
    submit = raw["submit_time"]
    if pd.api.types.is_numeric_dtype(submit):
        submit_s = submit.astype(float)
        epoch = pd.Timestamp(0)
        if submit_s.min() > _ABSOLUTE_TIME_THRESHOLD:
            epoch = pd.Timestamp(submit_s.min(), unit="s").normalize()
            submit_s = submit_s - (epoch - pd.Timestamp(0)).total_seconds()
    else:
        stamps = pd.to_datetime(submit, errors="coerce")
        if stamps.isna().any():
            bad = submit[stamps.isna()].iloc[0]
            raise ValueError(f"{path}: unparseable submit_time {bad!r}")
        epoch = stamps.min().normalize()
        submit_s = (stamps - epoch).dt.total_seconds()
    name_col = next((c for c in ("jobname", "name") if c in raw.columns), None)
    df = pd.DataFrame({
        "job_id": raw["job_id"],
        "user": raw["user"].fillna(""),
        "name": raw[name_col].fillna("") if name_col else "",
        "vc": raw["vc"].fillna("default"),
        "gpu_num": pd.to_numeric(raw["gpu_num"], errors="coerce").fillna(0),
        "cpu_num": pd.to_numeric(raw["cpu_num"], errors="coerce").fillna(0),
        "submit_time": submit_s,
        "duration": pd.to_numeric(raw["duration"], errors="coerce"),
        "state": raw["state"].fillna("UNKNOWN"),
        "queue_delay": pd.to_numeric(raw["queue"], errors="coerce") if "queue" in raw else np.nan,
    })
    n0 = len(df)
    if gpu_only:
        df = df[df["gpu_num"] >= 1]
        logger.info("%s: dropped %d CPU-only jobs", path.name, n0 - len(df))
    n1 = len(df)
    df = df[df["duration"] > 0]
    logger.info("%s: dropped %d jobs with non-positive duration", path.name, n1 - len(df))
    if (df["gpu_num"] < 1).any():
        raise ValueError(f"{path}: jobs with gpu_num < 1 remain; load with gpu_only=True")
    return _finish(df.copy(), epoch, source or path.parent.name or "helios")


def _open_text(path: Path):
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, "r", encoding="utf-8", errors="replace")


def read_swf(path: str | os.PathLike) -> tuple[pd.DataFrame, dict[str, str]]:
    """Read a Standard Workload Format file (plain or gzipped) as raw fields.

    Parameters
    ----------
    path : path to a ``.swf`` or ``.swf.gz`` file.

    Returns
    -------
    (records, header): ``records`` has the 18 :data:`SWF_FIELDS` as numeric columns plus
    ``extra`` (the rest of the line, e.g. node lists and queue names some archives append);
    ``header`` maps header keys (``UnixStartTime``, ``TimeZoneString``, ...) to values.

    Raises
    ------
    ValueError if a data line has fewer than 18 fields or a non-numeric one.

    Example
    -------
    >>> records, header = read_swf("NASA-iPSC-1993-3.1-cln.swf.gz")  # doctest: +SKIP
    >>> header["UnixStartTime"]  # doctest: +SKIP
    '749458803'
    """
    path = Path(path)
    header: dict[str, str] = {}
    rows, extras = [], []
    with _open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            stripped = line.strip()
            if not stripped:
                continue
            if stripped.startswith(";"):
                key, sep, value = stripped.lstrip("; ").partition(":")
                if sep and key and " " not in key.strip() and key.strip() not in header:
                    header[key.strip()] = value.strip()
                continue
            fields = stripped.split()
            if len(fields) < len(SWF_FIELDS):
                raise ValueError(
                    f"{path}:{lineno}: {len(fields)} fields, an SWF job line needs {len(SWF_FIELDS)}")
            rows.append(fields[:len(SWF_FIELDS)])
            extras.append(" ".join(fields[len(SWF_FIELDS):]))
    try:
        values = np.array(rows, dtype=float).reshape(-1, len(SWF_FIELDS))
    except ValueError as err:
        raise ValueError(f"{path}: an SWF job line holds a non-numeric field ({err})") from None
    records = pd.DataFrame(values, columns=list(SWF_FIELDS))
    records["extra"] = extras
    return records, header


def _id_strings(ids: pd.Series, missing: str) -> pd.Series:
    """Integer ids as strings; negative ids (SWF's "unknown") become ``missing``."""
    text = ids.fillna(-1).astype(np.int64).astype(str)
    return text.where(ids >= 0, missing)


def load_swf(path: str | os.PathLike, *, procs_per_gpu: int = 1, timezone: str | None = None,
             source: str | None = None) -> pd.DataFrame:
    """Load an SWF job log (Parallel Workloads Archive) into the job-table schema.

    Mapping rules:

    - ``gpu_num = ceil(procs / procs_per_gpu)`` where ``procs`` is the allocated processor
      count (the requested count when allocation is missing); ``cpu_num = procs``.
    - ``duration`` = runtime; jobs with runtime <= 0 (or missing processors) are dropped
      and the count is logged.
    - ``name`` = executable (application) id, "" when -1. A column holding one single id
      for every job carries no information and is treated as unknown.
    - ``vc`` = the queue name when the archive appends one after the 18 fields (as the
      MetaCentrum ``wagap`` log does), else the queue number, else "default".
    - ``queue_delay`` = wait (NaN when -1); ``req_time`` = requested run time (NaN when -1).
    - ``epoch`` = header ``UnixStartTime`` in the header's ``TimeZoneString`` (or
      ``timezone``), time-zone aware; a headerless log whose submit times are absolute Unix times uses the
      first submission as time 0.

    Parameters
    ----------
    path : ``.swf`` or ``.swf.gz`` file.
    procs_per_gpu : processors that count as one GPU (>= 1).
    timezone : IANA zone for calendar features when the header has none (default UTC).
    source : short trace name (defaults to the file name without suffixes).

    Example
    -------
    >>> jobs = load_swf("NASA-iPSC-1993-3.1-cln.swf.gz")  # doctest: +SKIP
    >>> jobs.attrs["epoch"]  # doctest: +SKIP
    Timestamp('1993-10-01 00:00:03-0700', tz='US/Pacific')
    """
    if procs_per_gpu < 1:
        raise ValueError(f"procs_per_gpu must be >= 1, got {procs_per_gpu}")
    path = Path(path)
    rec, header = read_swf(path)
    tz = header.get("TimeZoneString") or timezone or "UTC"
    submit = rec["submit"].astype(float)
    if "UnixStartTime" in header:
        start = float(header["UnixStartTime"])
    elif len(submit) and submit.min() > _ABSOLUTE_TIME_THRESHOLD:
        start = float(submit.min())
        submit = submit - start
    else:
        start = 0.0
    # Time-zone aware, so calendar features stay local across daylight-saving changes.
    epoch = pd.Timestamp(start, unit="s", tz="UTC").tz_convert(tz)

    procs = rec["alloc_procs"].where(rec["alloc_procs"] > 0, rec["req_procs"])
    executable = rec["executable"]
    if executable[executable >= 0].nunique() <= 1:
        executable = pd.Series(-1, index=rec.index)
    # MetaCentrum-style logs append "{node list} queue_name resources" after the 18 fields
    queue_names = rec["extra"].str.split().str[1]
    vc = queue_names if queue_names.notna().all() else _id_strings(rec["queue"], "default")
    df = pd.DataFrame({
        "job_id": rec["job"].astype(np.int64).astype(str),
        "user": _id_strings(rec["user"], ""),
        "name": _id_strings(executable, ""),
        "vc": vc,
        "gpu_num": np.ceil(procs / procs_per_gpu),
        "cpu_num": procs,
        "submit_time": submit,
        "duration": rec["runtime"].astype(float),
        "state": rec["status"].map(lambda s: SWF_STATUS.get(int(s), f"STATUS_{int(s)}")),
        "queue_delay": rec["wait"].where(rec["wait"] >= 0).astype(float),
        "req_time": rec["req_time"].where(rec["req_time"] > 0).astype(float),
    })
    keep = (df["duration"] > 0) & (procs > 0)
    logger.info("%s: %d jobs read, dropped %d with non-positive runtime or no processors",
                path.name, len(df), int((~keep).sum()))
    df = df[keep].copy()
    name = source or path.name.split(".swf")[0]
    return _finish(df, epoch, name)


def load_alibaba_pods(path: str | os.PathLike, *, source: str = "alibaba-gpu-2023") -> pd.DataFrame:
    """Load the Alibaba GPU-2023 ``openb_pod_list_*.csv`` pod list.

    Mapping rules:

    - ``gpu_num = num_gpu``. ``gpu_milli`` is the share of each GPU a pod asks for
      (1000 = whole GPU); a fractional pod (``num_gpu = 1, gpu_milli < 1000``) still
      occupies one GPU in the job table, and ``gpu_milli`` is kept as an extra column.
      CPU-only pods (``num_gpu = 0``) are dropped.
    - Pods that were never scheduled (no ``scheduled_time``, phase Pending) are dropped.
    - ``duration = deletion_time - scheduled_time``, ``queue_delay = scheduled - creation``,
      ``submit_time = creation_time``; non-positive durations are dropped.
    - ``user`` and ``name`` are unknown (""); ``vc`` = the ``qos`` class (LS, BE, ...);
      ``state`` = ``pod_phase``; ``cpu_num = ceil(cpu_milli / 1000)``; ``mem_mib`` kept.
    - The trace only gives seconds from an unpublished origin, so the epoch is a nominal
      ``1970-01-01``: hour-of-day features keep the 24 h period but not the real phase.

    Example
    -------
    >>> pods = load_alibaba_pods("alibaba-gpu-2023-openb_pod_list_default.csv")  # doctest: +SKIP
    """
    path = Path(path)
    raw = pd.read_csv(path)
    _require_columns(raw, ALIBABA_COLUMNS, path)
    n = len(raw)
    gpu = raw[raw["num_gpu"] >= 1]
    scheduled = gpu[gpu["scheduled_time"].notna()]
    df = pd.DataFrame({
        "job_id": scheduled["name"],
        "user": "",
        "name": "",
        "vc": scheduled["qos"].fillna("default"),
        "gpu_num": scheduled["num_gpu"],
        "cpu_num": np.ceil(scheduled["cpu_milli"] / 1000.0),
        "submit_time": scheduled["creation_time"].astype(float),
        "duration": (scheduled["deletion_time"] - scheduled["scheduled_time"]).astype(float),
        "state": scheduled["pod_phase"],
        "queue_delay": (scheduled["scheduled_time"] - scheduled["creation_time"]).astype(float),
        "gpu_milli": scheduled["gpu_milli"].astype(float),
        "mem_mib": scheduled["memory_mib"].astype(float),
    })
    positive = df["duration"] > 0
    logger.info("%s: %d pods; dropped %d CPU-only, %d never scheduled, %d non-positive duration",
                path.name, n, n - len(gpu), len(gpu) - len(scheduled), int((~positive).sum()))
    return _finish(df[positive].copy(), pd.Timestamp(0), source)


JOB_FORMATS = ("swf", "helios", "alibaba")
"""Job-log formats :func:`load_jobs` reads."""


def detect_format(path: str | os.PathLike) -> str:
    """The format of a job log, from its content (not its name): ``"swf"``, ``"helios"`` or ``"alibaba"``.

    An SWF log's first data line (after ``;`` comments) holds at least 18 numbers; a CSV is
    Helios' ``cluster_log.csv`` when its header has the Helios columns, the Alibaba GPU-2023
    pod list when it has :data:`ALIBABA_COLUMNS`.

    Raises
    ------
    ValueError naming the file and what its first line looks like when it is none of these.

    Example
    -------
    >>> detect_format("NASA-iPSC-1993-3.1-cln.swf.gz")  # doctest: +SKIP
    'swf'
    """
    path = Path(path)
    with _open_text(path) as fh:
        first = next((line.strip() for line in fh if line.strip() and not line.lstrip().startswith(";")), "")
    fields = first.split()
    if len(fields) >= len(SWF_FIELDS):
        try:
            [float(f) for f in fields[:len(SWF_FIELDS)]]
            return "swf"
        except ValueError:
            pass
    header = {c.strip().strip('"') for c in first.split(",")}
    if set(ALIBABA_COLUMNS) <= header:
        return "alibaba"
    if {"job_id", "user", "vc", "gpu_num", "submit_time", "duration"} <= header:
        return "helios"
    raise ValueError(f"{path}: not a job log Primo reads (SWF, Helios cluster_log.csv or Alibaba GPU-2023 "
                     f"pod list); its first line starts {first[:80]!r}")


def load_jobs(path: str | os.PathLike, format: str | None = None, *, procs_per_gpu: int = 1) -> pd.DataFrame:
    """Load any supported job log into the job-table schema, its format detected or named.

    Parameters
    ----------
    path : the log file (``.swf``/``.swf.gz``, Helios ``cluster_log.csv``, Alibaba pod list CSV).
    format : one of :data:`JOB_FORMATS`; detected from the content when None.
    procs_per_gpu : SWF only: processors that count as one GPU.

    Example
    -------
    >>> jobs = load_jobs("KTH-SP2-1996-2.1-cln.swf.gz")  # doctest: +SKIP
    >>> jobs.attrs["format"]  # doctest: +SKIP
    'swf'
    """
    format = format or detect_format(path)
    if format == "swf":
        jobs = load_swf(path, procs_per_gpu=procs_per_gpu)
    elif format == "helios":
        jobs = load_helios(path)
    elif format == "alibaba":
        jobs = load_alibaba_pods(path, source=Path(path).name.split(".")[0])
    else:
        raise ValueError(f"format must be one of {JOB_FORMATS}, got {format!r}")
    jobs.attrs["format"] = format
    return jobs


def time_split(jobs: pd.DataFrame, boundary) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Split a job table (or any frame with ``submit_time``) at a point in time.

    Parameters
    ----------
    jobs : job table; ``attrs["epoch"]`` is needed when ``boundary`` is a date.
    boundary : seconds since the epoch (number), or a date (``pandas.Timestamp`` or string)
        converted with ``jobs.attrs["epoch"]`` (a naive date is read in the epoch's zone).

    Returns
    -------
    (train, test): jobs submitted before ``boundary`` and at or after it. Both keep ``attrs``.

    Example
    -------
    >>> train, test = time_split(jobs, "1993-12-01")  # doctest: +SKIP
    """
    if isinstance(boundary, (int, float, np.integer, np.floating)):
        cut = float(boundary)
    else:
        if "epoch" not in jobs.attrs:
            raise ValueError("boundary is a date but the job table has no attrs['epoch']")
        epoch = jobs.attrs["epoch"]
        boundary = pd.Timestamp(boundary)
        if epoch.tzinfo is not None and boundary.tzinfo is None:
            boundary = boundary.tz_localize(epoch.tzinfo)
        cut = (boundary - epoch).total_seconds()
    before = jobs["submit_time"] < cut
    train, test = jobs[before].copy(), jobs[~before].copy()
    train.attrs, test.attrs = dict(jobs.attrs), dict(jobs.attrs)
    return train, test


def submit_time_columns(jobs: pd.DataFrame) -> tuple[str, ...]:
    """The :data:`SUBMIT_TIME_COLUMNS` of a job table that hold at least one value.

    Example
    -------
    >>> submit_time_columns(pd.DataFrame({"req_time": [3600.0, np.nan], "mem_mib": [np.nan, np.nan]}))
    ('req_time',)
    """
    return tuple(c for c in SUBMIT_TIME_COLUMNS if c in jobs.columns and jobs[c].notna().any())


def submit_timestamps(jobs: pd.DataFrame) -> pd.Series:
    """Calendar timestamps of the submissions (``epoch + submit_time``).

    Example
    -------
    >>> submit_timestamps(jobs).dt.hour  # doctest: +SKIP
    """
    epoch = jobs.attrs.get("epoch", pd.Timestamp(0))
    return epoch + pd.to_timedelta(jobs["submit_time"], unit="s")


def last_month_start(jobs: pd.DataFrame) -> pd.Timestamp:
    """First day of the last calendar month the trace covers (a Lucid-style test start).

    Example
    -------
    >>> train, test = time_split(jobs, last_month_start(jobs))  # doctest: +SKIP
    """
    last = submit_timestamps(jobs).max()
    return last.normalize().replace(day=1).tz_localize(None)
