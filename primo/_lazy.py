"""PEP 562 lazy attributes: a package names what it offers and imports each name on first use.

``primo``, ``primo.models`` and ``primo.export`` use it so that ``import primo`` and ``primo predict``
start without scikit-learn, interpret or onnx.
"""
from __future__ import annotations

import importlib
import sys


def lazy_getattr(package: str, attributes: dict[str, str], submodules=()):
    """A module ``__getattr__`` for ``package``: ``attributes`` maps a public name to the module defining
    it, ``submodules`` are imported as ``package.<name>``; each is stored on first access."""

    def __getattr__(name: str):
        if name in attributes:
            value = getattr(importlib.import_module(attributes[name]), name)
        elif name in submodules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)  # later accesses skip this function
        return value

    return __getattr__
