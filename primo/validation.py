"""Checks that make a model file safe to load: limits on its bytes, and invariants of its structure.

A model file crosses trust boundaries, and both scikit-learn's tree walk and interpret's binning index
arrays without bounds checks: a child index of 5e7 is a segmentation fault, a node that is its own
child a hang. So everything read from a file is checked here *before* any object is built from it:

* **bytes** — :class:`FileLimits` bounds the file, each ZIP member (its declared size *and* what its
  stream really inflates to), the ``primo.json`` text and its nesting depth; ``.npy`` members must be
  plain numeric arrays whose header agrees with their size (:func:`parse_npy`);
* **structure** — :func:`validate_params`, :func:`validate_tree_state` (PrDT),
  :func:`validate_additive_state` (PrAM) and :func:`validate_metadata` (incl. the edit log) check
  types, dtypes, shapes and the invariants prediction relies on.

Every failure raises :class:`ModelFileError` saying where and what is wrong. :mod:`primo.io` calls these
on load; the models' ``_set_state`` calls the state checks again, so no other path can skip them.

Example
-------
>>> validate_metadata({"edits": [{"operation": "scale", "summary": "x2", "arguments": {}}]})
>>> validate_metadata({"edits": "everything"})
Traceback (most recent call last):
...
primo.validation.ModelFileError: metadata.edits: expected a list of edit records, got str
"""
from __future__ import annotations

import io
import json
import math
import zipfile
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np


class ModelFileError(ValueError):
    """A file is not a readable Primo model (wrong format, newer version, truncated, corrupted, invalid)."""


@dataclass(frozen=True)
class FileLimits:
    """Upper bounds applied while reading a model file (bytes unless said otherwise).

    The defaults are far above any model Primo fits (the case studies' largest ``primo.json`` is
    38 KB, their largest file 1.3 MB) and bound the memory a hostile file can make :func:`primo.load`
    use to about ``max_total_bytes + max_member_bytes + 40 × max_json_bytes`` (≈ 1.1 GiB): arrays are
    held once plus one member in flight, and parsed JSON takes at most ~40 bytes of Python objects
    per byte of text (measured: 1.5 million ``[0]`` lists in 7.5 MB of JSON peaked at +156 MB).

    Example
    -------
    >>> FileLimits(max_json_bytes=1 << 20).max_json_depth
    64
    """

    max_file_bytes: int = 512 << 20  #: size of the file on disk
    max_members: int = 10_000  #: ZIP entries
    max_member_bytes: int = 256 << 20  #: uncompressed size of one member
    max_total_bytes: int = 512 << 20  #: uncompressed size of all members read
    max_json_bytes: int = 8 << 20  #: ``primo.json``
    max_json_depth: int = 64  #: nesting of ``[`` / ``{`` in ``primo.json``


DEFAULT_LIMITS = FileLimits()

#: Largest number of features a model file may declare (bounds per-feature tables).
MAX_FEATURES = 1_000_000

_READ_CHUNK = 1 << 20


# --------------------------------------------------------------------------- bytes


#: Bytes of ZIP central directory allowed per member (names here are short; 1 KB leaves room for extras).
_DIRECTORY_BYTES_PER_MEMBER = 1024


def check_central_directory(handle, limits: FileLimits = DEFAULT_LIMITS) -> None:
    """Refuse a ZIP whose central directory is larger than ``limits.max_members`` entries could need.

    ``zipfile.ZipFile`` builds an object for every entry it finds in the directory (whatever the entry
    count claims), so the directory's declared size is what must be bounded, before it is parsed.
    """
    # zipfile's own end-of-directory reader (private, but unchanged for decades) finds that size.
    end = zipfile._EndRecData(handle)
    if end is None:
        raise ModelFileError("not a Primo model file (not a ZIP archive)")
    size, limit = end[zipfile._ECD_SIZE], limits.max_members * _DIRECTORY_BYTES_PER_MEMBER
    if size > limit:
        raise ModelFileError(f"the ZIP directory declares {size} bytes, above the {limit} that "
                             f"{limits.max_members} members need")
    handle.seek(0)


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    """The uncompressed bytes of one ZIP member, refusing more than ``limit`` bytes.

    Both the declared size and the stream are checked: a zip bomb can declare 1 KB and inflate to GBs.
    """
    if info.flag_bits & 0x1:
        raise ModelFileError(f"member {info.filename!r} is encrypted")
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise ModelFileError(f"member {info.filename!r} uses unsupported compression {info.compress_type}")
    if info.file_size > limit:
        raise ModelFileError(f"member {info.filename!r} declares {info.file_size} bytes, above the limit of {limit}")
    chunks, total = [], 0
    with archive.open(info) as stream:
        while True:
            chunk = stream.read(min(_READ_CHUNK, limit + 1 - total))
            if not chunk:
                break
            total += len(chunk)
            if total > limit:
                raise ModelFileError(f"member {info.filename!r} inflates to more than {limit} bytes")
            chunks.append(chunk)
    return b"".join(chunks)


def json_depth(value, limit: int) -> int:
    """Nesting depth of parsed JSON ``value`` (a scalar is 0), counting no further than ``limit + 1``.

    Example
    -------
    >>> json_depth({"a": [1, [2]], "b": {}}, limit=64)
    3
    """
    # On the parsed value, depth-first with one iterator per open level, so memory is O(depth): a scan
    # of the raw text for strings and brackets is easy to make quadratic with crafted escapes.
    deepest, open_levels = 0, [iter([value])]
    while open_levels:
        for item in open_levels[-1]:
            if isinstance(item, (list, dict)):
                depth = len(open_levels)
                if depth > limit:
                    return depth
                deepest = max(deepest, depth)
                if item:  # an empty container opens no level worth visiting
                    open_levels.append(iter(item.values() if isinstance(item, dict) else item))
                    break
        else:
            open_levels.pop()
    return deepest


def _reject_constant(name: str):
    raise ModelFileError(f"primo.json contains {name}, which is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ModelFileError(f"primo.json contains the number {text[:40]}, which does not fit a float")
    return value


def parse_json(text: bytes, limits: FileLimits = DEFAULT_LIMITS):
    """Parse ``primo.json`` within ``limits`` (size, depth); NaN/Infinity literals are refused.

    Example
    -------
    >>> parse_json(b'{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    """
    if len(text) > limits.max_json_bytes:
        raise ModelFileError(f"primo.json has {len(text)} bytes, above the limit of {limits.max_json_bytes}")
    too_deep = f"primo.json is nested more than {limits.max_json_depth} levels deep (the limit)"
    try:
        value = json.loads(text.decode("utf-8"), parse_constant=_reject_constant, parse_float=_finite_float)
    except UnicodeDecodeError as exc:
        raise ModelFileError(f"primo.json is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"primo.json is not valid JSON ({exc})") from None
    except RecursionError:
        raise ModelFileError(too_deep) from None
    except ValueError as exc:  # an integer literal with too many digits
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(f"primo.json cannot be parsed ({str(exc)[:200]})") from None
    if json_depth(value, limits.max_json_depth) > limits.max_json_depth:
        raise ModelFileError(too_deep)
    return value


def _plain_numeric(dtype: np.dtype) -> bool:
    return dtype.kind in "biuf" and dtype.itemsize > 0 and dtype.subdtype is None


def parse_npy(data: bytes, where: str) -> np.ndarray:
    """A ``.npy`` member as an array: numeric or structured-numeric only, header consistent with size.

    Example
    -------
    >>> buffer = io.BytesIO(); np.save(buffer, np.arange(3.0)); parse_npy(buffer.getvalue(), "a.npy")
    array([0., 1., 2.])
    """
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ModelFileError(f"{where}: unsupported .npy version {version}")
    except ModelFileError:
        raise
    except Exception as exc:  # noqa: BLE001 - numpy parses the header with tokenize + ast.literal_eval,
        # which raise ValueError, SyntaxError, TokenError, RecursionError... on hostile text
        raise ModelFileError(f"{where}: bad .npy header ({type(exc).__name__}: {str(exc)[:200]})") from None
    if dtype.hasobject:
        raise ModelFileError(f"{where}: object arrays are not allowed in model files")
    numeric = _plain_numeric(dtype) or (
        dtype.names is not None and dtype.itemsize > 0 and all(_plain_numeric(dtype.fields[n][0]) for n in dtype.names)
    )
    if not numeric:
        raise ModelFileError(f"{where}: dtype {dtype} is not a plain numeric dtype")
    if len(shape) > 32 or not all(isinstance(n, int) and n >= 0 for n in shape):
        raise ModelFileError(f"{where}: bad shape {shape!r}")
    count = math.prod(shape)
    payload = len(data) - stream.tell()
    if count * dtype.itemsize != payload:
        raise ModelFileError(
            f"{where}: header declares {count} elements of {dtype.itemsize} bytes but the member holds {payload} bytes"
        )
    flat = np.frombuffer(data, dtype=dtype, count=count, offset=stream.tell())
    return np.ascontiguousarray(flat.reshape(shape, order="F" if fortran_order else "C"))


# --------------------------------------------------------------------------- small checks


def _fail(where: str, problem: str):
    # Values quoted in a problem come from the file: keep a hostile one from flooding the message.
    raise ModelFileError(f"{where}: {problem if len(problem) <= 300 else problem[:300] + ' ...'}")


def _equals(value, text: str) -> bool:
    """``value == text`` for any decoded value (an array compared with ``==`` gives an array)."""
    return isinstance(value, str) and value == text


def _type_name(value) -> str:
    return type(value).__name__


def _int(value, where: str, low: int, high: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        _fail(where, f"expected an integer, got {_type_name(value)}")
    if not low <= value <= high:
        _fail(where, f"{value} is outside [{low}, {high}]")
    return int(value)


def _float(value, where: str, *, finite: bool = True) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        _fail(where, f"expected a number, got {_type_name(value)}")
    if finite and not math.isfinite(value):
        _fail(where, f"{value} is not finite")
    return float(value)


def _dict(value, where: str, *, required: set[str], optional: set[str] = frozenset()) -> dict:
    if not isinstance(value, dict):
        _fail(where, f"expected an object, got {_type_name(value)}")
    missing = required - value.keys()
    if missing:
        _fail(where, f"missing {sorted(missing)}")
    unknown = [k for k in value if k not in required and k not in optional]
    if unknown:
        _fail(where, f"unknown entries {sorted(map(str, unknown))[:5]}")
    return value


def _array(value, where: str, *, dtype=None, kinds: str = "", ndim: int | None = None, shape=None,
           finite: bool = False) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        _fail(where, f"expected an array, got {_type_name(value)}")
    if dtype is not None and value.dtype != np.dtype(dtype):
        _fail(where, f"dtype {value.dtype} (expected {np.dtype(dtype)})")
    if kinds and value.dtype.kind not in kinds:
        _fail(where, f"dtype {value.dtype} is not allowed here")
    if ndim is not None and value.ndim != ndim:
        _fail(where, f"{value.ndim}-D array (expected {ndim}-D)")
    if shape is not None and value.shape != tuple(shape):
        _fail(where, f"shape {value.shape} (expected {tuple(shape)})")
    if finite and value.dtype.kind == "f" and not np.all(np.isfinite(value)):
        _fail(where, "contains NaN or infinity")
    return value


def _strings(value, where: str, *, length: int | None = None, unique: bool = False) -> list[str]:
    items = value.tolist() if isinstance(value, np.ndarray) and value.ndim == 1 else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(s, str) for s in items):
        _fail(where, "expected a list of strings")
    if length is not None and len(items) != length:
        _fail(where, f"{len(items)} entries (expected {length})")
    if unique and len(set(items)) != len(items):
        _fail(where, "names are not unique")
    return list(items)


def _labels(value, where: str, *, min_count: int) -> np.ndarray:
    """Class labels: a 1-D array of unique numbers or strings."""
    labels = _array(value, where, kinds="biufOU", ndim=1)
    if len(labels) < min_count:
        _fail(where, f"{len(labels)} classes (at least {min_count} needed)")
    items = labels.tolist()
    for item in items:
        if not isinstance(item, (str, int, float)):  # bool is an int
            _fail(where, f"label of type {_type_name(item)}")
        if isinstance(item, float) and not math.isfinite(item):
            _fail(where, "a label is NaN or infinite")
    if len(set(items)) != len(items):
        _fail(where, "labels are not unique")
    return labels


_PLAIN_SCALARS = (str, bool, int, float, type(None))


def _plain(value, where: str) -> None:
    """JSON-like values (plus tuples, numeric arrays and dicts with scalar keys) only."""
    # Depth-first with one iterator per open container (memory O(depth), no path strings until a
    # failure): metadata may hold millions of values.
    open_levels = [(iter([(where, value)]), "")]
    while open_levels:
        children, at = open_levels[-1]
        for key, item in children:
            here = f"{at}{key}"
            if isinstance(item, _PLAIN_SCALARS):
                continue
            if isinstance(item, (list, tuple)):
                entries = ((f"[{i}]", v) for i, v in enumerate(item))
            elif isinstance(item, dict):
                bad = [k for k in item if not isinstance(k, _PLAIN_SCALARS)]
                if bad:
                    _fail(here, f"key of type {_type_name(bad[0])}")
                entries = ((f".{k}", v) for k, v in item.items())
            elif isinstance(item, np.ndarray):
                if item.dtype.kind not in "biufOU":
                    _fail(here, f"array of dtype {item.dtype}")
                if item.dtype.kind != "O":
                    continue
                entries = (("[]", v) for v in item.ravel().tolist())
            else:
                _fail(here, f"value of type {_type_name(item)}")
            open_levels.append((entries, here))
            break
        else:
            open_levels.pop()


# --------------------------------------------------------------------------- params


def validate_params(cls, params) -> None:
    """Constructor arguments stored in a file: known names, plain values, and (for scikit-learn's
    trees) the estimator's own parameter constraints. ``cls=None`` (no estimator is built from them,
    :mod:`primo.export.saved`): plain values only.

    Example
    -------
    >>> from primo import PrDTRegressor
    >>> validate_params(PrDTRegressor, {"ccp_alpha": -1.0})
    Traceback (most recent call last):
    ...
    primo.validation.ModelFileError: params: The 'ccp_alpha' parameter of PrDTRegressor must be a float in the range [0.0, inf). Got -1.0 instead.
    """
    if not isinstance(params, dict):
        _fail("params", f"expected an object, got {_type_name(params)}")
    if cls is not None:
        known = set(cls._get_param_names())
        unknown = sorted(str(k) for k in params if k not in known)
        if unknown:
            _fail("params", f"unknown parameters {unknown[:5]} for {cls.__name__}")
    _plain(params, "params")
    constraints = getattr(cls, "_parameter_constraints", None)
    if constraints:
        # scikit-learn's own checker (private module, stable since 1.2): the same rules fit() applies.
        from sklearn.utils._param_validation import InvalidParameterError, validate_parameter_constraints

        try:
            validate_parameter_constraints(constraints, params, caller_name=cls.__name__)
        except InvalidParameterError as exc:
            raise ModelFileError(f"params: {exc}") from None
    for name in ("max_bins", "max_interaction_bins"):  # PrAM: used by complexity_ and printing
        if name in params:
            _int(params[name], f"params.{name}", 2, 1 << 30)
    for name in ("max_pieces", "max_terms"):  # PrAM: read by simplified()
        if params.get(name) is not None:
            _int(params[name], f"params.{name}", 1, 1 << 30)


# --------------------------------------------------------------------------- PrDT


def _node_dtype() -> np.dtype:
    from sklearn.tree._tree import NODE_DTYPE

    return NODE_DTYPE


def _fields(dtype: np.dtype) -> list[tuple[str, str]]:
    return [(name, dtype.fields[name][0].str) for name in dtype.names or ()]


#: The node fields the structure check and a table predictor read, with their dtype kinds (scikit-learn's
#: node records hold exactly these; its Tree reads them from raw memory, so building one needs its exact layout).
_NODE_FIELD_KINDS = {"left_child": "i", "right_child": "i", "feature": "i", "threshold": "f", "impurity": "f",
                     "n_node_samples": "i", "weighted_n_node_samples": "f", "missing_go_to_left": "u"}


def _check_node_fields(nodes: np.ndarray, building_estimator: bool) -> None:
    if building_estimator:
        if _fields(nodes.dtype) != _fields(_node_dtype()):  # field names and types; JSON's copy has no padding
            _fail("state.tree_.nodes", f"fields {_fields(nodes.dtype)} (expected {_fields(_node_dtype())})")
        return
    fields = nodes.dtype.fields or {}
    wrong = [name for name, kind in _NODE_FIELD_KINDS.items() if name not in fields or fields[name][0].kind != kind]
    if wrong:
        _fail("state.tree_.nodes", f"fields {_fields(nodes.dtype)} lack or mistype {wrong}")


#: scikit-learn's marker for "no feature / no threshold" at a leaf.
_TREE_UNDEFINED = -2


def validate_tree_state(state, *, classifier: bool, building_estimator: bool = True) -> None:
    """The fitted state of a PrDT (scikit-learn tree arrays + attributes), checked before use.

    Tree invariants: ``node_count`` nodes of scikit-learn's node dtype; a node is a leaf exactly when
    both children are -1; every other child index is in ``[1, node_count)``; every node except the
    root is the child of exactly one node and reachable from the root (so the tree is acyclic and
    connected); stored ``max_depth`` is the real depth; split features are below ``n_features_in_``;
    split thresholds are finite, or ``+inf`` (scikit-learn's "every present value goes left" split
    for missing values); leaves carry feature and threshold -2; ``values`` is finite with one row
    per node. ``categories_`` (optional): ``{feature index: [category, ...]}``, unique strings.
    ``building_estimator=False`` (a state read as tables only): node records need the fields read,
    not scikit-learn's exact layout, and scikit-learn is not imported.

    Example
    -------
    >>> from primo import PrDTRegressor
    >>> state = PrDTRegressor().fit([[0.0], [1.0]], [0.0, 1.0])._get_state()
    >>> state["tree_"]["nodes"]["left_child"][0] = 0  # the root becomes its own child
    >>> validate_tree_state(state, classifier=False)
    Traceback (most recent call last):
    ...
    primo.validation.ModelFileError: state.tree_.nodes: node 0 has child 0, outside [1, 3)
    """
    optional = {"feature_names_in_", "categories_", "features_missing_in_fit_"}
    required = {"n_features_in_", "n_outputs_", "max_features_", "tree_"}
    if classifier:
        required |= {"classes_", "n_classes_"}
        optional |= {"leaf_smoothing_"}
    _dict(state, "state", required=required, optional=optional)
    if "leaf_smoothing_" in state and _float(state["leaf_smoothing_"], "state.leaf_smoothing_") < 0:
        _fail("state.leaf_smoothing_", f"{state['leaf_smoothing_']} is negative")
    n_features = _int(state["n_features_in_"], "state.n_features_in_", 1, MAX_FEATURES)
    if "feature_names_in_" in state:
        _strings(_array(state["feature_names_in_"], "state.feature_names_in_", kinds="OU", ndim=1),
                 "state.feature_names_in_", length=n_features, unique=True)
    n_outputs = _int(state["n_outputs_"], "state.n_outputs_", 1, 1000)
    _int(state["max_features_"], "state.max_features_", 1, n_features)

    tree = _dict(state["tree_"], "state.tree_",
                 required={"n_features", "n_classes", "n_outputs", "max_depth", "node_count", "nodes", "values"})
    if _int(tree["n_features"], "state.tree_.n_features", 1, MAX_FEATURES) != n_features:
        _fail("state.tree_.n_features", f"{tree['n_features']} differs from n_features_in_ = {n_features}")
    if _int(tree["n_outputs"], "state.tree_.n_outputs", 1, 1000) != n_outputs:
        _fail("state.tree_.n_outputs", f"{tree['n_outputs']} differs from n_outputs_ = {n_outputs}")
    n_classes = _array(tree["n_classes"], "state.tree_.n_classes", kinds="iu", shape=(n_outputs,))
    if np.any(n_classes < 1) or np.any(n_classes > 1_000_000) or (not classifier and np.any(n_classes != 1)):
        _fail("state.tree_.n_classes", f"{n_classes.tolist()} is not a valid class count")
    if classifier:
        _check_tree_classes(state, n_classes, n_outputs)

    node_count = _int(tree["node_count"], "state.tree_.node_count", 1, 1 << 40)
    nodes = _array(tree["nodes"], "state.tree_.nodes", kinds="V", shape=(node_count,))
    _check_node_fields(nodes, building_estimator)
    _array(tree["values"], "state.tree_.values", dtype=np.float64,
           shape=(node_count, n_outputs, int(n_classes.max())), finite=True)
    depth = _check_tree_structure(nodes, n_features)
    if _int(tree["max_depth"], "state.tree_.max_depth", 0, node_count) != depth:
        _fail("state.tree_.max_depth", f"{tree['max_depth']} differs from the depth of the nodes ({depth})")
    if "categories_" in state:
        _check_categories(state["categories_"], n_features, nodes)
    if "features_missing_in_fit_" in state:
        missing = state["features_missing_in_fit_"]
        if not isinstance(missing, list):
            _fail("state.features_missing_in_fit_", "expected a list of feature indices")
        for j in missing:
            _int(j, "state.features_missing_in_fit_", 0, n_features - 1)
        if len(set(missing)) != len(missing):
            _fail("state.features_missing_in_fit_", "a feature is listed twice")


def _check_tree_classes(state: dict, n_classes: np.ndarray, n_outputs: int) -> None:
    if n_outputs == 1:
        labels = _labels(state["classes_"], "state.classes_", min_count=1)
        if _int(state["n_classes_"], "state.n_classes_", 1, 1_000_000) != len(labels) or n_classes[0] != len(labels):
            _fail("state.n_classes_", f"{state['n_classes_']} classes but {len(labels)} labels")
        return
    if not isinstance(state["classes_"], list) or len(state["classes_"]) != n_outputs:
        _fail("state.classes_", f"expected one label array per output ({n_outputs})")
    counts = _array(state["n_classes_"], "state.n_classes_", kinds="iu", shape=(n_outputs,))
    for k, labels in enumerate(state["classes_"]):
        labels = _labels(labels, f"state.classes_[{k}]", min_count=1)
        if counts[k] != len(labels) or n_classes[k] != len(labels):
            _fail(f"state.classes_[{k}]", f"{len(labels)} labels but {int(n_classes[k])} classes")


def _check_tree_structure(nodes: np.ndarray, n_features: int) -> int:
    """Check the node arrays form one tree rooted at node 0; returns its depth."""
    where = "state.tree_.nodes"
    n = len(nodes)
    left, right = nodes["left_child"], nodes["right_child"]
    feature, threshold = nodes["feature"], nodes["threshold"]
    leaf = left == -1
    lonely = np.flatnonzero(leaf != (right == -1))
    if lonely.size:
        _fail(where, f"node {lonely[0]} has exactly one child")
    internal = ~leaf
    for side, children in (("child", left), ("child", right)):
        bad = np.flatnonzero(internal & ((children < 1) | (children >= n)))
        if bad.size:
            _fail(where, f"node {bad[0]} has {side} {children[bad[0]]}, outside [1, {n})")
    parents = np.bincount(np.concatenate([left[internal], right[internal]]), minlength=n)
    shared = np.flatnonzero(parents[1:] != 1)
    if shared.size:
        node = int(shared[0]) + 1
        _fail(where, f"node {node} is the child of {parents[node]} nodes (every node but the root needs exactly one)")
    # Every non-root node has exactly one parent and the root none, so a walk from the root visits each
    # node at most once; nodes it misses sit on a cycle.
    left_list, right_list, internal_list = left.tolist(), right.tolist(), internal.tolist()
    stack, depth_of, visited, depth = [0], {0: 0}, 0, 0
    while stack:
        node = stack.pop()
        visited += 1
        if internal_list[node]:
            child_depth = depth_of[node] + 1
            depth = max(depth, child_depth)
            for child in (left_list[node], right_list[node]):
                depth_of[child] = child_depth
                stack.append(child)
    if visited != n:
        _fail(where, f"{n - visited} nodes are not reachable from the root (a cycle)")
    bad = np.flatnonzero(internal & ((feature < 0) | (feature >= n_features)))
    if bad.size:
        _fail(where, f"node {bad[0]} splits on feature {feature[bad[0]]}, outside [0, {n_features})")
    bad = np.flatnonzero(internal & ~(np.isfinite(threshold) | (threshold == np.inf)))
    if bad.size:
        _fail(where, f"node {bad[0]} has threshold {threshold[bad[0]]}")
    bad = np.flatnonzero(leaf & ((feature != _TREE_UNDEFINED) | (threshold != _TREE_UNDEFINED)))
    if bad.size:
        _fail(where, f"leaf {bad[0]} has a split feature or threshold (expected {_TREE_UNDEFINED})")
    if np.any(nodes["missing_go_to_left"] > 1):
        _fail(where, "missing_go_to_left must be 0 or 1")
    if np.any(nodes["n_node_samples"] < 0) or not np.all(np.isfinite(nodes["impurity"])):
        _fail(where, "negative sample counts or non-finite impurities")
    weights = nodes["weighted_n_node_samples"]
    if not np.all(np.isfinite(weights) & (weights >= 0)):
        _fail(where, "weighted sample counts must be finite and non-negative")
    return depth


def _check_categories(categories, n_features: int, nodes: np.ndarray) -> None:
    """Vocabularies ``{feature: [category, ...]}``: the tree reads category ``i`` as code ``i``."""
    if not isinstance(categories, dict):
        _fail("state.categories_", f"expected {{feature index: [categories]}}, got {_type_name(categories)}")
    internal = nodes["left_child"] != -1
    for feature, vocabulary in categories.items():
        where = f"state.categories_[{feature!r}]"
        _int(feature, where, 0, n_features - 1)
        if not isinstance(vocabulary, list) or not vocabulary:
            _fail(where, "expected a non-empty list of categories")
        _strings(vocabulary, where, unique=True)
        # Codes are 0..k-1: a finite threshold outside [-1, k] separates no codes and means the
        # vocabulary does not belong to this tree.
        thresholds = nodes["threshold"][internal & (nodes["feature"] == feature)]
        finite = thresholds[np.isfinite(thresholds)]
        if np.any((finite < -1) | (finite > len(vocabulary))):
            _fail(where, f"a split on this feature has threshold {finite[(finite < -1) | (finite > len(vocabulary))][0]}, "
                         f"outside the codes 0..{len(vocabulary) - 1}")


# --------------------------------------------------------------------------- PrAM

_FEATURE_TYPES = ("continuous", "nominal", "ordinal")
_EBM_FITTED_REQUIRED = {
    "n_features_in_", "term_names_", "bins_", "feature_names_in_", "feature_types_in_", "term_features_",
    "term_scores_", "bin_weights_", "bagged_scores_", "standard_deviations_", "intercept_",
    "bagged_intercept_", "link_", "link_param_", "bag_weights_", "best_iteration_", "has_fitted_",
}
_EBM_FITTED_OPTIONAL = {"histogram_edges_", "histogram_weights_", "unique_val_counts_", "feature_bounds_",
                        "min_target_", "max_target_", "classes_"}


def validate_additive_state(state, *, classifier: bool, building_estimator: bool = True) -> None:
    """The fitted state of a PrAM (interpret's EBM attributes), checked before use.

    Additive-model invariants: one bin list per feature with 1–2 levels, cut points finite, float64 and
    strictly increasing for continuous features, ``{category: bin ≥ 1}`` for nominal/ordinal ones;
    terms of one or two distinct features below ``n_features_in_``; every score table (and
    ``bin_weights_``, ``standard_deviations_``, ``bagged_scores_``) shaped by its features' bins —
    ``len(cuts) + 3`` (missing, bins, unseen) or ``max(category bin) + 2`` — pairs 2-D, multiclass with
    a last axis per class; scores and intercepts finite; link matching the task.
    ``building_estimator=False`` (a state read as tables only): the EBM's constructor parameters must
    be plain values but are not matched against interpret's signature, and interpret is not imported.

    Example
    -------
    >>> validate_additive_state({"n_features_in_": 1}, classifier=False)
    Traceback (most recent call last):
    ...
    primo.validation.ModelFileError: state: missing ['ebm_']
    """
    required = {"n_features_in_", "ebm_"} | ({"classes_"} if classifier else set())
    _dict(state, "state", required=required, optional={"feature_names_in_"})
    n_features = _int(state["n_features_in_"], "state.n_features_in_", 1, MAX_FEATURES)
    ebm = _dict(state["ebm_"], "state.ebm_", required={"class", "params", "fitted"})
    expected_class = "ExplainableBoostingClassifier" if classifier else "ExplainableBoostingRegressor"
    if not _equals(ebm["class"], expected_class):
        _fail("state.ebm_.class", f"{ebm['class']!r} (expected {expected_class!r})")
    _check_ebm_params(ebm["params"], classifier, building_estimator)
    fitted = _dict(ebm["fitted"], "state.ebm_.fitted", required=_EBM_FITTED_REQUIRED | ({"classes_"} if classifier else set()),
                   optional=_EBM_FITTED_OPTIONAL)
    at = "state.ebm_.fitted"
    if _int(fitted["n_features_in_"], f"{at}.n_features_in_", 1, MAX_FEATURES) != n_features:
        _fail(f"{at}.n_features_in_", f"{fitted['n_features_in_']} differs from n_features_in_ = {n_features}")
    names = _strings(fitted["feature_names_in_"], f"{at}.feature_names_in_", length=n_features, unique=True)
    if "feature_names_in_" in state:
        own = _strings(_array(state["feature_names_in_"], "state.feature_names_in_", kinds="OU", ndim=1),
                       "state.feature_names_in_", length=n_features)
        if own != names:
            _fail("state.feature_names_in_", "differs from the EBM's feature names")
    types = _strings(fitted["feature_types_in_"], f"{at}.feature_types_in_", length=n_features)
    if any(t not in _FEATURE_TYPES for t in types):
        _fail(f"{at}.feature_types_in_", f"types must be among {_FEATURE_TYPES}")
    if fitted["has_fitted_"] is not True:
        _fail(f"{at}.has_fitted_", "must be true")

    n_scores = _check_ebm_outputs(state, fitted, classifier)
    bin_counts = _check_bins(fitted["bins_"], types, n_features)
    _check_terms(fitted, bin_counts, n_features, n_scores)
    _check_ebm_extras(fitted, n_features, classifier)


def _check_ebm_params(params, classifier: bool, building_estimator: bool) -> None:
    if not isinstance(params, dict):
        _fail("state.ebm_.params", f"expected an object, got {_type_name(params)}")
    if building_estimator:
        from interpret.glassbox import ExplainableBoostingClassifier, ExplainableBoostingRegressor

        ebm_class = ExplainableBoostingClassifier if classifier else ExplainableBoostingRegressor
        unknown = sorted(str(k) for k in params if k not in set(ebm_class._get_param_names()))
        if unknown:
            _fail("state.ebm_.params", f"unknown parameters {unknown[:5]}")
    _plain(params, "state.ebm_.params")


def _check_ebm_outputs(state: dict, fitted: dict, classifier: bool) -> int:
    """Check classes, link and intercept; returns the number of scores per row (1, or classes)."""
    at = "state.ebm_.fitted"
    if not classifier:
        if not _equals(fitted["link_"], "identity"):
            _fail(f"{at}.link_", f"{fitted['link_']!r} (a PrAM regressor uses 'identity')")
        if not isinstance(fitted["intercept_"], float):  # interpret tells a regressor's intercept by its type
            _fail(f"{at}.intercept_", f"expected a float, got {_type_name(fitted['intercept_'])}")
        _float(fitted["intercept_"], f"{at}.intercept_")
        for name in ("min_target_", "max_target_"):
            if name in fitted:
                _float(fitted[name], f"{at}.{name}")
        n_scores = 1
    else:
        labels = _labels(fitted["classes_"], f"{at}.classes_", min_count=2)
        own = _labels(state["classes_"], "state.classes_", min_count=2)
        if labels.tolist() != own.tolist():
            _fail("state.classes_", "differs from the EBM's classes")
        binary = len(labels) == 2
        n_scores = 1 if binary else len(labels)
        expected_link = "logit" if binary else "mlogit"
        if not _equals(fitted["link_"], expected_link):
            _fail(f"{at}.link_", f"{fitted['link_']!r} (expected {expected_link!r} for {len(labels)} classes)")
        _array(fitted["intercept_"], f"{at}.intercept_", dtype=np.float64, shape=(n_scores,), finite=True)
    _float(fitted["link_param_"], f"{at}.link_param_", finite=False)
    return n_scores


def _check_bins(bins, types: list[str], n_features: int) -> list[list[int]]:
    """Check ``bins_``; returns, per feature and level, the length of a score axis over those bins."""
    where = "state.ebm_.fitted.bins_"
    if not isinstance(bins, list) or len(bins) != n_features:
        _fail(where, f"expected one list of bin levels per feature ({n_features})")
    counts = []
    for j, levels in enumerate(bins):
        if not isinstance(levels, list) or not 1 <= len(levels) <= 2:
            _fail(f"{where}[{j}]", "expected a list of 1 or 2 bin levels")
        feature_counts = []
        for level, edges in enumerate(levels):
            at = f"{where}[{j}][{level}]"
            if types[j] == "continuous":
                cuts = _array(edges, at, dtype=np.float64, ndim=1, finite=True)
                if not cuts.flags.c_contiguous or np.any(np.diff(cuts) <= 0):
                    _fail(at, "cut points must be strictly increasing")
                feature_counts.append(len(cuts) + 3)  # missing, len(cuts) + 1 intervals, unseen
            else:
                if not isinstance(edges, dict) or not all(isinstance(k, str) for k in edges):
                    _fail(at, "expected {category: bin} for a categorical feature")
                codes = [_int(v, f"{at}[{k!r}]", 1, 1 << 31) for k, v in edges.items()]
                feature_counts.append(max(codes, default=0) + 2)  # missing, bins 1..max, unseen
        counts.append(feature_counts)
    return counts


def _check_terms(fitted: dict, bin_counts: list[list[int]], n_features: int, n_scores: int) -> None:
    at = "state.ebm_.fitted"
    terms = fitted["term_features_"]
    if not isinstance(terms, list):
        _fail(f"{at}.term_features_", "expected a list of feature tuples")
    n_terms = len(terms)
    _strings(fitted["term_names_"], f"{at}.term_names_", length=n_terms)
    tables = {}
    for name in ("term_scores_", "bin_weights_", "standard_deviations_", "bagged_scores_"):
        tables[name] = fitted[name]
        if not isinstance(tables[name], list) or len(tables[name]) != n_terms:
            _fail(f"{at}.{name}", f"expected one array per term ({n_terms})")
    for t, features in enumerate(terms):
        where = f"{at}.term_features_[{t}]"
        if not isinstance(features, tuple) or not 1 <= len(features) <= 2:
            _fail(where, "expected a tuple of one or two feature indices")
        for j in features:
            _int(j, where, 0, n_features - 1)
        if len(set(features)) != len(features):
            _fail(where, "a feature appears twice in one term")
        # interpret bins a term of k features with the k-th level (or the last one there is).
        shape = tuple(bin_counts[j][min(len(bin_counts[j]), len(features)) - 1] for j in features)
        class_axis = (n_scores,) if n_scores > 1 else ()
        _array(tables["term_scores_"][t], f"{at}.term_scores_[{t}]", dtype=np.float64, shape=shape + class_axis,
               finite=True)
        _array(tables["bin_weights_"][t], f"{at}.bin_weights_[{t}]", dtype=np.float64, shape=shape, finite=True)
        # An edited term has no bag spread (None), as interpret does after its own edits.
        if tables["standard_deviations_"][t] is not None:
            _array(tables["standard_deviations_"][t], f"{at}.standard_deviations_[{t}]", dtype=np.float64,
                   shape=shape + class_axis)
        if tables["bagged_scores_"][t] is not None:
            bagged = _array(tables["bagged_scores_"][t], f"{at}.bagged_scores_[{t}]", dtype=np.float64,
                            ndim=len(shape) + len(class_axis) + 1)
            if bagged.shape[1:] != shape + class_axis:
                _fail(f"{at}.bagged_scores_[{t}]", f"shape {bagged.shape} does not match the term's bins {shape}")


def _check_ebm_extras(fitted: dict, n_features: int, classifier: bool) -> None:
    """Attributes interpret reads for explanations (not for prediction): types and shapes."""
    at = "state.ebm_.fitted"
    _array(fitted["bag_weights_"], f"{at}.bag_weights_", dtype=np.float64, ndim=1)
    _array(fitted["bagged_intercept_"], f"{at}.bagged_intercept_", dtype=np.float64)
    _array(fitted["best_iteration_"], f"{at}.best_iteration_", kinds="iu")
    if "unique_val_counts_" in fitted:
        _array(fitted["unique_val_counts_"], f"{at}.unique_val_counts_", kinds="iu", shape=(n_features,))
    if "feature_bounds_" in fitted:
        _array(fitted["feature_bounds_"], f"{at}.feature_bounds_", dtype=np.float64, shape=(n_features, 2))
    for name in ("histogram_edges_", "histogram_weights_"):
        if name in fitted:
            value = fitted[name]
            if not isinstance(value, list) or len(value) != n_features:
                _fail(f"{at}.{name}", f"expected one entry per feature ({n_features})")
            for j, item in enumerate(value):
                if item is not None:
                    _array(item, f"{at}.{name}[{j}]", dtype=np.float64, ndim=1)


# --------------------------------------------------------------------------- dispatch, metadata

#: Model class name → (state check, is a classifier).
_STATE_CHECKS = {
    "PrDTClassifier": (validate_tree_state, True),
    "PrDTRegressor": (validate_tree_state, False),
    "PrAMClassifier": (validate_additive_state, True),
    "PrAMRegressor": (validate_additive_state, False),
}


def validate_state(class_name: str, state, *, building_estimator: bool = True) -> None:
    """Run the state check of the model class ``class_name`` (a key of ``primo.models.MODEL_CLASSES``).

    ``building_estimator=False``: the state is only read as tables (:mod:`primo.export.saved`); the
    checks that guard scikit-learn's and interpret's constructors are left to :func:`primo.io.load`.
    """
    if class_name not in _STATE_CHECKS:
        _fail("model_class", f"unknown model class {class_name!r} (known: {', '.join(sorted(_STATE_CHECKS))})")
    check, classifier = _STATE_CHECKS[class_name]
    check(state, classifier=classifier, building_estimator=building_estimator)


def validate_edit_records(records, where: str = "edits") -> list[dict]:
    """An edit log: a list of records ``{"operation": str, "summary": str, "arguments": {str: ...}}``.

    Example
    -------
    >>> validate_edit_records([{"operation": "scale", "summary": "", "arguments": {1: 2}}])
    Traceback (most recent call last):
    ...
    primo.validation.ModelFileError: edits[0].arguments: argument names must be strings that are identifiers
    """
    if not isinstance(records, list):
        _fail(where, f"expected a list of edit records, got {_type_name(records)}")
    for number, record in enumerate(records):
        at = f"{where}[{number}]"
        if not isinstance(record, dict):
            _fail(at, f"expected an edit record (object), got {_type_name(record)}")
        for key in ("operation", "summary"):
            if not isinstance(record.get(key), str):
                _fail(f"{at}.{key}", "missing or not a string")
        arguments = record.get("arguments")
        if not isinstance(arguments, dict):
            _fail(f"{at}.arguments", "missing or not an object")
        if not all(isinstance(k, str) and k.isidentifier() for k in arguments):
            _fail(f"{at}.arguments", "argument names must be strings that are identifiers")
        _plain(record, at)
    return records


def validate_metadata(metadata) -> None:
    """``metadata_``: a dict of plain values; its ``"edits"`` entry, when present, a valid edit log."""
    if not isinstance(metadata, dict):
        _fail("metadata", f"expected an object, got {_type_name(metadata)}")
    _plain(metadata, "metadata")
    if "edits" in metadata:
        validate_edit_records(metadata["edits"], "metadata.edits")
