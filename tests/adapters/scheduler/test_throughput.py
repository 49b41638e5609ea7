"""Throughput Predict Model data: calendar terms, lags, rolling statistics without leakage."""
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mean_absolute_error

from adapters.scheduler.baselines import make_baseline
from adapters.scheduler.throughput import (THROUGHPUT_COLUMNS, calendar_features, history_features,
                                           load_cluster_throughput, split_train_test, throughput_dataset)


def grid(values, start="2020-04-01"):
    return pd.Series(np.asarray(values, dtype=float),
                     index=pd.date_range(start, periods=len(values), freq="10min"))


def test_calendar_terms_on_known_dates():
    index = pd.DatetimeIndex(["2020-04-04 13:20", "2020-04-06 00:00"])  # a Saturday, a Monday
    feats = calendar_features(index, holidays=["2020-04-04"])
    assert feats["hour"].tolist() == [13, 0]
    assert feats["bin_in_hour"].tolist() == [2, 0]
    assert feats["day_of_week"].tolist() == [5, 0]
    assert feats["weekend"].tolist() == [1, 0]
    assert feats["holiday"].tolist() == [1, 0]
    assert "holiday" not in calendar_features(index).columns
    # holidays unknown for this trace: the column a model trained with holidays reads is there, all zeros
    assert calendar_features(index, holidays=())["holiday"].tolist() == [0, 0]


def test_lags_and_rolling_windows_on_a_hand_made_series():
    s = grid(np.arange(20))  # value = bin number
    feats = history_features(s, lags=(1, 6), windows=(3,), seasonal_days=0)
    t = 10
    assert feats["lag_10min"].iloc[t] == 9 and feats["lag_1h"].iloc[t] == 4
    assert feats["mean_30min"].iloc[t] == pytest.approx(np.mean([7, 8, 9]))
    assert feats["median_30min"].iloc[t] == 8 and feats["max_30min"].iloc[t] == 9
    assert np.isnan(feats["lag_1h"].iloc[5]) and feats["lag_1h"].iloc[6] == 0
    # soft summation: past values weighted by 0.5 ** (age / half-life), newest (age 0) = bin t-1
    past = np.arange(t)[::-1].astype(float)
    expected = np.average(past, weights=0.5 ** (np.arange(t) / 3))
    assert feats["soft_30min"].iloc[t] == pytest.approx(expected)


def test_horizon_shifts_every_statistic():
    s = grid(np.arange(20))
    feats = history_features(s, horizon=2, lags=(2,), windows=(3,), seasonal_days=0)
    assert feats["lag_20min"].iloc[10] == 8
    assert feats["mean_30min"].iloc[10] == pytest.approx(np.mean([6, 7, 8]))
    with pytest.raises(ValueError, match="shorter than the horizon"):
        history_features(s, horizon=2, lags=(1, 2))


def test_no_feature_at_t_depends_on_values_at_or_after_t():
    rng = np.random.default_rng(0)
    values = rng.poisson(5, size=3 * 144).astype(float)
    base = history_features(grid(values), seasonal_days=2, lags=(1, 6, 144), windows=(6, 18))
    t = 300
    changed = values.copy()
    changed[t:] += 1000.0  # the present and the future
    after = history_features(grid(changed), seasonal_days=2, lags=(1, 6, 144), windows=(6, 18))
    pd.testing.assert_series_equal(base.iloc[t], after.iloc[t])
    assert not base.iloc[t + 1].equals(after.iloc[t + 1])  # the next bin does see bin t
    # the seasonal profile is the mean of the same bin on previous days
    assert base["same_time_mean"].iloc[t] == pytest.approx((values[t - 144] + values[t - 288]) / 2)


def test_dataset_drops_warm_up_and_checks_columns():
    frame = pd.DataFrame({"a": np.arange(200.0), "b": np.arange(200.0) * 2},
                         index=pd.date_range("2020-04-01", periods=200, freq="10min"))
    X, y = throughput_dataset(frame, "a", sources=("a", "b"), lags=(1, 6), windows=(6, 18), seasonal_days=0)
    assert len(X) == 200 - 18 and X.notna().all().all()
    assert (y.to_numpy() == frame["a"].to_numpy()[18:]).all()
    assert (X["b__lag_10min"].to_numpy() == 2 * (y.to_numpy() - 1)).all()
    with pytest.raises(ValueError, match="not in the throughput frame"):
        throughput_dataset(frame, "missing")


def test_loader_rejects_irregular_bins(tmp_path):
    frame = pd.DataFrame({"time": ["2020-04-01 00:00", "2020-04-01 00:10", "2020-04-01 00:30"],
                          **{c: [1, 2, 3] for c in THROUGHPUT_COLUMNS}})
    frame.to_csv(tmp_path / "t.csv", index=False)
    with pytest.raises(ValueError, match="regular 10-minute grid"):
        load_cluster_throughput(tmp_path / "t.csv")
    frame.drop(columns=["submit_gpu_job"]).to_csv(tmp_path / "u.csv", index=False)
    with pytest.raises(ValueError, match="missing columns"):
        load_cluster_throughput(tmp_path / "u.csv")


def test_real_venus_split_and_a_model_beats_a_constant(data_dir):
    frame = load_cluster_throughput(data_dir)
    assert frame.shape == (26064, len(THROUGHPUT_COLUMNS))
    X, y = throughput_dataset(frame)
    X_tr, X_te, y_tr, y_te = split_train_test(X, y)
    assert len(y_te) == 4032  # September 1-28
    assert X_tr.index.max() == pd.Timestamp("2020-08-31 23:50") and X_te.index.min() == pd.Timestamp("2020-09-01")
    model = make_baseline("lightgbm", n_estimators=50).fit(X_tr, y_tr)
    model_mae = mean_absolute_error(y_te, model.predict(X_te))
    constant_mae = mean_absolute_error(y_te, np.full(len(y_te), y_tr.median()))
    assert model_mae < 0.9 * constant_mae
