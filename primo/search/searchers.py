"""Bayesian, random and grid search of a model's structure and hyper-parameters.

All three minimize S(θ) = P(θ) + λ·C(θ)^γ on hold-out or k-fold validation, evaluate trials in
parallel with joblib (so any joblib backend, e.g. Dask or Ray, can run them), keep the full trial
history as a DataFrame, and refit the best configuration on all the data. The default validation
is one hold-out (``validation_fraction``); on small data prefer ``cv=5``: on Clara-MS (680 rows)
a single hold-out ranked PrAM configurations by noise and the searched model did not beat PrAM's
defaults, while 5-fold CV beat them in 3 of 3 seeds (``reports/benchmarks/README.md``).

Bayesian search asks scikit-optimize's ``Optimizer`` (Gaussian process + expected improvement)
for ``batch_size`` points at a time; with more than one, the constant-liar strategy keeps
parallel workers off the same point. It can be warm-started from an earlier search's trials
(``prior=``), e.g. yesterday's search before today's model update.

Scaling out and up: inside :func:`primo.parallel_backend` (Dask, Ray or local joblib), trials run
on that backend; ``n_jobs=None`` (the default) then uses all of its workers. The batch size is
``batch_size``, else ``n_jobs`` when positive, else the backend's worker count: the trials depend
only on the seed and the batch size, not on where they ran. On large data,
``search_sample_size`` runs the trials on a stratified sample (rows, or a fraction) and refits
the best configuration on every row.

Example
-------
>>> search = BayesianSearch(PrDTClassifier(), scoring="f1", lam=1e-4, n_trials=20, random_state=0)
>>> search.fit(X, y)  # doctest: +SKIP
>>> search.best_params_, search.trials_.head()  # doctest: +SKIP
"""
from __future__ import annotations

import itertools
import logging
import math
import time

import joblib
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_is_fitted
from skopt import Optimizer
from threadpoolctl import threadpool_limits
from skopt.space import Categorical, Integer, Space
from tqdm.auto import tqdm

from primo.parallel import effective_n_jobs
from primo.search.objective import ComplexityPenalty, resolve_loss
from primo.search.spaces import default_space

logger = logging.getLogger(__name__)


def _python_scalar(value):
    return value.item() if isinstance(value, np.generic) else value


def _evaluate_trial(estimator, params, X, y, sample_weight, splits, loss):
    """Fit on each training split, return (mean loss, mean complexity, seconds, error message)."""
    start = time.perf_counter()
    losses, complexities = [], []
    try:
        for train, valid in splits:
            model = clone(estimator).set_params(**params)
            fit_kwargs = {} if sample_weight is None else {"sample_weight": sample_weight[train]}
            model.fit(_safe_indexing(X, train), _safe_indexing(y, train), **fit_kwargs)
            losses.append(loss(model, _safe_indexing(X, valid), _safe_indexing(y, valid)))
            complexities.append(float(getattr(model, "complexity_", 0.0)))
    except Exception as exc:  # a bad configuration is a failed trial, not a failed search
        return math.nan, math.nan, time.perf_counter() - start, f"{type(exc).__name__}: {exc}"
    return float(np.mean(losses)), float(np.mean(complexities)), time.perf_counter() - start, None


class _BaseSearch(MetaEstimatorMixin, BaseEstimator):
    method = ""

    def __init__(
        self,
        estimator,
        *,
        space=None,
        scoring=None,
        lam=0.0,
        gamma=1.0,
        n_trials=30,
        cv=None,
        validation_fraction=0.25,
        prior=None,
        n_jobs=None,
        batch_size=None,
        search_sample_size=None,
        random_state=None,
        refit=True,
        progress=False,
    ):
        self.estimator = estimator
        self.space = space
        self.scoring = scoring
        self.lam = lam
        self.gamma = gamma
        self.n_trials = n_trials
        self.cv = cv
        self.validation_fraction = validation_fraction
        self.prior = prior
        self.n_jobs = n_jobs
        self.batch_size = batch_size
        self.search_sample_size = search_sample_size
        self.random_state = random_state
        self.refit = refit
        self.progress = progress

    # ------------------------------------------------------------------ subclass hooks
    def _start(self, dimensions: list, rng: np.random.RandomState, prior_points, prior_scores) -> None:
        raise NotImplementedError

    def _propose(self, n: int) -> list[list]:
        raise NotImplementedError

    def _observe(self, points: list[list], scores: list[float]) -> None:
        """Bayesian search learns from results; random and grid search ignore them."""

    # ------------------------------------------------------------------ main loop
    def fit(self, X, y, sample_weight=None):
        """Run the search on (X, y) and refit the best configuration on all of it; returns ``self``."""
        if int(self.n_trials) < 1:
            raise ValueError(f"n_trials must be >= 1, got {self.n_trials}")
        if len(X) != len(y):
            raise ValueError(f"X has {len(X)} rows but y has {len(y)}")
        y = np.asarray(y)
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=float)
        X_all, y_all, weight_all = X, y, sample_weight
        sample = self._search_sample(y)
        if sample is not None:
            X, y = _safe_indexing(X, sample), y[sample]
            sample_weight = None if sample_weight is None else sample_weight[sample]
            logger.info("searching on a stratified sample of %d of %d rows", len(sample), len(y_all))
        self.search_sample_ = sample  # row indices of the search sample, None when every row was used
        self.search_rows_ = len(y)
        penalty = ComplexityPenalty(float(self.lam), float(self.gamma))
        loss = resolve_loss(self.scoring, self.estimator)
        space = dict(self.space) if self.space is not None else default_space(self.estimator, X, y, sample_weight)
        if not space:
            raise ValueError("the search space is empty")
        names = list(space)
        dimensions = [_named(dim, name) for name, dim in space.items()]
        splits = self._splits(X, y)
        rng = np.random.RandomState(self.random_state)

        prior_rows, prior_points, prior_scores = self._prior_trials(names, dimensions, penalty)
        self._start(dimensions, rng, prior_points, prior_scores)

        rows = list(prior_rows)
        worst = max(prior_scores, default=None)
        n_trials = int(self.n_trials)
        batch = int(self.batch_size or effective_n_jobs(self.n_jobs))
        done = 0
        # One managed Parallel for the whole search: the backend's workers (a Ray actor pool, loky
        # processes) are started once, not once per batch.
        with tqdm(total=n_trials, desc=f"{self.method} search", disable=not self.progress) as bar, \
                joblib.Parallel(n_jobs=self.n_jobs) as parallel:
            while done < n_trials:
                points = self._propose(min(batch, n_trials - done))
                if not points:  # grid exhausted
                    break
                params_list = [{n: _python_scalar(v) for n, v in zip(names, p)} for p in points]
                results = parallel(
                    joblib.delayed(_evaluate_trial)(self.estimator, params, X, y, sample_weight, splits, loss)
                    for params in params_list
                )
                scores = []
                for params, (p_loss, complexity, seconds, error) in zip(params_list, results):
                    score = math.nan if error else penalty.score(p_loss, complexity)
                    if error:
                        logger.warning("trial %d failed with %s: %s", done + 1, params, error)
                    else:
                        worst = score if worst is None else max(worst, score)
                    rows.append({"trial": done + 1, "source": "search", **params, "loss": p_loss,
                                 "complexity": complexity, "score": score, "fit_time": seconds, "error": error})
                    scores.append(score)
                    done += 1
                # A failed trial is told as the worst score seen, so the optimizer moves away from it.
                fallback = worst if worst is not None else 1e12
                self._observe(points, [fallback if math.isnan(s) else s for s in scores])
                bar.update(len(points))
                bar.set_postfix(best=np.nanmin([r["score"] for r in rows if r["source"] == "search"] or [np.nan]))

        self.trials_ = pd.DataFrame(rows)
        self.space_ = space
        self.scoring_ = loss.name
        searched = self.trials_[(self.trials_["source"] == "search") & self.trials_["error"].isna()]
        if searched.empty:
            raise RuntimeError(f"every trial failed; first error: {self.trials_['error'].dropna().iloc[0]}")
        best = searched.loc[searched["score"].idxmin()]
        self.best_index_ = int(best.name)
        self.best_params_ = {n: _python_scalar(best[n]) for n in names}
        self.best_score_ = float(best["score"])
        self.best_loss_ = float(best["loss"])
        if self.refit:
            model = clone(self.estimator).set_params(**self.best_params_)
            model.fit(X_all, y_all, **({} if weight_all is None else {"sample_weight": weight_all}))
            if hasattr(model, "metadata_"):
                model.metadata_["search"] = self.history()
            self.best_estimator_ = model
        return self

    # ------------------------------------------------------------------ helpers
    def _search_sample(self, y):
        """Sorted row indices of the stratified sample the trials run on (None: every row).

        Classification stratifies on the class, regression on deciles of the target, so the sample
        keeps the target's distribution (its tails included).
        """
        size, n = self.search_sample_size, len(y)
        if size is None:
            return None
        if isinstance(size, (float, np.floating)):
            if not 0.0 < size <= 1.0:
                raise ValueError(f"search_sample_size as a fraction must be in (0, 1], got {size}")
            size = int(round(size * n))
        elif not isinstance(size, (int, np.integer)) or isinstance(size, bool):
            raise ValueError(f"search_sample_size must be a row count or a fraction, got {size!r}")
        if size < 2:
            raise ValueError(f"search_sample_size must leave at least 2 rows, got {size}")
        if size >= n:
            return None
        if is_classifier(self.estimator):
            strata = y if np.unique(y, return_counts=True)[1].min() >= 2 else None
        else:
            strata = pd.qcut(y, q=10, labels=False, duplicates="drop")
        try:
            sample, _ = train_test_split(np.arange(n), train_size=size, stratify=strata,
                                         random_state=self.random_state)
        except ValueError as exc:  # too few rows for every stratum
            raise ValueError(f"cannot draw a stratified sample of {size} of {n} rows: {exc}") from exc
        return np.sort(sample)

    def _splits(self, X, y):
        indices = np.arange(len(y))
        classification = is_classifier(self.estimator)
        if self.cv is None:
            stratify = y if classification and np.unique(y, return_counts=True)[1].min() >= 2 else None
            train, valid = train_test_split(
                indices, test_size=self.validation_fraction, random_state=self.random_state, stratify=stratify
            )
            return [(train, valid)]
        if isinstance(self.cv, int):
            if self.cv < 2:
                raise ValueError(f"cv must be >= 2 folds, got {self.cv}")
            splitter_cls = StratifiedKFold if classification else KFold
            splitter = splitter_cls(n_splits=self.cv, shuffle=True, random_state=self.random_state)
        else:
            splitter = self.cv
        return list(splitter.split(indices.reshape(-1, 1), y))

    def _prior_trials(self, names, dimensions, penalty):
        """Rows, points and re-scored S of earlier trials that fall inside this search space."""
        if self.prior is None:
            return [], [], []
        prior = self.prior.trials_ if hasattr(self.prior, "trials_") else pd.DataFrame(self.prior)
        required = set(names) | {"loss", "complexity"}
        if not required <= set(prior.columns):
            raise ValueError(f"prior trials lack columns {sorted(required - set(prior.columns))}")
        rows, points, scores = [], [], []
        for _, row in prior.iterrows():
            if isinstance(row.get("error"), str) or not np.isfinite(row["loss"]):
                continue
            point = [_python_scalar(row[n]) for n in names]
            point = [int(round(v)) if isinstance(d, Integer) else v for v, d in zip(point, dimensions)]
            if not all(v in d for v, d in zip(point, dimensions)):
                continue
            score = penalty.score(row["loss"], row["complexity"])
            rows.append({"trial": 0, "source": "prior", **dict(zip(names, point)), "loss": float(row["loss"]),
                         "complexity": float(row["complexity"]), "score": score, "fit_time": math.nan, "error": None})
            points.append(point)
            scores.append(score)
        logger.info("warm start: %d prior trials inside the space", len(points))
        return rows, points, scores

    def history(self) -> dict:
        """The search as plain data (stored in the best model's ``metadata_['search']``)."""
        check_is_fitted(self, "trials_")
        trials = self.trials_.astype(object).where(self.trials_.notna(), None)
        return {
            "method": self.method,
            "scoring": self.scoring_,
            "lam": float(self.lam),
            "gamma": float(self.gamma),
            "n_trials": int(self.n_trials),
            "search_rows": int(self.search_rows_),
            "best_params": self.best_params_,
            "best_score": self.best_score_,
            "trials": trials.to_dict(orient="records"),
        }

    def trials_to_reach(self, score: float) -> int | None:
        """How many search trials it took for the best S so far to reach ``score`` (None: never)."""
        check_is_fitted(self, "trials_")
        searched = self.trials_[self.trials_["source"] == "search"]["score"].fillna(np.inf).to_numpy()
        hits = np.flatnonzero(np.minimum.accumulate(searched) <= score + 1e-12)
        return int(hits[0]) + 1 if hits.size else None

    def predict(self, X):
        """Predict with the refit best model."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    def predict_proba(self, X):
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X)


def _named(dimension, name):
    if isinstance(dimension, (list, tuple)):
        dimension = Categorical(list(dimension))
    dimension.name = name
    return dimension


class BayesianSearch(_BaseSearch):
    """Gaussian-process Bayesian optimization with expected improvement (scikit-optimize).

    Parameters (besides those shared with :class:`RandomSearch`)
    ----------
    n_initial_points : int, optional
        Random points before the GP takes over (default: 3 for 1-D spaces, up to 10); prior
        trials count toward them.
    """

    method = "bayesian"

    def __init__(self, estimator, *, n_initial_points=None, acq_func="EI", **kwargs):
        super().__init__(estimator, **kwargs)
        self.n_initial_points = n_initial_points
        self.acq_func = acq_func

    def _start(self, dimensions, rng, prior_points, prior_scores):
        n_initial = self.n_initial_points or min(10, 2 * len(dimensions) + 1)
        # Fewer acquisition samples/restarts than skopt's defaults (10,000 / 5): the optimum of EI over
        # a handful of dimensions is found as well, at a fraction of the per-trial overhead.
        self._optimizer = Optimizer(
            dimensions, base_estimator="GP", acq_func=self.acq_func, n_initial_points=n_initial,
            acq_optimizer_kwargs={"n_points": 2000, "n_restarts_optimizer": 2}, random_state=rng,
        )
        if prior_points:
            self._optimizer.tell(prior_points, prior_scores)

    # The GP's small matrices gain nothing from multi-threaded BLAS, which only contends with the
    # trials for cores (measured ≈3× slower per step on 2 busy cores); one thread is enough.
    def _propose(self, n):
        with threadpool_limits(1):
            if n == 1:
                return [self._optimizer.ask()]
            return self._optimizer.ask(n_points=n, strategy="cl_min")

    def _observe(self, points, scores):
        with threadpool_limits(1):
            self._optimizer.tell(points, scores)


class RandomSearch(_BaseSearch):
    """Independent random draws from the space (for ablations against Bayesian search)."""

    method = "random"

    def _start(self, dimensions, rng, prior_points, prior_scores):
        self._points = iter(Space(dimensions).rvs(int(self.n_trials), random_state=rng))

    def _propose(self, n):
        return list(itertools.islice(self._points, n))


class GridSearch(_BaseSearch):
    """An even grid over the space (log-spaced on log-uniform dimensions), visited in a seeded
    random order so that any prefix of the budget covers the space evenly."""

    method = "grid"

    def _start(self, dimensions, rng, prior_points, prior_scores):
        continuous = [d for d in dimensions if not isinstance(d, Categorical)]
        n_categorical = int(np.prod([len(d.categories) for d in dimensions if isinstance(d, Categorical)]))
        per_axis = max(2, int(math.floor((int(self.n_trials) / n_categorical) ** (1 / max(1, len(continuous))))))
        axes = [_grid_axis(d, per_axis) for d in dimensions]
        grid = list(itertools.product(*axes))
        order = rng.permutation(len(grid))
        self._points = iter([list(grid[i]) for i in order])

    def _propose(self, n):
        return list(itertools.islice(self._points, n))


def _grid_axis(dimension, n):
    if isinstance(dimension, Categorical):
        return list(dimension.categories)
    low, high = dimension.low, dimension.high
    log = dimension.prior == "log-uniform"
    values = np.geomspace(low, high, n) if log else np.linspace(low, high, n)
    if isinstance(dimension, Integer):
        return sorted({int(round(v)) for v in values})
    return [float(v) for v in values]
