"""PrDT search at 100k rows: exact pruning-path search vs Bayesian search over ccp_alpha with scikit-learn's pruning.

The data are the reads of the four real NVMe traces of the LinnOS case study: predict a read's log
latency from its size, offset, the gap since the previous I/O and the four previous reads' latencies
(continuous features, so the grown tree has a leaf for almost every row). The previous default, a Bayesian search over ``ccp_alpha`` that refits a scikit-learn tree per
trial, pays scikit-learn's quadratic pruning at every trial; its cost is measured on ``--old-trials``
trials and reported per trial and projected to 30 (the search's default budget). The exact search
(:class:`primo.search.PruningSearch`) is run in full. Both are scored on the same 25% hold-out; the
printed validated losses show whether the exact search loses accuracy.

Usage: python benchmarks/prdt_search_speed.py [--rows 100000] [--old-trials 4] [--data-dir ../shared/data]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from skopt.space import Real
from sklearn.tree import DecisionTreeRegressor

from primo import PrDTRegressor
from primo.models._pruning import PruningPath
from primo.search import BayesianSearch, PruningSearch


def io_table(data_dir: Path, rows: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Reads of the four LinnOS/FlashNet NVMe traces: size, offset, gap since the previous I/O and the
    latencies of the four previous reads (what LinnOS knows at submission); target log latency."""
    frames = []
    for path in sorted((data_dir / "linnos" / "flashnet_nvme").glob("*.trace")):
        trace = pd.read_csv(path, header=None, names=["ts", "latency", "io_type", "size", "offset", "ts_submit",
                                                      "size_after"])
        gap = trace["ts_submit"].diff().fillna(0.0)
        reads = trace.assign(gap=gap)[trace["io_type"] == 1].reset_index(drop=True)
        features = pd.DataFrame({"size": reads["size"], "offset": reads["offset"], "gap_ms": reads["gap"]})
        for lag in range(1, 5):
            features[f"prev{lag}_latency"] = reads["latency"].shift(lag)
        features["target"] = np.log(reads["latency"])
        frames.append(features.iloc[4:])
    table = pd.concat(frames, ignore_index=True).head(rows)
    return table.drop(columns="target"), table["target"].to_numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--old-trials", type=int, default=4)
    parser.add_argument("--data-dir", type=Path, default=Path(__file__).resolve().parents[1].parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    args = parser.parse_args()
    X, y = io_table(args.data_dir, args.rows)
    print(f"LinnOS NVMe reads: {len(X):,} rows × {X.shape[1]} features, target log latency")

    start = time.perf_counter()
    grown = DecisionTreeRegressor(random_state=0).fit(X, y)
    grow_s = time.perf_counter() - start
    start = time.perf_counter()
    path = PruningPath(grown.tree_)
    path_s = time.perf_counter() - start
    print(f"grown tree: {grown.tree_.node_count:,} nodes in {grow_s:.1f} s; its whole pruning path: {path_s:.1f} s")

    start = time.perf_counter()
    exact = PruningSearch(PrDTRegressor(random_state=0), scoring="mae", random_state=0, progress=False).fit(X, y)
    exact_s = time.perf_counter() - start
    kept = exact.trials_.loc[exact.best_index_]
    lowest = exact.trials_.loc[exact.optimum_index_]
    print(f"exact pruning search: {exact_s:.1f} s for {len(exact.trials_)} subtrees (refit included); kept "
          f"{int(kept['size'])} leaves, validated MAE {kept['loss']:.4f}; lowest MAE {lowest['loss']:.4f} "
          f"at {int(lowest['size'])} leaves")

    # The previous default: Bayesian search over ccp_alpha, a scikit-learn tree (quadratic pruning) per trial.
    space = {"ccp_alpha": Real(float(path.alphas[path.alphas > 0].min()), float(path.alphas.max()),
                               prior="log-uniform")}
    start = time.perf_counter()
    old = BayesianSearch(DecisionTreeRegressor(random_state=0), space=space, scoring="mae", n_trials=args.old_trials,
                         tolerance=0, evaluate_estimator=False, refit=False, random_state=0, progress=False).fit(X, y)
    old_s = time.perf_counter() - start
    per_trial = old_s / args.old_trials
    projected = per_trial * 30
    print(f"Bayesian search with scikit-learn pruning: {old_s:.1f} s for {args.old_trials} trials "
          f"({per_trial:.1f} s per trial; {projected:.0f} s projected for its default 30); best validated MAE "
          f"{old.best_loss_:.4f}")
    print(f"speed-up of the exact search over 30 Bayesian trials: {projected / exact_s:.1f}x "
          f"(over the {args.old_trials} trials measured: {old_s / exact_s:.1f}x)")
    results = {
        "rows": len(X), "nodes": int(grown.tree_.node_count), "grow_s": grow_s, "path_s": path_s,
        "exact_s": exact_s, "exact_subtrees": len(exact.trials_), "exact_kept_leaves": int(kept["size"]),
        "exact_kept_mae": float(kept["loss"]), "exact_lowest_mae": float(lowest["loss"]),
        "bayesian_trials": args.old_trials, "bayesian_s": old_s, "bayesian_s_per_trial": per_trial,
        "bayesian_best_mae": float(old.best_loss_), "speedup_vs_30_trials": projected / exact_s,
    }
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
