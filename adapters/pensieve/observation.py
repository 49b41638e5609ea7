"""Interpretable, named observation vector from which the actor's 6x8 state is rebuilt exactly.

The actor sees normalized histories; a student model (a tree) should see the same information in
physical units. The observation holds, with ``lagK`` meaning "K chunks before the last one"
(``lag0`` is the chunk just downloaded) and zeros for chunks before the video started:

===============================  =====  =====================================================
feature                          count  meaning
===============================  =====  =====================================================
last_bitrate_kbps                1      bitrate of the chunk just downloaded
buffer_s                         1      buffer after that chunk (s)
throughput_MBps_lag0..7          8      chunk bytes / delay ms / 1000 of the last 8 chunks
download_time_s_lag0..7          8      delay (ms, RTT included) / 1000 of the last 8 chunks
next_size_MB_<kbps>kbps          6      size of the next chunk at each level (bytes/1000/1000)
chunks_left                      1      chunks still to download (47 after the first chunk)
bitrate_kbps_lag1..7             7      older bitrates (state row 0)
buffer_s_lag1..7                 7      older buffer levels (state row 1)
next_size_MB_300kbps_lag1..2     2      level-0 "next size" one and two steps ago
===============================  =====  =====================================================

The last 16 features exist only so that the state is rebuilt bit for bit: rows 0 and 1 keep 8
steps of history, and the rolled row 4 keeps the two previous level-0 sizes in columns 7 and 6.
The actor reads column 7 (``next_size_MB_300kbps_lag1``); column 6 never reaches its output.
Row 5 (chunks left) is a deterministic countdown and is rebuilt from ``chunks_left`` alone.
"""
from __future__ import annotations

import numpy as np

from adapters.pensieve.state import BUFFER_NORM_S, MAX_BITRATE_KBPS, S_INFO, S_LEN, update_state
from adapters.pensieve.simulator import ChunkOutcome
from adapters.pensieve.video import BITRATES_KBPS, N_CHUNKS, N_LEVELS

_LAGS = range(S_LEN)
FEATURE_NAMES: tuple[str, ...] = (
    "last_bitrate_kbps",
    "buffer_s",
    *(f"throughput_MBps_lag{k}" for k in _LAGS),
    *(f"download_time_s_lag{k}" for k in _LAGS),
    *(f"next_size_MB_{kbps}kbps" for kbps in BITRATES_KBPS),
    "chunks_left",
    *(f"bitrate_kbps_lag{k}" for k in range(1, S_LEN)),
    *(f"buffer_s_lag{k}" for k in range(1, S_LEN)),
    "next_size_MB_300kbps_lag1",
    "next_size_MB_300kbps_lag2",
)
N_FEATURES = len(FEATURE_NAMES)
FEATURE_INDEX = {name: i for i, name in enumerate(FEATURE_NAMES)}



def _indices(names) -> np.ndarray:
    return np.array([FEATURE_INDEX[name] for name in names])


# Column groups, newest first (lag 0, 1, ...).
BITRATE_LAGS = _indices(["last_bitrate_kbps"] + [f"bitrate_kbps_lag{k}" for k in range(1, S_LEN)])
BUFFER_LAGS = _indices(["buffer_s"] + [f"buffer_s_lag{k}" for k in range(1, S_LEN)])
THROUGHPUT_LAGS = _indices(f"throughput_MBps_lag{k}" for k in _LAGS)
DOWNLOAD_TIME_LAGS = _indices(f"download_time_s_lag{k}" for k in _LAGS)
NEXT_SIZES = _indices(f"next_size_MB_{kbps}kbps" for kbps in BITRATES_KBPS)
CHUNKS_LEFT = FEATURE_INDEX["chunks_left"]
LEVEL0_SIZE_LAGS = _indices(["next_size_MB_300kbps_lag1", "next_size_MB_300kbps_lag2"])


class ObservationHistory:
    """Keeps the chunk history of one video and renders it as the observation vector.

    It also maintains the actor's 6x8 state with :func:`adapters.pensieve.state.update_state`,
    independently of the observation, so that the two can be checked against each other.

    Example
    -------
    >>> history = ObservationHistory()
    >>> history.obs.shape
    (41,)
    """

    def __init__(self):
        self.obs = np.zeros(N_FEATURES)
        self.state = np.zeros((S_INFO, S_LEN))

    def push(self, outcome: ChunkOutcome) -> np.ndarray:
        """Record one downloaded chunk and return (a copy of) the new observation."""
        obs = self.obs
        for lags in (BITRATE_LAGS, BUFFER_LAGS, THROUGHPUT_LAGS, DOWNLOAD_TIME_LAGS):
            obs[lags[1:]] = obs[lags[:-1]]  # shift the history one step older
        obs[LEVEL0_SIZE_LAGS[1]] = obs[LEVEL0_SIZE_LAGS[0]]
        obs[LEVEL0_SIZE_LAGS[0]] = obs[NEXT_SIZES[0]]
        obs[BITRATE_LAGS[0]] = outcome.bitrate_kbps
        obs[BUFFER_LAGS[0]] = outcome.buffer_s
        # Same expressions as the state update, so the state is rebuilt without rounding drift.
        obs[THROUGHPUT_LAGS[0]] = float(outcome.chunk_bytes) / float(outcome.delay_ms) / 1000.0
        obs[DOWNLOAD_TIME_LAGS[0]] = float(outcome.delay_ms) / 1000.0
        obs[NEXT_SIZES] = np.asarray(outcome.next_chunk_bytes, dtype=float) / 1000.0 / 1000.0
        obs[CHUNKS_LEFT] = outcome.chunks_left
        self.state = update_state(
            self.state, outcome.bitrate_kbps, outcome.buffer_s, outcome.chunk_bytes,
            outcome.delay_ms, outcome.next_chunk_bytes, outcome.chunks_left,
        )
        return obs.copy()


def states_from_observations(obs: np.ndarray) -> np.ndarray:
    """Rebuild the actor's 6x8 states from observation vectors, bit for bit.

    Parameters
    ----------
    obs : array-like, shape (n, 41) or (41,)

    Returns
    -------
    ndarray, shape (n, 6, 8) (or (6, 8) for one observation)

    Example
    -------
    >>> states_from_observations(np.zeros(N_FEATURES)).shape
    (6, 8)
    """
    obs = np.asarray(obs, dtype=float)
    single = obs.ndim == 1
    if single:
        obs = obs[None]
    if obs.ndim != 2 or obs.shape[1] != N_FEATURES:
        raise ValueError(f"observations must have shape (n, {N_FEATURES}), got {obs.shape}")
    oldest_first = slice(None, None, -1)
    states = np.zeros((len(obs), S_INFO, S_LEN))
    states[:, 0] = obs[:, BITRATE_LAGS[oldest_first]] / MAX_BITRATE_KBPS
    states[:, 1] = obs[:, BUFFER_LAGS[oldest_first]] / BUFFER_NORM_S
    states[:, 2] = obs[:, THROUGHPUT_LAGS[oldest_first]]
    states[:, 3] = obs[:, DOWNLOAD_TIME_LAGS[oldest_first]] / BUFFER_NORM_S
    states[:, 4, :N_LEVELS] = obs[:, NEXT_SIZES]
    states[:, 4, N_LEVELS:] = obs[:, LEVEL0_SIZE_LAGS[oldest_first]]
    # Row 5 counts down by one per chunk; steps before the video started are zero.
    chunks_left = obs[:, CHUNKS_LEFT, None] + np.arange(S_LEN)[oldest_first]
    states[:, 5] = np.where(chunks_left <= N_CHUNKS - 1, np.minimum(chunks_left, N_CHUNKS) / float(N_CHUNKS), 0.0)
    return states[0] if single else states
