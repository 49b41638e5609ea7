"""Explicit edits of a PrDT: change a leaf's value or a split's threshold.

Nodes are scikit-learn node ids (``model.tree_``; ``model.apply(X)`` gives the leaf of each row,
``primo.explain.explain_tree`` lists them all). The edits write into the fitted ``tree_`` arrays
in place; node statistics (``n_node_samples``, ``impurity``) keep describing the training data as
grown, they are not recomputed.

Example
-------
>>> leaf = int(prdt.apply(X_test[:1])[0])  # doctest: +SKIP
>>> edited = set_leaf_value(prdt, leaf, 42.0)  # doctest: +SKIP
>>> edited = set_threshold(edited, 0, 2.5)  # doctest: +SKIP
"""
from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from primo.adjust.log import append_record, jsonable, operation, target_model
from primo.models.encoding import category_split

_TOLERANCE = 1e-9


def _check_tree(model, node, *, leaf: bool, what: str) -> int:
    if not hasattr(model, "tree_"):
        raise TypeError(f"{what} needs a fitted PrDT (PrDTRegressor/PrDTClassifier), got {type(model).__name__}")
    check_is_fitted(model, "tree_")
    tree = model.tree_
    if isinstance(node, bool) or not isinstance(node, (int, np.integer)) or not 0 <= node < tree.node_count:
        raise ValueError(f"node must be a node id in 0..{tree.node_count - 1}, got {node!r}")
    is_leaf = tree.children_left[node] == -1
    if leaf and not is_leaf:
        raise ValueError(f"node {node} is a split, not a leaf (leaves: {np.flatnonzero(tree.children_left == -1).tolist()})")
    if not leaf and is_leaf:
        raise ValueError(f"node {node} is a leaf; set_threshold needs a split node")
    return int(node)


def _leaf_vector(model, value) -> np.ndarray:
    """The ``tree_.value`` row for a requested leaf value (regression: a number; classifier: a
    class label, or one probability per class in the order of ``classes_``)."""
    current = model.tree_.value[0]  # shape (n_outputs, n_classes or 1)
    if current.shape[0] != 1:
        raise ValueError("leaf edits support single-output trees only")
    if not hasattr(model, "classes_"):
        value = float(value)
        if not np.isfinite(value):
            raise ValueError(f"leaf value must be finite, got {value}")
        return np.array([[value]])
    classes = list(model.classes_)
    if np.ndim(value) == 0:
        if value not in classes:
            raise ValueError(f"class {value!r} is not one of the model's classes {classes}")
        row = np.zeros((1, len(classes)))
        row[0, classes.index(value)] = 1.0
        return row
    row = np.asarray(value, dtype=float).reshape(1, -1)
    if row.shape[1] != len(classes) or np.any(row < 0) or not np.isclose(row.sum(), 1.0):
        raise ValueError(f"a classifier leaf value is a class label or {len(classes)} probabilities summing to 1")
    return row


def _plain_leaf(vector: np.ndarray, model):
    return float(vector[0, 0]) if not hasattr(model, "classes_") else vector[0].tolist()


@operation("set_leaf_value", revert=lambda model, record, **_: _revert_node(model, record, "value"))
def set_leaf_value(model, node, value, *, inplace=False):
    """Set the prediction of one leaf of a PrDT.

    Parameters
    ----------
    model : fitted PrDT (single output).
    node : leaf node id.
    value : regression: the new predicted value; classification: a class label (that class gets
        probability 1) or a probability per class in the order of ``classes_``.
    inplace : edit ``model`` itself instead of a copy.

    Example
    -------
    >>> edited = set_leaf_value(prdt_clf, 4, 1)  # leaf 4 now predicts class 1  # doctest: +SKIP
    """
    model = target_model(model, inplace)
    node = _check_tree(model, node, leaf=True, what="set_leaf_value")
    vector = _leaf_vector(model, value)
    before = _plain_leaf(model.tree_.value[node], model)
    model.tree_.value[node] = vector
    after = _plain_leaf(vector, model)
    append_record(model, {
        "operation": "set_leaf_value",
        "summary": f"leaf {node} ({int(model.tree_.n_node_samples[node])} training rows): value {_text(before)} → {_text(after)}",
        "arguments": {"node": node, "value": jsonable(value)},
        "node": node,
        "before": before,
        "after": after,
    })
    return model


@operation("set_threshold", revert=lambda model, record, **_: _revert_node(model, record, "threshold"))
def set_threshold(model, node, threshold, *, inplace=False):
    """Move the threshold of one split of a PrDT (rows with ``feature <= threshold`` go left).

    Parameters
    ----------
    model : fitted PrDT.
    node : split node id.
    threshold : new threshold, in the feature's units; for a text feature, in category codes
        (``model.categories_[feature]`` lists the categories in code order: ``threshold = 1.5`` sends
        the first two left). The edit log then names the categories that go left before and after.
    inplace : edit ``model`` itself instead of a copy.

    Example
    -------
    >>> edited = set_threshold(prdt, 0, 12.5)  # the root now splits at 12.5  # doctest: +SKIP
    """
    model = target_model(model, inplace)
    node = _check_tree(model, node, leaf=False, what="set_threshold")
    threshold = float(threshold)
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be finite, got {threshold}")
    tree = model.tree_
    before = float(tree.threshold[node])
    tree.threshold[node] = threshold
    feature = model.feature_names_[int(tree.feature[node])]
    vocabulary = getattr(model, "categories_", {}).get(int(tree.feature[node]))
    change = f"threshold {before:.6g} → {threshold:.6g}"
    if vocabulary is not None:
        left_before, left_after = category_split(vocabulary, before)[0], category_split(vocabulary, threshold)[0]
        change += f" (left: {{{', '.join(left_before)}}} → {{{', '.join(left_after)}}})"
    append_record(model, {
        "operation": "set_threshold",
        "summary": f"split {node} on {feature}: {change}",
        "arguments": {"node": node, "threshold": threshold},
        "node": node,
        "feature": feature,
        "before": before,
        "after": threshold,
    })
    return model


def _text(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(f"{v:.3g}" for v in value) + "]"
    return f"{value:.6g}"


def _revert_node(model, record, field: str):
    node = record["node"]
    tree = model.tree_
    current = np.asarray(tree.value[node] if field == "value" else tree.threshold[node], dtype=float).ravel()
    if current.shape != np.ravel(record["after"]).shape or not np.allclose(current, np.ravel(record["after"]), atol=_TOLERANCE):
        raise ValueError(f"node {node} changed since this edit was logged; cannot undo it safely")
    if field == "value":
        tree.value[node] = np.asarray(record["before"], dtype=float).reshape(tree.value[node].shape)
    else:
        tree.threshold[node] = float(record["before"])
    return model
