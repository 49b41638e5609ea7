"""Which trial automatic selection keeps, judged on test rows: rules compared on the same fits (issue 16).

For each development table and fold (``auto_variants.py``'s folds, ``random_state`` = ``--seed`` +
fold, so a rerun with another ``--seed`` draws other validation folds and search points), one
automatic selection is fitted, and every PrAM candidate a rule could keep is refit on the fold's
training rows (as selection refits its pick) and scored on its test rows: the simplification path (one
refit of its base configuration, then ``PrAM.simplified`` for each step: the same model as fitting
it), the base configuration, the default-estimator trial and every other trial the default rule before
2026-11-29 (one paired standard error, whatever the folds' majority) finds within noise; the PrDT
family's finalist is scored too. A *rule* is a function of the validated trials alone;
:func:`summarize` applies each rule of :data:`RULES` offline and reads its pick's test loss from
the record, so rules are compared on the very same fits, paired by fold. A pick without a recorded
test loss (a PrDT subtree other than the family's finalist, the only one refit, or a trial outside the
noise band, which only a rule that is not stricter can pick) is counted and its fold
left out of that rule's tables.

Only development tables are accepted (this script informs defaults), and the confirmation tables of
:data:`CONFIRMATION`, which running here spends: they no longer count as held out.

Usage:
  python benchmarks/choice_rules.py run OUT.jsonl [--seed 0] [--tables diabetes wine ...]
  python benchmarks/choice_rules.py summarize OUT.jsonl
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from unittest import mock

import numpy as np
import pandas as pd
from sklearn.isotonic import IsotonicRegression

import auto_variants
import sampled_tables
import tabular_suite as suite
from primo.search import choice

SIMPLIFICATION = ("max_terms", "max_pieces")
#: Draw 2's held-out tables no contender had run when "majority of folds" met the criterion written
#: for it on the development tables (2026-11-29): the confirmation the README names, decided before
#: they run.
CONFIRMATION = ("Boston", "ModeChoice", "EmplUK", "kidtran", "Clothing", "NaturalPark", "immi2", "respiratory",
                "nwtco")


def _trial(index, row, **extra) -> dict:
    return {"trial": int(index), "source": row["source"], "size": float(row["size"]), "S": float(row["score"]),
            "fold_losses": [float(v) for v in row["fold_losses"]], **extra}


def record(name: str, fold: int, X_train, y_train, X_test, y_test, task: str, seed: int = 0) -> dict:
    """One fold: the selection's pick and every candidate's validated trial with its test loss."""
    import primo

    regression = task == "regression"
    metric = "mae" if regression else "log_loss"
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = (primo.PrimoRegressor if regression else primo.PrimoClassifier)(progress=False, random_state=seed + fold)
        auto.fit(X_train, y_train)

        # The trials selection chooses among (each search's _candidates: scored on every fold).
        search, pruning = auto.searches_["pram"], auto.searches_["prdt"]

        def test_loss(model) -> float:
            return float(suite.score(task, model, X_test, y_test)[metric])

        def refit(params):  # as selection refits its pick: the configuration at full fidelity, every row
            return search._refit_model(dict(params), X_train, y_train, None)

        trials = search._candidates(search.trials_)
        trials = trials[trials["error"].isna()]
        prdt_trials = pruning._candidates(pruning.trials_)
        prdt_trials = prdt_trials[prdt_trials["error"].isna()]
        tested = {}
        path = trials[trials["source"] == "simplify"]
        if len(path):
            base_params = {k: v for k, v in path.iloc[0]["params"].items() if k not in SIMPLIFICATION}
            base = refit(base_params)
            for index, row in path.iterrows():
                tested[index] = test_loss(base.simplified(row["params"].get("max_pieces"),
                                                          max_terms=row["params"].get("max_terms")))
            for index in trials.index[trials["params"].map(lambda p: p == base_params)]:
                tested[index] = test_loss(base)
        pool = pd.concat([trials.assign(family="pram"), prdt_trials.assign(family="prdt")], ignore_index=True)
        with _without_majority():
            within = choice.within_noise(pool, pool["score"].astype(float).idxmin(), None)
        band = set(pool.loc[within & (pool["family"] == "pram"), "trial"])
        for index, row in trials[trials["trial"].isin(band) | (trials["source"] == "estimator")].iterrows():
            if index not in tested:
                tested[index] = test_loss(refit(row["params"]))
        report = auto.selection_report_.set_index("family")
        prdt_test = test_loss(auto.candidates_["prdt"]) if "prdt" in auto.candidates_ else math.nan
        prdt = [_trial(i, r, test=prdt_test if (r["score"] == report.at["prdt", "score"]
                                                and r["size"] == report.at["prdt", "size"]) else None)
                for i, r in prdt_trials.iterrows()]
        kept = report.loc[report["selected"]].iloc[0]
        kept_index = trials.index[trials["params"].map(lambda p: p == kept["params"])]
        return {"table": name, "task": task, "fold": fold, "seed": seed + fold, "metric": metric,
                "reference_loss": float(trials["reference_loss"].iloc[0]),
                "kept": {"family": auto.best_family_, "test": test_loss(auto), "S": float(kept["score"]),
                         "size": float(kept["size"]), "trial": int(kept_index[0]) if len(kept_index) else None},
                "pram": [_trial(i, r, test=tested.get(i)) for i, r in trials.iterrows()],
                "prdt": prdt, "seconds": time.perf_counter() - start}


def table_and_folds(name: str):
    """A development or confirmation table and the folds its benchmark scores it on."""
    if name in CONFIRMATION:
        return sampled_tables.table_and_folds(sampled_tables.draw(2)[name])
    return auto_variants.development_table(name)


def run(out: str, tables: list[str], seed: int = 0) -> None:
    for name in tables:
        table, folds = table_and_folds(name)
        for fold, (train, test) in enumerate(folds):
            row = record(name, fold, table.X.iloc[train], table.y.iloc[train], table.X.iloc[test],
                         table.y.iloc[test], table.task, seed)
            print(name, fold, row["kept"]["family"], row["kept"]["size"], round(row["kept"]["test"], 4), flush=True)
            with open(out, "a") as handle:
                handle.write(json.dumps(row) + "\n")


def _frame(row: dict) -> pd.DataFrame:
    trials = [{"family": "pram", **t} for t in row["pram"]] + [{"family": "prdt", **t} for t in row["prdt"]]
    frame = pd.DataFrame(trials).rename(columns={"S": "score"})
    frame["test"] = frame["test"].astype(float)
    frame["reference_loss"], frame["error"] = row["reference_loss"], None
    return frame


def _patched_rule(attribute: str, value):
    """The default rule with one attribute of :mod:`primo.search.choice` replaced by ``value``."""
    def rule(trials):
        with mock.patch.object(choice, attribute, value):
            return choice.choose_trial(trials)
    return rule


def _capped(cap: float):
    return _patched_rule("MAX_NOISE_MARGIN", cap)


def _isotonic(trials):
    """The default rule on validated losses smoothed to fall with size within each family: a small
    trial whose loss is luckily low is pooled with its larger neighbours (the winner's curse of the
    many small candidates of the simplification path)."""
    smoothed = trials.copy()
    for _, group in trials.groupby("family"):
        if len(group) > 1:
            smoothed.loc[group.index, "score"] = IsotonicRegression(increasing=False).fit_transform(
                group["size"], group["score"])
    return choice.choose_trial(smoothed)


def _without_majority():
    """The default rule as before 2026-11-29: within one paired standard error (capped), however many
    folds the trial loses on (a superset of today's band)."""
    return mock.patch.object(choice, "worse_share", lambda losses, best_losses: 0.0)


def _tie_zone(margin: float):
    """The default rule, with a validation unit counted as worse than the best's only when its loss exceeds
    the best's on it by more than ``margin`` times the best's: at 10^5 rows the majority vote otherwise
    counts differences of 10^-4 (benchmarks/auto_scale.py, README "Automatic selection at 100k rows")."""
    strict = choice.worse_share

    def share(losses, best_losses):
        best = np.asarray(best_losses, dtype=float)
        return strict(losses, best + margin * np.abs(best))

    return _patched_rule("worse_share", share)


def _standard_error_only(trials):
    with _without_majority():
        return choice.choose_trial(trials)


RULES = {"default": choice.choose_trial, "before 2026-11-29": _standard_error_only, "cap 1%": _capped(0.01),
         "cap 0.5%": _capped(0.005), "lowest S": lambda trials: choice.choose_trial(trials, tolerance=0.0),
         "isotonic": _isotonic, "tie zone 0.1%": _tie_zone(0.001), "tie zone 0.5%": _tie_zone(0.005),
         "tie zone 1%": _tie_zone(0.01)}


def _ebm(table: str):
    """Mean test loss and median pieces of EBM on a sampled development table's folds (None elsewhere)."""
    runs = suite.read_results(sampled_tables.json_path(1))["tables"].get(table)
    if runs is None:
        return None
    folds = runs["folds"]["ebm"]
    metric = "mae" if "mae" in folds[0] else "log_loss"
    return np.mean([f[metric] for f in folds]), np.median([f["size"]["pieces"] for f in folds])


def summarize(path: str) -> None:
    with open(path) as handle:
        rows = [json.loads(line) for line in handle]
    picks = []
    for row in rows:
        trials = _frame(row)
        default_pram = trials[trials["source"] == "estimator"]["test"]
        entry = {"table": row["table"], "fold": row["fold"],
                 "default PrAM": float(default_pram.iloc[0]) if len(default_pram) else math.nan}
        for name, rule in RULES.items():
            index = rule(trials)
            entry[name], entry[name + " size"] = trials.at[index, "test"], trials.at[index, "size"]
        if not math.isclose(entry["default"], row["kept"]["test"], rel_tol=1e-9):
            print(f"note: {row['table']} fold {row['fold']}: the default rule's pick tests {entry['default']:.6g}, "
                  f"the selection's refit {row['kept']['test']:.6g}")
        picks.append(entry)
    picks = pd.DataFrame(picks)
    print(f"{len(rows)} folds of {picks['table'].nunique()} tables")
    print("| rule | folds without a test loss | tables lower / higher than the default rule | median relative "
          "difference [95% over tables] | tables > 2% above the default PrAM | median size | median size ratio "
          "to the default rule | EBM target (sampled development tables) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in RULES:
        known = picks[picks[name].notna()]
        columns = list(dict.fromkeys([name, "default", "default PrAM", name + " size", "default size"]))
        per_table = known.groupby("table", sort=False)[columns].mean()
        relative = per_table[name] / per_table["default"] - 1
        size_ratio = per_table[name + " size"] / per_table["default size"]
        interval = "" if len(relative) < 2 else " [{:+.2%}, {:+.2%}]".format(*suite.median_interval(relative.to_numpy()))
        passes = []
        for table, values in per_table.iterrows():
            ebm = _ebm(table)
            if ebm is not None:
                passes.append(values[name] <= 1.02 * ebm[0] and 5 * values[name + " size"] <= ebm[1])
        print(f"| {name} | {int(picks[name].isna().sum())} | {int((relative < -1e-12).sum())} / "
              f"{int((relative > 1e-12).sum())} | {relative.median():+.2%}{interval} | "
              f"{int((per_table[name] > 1.02 * per_table['default PrAM']).sum())} | "
              f"{per_table[name + ' size'].median():.0f} | {size_ratio.median():.2f} | {sum(passes)}/{len(passes)} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    runner = commands.add_parser("run")
    runner.add_argument("out")
    runner.add_argument("--seed", type=int, default=0, help="search seed of fold 0 (fold k uses seed + k)")
    runner.add_argument("--tables", nargs="+", default=auto_variants.DEVELOPMENT,
                        choices=auto_variants.DEVELOPMENT + list(CONFIRMATION))
    summary = commands.add_parser("summarize")
    summary.add_argument("path")
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args.out, args.tables, args.seed)
    else:
        summarize(args.path)


if __name__ == "__main__":
    sys.exit(main())
