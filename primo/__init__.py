"""Primo: interpretable models for learning-augmented systems.

Everything public is reachable from ``import primo``: the model classes and helpers below, and
the subpackages (``primo.report``, ``primo.export``, ``primo.adjust``, ``primo.distill``,
``primo.explain``, ``primo.search``, ...). They are imported on first use (PEP 562 module
``__getattr__``), so ``import primo`` and the ``primo`` command start without loading
scikit-learn, interpret or pandas.

>>> import primo
>>> "report" in dir(primo) and "PrAMRegressor" in dir(primo)
True
>>> model = primo.PrDTClassifier(ccp_alpha=1e-3).fit(X, y)  # doctest: +SKIP
>>> model.save("model.primo"); primo.load("model.primo")  # doctest: +SKIP
"""
from primo._lazy import lazy_getattr
from primo._version import __version__ as __version__  # re-exported

# public name -> module defining it
_ATTRIBUTES = {
    "PrAMClassifier": "primo.models",
    "PrAMRegressor": "primo.models",
    "PrDTClassifier": "primo.models",
    "PrDTRegressor": "primo.models",
    "PrimoClassifier": "primo.selection",
    "PrimoRegressor": "primo.selection",
    "RequirementsNotMetError": "primo.selection",
    "load": "primo.io",
    "ModelFileError": "primo.io",
    "InputError": "primo.errors",
    "ColumnMismatchError": "primo.errors",
    "InputTypeError": "primo.errors",
    "InputWarning": "primo.errors",
    "parallel_backend": "primo.parallel",
    "map_jobs": "primo.parallel",
}

# public subpackages and modules, imported as ``primo.<name>`` on first access
_SUBMODULES = ("adjust", "datasets", "demo", "distill", "errors", "explain", "export", "io", "models", "parallel",
              "report", "search", "selection", "tabular", "validation")

# ``from primo import *`` takes the classes and functions only: a star-import of ``io`` would shadow the stdlib's
__all__ = list(_ATTRIBUTES)


__getattr__ = lazy_getattr(__name__, _ATTRIBUTES, _SUBMODULES)


def __dir__() -> list[str]:
    # the public names, loaded or not, and the module's dunders: what completion and help() should offer
    return sorted({*__all__, *_SUBMODULES, *(name for name in globals() if name.startswith("__"))})
