"""A portfolio of PrAM configurations for the start of a Bayesian search, learned on development tables.

A Bayesian search starts from a few points drawn at random, so its first trials are as good as random
search's; with a 20-trial budget it has ten or so left to find something better than the best of
twenty random draws (``search_efficiency.py``). Auto-sklearn's answer is to start from configurations
that did well on other data. This script measures the same ``N`` configurations, drawn at random from
PrAM's default space (``primo.search.spaces.pram_space``; pair terms drawn from 0–32 and capped at a
table's number of pairs, none for multiclass tables, as the space has none), on each development
table, and chooses greedily the ``K`` that together leave the least regret: first the configuration
with the lowest mean regret over the tables, then each next one that most lowers the mean over
tables of the regret of the best configuration chosen so far. The regret of a configuration on a table
is scale-free: (loss − the table's lowest loss) / (the table's median loss − its lowest loss), so every
table weighs the same.

Protocol: one-bag PrAMs (``outer_bags=1``, ``n_jobs=1``, ``random_state=0``), as the searches' trials;
5-fold cross-validation (stratified for classification, seed 0); MAE for regression, log loss for
classification. Tables: the suite's development tables diabetes, breast_cancer, participation and
fishing (``suite_tables.py``). Neither the suite's held-out tables nor the datasets on which
``search_efficiency.py`` compares searches (LinnOS, Clara-MS, wine, penguins) are used, so that
comparison measures the portfolio on data it was not chosen on.

Also printed, from the same losses: a leave-one-table-out check (the portfolio chosen on the other
tables, its best-of-k regret on the table left out against the expected best-of-k of k random
configurations of the ``N``), which says whether a portfolio learned on these tables transfers at all.

Usage: python benchmarks/pram_portfolio.py [--configs 48] [--size 8] [--json reports/benchmarks/pram_portfolio.json]
       python benchmarks/pram_portfolio.py --reuse reports/benchmarks/pram_portfolio.json   # no fitting
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import joblib
import numpy as np
from skopt.space import Integer, Space
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score

from primo import PrAMClassifier, PrAMRegressor
from primo.io import atomic_write_bytes
from primo.search.spaces import pram_space

sys.path.insert(0, str(Path(__file__).resolve().parent))
from suite_tables import load_table  # noqa: E402  (a sibling script, not a package)

TABLES = ("diabetes", "breast_cancer", "participation", "fishing")
MAX_PAIRS = 32


def draw_configs(n: int, seed: int = 0) -> list[dict]:
    """``n`` configurations of PrAM's default space, pair terms drawn over 0–32."""
    template = pram_space(PrAMRegressor(), np.zeros((2, 9)), np.zeros(2))  # 9 features: 36 pairs ≥ 32
    space = {name: dim for name, dim in template.items() if name != "interactions"}
    space["interactions"] = Integer(0, MAX_PAIRS, name="interactions")
    points = Space(list(space.values())).rvs(n, random_state=np.random.RandomState(seed))
    return [{name: (value.item() if hasattr(value, "item") else value) for name, value in zip(space, point)}
            for point in points]


def for_table(config: dict, table) -> dict:
    """The configuration as it applies to a table: pair terms capped at its pairs, none for multiclass."""
    n_features = table.X.shape[1]
    pairs = 0 if table.task == "multiclass" else min(config["interactions"], n_features * (n_features - 1) // 2)
    return {**config, "interactions": pairs}


def validated_loss(table, config: dict) -> float:
    regression = table.task == "regression"
    model = (PrAMRegressor if regression else PrAMClassifier)(outer_bags=1, n_jobs=1, random_state=0,
                                                              **for_table(config, table))
    folds = (KFold if regression else StratifiedKFold)(n_splits=5, shuffle=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = cross_val_score(model, table.X, table.y, cv=folds,
                                 scoring="neg_mean_absolute_error" if regression else "neg_log_loss")
    return float(-scores.mean())


def regrets(losses: np.ndarray) -> np.ndarray:
    """Per table (rows), each configuration's (loss − lowest) / (median − lowest)."""
    low = losses.min(axis=1, keepdims=True)
    spread = np.median(losses, axis=1, keepdims=True) - low
    return (losses - low) / np.where(spread > 0, spread, 1.0)


def greedy_portfolio(regret: np.ndarray, size: int) -> list[int]:
    """Indices of ``size`` configurations, each the one that most lowers the mean best-so-far regret."""
    chosen: list[int] = []
    best = np.full(regret.shape[0], np.inf)
    for _ in range(size):
        totals = np.minimum(best[:, None], regret).mean(axis=0)
        totals[chosen] = np.inf
        pick = int(np.argmin(totals))
        chosen.append(pick)
        best = np.minimum(best, regret[:, pick])
    return chosen


def leave_one_table_out(regret: np.ndarray, size: int, ks=(1, 2, 3, 6), draws: int = 5000) -> list[dict]:
    """Per table: best-of-k regret of the portfolio chosen on the other tables, and of k random configurations."""
    rng = np.random.default_rng(0)
    rows = []
    for table in range(regret.shape[0]):
        others = [t for t in range(regret.shape[0]) if t != table]
        chosen = greedy_portfolio(regret[others], size)
        for k in ks:
            random_best = np.mean([regret[table, rng.choice(regret.shape[1], k, replace=False)].min()
                                   for _ in range(draws)])
            rows.append({"table": table, "k": k, "portfolio": float(regret[table, chosen[:k]].min()),
                         "random": float(random_best)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", type=int, default=48)
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", default=None)
    parser.add_argument("--reuse", default=None, help="take the configurations and losses from this earlier JSON")
    args = parser.parse_args()
    if args.reuse:
        earlier = json.loads(Path(args.reuse).read_text())
        configs, losses = earlier["configs"], np.asarray(earlier["losses"])
    else:
        configs = draw_configs(args.configs)
        tables = [load_table(name) for name in TABLES]
        start = time.perf_counter()
        flat = joblib.Parallel(n_jobs=args.jobs)(joblib.delayed(validated_loss)(table, config)
                                                 for table in tables for config in configs)
        losses = np.asarray(flat).reshape(len(tables), len(configs))
        print(f"{len(configs)} configurations × {len(tables)} tables in {time.perf_counter() - start:.0f} s")
    regret = regrets(losses)
    portfolio = greedy_portfolio(regret, args.size)
    best = np.full(len(TABLES), np.inf)
    for rank, index in enumerate(portfolio, 1):
        best = np.minimum(best, regret[:, index])
        print(f"{rank}. {configs[index]}  regret per table {np.round(regret[:, index], 2).tolist()}  "
              f"best so far, mean {best.mean():.3f}")
    print("PORTFOLIO = (")
    for index in portfolio:
        print(f"    {configs[index]},")
    print(")")
    print("leave one table out: best-of-k regret on the table left out, portfolio (chosen on the others) / random")
    for row in leave_one_table_out(regret, args.size):
        print(f"  {TABLES[row['table']]:<14} k={row['k']}: {row['portfolio']:.2f} / {row['random']:.2f}")
    if args.json:
        document = {"tables": list(TABLES), "configs": configs, "losses": losses.tolist(),
                    "portfolio": [configs[i] for i in portfolio], "portfolio_indices": portfolio}
        atomic_write_bytes(Path(args.json), json.dumps(document, indent=1).encode())


if __name__ == "__main__":
    main()
