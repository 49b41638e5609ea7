"""The test video of Pensieve: 6 bitrate levels, 48 chunks of 4 s (the files hold one spare 49th chunk)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from primo.datasets import resolve_data_dir

BITRATES_KBPS = (300, 750, 1200, 1850, 2850, 4300)
N_LEVELS = len(BITRATES_KBPS)
N_CHUNKS = 48
CHUNK_DURATION_MS = 4000.0
DEFAULT_LEVEL = 1  # the first chunk of every video is fetched at 750 kbps


@dataclass(frozen=True)
class Video:
    """Chunk sizes of one video.

    Attributes
    ----------
    chunk_bytes : ndarray of int, shape (6, n_files_chunks)
        ``chunk_bytes[level, i]`` is the size of chunk ``i`` at ``BITRATES_KBPS[level]``. The
        files have 49 rows; only the first :data:`N_CHUNKS` are played, but robustMPC's
        look-ahead reads the 49th.
    """

    chunk_bytes: np.ndarray

    @property
    def n_chunks(self) -> int:
        """Chunks played per video (48)."""
        return N_CHUNKS

    def next_sizes(self, chunk_index: int) -> np.ndarray:
        """Sizes in bytes of chunk ``chunk_index`` at the 6 levels."""
        return self.chunk_bytes[:, chunk_index]


def load_video(data_dir: str | os.PathLike | None = None) -> Video:
    """Read ``<data_dir>/pensieve/video_sizes/video_size_{0..5}``.

    Raises
    ------
    FileNotFoundError
        If a level file is missing.
    ValueError
        If a file holds something other than one positive integer per line, fewer than
        49 chunks, or the levels disagree on the number of chunks.

    Example
    -------
    >>> video = load_video()  # doctest: +SKIP
    >>> video.chunk_bytes.shape  # doctest: +SKIP
    (6, 49)
    """
    directory = resolve_data_dir(data_dir) / "pensieve" / "video_sizes"
    levels = [_read_sizes(directory / f"video_size_{level}") for level in range(N_LEVELS)]
    lengths = {len(sizes) for sizes in levels}
    if len(lengths) != 1:
        raise ValueError(f"video size files in {directory} have different lengths: {sorted(lengths)}")
    if lengths.pop() < N_CHUNKS + 1:
        raise ValueError(f"video size files in {directory} need {N_CHUNKS + 1} chunks")
    return Video(np.array(levels, dtype=np.int64))


def _read_sizes(path: Path) -> list[int]:
    if not path.is_file():
        raise FileNotFoundError(f"video size file not found: {path}")
    sizes = []
    for line_number, line in enumerate(path.read_text(encoding="ascii").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            size = int(line)
        except ValueError:
            raise ValueError(f"{path}:{line_number}: expected a chunk size in bytes, got {line!r}") from None
        if size <= 0:
            raise ValueError(f"{path}:{line_number}: chunk size must be positive, got {size}")
        sizes.append(size)
    return sizes
