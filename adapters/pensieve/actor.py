"""Pensieve's pretrained actor network, read from its TensorFlow.js weights and run with numpy.

Network (ReLU everywhere except the output; names as in the manifest):

- ``FullyConnected`` on s[0, -1], ``FullyConnected_1`` on s[1, -1] (1 -> 128 each);
- ``Conv1D`` on row 2, ``Conv1D_1`` on row 3, ``Conv1D_2`` on row 4 columns 0-5. The input of each
  is a single time step with 8 (or 6) channels and the kernel (4 taps, "same" padding) is centred so
  that only tap 1 meets it: the layer is ``relu(row @ W[1, 0] + b)``;
- ``FullyConnected_2`` on s[4, -1] -- the original network slices row 4 here, not row 5 (its
  manifest's ``strided_slice_5`` starts at [0, 4, -1]); kept to be faithful;
- the six 128-vectors, in that order, -> ``FullyConnected_3`` (768 -> 128) -> ``FullyConnected_4``
  (128 -> 6) -> softmax.

Computation is in float32, like the original TensorFlow graph.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from primo.datasets import resolve_data_dir
from adapters.pensieve.state import S_INFO, S_LEN
from adapters.pensieve.video import N_LEVELS

MANIFEST_NAME = "weights_manifest.json"
_DTYPES = {"float32": np.dtype("<f4"), "int32": np.dtype("<i4")}
_HIDDEN = 128

#: Every float tensor the actor needs, with its expected shape.
ACTOR_TENSORS = {
    "actor/FullyConnected/W": (1, _HIDDEN),
    "actor/FullyConnected/b": (_HIDDEN,),
    "actor/FullyConnected_1/W": (1, _HIDDEN),
    "actor/FullyConnected_1/b": (_HIDDEN,),
    "actor/Conv1D/W": (4, 1, S_LEN, _HIDDEN),
    "actor/Conv1D/b": (_HIDDEN,),
    "actor/Conv1D_1/W": (4, 1, S_LEN, _HIDDEN),
    "actor/Conv1D_1/b": (_HIDDEN,),
    "actor/Conv1D_2/W": (4, 1, N_LEVELS, _HIDDEN),
    "actor/Conv1D_2/b": (_HIDDEN,),
    "actor/FullyConnected_2/W": (1, _HIDDEN),
    "actor/FullyConnected_2/b": (_HIDDEN,),
    "actor/FullyConnected_3/W": (6 * _HIDDEN, _HIDDEN),
    "actor/FullyConnected_3/b": (_HIDDEN,),
    "actor/FullyConnected_4/W": (_HIDDEN, N_LEVELS),
    "actor/FullyConnected_4/b": (N_LEVELS,),
}


class WeightsFormatError(ValueError):
    """The TensorFlow.js weights (manifest or binary shard) are not what the actor expects."""


def read_tfjs_weights(directory: str | os.PathLike) -> dict[str, np.ndarray]:
    """Read every tensor of a TensorFlow.js ``weights_manifest.json`` and its binary shards.

    Only unquantized ``float32`` and ``int32`` tensors are supported (what Pensieve's export holds).

    Parameters
    ----------
    directory : path-like
        Folder holding ``weights_manifest.json`` and the shard files it names.

    Raises
    ------
    WeightsFormatError
        If the manifest is malformed, names an unsupported dtype or quantization, or the shards'
        total size differs from what the manifest describes.

    Example
    -------
    >>> weights = read_tfjs_weights("../shared/data/pensieve/pensieve_actor_tfjs")  # doctest: +SKIP
    >>> weights["actor/FullyConnected_3/W"].shape  # doctest: +SKIP
    (768, 128)
    """
    directory = Path(directory)
    manifest_path = directory / MANIFEST_NAME
    if not manifest_path.is_file():
        raise FileNotFoundError(f"TensorFlow.js manifest not found: {manifest_path}")
    try:
        manifest = json.loads(manifest_path.read_text())
    except json.JSONDecodeError as error:
        raise WeightsFormatError(f"{manifest_path} is not valid JSON: {error}") from None
    if not isinstance(manifest, list):
        raise WeightsFormatError(f"{manifest_path}: expected a list of weight groups")

    tensors: dict[str, np.ndarray] = {}
    for group_number, group in enumerate(manifest):
        if not isinstance(group, dict) or "paths" not in group or "weights" not in group:
            raise WeightsFormatError(f"{manifest_path}: group {group_number} needs 'paths' and 'weights'")
        # A group's shards are one byte stream cut into files.
        blob = b"".join(_read_shard(directory / shard) for shard in group["paths"])
        offset = 0
        for entry in group["weights"]:
            name, shape, dtype = entry.get("name"), entry.get("shape"), entry.get("dtype")
            if "quantization" in entry:
                raise WeightsFormatError(f"{manifest_path}: tensor {name!r} is quantized; not supported")
            if dtype not in _DTYPES:
                raise WeightsFormatError(
                    f"{manifest_path}: tensor {name!r} has dtype {dtype!r}; supported: {sorted(_DTYPES)}"
                )
            if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
                raise WeightsFormatError(f"{manifest_path}: tensor {name!r} has an invalid shape {shape!r}")
            count = int(np.prod(shape, dtype=np.int64))
            n_bytes = count * _DTYPES[dtype].itemsize
            if offset + n_bytes > len(blob):
                raise WeightsFormatError(
                    f"{directory}: shards of group {group_number} end before tensor {name!r} "
                    f"(need {offset + n_bytes} bytes, have {len(blob)})"
                )
            array = np.frombuffer(blob, dtype=_DTYPES[dtype], count=count, offset=offset)
            tensors[name] = array.reshape(shape).astype(_DTYPES[dtype].newbyteorder("="))
            offset += n_bytes
        if offset != len(blob):
            raise WeightsFormatError(
                f"{directory}: the manifest describes {offset} bytes for group {group_number} "
                f"but its shards hold {len(blob)}"
            )
    return tensors


def _read_shard(path: Path) -> bytes:
    if not path.is_file():
        raise FileNotFoundError(f"weight shard named in the manifest not found: {path}")
    return path.read_bytes()


class PensieveActor:
    """The pretrained actor as a function from 6x8 states to bitrate probabilities.

    Parameters
    ----------
    weights : dict of str to ndarray
        Tensors named as in the manifest (see :data:`ACTOR_TENSORS`); extra tensors are ignored.

    Raises
    ------
    WeightsFormatError
        If a needed tensor is missing or has the wrong shape.

    Example
    -------
    >>> actor = load_actor()  # doctest: +SKIP
    >>> actor.action_probabilities(np.zeros((1, 6, 8))).shape  # doctest: +SKIP
    (1, 6)
    """

    def __init__(self, weights: dict[str, np.ndarray]):
        for name, shape in ACTOR_TENSORS.items():
            if name not in weights:
                raise WeightsFormatError(f"actor tensor {name!r} missing from the weights")
            if tuple(weights[name].shape) != shape:
                raise WeightsFormatError(
                    f"actor tensor {name!r} has shape {tuple(weights[name].shape)}, expected {shape}"
                )
        w = {name: np.asarray(weights[name], dtype=np.float32) for name in ACTOR_TENSORS}
        self._w = w
        # The conv layers reduce to dense layers on their centre tap (see the module docstring).
        self._conv_throughput = w["actor/Conv1D/W"][1, 0]
        self._conv_delay = w["actor/Conv1D_1/W"][1, 0]
        self._conv_sizes = w["actor/Conv1D_2/W"][1, 0]

    @classmethod
    def from_tfjs(cls, directory: str | os.PathLike) -> "PensieveActor":
        """Load the actor from a TensorFlow.js export folder."""
        return cls(read_tfjs_weights(directory))

    @property
    def n_parameters(self) -> int:
        """Number of stored weights and biases (all conv taps counted)."""
        return int(sum(array.size for array in self._w.values()))

    def action_probabilities(self, states: np.ndarray) -> np.ndarray:
        """Softmax over the 6 bitrate levels for a batch of states.

        Parameters
        ----------
        states : array-like, shape (n, 6, 8) or (6, 8)

        Returns
        -------
        ndarray of float32, shape (n, 6) (or (6,) for a single state)

        Notes
        -----
        BLAS kernels differ between one row and a batch, so a state's probabilities can differ in
        the last float32 bits depending on the batch it is in. The golden-log replay evaluates one
        state at a time, as the original did.
        """
        states = np.asarray(states)
        single = states.ndim == 2
        if single:
            states = states[None]
        if states.ndim != 3 or states.shape[1:] != (S_INFO, S_LEN):
            raise ValueError(
                f"states must have shape (n, {S_INFO}, {S_LEN}) or ({S_INFO}, {S_LEN}), got {states.shape}"
            )
        if not np.all(np.isfinite(states)):
            raise ValueError("states contain NaN or infinite values")
        s = states.astype(np.float32)
        w = self._w
        relu = lambda x: np.maximum(x, np.float32(0))  # noqa: E731
        merged = np.concatenate(
            [
                relu(s[:, 0, -1:] @ w["actor/FullyConnected/W"] + w["actor/FullyConnected/b"]),
                relu(s[:, 1, -1:] @ w["actor/FullyConnected_1/W"] + w["actor/FullyConnected_1/b"]),
                relu(s[:, 2, :] @ self._conv_throughput + w["actor/Conv1D/b"]),
                relu(s[:, 3, :] @ self._conv_delay + w["actor/Conv1D_1/b"]),
                relu(s[:, 4, :N_LEVELS] @ self._conv_sizes + w["actor/Conv1D_2/b"]),
                relu(s[:, 4, -1:] @ w["actor/FullyConnected_2/W"] + w["actor/FullyConnected_2/b"]),
            ],
            axis=1,
        )
        hidden = relu(merged @ w["actor/FullyConnected_3/W"] + w["actor/FullyConnected_3/b"])
        logits = hidden @ w["actor/FullyConnected_4/W"] + w["actor/FullyConnected_4/b"]
        exp = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities = exp / exp.sum(axis=1, keepdims=True)
        return probabilities[0] if single else probabilities


def load_actor(data_dir: str | os.PathLike | None = None) -> PensieveActor:
    """Load the pretrained actor from ``<data_dir>/pensieve/pensieve_actor_tfjs``.

    Example
    -------
    >>> actor = load_actor()  # doctest: +SKIP
    """
    return PensieveActor.from_tfjs(resolve_data_dir(data_dir) / "pensieve" / "pensieve_actor_tfjs")
