"""Export a fitted PrDT or PrAM for embedding: ONNX, C (float or integer-only), JavaScript, Lua, JSON.

Every export computes exactly what the Python model computes (the tests compile the C with gcc, run
the JavaScript with node, the Lua with lua5.1 and the ONNX graph with onnxruntime on real data); integer-mode C trades
exactness for no floating point and reports how many predictions differ on given data.

============  ==========================  ======================================================
format        function                    what you get
============  ==========================  ======================================================
``onnx``      :func:`to_onnx`             ``onnx.ModelProto`` (ONNX-ML tree ensembles, float64 in)
``c``         :func:`to_c`                C99 header source (``integer=True``: no floating point)
``js``        :func:`to_js`               ES-module source, no dependencies
``lua``       :func:`to_lua`              Lua 5.1 module source, no dependencies (Slurm job_submit, nginx)
``json``      :func:`to_json`             the model file's document as pure JSON
(Python)      :func:`compile_python`      single-row predictor, ~100× faster than ``predict``
============  ==========================  ======================================================

:func:`export_model` writes any of the five formats to a file (``primo export`` on the command line).

Inputs of the generated code: one row of numbers in the model's feature order, NaN for missing; text
categories as codes (:func:`encode_categories`); see :mod:`primo.export.tables`.

JSON format
-----------
:func:`to_json` publishes the document stored as ``primo.json`` inside a model file
(:mod:`primo.io`), with every array inlined, so any language can read a model without Python::

    {
      "format": "primo-model", "format_version": 1, "primo_version": "0.1.0",
      "model_class": "PrDTClassifier" | "PrDTRegressor" | "PrAMClassifier" | "PrAMRegressor",
      "params":   {constructor arguments},
      "state":    {fitted attributes},
      "metadata": {"search": ..., "edits": [...], "distillation": ..., "selection": ...}
    }

Plain JSON values stand for themselves. Special objects encode what JSON cannot:
``{"__list__": [...], "dtype": "<f8", "shape": [...]}`` a numeric array (row-major, NumPy dtype
string), ``{"__records__": {field: array, ...}, "dtype": [[field, dtype], ...]}`` a structured array
(one array per field), ``{"__object_array__": [...], "shape": [...], "kind": "O"|"U"}`` an array of
strings or mixed values, ``{"__float__": "nan"|"inf"|"-inf"}``, ``{"__tuple__": [...]}`` and
``{"__dict__": [[key, value], ...]}`` (a dict with non-string keys).

What the state holds:

* **PrDT** — ``state.tree_`` is scikit-learn's tree: ``n_features``, ``n_classes``, ``n_outputs``,
  ``max_depth``, ``node_count``, ``nodes`` (records with ``left_child``, ``right_child``, ``feature``,
  ``threshold``, ``impurity``, ``n_node_samples``, ``weighted_n_node_samples``, ``missing_go_to_left``;
  a leaf has ``left_child == -1``; a row goes left when ``float32(x[feature]) <= threshold``, a
  missing value when ``missing_go_to_left`` is 1) and ``values`` (``[node, output, class]``: class
  fractions for classifiers, the mean for regressors). ``state.classes_`` lists the labels.
* **PrAM** — ``state.ebm_.fitted`` is interpret's fitted EBM: ``bins_[feature][level]`` (sorted cut
  points, or a ``__dict__`` category → bin; level 0 for main terms, the last level for pairs),
  ``term_features_`` (feature indices of each term), ``term_scores_`` (one array per term, one axis per
  feature indexed by bin: 0 = missing, 1.. = bins, last = unseen; a last axis per class for multiclass),
  ``intercept_``, ``link_`` (``identity``, ``logit`` or ``mlogit``) and ``classes_``. A continuous value
  ``x`` falls in bin ``1 + #{cuts <= x}``. Score = intercept + Σ term scores, then the inverse link.

:func:`primo.io.model_from_document` rebuilds the model from this document.

Example
-------
>>> from primo.export import export_model, to_c
>>> export_model(model, "c", "linnos_tree.h", integer=True, check_data=X_test)  # doctest: +SKIP
>>> export_model(model, "onnx", "model.onnx")  # doctest: +SKIP
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from primo._lazy import lazy_getattr
from primo.errors import InputError
# Eager: the function shares its module's name, and importing the submodule later would shadow it.
from primo.export.quantize import QuantizationReport, quantize
from primo.io import atomic_write_bytes, model_document

# Public name -> module defining it, imported on first use (PEP 562): ``primo.export.saved`` (what
# ``primo predict`` uses) must load without onnx, and the exporters each pull in their own libraries.
_ATTRIBUTES = {
    "to_c": "primo.export.c_source",
    "integer_c": "primo.export.c_source",
    "to_js": "primo.export.js_source",
    "to_lua": "primo.export.lua_source",
    "to_onnx": "primo.export.onnx_graph",
    "compile_python": "primo.export.python_source",
    "encode_categories": "primo.export.tables",
    "model_tables": "primo.export.tables",
}


__getattr__ = lazy_getattr(__name__, _ATTRIBUTES)


FORMATS = ("onnx", "c", "js", "lua", "json")


def to_json(model, *, indent: int | None = 1) -> str:
    """The model as a portable JSON document (format in the module docstring).

    Example
    -------
    >>> document = json.loads(to_json(model))  # doctest: +SKIP
    >>> document["model_class"]  # doctest: +SKIP
    'PrDTClassifier'
    """
    from primo.export.tables import model_tables

    model_tables(model)  # the same clear error as the other formats for what cannot be exported
    document, _ = model_document(model, inline_arrays=True)
    return json.dumps(document, indent=indent, allow_nan=False)


def export_model(model, format: str, path: str | os.PathLike, **options) -> Path:
    """Write ``model`` to ``path`` (atomically) in ``format``: ``"onnx"``, ``"c"``, ``"js"``, ``"lua"`` or ``"json"``.

    ``options`` go to the format's function (e.g. ``integer=True, check_data=X`` for C, ``name=``
    for C and ONNX).

    Example
    -------
    >>> export_model(model, "js", "model.mjs")  # doctest: +SKIP
    """
    if format not in FORMATS:
        raise InputError(f"unknown export format {format!r}; choose one of {', '.join(FORMATS)}", argument="format")
    if format == "onnx":
        payload = __getattr__("to_onnx")(model, **options).SerializeToString()
    elif format in ("c", "js", "lua"):
        payload = __getattr__(f"to_{format}")(model, **options).encode()
    else:
        payload = to_json(model, **options).encode()
    return atomic_write_bytes(path, payload)


def export_all(model, out_dir: str | os.PathLike, *, name: str = "model", check_data=None) -> dict:
    """Write every format to ``out_dir``: ``NAME.onnx``, ``NAME.h`` (float C), ``NAME_int.h`` (integer C),
    ``NAME.mjs`` and ``NAME.json``.

    Returns ``{"files": {label: path}, "integer_check": report dict or None}``; ``check_data`` (rows
    of the model's features) is where integer mode's mismatches are counted.

    Example
    -------
    >>> export_all(model, "exports", check_data=X_test)["files"]["c"]  # doctest: +SKIP
    PosixPath('exports/model.h')
    """
    out = Path(out_dir)
    integer = __getattr__("integer_c")(model, name=f"{name}_int", check_data=check_data)
    files = {
        "onnx": export_model(model, "onnx", out / f"{name}.onnx"),
        "c": export_model(model, "c", out / f"{name}.h", name=name),
        "c_integer": atomic_write_bytes(out / f"{name}_int.h", integer.source.encode()),
        "js": export_model(model, "js", out / f"{name}.mjs"),
        "json": export_model(model, "json", out / f"{name}.json"),
    }
    return {"files": files, "integer_check": None if integer.report is None else integer.report.to_dict()}


__all__ = [
    "export_all",
    "FORMATS",
    "QuantizationReport",
    "compile_python",
    "encode_categories",
    "export_model",
    "integer_c",
    "model_tables",
    "quantize",
    "to_c",
    "to_js",
    "to_lua",
    "to_json",
    "to_onnx",
]
