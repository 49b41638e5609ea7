"""Automatic model selection: search both families, keep the best model that meets the requirements.

A developer states what the system needs — prediction latency, a minimum score or maximum loss,
a complexity budget — and Primo searches PrDT and PrAM, measures each finalist's single-row
latency, and keeps the model with the lowest validation objective among those that satisfy every
requirement. ``selection_report_`` says why each family won or lost.

Example
-------
>>> auto = PrimoClassifier(max_latency_us=200, min_score=0.8, scoring="f1", n_trials=10)
>>> auto.fit(X, y).selection_report_  # doctest: +SKIP
"""
from __future__ import annotations

import logging

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, RegressorMixin, clone
from sklearn.utils.validation import check_is_fitted

from primo.models.latency import single_row_latency_us
from primo.models.pram import PrAMClassifier, PrAMRegressor
from primo.models.prdt import PrDTClassifier, PrDTRegressor

logger = logging.getLogger(__name__)


class RequirementsNotMetError(ValueError):
    """No candidate model satisfies the stated requirements; the message says which and by how much."""


def score_from_loss(loss_name: str, loss: float) -> float | None:
    """The natural "higher is better" score behind a loss, when there is one (F1, accuracy, R², scorers)."""
    if loss_name in ("1-f1", "1-r2", "error"):
        return 1.0 - loss
    if loss_name.startswith("-"):
        return -loss
    return None


class _PrimoAutoBase(MetaEstimatorMixin, BaseEstimator):
    _families: dict

    def __init__(
        self,
        *,
        families=("prdt", "pram"),
        scoring=None,
        max_latency_us=None,
        min_score=None,
        max_loss=None,
        max_complexity=None,
        lam=0.0,
        gamma=1.0,
        n_trials=20,
        cv=None,
        validation_fraction=0.25,
        family_params=None,
        n_jobs=1,
        random_state=None,
        progress=False,
    ):
        self.families = families
        self.scoring = scoring
        self.max_latency_us = max_latency_us
        self.min_score = min_score
        self.max_loss = max_loss
        self.max_complexity = max_complexity
        self.lam = lam
        self.gamma = gamma
        self.n_trials = n_trials
        self.cv = cv
        self.validation_fraction = validation_fraction
        self.family_params = family_params
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.progress = progress

    def fit(self, X, y, sample_weight=None):
        """Search every family, measure latency, pick the best model meeting the requirements."""
        from primo.search import BayesianSearch

        unknown = set(self.families) - set(self._families)
        if unknown or not self.families:
            raise ValueError(f"families must be a non-empty subset of {sorted(self._families)}, got {self.families}")
        family_params = self.family_params or {}
        rows, self.searches_, self.candidates_ = [], {}, {}
        for family in self.families:
            estimator = self._families[family](**family_params.get(family, {}))
            search = BayesianSearch(
                estimator, scoring=self.scoring, lam=self.lam, gamma=self.gamma, n_trials=self.n_trials,
                cv=self.cv, validation_fraction=self.validation_fraction, n_jobs=self.n_jobs,
                random_state=self.random_state, refit=False, progress=self.progress,
            ).fit(X, y, sample_weight=sample_weight)
            self.searches_[family] = search
            rows.append(self._finalist(family, search, X, y, sample_weight))
        report = pd.DataFrame(rows)
        winners = report[report["satisfies"]]
        if winners.empty:
            reasons = "; ".join(f"{r.family}: {r.reason}" for r in report.itertuples())
            self.selection_report_ = report
            raise RequirementsNotMetError(f"no model meets the requirements — {reasons}")
        best = winners.loc[winners["score"].idxmin()]
        report["selected"] = report["family"] == best["family"]
        report.loc[report["satisfies"] & ~report["selected"], "reason"] = (
            "meets the requirements but has a higher validation objective than " + best["family"]
        )
        report.loc[report["selected"], "reason"] = "selected: meets every requirement with the lowest objective"
        self.selection_report_ = report
        self.best_family_ = best["family"]
        self.best_estimator_ = self.candidates_[best["family"]]
        self.best_estimator_.metadata_["selection"] = report.drop(columns="params").to_dict(orient="records")
        if hasattr(self.best_estimator_, "classes_"):
            self.classes_ = self.best_estimator_.classes_
        self.n_features_in_ = self.best_estimator_.n_features_in_
        return self

    def _finalist(self, family, search, X, y, sample_weight):
        """Best trial within the loss/score/complexity limits, refit on all data, latency measured."""
        trials = search.trials_[(search.trials_["source"] == "search") & search.trials_["error"].isna()]
        ok = np.ones(len(trials), dtype=bool)
        if self.max_loss is not None:
            ok &= trials["loss"].to_numpy() <= self.max_loss
        if self.min_score is not None:
            if score_from_loss(search.scoring_, 0.0) is None:
                raise ValueError(f"min_score needs a score-like metric (f1, accuracy, r2, a scorer); "
                                 f"{search.scoring_} is a loss: use max_loss")
            ok &= np.array([score_from_loss(search.scoring_, v) for v in trials["loss"]]) >= self.min_score
        if self.max_complexity is not None:
            ok &= trials["complexity"].to_numpy() <= self.max_complexity
        pool = trials[ok] if ok.any() else trials
        best = pool.loc[pool["score"].idxmin()]
        params = {name: best[name] for name in search.space_}
        params = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in params.items()}
        model = clone(search.estimator).set_params(**params)
        model.fit(X, y, **({} if sample_weight is None else {"sample_weight": sample_weight}))
        model.metadata_["search"] = search.history()
        # The latency that matters is the deployed path: Primo's compiled single-row predictor
        # (what the exports embed); the public predict (mostly input validation) is reported too.
        from primo.export import compile_python, encode_categories, model_tables

        tables = model_tables(model)
        fast_predict = compile_python(tables)
        rows = encode_categories(tables, X)
        latency = single_row_latency_us(lambda row: fast_predict(row[0]), rows)
        predict_latency = single_row_latency_us(model.predict, X)
        self.candidates_[family] = model

        failures = []
        loss = float(best["loss"])
        if self.max_loss is not None and loss > self.max_loss:
            failures.append(f"best validation {search.scoring_} {loss:.4g} exceeds max_loss {self.max_loss:g} by {loss - self.max_loss:.4g}")
        if self.min_score is not None:
            score = score_from_loss(search.scoring_, loss)
            if score < self.min_score:
                failures.append(f"best validation score {score:.4g} is below min_score {self.min_score:g} by {self.min_score - score:.4g}")
        complexity = float(model.complexity_)
        if self.max_complexity is not None and complexity > self.max_complexity:
            failures.append(f"complexity {complexity:g} exceeds max_complexity {self.max_complexity:g} by {complexity - self.max_complexity:g}")
        if self.max_latency_us is not None and latency > self.max_latency_us:
            failures.append(f"measured latency {latency:.1f} µs exceeds max_latency_us {self.max_latency_us:g} by {latency - self.max_latency_us:.1f} µs")
        return {
            "family": family,
            "model": type(model).__name__,
            "params": params,
            "loss": loss,
            "score": float(best["score"]),
            "complexity": complexity,
            "latency_us": latency,
            "predict_latency_us": predict_latency,
            "satisfies": not failures,
            "reason": "; ".join(failures),
        }

    def predict(self, X):
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    def save(self, path):
        """Save the selected model (with the selection report in its metadata)."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.save(path)

    def __str__(self):
        try:
            check_is_fitted(self, "best_estimator_")
        except Exception:
            return repr(self)
        return f"selected {self.best_family_}:\n{self.best_estimator_}"


class PrimoClassifier(ClassifierMixin, _PrimoAutoBase):
    """Searches PrDT and PrAM classifiers and keeps the best one that meets the requirements.

    Parameters
    ----------
    families : tuple of {"prdt", "pram"}
    scoring : validation loss (see :func:`primo.search.resolve_loss`), default error rate.
    max_latency_us : float, optional — limit on the measured single-row latency of the deployed
        path (Primo's compiled predictor, as embedded by :mod:`primo.export`); the public
        ``predict`` latency is reported beside it.
    min_score : float, optional — minimum validation score (accuracy, F1, R² or a scorer).
    max_loss : float, optional — maximum validation loss (e.g. MAE).
    max_complexity : float, optional — limit on C (leaves × depth, or (1 + pairs) × bins).
    lam, gamma : the complexity penalty of the search objective.
    n_trials : Bayesian-search trials per family.
    family_params : dict family -> fixed constructor arguments, e.g. ``{"pram": {"outer_bags": 4}}``.
    """

    _families = {"prdt": PrDTClassifier, "pram": PrAMClassifier}

    def predict_proba(self, X):
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X)


class PrimoRegressor(RegressorMixin, _PrimoAutoBase):
    """Searches PrDT and PrAM regressors and keeps the best one that meets the requirements
    (parameters as :class:`PrimoClassifier`; the default scoring is MAE)."""

    _families = {"prdt": PrDTRegressor, "pram": PrAMRegressor}
