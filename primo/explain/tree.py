"""Explanations of a PrDT (pruned CART tree): the nodes with their traffic, and decision paths.

Example
-------
>>> from primo.explain import explain_global, explain_local
>>> tree = explain_global(prdt)                  # doctest: +SKIP
>>> tree.nodes[0].condition, tree.nodes[0].n_samples  # doctest: +SKIP
('R_i <= 0.01', 680)
>>> explain_local(prdt, X_test, rows=[0])[0].steps  # doctest: +SKIP
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from primo.explain._values import plain
from primo.explain.cautions import row_cautions
from primo.models.encoding import encode_table, needs_encoding
from primo.models.prdt import split_conditions

_LEAF = -1


@dataclass(frozen=True)
class TreeNode:
    """One node of a fitted tree.

    Attributes
    ----------
    id, depth, parent : position in the tree (``parent`` is -1 at the root).
    feature : name of the tested feature (None at a leaf); ``threshold`` its split point; rows with
        ``feature <= threshold`` go to ``left`` (for a text feature, the category *code*, see
        :mod:`primo.models.encoding`). ``missing_left`` says where missing values (and unseen
        categories) go.
    left_condition, right_condition : readable test of each branch, e.g. ``"city in {Lyon, Nice}"``,
        ``"dist <= 3.2 (or missing)"`` or ``"dist is missing"`` (None at a leaf).
    n_samples : training rows reaching the node (its *traffic*); ``weighted_samples`` with weights.
    impurity : the criterion's impurity (Gini, entropy, MSE, …).
    value : class fractions (classification) or the mean target (regression).
    prediction : the class (or value) predicted at this node.
    """

    id: int
    depth: int
    parent: int
    feature: str | None
    threshold: float | None
    left: int
    right: int
    missing_left: bool
    n_samples: int
    weighted_samples: float
    impurity: float
    value: np.ndarray
    prediction: object
    left_condition: str | None = None
    right_condition: str | None = None

    @property
    def is_leaf(self) -> bool:
        return self.left == _LEAF

    @property
    def condition(self) -> str | None:
        """The test that sends rows left ("yes"), e.g. ``"feature <= threshold"`` (None at a leaf).

        When missing values are known to take the right branch, it ends in ``(missing → no)``; when
        they take the left one, the left condition already ends in ``(or missing)``.
        """
        if self.is_leaf:
            return None
        if self.left_condition is None:
            return f"{self.feature} <= {self.threshold:.6g}"
        if (self.right_condition or "").endswith(" (or missing)"):
            return f"{self.left_condition} (missing → no)"
        return self.left_condition


@dataclass(frozen=True)
class TreeExplanation:
    """Global explanation of a PrDT: every node, and the features' impurity-decrease importance."""

    task: str
    criterion: str
    classes: list | None
    nodes: list[TreeNode]
    importances: pd.Series
    n_leaves: int
    depth: int
    importance_kind: str = "mean decrease in impurity (Gini importance), normalized to sum to 1"

    @property
    def root(self) -> TreeNode:
        return self.nodes[0]

    def children(self, node: TreeNode) -> tuple[TreeNode, TreeNode] | tuple[()]:
        """The (left, right) children of ``node``, or ``()`` at a leaf."""
        return () if node.is_leaf else (self.nodes[node.left], self.nodes[node.right])

    def leaves_below(self, node: TreeNode) -> int:
        """Number of leaves in the subtree rooted at ``node``."""
        stack, count = [node], 0
        while stack:
            current = stack.pop()
            if current.is_leaf:
                count += 1
            else:
                stack.extend(self.children(current))
        return count


@dataclass(frozen=True)
class PathStep:
    """One test on a decision path: ``value`` of ``feature`` compared with ``threshold``.

    ``value`` is the number the tree compared (a category's code for text features; None when
    missing); ``category`` the row's text for a text feature; ``branch`` the condition of the branch
    taken (:attr:`TreeNode.left_condition` / ``right_condition``).
    """

    node: int
    feature: str
    threshold: float
    value: object
    went_left: bool
    branch: str | None = None
    category: str | None = None

    @property
    def condition(self) -> str:
        """E.g. ``"rooms = 3 <= 3.5"``, ``"city = Paris → city in {Nice, Paris}"``, ``"dist is missing → right"``."""
        missing = self.value is None or (isinstance(self.value, float) and np.isnan(self.value))
        side = self.branch or ("left" if self.went_left else "right")
        if self.category is not None:
            unseen = " (unseen: taken as missing)" if missing else ""
            return f"{self.feature} = {self.category}{unseen} → {side}"
        if missing:
            if self.branch is not None and self.branch.startswith(f"{self.feature} is"):
                return self.branch  # a split of missing from present values says it all
            return f"{self.feature} is missing → {side}"
        if self.branch is not None and not np.isfinite(self.threshold):  # not "x <= inf": say "x is not missing"
            return f"{self.feature} = {self.value:.6g} → {self.branch}"
        operator = "<=" if self.went_left else ">"
        return f"{self.feature} = {self.value:.6g} {operator} {self.threshold:.6g}"


@dataclass(frozen=True)
class DecisionPath:
    """Local explanation of one row by a tree: the tests from the root to the leaf; ``cautions``
    lists what is unusual about the row (categories never seen in training, see
    :mod:`primo.explain.cautions`)."""

    label: str
    features: dict
    steps: list[PathStep]
    leaf: TreeNode
    prediction: object
    cautions: tuple[str, ...] = ()


def explain_tree(model) -> TreeExplanation:
    """Global explanation of a fitted PrDT (see :class:`TreeExplanation`).

    Parameters
    ----------
    model : fitted :class:`~primo.PrDTClassifier` or :class:`~primo.PrDTRegressor` (any fitted
        scikit-learn decision tree works).

    Example
    -------
    >>> explanation = explain_tree(prdt)  # doctest: +SKIP
    >>> [n.condition for n in explanation.nodes if not n.is_leaf][:3]  # doctest: +SKIP
    """
    check_is_fitted(model, "tree_")
    tree = model.tree_
    names = _feature_names(model)
    conditions = split_conditions(model, "{:.6g}")
    classes = list(model.classes_) if hasattr(model, "classes_") else None
    if classes is not None and np.ndim(classes[0]) > 0:
        raise ValueError("multi-output trees are not supported by the explanation")
    depth = np.zeros(tree.node_count, dtype=int)
    parent = np.full(tree.node_count, -1, dtype=int)
    for node in range(tree.node_count):  # children always have larger ids than their parent
        for child in (tree.children_left[node], tree.children_right[node]):
            if child != _LEAF:
                depth[child], parent[child] = depth[node] + 1, node
    nodes = []
    for node in range(tree.node_count):
        value = np.asarray(tree.value[node, 0], dtype=float)
        prediction = classes[int(np.argmax(value))] if classes is not None else float(value[0])
        leaf = tree.children_left[node] == _LEAF
        nodes.append(TreeNode(
            id=node,
            depth=int(depth[node]),
            parent=int(parent[node]),
            feature=None if leaf else names[tree.feature[node]],
            threshold=None if leaf else float(tree.threshold[node]),
            left=int(tree.children_left[node]),
            right=int(tree.children_right[node]),
            missing_left=bool(tree.missing_go_to_left[node]),
            n_samples=int(tree.n_node_samples[node]),
            weighted_samples=float(tree.weighted_n_node_samples[node]),
            impurity=float(tree.impurity[node]),
            value=value if classes is not None else value[:1],
            prediction=plain(prediction),
            left_condition=None if leaf else conditions[node][0],
            right_condition=None if leaf else conditions[node][1],
        ))
    return TreeExplanation(
        task="classification" if classes is not None else "regression",
        criterion=str(model.criterion),
        classes=[plain(c) for c in classes] if classes is not None else None,
        nodes=nodes,
        importances=pd.Series(model.feature_importances_, index=names, name="importance").sort_values(ascending=False),
        n_leaves=int(tree.n_leaves),
        depth=int(tree.max_depth),
    )


def explain_tree_rows(model, X, labels: list[str], explanation: TreeExplanation | None = None) -> list[DecisionPath]:
    """Decision path of every row of ``X`` through a fitted PrDT.

    Parameters
    ----------
    model : fitted PrDT.
    X : rows to explain (DataFrame with the model's features, or 2-D array).
    labels : one display label per row.
    explanation : the model's :func:`explain_tree` result, to reuse (computed when omitted).

    Example
    -------
    >>> path = explain_tree_rows(prdt, X_test.iloc[:1], ["row 0"])[0]  # doctest: +SKIP
    >>> [step.condition for step in path.steps]  # doctest: +SKIP
    """
    from primo.models._base import check_prediction_input, names_warned_once

    X = check_prediction_input(model, X)  # the warning about names, when due: here only, not once per method below
    explanation = explanation or explain_tree(model)
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X), columns=_feature_names(model))
    frame = frame.infer_objects()
    vocabularies = getattr(model, "categories_", {})
    # What the tree compared: category codes (unseen ones missing), booleans as 0/1.
    values = encode_table(frame, vocabularies).to_numpy() if vocabularies or needs_encoding(frame) else frame.to_numpy(dtype=float)
    with names_warned_once():
        indicator = model.decision_path(X)
        predictions = model.predict(X)
        cautions = row_cautions(model, X, predictions)
    feature_index = {name: i for i, name in enumerate(_feature_names(model))}
    paths = []
    for i, label in enumerate(labels):
        visited = indicator.indices[indicator.indptr[i]:indicator.indptr[i + 1]]
        visited = sorted(visited, key=lambda n: explanation.nodes[n].depth)
        steps = []
        for node_id, next_id in zip(visited[:-1], visited[1:]):
            node = explanation.nodes[node_id]
            j = feature_index[node.feature]
            value, went_left = values[i, j], next_id == node.left
            steps.append(PathStep(node=node_id, feature=node.feature, threshold=node.threshold,
                                  value=None if np.isnan(value) else float(value), went_left=went_left,
                                  branch=node.left_condition if went_left else node.right_condition,
                                  category=_category(vocabularies.get(j), value, frame.iloc[i, j])))
        paths.append(DecisionPath(
            label=str(label),
            features={str(k): plain(v) for k, v in frame.iloc[i].items()},
            steps=steps,
            leaf=explanation.nodes[visited[-1]],
            prediction=plain(predictions[i]),
            cautions=tuple(cautions[i].messages),
        ))
    return paths


def _category(vocabulary: list[str] | None, code: float, raw) -> str | None:
    """The category a row holds for a text feature (None for other features, or when missing)."""
    if vocabulary is None or pd.isna(raw):
        return None
    return str(raw) if np.isnan(code) else vocabulary[int(code)]  # raw may be the code itself


def _feature_names(model) -> list[str]:
    names = getattr(model, "feature_names_", None)
    if names is None:  # a plain scikit-learn tree
        names = getattr(model, "feature_names_in_", None)
        names = [str(n) for n in names] if names is not None else [f"x{i}" for i in range(model.n_features_in_)]
    return list(names)
