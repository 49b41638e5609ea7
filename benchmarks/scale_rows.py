"""Fit time and peak memory of PrAM and PrDT vs rows (10⁵, 10⁶, 10⁷), one fresh process per fit.

Rows are synthetic jobs shaped like the scheduler's workload features (``scale_data.py``:
13 float32 columns, target log-duration); the Lucid paper reports ≤ 11 minutes to train its
GA²M on 10⁵–10⁷ samples (on its own hardware). Each (model, rows) runs in a subprocess that
generates the data, resets the kernel's peak-RSS mark (``/proc/self/clear_refs``), fits, and
reports:

  data_mb       the float32 feature array
  fit_s, cpu_s  wall time and CPU time (user + system, this process and reaped workers) of the fit
  peak_mb       peak resident memory of the process during the fit (VmHWM, data included)
  worker_mb     largest peak RSS of a worker process (EBM bags with --jobs > 1), else 0

Models (bounded as Primo bounds them in searches; see MODELS):

  pram          PrAMRegressor(interactions=10, max_rounds=1000, outer_bags=2, n_jobs=--jobs)
  prdt          PrDTRegressor(ccp_alpha=1e-3, min_samples_leaf=1e-4): a leaf floor of 0.01 % of the
                rows, because scikit-learn's cost-complexity pruning is quadratic in the size of the
                unpruned tree (an unbounded tree on 10⁵ rows has 2·10⁵ nodes and takes ≈ 140 s to prune)
  prdt_search   BayesianSearch of that PrDT, 16 trials on a stratified 20,000-row sample
                (search_sample_size), then the best refit on every row: the large-data recipe

Sizes that do not finish within --timeout seconds are reported as such, and their time is
extrapolated from the scaling exponent between the two largest finished sizes (time ∝ rows^k,
for wall and for CPU time; CPU time is the better guide on a machine shared with other jobs).

Usage: python benchmarks/scale_rows.py [--sizes 100000 1000000 10000000] [--models pram prdt prdt_search]
                                      [--jobs 1] [--timeout 1800] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import subprocess
import sys
import time

import pandas as pd

MODELS = ("pram", "prdt", "prdt_search")


def _status_mb(field: str) -> float:
    match = re.search(rf"^{field}:\s+(\d+) kB", open("/proc/self/status").read(), re.M)
    return int(match.group(1)) / 1024


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def child(model: str, rows: int, jobs: int) -> dict:
    """Generate the rows, fit one model, return its measurements (runs in a fresh process)."""
    from joblib.externals.loky import get_reusable_executor

    from primo import PrAMRegressor, PrDTRegressor
    from primo.search import BayesianSearch
    from scale_data import job_rows

    X, y = job_rows(rows, seed=0)
    with open("/proc/self/clear_refs", "w") as handle:  # reset VmHWM: measure the fit, not the generator
        handle.write("5")
    cpu, start = _cpu_seconds(), time.perf_counter()
    extra = {}
    if model == "pram":
        fitted = PrAMRegressor(interactions=10, max_rounds=1000, outer_bags=2, n_jobs=jobs,
                               random_state=0).fit(X, y)
        extra = {"pairs": fitted.n_interactions_}
    elif model == "prdt":
        fitted = PrDTRegressor(ccp_alpha=1e-3, min_samples_leaf=1e-4, random_state=0).fit(X, y)
        extra = {"leaves": fitted.n_leaves_, "depth": fitted.depth_}
    else:
        search = BayesianSearch(PrDTRegressor(min_samples_leaf=1e-4, random_state=0), scoring="mae", n_trials=16,
                                search_sample_size=20_000, n_jobs=jobs, random_state=0).fit(X, y)
        fitted = search.best_estimator_
        extra = {"leaves": fitted.n_leaves_, "depth": fitted.depth_, "search_s": round(search.trials_["fit_time"].sum(), 1)}
    fit_s = time.perf_counter() - start
    peak_mb = _status_mb("VmHWM")
    get_reusable_executor().shutdown(wait=True)  # reap joblib workers so their usage is counted
    return {"model": model, "rows": rows, "data_mb": round(X.nbytes / 2**20), "fit_s": round(fit_s, 1),
            "cpu_s": round(_cpu_seconds() - cpu, 1), "peak_mb": round(peak_mb),
            "worker_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024), **extra}


def run_child(model: str, rows: int, jobs: int, timeout: float) -> dict:
    command = [sys.executable, os.path.abspath(__file__), "--child", model, str(rows), "--jobs", str(jobs)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"model": model, "rows": rows, "status": f"timeout > {timeout:.0f} s"}
    if done.returncode != 0:
        return {"model": model, "rows": rows, "status": "failed: " + done.stderr.strip().splitlines()[-1]}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "status": "ok"}


def scaling(table: pd.DataFrame) -> list[str]:
    """Exponent k of time ∝ rows^k between the two largest finished sizes (wall and CPU time), and an
    estimate for the larger sizes that did not finish."""
    lines = []
    for model, group in table[table["status"] == "ok"].groupby("model"):
        group = group.sort_values("rows")
        if len(group) < 2:
            continue
        (r0, t0, c0), (r1, t1, c1) = group[["rows", "fit_s", "cpu_s"]].to_numpy(dtype=float)[-2:]
        k = math.log(max(t1, 1e-3) / max(t0, 1e-3)) / math.log(r1 / r0)
        k_cpu = math.log(max(c1, 1e-3) / max(c0, 1e-3)) / math.log(r1 / r0)
        line = (f"{model}: between {int(r0):,} and {int(r1):,} rows, wall time ∝ rows^{k:.2f}, "
                f"CPU time ∝ rows^{k_cpu:.2f}")
        missing = table[(table["model"] == model) & (table["status"] != "ok") & (table["rows"] > r1)]
        for rows in missing["rows"]:
            line += (f"; extrapolated to {rows:,} rows: ≈ {t1 * (rows / r1) ** k / 60:.0f} min wall at this load, "
                     f"≈ {c1 * (rows / r1) ** k_cpu / 60:.0f} CPU-min")
        lines.append(line)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 10_000_000])
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument("--jobs", type=int, default=1, help="EBM bag / search-trial workers")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds allowed per fit process")
    parser.add_argument("--json", default=None, help="also write the rows to this JSON file")
    parser.add_argument("--child", nargs=2, metavar=("MODEL", "ROWS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), args.jobs)))
        return

    rows = []
    for model in args.models:
        for size in sorted(args.sizes):
            if rows and rows[-1]["model"] == model and rows[-1]["status"] != "ok":
                rows.append({"model": model, "rows": size, "status": "skipped (smaller size did not finish)"})
            else:
                rows.append(run_child(model, size, args.jobs, args.timeout))
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    print(f"\nfit time and peak memory vs rows; {os.cpu_count()} cores, --jobs {args.jobs}, "
          f"load average {os.getloadavg()[0]:.1f} (other jobs share the machine)")
    print(table.astype(object).fillna("").to_string(index=False))
    for line in scaling(table):
        print(line)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(rows, handle, indent=1)


if __name__ == "__main__":
    main()
