"""Pluggable predictors the policies consult, and their simple default implementations.

Three roles (phase 2 plugs Primo models into the same slots):

- duration estimator: ``estimate(job) -> seconds``; may also define
  ``estimate_many(jobs) -> array`` (one model call for a whole queue) and
  ``observe(job)`` (called when a job finishes: Lucid's *Update Engine* / Helios' rolling history).
- sharing scorer: ``sharing_score(profile) -> 0 | 1 | 2`` (Tiny / Medium / Jumbo).
- throughput forecaster: ``forecast(history) -> expected GPU-job submissions in the bin
  after the history`` (the current, unfinished bin), where ``history`` is a
  :class:`ThroughputHistory` of the bins completed so far.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from operator import attrgetter
from typing import Protocol, Sequence, runtime_checkable

import numpy as np
import pandas as pd

from .job import SimJob
from .profiles import WorkloadProfile


@runtime_checkable
class DurationEstimator(Protocol):
    def estimate(self, job: SimJob) -> float: ...


@runtime_checkable
class SharingScorer(Protocol):
    def sharing_score(self, profile: WorkloadProfile) -> int: ...


@runtime_checkable
class ThroughputForecaster(Protocol):
    def forecast(self, history: "ThroughputHistory") -> float: ...


def estimate_many(estimator, jobs: Sequence[SimJob]) -> np.ndarray:
    """Estimates for many jobs: the estimator's batch method when it has one, else a loop."""
    batch = getattr(estimator, "estimate_many", None)
    if batch is not None:
        return np.asarray(batch(jobs), dtype=float)
    return np.fromiter((estimator.estimate(j) for j in jobs), dtype=float, count=len(jobs))


class OracleEstimator:
    """The true duration (the SJF assumption).

    Example
    -------
    >>> OracleEstimator().estimate(job)  # doctest: +SKIP
    3600.0
    """

    def estimate(self, job: SimJob) -> float:
        return job.duration


class ModelEstimator:
    """Durations from a batch prediction callable (e.g. a fitted model's ``predict``).

    Parameters
    ----------
    predict : callable mapping an ``(n_jobs, n_features)`` float array to ``n_jobs`` durations.
    features : job attributes forming the columns, in order (numeric ``SimJob`` attributes).

    Example
    -------
    >>> est = ModelEstimator(tree.predict, features=("gpu_num", "cpu_num", "submit_time"))  # doctest: +SKIP
    >>> est.estimate_many(queued_jobs)  # doctest: +SKIP
    array([ 812., 3600., ...])
    """

    def __init__(self, predict, features: Sequence[str] = ("gpu_num", "cpu_num", "submit_time")):
        if not callable(predict):
            raise TypeError("predict must be callable")
        self.predict = predict
        self.features = tuple(features)
        self._row = attrgetter(*self.features)

    def _matrix(self, jobs: Sequence[SimJob]) -> np.ndarray:
        try:
            rows = [self._row(j) for j in jobs]
        except AttributeError as exc:
            raise ValueError(f"unknown job feature in {self.features}: {exc}") from None
        return np.array(rows, dtype=float).reshape(len(jobs), len(self.features))

    def estimate_many(self, jobs: Sequence[SimJob]) -> np.ndarray:
        return np.asarray(self.predict(self._matrix(jobs)), dtype=float).reshape(len(jobs))

    def estimate(self, job: SimJob) -> float:
        return float(self.estimate_many([job])[0])


class _RunningMean:
    __slots__ = ("n", "total")

    def __init__(self):
        self.n, self.total = 0, 0.0

    def add(self, x: float) -> None:
        self.n += 1
        self.total += x

    @property
    def mean(self) -> float:
        return self.total / self.n


class RollingHistoryEstimator:
    """Helios' rolling estimate (QSSF, Algorithm 1 lines 13-18) learned online.

    Cases, from the most to the least specific history of finished jobs:

    1. the user ran jobs with this name: exponentially weighted mean of their durations
       (``decay`` is the weight of the newest job);
    2. the user ran jobs with this GPU demand: their mean duration;
    3. the user ran any job: its mean duration (not in Helios; it covers a known user with a
       new GPU demand);
    4. new user: mean duration of all finished jobs with this GPU demand;
    5. no finished job with this GPU demand yet: mean of all finished jobs, else ``prior``.

    Names are matched exactly (trace application ids); Helios' Levenshtein clustering of
    free-text names belongs to the workload estimator of ``adapters.scheduler.workload``.

    Parameters
    ----------
    decay : weight of the newest duration in case 1 (0 < decay <= 1).
    prior : estimate (seconds) before any job has finished.

    Example
    -------
    >>> est = RollingHistoryEstimator()
    >>> est.estimate(job)  # doctest: +SKIP
    3600.0
    >>> est.observe(job); est.estimate(job)  # doctest: +SKIP
    812.0
    """

    def __init__(self, decay: float = 0.5, prior: float = 3600.0):
        if not 0 < decay <= 1:
            raise ValueError(f"decay must be in (0, 1], got {decay}")
        self.decay = decay
        self.prior = prior
        self._by_name: dict[tuple[str, str], float] = {}
        self._by_user_gpu: dict[tuple[str, int], _RunningMean] = defaultdict(_RunningMean)
        self._by_user: dict[str, _RunningMean] = defaultdict(_RunningMean)
        self._by_gpu: dict[int, _RunningMean] = defaultdict(_RunningMean)
        self._all = _RunningMean()

    def observe(self, job: SimJob) -> None:
        d = job.duration
        key = (job.user, job.name)
        if job.name:
            old = self._by_name.get(key)
            self._by_name[key] = d if old is None else self.decay * d + (1 - self.decay) * old
        self._by_user_gpu[(job.user, job.gpu_num)].add(d)
        self._by_user[job.user].add(d)
        self._by_gpu[job.gpu_num].add(d)
        self._all.add(d)

    def estimate(self, job: SimJob) -> float:
        if job.name:
            est = self._by_name.get((job.user, job.name))
            if est is not None:
                return est
        for table, key in ((self._by_user_gpu, (job.user, job.gpu_num)), (self._by_user, job.user),
                           (self._by_gpu, job.gpu_num)):
            stats = table.get(key)
            if stats is not None:
                return stats.mean
        return self._all.mean if self._all.n else self.prior


class TableSharingScorer:
    """Sharing score = the label Lucid measured for the profile (``single_data.csv``)."""

    def sharing_score(self, profile: WorkloadProfile) -> int:
        return profile.label


@dataclass(frozen=True)
class ThroughputHistory:
    """Per-bin cluster submissions seen so far (views into the simulator's counters).

    Attributes
    ----------
    bin_start : start of each completed bin, seconds since ``epoch``.
    submit_gpu_job, submit_gpu_num : GPU jobs and GPUs submitted in each bin.
    epoch : the trace's time 0 (``jobs.attrs["epoch"]``), or None.
    bin_seconds : bin width (600 s, like ``cluster_throughput.csv``).
    """

    bin_start: np.ndarray
    submit_gpu_job: np.ndarray
    submit_gpu_num: np.ndarray
    epoch: pd.Timestamp | None
    bin_seconds: float

    def __len__(self) -> int:
        return len(self.bin_start)

    def to_frame(self) -> pd.DataFrame:
        """The history in ``cluster_throughput.csv``'s layout (``time`` plus submit columns)."""
        if self.epoch is not None:
            time = self.epoch + pd.to_timedelta(self.bin_start, unit="s")
        else:
            time = pd.to_timedelta(self.bin_start, unit="s")
        return pd.DataFrame({"time": time, "submit_gpu_job": self.submit_gpu_job,
                             "submit_gpu_num": self.submit_gpu_num})


class MovingAverageForecast:
    """Forecast = mean GPU-job submissions of the last ``window`` bins (6 bins = 1 hour)."""

    def __init__(self, window: int = 6):
        if window < 1:
            raise ValueError(f"window must be >= 1, got {window}")
        self.window = window

    def forecast(self, history: ThroughputHistory) -> float:
        recent = history.submit_gpu_job[-self.window:]
        return float(recent.mean()) if len(recent) else 0.0


class OracleThroughputForecast:
    """The true number of GPU-job submissions in the bin after the history (knows the whole trace).

    Parameters
    ----------
    submit_times : submit time of every trace job, seconds since the trace epoch.
    """

    def __init__(self, submit_times):
        self.submit_times = np.sort(np.asarray(submit_times, dtype=float))

    def forecast(self, history: ThroughputHistory) -> float:
        start = (history.bin_start[-1] + history.bin_seconds) if len(history) else 0.0
        lo, hi = np.searchsorted(self.submit_times, [start, start + history.bin_seconds], side="left")
        return float(hi - lo)
