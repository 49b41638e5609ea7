"""Primo model files: a documented, versioned format with no pickle, safe to load from anyone.

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

Loading contract
----------------
:func:`load` returns a model whose ``predict`` is defined for every finite or NaN input, or raises
:class:`ModelFileError` saying what is wrong and where — never another exception type, a crash, a
hang, or memory beyond the limits below (a missing file is ``FileNotFoundError``). Nothing is built
before everything is checked (:mod:`primo.validation`):

* bytes: the file, each member's declared *and* inflated size, the total, ``primo.json``'s size and
  nesting depth are bounded; ``.npy`` members must be plain numeric arrays (no object dtype, no
  pickle) whose header agrees with their size; JSON must be UTF-8 without NaN/Infinity literals;
* structure: dtypes and shapes of every array; PrDT trees (children in range, one tree rooted at
  node 0 with every node reached once, leaves consistent, features below ``n_features_in_``,
  finite thresholds or scikit-learn's ``+inf`` missing-value split); PrAM terms (features in range,
  score tables shaped by their bins incl. missing and unseen bins, pairs 2-D, a class axis for
  multiclass, finite scores); constructor parameters; the edit log in ``metadata``.

Default limits (:data:`~primo.validation.DEFAULT_LIMITS`; pass ``limits=FileLimits(...)`` to
:func:`load` to change them): file 512 MiB, 10,000 members, 256 MiB per member, 512 MiB in total,
``primo.json`` 8 MiB and 64 levels deep, a ZIP directory of at most 1 KB per allowed member. Peak
memory while loading stays below about ``max_total_bytes + max_member_bytes + 40 × max_json_bytes``
(≈ 1.1 GiB with the defaults); loading time grows linearly with the file (seconds for a
pathological 8 MiB ``primo.json``). The edit log is checked again by :func:`primo.adjust.replay`
and :func:`primo.adjust.undo`, and a model's ``_set_state`` runs the same state checks.

Saving
------
Files are written atomically (a uniquely named temporary file in the same directory, then
``os.replace``): a failed save never destroys an existing model, and two processes saving to the
same path leave one complete file. A read-only target is refused unless the caller passes
``overwrite_read_only=True``; error messages name the target, not the temporary file.

Example
-------
>>> model.save("model.primo")  # doctest: +SKIP
>>> primo.load("model.primo").predict(X)  # doctest: +SKIP
"""
from __future__ import annotations

import errno
import importlib
import io
import json
import math
import os
import re
import struct
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from primo.validation import (
    DEFAULT_LIMITS,
    check_central_directory,
    FileLimits,
    ModelFileError,
    parse_json,
    parse_npy,
    read_member,
    validate_metadata,
    validate_params,
    validate_state,
)

FORMAT_NAME = "primo-model"
FORMAT_VERSION = 1
_META_NAME = "primo.json"


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


_SPECIAL_KEYS = {
    "__array__": {"__array__"},
    "__float__": {"__float__"},
    "__tuple__": {"__tuple__"},
    "__dict__": {"__dict__"},
    "__object_array__": {"__object_array__", "shape", "kind"},
    "__list__": {"__list__", "dtype", "shape"},
    "__records__": {"__records__", "dtype"},
}
_FLOAT_NAMES = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def _decode(value: Any, arrays: dict[str, np.ndarray]) -> Any:
    """Inverse of :class:`_Encoder`; every special object is checked (a file may be hostile)."""
    if isinstance(value, list):
        return _unchanged_or(value, [_decode(v, arrays) for v in value])
    if not isinstance(value, dict):
        return value
    special = [k for k in value if k.startswith("__")]
    if not special:
        decoded = {k: _decode(v, arrays) for k, v in value.items()}
        return _unchanged_or(value, decoded)
    kind = special[0]
    if kind not in _SPECIAL_KEYS or set(value) != _SPECIAL_KEYS[kind]:
        raise ModelFileError(f"unknown special object with keys {sorted(value)[:5]}")
    payload = value[kind]
    if kind == "__array__":
        if not isinstance(payload, str) or payload not in arrays:
            raise ModelFileError(f"model file refers to a missing array {payload!r}")
        return arrays[payload]
    if kind == "__float__":
        if not isinstance(payload, str) or payload not in _FLOAT_NAMES:
            raise ModelFileError(f"{payload!r} is not one of the special floats {sorted(_FLOAT_NAMES)}")
        return _FLOAT_NAMES[payload]
    if not isinstance(payload, (list, dict)):
        raise ModelFileError(f"{kind} holds a {type(payload).__name__}")
    if kind == "__tuple__":
        return tuple(_decode(v, arrays) for v in payload)
    if kind == "__dict__":
        return _decode_dict(payload, arrays)
    if kind == "__object_array__":
        return _decode_object_array(value, arrays)
    if kind == "__list__":
        return _decode_list(value, arrays)
    return _decode_records(value, arrays)


def _unchanged_or(original, decoded):
    """``original`` when decoding changed none of its items (plain JSON is not held twice), else ``decoded``."""
    pairs = zip(original.values(), decoded.values()) if isinstance(original, dict) else zip(original, decoded)
    return original if all(a is b for a, b in pairs) else decoded


def _decode_dict(pairs: Any, arrays: dict[str, np.ndarray]) -> dict:
    out = {}
    for pair in pairs:
        if not isinstance(pair, list) or len(pair) != 2:
            raise ModelFileError("__dict__ entries must be [key, value] pairs")
        key = _decode(pair[0], arrays)
        try:
            hash(key)
        except TypeError:
            raise ModelFileError(f"a __dict__ key of type {type(key).__name__} cannot be a key") from None
        out[key] = _decode(pair[1], arrays)
    return out


def _shape(value: Any, count: int) -> tuple[int, ...]:
    shape = value.get("shape")
    if (not isinstance(shape, list) or len(shape) > 32
            or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)
            or math.prod(shape) != count):
        raise ModelFileError(f"array shape {str(shape)[:80]} does not hold its {count} items")
    return tuple(shape)


def _decode_object_array(value: dict, arrays: dict[str, np.ndarray]) -> np.ndarray:
    if not isinstance(value["__object_array__"], list) or value["kind"] not in ("O", "U"):
        raise ModelFileError("__object_array__ needs a list of items and kind 'O' or 'U'")
    items = [_decode(v, arrays) for v in value["__object_array__"]]
    if not all(isinstance(v, (str, int, float, bool, type(None))) for v in items):
        raise ModelFileError("__object_array__ items must be strings, numbers, booleans or null")
    shape = _shape(value, len(items))
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return (out if value["kind"] == "O" else out.astype(str)).reshape(shape)


def _numeric_dtype(text: Any) -> np.dtype:
    try:
        dtype = np.dtype(text) if isinstance(text, str) and len(text) <= 8 else None
    except (TypeError, ValueError, SyntaxError):
        dtype = None
    if dtype is None or dtype.kind not in "biuf" or dtype.subdtype is not None:
        raise ModelFileError(f"{str(text)[:40]!r} is not a numeric dtype")
    return dtype


def _decode_list(value: dict, arrays: dict[str, np.ndarray]) -> np.ndarray:
    flat = value["__list__"]
    if not isinstance(flat, list):
        raise ModelFileError("__list__ must hold a list of numbers")
    flat = [_decode(v, arrays) for v in flat]
    if not all(isinstance(v, (int, float)) for v in flat):
        raise ModelFileError("__list__ items must be numbers")
    dtype, shape = _numeric_dtype(value["dtype"]), _shape(value, len(flat))
    try:
        return np.asarray(flat, dtype=dtype).reshape(shape)
    except (OverflowError, ValueError) as exc:
        raise ModelFileError(f"__list__ items do not fit dtype {dtype}: {exc}") from None


def _decode_records(value: dict, arrays: dict[str, np.ndarray]) -> np.ndarray:
    fields, spec = value["__records__"], value["dtype"]
    if (not isinstance(fields, dict) or not isinstance(spec, list)
            or not all(isinstance(d, list) and len(d) == 2 and isinstance(d[0], str) for d in spec)
            or [d[0] for d in spec] != list(fields)):
        raise ModelFileError("__records__ needs one [name, dtype] per field, in field order")
    dtype = np.dtype([(name, _numeric_dtype(text)) for name, text in spec]) if spec else None
    columns = [_decode(fields[name], arrays) for name, _ in spec]
    if dtype is None or not all(isinstance(c, np.ndarray) and c.ndim == 1 for c in columns) \
            or len({len(c) for c in columns}) != 1:
        raise ModelFileError("__records__ fields must be 1-D arrays of one length")
    out = np.zeros(len(columns[0]), dtype=dtype)
    for (name, _), column in zip(spec, columns):
        out[name] = column
    return out


def encode_tree(value: Any, *, inline_arrays: bool) -> tuple[Any, dict[str, np.ndarray]]:
    """Encode a nested value; returns the JSON-able tree and the arrays it refers to."""
    encoder = _Encoder(inline_arrays=inline_arrays)
    return encoder.encode(value), encoder.arrays


def decode_tree(value: Any, arrays: dict[str, np.ndarray] | None = None) -> Any:
    """Inverse of :func:`encode_tree`; a malformed special object raises :class:`ModelFileError`."""
    return _decode(value, arrays or {})


# --------------------------------------------------------------------------- files


def model_document(model, *, inline_arrays: bool) -> tuple[dict, dict[str, np.ndarray]]:
    """The metadata document of a fitted Primo model (and its arrays, unless inlined)."""
    from primo._version import __version__

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


def atomic_write_bytes(path: str | os.PathLike, payload: bytes, *, overwrite_read_only: bool = False) -> Path:
    """Write ``payload`` to ``path`` atomically: a uniquely named temporary file in the same folder,
    then ``os.replace``. Readers and concurrent writers see the old file or one complete new file,
    never a torn one. A read-only ``path`` is refused unless ``overwrite_read_only=True``. Errors name
    ``path``, not the temporary file.

    Example
    -------
    >>> atomic_write_bytes("results.json", b"{}")  # doctest: +SKIP
    PosixPath('results.json')
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory; give a file name")
    if path.exists() and not overwrite_read_only and _is_read_only(path):
        raise PermissionError(errno.EACCES, "the file is read-only; pass overwrite_read_only=True to replace it",
                              str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _error_naming(exc, path) from exc
    try:
        # mkstemp creates 0600; give the file the mode it had, or the one a plain open() would give.
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_current_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _error_naming(exc, path) from exc
        raise
    return path


def _is_read_only(path: Path) -> bool:
    # os.access alone says "writable" to root, so the permission bits are checked too.
    return not os.access(path, os.W_OK) or path.stat().st_mode & 0o222 == 0


def _error_naming(exc: OSError, path: Path) -> OSError:
    """``exc`` re-worded to name the target file (the temporary file's name means nothing to a user)."""
    if exc.errno:
        return type(exc)(exc.errno, f"cannot write {path}: {exc.strerror}", str(path))
    return type(exc)(f"cannot write {path}: {exc.args[0] if exc.args else type(exc).__name__}")


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save_model(model, path: str | os.PathLike, *, overwrite_read_only: bool = False) -> Path:
    """Save a fitted Primo model to ``path`` (atomically). See the module docstring for the format."""
    document, arrays = model_document(model, inline_arrays=False)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(_META_NAME, json.dumps(document, indent=1, allow_nan=False))
        for key, array in arrays.items():
            with archive.open(f"arrays/{key}.npy", "w") as handle:
                np.lib.format.write_array(handle, array, allow_pickle=False)
    return atomic_write_bytes(path, buffer.getvalue(), overwrite_read_only=overwrite_read_only)


# What reading hostile bytes can raise from zipfile, zlib and numpy's header parser; all mean "damaged".
_READ_ERRORS = (zipfile.LargeZipFile, zlib.error, NotImplementedError, RuntimeError, EOFError, OSError, ValueError,
                KeyError, IndexError, TypeError, OverflowError, struct.error)


def read_document(path: str | os.PathLike, *, limits: FileLimits | None = None) -> tuple[dict, dict[str, np.ndarray]]:
    """Read a model file's metadata and arrays within ``limits`` without building the model.

    Raises :class:`ModelFileError` for anything wrong with the file's bytes, ``FileNotFoundError``
    when there is no file.
    """
    path = Path(path)
    limits = limits or DEFAULT_LIMITS
    if not path.is_file():
        raise FileNotFoundError(f"no model file at {path}")
    size = path.stat().st_size
    if size > limits.max_file_bytes:
        raise ModelFileError(f"{path}: the file has {size} bytes, above the limit of {limits.max_file_bytes}")
    with open(path, "rb") as handle:  # outside the try: an unreadable file is an OSError, not a damaged model
        try:
            check_central_directory(handle, limits)
            with zipfile.ZipFile(handle) as archive:
                return _read_archive(archive, limits)
        except ModelFileError as exc:
            raise ModelFileError(f"{path}: {exc}") from None
        except zipfile.BadZipFile as exc:
            raise ModelFileError(f"{path} is not a Primo model file, or it is truncated/corrupted ({exc})") from None
        except _READ_ERRORS as exc:
            raise ModelFileError(
                f"{path} is a damaged Primo model file ({type(exc).__name__}: {str(exc)[:200]})"
            ) from None


_ARRAY_MEMBER = re.compile(r"arrays/([0-9]{1,9})\.npy")


def _read_archive(archive: zipfile.ZipFile, limits: FileLimits) -> tuple[dict, dict[str, np.ndarray]]:
    infos = archive.infolist()
    if len(infos) > limits.max_members:
        raise ModelFileError(f"{len(infos)} members, above the limit of {limits.max_members}")
    names = [info.filename for info in infos]
    if len(set(names)) != len(names):
        raise ModelFileError("two members have the same name")
    if _META_NAME not in names:
        raise ModelFileError(f"not a Primo model file (no {_META_NAME} inside)")
    budget = limits.max_total_bytes
    document = None
    arrays = {}
    for info in infos:
        array_name = _ARRAY_MEMBER.fullmatch(info.filename)
        if info.filename != _META_NAME and array_name is None:
            continue  # not part of the format: never read
        cap = limits.max_json_bytes if array_name is None else limits.max_member_bytes
        data = read_member(archive, info, min(cap, budget))
        budget -= len(data)
        if array_name is None:
            document = parse_json(data, limits)
            _check_header(document)
        else:
            arrays[array_name.group(1)] = parse_npy(data, info.filename)
    return document, arrays


def _check_header(document: Any) -> None:
    if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
        raise ModelFileError("not a Primo model file (format field missing or wrong)")
    version = document.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ModelFileError("format_version is missing or not an integer")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"uses model format version {version}, newer than this Primo supports "
            f"({FORMAT_VERSION}); upgrade primo to read it"
        )
    for key in ("model_class", "params", "state"):
        if key not in document:
            raise ModelFileError(f"damaged Primo model file: field {key!r} missing")
    if not isinstance(document["model_class"], str):
        raise ModelFileError("model_class is not a string")


#: The classes a model file may name, by class name. :func:`primo.models.register_families` registers the
#: families here (io sits beside the model families and must not import them: they save through io).
MODEL_CLASSES: dict[str, type] = {}


def register_model_class(cls: type) -> type:
    """Let model files name ``cls`` (by its class name); returns ``cls``."""
    MODEL_CLASSES[cls.__name__] = cls
    return cls


def model_from_document(document: dict, arrays: dict[str, np.ndarray] | None = None):
    """Build the model a metadata document describes (arrays referenced or inlined).

    Everything is decoded and validated (:mod:`primo.validation`) before the model is constructed;
    any problem raises :class:`ModelFileError`.

    Example
    -------
    >>> rebuilt = model_from_document(json.loads(primo.export.to_json(model)))  # doctest: +SKIP
    """
    _check_header(document)
    # ``import primo`` is lazy: the families register here, at run time, so that io still does not
    # depend on them when modules load.
    importlib.import_module("primo.models").register_families()
    cls_name = document["model_class"]
    cls = MODEL_CLASSES.get(cls_name)
    if cls is None:
        raise ModelFileError(f"unknown model class {cls_name!r} (known: {', '.join(sorted(MODEL_CLASSES))})")
    params = decode_tree(document["params"], arrays)
    validate_params(cls, params)
    state = decode_tree(document["state"], arrays)
    validate_state(cls_name, state)
    metadata = decode_tree(document.get("metadata", {}), arrays)
    validate_metadata(metadata)
    model = cls(**params)
    try:
        model._set_state(state)
    except ModelFileError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:  # what the libraries still refuse
        raise ModelFileError(f"the model cannot be rebuilt: {type(exc).__name__}: {str(exc)[:200]}") from None
    model.metadata_ = metadata
    return model


def load(path: str | os.PathLike, *, limits: FileLimits | None = None):
    """Load a model saved with ``model.save(path)``.

    The file is validated before anything is built from it (see the module docstring): the model
    returned predicts for every finite or NaN input, and a file that is not a valid Primo model raises
    :class:`ModelFileError` — never another exception, a crash or a hang.

    Parameters
    ----------
    path : path to a Primo model file.
    limits : :class:`~primo.validation.FileLimits`, the size and depth bounds applied while reading
        (default :data:`~primo.validation.DEFAULT_LIMITS`).

    Raises
    ------
    ModelFileError
        The file is not a Primo model, uses a newer format version, breaks a limit, or is
        truncated, corrupted or inconsistent (the message says what is wrong where).
    FileNotFoundError
        There is no file at ``path``.

    Example
    -------
    >>> model = primo.load("model.primo")  # doctest: +SKIP
    >>> big = primo.load("big.primo", limits=FileLimits(max_member_bytes=1 << 30))  # doctest: +SKIP
    """
    document, arrays = read_document(path, limits=limits)
    try:
        return model_from_document(document, arrays)
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
