"""The scripts under benchmarks/ (not a package), imported for their tests."""
import importlib
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def import_scripts(*names: str, also_on_path: tuple[Path, ...] = ()) -> list:
    """The named scripts as modules; benchmarks/ (and ``also_on_path``) are on sys.path only while they import."""
    with pytest.MonkeyPatch.context() as patch:
        for path in (BENCHMARKS, *also_on_path):
            patch.syspath_prepend(str(path))
        return [importlib.import_module(name) for name in names]
