"""Accuracy measures of a fast/slow read predictor (label 1 = slow, 0 = fast).

LinnOS's two errors have very different costs in a replicated array:

* a **false submit** is a slow read predicted fast: it is submitted to a slow device and the
  application waits for it (the costly error);
* a **false revoke** is a fast read predicted slow: it is needlessly failed over to another
  replica, which costs little (one more inference and possibly a slower replica).

Both rates are taken over **all** evaluated reads, as in LinnOS, so that
``false_submit_rate + false_revoke_rate = 1 - accuracy``. ``classification_summary`` also gives
the per-class views (slow recall = 1 - FN / #slow, etc.).

Example
-------
>>> y_true, y_pred = [1, 1, 0, 0, 0], [0, 1, 1, 0, 0]
>>> false_submit_rate(y_true, y_pred), false_revoke_rate(y_true, y_pred)
(0.2, 0.2)
"""
from __future__ import annotations

import numpy as np
from sklearn.metrics import confusion_matrix, f1_score


def _confusion(y_true, y_pred) -> tuple[int, int, int, int, int]:
    """(tn, fp, fn, tp, n) for binary labels, checking lengths and values."""
    y_true, y_pred = np.asarray(y_true).ravel(), np.asarray(y_pred).ravel()
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true and y_pred differ in length: {y_true.size} vs {y_pred.size}")
    if y_true.size == 0:
        raise ValueError("cannot score an empty set of predictions")
    for name, y in (("y_true", y_true), ("y_pred", y_pred)):
        if not np.isin(y, (0, 1)).all():
            raise ValueError(f"{name} must hold only 0 (fast) and 1 (slow)")
    tn, fp, fn, tp = confusion_matrix(y_true, y_pred, labels=[0, 1]).ravel()
    return int(tn), int(fp), int(fn), int(tp), int(y_true.size)


def false_submit_rate(y_true, y_pred) -> float:
    """Slow reads predicted fast, divided by the number of all reads: ``FN / n``.

    Example
    -------
    >>> false_submit_rate([1, 1, 0, 0], [0, 1, 0, 0])
    0.25
    """
    _, _, fn, _, n = _confusion(y_true, y_pred)
    return fn / n


def false_revoke_rate(y_true, y_pred) -> float:
    """Fast reads predicted slow, divided by the number of all reads: ``FP / n``.

    Example
    -------
    >>> false_revoke_rate([1, 1, 0, 0], [1, 1, 1, 1])
    0.5
    """
    _, fp, _, _, n = _confusion(y_true, y_pred)
    return fp / n


def slow_f1(y_true, y_pred) -> float:
    """F1 score of the slow class: ``2·TP / (2·TP + FP + FN)`` (0 when there is no slow read at all).

    Example
    -------
    >>> round(slow_f1([1, 1, 0, 0], [1, 0, 1, 0]), 3)
    0.5
    """
    _confusion(y_true, y_pred)  # validation
    return float(f1_score(y_true, y_pred, pos_label=1, zero_division=0.0))


def classification_summary(y_true, y_pred) -> dict[str, float]:
    """All measures at once, as plain floats (JSON-ready).

    Keys: ``false_submit_rate`` (FN/n), ``false_revoke_rate`` (FP/n), ``f1_slow``,
    ``accuracy``, ``slow_recall`` (TP/#slow), ``slow_precision`` (TP/#predicted slow),
    ``slow_fraction`` (#slow/n), ``n``.

    Example
    -------
    >>> classification_summary([1, 0], [1, 0])["accuracy"]
    1.0
    """
    tn, fp, fn, tp, n = _confusion(y_true, y_pred)
    return {
        "false_submit_rate": fn / n,
        "false_revoke_rate": fp / n,
        "f1_slow": slow_f1(y_true, y_pred),
        "accuracy": (tp + tn) / n,
        "slow_recall": tp / (tp + fn) if tp + fn else 0.0,
        "slow_precision": tp / (tp + fp) if tp + fp else 0.0,
        "slow_fraction": (tp + fn) / n,
        "n": float(n),
    }
