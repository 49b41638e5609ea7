"""Primo's interpretable model families (automatic selection between them is :mod:`primo.selection`)."""
from primo.models.pram import PrAMClassifier, PrAMRegressor
from primo.models.prdt import PrDTClassifier, PrDTRegressor

from primo.io import MODEL_CLASSES, register_model_class

for _family in (PrDTClassifier, PrDTRegressor, PrAMClassifier, PrAMRegressor):
    register_model_class(_family)

__all__ = [
    "PrAMClassifier",
    "PrAMRegressor",
    "PrDTClassifier",
    "PrDTRegressor",
    "MODEL_CLASSES",
]
