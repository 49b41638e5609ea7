"""A quick end-to-end run on one real trace (small slice): features, models, C cost, simulation."""
import numpy as np
import pytest

from adapters.linnos.c_inference import linnos_net_c_source, measure_c_predictor
from adapters.linnos.evaluate import fit_pruned_tree, split_by_time
from adapters.linnos.features import RAW_FEATURE_NAMES, label_slow, read_features, slow_threshold
from adapters.linnos.linnos_net import LinnOSNet
from adapters.linnos.metrics import classification_summary
from adapters.linnos.robustness import add_feature_noise
from adapters.linnos.simulator import BASE, FailoverPolicy, OraclePredictor, ReplicaDevice, simulate_array
from adapters.linnos.trace import list_traces, load_trace


@pytest.fixture(scope="module")
def small_split(data_dir):
    reads = read_features(load_trace(list_traces(data_dir)[2])).iloc[:10_000]
    train, test = split_by_time(reads)
    threshold = slow_threshold(train["latency_us"], "p85")
    return train, test, threshold


def test_split_is_by_time(small_split):
    train, test, _ = small_split
    assert len(train) == 8000 and len(test) == 2000
    assert train["submit_us"].max() <= test["submit_us"].min()


def test_real_slice_end_to_end(small_split):
    train, test, threshold = small_split
    X_train, X_test = train[RAW_FEATURE_NAMES], test[RAW_FEATURE_NAMES]
    y_train, y_test = label_slow(train["latency_us"], threshold), label_slow(test["latency_us"], threshold)

    net = LinnOSNet(epochs=3, random_state=0).fit(X_train, y_train)
    tree, alpha, val_f1 = fit_pruned_tree(X_train, y_train, n_candidates=5)
    for model in (net, tree):
        scores = classification_summary(y_test, model.predict(X_test))
        assert 0 <= scores["f1_slow"] <= 1 and scores["n"] == len(test)
    assert alpha > 0 and 0 <= val_f1 <= 1
    noisy_scores = classification_summary(y_test, net.predict(add_feature_noise(X_test, random_state=0)))
    assert 0 <= noisy_scores["false_submit_rate"] <= 1

    q = net.quantize()
    timing = measure_c_predictor(linnos_net_c_source(q), X_test, passes=3)
    np.testing.assert_array_equal(timing.predictions, q.predict(X_test))

    # Three replicas: the test window shifted by 0, 1/3 and 2/3 of its span.
    span = int(test["submit_us"].iloc[-1] - test["submit_us"].iloc[0])
    devices = [ReplicaDevice(f"r{k}", test, k * span // 3) for k in range(3)]
    policies = [
        BASE,
        FailoverPolicy("LinnOS", [q] * 3, timing.ns_per_prediction / 1000),
        FailoverPolicy("Oracle", [OraclePredictor(test, threshold)] * 3),
    ]
    results = simulate_array(devices, policies)
    base = results["Base"].summary()
    assert base["mean_us"] == pytest.approx(test["latency_us"].mean())
    assert results["Oracle"].summary()["mean_us"] < base["mean_us"]
    assert results["LinnOS"].latency_us.size == len(test)
