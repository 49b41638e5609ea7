"""Start-up cost of the ``primo`` command: ``--help``, and ``predict`` on a small CSV.

``python benchmarks/cli_startup.py [--repeat 7] [--rows 20]``

Each command runs as a fresh process (as a user runs it); the table gives the median wall time and
the median CPU time (user + system) of the child over ``--repeat`` runs, beside a bare
``python -c pass`` for the interpreter's own start. ``predict`` runs a PrDT and a PrAM fitted
(outside the timing) on a synthetic table of ``--rows`` rows, so almost all of its time is
overhead: imports, reading the model file and the CSV, writing the predictions. The libraries
each command imported (numpy, pandas, scikit-learn, interpret) are listed from ``sys.modules``.
``predict`` reads the model file's tables (``primo.export.saved``) and never builds the scikit-learn
or interpret estimator, so "import the libraries" (pandas, scikit-learn's trees, interpret's EBM)
is the floor it no longer pays; numpy and pandas (the CSV reader) are most of what remains.
CPU time is less sensitive than wall time to other processes on a shared machine.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HEAVY = ("numpy", "pandas", "scipy", "sklearn", "interpret", "skopt")
# runs the CLI in-process after its imports are timed by the child itself
_CHILD = ("import sys, runpy; sys.argv = ['primo', *sys.argv[1:]]\n"
          "try:\n    runpy.run_module('primo.cli', run_name='__main__')\n"
          "except SystemExit:\n    pass\n"
          f"print('LOADED', *[m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)\n")


def timed_run(args: list[str]) -> tuple[float, float, list[str]]:
    """(wall s, child CPU s, heavy libraries imported) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {done.stderr[-500:]}")
    loaded = next((line.split()[1:] for line in done.stderr.splitlines() if line.startswith("LOADED")), [])
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), loaded


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--rows", type=int, default=20, help="rows of the CSV predicted on")
    args = parser.parse_args(argv)

    from primo import PrAMRegressor, PrDTRegressor

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(500, 4)), columns=["a", "b", "c", "d"])
    y = X["a"] * 2 + X["b"] * X["c"] + rng.normal(scale=0.1, size=500)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        PrDTRegressor(max_depth=6).fit(X, y).save(folder / "prdt.primo")
        PrAMRegressor(max_rounds=200, outer_bags=1, n_jobs=1).fit(X, y).save(folder / "pram.primo")
        X.iloc[:args.rows].to_csv(folder / "rows.csv", index=False)
        commands = {
            "python -c pass": ["-c", "pass"],
            # the floor of predict: the libraries a fitted model is made of, nothing of Primo's
            "import the libraries": ["-c", "import pandas, sklearn.tree, interpret.glassbox"],
            "primo --help": ["-c", _CHILD, "--help"],
            "primo predict (PrDT)": ["-c", _CHILD, "predict", str(folder / "prdt.primo"), str(folder / "rows.csv"),
                                     "--out", str(folder / "out.csv")],
            "primo predict (PrAM)": ["-c", _CHILD, "predict", str(folder / "pram.primo"), str(folder / "rows.csv"),
                                     "--out", str(folder / "out.csv")],
        }
        print(f"primo start-up, {args.repeat} fresh processes each, {args.rows}-row CSV, "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
        print(f"{'command':24s}{'wall median s':>15s}{'CPU median s':>14s}  libraries imported")
        for name, command in commands.items():
            runs = [timed_run(command) for _ in range(args.repeat)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            print(f"{name:24s}{wall:15.3f}{cpu:14.3f}  {', '.join(runs[0][2]) or '-'}")
    print("targets (issue 19): primo --help < 0.3 s; primo predict on a small CSV < 1 s of overhead")


if __name__ == "__main__":
    main()
