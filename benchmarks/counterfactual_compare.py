"""Counterfactuals on the case studies: smallest structural change vs nearest existing row.

For each dataset and model family, query rows are held-out rows; each asks for a different
decision: the other class (LinnOS: slow ↔ fast), the next class (wine), or a core count moved by
half a standard deviation of the target towards the bulk of the data (Clara-MS). Every feature is
mutable and both methods measure distance the same way (Euclidean on features divided by their
standard deviation over the training rows). Per method and query: features changed and distance
of its best counterfactual (the first option), whether it found one, and the time it took. The
summary gives medians and, over the queries both methods answered, the paired difference
(structural − nearest) with a 95% bootstrap interval of its median (scipy, percentile, 2,000
resamples, seed 0).

Models are fit once, without search, with bounded settings: PrDT with the cost-complexity
``ccp_alpha`` chosen by :class:`primo.search.PruningSearch`, PrAM with ``max_rounds=1000``,
``outer_bags=2`` (interpret's defaults for everything else).

Run: ``python benchmarks/counterfactual_compare.py [--queries 100] [--json reports/benchmarks/counterfactual_compare.json]``
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split

from adapters.linnos.features import RAW_FEATURE_NAMES, read_features
from adapters.linnos.trace import list_traces, load_trace
from primo import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.adjust import CounterfactualIndex, MinimalChangeSearch
from primo.datasets import resolve_data_dir
from primo.io import atomic_write_bytes
from primo.search import PruningSearch

PRAM_SETTINGS = {"max_rounds": 1000, "outer_bags": 2, "n_jobs": 1, "random_state": 0}
LINNOS_TRAINING_READS = 20_000


def datasets(data_dir):
    """name -> (X_train, y_train, X_test, task)."""
    train = pd.read_csv(data_dir / "clara" / "ms_train.csv")
    test = pd.read_csv(data_dir / "clara" / "ms_test.csv")
    yield "Clara-MS", train.drop(columns="cores"), train["cores"], test.drop(columns="cores"), "regression"

    reads = read_features(load_trace(list_traces(data_dir)[0]))
    slow = (reads["latency_us"] > reads["latency_us"].quantile(0.85)).astype(int)
    # Train on the first reads, query later ones (time order, as LinnOS is deployed).
    cut = LINNOS_TRAINING_READS
    yield ("LinnOS", reads[RAW_FEATURE_NAMES].iloc[:cut], slow.iloc[:cut],
           reads[RAW_FEATURE_NAMES].iloc[cut:].reset_index(drop=True), "classification")

    X, y = load_wine(return_X_y=True, as_frame=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    yield "wine", X_train, y_train, X_test.reset_index(drop=True), "classification"


def fit_models(X, y, task):
    tree_class, pram_class = (PrDTClassifier, PrAMClassifier) if task == "classification" else (PrDTRegressor, PrAMRegressor)
    tree = PruningSearch(tree_class(random_state=0), random_state=0, progress=False).fit(X, y).best_estimator_
    return {"prdt": tree, "pram": pram_class(**PRAM_SETTINGS).fit(X, y)}


def desired_outcomes(model, X_query, y_train, task):
    """The outcome each query asks for (see the module docstring)."""
    predictions = model.predict(X_query)
    if task == "regression":
        step, middle = 0.5 * float(np.std(y_train)), float(np.median(y_train))
        return [(p + step, None) if p < middle else (None, p - step) for p in predictions]
    classes = list(model.classes_)
    return [classes[(classes.index(p) + 1) % len(classes)] for p in predictions]


def best_option(result) -> dict:
    if result.neighbors.empty:
        return {"found": False, "n_changed": None, "distance": None}
    first = result.neighbors.iloc[0]
    return {"found": True, "n_changed": int(first["n_changed"]), "distance": float(first["distance"])}


def compare(model, X_train, X_query, desired) -> list[dict]:
    structural = MinimalChangeSearch(model, X_train)
    nearest = CounterfactualIndex(model, X_train, match="prediction")
    rows = []
    for i, want in enumerate(desired):
        x = X_query.iloc[[i]]
        start = time.perf_counter()
        minimal = structural.query(x, want, k=3)
        structural_s = time.perf_counter() - start
        start = time.perf_counter()
        rows_result = nearest.query(x, want, k=1)
        nearest_s = time.perf_counter() - start
        rows.append({"query": i, "desired": want if not isinstance(want, tuple) else list(want),
                     "structural": {**best_option(minimal), "seconds": structural_s,
                                    "options": len(minimal.neighbors)},
                     "nearest": {**best_option(rows_result), "seconds": nearest_s}})
    return rows


def paired_median(differences: np.ndarray) -> dict:
    if differences.size == 0:
        return {"median": None, "ci95": None}
    if np.all(differences == differences[0]):
        return {"median": float(differences[0]), "ci95": [float(differences[0])] * 2}
    interval = stats.bootstrap((differences,), np.median, n_resamples=2000, confidence_level=0.95,
                               method="percentile", random_state=np.random.default_rng(0)).confidence_interval
    return {"median": float(np.median(differences)), "ci95": [float(interval.low), float(interval.high)]}


def summarize(rows: list[dict]) -> dict:
    summary = {"queries": len(rows)}
    for method in ("structural", "nearest"):
        found = [r[method] for r in rows if r[method]["found"]]
        summary[method] = {
            "found": len(found),
            "median_features_changed": float(np.median([f["n_changed"] for f in found])) if found else None,
            "median_distance": float(np.median([f["distance"] for f in found])) if found else None,
            "median_ms": 1e3 * float(np.median([r[method]["seconds"] for r in rows])),
        }
    both = [r for r in rows if r["structural"]["found"] and r["nearest"]["found"]]
    summary["paired_queries"] = len(both)
    for measure in ("n_changed", "distance"):
        differences = np.array([r["structural"][measure] - r["nearest"][measure] for r in both], dtype=float)
        summary[f"{measure}_difference"] = paired_median(differences)
    summary["fewer_features"] = sum(r["structural"]["n_changed"] < r["nearest"]["n_changed"] for r in both)
    summary["smaller_distance"] = sum(r["structural"]["distance"] < r["nearest"]["distance"] for r in both)
    return summary


def _interval(entry: dict) -> str:
    if entry["median"] is None:
        return "n/a"
    low, high = entry["ci95"]
    return f"{entry['median']:+.3g} [{low:+.3g}, {high:+.3g}]"


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100, help="held-out rows per dataset (default 100)")
    parser.add_argument("--json", default=None, help="write the protocol, every query and the summary here")
    args = parser.parse_args(argv)
    data_dir = resolve_data_dir()
    document = {"protocol": {"queries_per_dataset": args.queries, "k_structural": 3, "distance": "standardized L2",
                             "all_features_mutable": True, "pram": PRAM_SETTINGS,
                             "prdt": "PruningSearch (default hold-out), random_state=0",
                             "bootstrap": "percentile, 2000 resamples, seed 0, median of paired differences"},
                "results": []}
    print(f"{'dataset':9} {'model':5} {'n':>4} | {'structural: found, median features, distance, ms':>48} | "
          f"{'nearest: found, features, distance, ms':>40} | features Δ [95% CI] | distance Δ [95% CI]")
    for name, X_train, y_train, X_test, task in datasets(data_dir):
        X_query = X_test.sample(min(args.queries, len(X_test)), random_state=0).reset_index(drop=True)
        for family, model in fit_models(X_train, y_train, task).items():
            desired = desired_outcomes(model, X_query, y_train, task)
            rows = compare(model, X_train, X_query, desired)
            summary = summarize(rows)
            document["results"].append({"dataset": name, "model": family, "task": task,
                                        "model_size": int(model.size_), "training_rows": len(X_train),
                                        "features": X_train.shape[1], "summary": summary, "queries": rows})
            s, n = summary["structural"], summary["nearest"]
            print(f"{name:9} {family:5} {summary['queries']:>4} | {s['found']:>5} {s['median_features_changed']!s:>8} "
                  f"{s['median_distance'] or float('nan'):>9.3f} {s['median_ms']:>8.1f}".ljust(62)
                  + f"| {n['found']:>5} {n['median_features_changed']!s:>8} {n['median_distance'] or float('nan'):>9.3f} "
                  f"{n['median_ms']:>7.2f} | {_interval(summary['n_changed_difference']):>20} | "
                  f"{_interval(summary['distance_difference'])}", flush=True)
            if args.json:  # after every model, so an interrupted run keeps what it measured
                atomic_write_bytes(args.json, json.dumps(document, indent=1, default=float).encode())
    return document


if __name__ == "__main__":
    main()
