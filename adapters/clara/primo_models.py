"""Primo's models for the three Clara tasks: PrAM templates, search budgets and spaces, CP routes.

The paper replaces all three of Clara's models by PrAM (GA²M) models whose structure is chosen by
Bayesian optimization (BO). Here:

* :func:`pram_template` — the PrAM of a task with bounded boosting (``max_rounds``, ``outer_bags``
  of the :class:`SearchBudget`); fitted as is it is "Primo w/o BO";
* :func:`search_pram`, :func:`fit_best` — "Primo w/ BO": :class:`primo.search.BayesianSearch` with
  k-fold CV inside (the MS landscape is flat and a single hold-out too noisy to rank configurations);
* CP works on token blocks, so its models are pipelines ``CPTokenFeatures → PrAM``
  (:func:`cp_pipeline`); :func:`distill_lstm` is the second CP route, distilling Clara's LSTM
  through :func:`primo.distill.distill` on the synthetic blocks plus generated ones
  (:mod:`adapters.clara.augment`), which only the LSTM can label.

Example
-------
>>> from adapters.clara.data import load_ms
>>> ms = load_ms("train")
>>> search = search_pram("MS", ms.X, ms.y, QUICK["MS"], random_state=0)  # doctest: +SKIP
>>> fit_best(search, ms.X, ms.y, QUICK["MS"]).metadata_["search"]["best_params"]  # doctest: +SKIP
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from skopt.space import Integer, Real

from adapters.clara.augment import augment_blocks
from adapters.clara.cp_features import CPTokenFeatures
from primo import PrAMClassifier, PrAMRegressor
from primo.distill import distill
from primo.search import BayesianSearch

logger = logging.getLogger(__name__)

TASKS = ("MS", "AI", "CP")
#: Validation loss of each task's search: MAE (cores; instructions ÷ 60) for MS and CP, log loss for
#: AI — the training CRC loops are so separable that every configuration reaches out-of-fold F1 = 1
#: (measured: the F1 search was a tie from its first trial), while log loss still ranks how
#: confidently each configuration separates them.
SCORING = {"MS": "mae", "AI": "neg_log_loss", "CP": "mae"}
#: CP feature design of the PrAM pipelines: length, token counts, first/last-token indicators.
#: Chosen on synthetic 3-fold CV only (``benchmarks/clara_cp_pram_design.py``).
CP_FEATURES = {"length": True, "boundary_tokens": True}
#: Pipeline step names (search spaces address the PrAM as ``pram__<param>``).
CP_STEPS = ("features", "pram")


@dataclass(frozen=True)
class SearchBudget:
    """How much a task's search may spend.

    ``n_trials`` BO trials, each scored by ``cv``-fold cross-validation; every PrAM fit is bounded
    by ``max_rounds`` boosting rounds and ``outer_bags`` bags. ``reported_outer_bags`` (default:
    ``outer_bags``) is the bag count of the models the study reports (Primo w/o BO and the refit of
    the chosen configuration): bags only average away a fit's seed noise, so the search, which fits
    hundreds of times, spends fewer. ``n_augment`` is the number of generated blocks per training
    block for the CP distillation route.
    """

    n_trials: int
    cv: int
    max_rounds: int
    outer_bags: int
    n_augment: float = 1.0
    reported_outer_bags: int | None = None

    @property
    def final_outer_bags(self) -> int:
        """Bags of the reported models."""
        return self.outer_bags if self.reported_outer_bags is None else self.reported_outer_bags


#: The full case study: a few dozen trials in all, < 15 min on 2 free cores.
FULL = {
    # MS: with 2 bags the refit's test MAE moves by ±0.1 between seeds (measured 2.51–2.71); 16 bags
    # bring that under ±0.03 for a few seconds of fitting.
    "MS": SearchBudget(n_trials=25, cv=5, max_rounds=1000, outer_bags=2, reported_outer_bags=16),
    "AI": SearchBudget(n_trials=12, cv=3, max_rounds=500, outer_bags=2),
    "CP": SearchBudget(n_trials=10, cv=3, max_rounds=1000, outer_bags=2, n_augment=3.0),
}
#: ``--quick``: a smoke run that exercises every step in seconds (numbers are meaningless).
QUICK = {
    "MS": SearchBudget(n_trials=3, cv=2, max_rounds=100, outer_bags=1),
    "AI": SearchBudget(n_trials=2, cv=2, max_rounds=50, outer_bags=1),
    "CP": SearchBudget(n_trials=2, cv=2, max_rounds=50, outer_bags=1, n_augment=0.5),
}


def pram_template(task: str, budget: SearchBudget, random_state: int = 0, *, for_search: bool = False):
    """The unfitted PrAM of ``task`` with PrAM's default structure and bounded boosting.

    It has ``budget.final_outer_bags`` bags, or ``budget.outer_bags`` with ``for_search=True``.

    Example
    -------
    >>> pram_template("AI", QUICK["AI"]).max_rounds
    50
    """
    _check_task(task)
    cls = PrAMClassifier if task == "AI" else PrAMRegressor
    # n_jobs=1: searches parallelize over trials instead, and the machine is shared.
    bags = budget.outer_bags if for_search else budget.final_outer_bags
    return cls(max_rounds=budget.max_rounds, outer_bags=bags, n_jobs=1, random_state=random_state)


def search_space(task: str) -> dict:
    """The BO space of ``task`` (scikit-optimize dimensions keyed by PrAM parameter).

    * MS — PrAM's default space (bins, pair terms, learning rate, leaf size, leaves);
    * AI — the 102 features are 0/1 flags, so bins do not matter; at most 10 pair terms (the pair
      screening over 5,151 candidate pairs dominates the fit time);
    * CP — token counts take few values (≤ 64 bins suffice), at most 8 pair terms; keys carry the
      ``pram__`` prefix of :func:`cp_pipeline`.

    Example
    -------
    >>> sorted(search_space("AI"))
    ['interactions', 'learning_rate', 'max_leaves', 'min_samples_leaf']
    """
    _check_task(task)
    shared = {
        "learning_rate": Real(0.005, 0.3, prior="log-uniform"),
        "min_samples_leaf": Integer(1, 50, prior="log-uniform"),
        "max_leaves": Integer(2, 4),
    }
    if task == "MS":
        return {"max_bins": Integer(8, 512, prior="log-uniform"), **shared, "interactions": Integer(0, 32)}
    if task == "AI":
        return {**shared, "interactions": Integer(0, 10)}
    space = {"max_bins": Integer(8, 64, prior="log-uniform"), **shared, "interactions": Integer(0, 8)}
    return {f"{CP_STEPS[1]}__{name}": dimension for name, dimension in space.items()}


def cp_pipeline(pram=None, **feature_params) -> Pipeline:
    """``CPTokenFeatures → PrAMRegressor`` on token blocks; the PrAM sees named features.

    Parameters
    ----------
    pram : PrAMRegressor, optional
        The additive model (default: ``pram_template("CP", FULL["CP"])``).
    **feature_params
        Overrides of :data:`CP_FEATURES`.

    Example
    -------
    >>> list(cp_pipeline().named_steps)
    ['features', 'pram']
    """
    features = CPTokenFeatures(**{**CP_FEATURES, **feature_params}).set_output(transform="pandas")
    return Pipeline([(CP_STEPS[0], features), (CP_STEPS[1], pram or pram_template("CP", FULL["CP"]))])


def search_pram(task: str, X, y, budget: SearchBudget, *, n_jobs=1, random_state: int = 0,
                progress: bool = False) -> BayesianSearch:
    """Primo w/ BO: Bayesian search of the task's PrAM with ``budget.cv``-fold CV (no refit).

    For CP, ``X`` holds token blocks and the searched estimator is :func:`cp_pipeline`. Fit the
    chosen configuration with :func:`fit_best` (separately, so that its fit can be timed and
    repeated on other rows).

    Parameters
    ----------
    task : {"MS", "AI", "CP"}
    X, y : training data (never the real NFs)
    budget : SearchBudget
    n_jobs : int
        Trials evaluated in parallel (joblib).
    random_state : int
        Seeds the folds, the optimizer and the PrAM.

    Example
    -------
    >>> search = search_pram("MS", ms.X, ms.y, FULL["MS"], n_jobs=2)  # doctest: +SKIP
    >>> search.best_params_, search.best_loss_  # doctest: +SKIP
    """
    estimator = pram_template(task, budget, random_state, for_search=True)
    if task == "CP":
        estimator = cp_pipeline(estimator)
    search = BayesianSearch(
        estimator, space=search_space(task), scoring=SCORING[task], n_trials=budget.n_trials, cv=budget.cv,
        n_jobs=n_jobs, random_state=random_state, refit=False, progress=progress,
        tolerance=0, evaluate_estimator=False,  # the paper's protocol: the lowest S of the trials alone
    )
    return search.fit(X, y)


def fit_best(search: BayesianSearch, X, y, budget: SearchBudget):
    """Fit the best configuration of ``search`` on (X, y); its PrAM gets ``metadata_["search"]``.

    Returns the PrAM (MS, AI) or the ``features → PrAM`` pipeline (CP), with the reported bag
    count ``budget.final_outer_bags`` instead of the search's.

    Example
    -------
    >>> model = fit_best(search_pram("MS", ms.X, ms.y, QUICK["MS"]), ms.X, ms.y, QUICK["MS"])  # doctest: +SKIP
    """
    model = clone(search.estimator).set_params(**search.best_params_)
    pram = model.named_steps[CP_STEPS[1]] if isinstance(model, Pipeline) else model
    pram.set_params(outer_bags=budget.final_outer_bags)
    model.fit(X, y)
    pram.metadata_["search"] = search.history(model=model)
    return model


class MeasuredOrTeacher:
    """A distillation teacher that answers with the measured count where a block was measured.

    For a block seen among ``X_known`` it returns the mean measured count of that exact block;
    for any other (generated) block, the teacher's prediction. Distilling through it keeps the
    ground truth of the synthetic programs and asks the LSTM only about the generated blocks.

    Example
    -------
    >>> known = np.zeros((1, 70), dtype=int); known[0, :2] = [5, 9]
    >>> teacher = MeasuredOrTeacher(lambda X: np.full(len(X), 0.5), known, [0.1])
    >>> teacher.predict(np.vstack([known, np.zeros((1, 70), dtype=int)])).tolist()
    [0.1, 0.5]
    """

    def __init__(self, teacher, X_known, y_known):
        self.teacher = teacher
        X_known = np.asarray(X_known, dtype=np.int64)
        y_known = np.asarray(y_known, dtype=float)
        if len(X_known) != len(y_known):
            raise ValueError(f"X_known has {len(X_known)} rows but y_known has {len(y_known)}")
        blocks, inverse = np.unique(X_known, axis=0, return_inverse=True)
        means = np.bincount(inverse, weights=y_known) / np.bincount(inverse)
        self._measured = {block.tobytes(): float(mean) for block, mean in zip(blocks, means)}

    def __repr__(self) -> str:
        return f"MeasuredOrTeacher({self.teacher!r}, {len(self._measured)} measured blocks)"

    def predict(self, X) -> np.ndarray:
        """Measured mean count for known blocks, the teacher's prediction for the others."""
        X = np.asarray(X, dtype=np.int64)
        predict = getattr(self.teacher, "predict", self.teacher)
        out = np.asarray(predict(X), dtype=float).copy()
        for i, row in enumerate(X):
            out[i] = self._measured.get(row.tobytes(), out[i])
        return out


def distill_lstm(lstm, X, budget: SearchBudget, *, y=None, student_params: dict | None = None, search: bool = True,
                 n_jobs=1, random_state: int = 0, progress: bool = False) -> Pipeline:
    """Second CP route: distill Clara's LSTM into a ``CPTokenFeatures → PrAM`` pipeline.

    ``budget.n_augment × len(X)`` blocks are generated from the training blocks ``X``
    (:func:`adapters.clara.augment.augment_blocks`) and labelled by the LSTM; the training blocks
    keep their measured counts ``y`` when given (:class:`MeasuredOrTeacher`; chosen on synthetic
    CV, see ``benchmarks/clara_cp_pram_design.py``), else the LSTM labels them too.
    :func:`primo.distill.distill` holds out 20% of the pool to measure fidelity and searches the
    PrAM on fidelity (1 − R² against the labels).

    Parameters
    ----------
    lstm : fitted :class:`~adapters.clara.lstm.ClaraLSTMRegressor`
    X : array-like (n, 70)
        Training token blocks (never the real NFs).
    budget : SearchBudget
    y : array-like (n,), optional
        Measured counts (÷ 60) of ``X``.
    student_params : dict, optional
        PrAM parameters (``pram__`` prefixed) to fit as given, e.g. the best of an earlier search
        when refitting on more data with ``search=False``.
    search : bool, default True
    n_jobs, random_state, progress :
        As for :func:`search_pram`.

    Returns
    -------
    Pipeline
        Fitted; its PrAM's ``metadata_["distillation"]`` holds the fidelity, options and timing.

    Example
    -------
    >>> cp = load_cp("synthetic")  # doctest: +SKIP
    >>> student = distill_lstm(ClaraLSTMRegressor().fit(), cp.X, QUICK["CP"], y=cp.y)  # doctest: +SKIP
    >>> student.named_steps["pram"].metadata_["distillation"]["fidelity"]  # doctest: +SKIP
    """
    X = np.asarray(X)
    n_generated = int(round(budget.n_augment * len(X)))
    pool = np.vstack([X, augment_blocks(X, n_generated, random_state=random_state)]) if n_generated else X
    teacher = lstm if y is None else MeasuredOrTeacher(lstm, X, y)
    logger.info("CP distillation: %d training blocks (%s) + %d generated (LSTM)", len(X),
                "LSTM" if y is None else "measured", n_generated)
    student = distill(
        teacher, pool, cp_pipeline(pram_template("CP", budget, random_state)), task="regression", test_size=0.2,
        search=search, n_trials=budget.n_trials, space=search_space("CP") if search else None,
        student_params=student_params, n_jobs=n_jobs, random_state=random_state, progress=progress,
    )
    pram = student.named_steps[CP_STEPS[1]]
    record = dict(student.metadata_["distillation"])
    # The blocks were generated here, not by the engine's numeric augmenters: record them as such.
    record["options"] = {**record["options"], "augment": "concat+crop blocks", "n_augment": n_generated,
                         "training_block_labels": "LSTM" if y is None else "measured"}
    record["iterations"] = [{**it, "n_augmented": n_generated} for it in record["iterations"]]
    pram.metadata_["distillation"] = record
    return student


def searched_params(pipeline: Pipeline) -> dict:
    """The CP search-space parameters of a fitted ``features → PrAM`` pipeline (``pram__`` keys).

    Used to refit a distilled student's configuration on more data (the distill engine keeps the
    chosen configuration in the model, not in a search history).

    Example
    -------
    >>> sorted(searched_params(cp_pipeline()))[:2]
    ['pram__interactions', 'pram__learning_rate']
    """
    params = pipeline.get_params()
    return {name: params[name] for name in search_space("CP")}


def _check_task(task: str) -> None:
    if task not in TASKS:
        raise ValueError(f"unknown Clara task {task!r}; expected one of {TASKS}")
