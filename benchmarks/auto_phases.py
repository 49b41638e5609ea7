"""Where automatic selection's fit time goes, phase by phase, on tables of the tabular suite.

``python benchmarks/auto_phases.py affairs titanic`` fits ``PrimoClassifier()``/``PrimoRegressor()``
(``random_state=0``) once on every row of each table and prints the wall seconds spent in each phase:
the PrDT pruning search, the PrAM search (every trial, with inside it the race's completion on the
remaining folds, the shrink trials and the simplification path) and the refit of the kept trial.
Phases are timed by wrapping the searches' methods, so nothing in Primo changes; a phase that
calls another is printed with it indented. Wall time on the machine as it is: run it idle.
"""
from __future__ import annotations

import argparse
import collections
import functools
import sys
import time
import warnings

import primo
from primo.search import pruning, searchers

from suite_tables import TABLES, load_table

PHASES = (
    (pruning.PruningSearch, "fit", "PrDT pruning search"),
    (searchers._SequentialSearch, "_run_trials", "PrAM search (every trial)"),
    (searchers._SequentialSearch, "_complete_race", "  race completion"),
    (searchers._SequentialSearch, "_shrink", "  shrink trials"),
    (searchers._SequentialSearch, "_simplify", "  simplification path"),
    (searchers._BaseSearch, "_refit_model", "refit of the kept trial"),
)


def timed_phases(spent: dict[str, float]) -> None:
    """Wrap each phase's method so that its wall seconds add up in ``spent`` under its label."""
    for owner, name, label in PHASES:
        original = getattr(owner, name)

        @functools.wraps(original)
        def wrapper(*args, _original=original, _label=label, **kwargs):
            start = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                spent[_label] += time.perf_counter() - start

        setattr(owner, name, wrapper)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="+", choices=sorted(TABLES))
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    spent: dict[str, float] = collections.defaultdict(float)
    timed_phases(spent)
    for name in args.tables:
        table = load_table(name)
        spent.clear()
        auto = primo.PrimoRegressor if table.spec.task == "regression" else primo.PrimoClassifier
        start = time.perf_counter()
        model = auto(random_state=0, progress=False).fit(table.X, table.y)
        total = time.perf_counter() - start
        print(f"{name}: {len(table.X)} rows, {total:.1f} s in all; kept {type(model.best_estimator_).__name__} "
              f"of size {model.best_estimator_.size_:g}")
        for _, _, label in PHASES:
            print(f"  {label:28s} {spent.get(label, 0.0):7.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
