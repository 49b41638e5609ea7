"""Generate Slurm's ``job_submit.lua`` QSSF plugin from a Workload Estimate Model.

Three files go next to ``slurm.conf`` (:func:`plugin_files`):

- ``job_submit.lua``: the plugin (the template in this folder, unchanged);
- ``primo_workload_model.lua``: the model, :func:`primo.export.to_lua`;
- ``primo_context.lua``: what the plugin needs besides the model, as a Lua table: the model's feature
  order, how it reads each id (:func:`adapters.scheduler.embedded.id_inputs`: a text category is
  passed as a string, which the export maps, unseen ones as every export does; a numeric category
  as the number; an ordinal code through the training vocabulary, code = position, unseen = -1, as
  :func:`adapters.scheduler.workload.workload_dataset` encodes them), the input whose correction
  the model predicts (``metadata_["offset_feature"]``, added back before the clip), λ, the clip of
  the log1p duration, the rolling history of the jobs known to have finished (``seed``, with their
  requested run times), the time scale (trace seconds per Slurm second: 1 on a real cluster), and
  the local-time offsets of the trace's time zone (calendar features).

The plugin computes every feature :class:`adapters.scheduler.embedded.EmbeddedScheduler` computes for
the same history, the requested run time and the per-user history features included
(``tests/adapters/scheduler/slurm`` checks it under ``lua5.1``), turns the QSSF priority into a ``nice``
with :func:`nice_value`, and never blocks a submission. A job's request is its ``--time`` at submission
and the ``TimeLimit=`` of its completion record on a live cluster; in a replay (where a time limit
would kill jobs) the trace's request travels in the comment (:func:`replay_comment`) and in the job's
line of ``job_runtimes.txt``. On a live cluster the comment is never read (the submitting user writes it):
the time is the wall clock, the queue the partition, the processors ``num_tasks × cpus_per_task``; a job
submitted without ``--time`` is noted (owner, name, submit second), and its record's ``TimeLimit=``, the
partition's default, is not learned as a request.

Example
-------
>>> files = plugin_files(model, codes=codes, log_range=(0.0, 12.0), seed=finished_jobs,
...                      epoch=jobs.attrs["epoch"])  # doctest: +SKIP
>>> SlurmCluster(job_submit_files=files)  # doctest: +SKIP
"""
from __future__ import annotations

import math
from importlib.resources import files as package_files

import numpy as np
import pandas as pd

from adapters.scheduler import workload
from adapters.scheduler.embedded import ID_COLUMNS, id_inputs
from adapters.scheduler.slurm.cluster import PRIORITY_BASE
from primo.export import model_tables, to_lua
from primo.export.codegen import float_literal, lua_string

NICE_SCALE = 1_000_000
"""nice = floor(NICE_SCALE · log1p(priority in GPU-seconds)): order-preserving, and below
:data:`~adapters.scheduler.slurm.cluster.PRIORITY_BASE` for any priority under 10^43 GPU-seconds."""

MODEL_FILE, CONTEXT_FILE, PLUGIN_FILE = "primo_workload_model.lua", "primo_context.lua", "job_submit.lua"
JOBCOMP_FILE, RUNTIME_FILE = "jobcomp.txt", "job_runtimes.txt"
_SEED_CHUNK = 20_000  # seed records per generated function (Lua 5.1: 262,143 constants per function)


def nice_value(priority: float) -> int:
    """The ``nice`` that orders jobs by QSSF priority (GPU-seconds); lower runs first.

    Example
    -------
    >>> nice_value(0.0), nice_value(3600.0) < nice_value(7200.0)
    (0, True)
    """
    return int(min(math.floor(NICE_SCALE * math.log1p(max(float(priority), 0.0))), PRIORITY_BASE - 1))


def job_submit_template() -> str:
    """The ``job_submit.lua`` plugin source."""
    return package_files("adapters.scheduler.slurm").joinpath(PLUGIN_FILE).read_text()


def utc_offsets(epoch: pd.Timestamp, start: float, end: float) -> list[tuple[float, float]]:
    """``[(trace seconds, UTC offset seconds), ...]``: the offset in force from each time on, over [start, end].

    Daylight-saving changes are found hour by hour, then to the second by bisection (``epoch`` in whole seconds).

    Example
    -------
    >>> epoch = pd.Timestamp("1993-10-01", tz="US/Pacific")
    >>> [(round(t / 86400, 2), o / 3600) for t, o in utc_offsets(epoch, 0, 40 * 86400)]
    [(0.0, -7.0), (30.08, -8.0)]
    """
    if epoch.tzinfo is None:
        return [(float(start), 0.0)]
    origin = epoch.tz_convert("UTC")

    def offset(t: float) -> float:
        return (origin + pd.Timedelta(seconds=float(t))).tz_convert(epoch.tzinfo).utcoffset().total_seconds()

    times = np.append(np.arange(float(start), float(end), 3600.0), float(end))
    out = [(float(start), offset(start))]
    for a, b in zip(times[:-1], times[1:]):
        if offset(b) == out[-1][1]:
            continue
        lo, hi = math.floor(a), math.ceil(b)  # offset(lo) is the old one, offset(hi) the new one
        while hi - lo > 1:  # whole seconds: zones change at whole seconds
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if offset(mid) == out[-1][1] else (lo, mid)
        out.append((float(hi), offset(hi)))
    return out


def _number(value) -> str:
    value = float(value)
    return "0/0" if math.isnan(value) else float_literal(value, infinity="math.huge")


def _vocabulary(values) -> str:
    return "{" + ", ".join(f"[{lua_string(v)}] = {i}" for i, v in enumerate(values)) + "}"


def _request(value) -> float:
    """A requested run time as the history keeps it: NaN for none."""
    return math.nan if value is None or pd.isna(value) else float(value)


def request_field(value) -> str:
    """A replayed job's requested run time (trace seconds) as its comment and its ``job_runtimes.txt`` line
    carry it: the exact float, or ``-`` for none.

    Example
    -------
    >>> request_field(3600.0), request_field(float("nan"))
    ('3600.0', '-')
    """
    request = _request(value)
    return "-" if math.isnan(request) else repr(request)


def _seed(seed: pd.DataFrame) -> str:
    requests = seed["req_time"] if "req_time" in seed else pd.Series(math.nan, index=seed.index)
    rows = [f"{{{lua_string(u)}, {lua_string(n)}, {int(g)}, {_number(d)}, {_number(_request(r))}}}"
            for (u, n, g, d), r in zip(seed[["user", "name", "gpu_num", "duration"]].itertuples(index=False),
                                       requests)]
    chunks = [rows[i:i + _SEED_CHUNK] for i in range(0, len(rows), _SEED_CHUNK)] or [[]]
    return "join({" + ",\n".join("(function() return {\n" + ",\n".join(c) + "\n} end)()" for c in chunks) + "})"


def replay_comment(job) -> str:
    """The comment of a replayed job: what the plugin reads from the trace instead of the live cluster (its
    submit time, queue, processors and, when it made one, its requested run time in trace seconds).

    Example
    -------
    >>> replay_comment({"submit_time": 60.0, "vc": "q", "cpu_num": 8, "req_time": 3600.0})
    't=60.0;vc=q;cpus=8;req=3600.0'
    """
    text = f"t={float(job['submit_time'])!r};vc={job['vc']};cpus={int(job['cpu_num'])}"
    request = request_field(job.get("req_time"))
    return text if request == "-" else f"{text};req={request}"


def context_source(model, *, codes: dict, log_range, seed: pd.DataFrame, epoch, lam: float = 0.5,
                   estimator: workload.RollingEstimator | None = None, time_scale: float = 1.0,
                   replay: bool = False, time_range=(0.0, 0.0), recent_window: float = 3600.0,
                   cpus_per_gpu: int = 1) -> str:
    """The ``primo_context.lua`` source (see the module docstring and :func:`plugin_files`)."""
    estimator = estimator or workload.RollingEstimator(similarity_threshold=1.0)
    if estimator.similarity_threshold < 1.0:
        raise ValueError("the Slurm plugin matches job names exactly: use RollingEstimator(similarity_threshold=1.0)")
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lam must be in [0, 1], got {lam}")
    epoch = pd.Timestamp(epoch)
    offsets = utc_offsets(epoch, *time_range)
    features = list(model.feature_names_)
    # how the model reads each id: a text category goes in as a string (its export maps it), a numeric
    # category as the number, an ordinal code through the training vocabulary (EmbeddedScheduler's rule)
    kinds = id_inputs(model_tables(model), features)
    offset = getattr(model, "metadata_", {}).get("offset_feature")
    if offset is not None and offset not in features:
        raise ValueError(f"the model's offset feature {offset!r} is not one of its features")
    lines = [
        "-- primo_context.lua: generated by adapters/scheduler/slurm/plugin.py for job_submit.lua",
        "local function join(parts)",
        "  local out, n = {}, 0",
        "  for _, part in ipairs(parts) do for i = 1, #part do n = n + 1; out[n] = part[i] end end",
        "  return out",
        "end",
        "return {",
        "  features = {" + ", ".join(lua_string(f) for f in features) + "},",
        # only the features the model reads (the plugin computes them all; it logs these ones)
        "  log_features = {" + ", ".join(f"[{lua_string(f)}] = true" for f in workload._LOG_FEATURES if f in features)
        + "},",
        "  id_inputs = {" + ", ".join(f"{key} = {lua_string(kind)}" for key, kind in kinds.items()) + "},",
        "  codes = {" + ", ".join(f"{key} = {_vocabulary(codes.get(key, []) if kinds.get(key) == 'code' else [])}"
                                 for key in ID_COLUMNS) + "},",
        # 1-based position of the input the model corrects (its prediction is a log-ratio to it), or nil
        f"  offset = {features.index(offset) + 1 if offset is not None else 'nil'},",
        f"  lam = {_number(lam)},",
        f"  log_range = {{{_number(log_range[0])}, {_number(log_range[1])}}},",
        f"  nice_scale = {NICE_SCALE}, max_nice = {PRIORITY_BASE - 1},",
        f"  time_scale = {_number(time_scale)}, cpus_per_gpu = {int(cpus_per_gpu)},",
        f"  recent_window = {_number(recent_window)},",
        f"  replay = {'true' if replay else 'false'},",
        f"  jobcomp_file = {lua_string(JOBCOMP_FILE)},",
        f"  runtime_file = {lua_string(RUNTIME_FILE) if replay else 'nil'},",
        f"  epoch_unix = {_number(epoch.timestamp())},",
        "  utc_offsets = {" + ", ".join(f"{{{_number(t)}, {_number(o)}}}" for t, o in offsets) + "},",
        f"  rolling = {{decay = {_number(estimator.decay)}, max_history = {int(estimator.max_history)}, "
        f"default_duration = {_number(estimator.default_duration)}}},",
        "  seed = " + _seed(seed) + ",",
        "}",
    ]
    return "\n".join(lines) + "\n"


def plugin_files(model, *, codes: dict, log_range, seed: pd.DataFrame, epoch, **context) -> dict[str, str]:
    """``{file name: text}`` of the plugin, the exported model and its context, for ``slurm.conf``'s directory.

    Parameters
    ----------
    model : the Workload Estimate Model (a PrDT or PrAM on log1p seconds, or on their correction to the
        ``metadata_["offset_feature"]`` input, as :func:`adapters.scheduler.primo_models.fit_duration_model`
        fits it; features of :func:`adapters.scheduler.workload.workload_dataset`).
    codes : ``{"user": [...], "vc": [...], "name": [...]}`` training vocabularies of the ids the model reads
        as ordinal codes (ids it reads as categories go in as strings or numbers; their codes are the model's).
    log_range : clip of the log1p duration estimate (the training target range).
    seed : finished jobs the plugin starts knowing, in finish order (``user, name, gpu_num, duration`` and
        ``req_time`` when the log records requests).
    epoch : the trace's time 0 (time zone of the calendar features).
    context : :func:`context_source` options: ``lam``, ``estimator``, ``time_scale``, ``replay``
        (the trace user travels in the job name as ``user:name``, the trace submit time, vc,
        processor count and request in the comment, :func:`replay_comment`), ``time_range`` (trace seconds the
        replay covers, for the time-zone offsets), ``recent_window``, ``cpus_per_gpu``.

    Example
    -------
    >>> sorted(plugin_files(model, codes=codes, log_range=(0, 12), seed=seed, epoch=epoch))  # doctest: +SKIP
    ['job_submit.lua', 'primo_context.lua', 'primo_workload_model.lua']
    """
    return {
        PLUGIN_FILE: job_submit_template(),
        MODEL_FILE: to_lua(model),
        CONTEXT_FILE: context_source(model, codes=codes, log_range=log_range, seed=seed, epoch=epoch, **context),
    }


def finished_before(jobs: pd.DataFrame, time: float) -> pd.DataFrame:
    """Jobs of ``jobs`` that ended at or before ``time``, in finish order (the history a scheduler has then),
    with their requested run times when the log records them.

    Example
    -------
    >>> seed = finished_before(train_jobs, window_start)  # doctest: +SKIP
    """
    columns = ["user", "name", "gpu_num", "duration", *(["req_time"] if "req_time" in jobs else [])]
    return workload.finished_by(jobs, time)[columns]
