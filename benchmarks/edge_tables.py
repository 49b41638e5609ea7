"""Every path on tables built to be awkward: fit → held-out predictions → save/load → every export.

Where ``fresh_tables.py`` takes real tables nobody tuned for, this one builds the columns, names and targets
a user (or an attacker writing a CSV) can hand Primo: non-text, empty and hostile column names, hostile
category values and class labels (quotes, ``]]``, newlines, ``os.exit``, ``${}``), 1,500 distinct strings in
400 rows, pandas' nullable dtypes, Arrow-backed columns (as Parquet reads them), ``Decimal`` objects (as a SQL
``NUMERIC`` column reads) and Python floats in an ``object`` column, booleans, a column missing on every row,
magnitudes near float64's limits, a target of 1e15, 50 classes of 8 rows, 300 columns on 150 rows, 12 rows.
Each case says what must happen:

* ``fits``: PrimoRegressor/PrimoClassifier (6 trials), the default PrDT and a short PrAM fit on the first 75%
  of the rows, and on the rest the reloaded model file, compiled Python, ONNX, Lua, JavaScript and C must
  reproduce ``predict`` (a relative tolerance of 1e-12 on top of ``fresh_tables``' absolute one: a target
  of 1e15 sums to other last bits in another order), integer-mode C must run its quantized model (as
  ``fresh_tables`` checks it) and the HTML report must build; no search trial may
  fail unless a family refuses the table;
* ``refused``: the fit raises an :class:`primo.errors.InputError` (or ``ColumnMismatchError``) naming the
  argument or column at fault.

One line per (table, model): ``OK`` or the problems. Exit status 1 when any line is not OK.

Usage (from the repository root; gcc, node and lua5.1 on PATH)::

    PYTHONPATH=. python benchmarks/edge_tables.py [--tables "wide 150x300"] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import warnings
from pathlib import Path

from decimal import Decimal

import numpy as np
import pandas as pd
import pyarrow as pa

from primo import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor, PrimoClassifier, PrimoRegressor
from primo.errors import InputError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fresh_tables import export_problems  # noqa: E402  (the same checks of every path)

N_ROWS = 400
HOSTILE_NAMES = ['x"); os.system("id"); //', "y\n*/ ]]--é中"]
HOSTILE_VALUES = ['"; drop', "\\", "]]", "\n", "é", "`${x}`"]
HOSTILE_LABELS = ['"); alert(1); //', "]]\n--"]
PRAM_REFUSES = {"auto": "fits", "prdt": "fits", "pram": "refused"}
PRDT_REFUSES = {"auto": "fits", "prdt": "refused", "pram": "fits"}


def _tables():
    """name -> (X, y, task, expected ("fits", "refused", or one of them per model), what a refusal must name)."""
    rng = np.random.default_rng(0)
    base = pd.DataFrame({"a": rng.normal(size=N_ROWS), "b": rng.integers(0, 5, N_ROWS).astype(float)})
    y = base["a"] * 2 + base["b"] + rng.normal(size=N_ROWS) * 0.3
    labels = np.where(y > y.median(), "hi", "lo")
    city = pd.Series(rng.choice([f"c{i}" for i in range(1500)], N_ROWS))
    mixed = pd.Series(np.where(rng.random(N_ROWS) > 0.5, rng.integers(0, 3, N_ROWS).astype(object), "s"), dtype=object)
    ints = pd.Series(rng.integers(0, 9, N_ROWS), dtype="Int64")
    ints[rng.random(N_ROWS) < 0.1] = pd.NA
    wide = pd.DataFrame(rng.normal(size=(150, 300)), columns=[f"w{i}" for i in range(300)])
    # As pd.read_parquet(..., dtype_backend="pyarrow") gives them; a SQL NUMERIC column reads as Decimal objects.
    arrow = pd.DataFrame({"a": pd.array(base["a"].where(rng.random(N_ROWS) > 0.1).astype(object).where(lambda s: s.notna(), None),
                                        dtype=pd.ArrowDtype(pa.float64())),
                          "b": pd.array(base["b"].astype(int), dtype=pd.ArrowDtype(pa.int64())),
                          "s": pd.array(rng.choice(["u", "v", None], N_ROWS), dtype=pd.ArrowDtype(pa.string())),
                          "flag": pd.array(rng.random(N_ROWS) > 0.5, dtype=pd.ArrowDtype(pa.bool_()))})
    decimals = base.assign(a=[Decimal(f"{v:.4f}") for v in base["a"]])
    return {
        "int column names": (base.set_axis([0, 1], axis=1), y, "regression", "fits", None),
        "hostile column names": (base.set_axis(HOSTILE_NAMES, axis=1), y, "regression", "fits", None),
        "duplicate column names": (base.set_axis(["a", "a"], axis=1), y, "regression", "refused", "a"),
        "empty column name": (base.set_axis(["", "b"], axis=1), y, "regression", "fits", None),
        "1,500 distinct strings": (base.assign(city=city), y + city.str[1:].astype(int) % 3, "regression", "fits", None),
        "hostile category values": (base.assign(c=rng.choice(HOSTILE_VALUES, N_ROWS)), labels, "classification", "fits",
                                    None),
        "hostile class labels": (base, np.where(y > 0, *HOSTILE_LABELS), "classification", "fits", None),
        "bool column, bool target": (base.assign(f=rng.random(N_ROWS) > 0.5), y > 0, "classification", "fits", None),
        "int class labels": (base, (y > 0).astype(int) * 7 - 3, "classification", "fits", None),
        "mixed object column": (base.assign(m=mixed), y, "regression", "fits", None),
        "nullable dtypes": (base.assign(i=ints, flag=pd.array([True, False, None, True] * (N_ROWS // 4), dtype="boolean"),
                                        s=pd.array(rng.choice(["u", "v", None], N_ROWS), dtype="string"),
                                        f=pd.array(rng.normal(size=N_ROWS), dtype="Float64")), y, "regression", "fits",
                            None),
        "all-missing column": (base.assign(z=np.nan), y, "regression", "fits", None),
        "constant column": (base.assign(k=1.0), y, "regression", "fits", None),
        "constant target": (base, np.full(N_ROWS, 3.0), "regression", "fits", None),
        "tiny magnitudes": (base * 1e-300, y, "regression", "fits", None),
        "target of 1e15": (base, y * 1e15, "regression", "fits", None),
        "50 classes of 8 rows": (base, np.repeat(np.arange(50), N_ROWS // 50).astype(str), "classification", "fits",
                                 None),
        "wide 150x300": (wide, wide["w0"] + rng.normal(size=150), "regression", "fits", None),
        "12 rows": (base.head(12), y.head(12), "regression", "fits", None),
        "Arrow-backed columns": (arrow, y, "regression", "fits", None),
        "Decimal objects": (decimals, y, "regression", "fits", None),
        "numbers in an object column": (base.assign(a=base["a"].astype(object).where(rng.random(N_ROWS) > 0.1, None)), y,
                                        "regression", "fits", None),
        "float class labels": (base, np.where(y > 0, 0.5, 1.5), "classification", "refused", "y"),
        # scikit-learn's contract: a one-class tree is valid (it predicts that class); PrAM refuses one class,
        # so automatic selection keeps the tree (its PrAM trials fail, with a warning).
        "one class": (base, np.full(N_ROWS, "x"), "classification", PRAM_REFUSES, "y"),
        "missing targets": (base, y.where(rng.random(N_ROWS) > 0.1), "regression", "refused", "y"),
        # PrAM reads infinity as beyond every bin edge; a PrDT works in float32 and refuses it, so automatic
        # selection keeps a PrAM (with a warning naming the column PrDT refused).
        "infinity in a column": (base.assign(a=base["a"].where(rng.random(N_ROWS) > 0.05, np.inf)), y, "regression",
                                 PRDT_REFUSES, "a"),
        "beyond float32": (base * 1e300, y, "regression", PRDT_REFUSES, "a"),
    }


def _models(task: str) -> dict:
    classification = task == "classification"
    short_pram = dict(outer_bags=2, max_rounds=300, random_state=0)
    return {
        "auto": (PrimoClassifier if classification else PrimoRegressor)(n_trials=6, random_state=0, progress=False),
        "prdt": (PrDTClassifier if classification else PrDTRegressor)(random_state=0),
        "pram": (PrAMClassifier if classification else PrAMRegressor)(**short_pram),
    }


def _refusal_problems(error: Exception, names: str) -> list[str]:
    """Nothing when ``error`` is a refusal that names ``names`` (an argument or a column)."""
    if isinstance(error, InputError) and names in (error.argument, error.column):
        return []
    return [f"refused without naming {names!r}: {type(error).__name__}: {error}"]


def run_table(name: str, X, y, task: str, expected: str, names) -> list[dict]:
    y = pd.Series(np.asarray(y))
    cut = int(len(y) * 0.75)
    rows = []
    for label, estimator in _models(task).items():
        wanted = expected if isinstance(expected, str) else expected[label]
        row = {"table": name, "model": label, "expected": wanted}
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fitted = estimator.fit(X.iloc[:cut], y.iloc[:cut])
            except Exception as error:  # a benchmark reports every failure, whatever its type
                problems = (_refusal_problems(error, names) if wanted == "refused"
                            else [f"fit raised {type(error).__name__}: {error}"])
                rows.append({**row, "status": "refused", "fit_s": time.perf_counter() - start, "problems": problems})
                continue
            fit_s = time.perf_counter() - start
            if wanted == "refused":
                problems = ["fitted, but this table must be refused"]
            else:
                model = getattr(fitted, "best_estimator_", fitted)
                problems, row["integer_c"] = export_problems(model, X.iloc[cut:], y.iloc[cut:], Path(directory))
                failed = sum(int(s.trials_["error"].notna().sum()) for s in getattr(fitted, "searches_", {}).values())
                if failed and expected == "fits":  # a family that refuses the table fails its trials
                    problems.append(f"{failed} search trials failed")
            rows.append({**row, "status": "fitted", "family": type(getattr(fitted, "best_estimator_", fitted)).__name__,
                         "fit_s": fit_s, "problems": problems})
    return rows


def main(argv=None) -> int:
    tables = _tables()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=list(tables), choices=list(tables))
    parser.add_argument("--json", default=None, help="write every row here")
    args = parser.parse_args(argv)
    rows = []
    for name in args.tables:
        for row in run_table(name, *tables[name]):
            rows.append(row)
            print(f"{row['table']:26s} {row['model']:5s} {row.get('family', '-'):15s} {row['status']:8s} "
                  f"fit {row['fit_s']:6.1f} s  " + ("OK" if not row["problems"] else "PROBLEMS: " + "; ".join(row["problems"])),
                  flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=float))
    bad = [f"{r['table']}/{r['model']}" for r in rows if r["problems"]]
    print(f"{len(rows) - len(bad)} of {len(rows)} OK" + (f"; problems: {', '.join(bad)}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
