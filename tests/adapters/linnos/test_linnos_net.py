"""The LinnOS network, its biased training, the integer version and the C implementations."""
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier

from adapters.linnos.c_inference import (
    c_compiler_available, decision_tree_c_source, linnos_net_c_source, measure_c_predictor,
)
from adapters.linnos.features import RAW_FEATURE_NAMES
from adapters.linnos.linnos_net import LinnOSNet


def synthetic(n=3000, noise=0.0, seed=0):
    """Slow when the queue is long and the last read was slow (plus optional label noise).

    The thresholds (50 queued, 2000 us) fall on digit boundaries, so the rule is easy in
    LinnOS's digit encoding too."""
    rng = np.random.default_rng(seed)
    pending = rng.integers(0, 100, (n, 5))
    latency = rng.integers(50, 5000, (n, 4))
    X = pd.DataFrame(np.column_stack([pending, latency]), columns=RAW_FEATURE_NAMES)
    y = ((X["pending_now"] >= 50) & (X["latency_prev1"] >= 2000)).astype(int).to_numpy()
    flip = rng.random(n) < noise
    return X, np.where(flip, 1 - y, y)


@pytest.fixture(scope="module")
def fitted():
    X, y = synthetic()
    return LinnOSNet(epochs=30, learning_rate=3e-3, random_state=0).fit(X, y), X, y


def test_learns_a_simple_rule(fitted):
    net, X, y = fitted
    X_test, y_test = synthetic(seed=1)
    majority = max(y_test.mean(), 1 - y_test.mean())  # about 0.7
    assert (net.predict(X_test) == y_test).mean() > max(0.95, majority + 0.2)
    assert net.predict_proba(X_test).shape == (len(X_test), 2)
    assert net.fit_time_s_ > 0 and list(net.classes_) == [0, 1]
    assert net.mlp_.coefs_[0].shape == (31, 256)


def test_biased_training_trades_false_submits_for_revokes():
    X, y = synthetic(noise=0.25, seed=2)
    plain = LinnOSNet(slow_weight=1.0, epochs=15, random_state=0).fit(X, y)
    biased = LinnOSNet(slow_weight=6.0, epochs=15, random_state=0).fit(X, y)
    X_test, y_test = synthetic(noise=0.25, seed=3)
    missed = lambda net: np.mean((y_test == 1) & (net.predict(X_test) == 0))  # noqa: E731
    assert missed(biased) < missed(plain)
    assert biased.predict(X_test).mean() > plain.predict(X_test).mean()


def test_quantized_net_agrees_with_float(fitted):
    net, X, _ = fitted
    q = net.quantize()
    assert q.w1.dtype == np.int32 and np.abs(q.w1).max() < 2**15
    assert (q.predict(X) == net.predict(X)).mean() > 0.995
    scaled = q.decision_function(X) / 2.0 ** (q.shift1 + q.shift2)
    np.testing.assert_allclose(scaled, net.decision_function(X), atol=0.05 * np.abs(net.decision_function(X)).max())
    # Fewer bits: coarser, still a valid integer model.
    assert (net.quantize(weight_bits=8).predict(X) == net.predict(X)).mean() > 0.8


def test_estimator_contract_and_errors(fitted):
    net, X, y = fitted
    assert clone(net).get_params()["slow_weight"] == 4.0
    with pytest.raises(NotFittedError):
        LinnOSNet().predict(X)
    with pytest.raises(ValueError, match="both labels"):
        LinnOSNet(epochs=1).fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="slow_weight"):
        LinnOSNet(epochs=1, slow_weight=0).fit(X, y)
    with pytest.raises(ValueError, match="weight_bits"):
        net.quantize(weight_bits=4)


def test_c_network_matches_integer_model_exactly(fitted):
    assert c_compiler_available(), "gcc is needed for the inference-cost benchmark"
    net, X, _ = fitted
    q = net.quantize()
    extreme = pd.DataFrame([[1500, 0, 2000, 5, 999, 20000, 9999, 0, 10000]], columns=RAW_FEATURE_NAMES)
    rows = pd.concat([X.iloc[:500], extreme], ignore_index=True)
    timing = measure_c_predictor(linnos_net_c_source(q), rows, passes=3)
    np.testing.assert_array_equal(timing.predictions, q.predict(rows))
    assert 0 < timing.min_ns_per_prediction <= timing.ns_per_prediction


def test_c_tree_matches_sklearn():
    X, y = synthetic(noise=0.1, seed=4)
    tree = DecisionTreeClassifier(max_depth=6, random_state=0).fit(X, y)
    timing = measure_c_predictor(decision_tree_c_source(tree), X, passes=3)
    np.testing.assert_array_equal(timing.predictions, tree.predict(X))
    with pytest.raises(ValueError, match="raw features"):
        decision_tree_c_source(DecisionTreeClassifier().fit(X.iloc[:, :3], y))


def test_c_compile_errors_are_reported():
    with pytest.raises(RuntimeError, match="failed"):
        measure_c_predictor("int predict(const int *x) { return syntax error; }", np.zeros((2, 9)))
