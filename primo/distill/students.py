"""Building and fitting the student model (PrDT, PrAM or any estimator), with or without search."""
from __future__ import annotations

import numpy as np
from sklearn.base import clone

from primo.models import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.search import BayesianSearch

_FAMILIES = {
    ("prdt", "classification"): PrDTClassifier,
    ("prdt", "regression"): PrDTRegressor,
    ("pram", "classification"): PrAMClassifier,
    ("pram", "regression"): PrAMRegressor,
}


def make_student(student, task: str, *, student_params: dict | None = None, random_state=None):
    """An unfitted student: ``"prdt"``/``"pram"`` for ``task``, or a clone of an estimator.

    A ``random_state`` left at ``None`` is set to ``random_state``, so that distillation is
    reproducible (trees break ties between equally good splits at random).

    Example
    -------
    >>> make_student("prdt", "regression", student_params={"min_samples_leaf": 5})
    PrDTRegressor(min_samples_leaf=5)
    """
    if isinstance(student, str):
        cls = _FAMILIES.get((student.lower(), task))
        if cls is None:
            raise ValueError(f"unknown student {student!r}: use 'prdt', 'pram' or an estimator instance")
        estimator = cls(**(student_params or {}))
    else:
        if not (callable(getattr(student, "fit", None)) and callable(getattr(student, "predict", None))):
            raise TypeError(f"a student must be 'prdt', 'pram' or an estimator with fit/predict, not {student!r}")
        estimator = clone(student)
        if student_params:
            estimator.set_params(**student_params)
    params = estimator.get_params(deep=False)
    if random_state is not None and "random_state" in params and params["random_state"] is None:
        estimator.set_params(random_state=random_state)
    return estimator


def fit_student(estimator, X, y, sample_weight=None, *, search: bool = True, scoring=None, n_trials: int = 20,
                lam: float = 0.0, gamma: float = 1.0, space=None, n_jobs=1, random_state=None, progress=False):
    """Fit ``estimator`` on (X, y), after a Bayesian search of its structure when ``search``.

    The search minimizes S(θ) = loss + λ·C(θ)^γ on a hold-out split and keeps the lowest S (the
    paper's protocol: distillation's size is steered by λ and by the fidelity search of
    :func:`primo.distill.distill`, not by :mod:`primo.search.choice`'s rule); the returned model is
    refit on all of X and carries ``metadata_['search']``.

    Example
    -------
    >>> fit_student(PrDTClassifier(), X, teacher_labels, scoring="error", n_trials=10)  # doctest: +SKIP
    """
    if not search:
        fit_kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
        return clone(estimator).fit(X, y, **fit_kwargs)
    searcher = BayesianSearch(
        estimator, space=space, scoring=scoring, lam=lam, gamma=gamma, n_trials=n_trials, n_jobs=n_jobs,
        random_state=random_state, progress=progress, tolerance=0, evaluate_estimator=False,
    )
    return searcher.fit(X, y, sample_weight=sample_weight).best_estimator_


def student_structure(model) -> dict:
    """Size of a fitted student for the distillation log: leaves and depth (trees), complexity.

    Example
    -------
    >>> student_structure(PrDTClassifier(ccp_alpha=0.01).fit(X, y))  # doctest: +SKIP
    {'n_leaves': 5, 'depth': 3, 'complexity': 15.0}
    """
    tree = getattr(model, "tree_", None)
    complexity = getattr(model, "complexity_", None)
    return {
        "n_leaves": None if tree is None else int(tree.n_leaves),
        "depth": None if tree is None else int(tree.max_depth),
        "complexity": None if complexity is None else float(complexity),
    }


def derive_seeds(random_state, n: int) -> list[int]:
    """``n`` independent integer seeds derived from ``random_state`` (fresh entropy when None).

    Example
    -------
    >>> derive_seeds(0, 2) == derive_seeds(0, 2)
    True
    """
    return [int(s) for s in np.random.SeedSequence(random_state).generate_state(n) % (2**31 - 1)]
