"""Search of model structure and hyper-parameters: S(θ) = P(θ) + λ·C(θ)^γ, and the rule that keeps
the simplest model within noise of the best (:mod:`primo.search.choice`)."""
from primo.search.choice import choose_trial, pareto_front
from primo.search.objective import (
    ComplexityPenalty,
    ValidationLoss,
    expected_calibration_error,
    reference_loss,
    resolve_loss,
    wmape,
)
from primo.search.pruning import PruningSearch
from primo.search.searchers import BayesianSearch, GridSearch, RandomSearch, TrialsFailedError
from primo.search.spaces import default_space, pram_space, prdt_space

__all__ = [
    "BayesianSearch",
    "PruningSearch",
    "RandomSearch",
    "GridSearch",
    "TrialsFailedError",
    "ComplexityPenalty",
    "choose_trial",
    "pareto_front",
    "expected_calibration_error",
    "reference_loss",
    "ValidationLoss",
    "resolve_loss",
    "wmape",
    "default_space",
    "prdt_space",
    "pram_space",
]
