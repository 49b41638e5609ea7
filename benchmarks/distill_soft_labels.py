"""Hard vs soft labels in supervised distillation: agreement and probability error against the teacher.

Teachers: an MLP on Clara-AI (8,313 training loops, 102 binary features, 39 CRC loops; the 5,036
held-out loops score the students) and gradient boosting on wine (70/30 stratified split). Students:
PrDT and PrAM (``max_rounds=500, outer_bags=2``), each from ``primo.distill.distill`` with an
8-trial search and seed 0, once with hard labels (the teacher's classes) and once with soft labels
(its probabilities). Measured on the held-out rows: agreement of the student's ``predict`` with the
teacher's, and :func:`primo.distill.probability_report` (mean total variation ``probability_mae``,
cross-entropy against the teacher and the teacher's own entropy, its floor), plus the student's size.

Run: ``python benchmarks/distill_soft_labels.py [--json reports/benchmarks/distill_soft_labels.json]``
"""
from __future__ import annotations

import argparse
import json

import numpy as np
from sklearn.datasets import load_wine
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

from primo.datasets import resolve_data_dir
from primo.distill import distill, probability_report
from primo.io import atomic_write_bytes

PRAM_SETTINGS = {"max_rounds": 500, "outer_bags": 2, "n_jobs": 1}
N_TRIALS = 8


def teachers(data_dir):
    """name -> (X_train, X_test, fitted teacher)."""
    train, test = np.load(data_dir / "clara" / "ai_train.npz"), np.load(data_dir / "clara" / "ai_test.npz")
    mlp = MLPClassifier(hidden_layer_sizes=(32,), max_iter=300, random_state=0).fit(train["X"], train["y"])
    yield "Clara-AI", train["X"], test["X"], mlp
    X, y = load_wine(return_X_y=True, as_frame=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    yield "wine", X_train, X_test, GradientBoostingClassifier(n_estimators=50, random_state=0).fit(X_train, y_train)


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default=None, help="write every row here")
    args = parser.parse_args(argv)
    rows = []
    for name, X_train, X_test, teacher in teachers(resolve_data_dir()):
        teacher_labels, teacher_proba = teacher.predict(X_test), teacher.predict_proba(X_test)
        for family in ("prdt", "pram"):
            for labels in ("hard", "soft"):
                student = distill(teacher, X_train, family, X_test=X_test, labels=labels, n_trials=N_TRIALS,
                                  student_params=PRAM_SETTINGS if family == "pram" else None, random_state=0)
                row = {"teacher": name, "student": family, "labels": labels, "size": int(student.size_),
                       "agreement": float(np.mean(student.predict(X_test) == teacher_labels)),
                       **probability_report(teacher_proba, student.predict_proba(X_test))}
                rows.append(row)
                print(f"{name:8} {family} {labels}: agreement {row['agreement']:.4f}, probability MAE "
                      f"{row['probability_mae']:.4f}, cross-entropy {row['log_loss_to_teacher']:.4f} "
                      f"(teacher entropy {row['teacher_entropy']:.4f}), size {row['size']}", flush=True)
                if args.json:
                    document = {"protocol": {"n_trials": N_TRIALS, "pram": PRAM_SETTINGS, "seed": 0}, "rows": rows}
                    atomic_write_bytes(args.json, json.dumps(document, indent=1).encode())
    return rows


if __name__ == "__main__":
    main()
