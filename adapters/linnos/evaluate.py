"""Phase-1 measurements of the LinnOS case study on the FlashNet NVMe traces.

Run ``python -m adapters.linnos.evaluate [--data-dir DIR] [--history completed|submitted]
[--epochs 50] [--out results.json]``. For every trace:

1. features per read (``features.read_features``), split **by time**: the first 80% of the reads
   (in submit order) train, the last 20% test. The tree's pruning strength is chosen on a
   validation split inside the training part (its last quarter, i.e. 60% / 20% of the trace),
   then the tree is refitted on the whole training part. Slow thresholds come from the
   training reads only.
2. for both label rules (``p85`` and ``inflection``): the LinnOS network (biased training,
   ``LinnOSNet``) and its integer version, and a scikit-learn ``DecisionTreeClassifier`` pruned
   by ``ccp_alpha`` (best slow-class F1 on validation): false submit / false revoke rate, F1,
   training time, tree size;
3. with p85 labels: an unbiased network (``slow_weight=1``) to show what biased training does,
   the robustness test (noise on the test features, ``robustness.add_feature_noise``) and
   training on 10% of the training reads;
4. the C inference cost of each device's quantized network and tree (``c_inference``).

Then the failover simulator (``simulator``) replays each trace's test window as the primary of a
3-device array, with p85 models (the Primo chapter's LinnOS setting), in two array layouts:
``traces`` (replicas are the next two traces, in file-name order, cyclically) and ``shifted``
(replicas are the same trace shifted by 1/3 and 2/3 of the test window, sharing its model).
Policies: Base, LinnOS (quantized network), Tree, and Oracle (perfect per-device knowledge of the
p85 label: an upper bound of what any p85 predictor could do in this simulator). Each policy pays
per prediction the mean over the array's devices of their measured median C cost.
"""
from __future__ import annotations

import argparse
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

from primo.datasets import resolve_data_dir

from .c_inference import decision_tree_c_source, linnos_net_c_source, measure_c_predictor
from .features import RAW_FEATURE_NAMES, label_slow, read_features, slow_threshold
from .linnos_net import LinnOSNet, QuantizedLinnOSNet
from .metrics import classification_summary
from .robustness import add_feature_noise, subsample_training
from .simulator import BASE, FailoverPolicy, OraclePredictor, ReplicaDevice, array_layouts, array_members, simulate_array
from .trace import list_traces, load_trace, short_name

logger = logging.getLogger(__name__)

LABEL_RULES = ("p85", "inflection")
SIMULATION_RULE = "p85"


def split_by_time(reads: pd.DataFrame, train_fraction: float = 0.8) -> tuple[pd.DataFrame, pd.DataFrame]:
    """First ``train_fraction`` of the reads (submit order) and the rest.

    Example
    -------
    >>> train, test = split_by_time(pd.DataFrame({"a": range(10)}))
    >>> len(train), len(test)
    (8, 2)
    """
    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction}")
    cut = int(round(train_fraction * len(reads)))
    return reads.iloc[:cut], reads.iloc[cut:]


def fit_pruned_tree(
    X: pd.DataFrame, y: np.ndarray, validation_fraction: float = 0.25, n_candidates: int = 20,
    random_state: int = 0,
) -> tuple[DecisionTreeClassifier, float, float]:
    """CART tree whose ``ccp_alpha`` maximises slow-class F1 on the last part of the data.

    Candidates are ``n_candidates`` values spaced geometrically along the cost-complexity pruning
    path of a full tree grown on the first part; ties go to the larger alpha (smaller tree). The
    returned tree is refitted on all of ``X`` with the chosen alpha.

    Returns
    -------
    (tree, ccp_alpha, validation F1)

    Example
    -------
    >>> tree, alpha, f1 = fit_pruned_tree(train[RAW_FEATURE_NAMES], y_train)  # doctest: +SKIP
    """
    X_fit, X_val = split_by_time(X, 1 - validation_fraction)
    y_fit, y_val = y[: len(X_fit)], y[len(X_fit):]
    path = DecisionTreeClassifier(random_state=random_state).cost_complexity_pruning_path(X_fit, y_fit)
    positive = path.ccp_alphas[(path.ccp_alphas > 0)][:-1]  # the last alpha leaves only the root
    candidates = (
        np.geomspace(positive.min(), positive.max(), n_candidates) if positive.size else np.array([0.0])
    )
    best_alpha, best_f1 = 0.0, -1.0
    for alpha in candidates:
        tree = DecisionTreeClassifier(ccp_alpha=alpha, random_state=random_state).fit(X_fit, y_fit)
        f1 = classification_summary(y_val, tree.predict(X_val))["f1_slow"]
        if f1 >= best_f1:
            best_alpha, best_f1 = float(alpha), f1
    tree = DecisionTreeClassifier(ccp_alpha=best_alpha, random_state=random_state).fit(X, y)
    return tree, best_alpha, best_f1


def _scores(y_true, model, X) -> dict[str, float]:
    return classification_summary(y_true, model.predict(X))


def _train_times(net: LinnOSNet) -> dict[str, float]:
    return {"train_time_s": net.fit_time_s_, "train_cpu_s": net.fit_cpu_time_s_,
            "slow_weight": net.slow_weight, "epochs": net.epochs}


def _tree_size(tree: DecisionTreeClassifier) -> dict[str, int]:
    used = np.unique(tree.tree_.feature[tree.tree_.feature >= 0])
    return {
        "leaves": int(tree.get_n_leaves()),
        "depth": int(tree.get_depth()),
        "features_used": [RAW_FEATURE_NAMES[i] for i in used],
    }


@dataclass
class DeviceModels:
    """What the simulator needs from one trace: its test reads, p85 models and their C costs."""

    name: str
    test: pd.DataFrame
    threshold_us: float
    net: QuantizedLinnOSNet
    tree: DecisionTreeClassifier
    net_cost_us: float
    tree_cost_us: float


def evaluate_trace(path: Path, history: str, epochs: int, seed: int = 0) -> tuple[dict, DeviceModels]:
    """All per-trace measurements (see the module docstring) and the p85 models for simulation."""
    reads = read_features(load_trace(path), history=history)
    train, test = split_by_time(reads)
    X_train, X_test = train[RAW_FEATURE_NAMES], test[RAW_FEATURE_NAMES]
    result: dict = {"trace": path.name, "n_reads": len(reads), "n_train": len(train), "n_test": len(test)}
    models = {}
    for rule in LABEL_RULES:
        threshold = slow_threshold(train["latency_us"], rule)
        y_train, y_test = label_slow(train["latency_us"], threshold), label_slow(test["latency_us"], threshold)
        net = LinnOSNet(epochs=epochs, random_state=seed).fit(X_train, y_train)
        quantized = net.quantize()
        start = time.process_time()
        tree, alpha, val_f1 = fit_pruned_tree(X_train, y_train, random_state=seed)
        tree_time = time.process_time() - start
        entry = {
            "threshold_us": threshold,
            "threshold_percentile": float(100 * np.mean(train["latency_us"] <= threshold)),
            "linnos": {**_scores(y_test, net, X_test), **_train_times(net)},
            "linnos_quantized": _scores(y_test, quantized, X_test),
            "tree": {
                **_scores(y_test, tree, X_test), "train_cpu_s": tree_time, "ccp_alpha": alpha,
                "validation_f1": val_f1, **_tree_size(tree),
            },
        }
        logger.info("%s %s: LinnOS F1 %.3f, tree F1 %.3f", path.name, rule,
                    entry["linnos"]["f1_slow"], entry["tree"]["f1_slow"])
        if rule == SIMULATION_RULE:
            entry.update(_p85_extras(X_train, y_train, X_test, y_test, net, tree, epochs, seed))
            models = {"threshold": threshold, "net": quantized, "tree": tree}
        result[rule] = entry

    net_timing = measure_c_predictor(linnos_net_c_source(models["net"]), X_test)
    tree_timing = measure_c_predictor(decision_tree_c_source(models["tree"]), X_test)
    result["c_inference"] = {
        "linnos_ns": net_timing.ns_per_prediction,
        "linnos_min_ns": net_timing.min_ns_per_prediction,
        "linnos_c_matches_quantized": bool(
            np.array_equal(net_timing.predictions, models["net"].predict(X_test))),
        "tree_ns": tree_timing.ns_per_prediction,
        "tree_min_ns": tree_timing.min_ns_per_prediction,
        "tree_c_matches_sklearn": bool(
            np.array_equal(tree_timing.predictions, models["tree"].predict(X_test))),
    }
    device = DeviceModels(
        path.name, test, models["threshold"], models["net"], models["tree"],
        net_timing.ns_per_prediction / 1000, tree_timing.ns_per_prediction / 1000,
    )
    return result, device


def _p85_extras(X_train, y_train, X_test, y_test, net, tree, epochs, seed) -> dict:
    """Unbiased network, robustness to noise, and training on 10% of the data."""
    unbiased = LinnOSNet(slow_weight=1.0, epochs=epochs, random_state=seed).fit(X_train, y_train)
    noisy = add_feature_noise(X_test, random_state=seed)
    X_small, y_small = subsample_training(X_train, y_train, fraction=0.1, random_state=seed)
    small_net = LinnOSNet(epochs=epochs, random_state=seed).fit(X_small, y_small)
    small_tree = DecisionTreeClassifier(ccp_alpha=tree.ccp_alpha, random_state=seed).fit(X_small, y_small)
    return {
        "linnos_unbiased": {**_scores(y_test, unbiased, X_test), **_train_times(unbiased)},
        "noisy_test": {"linnos": _scores(y_test, net, noisy), "tree": _scores(y_test, tree, noisy)},
        "train_10pct": {"linnos": _scores(y_test, small_net, X_test),
                        "tree": _scores(y_test, small_tree, X_test)},
    }


def simulate(devices: list[DeviceModels]) -> dict:
    """Base / LinnOS / Tree / Oracle on 3-device arrays, one per primary trace, in every layout the traces allow."""
    out: dict = {layout: {} for layout in array_layouts(len(devices))}
    for i, primary in enumerate(devices):
        for layout in out:
            members = array_members(devices, i, layout)
            array = [ReplicaDevice(f"{d.name}+{off}us", d.test, off) for d, off in members]
            policies = [
                BASE,
                FailoverPolicy("LinnOS", [d.net for d, _ in members],
                               np.mean([d.net_cost_us for d, _ in members])),
                FailoverPolicy("Tree", [d.tree for d, _ in members],
                               np.mean([d.tree_cost_us for d, _ in members])),
                FailoverPolicy("Oracle", [OraclePredictor(d.test, d.threshold_us) for d, _ in members]),
            ]
            results = simulate_array(array, policies)
            out[layout][primary.name] = {
                "devices": [device.name for device in array],
                **{name: r.summary() for name, r in results.items()},
            }
    return out


def main(argv: list[str] | None = None) -> dict:
    """Command-line entry point; returns the results dict it writes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--history", choices=["completed", "submitted"], default="completed")
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")

    results: dict = {"history": args.history, "epochs": args.epochs, "traces": []}
    devices = []
    for path in list_traces(resolve_data_dir(args.data_dir)):
        trace_result, device = evaluate_trace(path, args.history, args.epochs, args.seed)
        results["traces"].append(trace_result)
        devices.append(device)
    results["simulation"] = simulate(devices)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))
        logger.info("wrote %s", args.out)
    print(format_results(results))
    return results


def format_results(results: dict) -> str:
    """Plain-text tables of the headline numbers (classification, C cost, simulation)."""
    lines = [f"history={results['history']} epochs={results['epochs']}", "",
             "trace | rule | thr_us (train pct) | model | false_submit | false_revoke | F1 | train_cpu_s"]
    for t in results["traces"]:
        lines += _classification_lines(short_name(t["trace"]), t)
    for layout, arrays in results["simulation"].items():
        lines += ["", f"simulation ({layout}) | policy | mean_us | p90 | p95 | p99 | p99.9 | p99.99 | "
                      "mean vs base | revoked"]
        for primary, policies in arrays.items():
            for name in ("Base", "LinnOS", "Tree", "Oracle"):
                s = policies[name]
                tail = " | ".join(f"{s[f'p{q}_us']:.0f}" for q in ("90", "95", "99", "99.9", "99.99"))
                lines.append(f"{short_name(primary)} | {name} | {s['mean_us']:.0f} | {tail} | "
                             f"{s['mean_vs_base']:.3f} | {s['revoked_fraction']:.3f}")
    return "\n".join(lines)


def _classification_lines(short: str, t: dict) -> list[str]:
    lines = []
    for rule in LABEL_RULES:
        e = t[rule]
        rows = [("LinnOS", e["linnos"]), ("LinnOS-int", e["linnos_quantized"]), ("Tree", e["tree"])]
        if "linnos_unbiased" in e:
            rows += [("LinnOS-unbiased", e["linnos_unbiased"]),
                     ("LinnOS-noisy", e["noisy_test"]["linnos"]), ("Tree-noisy", e["noisy_test"]["tree"]),
                     ("LinnOS-10%", e["train_10pct"]["linnos"]), ("Tree-10%", e["train_10pct"]["tree"])]
        head = f"{short} | {rule} | {e['threshold_us']:.0f} ({e['threshold_percentile']:.1f})"
        for name, s in rows:
            lines.append(f"{head} | {name} | {s['false_submit_rate']:.3f} | {s['false_revoke_rate']:.3f} | "
                         f"{s['f1_slow']:.3f} | {s.get('train_cpu_s', float('nan')):.1f}")
        tree = e["tree"]
        lines.append(f"{head} | tree: {tree['leaves']} leaves, depth {tree['depth']}, "
                     f"alpha {tree['ccp_alpha']:.2e}, features {tree['features_used']}")
    c = t["c_inference"]
    lines.append(f"{short} | C ns/prediction: LinnOS {c['linnos_ns']:.0f} (min {c['linnos_min_ns']:.0f}), "
                 f"tree {c['tree_ns']:.1f}; C == Python: {c['linnos_c_matches_quantized']}, "
                 f"{c['tree_c_matches_sklearn']}")
    return lines


if __name__ == "__main__":
    main()
