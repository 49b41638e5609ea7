"""Loaders for the Clara datasets (SmartNIC offloading, SOSP'21, as republished by Primo).

Three tasks, each read from ``<data_dir>/clara/``:

* **MS** (multicore scale-out): ``ms_train.csv``, ``ms_test.csv``, ``ms_real_nfs.csv`` — ten
  numeric features (:data:`MS_FEATURES`) and the best number of SmartNIC cores (``cores``).
* **AI** (algorithm identification): ``ai_train.npz``, ``ai_test.npz`` — 102 binary sequential
  opcode patterns, label 1 = CRC-style loop; ``ai_click_loops.jsonl`` — real Click loops to rank.
* **CP** (cross-platform compute prediction): ``cp_synthetic.npz``, ``cp_real_nfs.npz`` — basic
  blocks as 70 right-padded token ids (vocabulary 125, 0 = padding); the target is the compiled
  instruction count **divided by 60** (Clara's scaling, kept as is so Clara's LSTM output, a
  sigmoid in (0, 1), is on the same scale). ``cp_clara_lstm_weights.npz`` — Clara's LSTM.

Every loader validates what it reads and raises :class:`ClaraDataError` (a ``ValueError``)
naming the file and the problem; a missing file raises ``FileNotFoundError``.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from primo.datasets import resolve_data_dir

MS_FEATURES = ("R_state", "A_i", "A_e", "I_c", "R_ic", "R_ec", "R_i", "R_e", "R_sum", "R_res")
MS_TARGET = "cores"
AI_N_FEATURES = 102
CP_SEQ_LEN = 70
CP_VOCAB_SIZE = 125
CP_PAD = 0
#: The CP target is instruction count / CP_TARGET_SCALE (Clara's scaling).
CP_TARGET_SCALE = 60.0
#: Expected arrays of Clara's pretrained LSTM: name -> shape.
CP_LSTM_WEIGHT_SHAPES = {
    "embedding": (CP_VOCAB_SIZE, 64),
    "lstm_kernel": (128, 256),
    "lstm_bias": (256,),
    "out_W": (64, 1),
    "out_b": (1,),
}


class ClaraDataError(ValueError):
    """A Clara data file exists but does not have the expected format."""


@dataclass(frozen=True)
class MSData:
    """Clara-MS rows: ``X`` has the columns :data:`MS_FEATURES`; ``y`` is ``cores``.

    For the real NFs both are indexed by the NF name (index name ``nf``).
    """

    X: pd.DataFrame
    y: pd.Series


@dataclass(frozen=True)
class AIData:
    """Clara-AI rows: ``X`` (n, 102) uint8 in {0, 1}; ``y`` (n,) uint8, 1 = CRC-style loop."""

    X: np.ndarray
    y: np.ndarray


@dataclass(frozen=True)
class ClickLoops:
    """Loops of real Click elements: ``names[i]`` has opcodes ``opcodes[i]`` and pattern row ``X[i]``."""

    names: tuple[str, ...]
    opcodes: tuple[tuple[str, ...], ...]
    X: np.ndarray


@dataclass(frozen=True)
class CPData:
    """Clara-CP basic blocks.

    ``X`` (n, 70) int16 token ids, right-padded with 0; ``y`` (n,) float64 = instruction count / 60.
    For the real NFs, ``groups`` (n,) int64 indexes ``group_names`` (one name per NF); for the
    synthetic set both are ``None``.
    """

    X: np.ndarray
    y: np.ndarray
    groups: np.ndarray | None = None
    group_names: tuple[str, ...] | None = None

    @property
    def instruction_counts(self) -> np.ndarray:
        """The target on its natural scale (number of instructions)."""
        return self.y * CP_TARGET_SCALE


def _clara_file(name: str, data_dir: str | os.PathLike | None) -> Path:
    path = resolve_data_dir(data_dir) / "clara" / name
    if not path.is_file():
        raise FileNotFoundError(f"Clara data file not found: {path}")
    return path


def _load_npz(path: Path, keys: tuple[str, ...]) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as archive:
            missing = [k for k in keys if k not in archive.files]
            if missing:
                raise ClaraDataError(f"{path.name}: missing arrays {missing} (has {archive.files})")
            return {k: archive[k] for k in keys}
    except (OSError, ValueError) as exc:
        if isinstance(exc, ClaraDataError):
            raise
        raise ClaraDataError(f"{path.name}: not a readable .npz archive ({exc})") from exc


def _check_rows(path: Path, X: np.ndarray, y: np.ndarray, n_features: int) -> None:
    if X.ndim != 2 or X.shape[1] != n_features:
        raise ClaraDataError(f"{path.name}: X must have shape (n, {n_features}), got {X.shape}")
    if y.shape != (X.shape[0],):
        raise ClaraDataError(f"{path.name}: y must have shape ({X.shape[0]},), got {y.shape}")


def load_ms(
    split: Literal["train", "test", "real_nfs"], data_dir: str | os.PathLike | None = None
) -> MSData:
    """Load one Clara-MS split.

    Parameters
    ----------
    split : {"train", "test", "real_nfs"}
        ``train``/``test`` are the 680/198 synthesized NFs; ``real_nfs`` the 4 real Click NFs,
        indexed by NF name.
    data_dir : path, optional
        The shared data directory (see :func:`primo.datasets.resolve_data_dir`).

    Example
    -------
    >>> ms = load_ms("train")
    >>> ms.X.shape, ms.y.name
    ((680, 10), 'cores')
    """
    files = {"train": "ms_train.csv", "test": "ms_test.csv", "real_nfs": "ms_real_nfs.csv"}
    if split not in files:
        raise ValueError(f"unknown Clara-MS split {split!r}; expected one of {sorted(files)}")
    path = _clara_file(files[split], data_dir)
    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ClaraDataError(f"{path.name}: not a readable CSV file ({exc})") from exc
    required = list(MS_FEATURES) + [MS_TARGET] + (["nf"] if split == "real_nfs" else [])
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ClaraDataError(f"{path.name}: missing columns {missing}")
    numeric = frame[list(MS_FEATURES) + [MS_TARGET]].apply(pd.to_numeric, errors="coerce")
    bad = numeric.columns[numeric.isna().any()].tolist()
    if bad:
        raise ClaraDataError(f"{path.name}: non-numeric or missing values in columns {bad}")
    if split == "real_nfs":
        numeric.index = pd.Index(frame["nf"].astype(str), name="nf")
    return MSData(X=numeric[list(MS_FEATURES)].astype(float), y=numeric[MS_TARGET].astype(float))


def load_ai(split: Literal["train", "test"], data_dir: str | os.PathLike | None = None) -> AIData:
    """Load one Clara-AI split (``train``: 8,313 rows, 39 positives; ``test``: 36 + 5,000 rows).

    Example
    -------
    >>> ai = load_ai("test")
    >>> ai.X.shape, int(ai.y.sum())
    ((5036, 102), 36)
    """
    if split not in ("train", "test"):
        raise ValueError(f"unknown Clara-AI split {split!r}; expected 'train' or 'test'")
    path = _clara_file(f"ai_{split}.npz", data_dir)
    arrays = _load_npz(path, ("X", "y"))
    X, y = arrays["X"], arrays["y"]
    _check_rows(path, X, y, AI_N_FEATURES)
    for name, values in (("X", X), ("y", y)):
        if not np.isin(values, (0, 1)).all():
            raise ClaraDataError(f"{path.name}: {name} must hold only 0/1 values")
    return AIData(X=X.astype(np.uint8), y=y.astype(np.uint8))


def load_ai_click_loops(data_dir: str | os.PathLike | None = None) -> ClickLoops:
    """Load ``ai_click_loops.jsonl``: the 756 loops of real Click elements to screen for CRC code.

    Example
    -------
    >>> loops = load_ai_click_loops()
    >>> loops.X.shape
    (756, 102)
    """
    path = _clara_file("ai_click_loops.jsonl", data_dir)
    names, opcodes, vectors = [], [], []
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ClaraDataError(f"{path.name}:{line_no}: not valid JSON ({exc.msg})") from exc
            missing = [k for k in ("loop", "opcodes", "vector") if k not in record]
            if missing:
                raise ClaraDataError(f"{path.name}:{line_no}: missing keys {missing}")
            if len(record["vector"]) != AI_N_FEATURES:
                raise ClaraDataError(
                    f"{path.name}:{line_no}: vector has {len(record['vector'])} entries, "
                    f"expected {AI_N_FEATURES}"
                )
            names.append(str(record["loop"]).strip())
            opcodes.append(tuple(str(op) for op in record["opcodes"]))
            vectors.append(record["vector"])
    X = np.asarray(vectors)
    if X.size and not np.isin(X, (0, 1)).all():
        raise ClaraDataError(f"{path.name}: vectors must hold only 0/1 values")
    return ClickLoops(names=tuple(names), opcodes=tuple(opcodes), X=X.astype(np.uint8))


def check_cp_tokens(X, *, source: str = "X") -> np.ndarray:
    """Validate a Clara-CP token matrix and return it as int64.

    Checks shape (n, 70), integer ids in [0, 125) and right padding (no token after a 0).
    Used by the loaders and by the models that consume tokens.

    Example
    -------
    >>> check_cp_tokens(np.zeros((2, 70), dtype=int)).shape
    (2, 70)
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] != CP_SEQ_LEN:
        raise ClaraDataError(f"{source}: token matrix must have shape (n, {CP_SEQ_LEN}), got {X.shape}")
    if not np.issubdtype(X.dtype, np.integer):
        if not (np.isfinite(X).all() and np.equal(np.mod(X, 1), 0).all()):
            raise ClaraDataError(f"{source}: token ids must be integers")
    X = X.astype(np.int64)
    if X.size and (X.min() < 0 or X.max() >= CP_VOCAB_SIZE):
        raise ClaraDataError(
            f"{source}: token ids must lie in [0, {CP_VOCAB_SIZE}), got [{X.min()}, {X.max()}]"
        )
    # Right padding: once a row hits padding it stays padding.
    nonpad = X != CP_PAD
    if (nonpad[:, 1:] & ~nonpad[:, :-1]).any():
        raise ClaraDataError(f"{source}: sequences must be right-padded (a token follows padding)")
    return X


def load_cp(
    split: Literal["synthetic", "real_nfs"], data_dir: str | os.PathLike | None = None
) -> CPData:
    """Load one Clara-CP split.

    Parameters
    ----------
    split : {"synthetic", "real_nfs"}
        ``synthetic``: 2,911 YarpGen programs (the only trainable data). ``real_nfs``: 89 basic
        blocks of 8 real Click NFs, with ``groups``/``group_names`` — evaluation only.
    data_dir : path, optional
        The shared data directory.

    Example
    -------
    >>> cp = load_cp("real_nfs")
    >>> cp.X.shape, len(cp.group_names)
    ((89, 70), 8)
    """
    files = {"synthetic": "cp_synthetic.npz", "real_nfs": "cp_real_nfs.npz"}
    if split not in files:
        raise ValueError(f"unknown Clara-CP split {split!r}; expected one of {sorted(files)}")
    path = _clara_file(files[split], data_dir)
    keys = ("X", "y") + (("nf", "nf_names") if split == "real_nfs" else ())
    arrays = _load_npz(path, keys)
    X = check_cp_tokens(arrays["X"], source=path.name).astype(np.int16)
    y = np.asarray(arrays["y"], dtype=np.float64)
    _check_rows(path, X, y, CP_SEQ_LEN)
    if not np.isfinite(y).all() or (y < 0).any():
        raise ClaraDataError(f"{path.name}: y must be finite and non-negative")
    if split == "synthetic":
        return CPData(X=X, y=y)
    groups = np.asarray(arrays["nf"])
    names = tuple(str(n) for n in arrays["nf_names"])
    if groups.shape != y.shape or not np.issubdtype(groups.dtype, np.integer):
        raise ClaraDataError(f"{path.name}: nf must be an integer array of shape {y.shape}")
    if groups.min() < 0 or groups.max() >= len(names):
        raise ClaraDataError(f"{path.name}: nf indexes outside nf_names (0..{len(names) - 1})")
    return CPData(X=X, y=y, groups=groups.astype(np.int64), group_names=names)


def load_cp_lstm_weights(data_dir: str | os.PathLike | None = None) -> dict[str, np.ndarray]:
    """Load Clara's pretrained CP LSTM (``cp_clara_lstm_weights.npz``), shapes checked.

    Returns the arrays of :data:`CP_LSTM_WEIGHT_SHAPES` as float64.

    Example
    -------
    >>> load_cp_lstm_weights()["lstm_kernel"].shape
    (128, 256)
    """
    path = _clara_file("cp_clara_lstm_weights.npz", data_dir)
    arrays = _load_npz(path, tuple(CP_LSTM_WEIGHT_SHAPES))
    for name, shape in CP_LSTM_WEIGHT_SHAPES.items():
        if arrays[name].shape != shape:
            raise ClaraDataError(f"{path.name}: {name} must have shape {shape}, got {arrays[name].shape}")
    return {name: arrays[name].astype(np.float64) for name in CP_LSTM_WEIGHT_SHAPES}
