"""Automatic selection at two revisions, paired: the same sampled tables, folds and search seeds (issue 16).

``sampled_tables.py`` calls ``PrimoRegressor()``/``PrimoClassifier()`` unseeded, so two of its runs differ by
the seeds their searches drew as well as by the code. To judge a change of defaults, this script runs auto
fold by fold with ``random_state=SEED_BASE + fold`` at the checkout it is run from and appends one JSON line
per fold; running it from a checkout of each revision gives paired rows, and ``--compare`` prints the
paired table. Each fold runs in its own process with a time cap: a fold cut at the cap is a row of its own
(its loss is not compared) and the table's other folds are not run.

Usage (from the root of each checkout; tables as ``DRAW:NAME`` of ``sampled_tables.py``)::

    python benchmarks/paired_auto.py --out base.jsonl --cap-s 600 7:nycflights 8:fastfood
    python benchmarks/paired_auto.py --compare base.jsonl variant.jsonl
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sampled_tables import N_FOLDS  # noqa: E402
from tabular_suite import HEADLINE  # noqa: E402  (the loss each task is judged on)

from primo.report.claims import paired_bootstrap  # noqa: E402

SEED_BASE = 1000


def _one_fold(number: int, name: str, fold: int) -> dict:
    """Fit and score seeded auto on one fold (run in a child process)."""
    import sampled_tables as sampled
    import tabular_suite as suite

    warnings.simplefilter("ignore")
    make = suite.CONTENDERS["primo_auto"]
    suite.CONTENDERS["primo_auto"] = lambda task, X: make(task, X).set_params(random_state=SEED_BASE + fold)
    table, folds = sampled.table_and_folds(sampled.draw(number)[name])
    row = suite.run_contender("primo_auto", table, [folds[fold]])[0]
    return {"draw": number, "table": name, "task": table.task, **row, "fold": fold}


def run(tables: list[str], out: Path, cap_s: float) -> None:
    revision = _revision()
    for item in tables:
        number, name = item.split(":", 1)
        for fold in range(N_FOLDS):
            start = time.perf_counter()
            child = subprocess.Popen([sys.executable, __file__, "--one", number, name, str(fold)],
                                     stdout=subprocess.PIPE, text=True, start_new_session=True)
            try:
                output, _ = child.communicate(timeout=cap_s)
                lines = [line for line in output.splitlines() if line.startswith("{")]
                row = json.loads(lines[-1]) if lines else {"failed": f"exit code {child.returncode}"}
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)  # the fold and its worker processes
                child.communicate()
                row = {"cut_at_s": cap_s}
            row = {"draw": int(number), "table": name, "fold": fold, **row,
                   "wall_s": round(time.perf_counter() - start, 1), "revision": revision}
            with out.open("a") as stream:
                stream.write(json.dumps(row, default=str) + "\n")
            print(json.dumps({k: row.get(k) for k in ("table", "fold", "fit_s", "cut_at_s", "failed")}), flush=True)
            if "cut_at_s" in row:
                break


def _revision() -> str:
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent).stdout.strip()


def _rows(path: Path) -> dict:
    rows = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        rows[(row["table"], row["fold"])] = row
    return rows


def compare(base_path: Path, variant_path: Path) -> list[str]:
    """Per table: mean loss of both, relative change, fit seconds, pieces; then the medians over tables."""
    base, variant = _rows(base_path), _rows(variant_path)
    tables = list(dict.fromkeys(table for table, _ in variant))
    lines = ["| table | loss: base → variant | change | fit s a fold: base → variant | pieces: base → variant |",
             "|---|---|---|---|---|"]
    changes, time_ratios = [], []
    for table in tables:
        pairs = [(base.get((table, f)), variant[(table, f)]) for f in range(N_FOLDS) if (table, f) in variant]
        refused = [v for _, v in pairs if "crash" in v]
        if refused:
            both = all(b is not None and "crash" in b for b, _ in pairs)
            lines.append(f"| {table} | {'both' if both else 'the variant'} failed: "
                         f"{refused[0]['crash']['message'][:80]}… | | | |")
            continue
        cut = [b for b, _ in pairs if b is not None and "cut_at_s" in b]
        done = [(b, v) for b, v in pairs if b is not None and "fit_s" in b and "fit_s" in v]
        fits_v = [v["fit_s"] for _, v in pairs if "fit_s" in v]
        if cut or not done:
            base_text = f"cut at {cut[0]['cut_at_s']:.0f} s" if cut else "not run"
            lines.append(f"| {table} | {base_text} → {np.mean([v[HEADLINE[v['task']]] for _, v in pairs]):.4g} | – | "
                         f"{base_text} → {min(fits_v):.0f}–{max(fits_v):.0f} | – |")
            if cut:
                time_ratios.append(np.median(fits_v) / cut[0]["cut_at_s"])  # at most: the base fold was cut
            continue
        headline = HEADLINE[done[0][1]["task"]]
        loss_b = np.mean([b[headline] for b, _ in done])
        loss_v = np.mean([v[headline] for _, v in done])
        change = (loss_v - loss_b) / loss_b if loss_b > 0 else 0.0
        changes.append(change)
        fit_b = [b["fit_s"] for b, _ in done]
        fit_v = [v["fit_s"] for _, v in done]
        time_ratios.append(np.median(np.divide(fit_v, fit_b)))
        pieces = [(b["size"].get("pieces"), v["size"].get("pieces")) for b, v in done]
        lines.append(f"| {table} | {headline} {loss_b:.4g} → {loss_v:.4g} | {change:+.1%} | "
                     f"{np.median(fit_b):.0f} → {np.median(fit_v):.0f} | "
                     f"{', '.join(f'{b}→{v}' for b, v in pieces)} |")
    if changes:
        # Relative changes paired by table, against zero: the bootstrap interval of their mean.
        change = paired_bootstrap(changes, np.zeros(len(changes)))
        lines += ["", f"Tables compared on loss: {len(changes)}; relative change of mean loss: median "
                      f"{change.median:+.2%}, mean {change.mean:+.2%} [{change.low:+.2%}, {change.high:+.2%}], "
                      f"worst {max(changes):+.2%}. Fit-time ratio (variant / base, median of each table's folds; "
                      f"a cut base fold counts at the cap): median {np.median(time_ratios):.2f} over "
                      f"{len(time_ratios)} tables."]
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="*", help="DRAW:NAME of sampled_tables.py")
    parser.add_argument("--out", type=Path, help="JSONL to append a row per fold to")
    parser.add_argument("--cap-s", type=float, default=600.0, help="time cap of one fold (default 600 s)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BASE", "VARIANT"))
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        number, name, fold = args.one
        print(json.dumps(_one_fold(int(number), name, int(fold)), default=str), flush=True)
    elif args.compare:
        print("\n".join(compare(*args.compare)))
    elif args.tables and args.out:
        run(args.tables, args.out, args.cap_s)
    else:
        parser.error("give tables and --out, or --compare BASE VARIANT")
    return 0


if __name__ == "__main__":
    sys.exit(main())
