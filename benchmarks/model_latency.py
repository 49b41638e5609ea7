"""Fit time and prediction latency of PrDT and PrAM on real data, against the libraries underneath.

Per model: fit time, then, for rows in **random** order and in **file** (trace) order separately:
``predict`` on a 10k-row batch and on 1-row DataFrames (Primo vs scikit-learn's tree holding the very
same fitted state / interpret's EBM), and Primo's Python fast path (``primo.export.compile_python``)
on one row. Timing as in ``export_latency.py``: CPU time, contenders interleaved within each repeat in a
fresh random order, medians over ``--repeats``.

Data: LinnOS's nine per-read features (see ``export_latency.py``) of one NVMe trace for training
(20k reads, slow = latency > p85) and 10k reads of another for timing.

Usage: python benchmarks/model_latency.py [--data-dir DIR] [--repeats 7] [--out results.json]
"""
from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
from export_latency import (
    BATCH,
    ONE_ROW_CALLS,
    conditions_line,
    cpu_ns,
    interleaved_medians,
    linnos_reads,
    plain_tree,
    run_conditions,
    speed,
)

from primo import PrAMClassifier, PrDTClassifier
from primo.datasets import resolve_data_dir
from primo.export import compile_python


def measure(data_dir: Path, repeats: int) -> dict:
    start_load, start_cpu = os.getloadavg(), time.process_time()
    paths = sorted((data_dir / "linnos" / "flashnet_nvme").glob("*.trace"))
    X_train, latency = linnos_reads(paths[0], 20_000)
    X_check, _ = linnos_reads(paths[1], BATCH)
    y = (latency > np.quantile(latency, 0.85)).astype(int)
    orders = {"random": X_check.iloc[np.random.default_rng(0).permutation(len(X_check))].reset_index(drop=True),
              "file": X_check}
    models = {
        "PrDT (ccp_alpha=1e-4)": PrDTClassifier(ccp_alpha=1e-4, random_state=0),
        "PrAM (10 pairs, 4 bags)": PrAMClassifier(interactions=10, outer_bags=4, max_rounds=1000, n_jobs=1, random_state=0),
    }
    results: dict = {"batch_rows": BATCH, "repeats": repeats, "models": {}}
    for name, model in models.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.process_time()
            model.fit(X_train, y)
            fit_s = time.process_time() - start
        library, library_name = ((plain_tree(model), "scikit-learn") if name.startswith("PrDT")
                                 else (model.ebm_, "interpret"))
        fast = compile_python(model)
        groups = {}
        for order, frame in orders.items():
            one_rows = [frame.iloc[[i]] for i in range(ONE_ROW_CALLS)]
            row_lists = frame.to_numpy().tolist()[:ONE_ROW_CALLS * 10]

            def per_row(predict, one_rows=one_rows):
                return lambda: cpu_ns(lambda: [predict(row) for row in one_rows], len(one_rows)) / 1e3

            groups[f"batch predict, {order} order (ns/row)"] = {
                "Primo": lambda frame=frame, predict=model.predict: cpu_ns(lambda: predict(frame), len(frame)),
                library_name: lambda frame=frame, predict=library.predict: cpu_ns(lambda: predict(frame), len(frame)),
            }
            groups[f"1-row predict, {order} order (µs)"] = {
                "Primo": per_row(model.predict),
                library_name: per_row(library.predict),
                "Primo fast path": lambda rows=row_lists, fast=fast: cpu_ns(lambda: [fast(r) for r in rows], len(rows)) / 1e3,
            }
        results["models"][name] = {"fit_cpu_s": round(fit_s, 2), "complexity": model.complexity_,
                                   "results": interleaved_medians(groups, repeats)}
    results["conditions"] = run_conditions(start_load, start_cpu)
    return results


def report(results: dict) -> str:
    lines = [f"Fit time and predict latency on LinnOS reads; medians of {results['repeats']} interleaved repeats "
             "(CPU time); lower is better", conditions_line(results["conditions"]), ""]
    for name, r in results["models"].items():
        lines.append(f"{name}: fit {r['fit_cpu_s']} s CPU, complexity {r['complexity']}")
        for group, members in r["results"].items():
            lines.append(f"  {group}")
            primo_value = members["Primo"]["median"]
            for contender, m in members.items():
                ratio = "" if contender.startswith("Primo") else f"  ({speed(m['median'] / primo_value)})"
                lines.append(f"    {contender:18s} {m['median']:10.3f}{ratio}")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--out", default=None, help="also write the numbers as JSON")
    args = parser.parse_args(argv)
    results = measure(resolve_data_dir(args.data_dir), args.repeats)
    print(report(results))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
