"""Where the real case-study data lives, and the small datasets the demo embeds.

The project never ships third-party data: callers pass a data directory, or set
``PRIMO_DATA_DIR``; otherwise ``../shared/data`` next to the project root (or the
current directory) is used when it exists.
"""
from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "PRIMO_DATA_DIR"


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """Return the directory holding the case-study datasets.

    Parameters
    ----------
    data_dir : path, optional
        Explicit directory. When omitted, ``$PRIMO_DATA_DIR`` is used, then
        ``../shared/data`` relative to the project root or the working directory.

    Raises
    ------
    FileNotFoundError
        If no candidate exists; the message lists every place that was tried.

    Example
    -------
    >>> resolve_data_dir("../shared/data")  # doctest: +SKIP
    PosixPath('../shared/data')
    """
    if data_dir is not None:
        candidates = [Path(data_dir)]
    elif os.environ.get(DATA_DIR_ENV):
        candidates = [Path(os.environ[DATA_DIR_ENV])]
    else:
        project_root = Path(__file__).resolve().parent.parent
        candidates = [project_root.parent / "shared" / "data", Path.cwd().parent / "shared" / "data"]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    tried = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(
        f"data directory not found (tried: {tried}); pass --data-dir or set {DATA_DIR_ENV}"
    )
