"""Lucid's Throughput Predict Model data: forecast cluster job submissions per 10-minute bin.

Lucid (ASPLOS'23, §3.5.2) forecasts the number of submitted GPU jobs (and requested GPUs)
from time features: repetitive calendar patterns (hour, date), and the average, median and
"weighted soft summation" of past throughput over rolling windows such as one hour; its
feature-importance plot ranks *hour* and the "1 hour ago" features first.

Forecast horizon: **one step ahead**. The row for bin ``t`` (the bin starting at its
timestamp) only uses counts of bins ``t - horizon`` and earlier (``horizon = 1`` bin by
default), i.e. everything known when bin ``t`` opens. Lags shorter than the horizon are
refused, and every rolling statistic is computed on the series shifted by ``horizon``.

Split (Lucid): train April–August 2020, test September (4,032 bins of the Venus cluster).
"""
from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import mean_absolute_error

from adapters.scheduler.baselines import BASELINE_NAMES, fit_predict_timed, make_baseline, make_ebm

logger = logging.getLogger(__name__)

THROUGHPUT_COLUMNS = ("submit_job_all", "start_job_all", "end_job_all", "submit_gpu_job",
                      "start_gpu_job", "end_gpu_job", "submit_gpu_num", "start_gpu_num", "end_gpu_num")
"""Count columns of ``cluster_throughput.csv`` (one row per 10-minute bin)."""

TARGETS = ("submit_gpu_job", "submit_gpu_num")
"""Forecast targets: submitted GPU jobs and submitted GPUs per bin."""

BIN_MINUTES = 10
DEFAULT_LAGS = (1, 6, 18, 144, 1008)  # 10 min, 1 h, 3 h, 1 day, 1 week (in bins)
DEFAULT_WINDOWS = (6, 18, 144)  # rolling windows: 1 h, 3 h, 1 day
TEST_START = "2020-09-01"
PUBLISHED_MAE = {"rf": 4.607, "lightgbm": 4.491, "xgboost": 5.807, "mlp": 5.132, "lucid_ga2m": 4.125}
"""Lucid Table 7, Venus, MAE of submitted GPU jobs per bin (the paper's DNN is our ``mlp``)."""


def load_cluster_throughput(path: str | os.PathLike) -> pd.DataFrame:
    """Read ``cluster_throughput.csv`` into a frame indexed by bin start time.

    Parameters
    ----------
    path : the CSV file, or a data directory holding ``scheduler/lucid_venus/cluster_throughput.csv``.

    Raises
    ------
    ValueError if columns are missing or the bins are not a regular 10-minute grid.

    Example
    -------
    >>> series = load_cluster_throughput("../shared/data")  # doctest: +SKIP
    >>> series.shape  # doctest: +SKIP
    (26064, 9)
    """
    path = Path(path)
    if path.is_dir():
        path = path / "scheduler" / "lucid_venus" / "cluster_throughput.csv"
    raw = pd.read_csv(path)
    missing = [c for c in ("time", *THROUGHPUT_COLUMNS) if c not in raw.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}")
    frame = raw.set_index(pd.DatetimeIndex(pd.to_datetime(raw.pop("time")), name="time"))
    steps = frame.index.to_series().diff().dropna().unique()
    if len(steps) != 1 or steps[0] != pd.Timedelta(minutes=BIN_MINUTES):
        raise ValueError(f"{path}: bins are not a regular {BIN_MINUTES}-minute grid (steps {steps[:5]})")
    return frame[list(THROUGHPUT_COLUMNS)].astype(float)


def _span(bins: int) -> str:
    """Human name of a number of bins: 1 -> '10min', 6 -> '1h', 144 -> '1d'."""
    minutes = bins * BIN_MINUTES
    if minutes % 1440 == 0:
        return f"{minutes // 1440}d"
    if minutes % 60 == 0:
        return f"{minutes // 60}h"
    return f"{minutes}min"


def calendar_features(index: pd.DatetimeIndex, holidays=None) -> pd.DataFrame:
    """Calendar terms of each bin: hour, bin within the hour, day of week, weekend, day of month.

    Parameters
    ----------
    index : bin start times.
    holidays : dates (anything ``pandas.Timestamp`` accepts) flagged in a ``holiday`` column;
        None omits the column; an empty collection keeps it, all zeros (a model trained on a
        trace's holidays, used on a trace whose holidays are unknown).

    Example
    -------
    >>> calendar_features(pd.date_range("2020-04-04", periods=2, freq="10min"))["weekend"].tolist()
    [1, 1]
    """
    feats = pd.DataFrame({
        "hour": index.hour,
        "bin_in_hour": index.minute // BIN_MINUTES,
        "day_of_week": index.day_of_week,
        "weekend": (index.day_of_week >= 5).astype(int),
        "day_of_month": index.day,
    }, index=index)
    if holidays is not None:
        days = pd.DatetimeIndex([pd.Timestamp(d) for d in holidays]).normalize()
        feats["holiday"] = index.normalize().isin(days).astype(int)
    return feats


def history_features(series: pd.Series, *, horizon: int = 1, lags=DEFAULT_LAGS,
                     windows=DEFAULT_WINDOWS, seasonal_days: int = 7) -> pd.DataFrame:
    """Lags, rolling statistics and seasonal profile of one count series, leakage-free.

    The row at bin ``t`` uses only ``series[: t - horizon + 1]`` (values up to ``t - horizon``).

    Columns (``w`` a window, ``k`` a lag, both named like ``1h``):

    - ``lag_k``: value ``k`` bins before ``t``;
    - ``mean_w``, ``median_w``, ``std_w``, ``max_w``: over the ``w`` bins ending at ``t - horizon``;
    - ``soft_w``: Lucid's weighted soft summation, read as an exponentially weighted mean with
      half-life ``w`` bins (recent bins weigh more);
    - ``same_time_mean``: mean of the same time of day over the last ``seasonal_days`` days;
    - ``trend``: ``mean`` over the shortest window minus ``mean`` over the longest.

    Parameters
    ----------
    series : counts on a regular grid.
    horizon : bins between the last value used and the forecast bin (>= 1).
    lags, windows : in bins; every lag must be >= ``horizon``.
    seasonal_days : days averaged in ``same_time_mean`` (0 disables it).

    Example
    -------
    >>> s = pd.Series([1.0, 2.0, 3.0, 4.0], index=pd.date_range("2020-04-01", periods=4, freq="10min"))
    >>> history_features(s, lags=(1,), windows=(2,), seasonal_days=0)["lag_10min"].tolist()
    [nan, 1.0, 2.0, 3.0]
    """
    if horizon < 1:
        raise ValueError(f"horizon must be >= 1 bin, got {horizon}")
    short = [k for k in lags if k < horizon]
    if short:
        raise ValueError(f"lags {short} are shorter than the horizon {horizon}: they would leak the target")
    past = series.shift(horizon)
    feats = {f"lag_{_span(k)}": series.shift(k) for k in lags}
    for w in windows:
        roll = past.rolling(w, min_periods=w)
        feats[f"mean_{_span(w)}"] = roll.mean()
        feats[f"median_{_span(w)}"] = roll.median()
        feats[f"std_{_span(w)}"] = roll.std()
        feats[f"max_{_span(w)}"] = roll.max()
        feats[f"soft_{_span(w)}"] = past.ewm(halflife=w, min_periods=w).mean()
    if seasonal_days:
        per_day = 1440 // BIN_MINUTES
        # the same bin d days ago, d >= 1; a one-day lag is always >= horizon when horizon < 1 day
        if horizon > per_day:
            raise ValueError("same_time_mean needs horizon <= 1 day; pass seasonal_days=0")
        same = pd.concat([series.shift(d * per_day) for d in range(1, seasonal_days + 1)], axis=1)
        feats["same_time_mean"] = same.mean(axis=1, skipna=False)
    if len(windows) >= 2:
        feats["trend"] = feats[f"mean_{_span(min(windows))}"] - feats[f"mean_{_span(max(windows))}"]
    return pd.DataFrame(feats, index=series.index)


def throughput_dataset(frame: pd.DataFrame, target: str = "submit_gpu_job", *, sources=TARGETS,
                       horizon: int = 1, lags=DEFAULT_LAGS, windows=DEFAULT_WINDOWS,
                       seasonal_days: int = 7, holidays=None) -> tuple[pd.DataFrame, pd.Series]:
    """Features and target for one-step-ahead throughput forecasting.

    Parameters
    ----------
    frame : output of :func:`load_cluster_throughput` (or any frame of counts on a grid).
    target : column to forecast.
    sources : columns whose history becomes features (prefixed with the column name);
        Lucid uses both job and GPU submissions.
    horizon, lags, windows, seasonal_days : see :func:`history_features`.
    holidays : dates flagged in the calendar features.

    Returns
    -------
    (X, y) indexed by bin time; rows whose longest history is not yet available are dropped.

    Example
    -------
    >>> X, y = throughput_dataset(load_cluster_throughput("../shared/data"))  # doctest: +SKIP
    """
    missing = [c for c in {target, *sources} if c not in frame.columns]
    if missing:
        raise ValueError(f"columns {missing} not in the throughput frame ({list(frame.columns)})")
    parts = [calendar_features(frame.index, holidays)]
    for source in sources:
        hist = history_features(frame[source], horizon=horizon, lags=lags, windows=windows,
                                seasonal_days=seasonal_days)
        parts.append(hist.add_prefix(f"{source}__"))
    X = pd.concat(parts, axis=1)
    complete = X.notna().all(axis=1)
    logger.info("throughput features: %d columns, dropped %d warm-up bins", X.shape[1], int((~complete).sum()))
    return X[complete], frame.loc[complete, target]


def split_train_test(X: pd.DataFrame, y: pd.Series, test_start=TEST_START):
    """Time split at ``test_start``: (X_train, X_test, y_train, y_test).

    Example
    -------
    >>> X_tr, X_te, y_tr, y_te = split_train_test(X, y)  # doctest: +SKIP
    """
    test = X.index >= pd.Timestamp(test_start)
    return X[~test], X[test], y[~test], y[test]


def evaluate_throughput_models(data_dir, target: str = "submit_gpu_job", *, models=BASELINE_NAMES,
                               include_ebm: bool = True, include_l1: bool = True, random_state: int = 0,
                               n_jobs: int = 1, ebm_params: dict | None = None,
                               holidays=None) -> pd.DataFrame:
    """Train each model on April–August and report September MAE and timings.

    Besides the baselines with default settings (as Lucid ran them) and the bounded EBM,
    the table holds two model-free forecasts (the last bin, the median of the last hour)
    and, with ``include_l1``, LightGBM trained on absolute error: the target is bursty, so
    the squared-error models chase the mean while MAE rewards the median.

    Returns
    -------
    DataFrame with one row per model: ``model``, ``mae``, ``published_mae`` (Lucid Table 7,
    only for ``submit_gpu_job``), ``fit_s``, ``predict_s``, ``n_train``, ``n_test``.

    Example
    -------
    >>> evaluate_throughput_models("../shared/data", models=("lightgbm",), include_ebm=False)  # doctest: +SKIP
    """
    frame = load_cluster_throughput(data_dir)
    X, y = throughput_dataset(frame, target, holidays=holidays)
    X_tr, X_te, y_tr, y_te = split_train_test(X, y)
    candidates = {name: make_baseline(name, random_state=random_state, n_jobs=n_jobs) for name in models}
    if include_l1:
        candidates["lightgbm_l1"] = make_baseline("lightgbm", random_state=random_state, n_jobs=n_jobs,
                                                  objective="l1")
    if include_ebm:
        candidates["ebm"] = make_ebm(random_state=random_state, **(ebm_params or {}))
    sizes = {"n_train": len(y_tr), "n_test": len(y_te)}
    published = PUBLISHED_MAE if target == "submit_gpu_job" else {}
    rows = []
    for name, model in candidates.items():
        run = fit_predict_timed(model, X_tr, y_tr, X_te)
        rows.append({"model": name, "mae": mean_absolute_error(y_te, run.prediction),
                     "published_mae": published.get("lucid_ga2m" if name == "ebm" else name, np.nan),
                     "fit_s": run.fit_seconds, "predict_s": run.predict_seconds, **sizes})
        logger.info("throughput %s %s: MAE %.3f (fit %.1f s)", target, name, rows[-1]["mae"], run.fit_seconds)
    for name, column in (("last_value", "lag_10min"), ("median_last_hour", "median_1h")):
        forecast = X_te[f"{target}__{column}"]
        rows.append({"model": name, "mae": mean_absolute_error(y_te, forecast), "published_mae": np.nan,
                     "fit_s": 0.0, "predict_s": 0.0, **sizes})
    return pd.DataFrame(rows)
