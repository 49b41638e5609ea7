"""The 6x8 state Pensieve's actor reads.

Rows (each a history of the last 8 chunks, oldest first, zeros before the video started):

====  =======================================================================
row   value written for the newest chunk (last column)
====  =======================================================================
0     bitrate kbps / 4300
1     buffer s / 10
2     throughput: chunk bytes / delay ms / 1000 (MB/s)
3     delay ms / 1000 / 10
4     columns 0-5 (not the last column): next chunk sizes of the 6 levels in MB
5     min(chunks left, 48) / 48
====  =======================================================================

Every update first rolls all rows one column left *with wrap-around*, so row 4's columns 6 and 7
keep stale values: column 7 holds the previous step's level-0 next size, column 6 the one before.
The actor reads column 7 (see :mod:`adapters.pensieve.actor`), so the roll is kept exactly.
"""
from __future__ import annotations

import numpy as np

from adapters.pensieve.video import BITRATES_KBPS, N_CHUNKS, N_LEVELS

S_INFO = 6
S_LEN = 8
BUFFER_NORM_S = 10.0
MAX_BITRATE_KBPS = float(max(BITRATES_KBPS))


def initial_state() -> np.ndarray:
    """The all-zero state every video starts from."""
    return np.zeros((S_INFO, S_LEN))


def update_state(
    state: np.ndarray,
    bitrate_kbps: float,
    buffer_s: float,
    chunk_bytes: int,
    delay_ms: float,
    next_chunk_bytes: np.ndarray,
    chunks_left: int,
) -> np.ndarray:
    """Return the state after one more chunk (the input is not modified).

    Parameters
    ----------
    state : ndarray, shape (6, 8)
        State before the chunk.
    bitrate_kbps, buffer_s, chunk_bytes, delay_ms, chunks_left
        What the simulator reported for the chunk (delay includes the RTT).
    next_chunk_bytes : ndarray, shape (6,)
        Sizes in bytes of the next chunk at the 6 levels.

    Example
    -------
    >>> s = update_state(initial_state(), 750, 4.0, 450283, 887.28, np.full(6, 1e6), 47)
    >>> float(s[1, -1])
    0.4
    """
    state = np.roll(np.asarray(state, dtype=float), -1, axis=1)
    state[0, -1] = bitrate_kbps / MAX_BITRATE_KBPS
    state[1, -1] = buffer_s / BUFFER_NORM_S
    state[2, -1] = float(chunk_bytes) / float(delay_ms) / 1000.0
    state[3, -1] = float(delay_ms) / 1000.0 / BUFFER_NORM_S
    state[4, :N_LEVELS] = np.asarray(next_chunk_bytes, dtype=float) / 1000.0 / 1000.0
    state[5, -1] = min(chunks_left, N_CHUNKS) / float(N_CHUNKS)
    return state
