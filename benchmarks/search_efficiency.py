"""Bayesian vs random vs grid search: trials needed to reach random search's best score.

For each dataset and seed, random search runs its full budget; its best validation objective S is
the target. We report after how many trials each method first reached that target (Bayesian and
grid may reach it earlier, later or never within the same budget). The paper reports Bayesian
optimization reaching random search's score in ≥ 1.2× fewer trials on Clara-MS.

Datasets (real, from the data directory):
  clara-ms  PrAM regressor, MAE, Clara-MS training set (680 NFs), 5-dimensional default space
  linnos    PrDT classifier, 1 − F1 of slow reads (> p85), first 20k reads of one NVMe trace

Validation is a 25% hold-out of the training data, or k-fold cross-validation with ``--cv K``.

Usage: python benchmarks/search_efficiency.py [--data-dir DIR] [--trials 30] [--seeds 0 1 2]
                                             [--datasets clara-ms linnos] [--cv K] [--n-jobs N]
"""
from __future__ import annotations

import argparse
import json
import time

import pandas as pd

from primo import PrAMRegressor, PrDTClassifier
from primo.datasets import resolve_data_dir
from primo.search import BayesianSearch, GridSearch, RandomSearch

METHODS = {"bayesian": BayesianSearch, "random": RandomSearch, "grid": GridSearch}


def clara_ms(data_dir):
    train = pd.read_csv(data_dir / "clara" / "ms_train.csv")
    return (PrAMRegressor(outer_bags=2, max_rounds=1000, n_jobs=1), "mae",
            train.drop(columns="cores"), train["cores"])


def linnos(data_dir):
    path = sorted((data_dir / "linnos" / "flashnet_nvme").glob("*.trace"))[0]
    trace = pd.read_csv(path, header=None,
                        names=["ts", "latency", "io_type", "size", "offset", "ts_submit", "size_after"])
    reads = trace[trace["io_type"] == 1].head(20000).reset_index(drop=True)
    X = pd.DataFrame({f"latency_prev{k}": reads["latency"].shift(k) for k in range(1, 5)})
    X["size"] = reads["size"]
    X["gap_ms"] = reads["ts_submit"].diff()
    X = X.fillna(X.median())
    y = (reads["latency"] > reads["latency"].quantile(0.85)).astype(int)
    return PrDTClassifier(random_state=0), "f1", X, y


DATASETS = {"clara-ms": clara_ms, "linnos": linnos}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--cv", type=int, default=0, help="k-fold validation (0: a 25%% hold-out)")
    parser.add_argument("--n-jobs", type=int, default=None, help="parallel trials of each search")
    parser.add_argument("--json", default=None, help="also write the rows to this JSON file")
    args = parser.parse_args()
    data_dir = resolve_data_dir(args.data_dir)

    rows = []
    for dataset in args.datasets:
        estimator, scoring, X, y = DATASETS[dataset](data_dir)
        for seed in args.seeds:
            searches = {}
            for method, cls in METHODS.items():
                start = time.perf_counter()
                searches[method] = cls(estimator, scoring=scoring, n_trials=args.trials, cv=args.cv or None,
                                       n_jobs=args.n_jobs, random_state=seed, refit=False).fit(X, y)
                searches[method].seconds_ = time.perf_counter() - start
            target = searches["random"].best_score_
            row = {"dataset": dataset, "seed": seed, "cv": args.cv, "target_S": target}
            for method, search in searches.items():
                row[f"{method}_best_S"] = search.best_score_
                row[f"{method}_trials_to_target"] = search.trials_to_reach(target)
                row[f"{method}_seconds"] = round(search.seconds_, 1)
            rows.append(row)
            print(json.dumps(row), flush=True)

    table = pd.DataFrame(rows)
    print("\ntrials to reach random search's best S (budget %d; None = not reached):" % args.trials)
    print(table[["dataset", "seed", "target_S"] + [f"{m}_trials_to_target" for m in METHODS]
                + [f"{m}_best_S" for m in METHODS]].to_string(index=False))
    for dataset, group in table.groupby("dataset"):
        bo = group["bayesian_trials_to_target"].fillna(args.trials + 1)
        rs = group["random_trials_to_target"]
        ratio = rs.sum() / bo.sum()
        print(f"{dataset}: random needs {rs.mean():.1f} trials on average, Bayesian {bo.mean():.1f} "
              f"(unreached counted as {args.trials + 1}) -> {ratio:.2f}x fewer trials with Bayesian search; "
              f"Bayesian ends better or equal in {(group['bayesian_best_S'] <= group['random_best_S'] + 1e-12).sum()}"
              f"/{len(group)} seeds")
    if args.json:
        from primo.io import atomic_write_bytes
        atomic_write_bytes(args.json, json.dumps(rows, indent=1, default=float).encode())


if __name__ == "__main__":
    main()
