"""PrDT: a full CART tree pruned by minimal cost-complexity pruning.

The tree is grown with no size limit and then pruned with ``ccp_alpha`` (Breiman et al.'s
R_α(T) = R(T) + α·|leaves|), which is exactly what scikit-learn's trees do when given
``ccp_alpha``; PrDT therefore *is* a scikit-learn tree (so ``export_text``, ``plot_tree``,
skl2onnx and friends keep working) with Primo's complexity measure, printing and model files.

Example
-------
>>> from sklearn.datasets import load_iris
>>> from primo import PrDTClassifier
>>> X, y = load_iris(return_X_y=True)
>>> tree = PrDTClassifier(ccp_alpha=0.01).fit(X, y)
>>> tree.n_leaves_, tree.depth_, tree.complexity_
(5, 4, 20)
"""
from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor, export_text
from sklearn.tree._tree import Tree
from sklearn.utils.validation import check_is_fitted

from primo.models._base import PrimoModelMixin


class _PrDTMixin(PrimoModelMixin):
    def fit(self, X, y, sample_weight=None, check_input=True):
        """Grow the full tree, prune it with ``ccp_alpha``; returns ``self``."""
        target = np.asarray(y)
        if target.dtype.kind in "fc" and not np.all(np.isfinite(target)):
            raise ValueError("y contains NaN or infinity")
        if isinstance(X, np.ndarray) and not X.flags.writeable:
            # scikit-learn's NaN scan of the tree fit needs a writable buffer (read-only float32 fails).
            X = X.copy()
        super().fit(X, y, sample_weight=sample_weight, check_input=check_input)
        self.metadata_ = {}
        return self

    @property
    def n_leaves_(self) -> int:
        """Number of leaves of the pruned tree."""
        check_is_fitted(self)
        return int(self.tree_.n_leaves)

    @property
    def depth_(self) -> int:
        """Depth of the pruned tree (a single leaf has depth 0)."""
        check_is_fitted(self)
        return int(self.tree_.max_depth)

    @property
    def complexity_(self) -> int:
        """The paper's C(θ) for PrDT: number of leaves × depth."""
        return self.n_leaves_ * self.depth_

    def __str__(self) -> str:
        try:
            check_is_fitted(self)
        except Exception:
            return repr(self)
        header = (
            f"{type(self).__name__}: {self.n_leaves_} leaves, depth {self.depth_}, "
            f"complexity {self.complexity_} (ccp_alpha={self.ccp_alpha:g})"
        )
        rules = export_text(self, feature_names=self.feature_names_, decimals=4, max_depth=64)
        return f"{header}\n{rules}"

    # -- model files: the scikit-learn Tree is rebuilt from its node arrays, no pickle.
    def _get_state(self) -> dict:
        state = {
            k: v
            for k, v in vars(self).items()
            if k.endswith("_") and not k.startswith("_") and k not in ("tree_", "metadata_")
        }
        tree = self.tree_
        state["tree_"] = {
            "n_features": int(tree.n_features),
            "n_classes": np.asarray(tree.n_classes, dtype=np.intp),
            "n_outputs": int(tree.n_outputs),
            **tree.__getstate__(),
        }
        return state

    def _set_state(self, state: dict) -> None:
        state = dict(state)
        tree_state = dict(state.pop("tree_"))
        tree = Tree(
            tree_state.pop("n_features"),
            np.asarray(tree_state.pop("n_classes"), dtype=np.intp),
            tree_state.pop("n_outputs"),
        )
        tree.__setstate__(tree_state)
        for key, value in state.items():
            setattr(self, key, value)
        self.tree_ = tree


class PrDTClassifier(_PrDTMixin, DecisionTreeClassifier):
    """Pruned decision tree classifier (PrDT).

    Parameters
    ----------
    criterion : {"gini", "entropy", "log_loss"}, default="gini"
    ccp_alpha : float, default=0.0
        Cost-complexity pruning strength; Primo's search tunes it (log scale).
    max_depth, min_samples_leaf, min_weight_fraction_leaf : optional extra limits on the grown tree
        (the paper grows it fully).
    class_weight : dict, "balanced" or None
        Class weights, e.g. ``{1: 4.0}`` to make slow I/Os costlier (LinnOS's biased training).
    monotonic_cst : array-like of {-1, 0, 1}, optional
        Per-feature monotonic constraint (binary classification only; see scikit-learn).
    random_state : int, optional

    Attributes
    ----------
    tree_, classes_, n_features_in_, feature_names_in_ : as in scikit-learn.
    n_leaves_, depth_, complexity_ : size of the pruned tree; complexity = leaves × depth.
    metadata_ : dict, search/distillation history and edit log saved with the model.
    """

    def __init__(
        self,
        *,
        criterion="gini",
        ccp_alpha=0.0,
        max_depth=None,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        class_weight=None,
        monotonic_cst=None,
        random_state=None,
    ):
        super().__init__(
            criterion=criterion,
            ccp_alpha=ccp_alpha,
            max_depth=max_depth,
            min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            class_weight=class_weight,
            monotonic_cst=monotonic_cst,
            random_state=random_state,
        )


class PrDTRegressor(_PrDTMixin, DecisionTreeRegressor):
    """Pruned decision tree regressor (PrDT).

    Parameters
    ----------
    criterion : {"squared_error", "friedman_mse", "absolute_error", "poisson"}, default="squared_error"
    ccp_alpha : float, default=0.0
        Cost-complexity pruning strength (in units of the criterion, e.g. squared target units).
    max_depth, min_samples_leaf, monotonic_cst, random_state : as for :class:`PrDTClassifier`.
    """

    def __init__(
        self,
        *,
        criterion="squared_error",
        ccp_alpha=0.0,
        max_depth=None,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        monotonic_cst=None,
        random_state=None,
    ):
        super().__init__(
            criterion=criterion,
            ccp_alpha=ccp_alpha,
            max_depth=max_depth,
            min_samples_leaf=min_samples_leaf,
            min_weight_fraction_leaf=min_weight_fraction_leaf,
            monotonic_cst=monotonic_cst,
            random_state=random_state,
        )
