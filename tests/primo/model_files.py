"""Model files to attack: small PrDT/PrAM models fit on Clara-MS (with a text column and an edit log),
and helpers that take a saved file apart and put a changed one back together."""
import copy
import io
import json
import zipfile

import numpy as np
import pandas as pd

from primo import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.adjust import set_leaf_value, set_threshold, shift_term_scores

FAST_PRAM = dict(max_bins=16, max_interaction_bins=8, interactions=1, max_rounds=60, outer_bags=1, n_jobs=1,
                 random_state=0)


def clara_table(data_dir, n_rows: int = 300) -> tuple[pd.DataFrame, pd.Series]:
    """Clara-MS rows with four numeric features and one text column (``tier``, from R_state)."""
    train = pd.read_csv(data_dir / "clara" / "ms_train.csv").head(n_rows)
    X = train[["R_state", "A_i", "A_e", "I_c"]].copy()
    X["tier"] = np.where(train["R_state"] > train["R_state"].median(), "large state", "small state")
    X.loc[X.index[::17], "A_i"] = np.nan  # some missing values, so missing-value routing is stored
    return X, train["cores"]


def fit_models(data_dir) -> dict:
    """Five fitted models (classifier and regressor of both families, a multiclass PrAM), four with edits."""
    X, cores = clara_table(data_dir)
    label = np.where(cores > cores.median(), "many", "few")
    band = pd.cut(cores, 3, labels=["low", "mid", "high"]).astype(str).to_numpy()
    models = {
        "prdt_classifier": PrDTClassifier(ccp_alpha=0.005, random_state=0).fit(X, label),
        "prdt_regressor": PrDTRegressor(ccp_alpha=1.0, random_state=0).fit(X, cores),
        "pram_classifier": PrAMClassifier(**FAST_PRAM).fit(X, label),
        "pram_regressor": PrAMRegressor(**FAST_PRAM).fit(X, cores),
        "pram_multiclass": PrAMClassifier(**{**FAST_PRAM, "interactions": 0}).fit(X, band),
    }
    for name, model in models.items():
        if name.startswith("prdt"):
            tree = model.tree_
            leaf = int(np.flatnonzero(tree.children_left == -1)[0])
            value = model.classes_[0] if name == "prdt_classifier" else 40.0
            set_leaf_value(model, leaf, value, inplace=True)
            set_threshold(model, 0, float(tree.threshold[0]) if np.isfinite(tree.threshold[0]) else 0.5, inplace=True)
        elif name != "pram_multiclass":  # term edits support one score column
            shift_term_scores(model, "A_e", 0.25, bins=[1, 2], inplace=True)
    return models


def read_parts(path) -> tuple[dict, dict[str, bytes]]:
    """``primo.json`` parsed, and every other member's raw bytes."""
    with zipfile.ZipFile(path) as archive:
        document = json.loads(archive.read("primo.json"))
        members = {name: archive.read(name) for name in archive.namelist() if name != "primo.json"}
    return document, members


def write_parts(path, document, members: dict[str, bytes], *, json_text: bytes | None = None) -> None:
    """A model file from a document (or raw ``json_text``) and raw members."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("primo.json", json_text if json_text is not None else json.dumps(document))
        for name, payload in members.items():
            archive.writestr(name, payload)


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def member_of(document: dict, *keys) -> str:
    """The ``arrays/<n>.npy`` member holding the array at ``document[keys[0]][keys[1]]...``."""
    node = document
    for key in keys:
        node = node[key]
    return f"arrays/{node['__array__']}.npy"


def load_member(members: dict[str, bytes], name: str) -> np.ndarray:
    return np.load(io.BytesIO(members[name]), allow_pickle=False)


# --------------------------------------------------------------------------- mutations (fuzzing)

MUTATION_KINDS = ("bytes", "truncate", "member_bytes", "json_value", "json_structure", "array")

# Values a careless or hostile writer might put anywhere in primo.json.
_NASTY_VALUES = [
    None, True, False, 0, -1, 1, 2, 7, -2, 50_000_000, 10_000_000, 2 ** 31, 2 ** 63, -(2 ** 63), 10 ** 30,
    0.5, -0.0, 1e308, -1e308, 1e-320, "", "x", "nan", "inf", "identity", "mlogit", "__array__", "continuous",
    [], [0], [[0, 1]], [None], {}, {"a": 1}, {"__tuple__": [57]}, {"__tuple__": [0, 0]}, {"__float__": "nan"},
    {"__float__": "inf"}, {"__array__": "0"}, {"__array__": "999"}, {"__dict__": [[1, 2]]}, {"__dict__": [[[1], 2]]},
    {"__object_array__": ["a"], "shape": [3], "kind": "O"}, {"__list__": [1, 2], "dtype": "<f8", "shape": [2]},
    {"__list__": [1], "dtype": "O", "shape": [1]}, {"__records__": {}, "dtype": []},
]


def _pick(rng, options):
    """One of ``options`` (``rng.choice`` would turn mixed lists into NumPy arrays)."""
    return options[int(rng.integers(len(options)))]


def _json_paths(value, path=()):
    """Every (container path, key) in a JSON tree, leaves and containers alike."""
    found = []
    if isinstance(value, dict):
        for key, child in value.items():
            found.append(path + (key,))
            found += _json_paths(child, path + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found.append(path + (index,))
            found += _json_paths(child, path + (index,))
    return found


def _get(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def _nearby(value, rng):
    """A value related to ``value``: numbers nudged or blown up, strings and containers bent."""
    if isinstance(value, bool) or value is None:
        return _pick(rng, _NASTY_VALUES)
    if isinstance(value, int):
        return int(_pick(rng, [value + 1, value - 1, -value, value * 1_000_003, 0, -1, 2 ** 40]))
    if isinstance(value, float):
        return float(_pick(rng, [value * 2, -value, value + 1e-9, 1e300, 0.0]))
    if isinstance(value, str):
        return _pick(rng, [value + "x", value[:-1], value.upper(), "", "feature_0000", value * 2])
    if isinstance(value, list):
        return _pick(rng, [value[:-1], value + value[-1:], value[::-1], [value], []])
    if isinstance(value, dict):
        keys = list(value)
        return {k: value[k] for k in keys[:-1]} if keys else {"x": 1}
    return _pick(rng, _NASTY_VALUES)


def _mutate_json(document: dict, rng, structural: bool) -> dict:
    paths = _json_paths(document)
    path = paths[rng.integers(len(paths))]
    parent, key = _get(document, path[:-1]), path[-1]
    if not structural:
        parent[key] = _nearby(parent[key], rng) if rng.random() < 0.6 else _pick(rng, _NASTY_VALUES)
        return document
    action = rng.integers(4)
    if action == 0:  # delete
        del parent[key]
    elif action == 1:  # nest deeper
        parent[key] = [[[[parent[key]]]]] if rng.random() < 0.5 else {"__tuple__": [parent[key]]}
    elif action == 2 and isinstance(parent, dict):  # unexpected key next to it
        parent[_pick(rng, ["extra_", "__array__", "predict", "__class__", "tree_"])] = parent[key]
    else:  # copy a value from elsewhere (not from an ancestor: that would make a cycle)
        other = paths[rng.integers(len(paths))]
        if path[:len(other)] == other:
            del parent[key]
        else:
            parent[key] = copy.deepcopy(_get(document, other))
    return document


def _mutate_array(array: np.ndarray, rng) -> np.ndarray:
    """Bent copies of an array: elements, shape or dtype changed (structured node arrays field-wise)."""
    array = array.copy()
    action = rng.integers(6)
    if array.size and action <= 2:
        flat = array.reshape(-1)
        index = rng.integers(flat.size)
        if array.dtype.names:
            field = array.dtype.names[rng.integers(len(array.dtype.names))]
            choices = [-1, -2, 0, 1, len(array), len(array) - 1, 50_000_000, index] if flat[field].dtype.kind in "iu" \
                else [np.nan, np.inf, -np.inf, 1e300, -2.0]
            flat[field][index] = _pick(rng, choices) if flat[field].dtype.kind != "u" else rng.integers(256)
        elif array.dtype.kind == "f":
            flat[index] = _pick(rng, [np.nan, np.inf, -np.inf, 1e300, -flat[index], 0.0])
        elif array.dtype.kind in "iu":
            flat[index] = _pick(rng, [0, 1, 2, 127]) if array.dtype.kind == "u" else _pick(rng, [-1, 10_000_000, 0])
        return array
    if action == 3:  # shape
        return _pick(rng, [array.reshape(-1), array[:-1], np.concatenate([array, array[:1]]) if array.size else array,
                           array[..., None], array.T.copy()])
    if action == 4 and not array.dtype.names:  # dtype
        return array.astype(_pick(rng, [np.float32, np.int32, np.int64, np.uint8, "<U3", ">f8"]))
    if array.dtype.names:  # structured → plain, or fields dropped
        names = list(array.dtype.names)
        return array[names[:-1]].copy() if rng.random() < 0.5 else np.zeros(len(array))
    return np.zeros((0,) + array.shape[1:], dtype=array.dtype)


def mutated_file(source_bytes: bytes, kind: str, seed: int) -> bytes:
    """The bytes of a model file after one seeded mutation of ``kind`` (see ``MUTATION_KINDS``)."""
    rng = np.random.default_rng(seed)
    if kind == "bytes":
        data = bytearray(source_bytes)
        for _ in range(rng.integers(1, 9)):
            data[rng.integers(len(data))] = rng.integers(256)
        return bytes(data)
    if kind == "truncate":
        return source_bytes[: rng.integers(len(source_bytes))]
    with zipfile.ZipFile(io.BytesIO(source_bytes)) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    if kind == "member_bytes":
        name = sorted(members)[rng.integers(len(members))]
        data = bytearray(members[name])
        for _ in range(rng.integers(1, 5)):
            if data:
                data[rng.integers(len(data))] = rng.integers(256)
        members[name] = bytes(data)
    elif kind in ("json_value", "json_structure"):
        document = json.loads(members["primo.json"])
        members["primo.json"] = json.dumps(_mutate_json(document, rng, kind == "json_structure")).encode()
    elif kind == "array":
        names = sorted(n for n in members if n.endswith(".npy"))
        name = names[rng.integers(len(names))]
        members[name] = npy_bytes(_mutate_array(np.load(io.BytesIO(members[name]), allow_pickle=False), rng))
    else:
        raise ValueError(f"unknown mutation kind {kind!r}")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, payload in members.items():
            archive.writestr(name, payload)
    return buffer.getvalue()
