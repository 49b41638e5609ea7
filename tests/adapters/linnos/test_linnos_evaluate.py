"""Pieces of the evaluation script: pruning choice, array layouts, report formatting."""
import numpy as np
import pandas as pd

from adapters.linnos.evaluate import DeviceModels, fit_pruned_tree, format_results, simulate
from adapters.linnos.features import RAW_FEATURE_NAMES
from tests.adapters.linnos.helpers import Constant


def noisy_rule(n, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 100, (n, 9)), columns=RAW_FEATURE_NAMES)
    y = (X["pending_now"] > 70).to_numpy().astype(int)
    return X, np.where(rng.random(n) < 0.1, 1 - y, y)


def test_pruning_choice_recovers_a_small_tree():
    X, y = noisy_rule(4000, 0)
    tree, alpha, val_f1 = fit_pruned_tree(X, y, n_candidates=15)
    assert alpha > 0
    assert tree.get_n_leaves() <= 8  # an unpruned tree on 10% label noise has hundreds
    assert val_f1 > 0.8
    X_test, y_test = noisy_rule(2000, 1)
    assert (tree.predict(X_test) == y_test).mean() > 0.85


def device(k, n=600):
    rng = np.random.default_rng(k)
    reads = pd.DataFrame(0, index=range(n), columns=RAW_FEATURE_NAMES)
    reads.insert(0, "latency_us", rng.integers(100, 5000, n))
    reads.insert(0, "submit_us", np.arange(n) * 50 + 1000 * k)
    return DeviceModels(f"tencent.cut.per_50k.d{k}.trace", reads, 3000.0, Constant(0), Constant(1), 4.0, 0.05)


def test_simulate_layouts_and_format():
    devices = [device(k) for k in range(4)]
    out = simulate(devices)
    assert set(out) == {"traces", "shifted"}
    first = out["traces"][devices[0].name]
    assert first["devices"] == [f"{d.name}+0us" for d in devices[:3]]
    assert out["shifted"][devices[0].name]["devices"][1].endswith(f"+{599 * 50 // 3}us")
    base = first["Base"]["mean_us"]
    assert base == devices[0].test["latency_us"].mean()
    assert first["LinnOS"]["mean_us"] == base + 4.0  # never slow: base plus one inference each
    assert first["Tree"]["revoked_fraction"] == 1.0  # always slow: every read goes to the last replica
    text = format_results({"history": "completed", "epochs": 1, "traces": [], "simulation": out})
    assert "d0 | Oracle |" in text and "simulation (shifted)" in text
