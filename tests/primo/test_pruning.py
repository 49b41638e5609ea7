"""The fast pruning path reproduces scikit-learn's minimal cost-complexity pruning exactly."""
import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from primo import PrDTClassifier, PrDTRegressor
from primo.models._pruning import PruningPath


def _same_tree(a, b) -> bool:
    return (a.node_count == b.node_count and np.array_equal(a.feature, b.feature)
            and np.array_equal(a.children_left, b.children_left) and np.allclose(a.threshold, b.threshold)
            and np.allclose(a.value, b.value))


@pytest.mark.parametrize("kind", ["regression", "classification"])
def test_path_and_every_subtree_match_scikit_learn(kind, clara):
    X, y, _, _ = clara
    if kind == "classification":
        y = (y > np.median(y)).astype(int)
        sk, ours = DecisionTreeClassifier, PrDTClassifier
        raw = {"leaf_smoothing": 0.0}  # scikit-learn's leaf frequencies, to compare every value
    else:
        sk, ours = DecisionTreeRegressor, PrDTRegressor
        raw = {}
    grown = sk(random_state=0).fit(X, y)
    reference = grown.cost_complexity_pruning_path(X, y)
    path = PruningPath(grown.tree_)
    np.testing.assert_allclose(path.alphas, reference.ccp_alphas, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(path.impurities, reference.impurities, rtol=1e-9, atol=1e-15)
    assert path.n_leaves[0] == grown.get_n_leaves() and path.n_leaves[-1] == 1
    alphas = reference.ccp_alphas
    probes = np.r_[alphas[1::7], np.sqrt(alphas[1:-1:5] * alphas[2::5])]
    for alpha in probes:
        expected = sk(random_state=0, ccp_alpha=alpha).fit(X, y).tree_
        assert _same_tree(path.prune(alpha), expected), alpha
        assert _same_tree(ours(random_state=0, ccp_alpha=alpha, **raw).fit(X, y).tree_, expected), alpha


def test_pruning_leaves_the_grown_tree_unchanged(clara):
    X, y, _, _ = clara
    grown = DecisionTreeRegressor(random_state=0).fit(X, y)
    before = grown.tree_.node_count
    path = PruningPath(grown.tree_)
    assert path.prune(np.inf).node_count == 1 and grown.tree_.node_count == before
    assert path.prune(0.0).node_count == before
