"""Primo: interpretable models for learning-augmented systems.

>>> import primo
>>> model = primo.PrDTClassifier(ccp_alpha=1e-3).fit(X, y)  # doctest: +SKIP
>>> model.save("model.primo"); primo.load("model.primo")  # doctest: +SKIP
"""
from primo._version import __version__

from primo.errors import ColumnMismatchError, InputError, InputTypeError
from primo.io import ModelFileError, load
from primo.models import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.selection import PrimoClassifier, PrimoRegressor, RequirementsNotMetError
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
    "InputError",
    "ColumnMismatchError",
    "InputTypeError",
    "parallel_backend",
    "map_jobs",
]
