"""Lucid's Packing Analyze Model: Sharing Score labels and a pruned decision tree.

Lucid (ASPLOS'23, §3.5.1) measures, for every pair of workload configurations colocated on
one GPU, each job's speed normalized to its exclusive speed, and "assigns a Sharing Score
to each model configuration based on its colocation influence on others. A job is regarded
as Tiny if its average normalized speed is greater than a customizable tiny job threshold
(e.g. 0.95), and Medium if the speed is between tiny and medium job thresholds. Otherwise,
the job will be labeled as Jumbo."

The text leaves open *whose* speed is averaged. :func:`sharing_score_labels` therefore
takes a ``perspective``: ``"own"`` (default: the configuration's own normalized speed,
averaged over all its colocations), ``"partner"`` (the speed of the jobs it is colocated
with: its influence on others) or ``"pair"`` (the mean of both). A configuration's label
follows from the average over **every** colocation it appears in, on either side of the
pair, including colocation with a copy of itself. The labels released in
``single_data.csv`` match none of these rules exactly (see the evaluation script); they are
kept as the reference labels, and the derived ones are reported beside them.

Features (Lucid Fig. 6): GPU utilization ``gpu_util`` (U_G), GPU memory ``gmem`` (M_G),
GPU memory utilization ``gmem_util`` (U_M), and mixed precision ``amp`` (A).
"""
from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import (GridSearchCV, GroupKFold, RepeatedStratifiedKFold,
                                     StratifiedKFold, cross_val_score)
from sklearn.tree import DecisionTreeClassifier

from adapters.scheduler.baselines import BASELINE_NAMES, make_baseline

logger = logging.getLogger(__name__)

CONFIG_KEYS = ("model", "dataset", "batchsize", "amp")
"""Columns identifying a workload configuration."""

FEATURES = ("gpu_util", "gmem", "gmem_util", "amp")
"""Packing Analyze Model inputs: U_G, M_G, U_M, A."""

LABELS = ("Tiny", "Medium", "Jumbo")
"""Sharing Score 0, 1, 2."""

PUBLISHED_ACCURACY = 0.941
"""Lucid's reported accuracy of the Packing Analyze Model (decision tree)."""

_SIDE_COLUMNS = ("model", "dataset", "gpu_num", "batchsize", "amp", "speed")
_SINGLE_COLUMNS = ("model", "dataset", "batchsize", "amp", "speed", "gpu_util", "gmem_util", "gmem", "label")


def _profiles_path(path, filename: str) -> Path:
    path = Path(path)
    return path / "scheduler" / "lucid_profiles" / filename if path.is_dir() else path


def load_colocations(path: str | os.PathLike) -> pd.DataFrame:
    """Read ``colocate_info.csv`` (one row per measured pair: ``model1``..``speed1``, ``model2``..``speed2``).

    Parameters
    ----------
    path : the CSV, or a data directory holding ``scheduler/lucid_profiles/colocate_info.csv``.

    Example
    -------
    >>> pairs = load_colocations("../shared/data")  # doctest: +SKIP
    >>> len(pairs)  # doctest: +SKIP
    1388
    """
    path = _profiles_path(path, "colocate_info.csv")
    frame = pd.read_csv(path, index_col=0)
    required = [f"{c}{side}" for side in (1, 2) for c in _SIDE_COLUMNS]
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}")
    return frame


def load_single_profiles(path: str | os.PathLike) -> pd.DataFrame:
    """Read ``single_data.csv``: exclusive-run profiles with the released ``label`` (0/1/2).

    Example
    -------
    >>> singles = load_single_profiles("../shared/data")  # doctest: +SKIP
    >>> len(singles)  # doctest: +SKIP
    66
    """
    path = _profiles_path(path, "single_data.csv")
    frame = pd.read_csv(path)
    missing = [c for c in _SINGLE_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}")
    return frame


def colocation_speeds(pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per (configuration, colocation): its ``own_speed`` and its ``partner_speed``.

    Each measured pair yields two rows, one from each side.

    Example
    -------
    >>> pairs = pd.DataFrame({"model1": ["A"], "dataset1": ["d"], "gpu_num1": [1], "batchsize1": [32],
    ...     "amp1": [0], "speed1": [0.9], "model2": ["B"], "dataset2": ["d"], "gpu_num2": [1],
    ...     "batchsize2": [32], "amp2": [1], "speed2": [0.7]})
    >>> colocation_speeds(pairs)[["model", "own_speed", "partner_speed"]].values.tolist()
    [['A', 0.9, 0.7], ['B', 0.7, 0.9]]
    """
    sides = []
    for me, other in ((1, 2), (2, 1)):
        side = pairs[[f"{c}{me}" for c in CONFIG_KEYS]].copy()
        side.columns = list(CONFIG_KEYS)
        side["own_speed"] = pairs[f"speed{me}"].to_numpy()
        side["partner_speed"] = pairs[f"speed{other}"].to_numpy()
        sides.append(side)
    return pd.concat(sides, ignore_index=True)


def sharing_score(speed, tiny: float = 0.95, medium: float = 0.85) -> np.ndarray:
    """Map average normalized speeds to Sharing Scores: > tiny → 0, > medium → 1, else 2.

    Example
    -------
    >>> sharing_score([0.99, 0.95, 0.9, 0.85, 0.5]).tolist()
    [0, 1, 1, 2, 2]
    """
    if not medium < tiny:
        raise ValueError(f"the medium threshold ({medium}) must be below the tiny threshold ({tiny})")
    speed = np.asarray(speed, dtype=float)
    return np.where(speed > tiny, 0, np.where(speed > medium, 1, 2))


def sharing_score_labels(pairs: pd.DataFrame, *, tiny: float = 0.95, medium: float = 0.85,
                         perspective: str = "own") -> pd.DataFrame:
    """Sharing Score of every configuration from its measured colocations.

    Parameters
    ----------
    pairs : colocation table (:func:`load_colocations` layout).
    tiny, medium : normalized-speed thresholds (Lucid's defaults 0.95 and 0.85).
    perspective : whose speed is averaged: ``"own"``, ``"partner"`` or ``"pair"`` (module docstring).

    Returns
    -------
    DataFrame with :data:`CONFIG_KEYS`, ``avg_speed``, ``n_colocations`` and ``label`` (0/1/2).

    Example
    -------
    >>> labels = sharing_score_labels(load_colocations("../shared/data"))  # doctest: +SKIP
    """
    if perspective not in ("own", "partner", "pair"):
        raise ValueError(f"perspective must be 'own', 'partner' or 'pair', got {perspective!r}")
    speeds = colocation_speeds(pairs)
    if perspective == "own":
        speeds["speed"] = speeds["own_speed"]
    elif perspective == "partner":
        speeds["speed"] = speeds["partner_speed"]
    else:
        speeds["speed"] = (speeds["own_speed"] + speeds["partner_speed"]) / 2.0
    grouped = speeds.groupby(list(CONFIG_KEYS), sort=True)["speed"]
    table = grouped.agg(avg_speed="mean", n_colocations="size").reset_index()
    table["label"] = sharing_score(table["avg_speed"], tiny, medium)
    return table


def packing_table(singles: pd.DataFrame, derived: pd.DataFrame | None = None) -> pd.DataFrame:
    """Exclusive-run features with the released label and, if given, the derived one.

    Configurations without colocation measurements get ``derived_label`` NaN.

    Example
    -------
    >>> table = packing_table(singles, sharing_score_labels(pairs))  # doctest: +SKIP
    """
    table = singles.copy()
    if derived is not None:
        table = table.merge(derived[[*CONFIG_KEYS, "avg_speed", "label"]].rename(
            columns={"label": "derived_label"}), on=list(CONFIG_KEYS), how="left")
    return table


def make_pruned_tree(random_state: int = 0, cv: int = 3) -> GridSearchCV:
    """Decision tree whose cost-complexity pruning strength is picked by inner cross-validation.

    The grid of ``ccp_alpha`` values spans 0 to 0.1; being chosen inside each training fold,
    it never sees the fold it is scored on (nested cross-validation when wrapped in
    :func:`cross_val_score`). Three inner folds, because the Medium class has 16 examples.

    Example
    -------
    >>> make_pruned_tree().estimator.criterion
    'gini'
    """
    grid = {"ccp_alpha": np.concatenate([[0.0], np.geomspace(3e-3, 0.1, 7)])}
    inner = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    return GridSearchCV(DecisionTreeClassifier(random_state=random_state), grid, cv=inner)


def evaluate_packing_models(data_dir, *, label_column: str = "label", models=BASELINE_NAMES,
                            n_splits: int = 5, n_repeats: int = 5, random_state: int = 0) -> pd.DataFrame:
    """Cross-validated accuracy of the pruned tree and the baselines on the Sharing Score task.

    Two protocols: repeated stratified k-fold over configurations (what a random split gives),
    and leave-model-out (GroupKFold by DL model: configurations of one network differ only
    in batch size and AMP, so they are near-duplicates; this asks whether the tree
    transfers to an unseen network).

    Parameters
    ----------
    data_dir : data directory (or ``lucid_profiles`` folder parent).
    label_column : ``"label"`` (released) or ``"derived_label"`` (from colocations, own speed).
    models : baselines to compare (classification).

    A third row, ``in_sample`` for the pruned tree, is training accuracy on all rows: not a
    generalization estimate, shown because a published figure may be one.

    Returns
    -------
    DataFrame: ``model``, ``protocol``, ``accuracy``, ``std``, ``n``.

    Example
    -------
    >>> evaluate_packing_models("../shared/data", models=())  # doctest: +SKIP
    """
    table = packing_table(load_single_profiles(data_dir), sharing_score_labels(load_colocations(data_dir)))
    table = table[table[label_column].notna()]
    X, y = table[list(FEATURES)].astype(float), table[label_column].astype(int)
    groups = table["model"]
    candidates = {"pruned_tree": make_pruned_tree(random_state)}
    for name in models:
        candidates[name] = make_baseline(name, task="classification", random_state=random_state)
    protocols = {
        "stratified": RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=random_state),
        "leave_model_out": GroupKFold(n_splits=min(n_splits, groups.nunique())),
    }
    rows = []
    for name, model in candidates.items():
        for protocol, splitter in protocols.items():
            scores = cross_val_score(model, X, y, cv=splitter, groups=groups if protocol != "stratified" else None)
            rows.append({"model": name, "protocol": protocol, "accuracy": scores.mean(),
                         "std": scores.std(), "n": len(y)})
            logger.info("packing %s %s: %.3f", name, protocol, scores.mean())
    tree = make_pruned_tree(random_state).fit(X, y)
    rows.append({"model": "pruned_tree", "protocol": "in_sample", "accuracy": tree.score(X, y),
                 "std": 0.0, "n": len(y)})
    return pd.DataFrame(rows)
