"""Search of model structure and hyper-parameters: S(θ) = P(θ) + λ·C(θ)^γ."""
from primo.search.objective import ComplexityPenalty, ValidationLoss, resolve_loss, wmape
from primo.search.searchers import BayesianSearch, GridSearch, RandomSearch
from primo.search.spaces import default_space, pram_space, prdt_space

__all__ = [
    "BayesianSearch",
    "RandomSearch",
    "GridSearch",
    "ComplexityPenalty",
    "ValidationLoss",
    "resolve_loss",
    "wmape",
    "default_space",
    "prdt_space",
    "pram_space",
]
