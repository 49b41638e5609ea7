"""Models and reports shared by the report tests (real data: Clara-MS and a LinnOS trace)."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from primo import PrAMRegressor
from primo.report import build
from primo.report.browser import HeadlessChromium

MONOTONE_TERM = "R_ec"


@pytest.fixture(scope="session")
def edited_pram(clara):
    """A Clara-MS PrAM with a search history, a distillation record and a monotonize edit."""
    X, y, _, _ = clara
    model = PrAMRegressor(max_bins=32, interactions=2, max_rounds=300, outer_bags=2, n_jobs=1, random_state=0).fit(X, y)
    index = model.term_names_.index(MONOTONE_TERM)
    before = model.ebm_.term_scores_[index].copy()
    model.ebm_.monotonize(index, increasing=True)
    model.metadata_ = {
        "search": {"method": "bayesian", "scoring": "mae", "lam": 0.01, "gamma": 1.0, "n_trials": 4,
                   "best_params": {"max_bins": 32}, "best_score": 2.5,
                   "trials": [{"trial": i + 1, "source": "search", "max_bins": b, "loss": s - 0.1, "complexity": b,
                               "score": s, "fit_time": 0.2, "error": None}
                              for i, (b, s) in enumerate([(8, 3.1), (16, 2.7), (32, 2.5), (64, 2.6)])]},
        "distillation": {"method": "supervised", "fidelity": 0.97,
                         "iterations": [{"iteration": i, "fidelity": 0.9 + i / 100, "loss": 1 / (i + 1)} for i in range(4)]},
        "edits": [{"operation": "monotonize", "term": MONOTONE_TERM, "summary": "R_ec made increasing",
                   "before": before.tolist(), "after": model.ebm_.term_scores_[index].tolist()}],
    }
    return model


@pytest.fixture(scope="session")
def counterfactual(clara, edited_pram):
    """An object shaped like primo.adjust's counterfactual result (built here, not computed)."""
    X, _, X_test, _ = clara
    x = X_test.iloc[0]
    neighbors = X.iloc[:3]
    deltas = edited_pram.eval_terms(neighbors) - edited_pram.eval_terms(X_test.iloc[[0]])
    return SimpleNamespace(
        x=x, desired=50,
        neighbors=neighbors.assign(distance=np.linalg.norm(neighbors - x, axis=1), prediction=edited_pram.predict(neighbors)),
        differences=neighbors - x,
        term_deltas=pd.DataFrame(deltas, columns=edited_pram.term_names_, index=neighbors.index))


@pytest.fixture(scope="session")
def pram_report(edited_pram, clara, counterfactual):
    X, y, X_test, y_test = clara
    mean = np.full(len(y_test), float(y.mean()))
    return build(edited_pram, X_test, y_test, baselines={"training mean": mean}, local_rows=2,
                 counterfactuals={"row 0 → 50 cores": counterfactual}, title="Clara-MS PrAM")


@pytest.fixture(scope="session")
def prdt_report(prdt_classifier, linnos):
    X, y = linnos
    return build(prdt_classifier, X.iloc[:500], y.iloc[:500], local_rows=2, tree_depth=3)


@pytest.fixture(scope="session")
def browser():
    with HeadlessChromium(timeout=90) as chromium:
        yield chromium


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory):
    """Where the report tests save their screenshots for a person to look at: ``$PRIMO_TEST_ARTIFACTS``
    when set (e.g. a CI artifact folder), else a pytest temporary folder (pytest keeps the last three runs')."""
    import os
    from pathlib import Path

    folder = os.environ.get("PRIMO_TEST_ARTIFACTS")
    if folder:
        path = Path(folder) / "report-screenshots"
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("report-screenshots", numbered=False)
