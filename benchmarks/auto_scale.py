"""Automatic selection on large tables whose true model is known: does it keep the real terms, and only them?

On small tables the one-standard-error rule has room to trade accuracy for size; at 10⁵ rows and more
the standard error is tiny, so whatever size the search offers near the best loss is what a user
gets. Each table here is drawn from a known additive model: 12 standard-normal columns ``f0``…``f11``
and a category ``kind`` of 8 levels; the target is

    sin(f0) + 0.5·f1·f2 + 0.1·code(kind) + 0.3·[f3 > 0] + noise

(regression: Gaussian noise of σ = 0.5; binary: a logistic draw of that score above 0.5). Four terms are
real (``f0``, the pair ``f1 & f2``, ``kind``, ``f3``); the other eight columns are noise. For each row
count, ``PrimoRegressor()``/``PrimoClassifier()`` (defaults, ``random_state=0``) and the default PrAM are
fitted and scored on 50,000 fresh rows of the same model, against the loss of the true score itself
(the noise floor). Reported: test loss and its excess over the floor, pieces, terms (and how many of
the real ones are among them), family, fit seconds.

Usage: python benchmarks/auto_scale.py [--rows 100000] [--tasks regression binary] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd
from sklearn.metrics import log_loss, mean_absolute_error

REAL_TERMS = {"f0", "f1 & f2", "kind", "f3"}
TEST_ROWS = 50_000


def draw(rows: int, task: str, seed: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """``rows`` rows of the known model: X, y and the true score (the regression mean, the binary log-odds)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(rows, 12)), columns=[f"f{i}" for i in range(12)])
    X["kind"] = pd.Categorical(rng.choice(list("abcdefgh"), rows), categories=list("abcdefgh"))
    score = (np.sin(X["f0"]) + 0.5 * X["f1"] * X["f2"] + 0.1 * X["kind"].cat.codes + 0.3 * (X["f3"] > 0)).to_numpy()
    if task == "regression":
        return X, score + rng.normal(scale=0.5, size=rows), score
    return X, (score + rng.logistic(size=rows) > 0.5).astype(int), score - 0.5


def evaluate(model, task: str, X, y, score) -> dict:
    if task == "regression":
        loss, floor = mean_absolute_error(y, model.predict(X)), mean_absolute_error(y, score)
    else:
        truth = 1 / (1 + np.exp(-score))
        loss, floor = log_loss(y, model.predict_proba(X)), log_loss(y, np.c_[1 - truth, truth])
    return {"test_loss": float(loss), "noise_floor": float(floor), "excess_pct": float(100 * (loss / floor - 1))}


def describe(model) -> dict:
    pram = getattr(model, "best_estimator_", model)
    terms = list(getattr(pram, "term_names_", []))
    return {"family": getattr(model, "best_family_", "pram"), "pieces": int(pram.size_), "terms": len(terms),
            "real_terms_kept": len(REAL_TERMS & set(terms)), "noise_terms_kept": len(set(terms) - REAL_TERMS),
            "params": {k: v for k, v in pram.get_params().items() if k in ("max_terms", "max_pieces", "max_bins",
                                                                            "interactions", "ccp_alpha")}}


def main() -> None:
    from primo import PrAMClassifier, PrAMRegressor, PrimoClassifier, PrimoRegressor
    from primo.io import atomic_write_bytes

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000])
    parser.add_argument("--tasks", nargs="+", default=["regression", "binary"], choices=["regression", "binary"])
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    results = []
    for task in args.tasks:
        X_test, y_test, score_test = draw(TEST_ROWS, task, seed=1)
        for rows in args.rows:
            X, y, _ = draw(rows, task, seed=0)
            regression = task == "regression"
            for label, model in (("auto", (PrimoRegressor if regression else PrimoClassifier)(random_state=0)),
                                 ("pram_default", (PrAMRegressor if regression else PrAMClassifier)())):
                start = time.perf_counter()
                model.fit(X, y)
                row = {"task": task, "rows": rows, "model": label, "fit_s": time.perf_counter() - start,
                       **evaluate(model, task, X_test, y_test, score_test), **describe(model)}
                results.append(row)
                print(f"{task:<10} {rows:>8} {label:<12} loss {row['test_loss']:.4f} (+{row['excess_pct']:.1f}% over "
                      f"the floor {row['noise_floor']:.4f})  {row['pieces']:>6} pieces  {row['terms']:>2} terms "
                      f"({row['real_terms_kept']} of 4 real, {row['noise_terms_kept']} noise)  {row['family']:<4} "
                      f"{row['fit_s']:.0f} s  {row['params']}", flush=True)
    if args.json:
        atomic_write_bytes(args.json, json.dumps(results, indent=1).encode())


if __name__ == "__main__":
    main()
