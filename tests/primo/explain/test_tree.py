"""PrDT explanations: every node with its traffic, and decision paths that match the tree."""
import numpy as np
import pytest

from primo.explain import explain_global, explain_local


def test_nodes_carry_traffic_impurity_and_value(prdt_classifier):
    tree = explain_global(prdt_classifier)
    sk = prdt_classifier.tree_
    assert tree.n_leaves == prdt_classifier.n_leaves_ and tree.depth == prdt_classifier.depth_
    assert sum(n.is_leaf for n in tree.nodes) == tree.n_leaves
    for node in tree.nodes:
        if not node.is_leaf:  # traffic is conserved at every split
            left, right = tree.children(node)
            assert left.n_samples + right.n_samples == node.n_samples
            assert left.depth == right.depth == node.depth + 1 and left.parent == node.id
    root = tree.root
    assert root.n_samples == sk.n_node_samples[0] and root.impurity == pytest.approx(sk.impurity[0])
    assert root.condition.startswith(f"{root.feature} <= ")
    assert tree.leaves_below(root) == tree.n_leaves
    assert list(tree.importances.index)[0] == tree.importances.idxmax()


def test_decision_path_ends_in_the_leaf_the_model_uses(prdt_classifier, linnos):
    X, _ = linnos
    tree = explain_global(prdt_classifier)
    paths = explain_local(prdt_classifier, X, rows=[0, 10, 100])
    leaves = prdt_classifier.apply(X.iloc[[0, 10, 100]])
    for path, leaf, (_, row) in zip(paths, leaves, X.iloc[[0, 10, 100]].iterrows()):
        assert path.leaf.id == leaf and path.leaf.is_leaf
        assert len(path.steps) == path.leaf.depth
        for step in path.steps:
            assert (row[step.feature] <= step.threshold) == step.went_left
            node = tree.nodes[step.node]
            assert step.threshold == node.threshold
            assert ("<=" in step.condition) == step.went_left
        assert path.prediction == prdt_classifier.predict(row.to_frame().T)[0]


def test_int_rows_span_the_predictions(prdt_regressor, clara):
    _, _, X_test, _ = clara
    paths = explain_local(prdt_regressor, X_test, rows=3)
    predicted = prdt_regressor.predict(X_test)
    assert [p.prediction for p in paths][0] == pytest.approx(predicted.min())
    assert [p.prediction for p in paths][-1] == pytest.approx(predicted.max())
    with pytest.raises(IndexError, match="out of range"):
        explain_local(prdt_regressor, X_test, rows=[len(X_test)])
    with pytest.raises(TypeError, match="rows must be"):
        explain_local(prdt_regressor, X_test, rows="all")


def test_regression_leaf_value_is_the_mean_target(prdt_regressor, clara):
    X, y, _, _ = clara
    tree = explain_global(prdt_regressor)
    leaf_of_row = prdt_regressor.apply(X)
    leaf = next(n for n in tree.nodes if n.is_leaf)
    assert leaf.value[0] == pytest.approx(np.mean(y[leaf_of_row == leaf.id]))
    assert tree.classes is None and tree.task == "regression"
