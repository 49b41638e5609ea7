"""Primo's interpretable model families (automatic selection between them is :mod:`primo.selection`)."""
from primo.models.pram import PrAMClassifier, PrAMRegressor
from primo.models.prdt import PrDTClassifier, PrDTRegressor

#: Model classes that can be stored in a Primo model file, by class name.
MODEL_CLASSES = {cls.__name__: cls for cls in (PrDTClassifier, PrDTRegressor, PrAMClassifier, PrAMRegressor)}

__all__ = [
    "PrAMClassifier",
    "PrAMRegressor",
    "PrDTClassifier",
    "PrDTRegressor",
    "MODEL_CLASSES",
]
