"""Bayesian vs random (vs grid) search of PrAM: trials needed to reach random search's best loss.

For every dataset and seed, each method runs the same budget of PrAM trials on the same validation
splits. Random search's final best validation loss is the target; for each method we count after
how many trials its running best loss (the lowest loss so far, i.e. ``tolerance=0`` semantics, not
the one-standard-error choice) first reached that target (random search reaches it by definition;
Bayesian and grid search may reach it earlier, later or never). A method that never reaches it is
counted as ``budget + 1`` trials (censored: the true count is larger). Per dataset we print the
median over seeds, the paired difference Bayesian − random per seed with a percentile bootstrap
interval of its mean over seeds, and the final best losses; as a secondary measure, the median
trials to come within 1% of the target (``NEAR_TARGET``).

That target favours random search: it is random search's own best, which random search reaches by
definition at a uniformly placed trial, while a method of equal skill falls short of it about half the
time (censored at ``budget + 1``), so even a second random search would look slower. A symmetric
measure is printed beside it: trials to come within 1% of the best loss *any* compared method found on
that seed (``*_trials_to_pooled_near``). ``--summarize FILE`` recomputes rows and summary from an
earlier JSON without running anything. Ten seeds by default: with five, the same two searches came
out +6.05 trials apart on seeds 0–4 and +1.95 on seeds 5–9 (``reports/benchmarks/README.md``).

Protocol (the same for every method, so the comparison is fair):

* every method's budget ends with the same few "shrink" trials (smaller variants of its best trial,
  ``primo.search.searchers.SHRINK_TRIALS``) and one trial that scores PrAM's simplification path
  (``max_pieces``, one row per step); they count like any other trial;

* ``PrAMRegressor/PrAMClassifier(n_jobs=1)``, the default PrAM space (``primo.search.spaces.pram_space``),
  ``trial_params={"outer_bags": 1}`` (one-bag PrAMs are the candidates), one trial at a time;
* ``evaluate_estimator=False``: no method is given the starting estimator as a free first trial;
* losses: MAE for regression, log loss (Primo's default) for classification.

Datasets (real data, and only the DEVELOPMENT tables of the tabular suite; its held-out tables
are never used here, because this benchmark is used to choose the search's defaults):

  clara-ms       regression  Clara-MS training set (680 NFs), MAE, 5-fold CV
  linnos         binary      slow (> p85) reads, first 20k reads of one NVMe trace, log loss, 25% hold-out
  linnos-2..4    binary      the same on the other three traces (sorted by name; linnos is the first)
  diabetes       regression  scikit-learn load_diabetes, MAE, 5-fold CV
  wine           multiclass  scikit-learn load_wine, log loss, 5-fold CV
  penguins       multiclass  palmerpenguins (text columns, NaN), log loss, 5-fold CV

``--reuse FILE`` takes the searches of the methods not listed in ``--methods`` from an earlier
JSON of this script (same protocol, checked): random and grid search do not depend on the Bayesian
search's code, so a change to ``BayesianSearch`` can be measured without rerunning them.
``--bayes-params '{"acq_func": "gp_hedge"}'`` passes options to ``BayesianSearch`` (for ablations).

Usage: python benchmarks/search_efficiency.py [--data-dir DIR] [--datasets clara-ms linnos ...]
           [--seeds 0 1 ... 9] [--trials 20] [--methods bayesian random grid] [--reuse FILE]
           [--bayes-params JSON] [--json reports/benchmarks/search_efficiency.json]

Example
-------
    nice -n 10 python benchmarks/search_efficiency.py --datasets wine penguins --seeds 0 1 2 3 4 \\
        --json reports/benchmarks/search_efficiency.json
"""
from __future__ import annotations

import argparse
import functools
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from primo import PrAMClassifier, PrAMRegressor
from primo.datasets import resolve_data_dir
from primo.io import atomic_write_bytes
from primo.search import BayesianSearch, GridSearch, RandomSearch
from primo.search.searchers import SHRINK_TRIALS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from suite_tables import load_table  # noqa: E402  (a sibling script, not a package)

METHODS = {"bayesian": BayesianSearch, "random": RandomSearch, "grid": GridSearch}
#: What every search of every method shares; stored with the results so --reuse can check it.
TRIAL_PARAMS = {"outer_bags": 1}
BOOTSTRAP_RESAMPLES = 10_000
#: Secondary measure: trials to come within this fraction of random search's best loss (the losses
#: are flat near the optimum, so "reached exactly" also counts misses by 0.01%).
NEAR_TARGET = 0.01


def clara_ms(data_dir):
    train = pd.read_csv(data_dir / "clara" / "ms_train.csv")
    return PrAMRegressor(n_jobs=1), "mae", 5, train.drop(columns="cores"), train["cores"]


def linnos(data_dir, trace: int = 0):
    """The LinnOS read table of a trace (sorted by name): the last four latencies, size and inter-arrival gap."""
    path = sorted((data_dir / "linnos" / "flashnet_nvme").glob("*.trace"))[trace]
    trace = pd.read_csv(path, header=None,
                        names=["ts", "latency", "io_type", "size", "offset", "ts_submit", "size_after"])
    reads = trace[trace["io_type"] == 1].head(20000).reset_index(drop=True)
    X = pd.DataFrame({f"latency_prev{k}": reads["latency"].shift(k) for k in range(1, 5)})
    X["size"] = reads["size"]
    X["gap_ms"] = reads["ts_submit"].diff()
    X = X.fillna(X.median())
    y = (reads["latency"] > reads["latency"].quantile(0.85)).astype(int)
    return PrAMClassifier(n_jobs=1), "log_loss", None, X, y


def suite_table(name):
    def load(data_dir):
        table = load_table(name)
        if table.role != "development":  # held-out tables must never inform the search's defaults
            raise ValueError(f"{name} is a held-out table of the suite; only development tables may be used here")
        if table.task == "regression":
            return PrAMRegressor(n_jobs=1), "mae", 5, table.X, table.y
        return PrAMClassifier(n_jobs=1), "log_loss", 5, table.X, table.y
    return load


DATASETS = {"clara-ms": clara_ms, "linnos": linnos, "diabetes": suite_table("diabetes"),
            "wine": suite_table("wine"), "penguins": suite_table("penguins"),
            # The other LinnOS traces, as a check on data no search option was chosen on.
            **{f"linnos-{k + 1}": functools.partial(linnos, trace=k) for k in (1, 2, 3)}}


def run_search(method, estimator, scoring, cv, X, y, *, trials, seed, bayes_params) -> dict:
    """One search; returns its per-trial losses (in trial order) and how long it took."""
    options = dict(bayes_params) if method == "bayesian" else {}
    search = METHODS[method](estimator, scoring=scoring, n_trials=trials, cv=cv, trial_params=TRIAL_PARAMS,
                             evaluate_estimator=False, n_jobs=1, random_state=seed, refit=False,
                             progress=False, **options)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the search counts third-party warnings itself (warnings_)
        search.fit(X, y)
    seconds = time.perf_counter() - start
    # Every trial the budget paid for, in order: the method's own draws and the smaller variants of
    # its best trial that every search tries last ("shrink"), which can reach the target too.
    own = search.trials_[search.trials_["source"].isin(["search", "shrink"])]
    return {"losses": [None if not np.isfinite(v) else float(v) for v in own["loss"].astype(float)],
            "params": [dict(p) for p in own["params"]], "sources": own["source"].tolist(),
            "failed": int(own["error"].notna().sum()), "seconds": round(seconds, 1),
            "options": options}


def trials_to_reach(losses, target) -> int | None:
    """Trials until the running best loss is <= target (None: never); failed trials count, never reach."""
    running = np.minimum.accumulate([math.inf if v is None else v for v in losses])
    hits = np.flatnonzero(running <= target + 1e-12)
    return int(hits[0]) + 1 if hits.size else None


def bootstrap_mean_interval(values, seed=0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean (scipy); a point when every value is equal."""
    values = np.asarray(values, dtype=float)
    if np.ptp(values) == 0:
        return float(values[0]), float(values[0])
    result = stats.bootstrap((values,), np.mean, n_resamples=BOOTSTRAP_RESAMPLES, method="percentile",
                             random_state=np.random.default_rng(seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def compare(searches: dict, trials: int) -> dict:
    """The row of one dataset and seed: target, trials to reach it and final best loss per method."""
    target = min(v for v in searches["random"]["losses"] if v is not None)
    pooled = min(v for search in searches.values() for v in search["losses"] if v is not None)
    row = {"target_loss": target, "pooled_best_loss": pooled}
    for method, search in searches.items():
        finite = [v for v in search["losses"] if v is not None]
        row[f"{method}_best_loss"] = min(finite) if finite else None
        row[f"{method}_trials_to_target"] = trials_to_reach(search["losses"], target)
        row[f"{method}_trials_to_near_target"] = trials_to_reach(search["losses"], target * (1 + NEAR_TARGET))
        row[f"{method}_trials_to_pooled_near"] = trials_to_reach(search["losses"], pooled * (1 + NEAR_TARGET))
        row[f"{method}_seconds"] = search["seconds"]
    return row


def summarize(rows: pd.DataFrame, methods, trials: int) -> list[dict]:
    """Per dataset: medians over seeds, the paired BO − random difference with its bootstrap interval."""
    censored = trials + 1
    summary = []
    for dataset, group in rows.groupby("dataset", sort=False):
        entry = {"dataset": dataset, "seeds": len(group), "budget": trials}
        for method in methods:
            reached = group[f"{method}_trials_to_target"]
            entry[f"{method}_median_trials"] = float(reached.fillna(censored).median())
            entry[f"{method}_reached"] = int(reached.notna().sum())
            near = group[f"{method}_trials_to_near_target"]
            entry[f"{method}_median_trials_near"] = float(near.fillna(censored).median())
            entry[f"{method}_reached_near"] = int(near.notna().sum())
            pooled = group[f"{method}_trials_to_pooled_near"]
            entry[f"{method}_median_trials_pooled_near"] = float(pooled.fillna(censored).median())
            entry[f"{method}_mean_best_loss"] = float(group[f"{method}_best_loss"].mean())
        if "bayesian" in methods:
            difference = (group["bayesian_trials_to_target"].fillna(censored)
                          - group["random_trials_to_target"].fillna(censored)).to_numpy(float)
            low, high = bootstrap_mean_interval(difference)
            entry.update({"bo_minus_random_per_seed": difference.tolist(),
                          "bo_minus_random_mean": float(difference.mean()),
                          "bo_minus_random_median": float(np.median(difference)),
                          "bo_minus_random_ci95": [low, high],
                          "bo_best_loss_le_random": int((group["bayesian_best_loss"]
                                                         <= group["random_best_loss"] + 1e-12).sum())})
        summary.append(entry)
    return summary


def write_json(path, protocol, bayes_params, searches, rows, methods, trials) -> None:
    table = pd.DataFrame(rows)
    summary = summarize(table, [m for m in methods if f"{m}_best_loss" in table], trials)
    document = {"protocol": protocol, "bayes_params": bayes_params, "searches": searches, "rows": rows,
                "summary": summary}
    atomic_write_bytes(path, json.dumps(document, indent=1, default=float).encode())


def load_reused(path, protocol) -> dict:
    """Searches of an earlier run, keyed by (dataset, seed, method); refuses a different protocol."""
    earlier = json.loads(Path(path).read_text())
    if earlier["protocol"] != protocol:
        raise ValueError(f"{path} was run with protocol {earlier['protocol']}, not {protocol}")
    return {(s["dataset"], s["seed"], s["method"]): s for s in earlier["searches"]}


def resummarize(path: Path) -> None:
    """Rows and summary of an earlier run recomputed from its searches (e.g. after a new measure)."""
    earlier = json.loads(path.read_text())
    trials = earlier["protocol"]["trials"]
    by_seed = {}
    for search in earlier["searches"]:
        by_seed.setdefault((search["dataset"], search["seed"]), {})[search["method"]] = search
    rows = []
    for (dataset, seed), searches in by_seed.items():
        first = next(iter(searches.values()))
        rows.append({"dataset": dataset, "seed": seed, "scoring": first["scoring"],
                     "cv": first["cv"] or "holdout 25%", **compare(searches, trials)})
    methods = [m for m in METHODS if any(m in searches for searches in by_seed.values())]
    write_json(path, earlier["protocol"], earlier["bayes_params"], earlier["searches"], rows, methods, trials)
    print_summary(pd.DataFrame(rows), methods, trials)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS),
                        help="methods to run now (random is needed, run or reused, as the target)")
    parser.add_argument("--reuse", default=None, help="take the other methods' searches from this earlier JSON")
    parser.add_argument("--bayes-params", default="{}", help="JSON options for BayesianSearch")
    parser.add_argument("--json", default=None, help="write protocol, searches, rows and summary here")
    parser.add_argument("--summarize", default=None, metavar="FILE",
                        help="run nothing: recompute the rows and summary of an earlier JSON (rewritten in place)")
    args = parser.parse_args()
    if args.summarize:
        resummarize(Path(args.summarize))
        return
    data_dir = resolve_data_dir(args.data_dir)
    bayes_params = json.loads(args.bayes_params)
    # The budget's last trial scores PrAM's simplification path; runs before it existed do not compare.
    protocol = {"trials": args.trials, "trial_params": TRIAL_PARAMS, "evaluate_estimator": False,
                "shrink_trials": SHRINK_TRIALS, "simplification": {name: list(values) for name, values in PrAMRegressor._post_fit_path.items()}}
    reused = load_reused(args.reuse, protocol) if args.reuse else {}
    methods = [m for m in METHODS if m in args.methods or any(k[2] == m for k in reused)]
    if "random" not in methods:
        raise SystemExit("random search is the target: run it (--methods ... random) or --reuse a file that has it")

    searches, rows = [], []
    for dataset in args.datasets:
        estimator, scoring, cv, X, y = DATASETS[dataset](data_dir)
        for seed in args.seeds:
            by_method = {}
            for method in methods:
                if method in args.methods:
                    search = run_search(method, estimator, scoring, cv, X, y, trials=args.trials, seed=seed,
                                        bayes_params=bayes_params)
                    search.update({"dataset": dataset, "seed": seed, "method": method, "scoring": scoring,
                                   "cv": cv, "reused": False})
                elif (dataset, seed, method) in reused:
                    search = {**reused[(dataset, seed, method)], "reused": True}
                else:
                    continue
                by_method[method] = search
                searches.append(search)
            if "random" not in by_method:
                raise SystemExit(f"no random search for {dataset} seed {seed} (run it or --reuse a file with it)")
            row = {"dataset": dataset, "seed": seed, "scoring": scoring, "cv": cv or "holdout 25%",
                   **compare(by_method, args.trials)}
            rows.append(row)
            print(json.dumps(row), flush=True)
        if args.json:  # after every dataset, so an interrupted run keeps what it measured
            write_json(args.json, protocol, bayes_params, searches, rows, methods, args.trials)

    table = pd.DataFrame(rows)
    print_summary(table, [m for m in methods if f"{m}_best_loss" in table], args.trials)


def print_summary(table: pd.DataFrame, ran, trials: int) -> None:
    print(f"\ntrials for the running best loss to reach random search's best (budget {trials}; "
          f"None = never, counted as {trials + 1} below):")
    print(table[["dataset", "seed", "target_loss"] + [f"{m}_trials_to_target" for m in ran]
                + [f"{m}_best_loss" for m in ran]].to_string(index=False))
    summary = summarize(table, ran, trials)
    print()
    for entry in summary:
        medians = ", ".join(f"{m} {entry[f'{m}_median_trials']:g} (reached {entry[f'{m}_reached']}/{entry['seeds']})"
                            for m in ran)
        losses = ", ".join(f"{m} {entry[f'{m}_mean_best_loss']:.4f}" for m in ran)
        near = ", ".join(f"{m} {entry[f'{m}_median_trials_near']:g} ({entry[f'{m}_reached_near']}/{entry['seeds']})"
                         for m in ran)
        pooled = ", ".join(f"{m} {entry[f'{m}_median_trials_pooled_near']:g}" for m in ran)
        line = (f"{entry['dataset']}: median trials to target: {medians}; within {NEAR_TARGET:.0%} of it: {near}; "
                f"within {NEAR_TARGET:.0%} of the best any method found (symmetric): {pooled}; mean best loss: {losses}")
        if "bo_minus_random_mean" in entry:
            low, high = entry["bo_minus_random_ci95"]
            line += (f"; BO - random per seed {entry['bo_minus_random_per_seed']}, mean {entry['bo_minus_random_mean']:+.1f}"
                     f" [95% bootstrap {low:+.1f}, {high:+.1f}], BO ends <= random in "
                     f"{entry['bo_best_loss_le_random']}/{entry['seeds']}")
        print(line)


if __name__ == "__main__":
    main()
