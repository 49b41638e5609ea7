"""Noise injection (Primo's robustness test) and training subsampling."""
import numpy as np
import pandas as pd
import pytest

from adapters.linnos.features import LATENCY_FEATURES, RAW_FEATURE_NAMES
from adapters.linnos.robustness import HISTORY_PENDING, add_feature_noise, subsample_training


@pytest.fixture
def raw():
    n = 20000
    values = np.column_stack([np.full((n, 5), 40), np.full((n, 4), 2000)])
    return pd.DataFrame(values, columns=RAW_FEATURE_NAMES)


def test_noise_spares_current_queue_length_and_has_the_paper_sigmas(raw):
    noisy = add_feature_noise(raw, random_state=0)
    assert (noisy["pending_now"] == raw["pending_now"]).all()
    assert noisy[HISTORY_PENDING].to_numpy().std() == pytest.approx(5, rel=0.05)
    assert noisy[LATENCY_FEATURES].to_numpy().std() == pytest.approx(100, rel=0.05)
    assert noisy[LATENCY_FEATURES].to_numpy().mean() == pytest.approx(2000, abs=3)
    assert (raw["latency_prev1"] == 2000).all()  # the input is not modified


def test_noisy_values_are_non_negative_integers(raw):
    noisy = add_feature_noise(raw * 0, pending_sigma=50, random_state=1)
    assert (noisy[RAW_FEATURE_NAMES] >= 0).all().all()
    assert all(np.issubdtype(noisy[c].dtype, np.integer) for c in RAW_FEATURE_NAMES)


def test_noise_needs_the_raw_columns():
    with pytest.raises(ValueError, match="lack columns"):
        add_feature_noise(pd.DataFrame({"pending_now": [1]}))


def test_subsample_keeps_fraction_and_class_balance():
    X = np.arange(2000).reshape(1000, 2)
    y = np.array([1] * 150 + [0] * 850)
    X_small, y_small = subsample_training(X, y, fraction=0.1, random_state=0)
    assert len(X_small) == len(y_small) == 100
    assert y_small.sum() == 15
    assert set(X_small[:, 0] // 2) <= set(range(1000))  # rows come from X
    with pytest.raises(ValueError, match="fraction"):
        subsample_training(X, y, fraction=1.0)
