"""How closely a student reproduces its teacher, and how both do against the true labels.

Fidelity is measured against the *teacher's* outputs, not the truth:

* classification — the agreement rate (fraction of inputs where student and teacher pick the same
  label), plus the balanced agreement (mean per-teacher-label agreement), which stays meaningful
  when the teacher predicts one label 99% of the time (e.g. Clara-AI's rare CRC loops);
* regression — R² of the student's outputs against the teacher's, plus their mean absolute gap.

Example
-------
>>> fidelity_report([0, 1, 1, 0], [0, 1, 0, 0], "classification")["fidelity"]
0.75
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn import metrics

TASKS = ("classification", "regression")


def fidelity_report(teacher_outputs, student_outputs, task: str) -> dict:
    """Fidelity metrics of a student on the same inputs as its teacher.

    Parameters
    ----------
    teacher_outputs, student_outputs : array-like of shape (n,)
        Labels (classification) or values (regression) on the same inputs.
    task : {"classification", "regression"}

    Returns
    -------
    dict
        ``fidelity`` (agreement, or R² against the teacher) and ``balanced_fidelity`` (classification)
        or ``mae_to_teacher`` (regression), plus ``n`` (number of inputs).

    Example
    -------
    >>> fidelity_report([1.0, 2.0, 3.0], [1.0, 2.0, 3.5], "regression")["mae_to_teacher"]
    0.16666666666666666
    """
    teacher, student = _paired(teacher_outputs, student_outputs)
    if task == "classification":
        return {
            "fidelity": float(np.mean(teacher == student)),
            "balanced_fidelity": _balanced_accuracy(teacher, student),
            "n": int(len(teacher)),
        }
    if task == "regression":
        return {
            "fidelity": float(metrics.r2_score(teacher, student)),
            "mae_to_teacher": float(metrics.mean_absolute_error(teacher, student)),
            "n": int(len(teacher)),
        }
    raise ValueError(f"task must be one of {TASKS}, got {task!r}")


def probability_report(teacher_probabilities, student_probabilities) -> dict:
    """How far a soft-label student's class probabilities are from its teacher's, on the same inputs.

    ``probability_mae``: mean total variation ½Σ_k|p_k − q_k| (for two classes, the mean
    |p − q| of the positive class; 0 = same probabilities, 1 = disjoint); ``log_loss_to_teacher``:
    mean cross-entropy −Σ_k p_k log q_k of the student's q against the teacher's p (q clipped at
    1e-15), and ``teacher_entropy``, its floor (their difference is the mean KL divergence).

    Example
    -------
    >>> report = probability_report([[0.9, 0.1], [0.2, 0.8]], [[0.8, 0.2], [0.2, 0.8]])
    >>> round(report["probability_mae"], 3)
    0.05
    """
    p = np.asarray(teacher_probabilities, dtype=float)
    q = np.asarray(student_probabilities, dtype=float)
    if p.ndim != 2 or p.shape != q.shape:
        raise ValueError(f"probabilities to compare must have the same shape (n, n_classes), got {p.shape} and {q.shape}")
    if p.size == 0:
        raise ValueError("no probabilities to compare")
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -np.where(p > 0, p * np.log(p), 0.0).sum(axis=1)
    return {
        "probability_mae": float(0.5 * np.abs(p - q).sum(axis=1).mean()),
        "log_loss_to_teacher": float(-(p * np.log(np.clip(q, 1e-15, 1.0))).sum(axis=1).mean()),
        "teacher_entropy": float(entropy.mean()),
    }


def accuracy_report(y_true, y_pred, task: str) -> dict:
    """Accuracy against the true labels: accuracy / balanced accuracy / F1, or MAE / RMSE / R².

    F1 is the positive class's for binary labels (the larger label, e.g. 1 = slow I/O) and the
    macro average otherwise.

    Example
    -------
    >>> accuracy_report([0, 1, 1, 0], [0, 1, 0, 0], "classification")["f1"]
    0.6666666666666666
    """
    y_true, y_pred = _paired(y_true, y_pred)
    if task == "classification":
        labels = np.unique(np.concatenate([y_true, y_pred]))
        if len(labels) <= 2:
            f1 = metrics.f1_score(y_true, y_pred, pos_label=labels[-1], average="binary", zero_division=0)
        else:
            f1 = metrics.f1_score(y_true, y_pred, average="macro", zero_division=0)
        return {
            "accuracy": float(metrics.accuracy_score(y_true, y_pred)),
            "balanced_accuracy": _balanced_accuracy(y_true, y_pred),
            "f1": float(f1),
        }
    if task == "regression":
        return {
            "mae": float(metrics.mean_absolute_error(y_true, y_pred)),
            "rmse": float(np.sqrt(metrics.mean_squared_error(y_true, y_pred))),
            "r2": float(metrics.r2_score(y_true, y_pred)),
        }
    raise ValueError(f"task must be one of {TASKS}, got {task!r}")


def _balanced_accuracy(reference, predicted) -> float:
    # A student may predict a label its teacher never gives on these inputs; scikit-learn warns
    # about it, but the score (mean recall over the reference's labels) is still the right one.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return float(metrics.balanced_accuracy_score(reference, predicted))


def _paired(a, b) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    if a.shape != b.shape:
        raise ValueError(f"outputs to compare have different lengths: {len(a)} and {len(b)}")
    if a.size == 0:
        raise ValueError("no outputs to compare")
    return a, b
