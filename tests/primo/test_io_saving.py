"""Saving is safe under concurrency and permissions (issue 17, item 5): concurrent savers leave one
complete file, a read-only target needs explicit intent, and errors name the target file."""
import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import primo
from primo import ModelFileError, PrDTClassifier, PrDTRegressor
from primo.io import atomic_write_bytes
from tests.primo.model_files import clara_table

REPOSITORY = Path(__file__).resolve().parents[2]
SAVES_PER_WRITER = 40

_WRITER = """
import sys
import primo
model = primo.load(sys.argv[1])
for _ in range(int(sys.argv[3])):
    model.save(sys.argv[2])
"""


@pytest.fixture(scope="module")
def two_models(data_dir):
    X, cores = clara_table(data_dir)
    return PrDTRegressor(ccp_alpha=1.0).fit(X, cores), PrDTClassifier(ccp_alpha=0.01).fit(X, cores > 40)


def test_concurrent_saves_leave_one_complete_file(two_models, tmp_path):
    sources = [model.save(tmp_path / f"source{i}.primo") for i, model in enumerate(two_models)]
    target = tmp_path / "shared" / "model.primo"
    two_models[0].save(target)
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(source), str(target), str(SAVES_PER_WRITER)],
                                cwd=REPOSITORY, stderr=subprocess.PIPE, text=True) for source in sources]
    loads, kinds = 0, set()
    # Read while both writers replace the file: every read sees one whole model, never a torn file.
    while any(writer.poll() is None for writer in writers):
        try:
            kinds.add(type(primo.load(target)).__name__)
        except ModelFileError as exc:  # a torn file would land here
            pytest.fail(f"read a torn model file after {loads} loads: {exc}")
        loads += 1
    for writer in writers:
        assert writer.wait() == 0, writer.stderr.read()
    final = primo.load(target)
    assert type(final).__name__ in {"PrDTRegressor", "PrDTClassifier"}
    assert loads > 0 and kinds <= {"PrDTRegressor", "PrDTClassifier"}
    assert [p.name for p in target.parent.iterdir()] == ["model.primo"]  # no temporary file left behind


def test_read_only_target_needs_explicit_intent(two_models, tmp_path, data_dir):
    regressor, classifier = two_models
    path = regressor.save(tmp_path / "model.primo")
    os.chmod(path, 0o444)
    before = path.read_bytes()
    with pytest.raises(PermissionError, match="read-only; pass overwrite_read_only=True") as caught:
        classifier.save(path)
    assert caught.value.filename == str(path) and caught.value.errno == errno.EACCES
    assert path.read_bytes() == before
    with pytest.raises(PermissionError, match="read-only"):
        atomic_write_bytes(path, b"{}")
    assert path.read_bytes() == before

    classifier.save(path, overwrite_read_only=True)
    assert isinstance(primo.load(path), PrDTClassifier)
    assert stat.S_IMODE(path.stat().st_mode) == 0o444  # the file keeps its mode
    assert [p.name for p in tmp_path.iterdir()] == ["model.primo"]


def test_writable_target_is_replaced_as_before(two_models, tmp_path):
    regressor, classifier = two_models
    path = regressor.save(tmp_path / "model.primo")
    os.chmod(path, 0o640)
    classifier.save(path)
    assert isinstance(primo.load(path), PrDTClassifier)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


@pytest.mark.parametrize("failing, error", [
    ("replace", PermissionError(errno.EACCES, "Permission denied")),
    ("fsync", OSError(errno.ENOSPC, "No space left on device")),
    ("mkstemp", PermissionError(errno.EACCES, "Permission denied")),
])
def test_failed_save_names_the_target_not_the_temporary_file(two_models, tmp_path, monkeypatch, failing, error):
    regressor, _ = two_models
    path = tmp_path / "model.primo"

    def fail(*args, **kwargs):
        # The real error names the temporary file, as the OS would.
        raise type(error)(error.errno, error.strerror, str(tmp_path / ".model.primo.abc123.tmp"))

    monkeypatch.setattr({"replace": "primo.io.os.replace", "fsync": "primo.io.os.fsync",
                         "mkstemp": "primo.io.tempfile.mkstemp"}[failing], fail)
    with pytest.raises(type(error)) as caught:
        regressor.save(path)
    message = str(caught.value)
    assert str(path) in message and ".tmp" not in message and error.strerror in message
    assert caught.value.errno == error.errno
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind, no partial target

