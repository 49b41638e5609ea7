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


@pytest.mark.parametrize("rows", [None, 3, [0, -1]])
def test_rows_without_names_are_warned_about_once_per_call(rows):
    """explain_local checks the caller's rows once: an array for a tree fit on a DataFrame gives scikit-learn's
    warning once (before, once more from each internal call: the check, decision_path, predict, the cautions and,
    for rows=3, the ranking), and so do explain_tree_rows and row_cautions; the reverse (a DataFrame for a tree fit
    on an array) too. The paths are those of the named rows; rows given as the model was fit give no warning."""
    import warnings

    import pandas as pd

    from primo import PrDTRegressor
    from primo.explain import explain_tree_rows, row_cautions

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=100), "b": rng.normal(size=100)})
    y = X["a"] + X["b"]
    named = PrDTRegressor(max_depth=3, random_state=0).fit(X, y)
    unnamed = PrDTRegressor(max_depth=3, random_state=0).fit(X.to_numpy(), y)
    without = "X does not have valid feature names, but PrDTRegressor was fitted with feature names"
    with_names = "X has feature names, but PrDTRegressor was fitted without feature names"
    for call, model, given, message in [
            (lambda m, X: explain_local(m, X, rows=rows), named, X.to_numpy()[:20], without),
            (lambda m, X: explain_local(m, X, rows=rows), unnamed, X[:20], with_names),
            (lambda m, X: explain_tree_rows(m, X, ["first", "second"]), named, X.to_numpy()[:2], without),
            (lambda m, X: row_cautions(m, X), named, X.to_numpy()[:5], without)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(model, given)
        assert [str(w.message) for w in caught] == [message]
    paths = explain_local(named, X[:20], rows=rows)
    with pytest.warns(UserWarning, match=without):
        from_array = explain_local(named, X.to_numpy()[:20], rows=rows)
    assert [(p.leaf.id, p.prediction, p.features) for p in from_array] == [
        (p.leaf.id, p.prediction, p.features) for p in paths]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        explain_local(unnamed, X.to_numpy()[:20], rows=rows)
        explain_local(named, X[:20], rows=rows)
