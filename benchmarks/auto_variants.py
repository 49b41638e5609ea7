"""Automatic selection's defaults, compared on the development tables (issue 16).

A *variant* is a label and the keyword arguments of ``PrimoClassifier``/``PrimoRegressor``
(``'{"n_trials": 10}'``); labels starting with ``pram`` are ``PrAMClassifier``/``PrAMRegressor`` with
those arguments (``pram_default``: ``'{}'``), and ``ebm`` is interpret's EBM defaults, as the suite builds it. Every variant
runs on the suite's first 5 folds of each of its development tables (``tabular_suite.folds_for``:
the same test rows as the suite's first repeat), or on the 3 folds of ``sampled_tables.py`` for the
development tables of its first draw, with ``random_state`` = fold number, so variants are paired by fold and
seed. Each (table, variant, fold) is one JSON line: the suite's test metrics, pieces, fit seconds,
for a PrAM kept or fitted the share of its bags whose boosting stopped at ``max_rounds`` instead of
early stopping (:func:`capped_bags`), and, for automatic selection, the chosen family, parameters and
trial source (search, shrink, simplify, estimator or path). Only development tables are accepted: this script informs defaults.
``--used-held-out`` admits the held-out tables of the first :data:`USED_DRAWS` draws of ``sampled_tables.py``
as well: they have been read to diagnose failures since, so they are development tables for any new
question, and what they suggest must be confirmed on a later draw nobody has looked at.
``--confirm-draw N`` admits draw N's held-out tables for such a confirmation, whose criterion was written
before the run; the tables it runs are read from then on (say so where their results are reported).

A variant of an earlier commit runs from a checkout of that commit: in a virtualenv where that checkout is
installed (``PYTHONPATH=/path/to/checkout`` does not override an editable install of the project, whose
import hook comes first); the label records what it was.

Usage:
  python benchmarks/auto_variants.py run OUT.jsonl new10 '{"n_trials": 10}' --tables diabetes wine
  python benchmarks/auto_variants.py run OUT.jsonl pram_default '{}'
  python benchmarks/auto_variants.py summarize OUT.jsonl --reference pram_default
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
import time
import warnings
from collections import Counter, defaultdict

import numpy as np

import sampled_tables
import tabular_suite as suite
from primo.report.claims import paired_bootstrap
from suite_tables import TABLES, load_table

FOLDS = 5
SUITE_DEVELOPMENT = [name for name, spec in TABLES.items() if spec.role == "development"]
#: The development tables of sampled_tables.py's first draw, on the 3 folds that benchmark uses.
SAMPLED_DEVELOPMENT = {name: spec for name, spec in sampled_tables.draw(1).items() if spec.role == "development"}
DEVELOPMENT = SUITE_DEVELOPMENT + list(SAMPLED_DEVELOPMENT)
#: Draws of sampled_tables.py whose held-out tables were read after their runs (``--used-held-out``).
USED_DRAWS = 3


def held_out_tables(number: int) -> dict:
    """The held-out tables of draw ``number``, by name."""
    return {name: spec for name, spec in sampled_tables.draw(number).items() if spec.role == "held_out"}


@functools.lru_cache(maxsize=1)
def used_held_out() -> dict:
    """The held-out tables of the first :data:`USED_DRAWS` draws, by name."""
    return {name: spec for number in range(1, USED_DRAWS + 1) for name, spec in held_out_tables(number).items()}


def confirmation_tables(number: int | None) -> dict:
    """The held-out tables of draw ``number`` (none for None), by name."""
    return {} if number is None else held_out_tables(number)


def sampled_spec(name: str, confirm_draw: int | None = None):
    """The sampled table's spec: development, used held-out or in the confirmation draw (None for a suite table)."""
    return SAMPLED_DEVELOPMENT.get(name) or used_held_out().get(name) or confirmation_tables(confirm_draw).get(name)


def development_table(name: str, confirm_draw: int | None = None):
    """A development table and the folds its benchmark scores it on (the suite's first repeat, or 3)."""
    spec = sampled_spec(name, confirm_draw)
    if spec is not None:
        return sampled_tables.table_and_folds(spec)
    table = load_table(name)
    return table, suite.folds_for(table, FOLDS, 1)


def build(label: str, kwargs: dict, task: str, X, fold: int):
    """The estimator a variant fits on one fold."""
    import primo

    regression = task == "regression"
    if label == "ebm":
        return suite.ebm(task, X)
    if label.startswith("pram"):
        return (primo.PrAMRegressor if regression else primo.PrAMClassifier)(**kwargs)
    return (primo.PrimoRegressor if regression else primo.PrimoClassifier)(progress=False, random_state=fold,
                                                                           **kwargs)


def chosen_trial(model) -> dict:
    """Family, parameters and trial source of an automatic selection's kept model."""
    report = model.selection_report_
    params = report.loc[report["selected"], "params"].iloc[0]
    trials = model.searches_[model.best_family_].trials_
    source = trials.loc[trials["params"].map(lambda p: p == params), "source"]
    return {"chosen_family": model.best_family_, "params": str(params),
            "source": str(source.iloc[0]) if len(source) else "unknown"}


def capped_bags(model) -> dict | None:
    """Share of a PrAM's bags, per boosting stage, that ran out of rounds (``PrAMRegressor.bags_out_of_rounds``)."""
    pram = getattr(model, "best_estimator_", model)
    return pram.bags_out_of_rounds() if hasattr(pram, "bags_out_of_rounds") else None


def run(out: str, label: str, kwargs: dict, tables: list[str], confirm_draw: int | None = None) -> None:
    for name in tables:
        table, folds = development_table(name, confirm_draw)
        for fold, (train, test) in enumerate(folds):
            model = build(label, kwargs, table.task, table.X, fold)
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(table.X.iloc[train], table.y.iloc[train])
            row = {"table": name, "task": table.task, "variant": label, "fold": fold,
                   "fit_s": time.perf_counter() - start,
                   **suite.score(table.task, model, table.X.iloc[test], table.y.iloc[test]),
                   "pieces": suite.model_size(model).get("pieces"), "capped_bags": capped_bags(model)}
            if hasattr(model, "selection_report_"):
                row.update(chosen_trial(model))
            print(json.dumps(row), flush=True)
            with open(out, "a") as handle:
                handle.write(json.dumps(row) + "\n")


def summarize(paths: list[str], reference: str) -> None:
    """Per table and variant: mean headline loss, paired difference to ``reference`` over folds, size, time."""
    results = defaultdict(dict)
    for path in paths:
        with open(path) as handle:
            for line in handle:
                row = json.loads(line)
                results[(row["table"], row["variant"])][row["fold"]] = row
    tables = sorted({table for table, _ in results})
    variants = sorted({variant for _, variant in results})
    print(f"| table | variant | folds | headline loss | − {reference}, mean [95% bootstrap] (median) | "
          "pieces (median) | fit s (median) | bags out of rounds, main/pairs (mean) | kept trial source |")
    print("|---|---|---|---|---|---|---|---|---|")
    relative = defaultdict(list)  # variant -> its mean loss relative to the reference's, one per table
    for table in tables:
        recorded = [row["task"] for (name, _), folds in results.items() if name == table
                    for row in folds.values() if "task" in row]
        task = recorded[0] if recorded else TABLES[table].task  # rows written before "task" are the suite's
        metric = "mae" if task == "regression" else "log_loss"
        base = results.get((table, reference), {})
        for variant in variants:
            rows = results.get((table, variant))
            if not rows:
                continue
            folds = sorted(rows)
            loss = np.mean([rows[f][metric] for f in folds])
            paired = [f for f in folds if f in base]
            if variant != reference and len(paired) == len(folds):
                d = paired_bootstrap([rows[f][metric] for f in paired], [base[f][metric] for f in paired])
                versus = f"{d.mean:+.4g} [{d.low:+.4g}, {d.high:+.4g}] ({d.median:+.4g})"
            else:
                versus = "–"
            sources = Counter(rows[f].get("source", "–") for f in folds)
            if versus != "–":
                relative[variant].append(loss / np.mean([base[f][metric] for f in folds]) - 1)
            print(f"| {table} | {variant} | {len(folds)} | {metric} {loss:.4g} | {versus} | "
                  f"{np.median([rows[f]['pieces'] for f in folds]):.0f} | "
                  f"{np.median([rows[f]['fit_s'] for f in folds]):.1f} | {_capped_cell([rows[f] for f in folds])} | "
                  f"{', '.join(f'{s} {n}' for s, n in sources.most_common())} |")
    print()
    for variant, values in sorted(relative.items()):
        print(over_tables(variant, reference, values))


def _capped_cell(rows: list[dict]) -> str:
    """Mean share of bags out of rounds per stage over folds ("–" for rows without a PrAM or not recorded)."""
    capped = [row["capped_bags"] for row in rows if row.get("capped_bags")]
    if not capped:
        return "–"
    return " / ".join(f"{np.mean([c[stage] for c in capped]):.0%}" for stage in ("main", "pairs"))


def over_tables(variant: str, reference: str, relative: list[float]) -> str:
    """One line: on how many tables ``variant``'s loss is below ``reference``'s, and the median relative
    difference with its bootstrap 95% interval over tables (tables, not folds, are the units)."""
    values = np.asarray(relative)
    line = (f"{variant} against {reference} over {values.size} tables: lower loss on {int((values < 0).sum())}, "
            f"higher on {int((values > 0).sum())}; median relative difference {np.median(values):+.2%}")
    if values.size > 1:
        low, high = suite.median_interval(values)
        line += f" [{low:+.2%}, {high:+.2%}] (bootstrap over tables)"
    return line


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    runner = commands.add_parser("run")
    runner.add_argument("out")
    runner.add_argument("label")
    runner.add_argument("kwargs", type=json.loads)
    runner.add_argument("--tables", nargs="+", default=DEVELOPMENT, help="default: every development table")
    runner.add_argument("--used-held-out", action="store_true",
                        help=f"admit the held-out tables of draws 1-{USED_DRAWS} (see the docstring)")
    runner.add_argument("--confirm-draw", type=int, default=None,
                        help="admit this draw's held-out tables, for a confirmation (see the docstring)")
    summary = commands.add_parser("summarize")
    summary.add_argument("paths", nargs="+")
    summary.add_argument("--reference", default="pram_default")
    args = parser.parse_args(argv)
    if args.command == "run":
        allowed = (DEVELOPMENT + (list(used_held_out()) if args.used_held_out else [])
                   + list(confirmation_tables(args.confirm_draw)))
        refused = [name for name in args.tables if name not in allowed]
        if refused:
            parser.error(f"not a development table: {', '.join(refused)}"
                         + ("" if args.used_held_out else
                            f" (--used-held-out admits draws 1-{USED_DRAWS}'s held-out tables)"))
        run(args.out, args.label, args.kwargs, args.tables, args.confirm_draw)
    else:
        summarize(args.paths, args.reference)


if __name__ == "__main__":
    sys.exit(main())
