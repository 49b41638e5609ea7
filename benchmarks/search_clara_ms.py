"""PrAM on Clara-MS: default parameters vs Bayesian search, test and real-NF MAE, over several seeds.

For each seed: PrAM with its default parameters (``PrAMRegressor(random_state=seed)``) and PrAM
chosen by Bayesian search (k-fold CV MAE on the training set, PrAM's default space, boosting bounded
by ``--max-rounds``/``--outer-bags`` in the search and the refit) are fit on ms_train.csv and scored
on ms_test.csv (198 synthesized NFs) and the 4 real Click NFs. The test and real NFs are never seen
while searching. Prints every search's history (parameters, CV MAE, complexity, S) and a summary.

Reference (targets.md): XGBoost(20) 2.547 / 1.238, EBM(32 bins) 2.601, pyprimo(32 bins) 2.461 / 0.866.

Usage: python benchmarks/search_clara_ms.py [--data-dir DIR] [--trials 25] [--cv 5] [--seeds 0 1 2]
                                            [--n-jobs 2] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd

from primo import PrAMRegressor
from primo.datasets import resolve_data_dir
from primo.search import BayesianSearch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--trials", type=int, default=25)
    parser.add_argument("--cv", type=int, default=5, help="folds of the search's validation (0: a 25%% hold-out)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--max-rounds", type=int, default=1000)
    parser.add_argument("--outer-bags", type=int, default=2)
    parser.add_argument("--n-jobs", type=int, default=2, help="parallel trials")
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    args = parser.parse_args()
    clara = resolve_data_dir(args.data_dir) / "clara"
    train, test = pd.read_csv(clara / "ms_train.csv"), pd.read_csv(clara / "ms_test.csv")
    real = pd.read_csv(clara / "ms_real_nfs.csv")
    X, y = train.drop(columns="cores"), train["cores"]
    mae = lambda model, table: float((model.predict(table[X.columns]) - table["cores"]).abs().mean())

    runs = []
    for seed in args.seeds:
        default = PrAMRegressor(n_jobs=1, random_state=seed).fit(X, y)
        template = PrAMRegressor(max_rounds=args.max_rounds, outer_bags=args.outer_bags, n_jobs=1,
                                 random_state=seed)
        started = time.perf_counter()
        search = BayesianSearch(template, scoring="mae", n_trials=args.trials, cv=args.cv or None,
                                n_jobs=args.n_jobs, random_state=seed).fit(X, y)
        searched = search.best_estimator_
        print(f"seed {seed}: search history")
        print(search.trials_.drop(columns=["source", "error"]).to_string(index=False))
        runs.append({
            "seed": seed,
            "default": {"test_mae": mae(default, test), "real_nf_mae": mae(default, real)},
            "bayesian": {"test_mae": mae(searched, test), "real_nf_mae": mae(searched, real),
                         "params": search.best_params_, "cv_mae": search.best_loss_,
                         "search_s": time.perf_counter() - started},
            "trials": search.history()["trials"],
        })

    print(f"\nBayesian search: {args.trials} trials, {args.cv}-fold CV" if args.cv else "\nBayesian search: hold-out")
    print(f"{'seed':>4} {'default test':>13} {'BO test':>8} {'default real':>13} {'BO real':>8}  BO params")
    for run in runs:
        d, b = run["default"], run["bayesian"]
        print(f"{run['seed']:>4} {d['test_mae']:>13.3f} {b['test_mae']:>8.3f} {d['real_nf_mae']:>13.3f} "
              f"{b['real_nf_mae']:>8.3f}  {b['params']}")
    summary = {f"{model}_{metric}_mean": float(np.mean([run[model][metric] for run in runs]))
               for model in ("default", "bayesian") for metric in ("test_mae", "real_nf_mae")}
    summary["seeds_bayesian_better_on_test"] = sum(r["bayesian"]["test_mae"] < r["default"]["test_mae"] for r in runs)
    print(f"mean {summary['default_test_mae_mean']:>13.3f} {summary['bayesian_test_mae_mean']:>8.3f} "
          f"{summary['default_real_nf_mae_mean']:>13.3f} {summary['bayesian_real_nf_mae_mean']:>8.3f}")
    print(f"BO lower test MAE than the default in {summary['seeds_bayesian_better_on_test']}/{len(runs)} seeds")
    if args.json:
        from primo.io import atomic_write_bytes
        settings = {key: getattr(args, key) for key in ("trials", "cv", "seeds", "max_rounds", "outer_bags")}
        atomic_write_bytes(args.json, json.dumps({"settings": settings, "summary": summary, "runs": runs},
                                                 indent=1, default=str).encode())


if __name__ == "__main__":
    main()
