"""The main job on an embedded default: the whole Primo pipeline on data that needs no download.

The data is scikit-learn's bundled Wisconsin breast-cancer table (569 rows, 30 features): a
binary decision, like most learning-augmented systems' (fast/slow I/O, offload or not).
"""
from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import accuracy_score, f1_score, log_loss
from sklearn.model_selection import train_test_split

import primo
from primo.io import atomic_write_bytes
from primo.models.latency import single_row_latency_us
from primo.search.objective import expected_calibration_error

logger = logging.getLogger(__name__)


def run_demo(out_dir="primo-demo", *, n_trials: int = 10, seed: int = 0, say=print) -> dict:
    """Fit, search, select, save and reload a model; write ``results.json`` to ``out_dir``.

    Returns the results dict. ``say`` receives the human-readable progress lines.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = load_breast_cancer(as_frame=True)
    X, y = data.data, data.target
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
    say(f"data: {data.frame.shape[0]} rows × {X.shape[1]} features (breast cancer, bundled with scikit-learn); "
        f"{len(X_train)} train / {len(X_test)} test")

    say(f"searching PrDT (every subtree of its pruning path) and PrAM ({n_trials} Bayesian trials) on 5-fold CV "
        "log loss; keeping the smallest model within noise of the best…")
    auto = primo.PrimoClassifier(
        n_trials=n_trials, random_state=seed, family_params={"prdt": {"random_state": seed}},
    ).fit(X_train, y_train)
    say(auto.selection_report_.drop(columns="params").to_string(index=False))

    results = {"dataset": "sklearn breast_cancer", "n_train": len(X_train), "n_test": len(X_test),
               "selected": auto.best_family_, "families": {}}
    for family, model in auto.candidates_.items():
        predictions = model.predict(X_test)
        results["families"][family] = {
            "model": type(model).__name__,
            "params": auto.selection_report_.set_index("family").loc[family, "params"],
            "test_accuracy": float(accuracy_score(y_test, predictions)),
            "test_f1": float(f1_score(y_test, predictions)),
            "test_log_loss": float(log_loss(y_test, model.predict_proba(X_test), labels=model.classes_)),
            "test_ece": expected_calibration_error(y_test, model.predict_proba(X_test), model.classes_),
            "size": float(model.size_),
            "complexity": float(model.complexity_),
            "latency_us_single_row": single_row_latency_us(model.predict, X_test),
        }
    model = auto.best_estimator_
    say(f"selected {auto.best_family_}:\n{model}")

    model_path = model.save(out / "model.primo")
    reloaded = primo.load(model_path)
    identical = bool(np.array_equal(reloaded.predict_proba(X_test), model.predict_proba(X_test)))
    if not identical:
        raise RuntimeError("reloaded model predicts differently from the saved one")
    say(f"saved {model_path} and reloaded it: identical predictions on {len(X_test)} test rows")
    results["model_file"] = str(model_path)

    from primo.report import build as build_report

    other = {f"{type(m).__name__} (other family)": m for f, m in auto.candidates_.items() if f != auto.best_family_}
    report_path = build_report(reloaded, X_test, y_test, baselines=other, title="Primo demo: breast-cancer classifier",
                               local_rows=3).save(out / "report.html")
    say(f"wrote the interpretation report {report_path}")
    results["report_file"] = str(report_path)

    from primo.export import export_all

    exported = export_all(reloaded, out / "exports", name="demo_model", check_data=X_test)
    check = exported["integer_check"]
    say(f"exported to {out / 'exports'}: {', '.join(p.name for p in exported['files'].values())}; integer C: "
        f"{check['n_different_predictions']} of {check['n_rows']} test predictions differ from the float model")
    results["exports"] = {k: str(p) for k, p in exported["files"].items()} | {"integer_check": check}

    atomic_write_bytes(out / "results.json", json.dumps(results, indent=2, default=float).encode())
    say(f"wrote {out / 'results.json'}")
    return results
