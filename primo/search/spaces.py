"""Default search spaces for PrDT and PrAM (scikit-optimize dimensions, keyed by parameter name)."""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import clone
from skopt.space import Categorical, Integer, Real

from primo.models.pram import _PrAMBase
from primo.models.prdt import _PrDTMixin


def prdt_space(estimator, X, y, sample_weight=None) -> dict:
    """``ccp_alpha`` on a log scale over the range where pruning changes the tree.

    The useful α differs by orders of magnitude between systems (the paper finds 1e-5..1e-2 for
    LinnOS), and for regression it is in squared target units, so the bounds come from the data:
    the cost-complexity pruning path of the full tree, from a decade below its smallest effective α
    (so the unpruned tree stays reachable: the smallest effective α already removes a split) up to
    the α that prunes to the root.
    """
    full = clone(estimator).set_params(ccp_alpha=0.0)
    path = full.cost_complexity_pruning_path(X, y, sample_weight=sample_weight)
    alphas = np.asarray(path.ccp_alphas, dtype=float)
    alphas = alphas[alphas > 0]
    if alphas.size == 0:  # already a single leaf or pure: nothing to prune
        high = 1.0
        low = 1e-8
    else:
        high = float(alphas.max())
        low = float(max(alphas.min() / 10, high * 1e-8))
    if low >= high:
        low = high / 1e3
    return {"ccp_alpha": Real(low, high, prior="log-uniform", name="ccp_alpha")}


def pram_space(estimator, X, y, sample_weight=None) -> dict:
    """Bins, pair terms, learning rate, leaf size and leaves per boosting tree."""
    n_features = X.shape[1]
    max_pairs = n_features * (n_features - 1) // 2
    space = {
        "max_bins": Integer(8, 512, prior="log-uniform", name="max_bins"),
        "learning_rate": Real(0.005, 0.3, prior="log-uniform", name="learning_rate"),
        "min_samples_leaf": Integer(1, 50, prior="log-uniform", name="min_samples_leaf"),
        "max_leaves": Integer(2, 4, name="max_leaves"),
    }
    if _is_multiclass(estimator, y):
        space["interactions"] = Categorical([0], name="interactions")
    elif max_pairs > 0:
        space["interactions"] = Integer(0, min(max_pairs, 32), name="interactions")
    return space


#: interpret's EBM default: main effects binned into at most this many bins (PrAM's default is 256).
EBM_MAX_BINS = 1024


def pram_starts(estimator, X) -> list[dict]:
    """The estimator at EBM's main-effect resolution, when a numeric feature has more distinct values than its bins.

    Where a shape function has fine detail (an exchange rate over 778 days), 256 bins were the default PrAM's
    whole gap to EBM's defaults (Pound 0.00193 → 0.00165 MAE, EBM 0.0016); as PrAM's default, 1,024 bins
    raised breast cancer's log loss by 7% (``reports/benchmarks/README.md``). So automatic selection scores
    it beside the default, and the choice rule keeps it only where it validates better beyond noise.
    """
    bins = estimator.get_params().get("max_bins")
    if not isinstance(bins, (int, np.integer)) or bins >= EBM_MAX_BINS or not hasattr(X, "shape"):
        return []
    numeric = pd.DataFrame(X).select_dtypes("number")
    return [{"max_bins": EBM_MAX_BINS}] if (numeric.nunique() > bins).any() else []


def _is_multiclass(estimator, y) -> bool:
    # interpret drops pair terms from multiclass explanations, so Primo's multiclass models have none.
    return hasattr(estimator, "predict_proba") and len(np.unique(y)) > 2


def default_space(estimator, X, y, sample_weight=None) -> dict:
    """The default space of a Primo estimator; other estimators need an explicit ``space``."""
    if isinstance(estimator, _PrDTMixin):
        return prdt_space(estimator, X, y, sample_weight)
    if isinstance(estimator, _PrAMBase):
        return pram_space(estimator, X, y, sample_weight)
    raise ValueError(
        f"no default search space for {type(estimator).__name__}; pass space={{'param': skopt dimension, ...}}"
    )
