"""Failover simulator invariants on synthetic devices."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from adapters.linnos.features import RAW_FEATURE_NAMES
from adapters.linnos.simulator import (
    BASE, FailoverPolicy, OraclePredictor, ReplicaDevice, array_members, latency_summary, simulate_array,
)
from tests.adapters.linnos.helpers import Constant

THRESHOLD = 1000


def device_reads(seed, n=5000):
    rng = np.random.default_rng(seed)
    latency = np.where(rng.random(n) < 0.2, rng.integers(1001, 8000, n), rng.integers(50, 1000, n))
    reads = pd.DataFrame(0, index=range(n), columns=RAW_FEATURE_NAMES)
    reads.insert(0, "latency_us", latency)
    reads.insert(0, "submit_us", np.arange(n) * 100 + seed)  # one read every 100 us
    return reads


@pytest.fixture
def array3():
    return [ReplicaDevice(f"d{k}", device_reads(k)) for k in range(3)]


def oracle_policy(devices, cost=0.0):
    return FailoverPolicy("Oracle", [OraclePredictor(d.reads, THRESHOLD) for d in devices], cost)


def test_never_slow_predictor_equals_base_plus_cost(array3):
    results = simulate_array(array3, [BASE, FailoverPolicy("never", [Constant(0)] * 3, 2.5)])
    np.testing.assert_allclose(results["never"].latency_us, results["Base"].latency_us + 2.5)
    assert (results["never"].served_by == 0).all()
    free = simulate_array(array3, [FailoverPolicy("free", [Constant(0)] * 3)])["free"]
    np.testing.assert_array_equal(free.latency_us, array3[0].reads["latency_us"])


def test_always_slow_goes_to_last_replica_paying_each_prediction(array3):
    result = simulate_array(array3, [FailoverPolicy("always", [Constant(1)] * 3, 3.0)])["always"]
    np.testing.assert_allclose(result.latency_us, array3[2].reads["latency_us"] + 2 * 3.0)
    assert (result.predictions_made == 2).all() and (result.served_by == 2).all()


def test_perfect_predictor_with_two_devices(array3):
    two = array3[:2]
    result = simulate_array(two, [oracle_policy(two)])["Oracle"]
    base = two[0].reads["latency_us"].to_numpy()
    replica = two[1].reads["latency_us"].to_numpy()
    # The last replica always accepts: a read can only lose when the replica is slower still.
    assert (result.latency_us <= base)[replica <= base].all()
    assert ((result.latency_us > base) == ((base > THRESHOLD) & (replica > base))).all()
    assert result.latency_us.mean() < base.mean() * 0.8


def test_perfect_predictor_three_devices(array3):
    result = simulate_array(array3, [BASE, oracle_policy(array3)])
    base, oracle = result["Base"].latency_us, result["Oracle"].latency_us
    slow = np.column_stack([d.reads["latency_us"].to_numpy() > THRESHOLD for d in array3])
    # Worse than Base only when the primary and the middle replica are both slow.
    assert (oracle <= base)[~(slow[:, 0] & slow[:, 1])].all()
    assert (oracle[~slow[:, 0]] == base[~slow[:, 0]]).all()  # fast reads stay on the primary
    assert latency_summary(oracle)["p99_us"] < latency_summary(base)["p99_us"]


def test_inference_cost_is_added_per_prediction(array3):
    free = simulate_array(array3, [oracle_policy(array3)])["Oracle"]
    costly = simulate_array(array3, [oracle_policy(array3, 7.0)])["Oracle"]
    np.testing.assert_allclose(costly.latency_us - free.latency_us, 7.0 * free.predictions_made)
    assert set(np.unique(free.predictions_made)) <= {1, 2}


def test_time_alignment_offset_and_wrap_around():
    reads = device_reads(0, n=10)  # submits at 0, 100, ..., 900 us: period 1000 us
    device = ReplicaDevice("d", reads, time_offset_us=250)
    # 0 + 250 -> read at 200 (row 2); 700 + 250 -> 900 (row 9); 800 + 250 = 1050 wraps to 50 -> row 0
    assert device.state_at(np.array([0, 700, 800])).tolist() == [2, 9, 0]
    assert ReplicaDevice("d", reads).state_at(np.array([0, 99, 100, 2150])).tolist() == [0, 0, 1, 1]


def test_summary_reports_tail_and_ratios(array3):
    s = simulate_array(array3, [oracle_policy(array3)])["Oracle"].summary()
    for key in ("mean_us", "p90_us", "p95_us", "p99_us", "p99.9_us", "p99.99_us", "mean_vs_base", "revoked_fraction"):
        assert key in s
    assert 0 < s["mean_vs_base"] < 1
    assert s["revoked_fraction"] == pytest.approx((array3[0].reads["latency_us"] > THRESHOLD).mean())


def test_bad_setups_are_rejected(array3):
    with pytest.raises(ValueError, match="at least 2 devices"):
        simulate_array(array3[:1], [BASE])
    with pytest.raises(ValueError, match="needs at least 2"):
        simulate_array(array3, [FailoverPolicy("short", [Constant(0)])])
    with pytest.raises(ValueError, match="one 0/1 value per read"):
        simulate_array(array3, [FailoverPolicy("bad", [Constant(0.5)] * 3)])
    with pytest.raises(ValueError, match="time_offset_us must be 0"):
        simulate_array([ReplicaDevice("p", array3[0].reads, 5), array3[1]], [BASE])
    with pytest.raises(ValueError, match="unique"):
        simulate_array(array3, [BASE, BASE])
    with pytest.raises(ValueError, match="lack columns"):
        ReplicaDevice("x", pd.DataFrame({"submit_us": [0]}))
    with pytest.raises(ValueError, match="sorted"):
        ReplicaDevice("x", device_reads(0).iloc[::-1])


def test_traces_layout_needs_three_distinct_traces():
    assert array_members(["a", "b", "c"], 2, "traces") == [("c", 0), ("a", 0), ("b", 0)]
    with pytest.raises(ValueError, match="at least 3 distinct traces"):
        array_members(["a", "b"], 0, "traces")  # would build [a, b, a]: the primary its own third replica
    with pytest.raises(ValueError, match="duplicates"):
        array_members(["a", "b", "a"], 0, "traces")


def test_shifted_layout_works_with_one_trace():
    reads = device_reads(0)
    members = array_members([SimpleNamespace(name="only", test=reads)], 0, "shifted")
    span = int(reads["submit_us"].iloc[-1] - reads["submit_us"].iloc[0])
    assert [offset for _, offset in members] == [0, span // 3, 2 * span // 3]
    assert all(device.name == "only" for device, _ in members)
