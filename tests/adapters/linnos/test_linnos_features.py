"""Per-read features, digit encoding, thresholds and labels."""
import numpy as np
import pandas as pd
import pytest

from adapters.linnos.features import (
    N_DIGIT_FEATURES, RAW_FEATURE_NAMES, digit_encode, inflection_point, label_slow, read_features,
    slow_threshold,
)
from adapters.linnos.trace import list_traces, load_trace

# Reads A, C, D, E, F and one write B (submit ms, latency us); F is listed before E on purpose.
#   A 0-100, B(write) 10-510, C 20-70, D 80-380, E 150-160, F 400-420
TINY_TRACE = """0,100,1,4096,0,0.000,4096
0,500,0,4096,0,0.010,4096
0,50,1,4096,0,0.020,4096
0,300,1,4096,0,0.080,4096
0,20,1,4096,0,0.400,4096
0,10,1,4096,0,0.150,4096
"""


@pytest.fixture
def tiny_trace(tmp_path):
    path = tmp_path / "tiny.trace"
    path.write_text(TINY_TRACE)
    return load_trace(path)


def test_pending_now_counts_reads_and_writes(tiny_trace):
    reads = read_features(tiny_trace)
    assert reads["latency_us"].tolist() == [100, 50, 300, 10, 20]  # A C D E F
    assert reads["pending_now"].tolist() == [0, 2, 2, 2, 1]


def test_completed_history_is_most_recently_completed_reads(tiny_trace):
    reads = read_features(tiny_trace, history="completed").set_index(pd.Index(list("ACDEF")))
    latency = reads[[f"latency_prev{k}" for k in range(1, 5)]]
    pending = reads[[f"pending_prev{k}" for k in range(1, 5)]]
    assert latency.loc["A"].tolist() == [0, 0, 0, 0]
    assert latency.loc["C"].tolist() == [0, 0, 0, 0]  # A still running at 20
    assert latency.loc["D"].tolist() == [50, 0, 0, 0]  # only C done at 80
    assert latency.loc["E"].tolist() == [100, 50, 0, 0]  # A (done 100), then C (70)
    assert latency.loc["F"].tolist() == [300, 10, 100, 50]  # D 380, E 160, A 100, C 70
    assert pending.loc["F"].tolist() == [2, 2, 0, 2]


def test_submitted_history_is_previous_reads(tiny_trace):
    reads = read_features(tiny_trace, history="submitted").set_index(pd.Index(list("ACDEF")))
    assert reads.loc["F", [f"latency_prev{k}" for k in range(1, 5)]].tolist() == [10, 300, 50, 100]
    assert reads.loc["E", [f"latency_prev{k}" for k in range(1, 5)]].tolist() == [300, 50, 100, 0]


def test_read_features_rejects_bad_input(tiny_trace):
    with pytest.raises(ValueError, match="history must be one of"):
        read_features(tiny_trace, history="future")
    with pytest.raises(ValueError, match="lacks columns"):
        read_features(tiny_trace.drop(columns="pending"))


def test_digit_encode_layout_and_saturation():
    raw = np.array([[15, 7, 999, 1000, 0, 1234, 9999, 10000, 5]])
    digits = digit_encode(raw)
    assert digits.shape == (1, N_DIGIT_FEATURES) == (1, 31)
    assert digits[0, :15].tolist() == [0, 1, 5, 0, 0, 7, 9, 9, 9, 9, 9, 9, 0, 0, 0]
    assert digits[0, 15:].tolist() == [1, 2, 3, 4, 9, 9, 9, 9, 9, 9, 9, 9, 0, 0, 0, 5]


def test_digit_encode_latency_unit_and_dataframe_order():
    raw = pd.DataFrame([[0, 0, 0, 0, 0, 12345, 0, 0, 0]], columns=RAW_FEATURE_NAMES)
    assert digit_encode(raw, latency_unit_us=10)[0, 15:19].tolist() == [1, 2, 3, 4]
    shuffled = raw[RAW_FEATURE_NAMES[::-1]]
    np.testing.assert_array_equal(digit_encode(shuffled), digit_encode(raw))


def test_digit_encode_rejects_bad_input():
    with pytest.raises(ValueError, match="shape"):
        digit_encode(np.zeros((2, 8)))
    with pytest.raises(ValueError, match="non-negative"):
        digit_encode(-np.ones((1, 9)))
    with pytest.raises(ValueError, match="NaN"):
        digit_encode(np.full((1, 9), np.nan))


def test_inflection_point_finds_known_knee():
    # 90% of I/Os uniformly in 100-200 us, 10% spread over 200-2000 us: the CDF bends at 200.
    rng = np.random.default_rng(0)
    lat = np.concatenate([rng.uniform(100, 200, 18000), rng.uniform(200, 2000, 2000)])
    assert inflection_point(lat) == pytest.approx(200, abs=5)
    # One extreme outlier does not move the knee (the chord ends at p99.9).
    assert inflection_point(np.append(lat, 1e7)) == pytest.approx(200, abs=5)


def test_inflection_point_knee_moves_with_the_bend():
    rng = np.random.default_rng(1)
    lat = np.concatenate([rng.uniform(100, 500, 17000), rng.uniform(500, 3000, 3000)])
    assert inflection_point(lat) == pytest.approx(500, abs=10)


def test_slow_threshold_rules():
    lat = np.arange(1, 1001)
    assert slow_threshold(lat, "p85") == pytest.approx(np.percentile(lat, 85))
    assert slow_threshold(lat, "p99.5") == pytest.approx(np.percentile(lat, 99.5))
    for bad in ("85", "p", "p100", "knee"):
        with pytest.raises(ValueError, match="rule must be"):
            slow_threshold(lat, bad)


def test_label_slow_is_strict():
    assert label_slow(np.array([1, 2, 3]), 2).tolist() == [0, 0, 1]


def test_real_trace_features_and_thresholds(data_dir):
    reads = read_features(load_trace(list_traces(data_dir)[0]))
    assert len(reads) == 41036  # reads only
    assert (reads[RAW_FEATURE_NAMES] >= 0).all().all()
    p85 = slow_threshold(reads["latency_us"], "p85")
    knee = slow_threshold(reads["latency_us"], "inflection")
    # The knee of these NVMe latency CDFs lies in the upper tail, above the median.
    assert np.median(reads["latency_us"]) < knee < np.percentile(reads["latency_us"], 99)
    assert label_slow(reads["latency_us"], p85).mean() == pytest.approx(0.15, abs=0.005)
