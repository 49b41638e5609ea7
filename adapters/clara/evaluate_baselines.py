"""Evaluate every Clara baseline on every task and print a table beside the published references.

Run ``python -m adapters.clara.evaluate_baselines [--data-dir DIR] [--tasks MS AI CP]``.

What each column means:

* MS — ``test``: MAE on ``ms_test.csv`` (198 synthesized NFs); ``real``: MAE on the 4 real NFs.
* AI — ``test``: precision / recall / F1 of the positive class on ``ai_test.npz``;
  ``real``: how many of the 756 real Click loops are flagged as CRC-style candidates (unlabelled).
* CP — ``test``: MAE (instructions) and pooled WMAPE on a fixed 20% hold-out of ``cp_synthetic``
  for models trained on the other 80% (the LSTM was trained by Clara on other programs, so the
  hold-out is unseen for it too); ``real``: per-NF WMAPE averaged over the 8 real NFs, for models
  trained on all of ``cp_synthetic``. Nothing is fitted on the real NFs.

``train s`` is the wall-clock fit time on the full training set (fastest of ``--repeats`` fits for
untuned models; the grid searches run once). The LSTM is pretrained: not retrained here.
"""
from __future__ import annotations

import argparse
import logging
import time
from dataclasses import dataclass, field

import numpy as np
from sklearn.model_selection import KFold, cross_val_predict, train_test_split

from adapters.clara.baselines import Baseline, ai_baselines, cp_baselines, fit_timed, ms_baselines
from adapters.clara.data import (
    CP_TARGET_SCALE, AIData, ClickLoops, CPData, MSData, load_ai, load_ai_click_loops, load_cp, load_ms,
)
from adapters.clara.metrics import mae, mean_group_wmape, positive_class_scores, wmape

logger = logging.getLogger(__name__)

#: Published / reference figures (targets.md and the data README), keyed by (task, baseline).
REFERENCES = {
    ("MS", "clara_xgboost"): "test MAE 2.547, real MAE 1.238 (targets.md)",
    ("AI", "clara_svm"): "F1 0.896 (targets.md)",
    ("CP", "clara_lstm"): "real WMAPE 0.1507 (README) / 15.1% (paper); trained 1,081 s (paper)",
}
#: Primo's published figures, printed under the table for context (not measured here).
PAPER_PRIMO = (
    "Paper, Primo: MS real-NF MAE 1.0155 w/o BO, 0.8660 w/ BO (pyprimo test MAE 2.461); "
    "AI F1 0.896, 0.925 after adjustment; CP WMAPE 0.1728 w/o BO, 0.1442 w/ BO, trained in 79 s."
)


@dataclass
class BaselineResult:
    """One row of the table: metrics on the test split and on real NFs, and training time.

    ``train_seconds`` is the fastest wall-clock fit, ``train_cpu_seconds`` the process CPU time
    per fit (mean over the repeats; steadier on a shared machine); both None for a pretrained model. ``model`` is the estimator
    fitted on the whole training set (the one scored on the real NFs).
    """

    task: str
    model: str
    description: str
    test: dict[str, float] = field(default_factory=dict)
    real: dict[str, float] = field(default_factory=dict)
    train_seconds: float | None = None
    train_cpu_seconds: float | None = None
    fitted: object = field(default=None, repr=False, compare=False)

    @property
    def reference(self) -> str:
        return REFERENCES.get((self.task, self.model), "")


def _fit(baseline: Baseline, X, y, repeats: int):
    cpu_start = time.process_time()
    model, seconds = fit_timed(baseline.build(), X, y, repeats=1 if baseline.tuned else repeats)
    cpu = (time.process_time() - cpu_start) / (1 if baseline.tuned else repeats)
    return model, (None, None) if baseline.pretrained else (seconds, cpu)


def score_ms(baselines: list[Baseline], train: MSData, test: MSData, real: MSData,
             repeats: int = 1) -> list[BaselineResult]:
    """Fit each MS baseline on ``train``; score MAE on ``test`` and on the real NFs ``real``."""
    results = []
    for baseline in baselines:
        logger.info("MS: fitting %s", baseline.name)
        model, (seconds, cpu) = _fit(baseline, train.X, train.y, repeats)
        results.append(BaselineResult(
            "MS", baseline.name, baseline.description,
            test={"mae": mae(test.y, model.predict(test.X))},
            real={"mae": mae(real.y, model.predict(real.X))},
            train_seconds=seconds, train_cpu_seconds=cpu, fitted=model))
    return results


def score_ai(baselines: list[Baseline], train: AIData, test: AIData, loops: ClickLoops,
             repeats: int = 1) -> list[BaselineResult]:
    """Fit each AI baseline on ``train``; score P/R/F1 on ``test``; count flagged Click loops."""
    results = []
    for baseline in baselines:
        logger.info("AI: fitting %s", baseline.name)
        model, (seconds, cpu) = _fit(baseline, train.X, train.y, repeats)
        results.append(BaselineResult(
            "AI", baseline.name, baseline.description,
            test=positive_class_scores(test.y, model.predict(test.X)),
            real={"loops_flagged": float(np.sum(model.predict(loops.X) == 1))},
            train_seconds=seconds, train_cpu_seconds=cpu, fitted=model))
    return results


def cp_holdout_split(synthetic: CPData, holdout: float = 0.2, random_state: int = 0):
    """The fixed synthetic hold-out of the CP table: ``(X_fit, X_held, y_fit, y_held)``.

    Example
    -------
    >>> X_fit, X_held, y_fit, y_held = cp_holdout_split(load_cp("synthetic"))
    >>> len(X_fit), len(X_held)
    (2328, 583)
    """
    return train_test_split(synthetic.X, synthetic.y, test_size=holdout, random_state=random_state)


def score_cp(baselines: list[Baseline], synthetic: CPData, real: CPData, repeats: int = 1,
             holdout: float = 0.2, random_state: int = 0) -> list[BaselineResult]:
    """Score each CP baseline on the synthetic hold-out (fit on the rest) and on the real NFs
    (fit on all synthetic rows); nothing is fitted on the real NFs."""
    X_fit, X_held, y_fit, y_held = cp_holdout_split(synthetic, holdout, random_state)
    results = []
    for baseline in baselines:
        logger.info("CP: fitting %s", baseline.name)
        held_pred = baseline.build().fit(X_fit, y_fit).predict(X_held)
        model, (seconds, cpu) = _fit(baseline, synthetic.X, synthetic.y, repeats)
        real_pred = model.predict(real.X)
        results.append(BaselineResult(
            "CP", baseline.name, baseline.description,
            test={"mae_instr": mae(y_held, held_pred) * CP_TARGET_SCALE, "wmape": wmape(y_held, held_pred)},
            real={"wmape": mean_group_wmape(real.y, real_pred, real.groups)},
            train_seconds=seconds, train_cpu_seconds=cpu, fitted=model))
    return results


def repeated_cv_errors(estimator, X, y, *, folds: int = 5, repeats: int = 3, random_state: int = 0) -> np.ndarray:
    """Per-row absolute out-of-fold error of ``estimator``, averaged over ``repeats`` shuffled K-fold splits.

    Repeat ``r`` shuffles with seed ``random_state + r``, so models scored with the same arguments
    see the same folds and their errors can be compared row by row (:func:`metrics.error_difference`).
    """
    y = np.asarray(y, dtype=float)
    errors = [np.abs(cross_val_predict(estimator, X, y, cv=KFold(folds, shuffle=True, random_state=random_state + r))
                     - y) for r in range(repeats)]
    return np.mean(errors, axis=0)


def evaluate_ms(data_dir=None, repeats: int = 3, random_state: int = 0) -> list[BaselineResult]:
    """Fit each MS baseline on ``ms_train`` and score it on ``ms_test`` and the 4 real NFs.

    Example
    -------
    >>> rows = evaluate_ms(repeats=1)  # doctest: +SKIP
    >>> rows[0].model, round(rows[0].test["mae"], 3)  # doctest: +SKIP
    ('clara_xgboost', 2.547)
    """
    splits = (load_ms(s, data_dir) for s in ("train", "test", "real_nfs"))
    return score_ms(ms_baselines(random_state), *splits, repeats=repeats)


def evaluate_ai(data_dir=None, repeats: int = 3, random_state: int = 0) -> list[BaselineResult]:
    """Fit each AI baseline on ``ai_train``; score on ``ai_test``; count flagged real Click loops.

    Example
    -------
    >>> round(evaluate_ai(repeats=1)[0].test["f1"], 3)  # doctest: +SKIP
    0.896
    """
    return score_ai(ai_baselines(random_state), load_ai("train", data_dir), load_ai("test", data_dir),
                    load_ai_click_loops(data_dir), repeats=repeats)


def evaluate_cp(data_dir=None, repeats: int = 1, random_state: int = 0,
                holdout: float = 0.2) -> list[BaselineResult]:
    """Score each CP baseline on a synthetic hold-out and on the real NFs (trained on synthetic only).

    Example
    -------
    >>> rows = evaluate_cp()  # doctest: +SKIP
    >>> round(rows[0].real["wmape"], 4)  # doctest: +SKIP
    0.1507
    """
    return score_cp(cp_baselines(random_state, data_dir), load_cp("synthetic", data_dir),
                    load_cp("real_nfs", data_dir), repeats=repeats, holdout=holdout, random_state=random_state)


def format_table(results: list[BaselineResult]) -> str:
    """Render results as a fixed-width text table (one line per baseline)."""
    def metrics(values: dict[str, float]) -> str:
        return " ".join(f"{k}={v:.4g}" for k, v in values.items())

    lines = [f"{'task':4s} {'model':15s} {'test':38s} {'real':20s} {'train s':>8s}  reference"]
    for r in results:
        seconds = "pretrained" if r.train_seconds is None else f"{r.train_seconds:.3f}"
        lines.append(f"{r.task:4s} {r.model:15s} {metrics(r.test):38s} {metrics(r.real):20s} "
                     f"{seconds:>8s}  {r.reference}")
    return "\n".join(lines)


EVALUATORS = {"MS": evaluate_ms, "AI": evaluate_ai, "CP": evaluate_cp}


def main(argv: list[str] | None = None) -> list[BaselineResult]:
    """Command-line entry point: evaluate the chosen tasks and print the table."""
    parser = argparse.ArgumentParser(description="Evaluate the Clara baselines on MS, AI and CP.")
    parser.add_argument("--data-dir", default=None, help="shared data directory (default: $PRIMO_DATA_DIR or ../shared/data)")
    parser.add_argument("--tasks", nargs="+", choices=sorted(EVALUATORS), default=list(EVALUATORS))
    parser.add_argument("--repeats", type=int, default=3, help="timed fits per untuned model (fastest kept)")
    parser.add_argument("--random-state", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    results = []
    for task in args.tasks:
        results += EVALUATORS[task](args.data_dir, repeats=args.repeats, random_state=args.random_state)
    print(format_table(results))
    print(PAPER_PRIMO)
    return results


if __name__ == "__main__":
    main()
