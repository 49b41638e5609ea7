"""Supervised distillation: a black-box teacher's predictions become a PrDT or PrAM student.

The teacher labels the training inputs (and, optionally, new inputs generated around them, see
:mod:`primo.distill.augment`); the student learns those labels, with its structure chosen by a
Bayesian search whose objective is *fidelity* to the teacher (1 − agreement, or 1 − R² against
the teacher's outputs for regression) plus λ·complexity. Fidelity is then measured on held-out
inputs, and accuracy against the true labels too when they are given, for teacher and student.

Because the student copies the teacher's *decisions*, a teacher trained with a bias (LinnOS's
false-submit-averse training) is reproduced bias included.

Soft labels: with ``labels="soft"`` a classifier teacher's probabilities (``predict_proba``) are
learned, and the student is a *classifier* (``predict_proba``, ``classes_``, ``predict``) whose
probabilities estimate the teacher's:

* PrDT — the tree is grown and searched as a regression tree on the teacher's probability vector
  (the positive-class probability for a binary teacher), then stored as the PrDTClassifier it is:
  each node's class probabilities are the mean teacher probabilities of its inputs. Least squares on
  probability vectors ranks splits as the Gini criterion on soft class weights does (the impurity
  decreases differ by a constant factor; on wine the two trees predict the same probabilities), but
  stops where the teacher's probability is constant, where a Gini tree of soft labels keeps making
  splits that change nothing (178 leaves vs 88 unpruned on wine). Growing it as a regressor also
  keeps the search, λ and ``min_samples_leaf`` meaning what they mean for hard labels (the case
  studies' protocol); the student saves and exports as any PrDT.
* PrAM (or a classifier instance) — the family's own classifier fit on soft labels: every input
  appears once per class, weighted by the teacher's probability of that class, so an EBM minimizes
  its cross-entropy against the teacher (interpret's early-stopping split sees each copy as a row
  of its own). The structure search, when asked for, runs on the teacher's labels; the
  configuration it keeps is then refit on the probabilities.

The student's ``predict`` is its most probable class. A teacher whose labels are not the argmax of
its probabilities (one that flags a class as soon as P ≥ 0.05, like LinnOS's biased training) gets
a threshold calibrated to reproduce its labels from its scores, saved with the student
(``metadata_['distillation']['decision']``); :func:`predict_labels` applies it (and is
``predict`` for every other teacher). Fidelity is reported both ways: agreement of the decided
labels, agreement of the argmax, and the probability error against the teacher (mean total
variation ½Σ|p − q| and cross-entropy, see :func:`primo.distill.fidelity.probability_report`).

Example
-------
>>> from sklearn.datasets import load_wine
>>> from sklearn.ensemble import GradientBoostingClassifier
>>> from sklearn.metrics import accuracy_score
>>> X, y = load_wine(return_X_y=True, as_frame=True)
>>> teacher = GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y)
>>> student = distill(teacher, X, "prdt", y=y, labels="soft", search=False, random_state=0)
>>> type(student).__name__, student.classes_.tolist(), round(accuracy_score(y, student.predict(X)), 3)
('PrDTClassifier', [0, 1, 2], 0.966)
>>> held_out = student.metadata_["distillation"]["held_out"]  # 25% of X, against the teacher
>>> round(held_out["fidelity"], 3), round(held_out["probability_mae"], 3)
(0.867, 0.126)
>>> student.save("student.primo")  # doctest: +SKIP
"""
from __future__ import annotations

import contextlib
import logging
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone, is_classifier, is_regressor
from sklearn.model_selection import train_test_split

from primo.distill.augment import METHODS as AUGMENT_METHODS
from primo.distill.augment import augment as augment_inputs
from primo.distill.fidelity import TASKS, accuracy_report, fidelity_report, probability_report
from primo.distill.protocols import describe_teacher
from primo.distill.students import derive_seeds, fit_student, make_student, student_structure
from primo.models import PrDTClassifier
from primo.models._base import names_warned_once, names_warning_due
from primo.models.encoding import frame_from_arrow

logger = logging.getLogger(__name__)

LABELS = ("hard", "soft")


def distill(
    teacher,
    X,
    student="prdt",
    *,
    y=None,
    X_test=None,
    y_test=None,
    task: str = "auto",
    labels: str = "hard",
    augment: str | None = None,
    n_augment: int | None = None,
    noise_scale: float = 0.05,
    test_size: float = 0.25,
    search: bool = True,
    scoring=None,
    n_trials: int = 20,
    lam: float = 0.0,
    gamma: float = 1.0,
    space=None,
    student_params: dict | None = None,
    n_jobs=1,
    random_state=None,
    progress: bool = False,
):
    """Distill ``teacher`` into an interpretable student; returns the fitted student.

    Parameters
    ----------
    teacher : estimator or callable
        Anything with ``predict(X)`` (plus ``predict_proba`` for soft labels),
        or a callable ``f(X) -> (n,)``. It is called on inputs shaped like ``X``.
    X : array-like of shape (n, d), DataFrame or Arrow table
        Inputs the teacher is meant for (e.g. its training inputs). A table in the Arrow C stream
        protocol (polars DataFrame, pyarrow Table) is read as a pandas DataFrame, for the teacher too.
    student : "prdt", "pram" or estimator, default "prdt"
        The student family (classifier or regressor picked to match the task; a classifier for
        soft labels), or an estimator instance (then pass ``space`` when searching, unless it is a
        Primo model; for soft labels, a classifier accepting ``sample_weight``).
    y : array-like, optional
        True labels of ``X``; when given, accuracy of teacher and student is reported on the
        held-out part of ``X`` (unused when ``X_test`` is given: pass ``y_test``).
    X_test, y_test : optional
        Held-out inputs (and true labels). When given, all of ``X`` trains the student and fidelity
        is measured on ``X_test``; otherwise ``test_size`` of ``X`` is held out.
    task : {"auto", "classification", "regression"}
        ``"auto"``: classification when the teacher is a scikit-learn classifier or has
        ``predict_proba``, regression for a scikit-learn regressor, otherwise decided by the dtype
        of the teacher's outputs (integers, booleans, strings → classification).
    labels : {"hard", "soft"}, default "hard"
        Learn the teacher's labels, or (classification only) its probabilities (``predict_proba``):
        the student is then a classifier whose ``predict_proba`` estimates the teacher's.
    augment : {None, "perturb", "marginal", "both"}
        Generate ``n_augment`` extra training inputs for the teacher to label.
    n_augment : int, optional
        Number of generated inputs (default: as many as there are training inputs).
    noise_scale : float, default 0.05
        Perturbation noise in quantile units (see :func:`primo.distill.augment.perturb`).
    test_size : float, default 0.25
        Fraction of ``X`` held out for fidelity when ``X_test`` is not given.
    search : bool, default True
        Bayesian search of the student's structure on the fidelity objective; otherwise the
        student is fit as given.
    scoring : optional
        The search's fidelity loss on the teacher's labels (any ``scoring`` of
        :class:`primo.search.BayesianSearch`). Default: ``"error"`` (1 − agreement) for
        classification, ``"1-r2"`` against the teacher for regression, 1 − agreement of the decided
        labels for soft labels. ``"balanced_accuracy"`` suits teachers that rarely predict a label.
    n_trials, lam, gamma, space, n_jobs :
        Passed to :class:`primo.search.BayesianSearch` (S = (1 − fidelity) + λ·C^γ).
    student_params : dict, optional
        Parameters for the student (e.g. ``{"max_rounds": 500, "outer_bags": 2}`` for PrAM).
    random_state : int, optional
        Seed of the split, the augmentation, the search and the student.
    progress : bool
        Show the search's progress bar.

    Returns
    -------
    student : fitted estimator
        With ``metadata_["distillation"]``: ``method`` ("supervised"), ``fidelity`` (held-out),
        ``held_out`` (full fidelity report; with soft labels also ``argmax_fidelity``,
        ``probability_mae``, ``log_loss_to_teacher``, ``teacher_entropy``), ``accuracy`` (teacher and
        student against ``y``, or None), ``decision`` and ``soft_fit`` (soft labels: the decision
        rule, and how the classifier was fit), ``classes_not_learned`` (hard labels: the teacher's
        classes, or ``y``'s, that no training input was labelled with; a warning names them),
        ``iterations`` (one entry: fidelity, n_leaves, depth, complexity, n_samples, seconds),
        ``teacher`` and ``options``.

    Example
    -------
    >>> tree = distill(mlp, X_train, "prdt", X_test=X_test, augment="perturb", n_augment=5000)  # doctest: +SKIP
    >>> tree.save("distilled.primo")  # doctest: +SKIP
    """
    start = time.perf_counter()
    if labels not in LABELS:
        raise ValueError(f"labels must be one of {LABELS}, got {labels!r}")
    if augment is not None and augment not in AUGMENT_METHODS:
        raise ValueError(f"augment must be None or one of {AUGMENT_METHODS}, got {augment!r}")
    split_seed, augment_seed, search_seed = derive_seeds(random_state, 3)
    X = _check_inputs(X, "X")
    oracle = _Teacher(teacher)
    # A Primo teacher's warning about the names of X's columns, when due, once per call: from this first call,
    # not again from its calls on rows drawn from X (augmented inputs, soft labels) or on X_test rows of X's kind.
    teacher_labels = oracle.labels(X)
    task = _resolve_task(teacher, task, teacher_labels)
    if labels == "soft" and task != "classification":
        raise ValueError("soft labels are for classifier teachers; a regression teacher's outputs are already soft")
    y = _check_targets(y, len(X), "y")

    if X_test is None:
        if not 0 < test_size < 1:
            raise ValueError(f"test_size must be in (0, 1) when X_test is not given, got {test_size}")
        train, test = _split(len(X), test_size, teacher_labels if task == "classification" else None, split_seed)
        X_train, X_test = _take(X, train), _take(X, test)
        train_labels, test_labels = teacher_labels[train], teacher_labels[test]
        y_test = None if y is None else y[test]
        held_out_source = f"{test_size:g} of X"
    else:
        X_train, train_labels = X, teacher_labels
        X_test = _check_inputs(X_test, "X_test")
        if X_test.shape[1] != X.shape[1]:
            raise ValueError(f"X_test has {X_test.shape[1]} features but X has {X.shape[1]}")
        # Rows with names alike (both tables with text column labels, or neither) give any model the same warning
        # about them, or none: X_test's was then already given, or was not due.
        test_like_X = names_warning_due(teacher, X) == names_warning_due(teacher, X_test)
        with names_warned_once() if test_like_X else contextlib.nullcontext():
            test_labels = oracle.labels(X_test)
        y_test = _check_targets(y_test, len(X_test), "y_test")
        held_out_source = "X_test"

    n_generated = 0
    X_fit, fit_labels = X_train, train_labels
    if augment is not None:
        n_generated = len(X_train) if n_augment is None else int(n_augment)
        generated = augment_inputs(X_train, n_generated, method=augment, scale=noise_scale, random_state=augment_seed)
        X_fit = _concat(X_train, generated)
        with names_warned_once():  # inputs like X's (same type and columns)
            fit_labels = np.concatenate([train_labels, oracle.labels(generated)])
        logger.info("augmented %d training inputs with %d %s inputs", len(X_train), n_generated, augment)

    unlearned = []
    if task == "classification" and labels == "hard":
        unlearned = _classes_never_labelled(oracle, fit_labels, y)
    decision = soft_fit = None
    if labels == "soft":
        classes = oracle.classes(teacher_labels)
        with names_warned_once():  # X's rows, and inputs like them
            probabilities = oracle.probabilities(X_fit, classes)
        decision = _Decision.calibrate(probabilities[: len(X_train)], train_labels, classes)
        model, soft_fit = _fit_soft_student(
            student, X_fit, probabilities, fit_labels, classes, decision, search=search, scoring=scoring,
            n_trials=n_trials, lam=lam, gamma=gamma, space=space, student_params=student_params, n_jobs=n_jobs,
            random_state=search_seed, progress=progress,
        )
    else:
        estimator = make_student(student, task, student_params=student_params, random_state=search_seed)
        default_scoring = "error" if task == "classification" else "1-r2"
        model = fit_student(
            estimator, X_fit, fit_labels, search=search, scoring=default_scoring if scoring is None else scoring,
            n_trials=n_trials, lam=lam, gamma=gamma, space=space, n_jobs=n_jobs, random_state=search_seed,
            progress=progress,
        )

    def student_labels(inputs):
        return predict_labels(model, inputs) if decision is not None else np.asarray(model.predict(inputs))

    # The student (fit on X's kind of rows) can warn about the names of an X_test unlike X: once, here, unless the
    # teacher (an estimator, with scikit-learn's rule) already warned about X's or X_test's.
    teacher_warned = hasattr(teacher, "n_features_in_") and (names_warning_due(teacher, X)
                                                             or names_warning_due(teacher, X_test))
    with names_warned_once() if teacher_warned else contextlib.nullcontext():
        held_out = fidelity_report(test_labels, student_labels(X_test), task)
    with names_warned_once():  # the teacher's warnings about these rows, when due, were given above
        if decision is not None:
            # The student's own predict (argmax) and its probabilities, against the teacher's.
            held_out["argmax_fidelity"] = float(np.mean(np.asarray(model.predict(X_test)) == test_labels))
            held_out.update(probability_report(oracle.probabilities(X_test, classes), model.predict_proba(X_test)))
        train_fidelity = fidelity_report(train_labels, student_labels(X_train), task)["fidelity"]
        accuracy = None
        if y_test is not None:
            accuracy = {
                "student": accuracy_report(y_test, student_labels(X_test), task),
                "teacher": accuracy_report(y_test, test_labels, task),
            }
    seconds = time.perf_counter() - start
    iteration = {
        "iteration": 1,
        "fidelity": held_out["fidelity"],
        "train_fidelity": train_fidelity,
        **student_structure(model),
        "n_samples": int(len(X_fit)),
        "n_augmented": int(n_generated),
        "seconds": float(seconds),
    }
    record = {
        "method": "supervised",
        "task": task,
        "labels": labels,
        "fidelity": held_out["fidelity"],
        "held_out": {**held_out, "source": held_out_source},
        "accuracy": accuracy,
        "decision": None if decision is None else decision.to_dict(),
        "soft_fit": soft_fit,
        "classes_not_learned": unlearned,
        "iterations": [iteration],
        "teacher": describe_teacher(teacher),
        "options": {
            "student": student if isinstance(student, str) else type(student).__name__,
            "augment": augment, "n_augment": int(n_generated), "noise_scale": float(noise_scale),
            "test_size": float(test_size), "search": bool(search), "n_trials": int(n_trials),
            "scoring": getattr(model, "metadata_", {}).get("search", {}).get("scoring"),
            "lam": float(lam), "gamma": float(gamma), "random_state": random_state,
        },
    }
    metadata = getattr(model, "metadata_", None)
    model.metadata_ = {**(metadata or {}), "distillation": record}
    logger.info(
        "distilled %s into %s: held-out fidelity %.4f (%s), %d training inputs, %.1f s",
        record["teacher"]["class"], type(model).__name__, held_out["fidelity"],
        "agreement" if task == "classification" else "R² vs teacher", len(X_fit), seconds,
    )
    return model


def predict_labels(model, X) -> np.ndarray:
    """The labels a distilled student predicts, applying its soft-label decision rule if it has one.

    That rule is the argmax (then this is ``model.predict(X)``) unless the teacher labelled by a
    threshold on its probability other than the argmax; then the calibrated threshold is applied to
    the student's probability of ``classes_[1]``.

    Example
    -------
    >>> predict_labels(primo.load("student.primo"), X)  # doctest: +SKIP
    """
    decision = (getattr(model, "metadata_", None) or {}).get("distillation", {}).get("decision")
    if decision is None or decision.get("kind") == "argmax" and callable(getattr(model, "predict_proba", None)):
        return np.asarray(model.predict(X))
    # A classifier student's probabilities, or (files from before soft students were classifiers)
    # a regression student's outputs.
    scores = model.predict_proba(X) if callable(getattr(model, "predict_proba", None)) else model.predict(X)
    return _Decision.from_dict(decision).apply(scores)


# --------------------------------------------------------------------------- teacher


class _Teacher:
    """Labels, classes and soft scores of a supervised teacher, with checked shapes."""

    def __init__(self, teacher):
        self.teacher = teacher
        self._predict = getattr(teacher, "predict", None)
        if not callable(self._predict):
            if not callable(teacher):
                raise TypeError(f"a teacher must have predict(X) or be callable; got {type(teacher).__name__}")
            self._predict = teacher

    def labels(self, X) -> np.ndarray:
        outputs = np.asarray(self._predict(X))
        if outputs.ndim == 2 and outputs.shape[1] == 1:
            outputs = outputs[:, 0]
        if outputs.shape != (len(X),):
            raise ValueError(f"the teacher returned shape {outputs.shape} for {len(X)} inputs; expected ({len(X)},)")
        return outputs

    def classes(self, labels: np.ndarray) -> np.ndarray:
        classes = getattr(self.teacher, "classes_", None)
        return np.asarray(classes) if classes is not None else np.unique(labels)

    def probabilities(self, X, classes: np.ndarray) -> np.ndarray:
        """The teacher's class probabilities (n, n_classes), columns in the order of ``classes``."""
        function = getattr(self.teacher, "predict_proba", None)
        if not callable(function):
            raise ValueError(
                "soft labels are the teacher's class probabilities: it needs predict_proba(X) (a teacher "
                "with only decision_function can be calibrated first, e.g. with sklearn's CalibratedClassifierCV)"
            )
        probabilities = np.asarray(function(X), dtype=float)
        expected = (len(X), len(classes))
        if probabilities.shape != expected:
            raise ValueError(f"teacher.predict_proba returned shape {probabilities.shape}; expected {expected} "
                             f"for its {len(classes)} classes {classes.tolist()}")
        if not np.all(np.isfinite(probabilities)) or np.any(probabilities < 0):
            raise ValueError("teacher.predict_proba returned NaN, infinity or negative probabilities")
        return probabilities / probabilities.sum(axis=1, keepdims=True)


def _classes_never_labelled(oracle: _Teacher, fit_labels: np.ndarray, y) -> list:
    """Classes the teacher knows (its ``classes_``, else the true labels ``y``) that it gave no training
    input, with a warning: a hard-label student learns only the labels it sees, so it can never predict
    them and its ``predict_proba`` has no column for them."""
    known = getattr(oracle.teacher, "classes_", None)
    if known is None and y is not None:
        known = pd.unique(pd.Series(y).dropna())
    if known is None:
        return []
    known = np.asarray(known)
    missing = known[~np.isin(known, fit_labels)].tolist()
    if missing:
        remedy = ("labels='soft' keeps every class of its predict_proba"
                  if callable(getattr(oracle.teacher, "predict_proba", None))
                  else "add inputs the teacher labels with them (or augment=)")
        warnings.warn(f"the teacher labels no training input as {missing} (of its classes {known.tolist()}), so the "
                      f"hard-label student cannot predict them; {remedy}", UserWarning, stacklevel=3)
    return missing


def _resolve_task(teacher, task: str, labels: np.ndarray) -> str:
    if task != "auto":
        if task not in TASKS:
            raise ValueError(f"task must be 'auto' or one of {TASKS}, got {task!r}")
        return task
    if isinstance(teacher, BaseEstimator):
        if is_classifier(teacher):
            return "classification"
        if is_regressor(teacher):
            return "regression"
    if callable(getattr(teacher, "predict_proba", None)):
        return "classification"
    return "classification" if labels.dtype.kind in "biuUSO" else "regression"


@dataclass(frozen=True)
class _Decision:
    """How a soft-label student's outputs become labels: a threshold (binary) or argmax."""

    classes: np.ndarray
    threshold: float | None = None

    @classmethod
    def calibrate(cls, probabilities: np.ndarray, labels: np.ndarray, classes: np.ndarray) -> "_Decision":
        """Argmax when it gives the teacher's own labels on every input, else (binary) a threshold."""
        if len(classes) != 2 or np.array_equal(classes[probabilities.argmax(axis=1)], labels):
            return cls(classes=classes)
        return cls(classes=classes, threshold=_best_threshold(probabilities[:, 1], labels == classes[1]))

    def apply(self, outputs) -> np.ndarray:
        """Labels from probabilities (n, n_classes), or from a regression student's outputs:
        the positive-class score (n,) or the probability vectors (n, n_classes)."""
        outputs = np.asarray(outputs, dtype=float)
        if self.threshold is None:
            if outputs.ndim == 1:
                return self.classes[(outputs >= 0.5).astype(int)]
            return self.classes[outputs.argmax(axis=1)]
        positive = outputs[:, 1] if outputs.ndim == 2 else outputs
        return self.classes[(positive >= self.threshold).astype(int)]

    def to_dict(self) -> dict:
        return {
            "kind": "argmax" if self.threshold is None else "threshold",
            "threshold": self.threshold,
            "classes": self.classes.tolist(),
        }

    @classmethod
    def from_dict(cls, record: dict) -> "_Decision":
        return cls(classes=np.asarray(record["classes"]), threshold=record.get("threshold"))


def _best_threshold(scores: np.ndarray, positive: np.ndarray) -> float:
    """The threshold τ for which (score ≥ τ) agrees most often with the teacher's positive labels."""
    values = np.unique(scores)
    # Candidate τ: midpoints between consecutive distinct scores, and beyond both ends.
    candidates = np.concatenate([[values[0] - 1.0], (values[:-1] + values[1:]) / 2, [values[-1] + 1.0]])
    order = np.argsort(scores, kind="stable")
    sorted_scores, sorted_positive = scores[order], positive[order].astype(int)
    below = np.searchsorted(sorted_scores, candidates, side="left")  # rows predicted negative
    negatives_below = np.concatenate([[0], np.cumsum(1 - sorted_positive)])[below]
    positives_above = sorted_positive.sum() - np.concatenate([[0], np.cumsum(sorted_positive)])[below]
    return float(candidates[np.argmax(negatives_below + positives_above)])


def _fit_soft_student(student, X, probabilities, teacher_labels, classes, decision, *, search, scoring, n_trials,
                      lam, gamma, space, student_params, n_jobs, random_state, progress):
    """A classifier student of the teacher's probabilities, and how it was fit (see the module docstring)."""
    options = dict(search=search, n_trials=n_trials, lam=lam, gamma=gamma, space=space, n_jobs=n_jobs,
                   random_state=random_state, progress=progress)
    if isinstance(student, str) and student.lower() == "prdt":
        binary = len(classes) == 2
        targets = probabilities[:, 1] if binary else probabilities
        regressor = make_student("prdt", "regression", student_params=student_params, random_state=random_state)
        grown = fit_student(regressor, X, targets, scoring=_DisagreementLoss(decision) if scoring is None else scoring,
                            **options)
        return _tree_as_classifier(grown, classes), "regression tree on the teacher's probabilities, kept as a classifier"
    estimator = make_student(student, "classification", student_params=student_params, random_state=random_state)
    if is_regressor(estimator):
        raise ValueError(f"soft labels make a classifier student; {type(estimator).__name__} is a regressor "
                         "(use 'prdt', 'pram' or a classifier accepting sample_weight)")
    history = None
    if search:
        searched = fit_student(estimator, X, teacher_labels, scoring="error" if scoring is None else scoring,
                               **options)
        history = searched.metadata_.get("search") if hasattr(searched, "metadata_") else None
        estimator = clone(searched)  # the kept configuration, unfitted
    model = fit_student(estimator, *_soft_copies(X, probabilities, classes), search=False)
    if history is not None:
        model.metadata_["search"] = {**history, "refit": "on the teacher's probabilities (soft copies)"}
    return model, "classifier fit on one copy of each input per class, weighted by the teacher's probability"


def _soft_copies(X, probabilities: np.ndarray, classes: np.ndarray):
    """Every input once per class it has a positive probability for, weighted by that probability."""
    rows, columns = np.nonzero(probabilities > 0)  # row-major: a row's copies stay together
    copies = X.iloc[rows].reset_index(drop=True) if isinstance(X, pd.DataFrame) else X[rows]
    return copies, classes[columns], probabilities[rows, columns]


def _tree_as_classifier(regressor, classes: np.ndarray):
    """A PrDTClassifier with the nodes of ``regressor``, a tree grown on probabilities (or on the
    positive-class probability): class probabilities = its node values, impurity = their Gini."""
    state = regressor._get_state()
    tree = dict(state["tree_"])
    values = np.asarray(tree["values"], dtype=float)[:, :, 0]  # (nodes, outputs)
    if values.shape[1] == 1:
        values = np.hstack([1.0 - values, values])
    # Node values are means of probabilities; clip float rounding and renormalise.
    values = np.clip(values, 0.0, None)
    values /= values.sum(axis=1, keepdims=True)
    nodes = np.array(tree["nodes"], copy=True)
    nodes["impurity"] = 1.0 - np.sum(values**2, axis=1)
    tree.update(n_classes=np.asarray([len(classes)], dtype=np.intp), n_outputs=1, nodes=nodes, values=values[:, None, :])
    params = {k: v for k, v in regressor.get_params().items() if k in PrDTClassifier().get_params()}
    params["criterion"] = "gini"
    # Gini's cost-complexity equals the regressor's times the number of classes (once the mean over
    # outputs is undone; 2 for the single-output binary tree): the same pruning in Gini units.
    params["ccp_alpha"] = regressor.ccp_alpha * len(classes)
    params["leaf_smoothing"] = 0.0  # the leaves hold the teacher's mean probabilities, not counts
    classifier = PrDTClassifier(**params)
    classifier._set_state({**state, "tree_": tree, "n_outputs_": 1, "classes_": np.asarray(classes),
                           "n_classes_": int(len(classes)), "leaf_smoothing_": 0.0})
    classifier.metadata_ = dict(regressor.metadata_)
    return classifier


class _DisagreementLoss:
    """Search loss for soft-label students: 1 − agreement of decided labels (a picklable callable)."""

    __name__ = "1-fidelity"

    def __init__(self, decision: _Decision):
        self.decision = decision

    def __call__(self, y_true, y_pred) -> float:
        return float(np.mean(self.decision.apply(y_true) != self.decision.apply(y_pred)))


# --------------------------------------------------------------------------- inputs


def _check_inputs(X, name: str):
    # Rows are taken and joined with pandas below, and the teacher and student need the column names.
    X = frame_from_arrow(X)
    if isinstance(X, pd.DataFrame):
        if X.shape[1] == 0:
            raise ValueError(f"{name} has no columns")
        if len(X) < 4:
            raise ValueError(f"{name} needs at least 4 rows to distill from, got {len(X)}")
        return X.reset_index(drop=True)
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}")
    if len(X) < 4:
        raise ValueError(f"{name} needs at least 4 rows to distill from, got {len(X)}")
    return X


def _check_targets(y, n: int, name: str):
    if y is None:
        return None
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.shape != (n,):
        raise ValueError(f"{name} has shape {y.shape}; expected ({n},), one label per input row")
    return y


def _take(X, rows):
    return X.iloc[rows].reset_index(drop=True) if isinstance(X, pd.DataFrame) else X[rows]


def _concat(X, new):
    return pd.concat([X, new], ignore_index=True) if isinstance(X, pd.DataFrame) else np.vstack([X, new])


def _split(n: int, test_size: float, labels, seed: int):
    rows = np.arange(n)
    stratify = None
    if labels is not None and np.unique(labels, return_counts=True)[1].min() >= 2:
        stratify = labels
    return train_test_split(rows, test_size=test_size, random_state=seed, stratify=stratify)
