"""Automatic model selection: the simplest model, of either family, within noise of the best.

A developer states what the system needs — prediction latency, a minimum score or maximum loss,
a complexity or size budget — and Primo searches PrDT (its exact pruning path, :class:`~primo.search.PruningSearch`)
and PrAM (:class:`~primo.search.BayesianSearch` over one-bag configurations, ~10× cheaper to fit,
raced over folds: each scored on 2 of the 5 folds, the best few on all 5), on the same validation
splits, with each family's default configuration among the trials (and the PrAM search's
simplification path: its best configuration with only its t most important terms, with at most k
pieces per shape, and both; a PrAM search whose default validates more than :data:`FAR_BEHIND` times PrDT's best
stops there). PrAM trials scored on
every fold are cross-fitted (:mod:`primo.search.searchers`): one bag per fold, validated on its fold,
and their average is the validated model. Of all
the trials that meet the stated limits, it keeps the one of smallest readable size (``size_``:
leaves, or constant pieces of the shape functions) whose objective is within noise of the best
trial of either family (the rule of :mod:`primo.search.choice`), and measures each family's
finalist's latency (a PrDT pruned from its tree grown on every row, a PrAM's validated average).
The selected PrAM is then refit on every row with the default's bags, and kept if the refit
still meets every stated limit (else the validated average is; the time budget permitting). So
the selected model validates no worse, beyond noise, than either family's default.

A selection whose model validates no better than the trivial predictor (relative loss ≥ 1) is warned about;
under a score whose best constant is the median (MAE), PrDT is first searched again with trees grown on
absolute error (:meth:`_PrimoAutoBase._median_trees`).

``selection_report_`` has one row per family: its finalist, validation loss and standard error,
relative loss (1.0 = the trivial predictor), size, C, for classifiers log loss and calibration error,
the measured latency, and why it won or lost. A family none of whose trials could be fitted (a
:class:`~primo.search.TrialsFailedError`), or that refuses the input (an :class:`~primo.errors.InputError`:
PrDT refuses infinity, which PrAM reads), is reported with the first error as its reason, with a
warning, and the others are selected from; only when every family fails does ``fit`` raise (the
input error itself when a family refused the input).
``latency_us`` is the median, over 50 training rows, of
the best of 3 single-row calls of the deployed path: Primo's compiled pure-Python predictor
(:func:`primo.export.compile_python`, the tables every export embeds), in this process;
``latency_p90_us`` is the 90th percentile of the same 50 timings (its spread on a busy machine).
``model.predict`` on a one-row DataFrame costs more (input checks, pandas), and C or ONNX less.

Example
-------
>>> auto = PrimoClassifier(max_latency_us=200, min_score=0.8, scoring="f1", n_trials=10)
>>> auto.fit(X, y).selection_report_  # doctest: +SKIP
"""
from __future__ import annotations

import logging
import math
import numbers
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, RegressorMixin, clone, is_classifier
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from primo.errors import InputError
from primo.models._base import _is_sparse, check_target, count_rows
from primo.models.encoding import frame_from_arrow
from primo.models.latency import single_row_timings_us
from primo.models.pram import PrAMClassifier, PrAMRegressor
from primo.models.prdt import PrDTClassifier, PrDTRegressor

logger = logging.getLogger(__name__)

#: ``cv="auto"`` validates by 5-fold CV up to this many rows, by one 25% hold-out above.
AUTO_CV_MAX_ROWS = 10_000
#: Bags a validated PrAM trial has (per fold when cross-fitted). With two or more, each validation loss
#: would be extrapolated to the refit's bags (:func:`primo.search.searchers.loss_at_bags`), since one bag
#: underrates the configurations bagging smooths most. Two bags lowered auto's test loss by a median 1.3%
#: on 4 unread tables but took 1.9× the fit time (reports/benchmarks/README.md, "Validating with two
#: bags"), so one it stays.
VALIDATION_BAGS = 1
#: PrAM configurations are searched with :data:`VALIDATION_BAGS` bags (~10× cheaper than the default's 8) and
#: at most 5,000 boosting rounds (a learning rate of 0.005 can otherwise boost for minutes a bag). The default
#: PrAM is a trial too: with the same bounds when cross-fitted (k-fold CV), as given on a hold-out.
#: Cross-fitted, the kept configuration is refit with the PrAM's own bags and rounds.
PRAM_TRIAL_PARAMS = {"outer_bags": VALIDATION_BAGS, "max_rounds": 5000}
#: PrAM configurations are raced (:class:`~primo.search.BayesianSearch`'s ``race_folds``): scored on this many
#: of the 5 folds first, the best few then on the others, so the trials cost ~half as many fits.
RACE_FOLDS = 2
#: PrAM trials scored on every fold are cross-fitted with this many bags per fold.
CROSS_FIT_BAGS = VALIDATION_BAGS
#: A PrAM search stops after its default configuration (and starts) when they all validated a relative loss
#: more than this many times the best of the families searched before it (PrDT's trials within the stated
#: limits): a search that far behind is not kept, and on wvs_immig (a country code that a ~100-leaf tree
#: finds exactly) its trials took 400-600 s a fit at 13-18x the tree's loss. On the 142 tables benchmarked
#: before the rule, the default PrAM's test loss was at most 1.9x the better of default PrDT and auto
#: (bar a PrDT with zero loss), and the search improved on its default by at most 2.7x (VerbAgg), so a
#: stopped search would at best have been ~2x worse than the tree.
FAR_BEHIND = 5.0
#: Rows timed, one call each, for the selection report's latency.
LATENCY_ROWS = 50
#: Losses whose best constant is the median. Under them, when no trial of any family validates better than
#: that constant, PrDT is searched again with trees grown on absolute error (:meth:`_median_trees`).
MEDIAN_LOSSES = ("mae", "wmape")


def pram_search(estimator, X, *, n_trials: int, **options):
    """A :class:`~primo.search.BayesianSearch` of a PrAM as automatic selection searches that family: trials of
    :data:`PRAM_TRIAL_PARAMS` (where cheaper than the estimator's), cross-fitted with :data:`CROSS_FIT_BAGS` bags a
    fold on k-fold CV, raced over :data:`RACE_FOLDS` folds, with :func:`~primo.search.spaces.pram_starts`;
    ``options`` go to the search (``cv``, ``time_budget_s``, ...). ``primo fit --model pram`` searches so too."""
    from primo.search import BayesianSearch
    from primo.search.spaces import pram_starts

    cheaper = {k: v for k, v in PRAM_TRIAL_PARAMS.items() if v < estimator.get_params()[k]}
    return BayesianSearch(estimator, n_trials=n_trials, race_folds=RACE_FOLDS, cross_fit=CROSS_FIT_BAGS,
                          trial_params=cheaper or None, starts=pram_starts(estimator, X), **options)


def _family_finalist(trials: pd.DataFrame, eligible: pd.Index, near: pd.Series) -> tuple[int, bool]:
    """The index of a family's finalist among its ``trials`` (pool rows), and whether it is within noise of the
    best: the smallest of its ``eligible`` trials ``near`` the best of every family; when none is, its eligible
    trial of lowest objective (of all its trials, when none is within the limits)."""
    from primo.search.choice import smallest

    rows = trials[trials.index.isin(eligible)]
    close = rows[near[rows.index]]
    if not close.empty:
        return smallest(close), True
    rows = rows if not rows.empty else trials
    return rows["score"].astype(float).idxmin(), False


class RequirementsNotMetError(ValueError):
    """No candidate model satisfies the stated requirements; the message says which and by how much."""


def score_from_loss(loss_name: str, loss: float) -> float | None:
    """The natural "higher is better" score behind a loss, when there is one (F1, accuracy, R², scorers)."""
    if loss_name in ("1-f1", "1-r2", "error"):
        return 1.0 - loss
    if loss_name.startswith("-"):
        return -loss
    return None


def _warn_if_trivial(trial, loss_name: str, classifier: bool, median_trees: bool = False) -> None:
    """Warn when the selected trial validates no better than the trivial predictor (relative loss ≥ 1).

    Found on a heavy-tailed target (medical expenses, MAE): models that fit the mean lost to the constant
    median on every trial, so the choice among them was noise. The user should hear it, not read it
    off ``selection_report_``.
    """
    from primo.search.objective import MEDIAN_REFERENCE_LOSSES

    relative = float(trial.get("relative_loss", np.nan))
    if not relative >= 1:  # also NaN: no trivial predictor for this loss
        return
    message = (f"no model validated better than the trivial predictor: the selected one's {loss_name} is "
               f"{relative:.3g}× the trivial predictor's ")
    if classifier:
        message += "(the class priors); the features may not carry what the models can use"
    elif loss_name in MEDIAN_REFERENCE_LOSSES:  # the trivial predictor is the median
        message += ("(the median of y). The models fit the mean (squared error), and on a heavy-tailed target "
                    "the median wins under absolute error"
                    + ("; trees grown on absolute error were searched too" if median_trees else "")
                    + ": score what the models fit (scoring='rmse' or 'r2') or fit a transformed target "
                    "(e.g. log1p(y))")
    else:
        message += "(the mean of y); the features may not carry what the models can use"
    warnings.warn(message, UserWarning, stacklevel=3)


def _offered(auto, method: str) -> bool:
    """Whether the selected model has ``method``; before fitting, whether any family's model has it."""
    if hasattr(auto, "best_estimator_"):
        return hasattr(auto.best_estimator_, method)
    return any(hasattr(auto._families[family], method) for family in auto.families if family in auto._families)


class _PrimoAutoBase(MetaEstimatorMixin, BaseEstimator):
    _families: dict

    def __init__(
        self,
        *,
        families=("prdt", "pram"),
        scoring=None,
        tolerance=None,
        max_latency_us=None,
        min_score=None,
        max_loss=None,
        max_complexity=None,
        max_size=None,
        lam=0.0,
        gamma=1.0,
        n_trials=10,
        time_budget_s=None,
        cv="auto",
        validation_fraction=0.25,
        family_params=None,
        n_jobs=-1,
        random_state=None,
        progress=True,
    ):
        self.families = families
        self.scoring = scoring
        self.tolerance = tolerance
        self.max_latency_us = max_latency_us
        self.min_score = min_score
        self.max_loss = max_loss
        self.max_complexity = max_complexity
        self.max_size = max_size
        self.lam = lam
        self.gamma = gamma
        self.n_trials = n_trials
        self.time_budget_s = time_budget_s
        self.cv = cv
        self.validation_fraction = validation_fraction
        self.family_params = family_params
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.progress = progress

    # ------------------------------------------------------------------ search
    def _searches(self, X, n_rows: int) -> dict:
        from primo.search import PruningSearch

        unknown = set(self.families) - set(self._families)
        if unknown or not self.families:
            raise ValueError(f"families must be a non-empty subset of {sorted(self._families)}, got {self.families}")
        cv = self.cv
        if cv == "auto":
            cv = 5 if n_rows <= AUTO_CV_MAX_ROWS else None
        # One seed for every family, so that all are validated on the same rows and compared paired.
        seed = self.random_state if self.random_state is not None else check_random_state(None).randint(2**31 - 1)
        common = dict(scoring=self.scoring, tolerance=self.tolerance, lam=self.lam, gamma=self.gamma, cv=cv,
                      validation_fraction=self.validation_fraction, n_jobs=self.n_jobs, random_state=seed,
                      refit=False, progress=self.progress)
        family_params = self.family_params or {}
        searches = {}
        for family in self.families:
            estimator = self._families[family](**family_params.get(family, {}))
            if estimator.get_params().get("random_state", 0) is None:  # PrDT breaks ties at random
                estimator.set_params(random_state=seed)
            if family == "prdt":
                searches[family] = PruningSearch(estimator, **common)
            else:  # its time budget is what is left when it starts (set in fit, after PrDT's search)
                searches[family] = pram_search(estimator, X, n_trials=self.n_trials, **common)
        return searches

    def _time_left(self) -> float:
        return float(self.time_budget_s) - (time.perf_counter() - self._start)

    def fit(self, X, y, sample_weight=None):
        """Search every family, keep the simplest model within noise of the best that meets the limits."""
        from primo.search.choice import within_noise
        from primo.search.searchers import TrialsFailedError

        X = frame_from_arrow(X)  # one conversion of a polars or pyarrow table for every family's search
        self._check_limits()
        # Named after this estimator, before any family sees y.
        check_target(self, y, count_rows(X), classifier=is_classifier(self),
                     multi_output=False)  # PrAM and every export predict one target
        self._start = time.perf_counter()
        self.searches_, self.candidates_ = {}, {}
        pools, failed, refusals = {}, {}, []
        for family, search in self._searches(X, len(y)).items():
            if family == "pram" and self.time_budget_s is not None:
                search.set_params(time_budget_s=max(1e-3, self._time_left()))
            if family == "pram" and pools:
                search.set_params(stop_above=FAR_BEHIND * self._best_relative_loss(pd.concat(pools.values())))
            try:
                search.fit(X, y, sample_weight=sample_weight)
            except (TrialsFailedError, InputError) as error:
                # A table one family cannot take still gets the others' model (infinity: PrAM reads it
                # beyond every bin edge, PrDT refuses it).
                failed[family] = str(error)
                refusals += [error] if isinstance(error, InputError) else []
                continue
            self.searches_[family] = search
            pools[family] = self._pool(family, search)
        median_trees = self._median_trees(X, y, sample_weight)
        if median_trees is not None:
            self.searches_["prdt"], pools["prdt"] = median_trees, self._pool("prdt", median_trees)
        if not pools:
            if refusals:  # the input error itself (the other families' trials failed on the same input)
                raise refusals[0]
            raise TrialsFailedError("; ".join(f"{family}: {error}" for family, error in failed.items()))
        for family, error in failed.items():
            warnings.warn(f"{family}: {error}; selecting among the other families", stacklevel=2)
        pool = pd.concat(pools.values())
        pool.index = pd.RangeIndex(len(pool))
        eligible = pool[self._meets_limits(pool)]
        near = pd.Series(False, index=pool.index)
        if not eligible.empty:
            best = eligible["score"].astype(float).idxmin()
            near[eligible.index] = within_noise(eligible, best, self.tolerance)
        report, order, finalists = [], [], {}
        for family, search in self.searches_.items():
            trials = pool[pool["family"] == family]
            finalist, within = _family_finalist(trials, eligible.index, near)
            # The validated model when there is one (cross-fitted; a hold-out fit under a time budget): only the
            # selected family is refit.
            model = search._validated_model(dict(pool.at[finalist, "params"]))
            entry = None
            if model is None and self.time_budget_s is not None:
                # A trial without one (a raced PrAM's, fitted fold by fold) is refit as far as the budget allows;
                # else the family's finalist is chosen again among the trials that have one.
                entry = self._finalist(family, pool.loc[finalist], None, X, y, sample_weight, within=within,
                                       within_limits=finalist in eligible.index, stop_at=search._stop_at())
                if entry is None:
                    validated = trials[[search._validated_fit(dict(params)) is not None
                                        for params in trials["params"]]]
                    if not validated.empty:
                        finalist, within = _family_finalist(validated, eligible.index, near)
                        model = search._validated_model(dict(pool.at[finalist, "params"]))
            if entry is None:
                entry = self._finalist(family, pool.loc[finalist], model, X, y, sample_weight, within=within,
                                       within_limits=finalist in eligible.index)
            finalists[family] = (len(report), pool.loc[finalist], finalist in eligible.index, model is not None)
            report.append(entry)
            order.append((not entry["satisfies"], not entry["within_noise"], entry["size"], entry["score"], family))
        for family, error in failed.items():
            report.append({"family": family, "model": self._families[family].__name__, "params": {},
                           "within_noise": False, "satisfies": False, "selected": False, "reason": error})
        winners = [entry for entry in sorted(order) if not entry[0]]
        if not winners:
            reasons = "; ".join(f"{r['family']}: {r['reason']}" for r in report)
            raise RequirementsNotMetError(f"no model meets the requirements — {reasons}")
        chosen = winners[0][-1]
        position, trial, within_limits, validated = finalists[chosen]
        _warn_if_trivial(trial, self.searches_[chosen].scoring_, is_classifier(self),
                         median_trees=median_trees is not None)
        if validated:
            report[position] = self._refit_chosen(chosen, trial, report[position], X, y, sample_weight,
                                                  within_limits=within_limits)
        self.selection_report_ = report = pd.DataFrame(report)
        report["selected"] = report["family"] == chosen
        for index in report.index[report["satisfies"] & ~report["selected"]]:
            report.at[index, "reason"] = (f"meets every requirement, but {chosen} is "
                                          + ("smaller within noise" if report.at[index, "within_noise"]
                                             else "better beyond noise"))
        report.loc[report["selected"], "reason"] = (
            "selected: the smallest model within noise of the best validated objective that meets every requirement"
            if report.loc[report["selected"], "within_noise"].all()
            else "selected: meets every requirement (the models within noise of the best do not)")
        for index, family in report["family"].items():
            stopped = getattr(self.searches_.get(family), "stopped_", None)
            if stopped:
                report.at[index, "reason"] += f" (its search {stopped}, {FAR_BEHIND:g}x the best before it)"
        self.best_family_ = chosen
        self.best_estimator_ = self.candidates_[chosen]
        for search in self.searches_.values():
            search.release_trial_models()  # every finalist is refit or taken from them
        self.best_estimator_.metadata_["selection"] = report.drop(columns="params").to_dict(orient="records")
        if hasattr(self.best_estimator_, "classes_"):
            self.classes_ = self.best_estimator_.classes_
        self.n_features_in_ = self.best_estimator_.n_features_in_
        names = getattr(self.best_estimator_, "feature_names_in_", None)
        if names is not None:  # what a Pipeline or GridSearchCV reads off its last step
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):  # refit on an array after a DataFrame
            del self.feature_names_in_
        return self

    def _best_relative_loss(self, pool: pd.DataFrame) -> float:
        """The lowest relative loss of the trials in ``pool`` within the stated limits (inf: none is)."""
        within = pool.loc[self._meets_limits(pool), "relative_loss"].astype(float)
        return float(within.min()) if within.notna().any() else math.inf

    @staticmethod
    def _pool(family, search) -> pd.DataFrame:
        """The search's candidate trials that did not fail, labelled with their family."""
        rows = search._candidates(search.trials_)
        return rows[rows["error"].isna()].assign(family=family)

    def _median_trees(self, X, y, sample_weight):
        """PrDT's search again with trees grown on absolute error, when the score's best constant is the
        median (:data:`MEDIAN_LOSSES`) and no trial of any family validated better than it; None otherwise.

        Every family fits the mean (squared error), and on a heavy-tailed target the median beats all of them
        under absolute error: on medical_expenses (5,574 rows; median 32, mean 170) every trial validated
        1.3× the median's MAE, and with these trees (whose one-leaf tree is the median) auto tested 17-27% lower
        on all 5 folds. As a default for every MAE score they made auto worse on two development tables
        (Labour +5%, PearsonLee +4%; ``reports/benchmarks/README.md``), so only where nothing beat the constant.
        """
        prdt = self.searches_.get("prdt")
        if (prdt is None or is_classifier(self) or prdt.scoring_ not in MEDIAN_LOSSES
                or "criterion" in (self.family_params or {}).get("prdt", {})
                or (self.time_budget_s is not None and self._time_left() <= 0)):
            return None
        best = min(float(search.trials_["relative_loss"].min()) for search in self.searches_.values())
        if not best >= 1:  # NaN too: no trivial predictor to compare with
            return None
        from primo.search.searchers import TrialsFailedError

        search = clone(prdt).set_params(estimator=clone(prdt.estimator).set_params(criterion="absolute_error"))
        try:
            return search.fit(X, y, sample_weight=sample_weight)
        except (TrialsFailedError, InputError):
            return None

    def _check_limits(self) -> None:
        """Before any search: each stated limit is None or a finite number (size, complexity, latency above 0)."""
        positive = ("max_latency_us", "max_complexity", "max_size")
        for name in ("max_latency_us", "min_score", "max_loss", "max_complexity", "max_size"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
                raise InputError(f"{name} must be a finite number or None, got {value!r}", argument=name)
            if name in positive and value <= 0:
                raise InputError(f"{name} must be above 0, got {value!r}", argument=name)

    def _meets_limits(self, pool: pd.DataFrame) -> pd.Series:
        """Trials within the stated loss, score and complexity limits (latency is measured after refit)."""
        scoring = next(iter(self.searches_.values())).scoring_
        ok = pd.Series(True, index=pool.index)
        if self.max_loss is not None:
            ok &= pool["loss"] <= self.max_loss
        if self.min_score is not None:
            if score_from_loss(scoring, 0.0) is None:
                raise ValueError(f"min_score needs a score-like metric (f1, accuracy, r2, a scorer); "
                                 f"{scoring} is a loss: use max_loss")
            ok &= pool["loss"].map(lambda v: score_from_loss(scoring, v)) >= self.min_score
        if self.max_complexity is not None:
            ok &= pool["complexity"] <= self.max_complexity
        if self.max_size is not None:
            ok &= pool["size"] <= self.max_size
        return ok

    def _finalist(self, family, trial, model, X, y, sample_weight, *, within: bool, within_limits: bool,
                  stop_at=None) -> dict | None:
        """A family's finalist (``model``, else a refit of ``trial`` on every row), its latency, its report row;
        None when the refit's time budget ended first (``stop_at``: see :func:`primo.search.searchers.fit_until`)."""
        search = self.searches_[family]
        if model is None:
            from primo.search.searchers import warning_texts

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                model = search._refit_model(dict(trial["params"]), X, y,
                                            None if sample_weight is None else np.asarray(sample_weight), stop_at)
            for message in warning_texts(caught):
                search.warnings_[message] = search.warnings_.get(message, 0) + 1
            if model is None:
                return None
        model.metadata_["search"] = search.history(chosen_trial=int(trial["trial"]), model=model)
        from primo.export import compile_python, encode_categories, model_tables

        tables = model_tables(model)
        fast_predict = compile_python(tables)
        timed = X.iloc[:LATENCY_ROWS] if isinstance(X, pd.DataFrame) else X[:LATENCY_ROWS]  # only these are timed
        rows = encode_categories(tables, timed.toarray() if _is_sparse(timed) else timed)
        self.candidates_[family] = model
        timings = single_row_timings_us(lambda row: fast_predict(row[0]), rows, n_rows=LATENCY_ROWS)
        return self._report_row(family, trial, model, timings, within=within, within_limits=within_limits)

    def _refit_chosen(self, family, trial, entry: dict, X, y, sample_weight, *, within_limits: bool) -> dict:
        """The selected family's report row after refitting its validated (cross-fitted) model on every row.

        Cross-fitted bags saw (k−1)/k of the rows (see :mod:`primo.search.searchers`). The refit can
        differ in size and latency, so it replaces the validated model only when it still meets every
        stated limit, and only when it ends within the time budget (it is stopped there); otherwise ``entry`` stands.
        """
        search = self.searches_[family]
        validated = self.candidates_[family]
        refit = self._finalist(family, trial, None, X, y, sample_weight, within=entry["within_noise"],
                               within_limits=within_limits, stop_at=search._stop_at())
        if refit is None:
            logger.info("%s: the time budget ended during the refit on every row; keeping the validated model", family)
            return entry
        if refit["satisfies"]:
            return refit
        logger.info("%s: the refit on every row breaks a limit (%s); keeping the validated model",
                    family, refit["reason"])
        self.candidates_[family] = validated
        return entry

    def _report_row(self, family, trial, model, timings, *, within: bool, within_limits: bool) -> dict:
        search = self.searches_[family]
        latency = float(np.median(timings))
        loss = float(trial["loss"])
        failures = []
        if self.max_loss is not None and loss > self.max_loss:
            failures.append(f"validation {search.scoring_} {loss:.4g} exceeds max_loss {self.max_loss:g} "
                            f"by {loss - self.max_loss:.4g}")
        if self.min_score is not None:
            score = score_from_loss(search.scoring_, loss)
            if score < self.min_score:
                failures.append(f"validation score {score:.4g} is below min_score {self.min_score:g} "
                                f"by {self.min_score - score:.4g}")
        complexity = float(trial["complexity"])
        if self.max_complexity is not None and complexity > self.max_complexity:
            failures.append(f"complexity {complexity:g} exceeds max_complexity {self.max_complexity:g} "
                            f"by {complexity - self.max_complexity:g}")
        size = float(model.size_)
        if self.max_size is not None and size > self.max_size:
            failures.append(f"size {size:g} exceeds max_size {self.max_size:g} by {size - self.max_size:g}")
        if self.max_latency_us is not None and latency > self.max_latency_us:
            failures.append(f"measured latency {latency:.1f} µs exceeds max_latency_us {self.max_latency_us:g} "
                            f"by {latency - self.max_latency_us:.1f} µs")
        if not within_limits and not failures:
            failures.append("no trial meets the requirements")
        return {
            "family": family,
            "model": type(search.estimator).__name__,
            "params": dict(trial["params"]),
            "loss": loss,
            "loss_se": float(trial["loss_se"]),
            "relative_loss": float(trial["relative_loss"]),
            "score": float(trial["score"]),
            "size": size,
            "complexity": float(model.complexity_),
            "log_loss": float(trial["log_loss"]),
            "ece": float(trial["ece"]),
            "latency_us": latency,
            "latency_p90_us": float(np.percentile(timings, 90)),
            "within_noise": bool(within),
            "satisfies": not failures,
            "selected": False,
            "reason": "; ".join(failures),
        }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # both families read NaN as missing
        return tags

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
    """Searches PrDT and PrAM classifiers; keeps the simplest model within noise of the best that
    meets the requirements (see the module docstring).

    Parameters
    ----------
    families : tuple of {"prdt", "pram"}
    scoring : validation loss (see :func:`primo.search.resolve_loss`); default log loss, so the
        kept model's probabilities can be trusted; log loss and calibration error are reported
        beside any other choice.
    tolerance : None (paired one-standard-error rule, no worse on half the folds) or a fraction of the
        trivial predictor's loss; 0 keeps the lowest objective (see :mod:`primo.search.choice`).
    max_latency_us : float, optional — limit on the measured median single-row latency of the deployed
        path (Primo's compiled predictor, as embedded by :mod:`primo.export`).
    min_score : float, optional — minimum validation score (accuracy, F1, R² or a scorer).
    max_loss : float, optional — maximum validation loss (e.g. MAE).
    max_complexity : float, optional — limit on the paper's C (leaves × depth, or (1 + pairs) × bins).
    max_size : float, optional — limit on the readable size ``size_`` (leaves of a PrDT, constant pieces
        of a PrAM's shape functions; PrAM's simplification path offers smaller variants of its best trial).
    lam, gamma : the complexity penalty of the paper's objective S = P + λ·C^γ (default: none).
    n_trials : PrAM trials (PrDT scores every subtree of its pruning path). Default 10: on the
        development tables 10 trials tested better than 20 on 3 of 4 and ran 1.5-2x faster (more
        searched configurations mostly found luckier validation scores; reports/benchmarks/README.md).
    time_budget_s : seconds for the whole fit, optional. PrDT's search runs first, PrAM's gets what is left; a
        PrAM trial or refit still boosting when it ends is stopped there, and a stopped refit is not kept: the
        validated model is (cross-fitted; above 10,000 rows, the fit on the hold-out's training rows). Measured:
        ``benchmarks/time_budget.py``.
    cv : "auto" (5-fold CV up to :data:`AUTO_CV_MAX_ROWS` rows, else a hold-out), an int, a splitter,
        or None (a ``validation_fraction`` hold-out).
    family_params : dict family -> fixed constructor arguments, e.g. ``{"pram": {"outer_bags": 4}}``.
    n_jobs : trials run in parallel (default -1: every core; the trials then depend on the core count).
    random_state : seed of the validation splits and the search (drawn at random when None).
    progress : a tqdm bar for searches running longer than 10 s (False: none).
    """

    _families = {"prdt": PrDTClassifier, "pram": PrAMClassifier}

    def predict_proba(self, X):
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict_proba(X)

    @available_if(lambda self: _offered(self, "decision_function"))
    def decision_function(self, X):
        """The selected model's decision function (a PrAM's log-odds; a PrDT has none)."""
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.decision_function(X)


class PrimoRegressor(RegressorMixin, _PrimoAutoBase):
    """Searches PrDT and PrAM regressors and keeps the simplest model within noise of the best that
    meets the requirements (parameters as :class:`PrimoClassifier`; the default scoring is MAE)."""

    _families = {"prdt": PrDTRegressor, "pram": PrAMRegressor}
