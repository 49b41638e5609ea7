"""PrAM on Clara-MS: default parameters vs Bayesian search, test and real-NF MAE.

Prints both models' test MAE (198 synthesized NFs) and real-NF MAE (4 Click NFs), and the search
history (every trial's parameters, validation MAE, complexity, S). The search validates on a
hold-out of the training set only; the test and real NFs are never seen while searching.
Reference (targets.md): XGBoost(20) 2.547 / 1.238, EBM(32 bins) 2.601, pyprimo(32 bins) 2.461 / 0.866.

Usage: python benchmarks/search_clara_ms.py [--data-dir DIR] [--trials 20] [--seed 0] [--json FILE]
"""
from __future__ import annotations

import argparse
import json

import pandas as pd

from primo import PrAMRegressor
from primo.datasets import resolve_data_dir
from primo.search import BayesianSearch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    args = parser.parse_args()
    clara = resolve_data_dir(args.data_dir) / "clara"
    train, test = pd.read_csv(clara / "ms_train.csv"), pd.read_csv(clara / "ms_test.csv")
    real = pd.read_csv(clara / "ms_real_nfs.csv")
    X, y = train.drop(columns="cores"), train["cores"]
    mae = lambda model, table: float((model.predict(table[X.columns]) - table["cores"]).abs().mean())

    template = PrAMRegressor(outer_bags=4, n_jobs=1, random_state=args.seed)
    default = PrAMRegressor(n_jobs=1, random_state=args.seed).fit(X, y)
    search = BayesianSearch(template, scoring="mae", n_trials=args.trials, random_state=args.seed).fit(X, y)
    searched = search.best_estimator_
    results = {
        "default": {"test_mae": mae(default, test), "real_nf_mae": mae(default, real), "params": default.get_params()},
        "bayesian": {"test_mae": mae(searched, test), "real_nf_mae": mae(searched, real), "params": search.best_params_,
                     "validation_mae": search.best_loss_},
        "trials": search.history()["trials"],
    }
    print(search.trials_.drop(columns=["source", "error"]).to_string(index=False))
    for name in ("default", "bayesian"):
        print(f"{name:>8}: test MAE {results[name]['test_mae']:.3f}, real-NF MAE {results[name]['real_nf_mae']:.3f}")
    if args.json:
        from primo.io import atomic_write_bytes
        atomic_write_bytes(args.json, json.dumps(results, indent=1, default=str).encode())


if __name__ == "__main__":
    main()
