"""Primo: interpretable models for learning-augmented systems.

>>> import primo
>>> model = primo.PrDTClassifier(ccp_alpha=1e-3).fit(X, y)  # doctest: +SKIP
>>> model.save("model.primo"); primo.load("model.primo")  # doctest: +SKIP
"""
__version__ = "0.1.0"

from primo.io import ModelFileError, load
from primo.models import (
    PrAMClassifier,
    PrAMRegressor,
    PrDTClassifier,
    PrDTRegressor,
    PrimoClassifier,
    PrimoRegressor,
    RequirementsNotMetError,
)
from primo.parallel import map_jobs, parallel_backend

__all__ = [
    "PrAMClassifier",
    "PrAMRegressor",
    "PrDTClassifier",
    "PrDTRegressor",
    "PrimoClassifier",
    "PrimoRegressor",
    "RequirementsNotMetError",
    "load",
    "ModelFileError",
    "parallel_backend",
    "map_jobs",
]
