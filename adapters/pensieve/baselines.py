"""Classic ABR algorithms as policies over the observation vector.

A policy has ``reset()`` (called before each video) and ``act(obs) -> level``; ``obs`` is the vector
described in :mod:`adapters.pensieve.observation`.
"""
from __future__ import annotations

import itertools
from typing import Protocol

import numpy as np

from adapters.pensieve.observation import BUFFER_LAGS, CHUNKS_LEFT, FEATURE_INDEX, THROUGHPUT_LAGS
from adapters.pensieve.simulator import REBUFFER_PENALTY, SMOOTH_PENALTY
from adapters.pensieve.video import BITRATES_KBPS, CHUNK_DURATION_MS, N_CHUNKS, N_LEVELS, Video

_BUFFER = BUFFER_LAGS[0]
_LAST_BITRATE = FEATURE_INDEX["last_bitrate_kbps"]
_BITRATES = np.array(BITRATES_KBPS)


class Policy(Protocol):
    """What the evaluation harness drives: one bitrate level per observation."""

    def reset(self) -> None: ...

    def act(self, obs: np.ndarray) -> int: ...


def _harmonic_mean_throughput(obs: np.ndarray, n_past: int) -> float:
    """Harmonic mean (MB/s) of the last ``n_past`` throughputs, oldest first, skipping the
    zeros of chunks before the video started."""
    past = obs[THROUGHPUT_LAGS[:n_past]][::-1]
    past = past[np.argmax(past != 0.0):] if np.any(past != 0.0) else past[:0]
    if len(past) == 0:
        raise ValueError("no throughput observed yet: a policy acts after at least one chunk")
    inverse_sum = 0.0
    for value in past:  # left-to-right sum, as the original robustMPC does
        inverse_sum += 1.0 / float(value)
    return 1.0 / (inverse_sum / len(past))


class BufferBasedPolicy:
    """Buffer-based ABR (Huang et al., SIGCOMM'14) as in Pensieve's ``bb.py``.

    Lowest level under ``reservoir_s`` of buffer, highest above ``reservoir_s + cushion_s``,
    linear (rounded down) in between.

    Example
    -------
    >>> BufferBasedPolicy().level_for_buffer(12.5)
    3
    """

    def __init__(self, reservoir_s: float = 5.0, cushion_s: float = 10.0):
        self.reservoir_s = reservoir_s
        self.cushion_s = cushion_s

    def reset(self) -> None:
        pass

    def level_for_buffer(self, buffer_s: float) -> int:
        if buffer_s < self.reservoir_s:
            return 0
        if buffer_s >= self.reservoir_s + self.cushion_s:
            return N_LEVELS - 1
        return int((N_LEVELS - 1) * (buffer_s - self.reservoir_s) / float(self.cushion_s))

    def act(self, obs: np.ndarray) -> int:
        return self.level_for_buffer(float(obs[_BUFFER]))


class RateBasedPolicy:
    """Rate-based ABR: the highest bitrate not above the harmonic mean of the last ``n_past``
    chunk throughputs (level 0 if none fits).

    Example
    -------
    >>> policy = RateBasedPolicy()
    """

    def __init__(self, n_past: int = 5):
        self.n_past = n_past

    def reset(self) -> None:
        pass

    def act(self, obs: np.ndarray) -> int:
        predicted_kbps = _harmonic_mean_throughput(obs, self.n_past) * 8000.0  # MB/s -> kbps
        fitting = np.flatnonzero(_BITRATES <= predicted_kbps)
        return int(fitting[-1]) if len(fitting) else 0


class RobustMPCPolicy:
    """robustMPC (Yin et al., SIGCOMM'15) with the semantics of Pensieve's ``mpc.py``.

    Throughput is predicted as the harmonic mean of the last 5 chunk throughputs divided by
    ``1 + max`` relative prediction error of the last 5 predictions; every combination of levels
    for the next ``horizon`` chunks is scored with the linear QoE over a simulated buffer, and the
    first level of the best one is played (ties go to the combination enumerated last).

    Parameters
    ----------
    video : Video
        Chunk sizes for the look-ahead.
    horizon : int, default 5
        Chunks of look-ahead (6**horizon combinations).
    lookahead_offset : int, default 1
        Pensieve's ``mpc.py`` plans with the sizes of chunks ``i + 1 .. i + horizon`` when chunk
        ``i`` is next (an off-by-one of the original, which is why the video files carry a 49th
        chunk); 0 plans with the chunks actually downloaded next.
    reset_errors_per_video : bool, default False
        The original keeps its prediction-error history across videos; True clears it.

    Example
    -------
    >>> policy = RobustMPCPolicy(load_video())  # doctest: +SKIP
    """

    def __init__(
        self, video: Video, horizon: int = 5, lookahead_offset: int = 1, reset_errors_per_video: bool = False
    ):
        self.video = video
        self.horizon = horizon
        self.lookahead_offset = lookahead_offset
        self.reset_errors_per_video = reset_errors_per_video
        self._bitrate_cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._predictions: list[float] = []
        self._errors: list[float] = []

    def reset(self) -> None:
        if self.reset_errors_per_video:
            self._predictions, self._errors = [], []

    def act(self, obs: np.ndarray) -> int:
        throughput = float(obs[THROUGHPUT_LAGS[0]])
        error = abs(self._predictions[-1] - throughput) / throughput if self._predictions else 0.0
        self._errors.append(error)
        harmonic = _harmonic_mean_throughput(obs, 5)
        future_throughput = harmonic / (1 + float(max(self._errors[-5:])))
        self._predictions.append(harmonic)

        downloaded = N_CHUNKS - int(obs[CHUNKS_LEFT])
        length = min(self.horizon, N_CHUNKS - downloaded)
        if length <= 0:
            return 0
        first = downloaded + self.lookahead_offset
        last_level = int(np.flatnonzero(_BITRATES == obs[_LAST_BITRATE])[0])
        return self._best_first_level(first, length, float(obs[_BUFFER]), future_throughput, last_level)

    def _best_first_level(self, first: int, length: int, buffer_s: float, throughput: float, last_level: int) -> int:
        # Exhaustive search over the 6**length level sequences, built prefix by prefix (sequences
        # sharing a prefix share its buffer trajectory) in itertools.product order. The elementwise
        # arithmetic runs in the same order as the original scalar loop (adding max(x, 0) is
        # exact), so scores and ties are identical to it.
        download_s = (self._chunk_sizes(first, length) / 1000000.0) / throughput  # levels x positions
        buffer, rebuffer = np.array([buffer_s]), np.zeros(1)
        for position in range(length):
            download = np.tile(download_s[:, position], len(buffer))
            buffer, rebuffer = np.repeat(buffer, N_LEVELS), np.repeat(rebuffer, N_LEVELS)
            rebuffer = rebuffer + np.maximum(download - buffer, 0.0)
            buffer = np.maximum(buffer - download, 0.0) + CHUNK_DURATION_MS / 1000.0
        bitrate_sum, smoothness = self._bitrate_terms(length, last_level)
        reward = bitrate_sum / 1000.0 - REBUFFER_PENALTY * rebuffer - SMOOTH_PENALTY * smoothness / 1000.0
        best = np.flatnonzero(reward == reward.max())[-1]  # the original keeps the last maximum
        return int(best // N_LEVELS ** (length - 1))

    def _bitrate_terms(self, length: int, last_level: int) -> tuple[np.ndarray, np.ndarray]:
        """Summed kbps and summed |kbps change| of every level sequence, in product order. They do
        not depend on the network, so they are cached per look-ahead length and previous level."""
        key = (length, last_level)
        if key not in self._bitrate_cache:
            kbps = _BITRATES[np.array(list(itertools.product(range(N_LEVELS), repeat=length)))]
            previous = np.concatenate([np.full((len(kbps), 1), BITRATES_KBPS[last_level]), kbps[:, :-1]], axis=1)
            self._bitrate_cache[key] = (kbps.sum(axis=1), np.abs(kbps - previous).sum(axis=1))
        return self._bitrate_cache[key]

    def _chunk_sizes(self, first: int, length: int) -> np.ndarray:
        """Sizes (levels x positions) of the planned chunks; 0 past the end of the files."""
        indices = np.arange(first, first + length)
        n_files_chunks = self.video.chunk_bytes.shape[1]
        sizes = np.zeros((N_LEVELS, length))
        valid = indices < n_files_chunks
        sizes[:, valid] = self.video.chunk_bytes[:, indices[valid]]
        return sizes


class BolaPolicy:
    """BOLA-BASIC (Spiteri et al., INFOCOM'16) with buffer measured in chunks.

    Picks ``argmax_m (V * (v_m + gamma_p) - Q) / S_m`` with utilities ``v_m = ln(S_m / S_0)``,
    ``S_m`` the nominal bitrates, ``Q`` the buffer in chunks. ``V = (Q_max - 1) / (v_max + gamma_p)``
    with ``Q_max = 60 s / 4 s = 15`` chunks (the simulator's buffer cap), as the paper sets it; with
    the default ``gamma_p = 5`` this gives V = 1.827. BOLA-BASIC's "wait" when every score is
    negative is not modelled: the simulator's own 60 s cap does the waiting.

    Example
    -------
    >>> BolaPolicy().level_for_buffer(0.0), BolaPolicy().level_for_buffer(59.0)
    (0, 5)
    """

    def __init__(self, gamma_p: float = 5.0, buffer_capacity_s: float = 60.0):
        self.gamma_p = gamma_p
        self.buffer_capacity_s = buffer_capacity_s
        self._utilities = np.log(_BITRATES / _BITRATES[0])
        capacity_chunks = buffer_capacity_s / (CHUNK_DURATION_MS / 1000.0)
        self.V = (capacity_chunks - 1) / (self._utilities[-1] + gamma_p)

    def reset(self) -> None:
        pass

    def level_for_buffer(self, buffer_s: float) -> int:
        buffer_chunks = buffer_s / (CHUNK_DURATION_MS / 1000.0)
        scores = (self.V * (self._utilities + self.gamma_p) - buffer_chunks) / _BITRATES
        return int(np.argmax(scores))

    def act(self, obs: np.ndarray) -> int:
        return self.level_for_buffer(float(obs[_BUFFER]))
