"""Model files to attack: small PrDT/PrAM models fit on Clara-MS (with a text column and an edit log),
and helpers that take a saved file apart and put a changed one back together."""
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
