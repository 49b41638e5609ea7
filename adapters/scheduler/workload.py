"""Lucid's Workload Estimate Model data and Helios' QSSF rolling estimator.

Per job, the features are what a scheduler knows at submission (Lucid §3.5.3, Helios
§4.2.2): user, job name bucketed by Levenshtein distance with affinity propagation (or
the application id when the trace has one), virtual cluster, GPU/CPU demand, submit-time
calendar terms, and history computed online from jobs that **finished before the submit
time** (no leakage). The target is the job duration.

QSSF (Helios Algorithm 1) ranks jobs by ``gpus × (λ·P_R + (1−λ)·P_M)`` where ``P_M`` is a
model's estimate and ``P_R`` the rolling estimate of :class:`RollingEstimator`.
"""
from __future__ import annotations

import heapq
import logging
from collections import defaultdict, deque
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein
from scipy.stats import bootstrap, kendalltau, rankdata, spearmanr
from sklearn.cluster import AffinityPropagation
from sklearn.metrics import r2_score

from adapters.scheduler.baselines import BASELINE_NAMES, fit_predict_timed, make_baseline, make_ebm
from adapters.scheduler.jobs import JOB_COLUMNS, submit_time_columns, submit_timestamps, time_split
from primo.report.claims import PairedDifference

logger = logging.getLogger(__name__)

PUBLISHED_R2 = {"rf": 0.101, "lightgbm": 0.230, "xgboost": 0.332, "mlp": 0.181, "lucid_ga2m": 0.413}
"""Lucid Table 7, Venus, R² of job duration (another trace: compare qualitatively)."""

CASES = ("new_user", "new_name", "similar_name")
"""The three branches of QSSF's rolling estimate, coded 0, 1, 2 in the ``rolling_case`` feature."""


class NameClusterer:
    """Bucket job names: Levenshtein similarity + affinity propagation (Lucid, Helios).

    ``fit`` clusters the distinct names (the ``max_names`` most frequent ones when there
    are more, because affinity propagation needs the full n×n similarity matrix);
    ``transform`` maps any name, seen or not, to the bucket of its most similar exemplar.
    The empty name ("unknown") always maps to -1.

    Parameters
    ----------
    max_names : cap on the names given to affinity propagation.
    damping : affinity propagation damping (scikit-learn's 0.5 often oscillates on strings).
    random_state : seed of affinity propagation's tie-breaking noise.

    Example
    -------
    >>> c = NameClusterer().fit(["resnet_lr0.1", "resnet_lr0.01", "bert_base_a", "bert_base_b"])
    >>> labels = c.transform(["resnet_lr0.3", "bert_base_c"])
    >>> bool(labels[0] != labels[1])
    True
    """

    def __init__(self, max_names: int = 2000, damping: float = 0.7, random_state: int = 0):
        self.max_names = max_names
        self.damping = damping
        self.random_state = random_state

    def fit(self, names) -> "NameClusterer":
        """Choose exemplar names (sets ``exemplars_``); empty names are ignored."""
        counts = pd.Series(list(names), dtype=str).value_counts()
        counts = counts[counts.index != ""]
        if counts.empty:
            raise ValueError("no non-empty job names to cluster")
        distinct = list(counts.index[: self.max_names])
        if len(distinct) < 3:
            self.exemplars_ = distinct  # too few names for affinity propagation: one bucket each
        else:
            similarity = -process.cdist(distinct, distinct, scorer=Levenshtein.normalized_distance,
                                        dtype=np.float32)
            ap = AffinityPropagation(affinity="precomputed", damping=self.damping, max_iter=500,
                                     random_state=self.random_state).fit(similarity)
            centers = ap.cluster_centers_indices_
            if centers is None or len(centers) == 0:
                logger.warning("affinity propagation did not converge on %d names; one bucket per name",
                               len(distinct))
                self.exemplars_ = distinct
            else:
                self.exemplars_ = [distinct[i] for i in centers]
        logger.info("name clustering: %d distinct names -> %d buckets", len(counts), len(self.exemplars_))
        return self

    def transform(self, names) -> np.ndarray:
        """Bucket index of each name (its most similar exemplar); -1 for the empty name."""
        if not hasattr(self, "exemplars_"):
            raise RuntimeError("NameClusterer is not fitted; call fit(names) first")
        names = [str(n) for n in names]
        unique = sorted(set(names))
        distance = process.cdist(unique, self.exemplars_, scorer=Levenshtein.normalized_distance,
                                 dtype=np.float32)
        label = dict(zip(unique, distance.argmin(axis=1)))
        return np.array([-1 if n == "" else label[n] for n in names], dtype=np.int64)

    def fit_transform(self, names) -> np.ndarray:
        names = list(names)
        return self.fit(names).transform(names)


@dataclass
class _Mean:
    """Running sum and count (an average that can be updated one job at a time)."""

    total: float = 0.0
    count: int = 0

    def add(self, value: float) -> None:
        self.total += value
        self.count += 1

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else np.nan


def _requested_time(job) -> float | None:
    """The job's requested run time in seconds, or None when it has none (a mapping's ``req_time``)."""
    value = job.get("req_time") if hasattr(job, "get") else None
    return float(value) if value is not None and np.isfinite(value) and value > 0 else None


class RollingEstimator:
    """QSSF's rolling duration estimate (Helios SC'21, Algorithm 1, lines 13–18).

    For a job of user ``u`` asking for ``g`` GPUs, from the jobs seen through ``update``:

    1. new user (``u`` never seen): mean duration of all jobs with ``g`` GPUs (all jobs if
       none; ``default_duration`` before any job);
    2. known user but no earlier job of ``u`` with a similar name: mean duration of ``u``'s
       jobs with ``g`` GPUs (all of ``u``'s jobs if none);
    3. otherwise: exponentially decayed mean of the durations of ``u``'s similar-name jobs,
       most recently finished first, weights ``decay**0, decay**1, ...``.

    Names are similar when their normalized Levenshtein similarity is at least
    ``similarity_threshold``; 1.0 means identical (use it when names are application ids).
    Jobs with an empty name never match a name.

    Parameters
    ----------
    similarity_threshold : in (0, 1].
    decay : weight ratio between consecutive matched jobs, in (0, 1].
    max_history : durations kept per (user, name); older ones carry negligible weight.
    default_duration : seconds returned before any job has finished.

    Example
    -------
    >>> est = RollingEstimator(decay=0.5)
    >>> est.update({"user": "a", "name": "train_v1", "gpu_num": 1, "duration": 100.0})
    >>> est.update({"user": "a", "name": "train_v2", "gpu_num": 1, "duration": 200.0})
    >>> est.estimate({"user": "a", "name": "train_v3", "gpu_num": 1})  # (200 + 0.5·100) / 1.5
    166.66666666666666
    """

    def __init__(self, similarity_threshold: float = 0.8, decay: float = 0.5, max_history: int = 32,
                 default_duration: float = 3600.0):
        if not 0.0 < similarity_threshold <= 1.0:
            raise ValueError(f"similarity_threshold must be in (0, 1], got {similarity_threshold}")
        if not 0.0 < decay <= 1.0:
            raise ValueError(f"decay must be in (0, 1], got {decay}")
        self.similarity_threshold = similarity_threshold
        self.decay = decay
        self.max_history = max_history
        self.default_duration = default_duration
        self._all = _Mean()
        self._by_gpu: dict[int, _Mean] = defaultdict(_Mean)
        self._by_user: dict[str, _Mean] = defaultdict(_Mean)
        self._by_user_gpu: dict[tuple[str, int], _Mean] = defaultdict(_Mean)
        self._log_by_user: dict[str, _Mean] = defaultdict(_Mean)  # log1p(duration): a typical job, not the mean
        self._last_by_user: dict[str, float] = {}
        self._request_by_user: dict[str, _Mean] = defaultdict(_Mean)  # log1p(duration) − log1p(requested time)
        self._history: dict[str, dict[str, deque]] = defaultdict(dict)  # user -> name -> (seq, duration)
        self._seq = 0

    def update(self, job) -> None:
        """Record a finished job (a mapping with ``user``, ``name``, ``gpu_num``, ``duration``, and
        ``req_time`` when the log records requested run times)."""
        user, gpu, duration = str(job["user"]), int(job["gpu_num"]), float(job["duration"])
        self._all.add(duration)
        self._by_gpu[gpu].add(duration)
        self._by_user[user].add(duration)
        self._by_user_gpu[user, gpu].add(duration)
        self._log_by_user[user].add(float(np.log1p(duration)))
        self._last_by_user[user] = duration
        request = _requested_time(job)
        if request is not None:
            self._request_by_user[user].add(float(np.log1p(duration) - np.log1p(request)))
        name = str(job["name"])
        if name:
            history = self._history[user].setdefault(name, deque(maxlen=self.max_history))
            history.append((self._seq, duration))
        self._seq += 1

    def matches(self, job) -> list[tuple[int, float]]:
        """(finish order, duration) of the user's earlier jobs with a similar name, newest first."""
        names = self._history.get(str(job["user"]), {})
        name = str(job["name"])
        if not name or not names:
            return []
        if self.similarity_threshold >= 1.0:
            similar = [name] if name in names else []
        else:
            found = process.extract(name, list(names), scorer=Levenshtein.normalized_similarity,
                                    score_cutoff=self.similarity_threshold, limit=None)
            similar = [match for match, _, _ in found]
        merged = [item for n in similar for item in names[n]]
        return sorted(merged, reverse=True)

    def _estimate(self, job) -> tuple[float, str, list[tuple[int, float]]]:
        """(estimate, QSSF branch, matched history) of ``job``."""
        user, gpu = str(job["user"]), int(job["gpu_num"])
        matched: list[tuple[int, float]] = []
        if user not in self._by_user:
            case = "new_user"
            value = self._by_gpu[gpu].mean if gpu in self._by_gpu else self._all.mean
        else:
            matched = self.matches(job)
            if not matched:
                case = "new_name"
                mean = self._by_user_gpu.get((user, gpu))
                value = mean.mean if mean is not None else self._by_user[user].mean
            else:
                case = "similar_name"
                durations = np.array([d for _, d in matched])
                weights = self.decay ** np.arange(len(durations))
                value = float(weights @ durations / weights.sum())
        if np.isnan(value):
            value = self.default_duration
        return value, case, matched

    def estimate(self, job, *, return_case: bool = False):
        """Rolling estimate ``P_R`` in seconds (with the QSSF branch name if ``return_case``)."""
        value, case, _ = self._estimate(job)
        return (value, case) if return_case else value

    def features(self, job) -> dict[str, float]:
        """History features of ``job`` from the same state (durations in seconds, except
        ``user_log_mean_duration``: the mean of the user's log1p durations, their typical job, which
        an arithmetic mean dominated by a few very long jobs is not; ``user_request_ratio``: the mean of
        log1p(duration) − log1p(requested time) over the user's finished jobs, how much of a request
        they use; ``request_estimate``: the job's log1p requested time plus that ratio)."""
        user, gpu = str(job["user"]), int(job["gpu_num"])
        estimate, case, matched = self._estimate(job)
        user_mean = self._by_user.get(user)
        user_gpu = self._by_user_gpu.get((user, gpu))
        gpu_mean = self._by_gpu.get(gpu)
        user_log = self._log_by_user.get(user)
        request, ratio = _requested_time(job), self._request_by_user.get(user)
        return {
            "rolling_estimate": estimate,
            "rolling_case": float(CASES.index(case)),
            "user_finished": float(user_mean.count if user_mean else 0),
            "user_mean_duration": user_mean.mean if user_mean else np.nan,
            "user_gpu_mean_duration": user_gpu.mean if user_gpu else np.nan,
            "name_finished": float(len(matched)),
            "name_last_duration": matched[0][1] if matched else np.nan,
            "gpu_mean_duration": gpu_mean.mean if gpu_mean else np.nan,
            "user_log_mean_duration": user_log.mean if user_log else np.nan,
            "user_last_duration": self._last_by_user.get(user, np.nan),
            "user_request_ratio": ratio.mean if ratio else np.nan,
            "request_estimate": float(np.log1p(request)) + ratio.mean if ratio and request is not None else np.nan,
        }


def job_end_times(jobs: pd.DataFrame) -> np.ndarray:
    """End time of each job: submit + queue delay (0 when unknown) + duration.

    With no recorded delay the end is a lower bound; for the NASA log it is exact because
    its "submit" times are start times.
    """
    delay = jobs["queue_delay"].fillna(0.0) if "queue_delay" in jobs else 0.0
    return (jobs["submit_time"] + delay + jobs["duration"]).to_numpy(dtype=float)


def online_history(jobs: pd.DataFrame, estimator: RollingEstimator | None = None, *,
                   recent_window: float = 3600.0) -> pd.DataFrame:
    """Walk the trace in submit order and compute each job's history features without leakage.

    Before a job's features are read, the estimator is updated with exactly the jobs whose
    end time (:func:`job_end_times`) is at or before its submit time. ``user_recent_submits``
    counts the user's submissions in the preceding ``recent_window`` seconds (submissions,
    unlike durations, are known as soon as they happen).

    Parameters
    ----------
    jobs : job table sorted by ``submit_time``.
    estimator : a fresh :class:`RollingEstimator` (default settings when omitted); it is
        left holding every job that finished before the last submission.
    recent_window : seconds.

    Returns
    -------
    DataFrame aligned with ``jobs`` (same index) with :meth:`RollingEstimator.features`
    columns and ``user_recent_submits``.

    Example
    -------
    >>> history = online_history(jobs)  # doctest: +SKIP
    """
    missing = [c for c in JOB_COLUMNS if c not in jobs.columns]
    if missing:
        raise ValueError(f"job table lacks columns {missing}")
    submit = jobs["submit_time"].to_numpy(dtype=float)
    if np.any(np.diff(submit) < 0):
        raise ValueError("job table must be sorted by submit_time")
    estimator = estimator or RollingEstimator()
    ends = job_end_times(jobs)
    records = jobs[["user", "name", "gpu_num", "duration", *submit_time_columns(jobs)]].to_dict("records")
    pending: list[tuple[float, int]] = []  # min-heap of (end time, row) of submitted, unfinished jobs
    recent: dict[str, deque] = defaultdict(deque)
    rows = []
    for i, job in enumerate(records):
        while pending and pending[0][0] <= submit[i]:
            estimator.update(records[heapq.heappop(pending)[1]])
        window = recent[job["user"]]
        while window and window[0] < submit[i] - recent_window:
            window.popleft()
        row = estimator.features(job)
        row["user_recent_submits"] = float(len(window))
        rows.append(row)
        window.append(submit[i])
        heapq.heappush(pending, (ends[i], i))
    return pd.DataFrame(rows, index=jobs.index)


def qssf_priority(gpu_num, rolling, model, lam: float = 0.5) -> np.ndarray:
    """QSSF priority (expected GPU time): ``gpu_num × (λ·rolling + (1−λ)·model)``; lower runs first.

    Example
    -------
    >>> qssf_priority([2, 1], [100.0, 10.0], [300.0, 30.0], lam=0.5).tolist()
    [400.0, 20.0]
    """
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lam must be in [0, 1], got {lam}")
    gpu = np.asarray(gpu_num, dtype=float)
    return gpu * (lam * np.asarray(rolling, dtype=float) + (1.0 - lam) * np.asarray(model, dtype=float))


def duration_metrics(y_true, y_pred) -> dict[str, float]:
    """R² of duration, R² of log1p(duration), Spearman ρ and Kendall τ of the ranking.

    Example
    -------
    >>> duration_metrics([1.0, 10.0, 100.0], [2.0, 20.0, 90.0])["spearman"]
    1.0
    """
    y_true, y_pred = np.asarray(y_true, dtype=float), np.asarray(y_pred, dtype=float)
    return {
        "r2": r2_score(y_true, y_pred),
        "r2_log": r2_score(np.log1p(y_true), np.log1p(np.clip(y_pred, 0.0, None))),
        "spearman": float(spearmanr(y_true, y_pred).statistic),
        "kendall": float(kendalltau(y_true, y_pred).statistic),
    }


def _spearman_rows(y, prediction, axis: int = -1) -> np.ndarray:
    """Spearman ρ of ``y`` and ``prediction`` along ``axis`` (Pearson of the average ranks; NaN for constant rows)."""
    ry, rp = rankdata(y, axis=axis), rankdata(prediction, axis=axis)
    ry = ry - ry.mean(axis=axis, keepdims=True)
    rp = rp - rp.mean(axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (ry * rp).sum(axis=axis) / np.sqrt((ry ** 2).sum(axis=axis) * (rp ** 2).sum(axis=axis))


def spearman_difference(y_true, a, b, *, n_resamples: int = 2000, confidence: float = 0.95,
                        random_state: int = 0) -> PairedDifference:
    """Spearman(y, a) − Spearman(y, b) on the same jobs, with a paired bootstrap interval over the jobs.

    A rank correlation is not a mean of per-job values, so :func:`primo.report.claims.paired_bootstrap`
    does not apply; the jobs are resampled with ``y``, ``a`` and ``b`` together (scipy's
    ``bootstrap(paired=True)``, percentile interval) and both correlations recomputed on each resample.
    ``median`` is None: there is no per-job difference to take the median of.

    Example
    -------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.lognormal(size=300)
    >>> d = spearman_difference(y, y * rng.lognormal(0, 0.1, 300), y * rng.lognormal(0, 2, 300), n_resamples=200)
    >>> bool(d.low > 0), d.n
    (True, 300)
    """
    y, a, b = (np.asarray(v, dtype=float).ravel() for v in (y_true, a, b))
    if not y.size == a.size == b.size:
        raise ValueError(f"paired samples differ in length: {y.size}, {a.size}, {b.size}")
    if y.size < 3 or not (np.all(np.isfinite(y)) and np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("a Spearman difference needs at least 3 jobs with finite values")

    def difference(y, a, b, axis=-1):
        return _spearman_rows(y, a, axis) - _spearman_rows(y, b, axis)

    observed = float(difference(y, a, b))
    interval = bootstrap((y, a, b), difference, paired=True, vectorized=True, n_resamples=n_resamples,
                         batch=max(1, int(2e6 // y.size)), confidence_level=confidence, method="percentile",
                         random_state=random_state).confidence_interval
    return PairedDifference(mean=observed, low=float(interval.low), high=float(interval.high), median=None,
                            n=int(y.size), confidence=confidence)


_NAME_FEATURES = ("name_finished", "name_last_duration")
_USER_TYPICAL_FEATURES = ("user_log_mean_duration", "user_last_duration")
_REQUEST_FEATURES = ("user_request_ratio", "request_estimate")
_LOG_FEATURES = ("rolling_estimate", "user_mean_duration", "user_gpu_mean_duration",
                 "name_last_duration", "gpu_mean_duration", "user_last_duration")


@dataclass
class WorkloadData:
    """Train/test features of the Workload Estimate Model (see :func:`workload_dataset`)."""

    X_train: pd.DataFrame
    y_train: pd.Series
    X_test: pd.DataFrame
    y_test: pd.Series
    gpu_test: np.ndarray
    rolling_test: np.ndarray
    case_counts: dict = field(default_factory=dict)


def _codes(values: pd.Series, known: pd.Index) -> np.ndarray:
    """Ordinal codes of ``values`` in ``known`` (-1 for values not seen in training)."""
    return known.get_indexer(values.astype(str))


def _ids(values, known: pd.Index, encoding: str):
    """An id column: ordinal codes (-1 unseen), or a pandas ``category`` of the training ids (unseen: missing)."""
    if encoding == "ordinal":
        return _codes(pd.Series(values), known)
    text, categories = pd.Series(values).astype(str), known.astype(str)
    return pd.Categorical(text.where(text.isin(categories)), categories=categories)


def default_name_mode(jobs: pd.DataFrame) -> str:
    """How :func:`workload_dataset` reads the ``name`` column when not told.

    ``"none"`` when no job has a name (Alibaba pods, most SWF logs), ``"exact"`` when every name is a
    number (SWF application ids), else ``"cluster"`` (free-text names: Levenshtein buckets, as Helios).

    Example
    -------
    >>> default_name_mode(pd.DataFrame({"name": ["", ""]}))
    'none'
    """
    names = jobs["name"].astype(str)
    named = names[names != ""]
    if named.empty:
        return "none"
    return "exact" if named.str.fullmatch(r"-?\d+").all() else "cluster"


def finished_by(jobs: pd.DataFrame, time: float) -> pd.DataFrame:
    """The jobs of a trace that had ended by ``time`` (:func:`job_end_times`), in the order they ended.

    This is all a scheduler starting at ``time`` can know of the trace's durations: a job
    submitted earlier but still running at ``time`` is excluded.

    Example
    -------
    >>> finished_by(jobs, test_start)["duration"].max()  # doctest: +SKIP
    """
    ends = job_end_times(jobs)
    done = np.flatnonzero(ends <= time)
    return jobs.iloc[done[np.argsort(ends[done], kind="stable")]]


class OnlineRollingEstimator:
    """The rolling estimate ``P_R`` as a simulator duration estimator (``estimate``, ``observe``).

    It is the same :class:`RollingEstimator` the Primo scheduler merges with its model, so QSSF with
    the rolling estimate alone and QSSF with the Primo model differ only in the model.

    Parameters
    ----------
    rolling : the estimator (it may already hold a warm start of finished jobs).

    Example
    -------
    >>> est = OnlineRollingEstimator(RollingEstimator(similarity_threshold=1.0))
    >>> est.observe({"user": "a", "name": "7", "gpu_num": 1, "duration": 60.0})
    >>> est.estimate({"user": "a", "name": "7", "gpu_num": 1})
    60.0
    """

    def __init__(self, rolling: RollingEstimator):
        self.rolling = rolling

    @staticmethod
    def _field(job, key):
        return job[key] if isinstance(job, dict) else getattr(job, key)

    def _record(self, job) -> dict:
        return {"user": str(self._field(job, "user")), "name": str(self._field(job, "name")),
                "gpu_num": int(self._field(job, "gpu_num"))}

    def estimate(self, job) -> float:
        return float(self.rolling.estimate(self._record(job)))

    def observe(self, job) -> None:
        """A job finished: its duration joins the history."""
        self.rolling.update({**self._record(job), "duration": float(self._field(job, "duration"))})


def workload_dataset(jobs: pd.DataFrame, boundary, *, name_mode: str = "auto",
                     extra_features=(), estimator: RollingEstimator | None = None,
                     clusterer: NameClusterer | None = None, id_encoding: str = "ordinal",
                     max_train_jobs: int | None = None, user_typical: bool = False,
                     user_requests: bool = False) -> WorkloadData:
    """Build the Workload Estimate Model data with a time split at ``boundary``.

    Categorical codes (user, vc, name bucket) are learned from the training jobs only;
    unseen values get -1. History features come from :func:`online_history` over the whole
    trace (test jobs see training jobs and the test jobs that finished before them, as a
    deployed scheduler would). Duration-valued history features are log1p-transformed.

    Parameters
    ----------
    jobs : job table (see :mod:`adapters.scheduler.jobs`).
    boundary : split point, as in :func:`adapters.scheduler.jobs.time_split`.
    name_mode : ``"cluster"`` (Levenshtein + affinity propagation buckets), ``"exact"``
        (names are application ids: one code each), ``"none"`` (no name feature) or ``"auto"``
        (:func:`default_name_mode`: works on a log without names).
    extra_features : further numeric columns of ``jobs`` known at submit time (``req_time``...).
    estimator : rolling estimator to use (a default one when omitted).
    clusterer : name clusterer for ``name_mode="cluster"`` (a default one when omitted).
    id_encoding : ``"ordinal"`` (user, vc, name as integer codes in training order, -1 unseen) or
        ``"categorical"`` (pandas ``category`` columns of the training ids, unseen ones missing):
        a user id is a label, not a quantity, and PrDT/PrAM split categories as categories.
    max_train_jobs : keep only the latest training jobs (history features still use the whole trace).
    user_typical : add ``user_log_mean_duration`` (mean log1p duration of the user's finished jobs) and
        ``user_last_duration`` (the user's most recently finished job). Helios' history features are
        arithmetic means, which a few very long jobs dominate; on logs without application ids the rolling
        estimate is such a mean, and these two say what the user's jobs typically and lately take. Off by
        default (Helios' features); the case study turns it on, and the Slurm plugin
        (``adapters/scheduler/slurm/job_submit.lua``) computes them too.
    user_requests : with ``req_time`` among ``extra_features``, add ``user_request_ratio`` (how much of a
        request the user's finished jobs used, log) and ``request_estimate`` (the job's request scaled by
        that ratio, log1p): users read a request field differently. Off by default (as above).

    Example
    -------
    >>> data = workload_dataset(jobs, "1993-12-01", name_mode="exact")  # doctest: +SKIP
    """
    if name_mode == "auto":
        name_mode = default_name_mode(jobs)
    if name_mode not in ("cluster", "exact", "none"):
        raise ValueError(f"name_mode must be 'auto', 'cluster', 'exact' or 'none', got {name_mode!r}")
    if id_encoding not in ("ordinal", "categorical"):
        raise ValueError(f"id_encoding must be 'ordinal' or 'categorical', got {id_encoding!r}")
    missing = [c for c in extra_features if c not in jobs.columns]
    if missing:
        raise ValueError(f"extra_features {missing} are not columns of the job table")
    history = online_history(jobs, estimator)
    train, test = time_split(jobs, boundary)
    if train.empty or test.empty:
        raise ValueError(f"boundary {boundary!r} leaves an empty train or test set")
    if max_train_jobs is not None and len(train) > max_train_jobs:
        dropped = train.index[:len(train) - max_train_jobs]
        jobs, history, train = jobs.drop(index=dropped), history.drop(index=dropped), train.iloc[-max_train_jobs:]
    stamps = submit_timestamps(jobs)
    X = pd.DataFrame({
        "user": _ids(jobs["user"], pd.Index(train["user"].astype(str).unique()), id_encoding),
        "vc": _ids(jobs["vc"], pd.Index(train["vc"].astype(str).unique()), id_encoding),
        "gpu_num": jobs["gpu_num"].astype(float),
        "cpu_num": jobs["cpu_num"].astype(float),
        "hour": stamps.dt.hour.to_numpy(),
        "day_of_week": stamps.dt.day_of_week.to_numpy(),
    }, index=jobs.index)
    if name_mode == "cluster":
        buckets = (clusterer or NameClusterer()).fit(train["name"]).transform(jobs["name"])
        X["name"] = buckets if id_encoding == "ordinal" else _ids(
            buckets, pd.Index(np.unique(buckets[jobs.index.isin(train.index)])), id_encoding)
    elif name_mode == "exact":
        X["name"] = _ids(jobs["name"], pd.Index(train["name"].astype(str).unique()), id_encoding)
    for col in extra_features:
        X[col] = jobs[col].astype(float)
    hist = history.copy()
    if name_mode == "none":  # name-history features are empty without names
        hist = hist.drop(columns=list(_NAME_FEATURES))
    if not user_typical:
        hist = hist.drop(columns=list(_USER_TYPICAL_FEATURES))
    if not (user_requests and "req_time" in extra_features):  # how users use their requests needs requests
        hist = hist.drop(columns=list(_REQUEST_FEATURES))
    for col in _LOG_FEATURES:
        if col in hist:
            hist[col] = np.log1p(hist[col])
    X = pd.concat([X, hist], axis=1)
    is_test = jobs.index.isin(test.index)
    cases = history.loc[is_test, "rolling_case"].map(dict(enumerate(CASES))).value_counts().to_dict()
    return WorkloadData(X[~is_test], jobs.loc[~is_test, "duration"], X[is_test],
                        jobs.loc[is_test, "duration"], jobs.loc[is_test, "gpu_num"].to_numpy(float),
                        history.loc[is_test, "rolling_estimate"].to_numpy(), cases)


def _category_codes(X: pd.DataFrame) -> pd.DataFrame:
    """``category`` columns replaced by their integer codes (-1 for missing/unseen)."""
    return X.assign(**{c: X[c].cat.codes for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)})


def evaluate_workload_models(data: WorkloadData, *, models=BASELINE_NAMES, include_ebm: bool = True,
                             log_target: bool = True, lam: float = 0.5, qssf_model: str = "lightgbm",
                             random_state: int = 0, n_jobs: int = 1, predictions: dict | None = None) -> pd.DataFrame:
    """Fit each model, report duration metrics, and the QSSF merge with the rolling estimate.

    Rows: every model (``r2``, ``r2_log``, ``spearman``, ``kendall`` of duration, plus
    ``gpu_time_spearman``: rank agreement of ``gpus × prediction`` with the actual GPU
    time, the order a QSSF/Lucid queue uses), ``rolling`` (``P_R`` alone) and
    ``qssf_<model>`` (``λ·P_R + (1−λ)·P_M``).

    Parameters
    ----------
    data : from :func:`workload_dataset`.
    log_target : train on log1p(duration) and predict expm1 of the prediction clipped to the
        training range (durations span seconds to weeks).
    lam : QSSF merging coefficient λ.
    qssf_model : the model merged with the rolling estimate (Helios used a GBDT).
    predictions : a dict filled with each model's test predictions (seconds), when given.

    Example
    -------
    >>> table = evaluate_workload_models(data, models=("lightgbm",), include_ebm=False)  # doctest: +SKIP
    """
    y_fit = np.log1p(data.y_train) if log_target else data.y_train
    candidates = {name: make_baseline(name, random_state=random_state, n_jobs=n_jobs) for name in models}
    if include_ebm:
        candidates["ebm"] = make_ebm(random_state=random_state)
    actual_gpu_time = data.gpu_test * data.y_test.to_numpy()

    def row(name, duration, priority, fit_s=0.0, predict_s=0.0):
        return {"model": name, **duration_metrics(data.y_test, duration),
                "gpu_time_spearman": float(spearmanr(actual_gpu_time, priority).statistic),
                "fit_s": fit_s, "predict_s": predict_s}

    rows = []
    predictions = {} if predictions is None else predictions
    for name, model in candidates.items():
        X_train, X_test = data.X_train, data.X_test
        if name not in ("lightgbm", "ebm"):  # the others take numbers only: category columns as codes
            X_train, X_test = _category_codes(X_train), _category_codes(X_test)
        run = fit_predict_timed(model, X_train, y_fit, X_test)
        pred = run.prediction
        if log_target:
            # keep log-space predictions inside the training range: expm1 turns a network's
            # extrapolation on unseen feature values into astronomically long durations
            pred = np.expm1(np.clip(pred, y_fit.min(), y_fit.max()))
        predictions[name] = pred
        rows.append(row(name, pred, data.gpu_test * pred, run.fit_seconds, run.predict_seconds))
        logger.info("workload %s: %s", name, rows[-1])
    rows.append(row("rolling", data.rolling_test, data.gpu_test * data.rolling_test))
    if qssf_model in predictions:
        model_pred = predictions[qssf_model]
        merged = lam * data.rolling_test + (1.0 - lam) * model_pred
        rows.append(row(f"qssf_{qssf_model}", merged,
                        qssf_priority(data.gpu_test, data.rolling_test, model_pred, lam)))
    table = pd.DataFrame(rows)
    table["published_r2"] = table["model"].map(lambda m: PUBLISHED_R2.get("lucid_ga2m" if m == "ebm" else m))
    table["n_train"], table["n_test"] = len(data.y_train), len(data.y_test)
    return table
