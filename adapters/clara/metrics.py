"""Clara's evaluation metrics.

* MS: mean absolute error in cores.
* AI: precision / recall / F1 of the positive class (CRC-style loops are rare: 39 of 8,313).
* CP: Clara's WMAPE, ``Σ|pred − y| / Σ pred`` — note the **prediction** sum in the denominator
  (Clara's definition, not the usual ``Σ y``) — computed per NF and averaged over the NFs.
"""
from __future__ import annotations

import numpy as np
from sklearn.metrics import mean_absolute_error, precision_recall_fscore_support

from primo.report.claims import paired_bootstrap


def _paired(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    y_true = np.asarray(y_true, dtype=float).ravel()
    y_pred = np.asarray(y_pred, dtype=float).ravel()
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true and y_pred differ in length: {y_true.shape[0]} vs {y_pred.shape[0]}")
    if y_true.size == 0:
        raise ValueError("empty y_true / y_pred")
    return y_true, y_pred


def mae(y_true, y_pred) -> float:
    """Mean absolute error.

    Example
    -------
    >>> mae([40, 50], [41, 47])
    2.0
    """
    y_true, y_pred = _paired(y_true, y_pred)
    return float(mean_absolute_error(y_true, y_pred))


def mae_difference(y_true, pred_a, pred_b, *, n_resamples: int = 5000, random_state: int = 0) -> dict[str, float]:
    """MAE(a) − MAE(b) and its 95% paired-bootstrap interval (rows resampled, both models together).

    An interval that contains 0 means the test set cannot tell the two models apart.

    Example
    -------
    >>> d = mae_difference([1, 2, 3, 4], [1, 2, 3, 5], [2, 3, 4, 5], n_resamples=200)
    >>> d["difference"], d["low"] <= d["difference"] <= d["high"]
    (-0.75, True)
    """
    y_true, pred_a = _paired(y_true, pred_a)
    _, pred_b = _paired(y_true, pred_b)
    return error_difference(np.abs(pred_a - y_true), np.abs(pred_b - y_true), n_resamples=n_resamples,
                            random_state=random_state)


def error_difference(errors_a, errors_b, *, n_resamples: int = 5000, random_state: int = 0) -> dict[str, float]:
    """mean(errors_a) − mean(errors_b), its 95% paired-bootstrap interval over rows, and the median difference
    (:func:`primo.report.claims.paired_bootstrap`).

    Example
    -------
    >>> error_difference([0, 1, 2], [1, 1, 2], n_resamples=200)["difference"]
    -0.3333333333333333
    """
    errors_a, errors_b = _paired(errors_a, errors_b)
    d = paired_bootstrap(errors_a, errors_b, n_resamples=n_resamples, random_state=random_state)
    return {"difference": d.mean, "low": d.low, "high": d.high, "median": d.median}


def positive_class_scores(y_true, y_pred) -> dict[str, float]:
    """Precision, recall and F1 of class 1 (0 when undefined, e.g. no predicted positive).

    Example
    -------
    >>> positive_class_scores([1, 1, 0, 0], [1, 0, 1, 0])
    {'precision': 0.5, 'recall': 0.5, 'f1': 0.5}
    """
    y_true, y_pred = _paired(y_true, y_pred)
    precision, recall, f1, _ = precision_recall_fscore_support(
        y_true, y_pred, pos_label=1, average="binary", zero_division=0
    )
    return {"precision": float(precision), "recall": float(recall), "f1": float(f1)}


def wmape(y_true, y_pred) -> float:
    """Clara's weighted MAPE: ``Σ|y_pred − y_true| / Σ y_pred``.

    The denominator is the sum of the **predictions** (Clara's definition). Raises ``ValueError``
    when it is not positive, where the ratio means nothing.

    Example
    -------
    >>> wmape([1.0, 3.0], [2.0, 2.0])  # (1 + 1) / (2 + 2)
    0.5
    """
    y_true, y_pred = _paired(y_true, y_pred)
    denominator = y_pred.sum()
    if denominator <= 0:
        raise ValueError(f"WMAPE undefined: the predictions sum to {denominator} (must be > 0)")
    return float(np.abs(y_pred - y_true).sum() / denominator)


def wmape_per_group(y_true, y_pred, groups) -> dict[int, float]:
    """:func:`wmape` within each group (e.g. each NF), keyed by group id in ascending order.

    Example
    -------
    >>> wmape_per_group([1, 3, 2], [2, 2, 1], [0, 0, 1])
    {0: 0.5, 1: 1.0}
    """
    y_true, y_pred = _paired(y_true, y_pred)
    groups = np.asarray(groups).ravel()
    if groups.shape != y_true.shape:
        raise ValueError(f"groups has {groups.shape[0]} entries, expected {y_true.shape[0]}")
    return {int(g): wmape(y_true[groups == g], y_pred[groups == g]) for g in np.unique(groups)}


def mean_group_wmape(y_true, y_pred, groups) -> float:
    """Clara-CP's headline metric: :func:`wmape` per NF, averaged over NFs (unweighted).

    Example
    -------
    >>> mean_group_wmape([1, 3, 2], [2, 2, 1], [0, 0, 1])
    0.75
    """
    return float(np.mean(list(wmape_per_group(y_true, y_pred, groups).values())))
