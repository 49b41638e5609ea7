"""Automatic selection's fit time against EBM's defaults, side by side on every held-out table of the suite.

``python benchmarks/fit_time_suite.py [--folds-per-table 2] [--json reports/benchmarks/fit_time_suite.json]``

The tabular suite's fit-time target (median fit time of ``PrimoClassifier()``/``PrimoRegressor()`` ≤ EBM's
defaults) can only be judged where both ran on the same machine at the same time, and a full suite run of
both takes hours. This runs the first ``--folds-per-table`` folds of the suite's own folds
(``tabular_suite.folds_for``) of every held-out table, auto and EBM alternating fold by fold (which goes
first alternates too), each fit alone on the machine. It prints per table the median fit seconds of each
and their ratio, and over tables the median of those ratios with a bootstrap 95% interval, and the target
as the suite states it (median over tables of each one's mean fit seconds). Losses are recorded beside
(auto − EBM per fold) but two folds say little about them: the suite's own rows do that.
Run it on an idle machine; each row records the load average before its fit.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

import tabular_suite as suite
from primo.io import atomic_write_bytes
from suite_tables import TABLES, load_table

CONTENDERS = ("primo_auto", "ebm")
DEFAULT_JSON = Path(__file__).resolve().parent.parent / "reports" / "benchmarks" / "fit_time_suite.json"


def run(tables: list[str], folds_per_table: int, json_path: Path) -> list[dict]:
    rows = json.loads(json_path.read_text())["rows"] if json_path.exists() else []
    done = {(r["table"], r["fold"], r["contender"]) for r in rows}
    environment = suite.environment()
    for t, name in enumerate(tables):
        table = load_table(name)
        folds = suite.folds_for(table, 5, None)[:folds_per_table]
        for index, fold in enumerate(folds):
            order = CONTENDERS if (t + index) % 2 == 0 else CONTENDERS[::-1]
            for contender in order:
                if (name, index, contender) in done:
                    continue
                load = os.getloadavg()[0]
                [result] = suite.run_contender(contender, table, [fold])
                rows.append({**result, "table": name, "task": table.task, "fold": index, "contender": contender,
                             "load_average_before": load})  # run_contender numbers its one fold 0
                atomic_write_bytes(json_path, (json.dumps(suite.to_jsonable(
                    {"environment": environment, "rows": rows}), indent=1) + "\n").encode())
    return rows


def summarize(rows: list[dict]) -> None:
    by = {}
    for row in rows:
        if "crash" not in row:
            by.setdefault(row["table"], {}).setdefault(row["contender"], {})[row["fold"]] = row
    ratios, means = [], {c: [] for c in CONTENDERS}
    print("| table | folds | auto fit s (median) | EBM fit s (median) | auto / EBM | auto − EBM loss (per fold) |")
    print("|---|---|---|---|---|---|")
    for name, contenders in by.items():
        if set(contenders) != set(CONTENDERS):
            continue
        folds = sorted(set(contenders["primo_auto"]) & set(contenders["ebm"]))
        fit = {c: [contenders[c][f]["fit_s"] for f in folds] for c in CONTENDERS}
        ratio = float(np.median(fit["primo_auto"]) / np.median(fit["ebm"]))
        ratios.append(ratio)
        for c in CONTENDERS:
            means[c].append(float(np.mean(fit[c])))
        headline = suite.HEADLINE[contenders["ebm"][folds[0]]["task"]]
        losses = ", ".join(f"{contenders['primo_auto'][f][headline] - contenders['ebm'][f][headline]:+.4g}"
                           for f in folds)
        print(f"| {name} | {len(folds)} | {np.median(fit['primo_auto']):.1f} | {np.median(fit['ebm']):.1f} | "
              f"{ratio:.2f} | {headline}: {losses} |")
    if not ratios:
        return
    interval = ""
    if len(ratios) > 1:
        low, high = suite.median_interval(np.asarray(ratios))
        interval = f" [{low:.2f}, {high:.2f}] (bootstrap 95% over tables)"
    print(f"\nOver {len(ratios)} tables: median per-table ratio auto / EBM {np.median(ratios):.2f}{interval}; "
          f"auto faster on {sum(r < 1 for r in ratios)}.")
    auto, ebm = np.median(means["primo_auto"]), np.median(means["ebm"])
    print(f"The suite's target, median over tables of the mean fit: auto {auto:.1f} s vs EBM {ebm:.1f} s → "
          f"{'met' if auto <= ebm else 'not met'}.")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    held_out = [name for name, spec in TABLES.items() if spec.role == "held_out"]
    parser.add_argument("--tables", nargs="+", default=held_out, choices=held_out)
    parser.add_argument("--folds-per-table", type=int, default=2)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    parser.add_argument("--summarize-only", action="store_true", help="print the summary of the JSON, run nothing")
    args = parser.parse_args(argv)
    if args.summarize_only:
        rows = json.loads(args.json.read_text())["rows"]
    else:
        rows = run(args.tables, args.folds_per_table, args.json)
    summarize(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
