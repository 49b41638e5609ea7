"""Scheduler-facing API over the three exported Primo models (no training stack at decision time).

:class:`EmbeddedScheduler` answers the three questions Lucid's orchestrator asks:

- ``priority(job)``: QSSF/Lucid priority ``gpus × (λ·P_R + (1−λ)·P_M)`` (lower runs first),
  with ``P_M`` from the Workload Estimate Model and ``P_R`` the rolling estimate;
- ``sharing_score(profile)``: 0 Tiny / 1 Medium / 2 Jumbo from the Packing Analyze Model;
- ``throughput_forecast(history)``: GPU-job submissions expected in the next 10-minute bin.

The models run as exported bin/tree tables (:mod:`primo.export`): ``compile_python`` for one
row, :class:`primo.export.tables.AdditiveTables` (numpy only) for a whole queue. The object
also implements the simulator's predictor protocols (``estimate``/``estimate_many``/``observe``,
``sharing_score``, ``forecast``), so it plugs into ``QSSFPolicy``/``LucidPolicy`` directly.

Workload features are rebuilt online exactly as :func:`adapters.scheduler.workload.workload_dataset`
builds them, from the jobs the scheduler has seen finish (``observe``) and submit.
"""
from __future__ import annotations

from bisect import insort
from collections import defaultdict, deque
from datetime import timedelta

import numpy as np
import pandas as pd

from adapters.scheduler import packing, throughput, workload
from adapters.scheduler.jobs import SUBMIT_TIME_COLUMNS
from primo.export import compile_python
from primo.export.tables import TreeTables, model_tables

_LOG_FEATURES = set(workload._LOG_FEATURES)


def job_value(job, key):
    """``job[key]`` of a dict record, ``job.key`` of a simulator job."""
    return job[key] if isinstance(job, dict) else getattr(job, key)


def _history_key(job) -> dict:
    """What the rolling estimate files a job under: its user, name and GPU count."""
    return {"user": str(job_value(job, "user")), "name": str(job_value(job, "name")),
            "gpu_num": int(job_value(job, "gpu_num"))}


ID_COLUMNS = ("user", "vc", "name")


def id_inputs(tables, features: list[str]) -> dict[str, str]:
    """How a workload model's tables read each id column among its ``features``: ``"text"`` (a text category, its
    code in the model's vocabulary), ``"number"`` (a category whose values are all numbers, e.g. SWF user ids in a
    PrAM: the id read as a number), or ``"code"`` (an ordinal code of the training vocabulary, as
    :func:`adapters.scheduler.workload.workload_dataset` encodes ids with ``id_encoding="ordinal"``).

    Example
    -------
    >>> id_inputs(model_tables(model), model.feature_names_)  # doctest: +SKIP
    {'user': 'number', 'vc': 'text'}
    """
    vocabularies = getattr(tables, "vocabularies", {})
    numeric_categories = {b.feature for b in getattr(tables, "binnings", ()) if b.is_categorical}
    return {key: "text" if features.index(key) in vocabularies else
            "number" if features.index(key) in numeric_categories else "code"
            for key in ID_COLUMNS if key in features}


def _as_number(value: str) -> float:
    """An id read as a number; one that is not a number is an unseen category (no category is infinite)."""
    try:
        return float(value)
    except ValueError:
        return np.inf


def _optional(job, key):
    """An attribute a job may not carry (e.g. ``req_time``), None when it does not."""
    return job.get(key) if isinstance(job, dict) else getattr(job, key, None)


class EmbeddedScheduler:
    """Priority, sharing score and throughput forecast from exported Primo models.

    Parameters
    ----------
    workload_model : fitted Workload Estimate Model (PrAM on log1p seconds).
    codes : ``{"user": [...], "vc": [...], "name": [...]}`` training vocabularies (code = position,
        unseen = -1, or missing for a PrDT), as :func:`adapters.scheduler.workload.workload_dataset` encodes them;
        for a model trained on category columns, its own vocabularies (``model_tables(model).vocabularies``).
        An id the model reads as a numeric category (:func:`id_inputs`) is passed as the number itself.
    epoch : the trace's time 0 (calendar features of ``submit_time``).
    packing_model : fitted PrDT on :data:`adapters.scheduler.packing.FEATURES` (or None).
    throughput_model : fitted log1p Throughput Predict Model (or None).
    rolling : the QSSF rolling estimator (a fresh :class:`~adapters.scheduler.workload.RollingEstimator`
        when omitted; ``similarity_threshold=1.0`` suits application-id names).
    lam : QSSF merging coefficient λ.
    log_range : clip of the log1p prediction (the training target range).
    recent_window : seconds of the ``user_recent_submits`` feature.
    holidays : dates flagged in the throughput calendar features.

    Example
    -------
    >>> sched = EmbeddedScheduler(pram, codes, jobs.attrs["epoch"], packing_model=tree)  # doctest: +SKIP
    >>> sched.priority({"user": "u1", "name": "a", "vc": "v", "gpu_num": 2, "cpu_num": 8,
    ...                 "submit_time": 0.0, "job_id": "1"})  # doctest: +SKIP
    1840.2
    """

    def __init__(self, workload_model, codes: dict, epoch, *, packing_model=None, throughput_model=None,
                 rolling: workload.RollingEstimator | None = None, lam: float = 0.5,
                 log_range=(0.0, np.inf), recent_window: float = 3600.0, holidays=()):
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lam must be in [0, 1], got {lam}")
        self.features = list(workload_model.feature_names_)
        self._tables = model_tables(workload_model)
        self._predict_one = compile_python(workload_model)
        # a model of the log-ratio to one of its inputs (e.g. the rolling estimate): add that input back
        offset = getattr(workload_model, "metadata_", {}).get("offset_feature")
        self._offset = self.features.index(offset) if offset else None
        self._codes = {key: {v: i for i, v in enumerate(values)} for key, values in codes.items()}
        # an id the model never saw: in a PrDT's category column it is missing; otherwise -1 (interpret's
        # unseen bin, or the code workload_dataset gives unseen ordinal ids)
        kinds = id_inputs(self._tables, self.features)
        self._unseen = {key: np.nan if isinstance(self._tables, TreeTables) and kinds.get(key) == "text" else -1
                        for key in ID_COLUMNS}
        self._numbers = {key for key, kind in kinds.items() if kind == "number"}
        self.epoch = pd.Timestamp(epoch)
        # datetime arithmetic in UTC then back to the zone: exact like pandas, ~20x cheaper per job
        self._epoch_utc = (self.epoch.tz_convert("UTC") if self.epoch.tzinfo else self.epoch).to_pydatetime()
        self.rolling = rolling or workload.RollingEstimator(similarity_threshold=1.0)
        self.lam = lam
        self.log_range = tuple(float(v) for v in log_range)
        self.recent_window = recent_window
        self._submits: dict[str, deque] = defaultdict(deque)
        self._recent: dict[str, float] = {}   # job id -> user's submissions in the window before it
        self._sharing = compile_python(packing_model) if packing_model is not None else None
        self._throughput = compile_python(throughput_model) if throughput_model is not None else None
        self._throughput_columns = list(throughput_model.feature_names_) if throughput_model is not None else []
        self._forecast_cache: tuple[object, float] | None = None  # (bin forecast, value): one model call per bin
        self.holidays = holidays

    # ---- workload ------------------------------------------------------------------------------
    def _recent_submits(self, job) -> float:
        """Submissions of the job's user in the window before it, counted once per job."""
        key = str(job_value(job, "job_id"))
        if key not in self._recent:
            user, t = str(job_value(job, "user")), float(job_value(job, "submit_time"))
            window = self._submits[user]
            while window and window[0] < t - self.recent_window:
                window.popleft()
            self._recent[key] = float(len(window))
            window.append(t)
        return self._recent[key]

    def job_row(self, job) -> list[float]:
        """The model's feature row of ``job`` (a mapping or a simulator ``SimJob``)."""
        stamp = self._epoch_utc + timedelta(seconds=float(job_value(job, "submit_time")))
        if self.epoch.tzinfo is not None:
            stamp = stamp.astimezone(self.epoch.tzinfo)
        record = {**_history_key(job), "req_time": _optional(job, "req_time")}
        ids = {"user": record["user"], "vc": str(job_value(job, "vc")), "name": record["name"]}
        values = {
            **{key: _as_number(value) if key in self._numbers else self._codes.get(key, {}).get(value, self._unseen[key])
               for key, value in ids.items()},
            "gpu_num": float(record["gpu_num"]), "cpu_num": float(job_value(job, "cpu_num")),
            "hour": stamp.hour, "day_of_week": stamp.weekday(),
            "user_recent_submits": self._recent_submits(job),
        }
        for key, value in self.rolling.features(record).items():
            values[key] = np.log1p(value) if key in _LOG_FEATURES else value
        for key in SUBMIT_TIME_COLUMNS:  # a request the job did not make is missing, as the loaders read it
            value = _optional(job, key)
            values[key] = np.nan if value is None else value
        try:
            return [float(values[f]) if f in values else float(job_value(job, f)) for f in self.features]
        except (KeyError, AttributeError) as exc:
            raise ValueError(f"job lacks model feature {exc}") from None

    def _seconds(self, log_pred) -> np.ndarray:
        return np.expm1(np.clip(np.asarray(log_pred, dtype=float), *self.log_range))

    def duration(self, job) -> float:
        """Model duration estimate ``P_M`` (seconds), one row through the compiled predictor."""
        row = self.job_row(job)
        return float(self._seconds(self._predict_one(row) + (row[self._offset] if self._offset is not None else 0.0)))

    def priority(self, job) -> float:
        """QSSF priority of ``job`` (GPU-seconds; lower runs first)."""
        return float(job_value(job, "gpu_num")) * self.estimate(job)

    # simulator DurationEstimator protocol: the merged QSSF estimate
    def estimate(self, job) -> float:
        rolling = self.rolling.estimate(_history_key(job))
        return self.lam * rolling + (1.0 - self.lam) * self.duration(job)

    def estimate_many(self, jobs) -> np.ndarray:
        """Merged estimates of a whole queue: one numpy pass over the exported tables."""
        if not len(jobs):
            return np.empty(0)
        rows = np.array([self.job_row(j) for j in jobs], dtype=float)
        model = self._seconds(self._tables.predict(rows) + (rows[:, self._offset] if self._offset is not None else 0.0))
        rolling = np.expm1(rows[:, self.features.index("rolling_estimate")]) \
            if "rolling_estimate" in self.features else np.array([self.rolling.estimate(_history_key(j)) for j in jobs])
        return self.lam * rolling + (1.0 - self.lam) * model

    def observe(self, job) -> None:
        """A job finished: its duration joins the rolling history (Lucid's Update Engine)."""
        self.rolling.update({**_history_key(job), "duration": float(job_value(job, "duration")),
                             "req_time": _optional(job, "req_time")})

    # ---- packing -------------------------------------------------------------------------------
    def sharing_score(self, profile) -> int:
        """Sharing score (0 Tiny, 1 Medium, 2 Jumbo) of a profiled job (``gpu_util``, ``gmem``, ``gmem_util``, ``amp``)."""
        if self._sharing is None:
            raise RuntimeError("no packing model was given")
        return int(self._sharing([float(job_value(profile, f)) for f in packing.FEATURES]))

    # ---- throughput ----------------------------------------------------------------------------
    def throughput_forecast(self, history) -> float:
        """GPU-job submissions expected in the bin after ``history`` (simulator ``ThroughputHistory``
        or a frame with ``time``, ``submit_gpu_job``, ``submit_gpu_num``); the model's longest lag
        is one week, so shorter histories fall back to the mean of the last hour."""
        if self._throughput is None:
            raise RuntimeError("no throughput model was given")
        if not len(history):
            return 0.0
        # only the last week and a day reach the features: keeps a forecast O(1) in trace length
        keep = max(throughput.DEFAULT_LAGS) + max(throughput.DEFAULT_WINDOWS) + 1
        if hasattr(history, "bin_start"):
            key = (len(history), float(history.bin_start[-1]))
            counts = {source: getattr(history, source)[-keep:] for source in throughput.TARGETS}
            epoch = history.epoch if history.epoch is not None else pd.Timestamp(0)
            time = epoch + pd.Timedelta(seconds=float(history.bin_start[-1] + history.bin_seconds))
        else:
            stamps = pd.DatetimeIndex(history["time"])
            key = (len(history), stamps[-1])
            counts = {source: history[source].to_numpy()[-keep:] for source in throughput.TARGETS}
            time = stamps[-1] + (stamps[-1] - stamps[-2]) if len(stamps) > 1 else stamps[-1]
        if self._forecast_cache is not None and self._forecast_cache[0] == key:
            return self._forecast_cache[1]
        if len(counts["submit_gpu_job"]) <= max(throughput.DEFAULT_LAGS):
            value = float(np.mean(counts["submit_gpu_job"][-6:]))  # less than a week seen: 1-hour mean
        else:
            feats = next_bin_features(time, counts, self.holidays)
            value = float(max(np.expm1(self._throughput([feats[c] for c in self._throughput_columns])), 0.0))
        self._forecast_cache = (key, value)
        return value

    forecast = throughput_forecast  # simulator ThroughputForecaster protocol


GPUS_PER_NODE = 8
#: ``_BEST_FIT[occupancy][g]``: the fewest idle GPUs, at least ``g``, that some node has (None: no node fits
#: ``g``), for every bitmask of idle-GPU counts (bit f set: a node has f idle GPUs). A look-up in the
#: decision's inner loop instead of bit arithmetic: a quarter of a pass that starts a thousand jobs.
_BEST_FIT = tuple(
    tuple(next((free for free in range(g, GPUS_PER_NODE + 1) if mask >> free & 1), None)
          for g in range(GPUS_PER_NODE + 1))
    for mask in range(1 << (GPUS_PER_NODE + 1)))


class JobQueue:
    """An embedded scheduler's queue: estimates cached at queueing, priority order kept incrementally,
    and the decision of a scheduling pass (which queued jobs start, on which nodes).

    Each job is estimated once, when it is queued, as Lucid deploys it (``LucidPolicy`` with
    ``reprioritize=False``, Helios' QSSF): ``push`` runs the compiled single-row predictor,
    ``push_many`` one numpy pass over the exported tables for a whole batch, priorities
    ``gpus × estimate`` computed as one array. Entries stay sorted by (priority, submit time,
    queueing order) — inserted with bisect, batches merged by one Timsort of two sorted runs — so
    a decision never re-estimates nor re-sorts the queue.

    :meth:`decide` walks the queue in that order with consolidated placement, the rules of
    :class:`adapters.scheduler.simulator.cluster.ResourcePool`: a job of ``g <= 8`` GPUs takes the
    node with the fewest idle GPUs that fit it (ties: lowest index); a larger job takes
    ``ceil(g / 8)`` entirely idle nodes, the lowest first. Nodes are kept in buckets by idle GPUs,
    so a placement is a look-up in 9 buckets, not a scan of the cluster. Without ``backfill`` the
    pass stops at the first job that does not fit (Helios' Algorithm 1); with it, later jobs that
    fit start too. GPU sharing (Lucid's packing) is not part of this decision.

    Parameters
    ----------
    scheduler : the :class:`EmbeddedScheduler` whose ``estimate``/``estimate_many`` give durations.

    Example
    -------
    >>> queue = JobQueue(sched)  # doctest: +SKIP
    >>> queue.push_many(waiting_jobs)  # doctest: +SKIP
    >>> queue.decide(node_free=[1, 8, 3])  # doctest: +SKIP
    [('job-17', (0,)), ('job-4', (1,))]
    """

    def __init__(self, scheduler: EmbeddedScheduler):
        self.scheduler = scheduler
        # (priority, submit time, seq, GPUs, job), sorted; the GPU count is kept for the decision's inner loop
        self._entries: list[tuple[float, float, int, int, object]] = []
        self._seq = 0

    def __len__(self) -> int:
        return len(self._entries)

    def push(self, job) -> float:
        """Queue one job (estimated now, once); returns its priority."""
        gpus = int(job_value(job, "gpu_num"))
        priority = float(gpus) * self.scheduler.estimate(job)
        insort(self._entries, (priority, float(job_value(job, "submit_time")), self._seq, gpus, job))
        self._seq += 1
        return priority

    def push_many(self, jobs) -> np.ndarray:
        """Queue a batch in arrival order: one vectorised estimate and priority; returns the priorities."""
        jobs = list(jobs)
        if not jobs:
            return np.empty(0)
        gpus = np.fromiter((job_value(j, "gpu_num") for j in jobs), dtype=float, count=len(jobs))
        priority = gpus * self.scheduler.estimate_many(jobs)
        entries = [(p, float(job_value(j, "submit_time")), self._seq + i, int(g), j)
                   for i, (p, g, j) in enumerate(zip(priority.tolist(), gpus.tolist(), jobs))]
        entries.sort()
        self._entries.extend(entries)
        self._entries.sort()  # two sorted runs: Timsort merges them in linear time
        self._seq += len(jobs)
        return priority

    def order(self) -> list:
        """The queued jobs, first to run first."""
        return [entry[4] for entry in self._entries]

    def remove(self, job_id) -> None:
        """Drop a queued job (cancelled, or started by someone else)."""
        key = str(job_id)
        for position, entry in enumerate(self._entries):
            if str(job_value(entry[4], "job_id")) == key:
                del self._entries[position]
                return
        raise KeyError(f"job {job_id!r} is not queued")

    def decide(self, node_free, *, backfill: bool = False) -> list[tuple[object, tuple[int, ...]]]:
        """Start what fits: ``[(job, node indices), ...]`` in queue order; started jobs leave the queue.

        ``node_free`` gives the idle GPUs of each node (0 to 8). The caller places each job on the
        returned nodes (a job of ``g > 8`` GPUs takes 8 on each node but the last).
        """
        buckets: list[list[int]] = [[] for _ in range(GPUS_PER_NODE + 1)]  # idle GPUs -> node indices, ascending
        for node, free in enumerate(node_free):
            if not 0 <= free <= GPUS_PER_NODE:
                raise ValueError(f"node {node} has {free} idle GPUs; a node has 0 to {GPUS_PER_NODE}")
            buckets[int(free)].append(node)
        # Bit f is set while some node has exactly f idle GPUs: the best fit is a look-up in _BEST_FIT;
        # scanning the 9 buckets was most of a pass that starts a thousand jobs.
        occupied = self._occupancy(buckets)
        idle_gpus = int(sum(node_free))
        started, kept = [], []
        start = started.append
        entries = self._entries
        for position, entry in enumerate(entries):
            if not idle_gpus:
                kept.extend(entries[position:])
                break
            g = entry[3]
            if g <= GPUS_PER_NODE:
                free = _BEST_FIT[occupied][g]
                if free is not None:
                    bucket = buckets[free]
                    node = bucket.pop(0)
                    if not bucket:
                        occupied ^= 1 << free
                    insort(buckets[free - g], node)
                    occupied |= 1 << (free - g)
                    start((entry[4], (node,)))
                    idle_gpus -= g
                    continue
            elif g <= idle_gpus:
                nodes = self._place_whole_nodes(buckets, g)
                if nodes is not None:
                    occupied = self._occupancy(buckets)
                    start((entry[4], nodes))
                    idle_gpus -= g
                    continue
            if backfill:
                kept.append(entry)
            else:
                kept.extend(entries[position:])
                break
        self._entries = kept
        return started

    @staticmethod
    def _occupancy(buckets: list[list[int]]) -> int:
        """The bitmask of idle-GPU counts some node has (bit f: a node with f idle GPUs)."""
        return sum(1 << free for free, nodes in enumerate(buckets) if nodes)

    @staticmethod
    def _place_whole_nodes(buckets: list[list[int]], g: int) -> tuple[int, ...] | None:
        """Consolidated placement of a job of ``g > 8`` GPUs: ``ceil(g / 8)`` idle nodes, the lowest first."""
        k = -(-g // GPUS_PER_NODE)
        idle = buckets[GPUS_PER_NODE]
        if len(idle) < k:
            return None
        nodes = tuple(idle[:k])
        del idle[:k]
        insort(buckets[GPUS_PER_NODE - (g - GPUS_PER_NODE * (k - 1))], nodes[-1])
        for node in nodes[:-1]:
            insort(buckets[0], node)
        return nodes


def next_bin_features(time: pd.Timestamp, history: dict, holidays=()) -> dict:
    """Throughput features of the bin starting at ``time`` from the completed bins before it.

    The same values as the last row of :func:`adapters.scheduler.throughput.throughput_dataset`
    (default lags, windows and 7 seasonal days, horizon 1), computed with numpy on the arrays
    only: the simulator asks once per 10-minute bin and pandas' rolling machinery costs
    ~0.1 s per call.

    Parameters
    ----------
    time : start of the forecast bin.
    history : ``{source: counts of the completed bins, oldest first}`` for each of
        :data:`adapters.scheduler.throughput.TARGETS`; at least one week and one bin long.
    holidays : dates flagged in the ``holiday`` feature (omitted when empty).

    Example
    -------
    >>> feats = next_bin_features(pd.Timestamp("2020-09-01"), {"submit_gpu_job": counts, "submit_gpu_num": gpus})  # doctest: +SKIP
    """
    index = pd.DatetimeIndex([time])
    feats = {k: float(v.iloc[0]) for k, v in throughput.calendar_features(index, holidays).items()}
    per_day = 1440 // throughput.BIN_MINUTES
    for source, values in history.items():
        a = np.asarray(values, dtype=float)
        if len(a) < max(throughput.DEFAULT_LAGS):
            raise ValueError(f"{source}: {len(a)} bins of history, need {max(throughput.DEFAULT_LAGS)}")
        out = {f"lag_{throughput._span(k)}": a[-k] for k in throughput.DEFAULT_LAGS}
        for w in throughput.DEFAULT_WINDOWS:
            tail, name = a[-w:], throughput._span(w)
            alpha = 1.0 - np.exp(-np.log(2.0) / w)
            weights = (1.0 - alpha) ** np.arange(len(a))[::-1]  # pandas ewm(halflife=w, adjust=True)
            out.update({f"mean_{name}": tail.mean(), f"median_{name}": np.median(tail),
                        f"std_{name}": tail.std(ddof=1), f"max_{name}": tail.max(),
                        f"soft_{name}": float(weights @ a / weights.sum())})
        out["same_time_mean"] = float(np.mean([a[-d * per_day] for d in range(1, 8)]))
        spans = [throughput._span(w) for w in (min(throughput.DEFAULT_WINDOWS), max(throughput.DEFAULT_WINDOWS))]
        out["trend"] = out[f"mean_{spans[0]}"] - out[f"mean_{spans[1]}"]
        feats.update({f"{source}__{k}": float(v) for k, v in out.items()})
    return feats


def training_codes(jobs: pd.DataFrame, boundary) -> dict:
    """Vocabularies of user, vc and name in the training jobs (the codes the model was trained with).

    Example
    -------
    >>> training_codes(jobs, "1993-12-01")["user"][:2]  # doctest: +SKIP
    ['u1', 'u7']
    """
    from adapters.scheduler.jobs import time_split

    train, _ = time_split(jobs, boundary)
    return {key: list(pd.Index(train[key].astype(str).unique())) for key in ("user", "vc", "name")}
