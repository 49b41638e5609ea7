"""Primo model files: a documented, versioned format with no pickle.

A model file is a ZIP archive holding

* ``primo.json`` — metadata: ``format`` (always ``"primo-model"``), ``format_version``,
  ``primo_version``, ``model_class`` (e.g. ``"PrDTClassifier"``), ``params`` (the estimator's
  constructor arguments), ``state`` (its fitted attributes) and ``metadata`` (search history,
  distillation history, edit log; free-form JSON);
* ``arrays/<n>.npy`` — every numeric array of ``params``/``state``, in NumPy's ``.npy`` format.

Inside ``params`` and ``state`` plain JSON values stand for themselves; the special objects
``{"__array__": "<n>"}`` (an array stored as ``arrays/<n>.npy``), ``{"__tuple__": [...]}``,
``{"__object_array__": [...], "shape": [...]}`` (an array of Python strings/numbers),
``{"__float__": "nan" | "inf" | "-inf"}`` and ``{"__dict__": [[key, value], ...]}`` (a dict whose
keys are not all strings) encode what JSON cannot. The same tree, with arrays inlined as lists, is
what :func:`primo.export.to_json` publishes.

Files are written atomically (temporary file in the same directory, then ``os.replace``), so a
failed save never destroys an existing model.
"""
from __future__ import annotations

import io
import json
import math
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

FORMAT_NAME = "primo-model"
FORMAT_VERSION = 1
_META_NAME = "primo.json"


class ModelFileError(ValueError):
    """A file is not a readable Primo model (wrong format, newer version, truncated, corrupted)."""


# --------------------------------------------------------------------------- encoding


class _Encoder:
    """Turns nested Python/NumPy values into JSON plus a table of arrays."""

    def __init__(self, inline_arrays: bool = False):
        self.inline_arrays = inline_arrays
        self.arrays: dict[str, np.ndarray] = {}

    def encode(self, value: Any) -> Any:
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, np.integer)) and not isinstance(value, np.bool_):
            return int(value)
        if isinstance(value, np.bool_):
            return bool(value)
        if isinstance(value, (float, np.floating)):
            value = float(value)
            return value if math.isfinite(value) else {"__float__": repr(value)}
        if isinstance(value, np.ndarray):
            return self._encode_array(value)
        if isinstance(value, tuple):
            return {"__tuple__": [self.encode(v) for v in value]}
        if isinstance(value, list):
            return [self.encode(v) for v in value]
        if isinstance(value, dict):
            if all(isinstance(k, str) for k in value) and not any(k.startswith("__") for k in value):
                return {k: self.encode(v) for k, v in value.items()}
            return {"__dict__": [[self.encode(k), self.encode(v)] for k, v in value.items()]}
        raise TypeError(f"cannot store a value of type {type(value).__name__} in a Primo model file")

    def _encode_array(self, array: np.ndarray) -> Any:
        if array.dtype.hasobject or array.dtype.kind in "US":
            items = [self.encode(v) for v in array.ravel().tolist()]
            return {"__object_array__": items, "shape": list(array.shape), "kind": array.dtype.kind}
        if self.inline_arrays:
            if array.dtype.names:  # structured (e.g. scikit-learn's tree nodes): one dict per field
                return {
                    "__records__": {name: self.encode(array[name]) for name in array.dtype.names},
                    # named fields only: ``descr`` would add padding entries that cannot be rebuilt
                    "dtype": [[name, array.dtype.fields[name][0].str] for name in array.dtype.names],
                }
            return {"__list__": _finite_list(array), "dtype": array.dtype.str, "shape": list(array.shape)}
        key = str(len(self.arrays))
        self.arrays[key] = np.ascontiguousarray(array)
        return {"__array__": key}


def _finite_list(array: np.ndarray) -> list:
    if array.dtype.kind == "f":
        return [v if math.isfinite(v) else {"__float__": repr(v)} for v in array.ravel().tolist()]
    return array.ravel().tolist()


def _decode(value: Any, arrays: dict[str, np.ndarray]) -> Any:
    if isinstance(value, list):
        return [_decode(v, arrays) for v in value]
    if not isinstance(value, dict):
        return value
    if "__array__" in value:
        try:
            return arrays[value["__array__"]]
        except KeyError:
            raise ModelFileError(f"model file refers to a missing array {value['__array__']!r}") from None
    if "__float__" in value:
        return float(value["__float__"])
    if "__tuple__" in value:
        return tuple(_decode(v, arrays) for v in value["__tuple__"])
    if "__dict__" in value:
        return {_decode(k, arrays): _decode(v, arrays) for k, v in value["__dict__"]}
    if "__object_array__" in value:
        items = [_decode(v, arrays) for v in value["__object_array__"]]
        dtype = object if value.get("kind", "O") == "O" else str
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out.astype(dtype).reshape(value["shape"])
    if "__list__" in value:
        flat = [_decode(v, arrays) for v in value["__list__"]]
        return np.asarray(flat, dtype=np.dtype(value["dtype"])).reshape(value["shape"])
    if "__records__" in value:
        fields = {k: _decode(v, arrays) for k, v in value["__records__"].items()}
        dtype = np.dtype([tuple(d) for d in value["dtype"]])
        out = np.zeros(len(next(iter(fields.values()))), dtype=dtype)
        for name, column in fields.items():
            out[name] = column
        return out
    return {k: _decode(v, arrays) for k, v in value.items()}


def encode_tree(value: Any, *, inline_arrays: bool) -> tuple[Any, dict[str, np.ndarray]]:
    """Encode a nested value; returns the JSON-able tree and the arrays it refers to."""
    encoder = _Encoder(inline_arrays=inline_arrays)
    return encoder.encode(value), encoder.arrays


def decode_tree(value: Any, arrays: dict[str, np.ndarray] | None = None) -> Any:
    """Inverse of :func:`encode_tree`."""
    return _decode(value, arrays or {})


# --------------------------------------------------------------------------- files


def model_document(model, *, inline_arrays: bool) -> tuple[dict, dict[str, np.ndarray]]:
    """The metadata document of a fitted Primo model (and its arrays, unless inlined)."""
    from primo import __version__

    encoder = _Encoder(inline_arrays=inline_arrays)
    document = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "primo_version": __version__,
        "model_class": type(model).__name__,
        "params": encoder.encode(model.get_params(deep=False)),
        "state": encoder.encode(model._get_state()),
        "metadata": encoder.encode(getattr(model, "metadata_", {})),
    }
    return document, encoder.arrays


def atomic_write_bytes(path: str | os.PathLike, payload: bytes) -> Path:
    """Write ``payload`` to ``path`` atomically (temporary file in the same folder, then rename)."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory; give a file name")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates 0600; give the file the mode it had, or the one a plain open() would give.
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_current_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save_model(model, path: str | os.PathLike) -> Path:
    """Save a fitted Primo model to ``path`` (atomically). See the module docstring for the format."""
    document, arrays = model_document(model, inline_arrays=False)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(_META_NAME, json.dumps(document, indent=1, allow_nan=False))
        for key, array in arrays.items():
            with archive.open(f"arrays/{key}.npy", "w") as handle:
                np.lib.format.write_array(handle, array, allow_pickle=False)
    return atomic_write_bytes(path, buffer.getvalue())


def read_document(path: str | os.PathLike) -> tuple[dict, dict[str, np.ndarray]]:
    """Read and check a model file's metadata and arrays without building the model."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {path}")
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if _META_NAME not in names:
                raise ModelFileError(f"{path} is not a Primo model file (no {_META_NAME} inside)")
            document = json.loads(archive.read(_META_NAME))
            _check_header(document, path)
            arrays = {}
            for name in names:
                if name.startswith("arrays/") and name.endswith(".npy"):
                    with archive.open(name) as handle:
                        arrays[name[len("arrays/"):-len(".npy")]] = np.lib.format.read_array(
                            io.BytesIO(handle.read()), allow_pickle=False
                        )
    except zipfile.BadZipFile as exc:
        raise ModelFileError(f"{path} is not a Primo model file, or it is truncated/corrupted ({exc})") from None
    except (zipfile.LargeZipFile, EOFError, OSError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"{path} is a damaged Primo model file: {exc}") from None
    except ValueError as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(f"{path} is a damaged Primo model file: {exc}") from None
    return document, arrays


def _check_header(document: Any, path: Path) -> None:
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise ModelFileError(f"{path} is not a Primo model file (format field missing or wrong)")
    version = document.get("format_version")
    if not isinstance(version, int):
        raise ModelFileError(f"{path}: format_version is missing or not an integer")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"{path} uses model format version {version}, newer than this Primo supports "
            f"({FORMAT_VERSION}); upgrade primo to read it"
        )
    for key in ("model_class", "params", "state"):
        if key not in document:
            raise ModelFileError(f"{path} is a damaged Primo model file: field {key!r} missing")


def model_from_document(document: dict, arrays: dict[str, np.ndarray] | None = None):
    """Build the model a metadata document describes (arrays referenced or inlined)."""
    from primo.models import MODEL_CLASSES

    cls_name = document["model_class"]
    cls = MODEL_CLASSES.get(cls_name)
    if cls is None:
        raise ModelFileError(f"unknown model class {cls_name!r} (known: {', '.join(sorted(MODEL_CLASSES))})")
    params = decode_tree(document["params"], arrays)
    model = cls(**params)
    model._set_state(decode_tree(document["state"], arrays))
    model.metadata_ = decode_tree(document.get("metadata", {}), arrays)
    return model


def load(path: str | os.PathLike):
    """Load a model saved with ``model.save(path)``.

    Parameters
    ----------
    path : path to a Primo model file.

    Raises
    ------
    ModelFileError
        The file is not a Primo model, uses a newer format version, or is truncated/corrupted.

    Example
    -------
    >>> model = primo.load("model.primo")  # doctest: +SKIP
    >>> model.predict(X)  # doctest: +SKIP
    """
    document, arrays = read_document(path)
    try:
        return model_from_document(document, arrays)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ModelFileError(f"{path} is a damaged Primo model file: {exc}") from exc
