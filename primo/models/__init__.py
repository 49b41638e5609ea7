"""Primo's interpretable model families (automatic selection between them is :mod:`primo.selection`).

The families are imported on first use (PEP 562), so that what sits beside them -- the input checks
of :mod:`primo.models._base`, the encodings of :mod:`primo.models.encoding` -- loads without
scikit-learn or interpret (``primo predict`` predicts from a model file's tables with those alone).

>>> from primo.models import PrDTRegressor
>>> PrDTRegressor.__name__
'PrDTRegressor'
"""
from primo._lazy import lazy_getattr
from primo.io import MODEL_CLASSES, register_model_class

# public class -> module defining it
_FAMILIES = {
    "PrAMClassifier": "primo.models.pram",
    "PrAMRegressor": "primo.models.pram",
    "PrDTClassifier": "primo.models.prdt",
    "PrDTRegressor": "primo.models.prdt",
}


__getattr__ = lazy_getattr(__name__, _FAMILIES)


def register_families() -> dict[str, type]:
    """Import the four families and let model files name them (:data:`primo.io.MODEL_CLASSES`)."""
    for name in _FAMILIES:
        register_model_class(__getattr__(name))
    return MODEL_CLASSES


__all__ = [*_FAMILIES, "MODEL_CLASSES"]
