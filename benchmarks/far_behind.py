"""Where automatic selection's PrAM search stops early (``primo.selection.FAR_BEHIND``), on every table read so far.

The rule stops the PrAM search after its default configuration (and starts) when they validated a relative
loss more than ``FAR_BEHIND`` times PrDT's best. It was set to cap one pathological table (wvs_immig: minutes
a fit in PrAM trials at 13-18x the tree's loss); this measures, on the first fold of every table of the
tabular suite and of the sampled draws already run, how far the default PrAM was from PrDT's best in
validation, and where the rule fires: automatic selection's two searches as it sets them up (seed 0), PrDT's
whole and PrAM's up to its default trial.

Usage:
  python benchmarks/far_behind.py run reports/benchmarks/far_behind.jsonl [--tables NAME ...]
  python benchmarks/far_behind.py summarize reports/benchmarks/far_behind.jsonl
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings

import numpy as np

import sampled_tables
import tabular_suite as suite
from suite_tables import TABLES, load_table

#: Draws of sampled_tables.py with results (draw 5 was never run; draw 6 in part, see its JSON).
DRAWS = (1, 2, 3, 4, 6)


def tables() -> tuple[dict, list]:
    """A loader of (table, folds) for every table of the suite and of :data:`DRAWS`, by name, and the names of
    those read so far (the suite's, and the draws' with results)."""
    found = {name: (lambda name=name: _suite_table(name)) for name in TABLES}
    read = list(TABLES)
    for number in DRAWS:
        done = json.loads(sampled_tables.json_path(number).read_text())["tables"]
        for name, spec in sampled_tables.draw(number).items():
            found[name] = lambda spec=spec: sampled_tables.table_and_folds(spec)
            read += [name] if name in done else []
    return found, read


def _suite_table(name: str):
    table = load_table(name)
    return table, suite.folds_for(table, 5, 1)


def measure(name: str, load) -> dict:
    """The searches automatic selection runs on the first fold, as it configures them, up to the rule's decision:
    PrDT's whole search, then PrAM's default trial (told to stop there: the rule looks at nothing else, since a
    default far behind skips the starts too)."""
    from primo.selection import FAR_BEHIND

    import primo

    table, folds = load()
    train, _ = folds[0]
    X, y = table.X.iloc[train], table.y.iloc[train]
    auto = (primo.PrimoRegressor if table.task == "regression" else primo.PrimoClassifier)(
        progress=False, random_state=0)
    searches = auto._searches(X, len(y))
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prdt = searches["prdt"].fit(X, y).trials_
        pram = searches["pram"].set_params(stop_above=0.0).fit(X, y).trials_
    default = pram.loc[pram["source"] == "estimator"].iloc[0]
    best_tree = float(prdt["relative_loss"].min())
    ratio = float(default["relative_loss"]) / best_tree if best_tree > 0 else None
    return {"table": name, "task": table.task, "rows": len(train), "fit_s": time.perf_counter() - start,
            "prdt_best_relative_loss": best_tree, "pram_default_relative_loss": float(default["relative_loss"]),
            "ratio": ratio, "pram_default_fit_s": float(default["fit_time"]),
            "stopped": float(default["relative_loss"]) > FAR_BEHIND * best_tree}


def summarize(path: str) -> None:
    from primo.selection import FAR_BEHIND

    rows = [json.loads(line) for line in open(path)]
    ratios = np.array([r["ratio"] if r["ratio"] is not None else np.inf for r in rows])
    print(f"{len(rows)} tables, first fold; FAR_BEHIND = {FAR_BEHIND:g}")
    print(f"default PrAM's validated relative loss / PrDT's best: median {np.median(ratios):.2f}, "
          f"90th percentile {np.percentile(ratios, 90):.2f}; above 2 on {int((ratios > 2).sum())}, "
          f"above {FAR_BEHIND:g} on {int((ratios > FAR_BEHIND).sum())}")
    for row in sorted(rows, key=lambda r: -(r["ratio"] if r["ratio"] is not None else np.inf))[:10]:
        ratio = "inf" if row["ratio"] is None else f"{row['ratio']:.2f}"
        print(f"  {row['table']:16} ratio {ratio:>7}  PrDT {row['prdt_best_relative_loss']:.4g}  "
              f"PrAM default {row['pram_default_relative_loss']:.4g} ({row['pram_default_fit_s']:.1f} s)  "
              f"{'STOPPED' if row['stopped'] else ''}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    runner = commands.add_parser("run")
    runner.add_argument("out")
    runner.add_argument("--tables", nargs="+", help="any table of the suite or of the draws (default: every table "
                                                    "read so far not yet in OUT)")
    summary = commands.add_parser("summarize")
    summary.add_argument("path")
    args = parser.parse_args(argv)
    if args.command == "summarize":
        summarize(args.path)
        return 0
    known, read = tables()
    try:
        done = {json.loads(line)["table"] for line in open(args.out)}
    except FileNotFoundError:
        done = set()
    for name in args.tables or [n for n in read if n not in done]:
        row = measure(name, known[name])
        print(json.dumps(row), flush=True)
        with open(args.out, "a") as handle:
            handle.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
