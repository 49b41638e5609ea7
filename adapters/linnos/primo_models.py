"""Primo's slow-read trees for LinnOS: searched PrDTs (Primo-E, Primo-P) and distilled ones.

* ``search_tree``: a ``primo.PrDTClassifier`` whose pruning strength ``ccp_alpha`` is chosen by
  ``primo.search.BayesianSearch`` minimising ``S = (1 - F1 of the slow class) + λ·C`` (C = leaves
  × depth). The search validates on the **last** quarter of the training reads (in submit
  order), never on reads interleaved with the ones it fits, so that validation looks like the
  future the tree will meet. Slow reads weigh ``slow_weight`` (4, as ``LinnOSNet``'s biased
  training), so Primo and LinnOS are trained on the same biased loss. Without it, F1-scored
  searches on the deployable ("completed") features pruned the tree to a root that always
  answers fast (F1 0) on all four traces.
* ``VARIANTS``: Primo-E (efficiency: λ = 1e-3, a tree of a handful of leaves) and Primo-P
  (performance: λ = 1e-5, the loss dominates), the two models of the Primo chapter.
* ``distill_tree``: the LinnOS network distilled into a PrDT with ``primo.distill.distill``
  (hard labels, or soft labels = the network's slow probability, grown as a regression tree and
  kept as a classifier whose leaves hold the mean probability; its labels are the network's
  decision rule saved with it, see ``primo.distill.predict_labels``). The student copies
  the network's biased decisions, bias included (the Primo chapter's stated use of the engine).
* ``TreePredictor``: the 0/1 slow answer of any of these trees (``primo.distill.predict_labels``),
  for the simulator and the metrics.

Example
-------
>>> primo_e = search_tree(X_train, y_train, lam=VARIANTS["Primo-E"], random_state=0)  # doctest: +SKIP
>>> primo_e.n_leaves_, primo_e.metadata_["search"]["best_params"]  # doctest: +SKIP
>>> student = distill_tree(net, X_train, X_test, y_test, labels="soft", random_state=0)  # doctest: +SKIP
>>> TreePredictor(student).predict(X_test)  # doctest: +SKIP
"""
from __future__ import annotations

import logging
import time

import numpy as np
from sklearn.model_selection import PredefinedSplit

from primo import PrDTClassifier
from primo.distill import distill, predict_labels
from primo.search import BayesianSearch

from .features import RAW_FEATURE_NAMES

logger = logging.getLogger(__name__)

#: λ of the search objective S = (1 − F1) + λ·(leaves × depth), per Primo variant.
VARIANTS = {"Primo-E": 1e-3, "Primo-P": 1e-5}
SLOW_WEIGHT = 4.0
#: Smallest leaf of a soft-label (regression) student. The network's probabilities are distinct
#: for almost every read, so an unbounded regression tree grows one leaf per read and the search
#: took 75-185 s per trace; 20 reads per leaf made it ~9 s at the same held-out fidelity.
SOFT_STUDENT_MIN_LEAF = 20


def time_ordered_validation(n_rows: int, validation_fraction: float = 0.25) -> PredefinedSplit:
    """A single split that validates on the last ``validation_fraction`` of ``n_rows`` rows.

    Example
    -------
    >>> train, valid = next(time_ordered_validation(8, 0.25).split())
    >>> train.tolist(), valid.tolist()
    ([0, 1, 2, 3, 4, 5], [6, 7])
    """
    if not 0 < validation_fraction < 1:
        raise ValueError(f"validation_fraction must be in (0, 1), got {validation_fraction}")
    cut = int(round(n_rows * (1 - validation_fraction)))
    if not 0 < cut < n_rows:
        raise ValueError(f"{n_rows} rows are too few to hold out {validation_fraction:g} of them")
    fold = np.full(n_rows, -1)
    fold[cut:] = 0
    return PredefinedSplit(fold)


def slow_weights(y, slow_weight: float = SLOW_WEIGHT) -> np.ndarray:
    """Sample weights of LinnOS's biased training: ``slow_weight`` for slow reads, 1 for fast.

    Example
    -------
    >>> slow_weights([0, 1, 0]).tolist()
    [1.0, 4.0, 1.0]
    """
    if slow_weight <= 0:
        raise ValueError(f"slow_weight must be positive, got {slow_weight}")
    return np.where(np.asarray(y) == 1, float(slow_weight), 1.0)


def search_tree(
    X,
    y,
    *,
    lam: float,
    gamma: float = 1.0,
    slow_weight: float = SLOW_WEIGHT,
    n_trials: int = 20,
    validation_fraction: float = 0.25,
    random_state: int | None = 0,
) -> PrDTClassifier:
    """PrDT with Bayesian-searched ``ccp_alpha`` on slow-class F1 + λ·C^γ, refit on all of ``X``.

    Parameters
    ----------
    X : DataFrame
        Raw features (``features.RAW_FEATURE_NAMES``) of the training reads, in submit order.
    y : array of 0/1
        Slow labels.
    lam, gamma : float
        Complexity penalty λ·C^γ of the search objective (``VARIANTS`` holds Primo-E/P's λ).
    slow_weight : float
        Weight of slow reads in the tree's impurity (LinnOS's biased training).
    n_trials : int
        Bayesian search trials (one tree fit each).
    validation_fraction : float
        Last part of ``X`` (by time) that scores the trials.
    random_state : int or None

    Returns
    -------
    PrDTClassifier with ``metadata_["search"]`` (the trial history) and ``metadata_["training"]``
    (``search_s``, ``search_cpu_s``: wall and CPU seconds of the whole search including the refit;
    ``slow_weight``).

    Example
    -------
    >>> tree = search_tree(X_train, y_train, lam=1e-3, n_trials=15)  # doctest: +SKIP
    """
    X = _raw_frame(X)
    y = np.asarray(y)
    if len(y) != len(X):
        raise ValueError(f"X has {len(X)} rows but y has {len(y)} labels")
    if np.unique(y).size != 2:
        raise ValueError("y must hold both fast (0) and slow (1) reads")
    start, cpu_start = time.perf_counter(), time.process_time()
    search = BayesianSearch(
        PrDTClassifier(random_state=random_state), scoring="f1", lam=lam, gamma=gamma, n_trials=n_trials,
        cv=time_ordered_validation(len(X), validation_fraction), n_jobs=1, random_state=random_state,
        tolerance=0, evaluate_estimator=False,  # the paper's protocol: the lowest S of the trials alone
    ).fit(X, y, sample_weight=slow_weights(y, slow_weight))
    tree = search.best_estimator_
    tree.metadata_["training"] = {
        "search_s": time.perf_counter() - start,
        "search_cpu_s": time.process_time() - cpu_start,
        "slow_weight": float(slow_weight),
        "validation": f"last {validation_fraction:g} of the training reads",
    }
    logger.info("searched PrDT (λ=%g): %d leaves, depth %d, alpha %.3g in %.1f s", lam, tree.n_leaves_,
                tree.depth_, tree.ccp_alpha, tree.metadata_["training"]["search_s"])
    return tree


def distill_tree(
    teacher,
    X_train,
    X_test,
    y_test,
    *,
    labels: str = "hard",
    lam: float = VARIANTS["Primo-P"],
    n_trials: int = 20,
    random_state: int | None = 0,
):
    """Distill a LinnOS network into a PrDT with ``primo.distill.distill``.

    Hard labels are searched on balanced accuracy against the teacher's labels (plain agreement
    rewards a tree that always answers fast when the teacher rarely says slow); soft labels on
    the agreement of the decided labels (distill's default), with leaves of at least
    ``SOFT_STUDENT_MIN_LEAF`` reads.

    Parameters
    ----------
    teacher : fitted ``LinnOSNet`` (or any classifier of the raw features).
    X_train : DataFrame of the reads the teacher labels for the student.
    X_test, y_test : held-out reads and their true labels (fidelity and accuracy are measured there).
    labels : {"hard", "soft"}
    lam : float
        Complexity penalty of the search.
    n_trials : int
    random_state : int or None

    Returns
    -------
    PrDTClassifier (soft: leaves hold the network's mean slow probability) with
    ``metadata_["distillation"]``; use
    ``TreePredictor`` (or ``primo.distill.predict_labels``) for its 0/1 answers.

    Example
    -------
    >>> student = distill_tree(net, X_train, X_test, y_test, labels="soft")  # doctest: +SKIP
    >>> student.metadata_["distillation"]["fidelity"]  # doctest: +SKIP
    """
    if labels not in ("hard", "soft"):
        raise ValueError(f"labels must be 'hard' or 'soft', got {labels!r}")
    options = (
        {"scoring": "balanced_accuracy"} if labels == "hard"
        else {"student_params": {"min_samples_leaf": SOFT_STUDENT_MIN_LEAF}}
    )
    return distill(
        teacher, _raw_frame(X_train), "prdt", X_test=_raw_frame(X_test), y_test=np.asarray(y_test),
        labels=labels, lam=lam, n_trials=n_trials, random_state=random_state, **options,
    )


class TreePredictor:
    """The 0/1 (fast/slow) answers of a searched or distilled PrDT, for metrics and the simulator.

    Example
    -------
    >>> TreePredictor(primo_e).predict(X_test[:3])  # doctest: +SKIP
    array([0, 1, 0])
    """

    def __init__(self, model):
        self.model = model

    def predict(self, features) -> np.ndarray:
        return np.asarray(predict_labels(self.model, _raw_frame(features))).astype(np.int64)


def tree_structure(model) -> dict:
    """Size of a fitted PrDT: leaves, depth, complexity, the raw features it tests and its first test.

    Example
    -------
    >>> tree_structure(primo_e)["root_feature"]  # doctest: +SKIP
    'pending_now'
    """
    features = model.tree_.feature
    used = np.unique(features[features >= 0])
    return {
        "leaves": int(model.n_leaves_),
        "depth": int(model.depth_),
        "complexity": int(model.complexity_),
        "features_used": [model.feature_names_[i] for i in used],
        "root_feature": model.feature_names_[features[0]] if features[0] >= 0 else None,
    }


def _raw_frame(X):
    """The raw-feature columns of ``X`` in order (a DataFrame keeps feature names on the trees)."""
    if not hasattr(X, "columns"):
        raise TypeError("expected a DataFrame with the raw feature columns (features.RAW_FEATURE_NAMES)")
    missing = [name for name in RAW_FEATURE_NAMES if name not in X.columns]
    if missing:
        raise ValueError(f"features lack columns {missing}")
    return X[RAW_FEATURE_NAMES]
