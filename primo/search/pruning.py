"""Exact pruning search for PrDT: every nested subtree of one grown tree, scored without refitting.

Minimal cost-complexity pruning orders a tree's subtrees in one nested sequence, so there is
nothing to search by trial and error: grow the full tree once per validation fold, walk its pruning
path (:class:`primo.models._pruning.PruningPath`), and score every subtree on the fold's validation
rows. The candidate α are those of the tree grown on all search rows — the geometric mean of each
interval of its path on which the subtree does not change, as in CART and rpart — thinned to
``max_candidates`` spread evenly over the log of the leaf count. The unpruned tree (α = 0, PrDT's
default) is always a candidate. The rule of :mod:`primo.search.choice` then keeps the smallest tree
within noise of the best, and the refit prunes the tree grown on every row at that α (the same tree
``PrDT*(ccp_alpha=α).fit`` grows, without growing it again).

Compared with a Bayesian search over ``ccp_alpha``, which refits a tree per trial and can miss the
narrow α intervals of small trees, it scores every distinct subtree it lists and costs one grown tree
per fold. Bayesian search over ``ccp_alpha`` stays available (``BayesianSearch(PrDTClassifier())``).

Example
-------
>>> search = PruningSearch(PrDTClassifier(random_state=0), cv=5).fit(X, y)  # doctest: +SKIP
>>> search.best_params_, search.best_estimator_.n_leaves_  # doctest: +SKIP
"""
from __future__ import annotations

import copy
import time
import warnings

import joblib
import numpy as np
from sklearn.base import clone
from sklearn.utils import _safe_indexing

from primo.models._pruning import PruningPath
from primo.models.prdt import _PrDTMixin
from primo.search.searchers import _BaseSearch, fit_on_rows, score_model, summarize_folds, warning_texts


def candidate_alphas(path: PruningPath, max_candidates: int) -> np.ndarray:
    """One α per distinct subtree of ``path`` (at most ``max_candidates``, evenly spread in log leaves)."""
    alphas = np.maximum.accumulate(path.alphas)  # the α at which each step's subtree appears
    distinct = np.flatnonzero(np.r_[True, alphas[1:] > alphas[:-1]])
    # Subtree k holds for α in [alphas[k], alphas[k+1]); the last one (the root) from alphas[-1] on.
    upper = np.r_[alphas[distinct[1:]], alphas[-1]]
    middle = np.where(alphas[distinct] > 0, np.sqrt(alphas[distinct] * upper), 0.0)
    middle[-1] = alphas[distinct[-1]]
    # Where an interval is a rounding error wide, its mean may land on the next subtree: take its start.
    steps = np.r_[distinct[1:] - 1, len(alphas) - 1]
    drifted = np.array([path.steps(a) for a in middle]) != steps
    middle[drifted] = alphas[distinct[drifted]]
    leaves = path.n_leaves[distinct]
    if len(middle) > max_candidates:
        targets = np.geomspace(leaves.max(), 1, max_candidates)
        picks = {int(np.argmin(np.abs(np.log(leaves) - np.log(t)))) for t in targets} | {0, len(middle) - 1}
        middle = middle[sorted(picks)]
    return middle


def _score_path(estimator, alphas, X, y, sample_weight, train, valid, loss, chunks: bool):
    """Grow one tree on ``train`` and score its subtree at every α on ``valid``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grown = fit_on_rows(estimator, {"ccp_alpha": 0.0}, X, y, sample_weight, train)
        path = PruningPath(grown.tree_)
        X_valid, y_valid = _safe_indexing(X, valid), y[valid]
        if getattr(grown, "categories_", {}):
            # Every subtree reads the same codes: encode the rows once, not once per subtree (the
            # encoding of text columns took most of the search's time), and score a copy that reads codes.
            X_valid = grown.encode_rows(X_valid)
            grown = copy.copy(grown)
            grown.categories_ = {}
        results = []
        for alpha in alphas:
            pruned = copy.copy(grown)
            pruned.tree_ = path.prune(alpha)
            results.append(score_model(pruned, loss, X_valid, y_valid, chunks=chunks))
    return results, warning_texts(caught)


class PruningSearch(_BaseSearch):
    """Choose ``ccp_alpha`` of a PrDT from its exact pruning path (see the module docstring).

    Parameters
    ----------
    estimator : PrDTClassifier or PrDTRegressor (its ``ccp_alpha`` is what is searched).
    scoring, tolerance, lam, gamma, cv, validation_fraction, search_sample_size, n_jobs,
    random_state, refit, progress : as for :class:`primo.search.BayesianSearch` (``n_jobs``
        scores the folds in parallel).
    max_candidates : int, default=100 — subtrees scored per fold, at most.
    """

    method = "pruning path"

    def __init__(self, estimator, *, scoring=None, tolerance=None, lam=0.0, gamma=1.0, max_candidates=100,
                 cv=None, validation_fraction=0.25, search_sample_size=None, n_jobs=None, random_state=None,
                 refit=True, progress=True):
        self.estimator = estimator
        self.scoring = scoring
        self.tolerance = tolerance
        self.lam = lam
        self.gamma = gamma
        self.max_candidates = max_candidates
        self.cv = cv
        self.validation_fraction = validation_fraction
        self.search_sample_size = search_sample_size
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.refit = refit
        self.progress = progress

    def _refit_model(self, params, X, y, sample_weight, stop_at=None):
        if getattr(self, "_grown", None) is None:
            return super()._refit_model(params, X, y, sample_weight, stop_at)
        grown, path = self._grown
        model = copy.deepcopy(grown)
        model.set_params(ccp_alpha=params["ccp_alpha"])
        model.tree_ = path.prune(params["ccp_alpha"]) if params["ccp_alpha"] > 0 else grown.tree_
        return model

    def _run_trials(self, X, y, sample_weight, splits, loss, penalty):
        if not isinstance(self.estimator, _PrDTMixin):
            raise TypeError(f"PruningSearch searches a PrDT's pruning; got {type(self.estimator).__name__}")
        if int(self.max_candidates) < 2:
            raise ValueError(f"max_candidates must be >= 2, got {self.max_candidates}")
        start = time.perf_counter()
        grown = clone(self.estimator).set_params(ccp_alpha=0.0)
        grown.fit(X, y, **({} if sample_weight is None else {"sample_weight": sample_weight}))
        path = PruningPath(grown.tree_)
        alphas = candidate_alphas(path, int(self.max_candidates))
        self.space_ = {"ccp_alpha": [float(a) for a in alphas]}
        with self._progress_bar(len(splits)) as bar, joblib.Parallel(n_jobs=self.n_jobs) as parallel:
            folds = parallel(joblib.delayed(_score_path)(self.estimator, alphas, X, y, sample_weight, train, valid,
                                                         loss, len(splits) == 1)
                             for train, valid in splits)
            bar.update(len(splits))
        seconds = (time.perf_counter() - start) / len(alphas)
        # The tree grown on every search row is the refit's tree, unless the search ran on a sample.
        self._grown = (grown, path) if self.search_sample_ is None else None
        rows = []
        for k, alpha in enumerate(alphas):
            pruned = path.prune(alpha)
            leaves, depth = int(pruned.n_leaves), int(pruned.max_depth)
            result = {**summarize_folds([fold[0][k] for fold in folds]), "complexity": float(leaves * depth),
                      "size": float(leaves), "error": None, "fit_time": seconds,
                      "warnings": [w for fold in folds for w in fold[1]] if k == 0 else []}
            rows.append(self._row(k + 1, "path", {"ccp_alpha": float(alpha)}, result, penalty))
        return rows
