"""Wall time of one Bayesian search run sequentially, on 2 local joblib workers and on a local Dask cluster.

Every configuration runs the same search: same seed, same batch size (2 points per
scikit-optimize ``ask``, constant-liar), so the trials must be identical and only the wall time
may differ; the script checks that. Data: synthetic job rows shaped like the scheduler's
workload features (``scale_data.py``), target log-duration.

  sequential   n_jobs=1, batch_size=2 (the two points of a batch run one after the other)
  loky-2       n_jobs=2: two local worker processes (joblib's default backend)
  dask-2       primo.parallel_backend("dask", address=<LocalCluster of 2 single-thread processes>)
  ray-2        (with --ray, when ray is installed) primo.parallel_backend("ray", n_jobs=2)

Cluster start-up is timed separately from the search. Numbers are for this machine (2 cores,
shared with other jobs: the load average is printed with the results).

Usage: python benchmarks/scale_search.py [--model pram|prdt] [--rows 10000] [--trials 32] [--ray]
                                        [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import time

import pandas as pd

import primo
from primo import PrAMRegressor, PrDTRegressor
from primo.search import BayesianSearch
from scale_data import job_rows

MODELS = {
    # Bounded boosting and one thread per fit: the trials, not the EBM, use the workers.
    "pram": lambda: PrAMRegressor(max_rounds=300, outer_bags=2, n_jobs=1, random_state=0),
    # A leaf-size floor as a fraction of rows keeps the unpruned tree (and its pruning) bounded.
    "prdt": lambda: PrDTRegressor(min_samples_leaf=1e-4, random_state=0),
}


def run_search(model: str, X, y, trials: int, n_jobs: int | None) -> tuple[float, pd.DataFrame]:
    start = time.perf_counter()
    search = BayesianSearch(MODELS[model](), scoring="mae", n_trials=trials, n_jobs=n_jobs, batch_size=2,
                            random_state=0).fit(X, y)
    return time.perf_counter() - start, search.trials_


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=list(MODELS), default="pram")
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--trials", type=int, default=32)
    parser.add_argument("--ray", action="store_true", help="also run on a local Ray instance")
    parser.add_argument("--json", default=None, help="also write the rows to this JSON file")
    args = parser.parse_args()

    X, y = job_rows(args.rows, seed=0)
    rows, reference = [], None

    def record(name, seconds, trials, startup=0.0):
        nonlocal reference
        trials = trials.drop(columns="fit_time")
        reference = trials if reference is None else reference
        same = trials.equals(reference)
        rows.append({"config": name, "search_s": round(seconds, 1), "startup_s": round(startup, 1),
                     "per_trial_s": round(seconds / args.trials, 2), "identical_trials": same,
                     "best_mae": round(float(trials["loss"].min()), 4)})
        print(rows[-1], flush=True)

    record("sequential", *run_search(args.model, X, y, args.trials, 1))
    record("loky-2", *run_search(args.model, X, y, args.trials, 2))
    start = time.perf_counter()
    with primo.parallel_backend("dask", address="local", n_jobs=2) as active:
        startup = time.perf_counter() - start
        assert active.n_workers == 2
        record("dask-2", *run_search(args.model, X, y, args.trials, None), startup=startup)
    if args.ray:
        start = time.perf_counter()
        with primo.parallel_backend("ray", n_jobs=2):
            startup = time.perf_counter() - start
            record("ray-2", *run_search(args.model, X, y, args.trials, None), startup=startup)

    table = pd.DataFrame(rows)
    print(f"\n{args.trials}-trial Bayesian search, {args.model}, {args.rows} rows x {X.shape[1]} features, "
          f"batch 2; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(table.to_string(index=False))
    if args.json:
        meta = {"model": args.model, "rows": args.rows, "trials": args.trials, "load_average": os.getloadavg()[0]}
        with open(args.json, "w") as handle:
            json.dump({"meta": meta, "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
