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

from collections import defaultdict, deque
from datetime import timedelta

import numpy as np
import pandas as pd

from adapters.scheduler import packing, throughput, workload
from primo.export import compile_python
from primo.export.tables import model_tables

_LOG_FEATURES = set(workload._LOG_FEATURES)


def _get(job, key):
    return job[key] if isinstance(job, dict) else getattr(job, key)


class EmbeddedScheduler:
    """Priority, sharing score and throughput forecast from exported Primo models.

    Parameters
    ----------
    workload_model : fitted Workload Estimate Model (PrAM on log1p seconds).
    codes : ``{"user": [...], "vc": [...], "name": [...]}`` training vocabularies (code = position,
        unseen = -1), as :func:`adapters.scheduler.workload.workload_dataset` encodes them.
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
        self._codes = {key: {v: i for i, v in enumerate(values)} for key, values in codes.items()}
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
        key = str(_get(job, "job_id"))
        if key not in self._recent:
            user, t = str(_get(job, "user")), float(_get(job, "submit_time"))
            window = self._submits[user]
            while window and window[0] < t - self.recent_window:
                window.popleft()
            self._recent[key] = float(len(window))
            window.append(t)
        return self._recent[key]

    def job_row(self, job) -> list[float]:
        """The model's feature row of ``job`` (a mapping or a simulator ``SimJob``)."""
        stamp = self._epoch_utc + timedelta(seconds=float(_get(job, "submit_time")))
        if self.epoch.tzinfo is not None:
            stamp = stamp.astimezone(self.epoch.tzinfo)
        record = {"user": str(_get(job, "user")), "name": str(_get(job, "name")),
                  "gpu_num": int(_get(job, "gpu_num"))}
        values = {
            "user": self._codes.get("user", {}).get(record["user"], -1),
            "vc": self._codes.get("vc", {}).get(str(_get(job, "vc")), -1),
            "name": self._codes.get("name", {}).get(record["name"], -1),
            "gpu_num": float(record["gpu_num"]), "cpu_num": float(_get(job, "cpu_num")),
            "hour": stamp.hour, "day_of_week": stamp.weekday(),
            "user_recent_submits": self._recent_submits(job),
        }
        for key, value in self.rolling.features(record).items():
            values[key] = np.log1p(value) if key in _LOG_FEATURES else value
        try:
            return [float(values[f]) if f in values else float(_get(job, f)) for f in self.features]
        except (KeyError, AttributeError) as exc:
            raise ValueError(f"job lacks model feature {exc}") from None

    def _seconds(self, log_pred) -> np.ndarray:
        return np.expm1(np.clip(np.asarray(log_pred, dtype=float), *self.log_range))

    def duration(self, job) -> float:
        """Model duration estimate ``P_M`` (seconds), one row through the compiled predictor."""
        return float(self._seconds(self._predict_one(self.job_row(job))))

    def priority(self, job) -> float:
        """QSSF priority of ``job`` (GPU-seconds; lower runs first)."""
        return float(_get(job, "gpu_num")) * self.estimate(job)

    # simulator DurationEstimator protocol: the merged QSSF estimate
    def estimate(self, job) -> float:
        rolling = self.rolling.estimate({"user": str(_get(job, "user")), "name": str(_get(job, "name")),
                                         "gpu_num": int(_get(job, "gpu_num"))})
        return self.lam * rolling + (1.0 - self.lam) * self.duration(job)

    def estimate_many(self, jobs) -> np.ndarray:
        """Merged estimates of a whole queue: one numpy pass over the exported tables."""
        if not len(jobs):
            return np.empty(0)
        rows = np.array([self.job_row(j) for j in jobs], dtype=float)
        model = self._seconds(self._tables.predict(rows))
        rolling = np.expm1(rows[:, self.features.index("rolling_estimate")]) \
            if "rolling_estimate" in self.features else np.array([self.rolling.estimate(
                {"user": str(_get(j, "user")), "name": str(_get(j, "name")), "gpu_num": int(_get(j, "gpu_num"))})
                for j in jobs])
        return self.lam * rolling + (1.0 - self.lam) * model

    def observe(self, job) -> None:
        """A job finished: its duration joins the rolling history (Lucid's Update Engine)."""
        self.rolling.update({"user": str(_get(job, "user")), "name": str(_get(job, "name")),
                             "gpu_num": int(_get(job, "gpu_num")), "duration": float(_get(job, "duration"))})

    # ---- packing -------------------------------------------------------------------------------
    def sharing_score(self, profile) -> int:
        """Sharing score (0 Tiny, 1 Medium, 2 Jumbo) of a profiled job (``gpu_util``, ``gmem``, ``gmem_util``, ``amp``)."""
        if self._sharing is None:
            raise RuntimeError("no packing model was given")
        return int(self._sharing([float(_get(profile, f)) for f in packing.FEATURES]))

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
