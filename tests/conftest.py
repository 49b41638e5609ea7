"""Shared fixtures: the real data directory (../shared/data or $PRIMO_DATA_DIR)."""
from pathlib import Path

import pytest

from primo.datasets import resolve_data_dir


@pytest.fixture(scope="session")
def data_dir() -> Path:
    # No skip when the data is missing: the tests are meant to run on the real data.
    return resolve_data_dir()
