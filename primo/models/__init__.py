"""Primo's interpretable model families and automatic selection between them."""
from primo.models.auto import PrimoClassifier, PrimoRegressor, RequirementsNotMetError
from primo.models.pram import PrAMClassifier, PrAMRegressor
from primo.models.prdt import PrDTClassifier, PrDTRegressor

#: Model classes that can be stored in a Primo model file, by class name.
MODEL_CLASSES = {cls.__name__: cls for cls in (PrDTClassifier, PrDTRegressor, PrAMClassifier, PrAMRegressor)}

__all__ = [
    "PrAMClassifier",
    "PrAMRegressor",
    "PrDTClassifier",
    "PrDTRegressor",
    "PrimoClassifier",
    "PrimoRegressor",
    "RequirementsNotMetError",
    "MODEL_CLASSES",
]
