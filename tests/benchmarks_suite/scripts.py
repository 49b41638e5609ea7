"""The scripts under benchmarks/ (not a package), imported for their tests."""
import importlib
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def import_scripts(*names: str) -> list:
    """The named scripts as modules; benchmarks/ is on sys.path only while they import."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(BENCHMARKS))
        return [importlib.import_module(name) for name in names]
