"""Model files: exact round trips, atomic writes, clear errors on files that are not Primo models."""
import json
import zipfile

import numpy as np
import pytest

import primo
from primo import ModelFileError, PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.io import FORMAT_VERSION
from tests.primo.helpers import clara_ms, linnos_reads

FAST_PRAM = dict(max_rounds=300, outer_bags=2, n_jobs=1)


def _fitted_models(data_dir):
    X, y, X_test, _ = clara_ms(data_dir)
    Xc, yc = linnos_reads(data_dir, n=2000)
    labels = np.array(["fast", "slow"])[yc]
    return [
        (PrDTRegressor(ccp_alpha=0.2).fit(X, y), X_test),
        (PrDTClassifier(ccp_alpha=1e-3, class_weight={"fast": 1, "slow": 3}).fit(Xc, labels), Xc),
        (PrDTClassifier(ccp_alpha=1e-3).fit(Xc.to_numpy(), yc), Xc.to_numpy()),
        (PrAMRegressor(interactions=3, **FAST_PRAM).fit(X, y), X_test),
        (PrAMClassifier(interactions=2, **FAST_PRAM).fit(Xc, labels), Xc),
        (PrAMClassifier(interactions=0, **FAST_PRAM).fit(Xc.to_numpy()[:, :3], yc), Xc.to_numpy()[:, :3]),
    ]


def test_round_trip_is_exact_for_every_estimator(data_dir, tmp_path):
    for number, (model, X_eval) in enumerate(_fitted_models(data_dir)):
        model.metadata_["note"] = {"why": "round trip", "values": [1.5, float("nan")]}
        path = model.save(tmp_path / f"m{number}.primo")
        loaded = primo.load(path)
        assert type(loaded) is type(model)
        assert loaded.get_params() == model.get_params()
        np.testing.assert_array_equal(loaded.predict(X_eval), model.predict(X_eval))
        if hasattr(model, "predict_proba"):
            np.testing.assert_array_equal(loaded.predict_proba(X_eval), model.predict_proba(X_eval))
        assert loaded.complexity_ == model.complexity_
        assert str(loaded) == str(model)
        assert loaded.metadata_["note"]["why"] == "round trip"
        assert np.isnan(loaded.metadata_["note"]["values"][1])


def test_file_contains_json_metadata_and_no_pickle(data_dir, tmp_path):
    model, _ = _fitted_models(data_dir)[0]
    path = model.save(tmp_path / "tree.primo")
    with zipfile.ZipFile(path) as archive:
        document = json.loads(archive.read("primo.json"))
        assert all(n == "primo.json" or n.startswith("arrays/") for n in archive.namelist())
    assert document["format"] == "primo-model" and document["format_version"] == FORMAT_VERSION
    assert document["model_class"] == "PrDTRegressor"


def test_not_a_model_truncated_and_newer_version_are_clear_errors(data_dir, tmp_path):
    model, _ = _fitted_models(data_dir)[0]
    good = model.save(tmp_path / "good.primo").read_bytes()

    text = tmp_path / "notes.primo"
    text.write_text("hello")
    with pytest.raises(ModelFileError, match="not a Primo model"):
        primo.load(text)

    truncated = tmp_path / "truncated.primo"
    truncated.write_bytes(good[: len(good) // 2])
    with pytest.raises(ModelFileError, match="truncated|damaged"):
        primo.load(truncated)

    other_zip = tmp_path / "other.primo"
    with zipfile.ZipFile(other_zip, "w") as archive:
        archive.writestr("readme.txt", "not a model")
    with pytest.raises(ModelFileError, match="not a Primo model"):
        primo.load(other_zip)

    newer = tmp_path / "newer.primo"
    with zipfile.ZipFile(tmp_path / "good.primo") as src, zipfile.ZipFile(newer, "w") as dst:
        for name in src.namelist():
            payload = src.read(name)
            if name == "primo.json":
                document = json.loads(payload)
                document["format_version"] = FORMAT_VERSION + 1
                payload = json.dumps(document)
            dst.writestr(name, payload)
    with pytest.raises(ModelFileError, match="newer"):
        primo.load(newer)

    with pytest.raises(FileNotFoundError):
        primo.load(tmp_path / "missing.primo")


def test_failed_save_leaves_existing_file_untouched(data_dir, tmp_path, monkeypatch):
    model, _ = _fitted_models(data_dir)[0]
    path = model.save(tmp_path / "model.primo")
    before = path.read_bytes()

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr("primo.io.os.replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        PrDTRegressor(ccp_alpha=5.0).fit(*clara_ms(data_dir)[:2]).save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.primo"]  # no temporary file left behind


def test_unfitted_model_cannot_be_saved(tmp_path):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        PrDTRegressor().save(tmp_path / "x.primo")


def test_committed_case_study_models_pass_the_loader_checks():
    """Files saved before the loader validated anything (reports/) still load: the checks accept
    every model Primo writes."""
    from pathlib import Path

    paths = sorted((Path(__file__).resolve().parents[2] / "reports").rglob("*.primo"))
    assert len(paths) >= 10
    for path in paths:
        assert primo.load(path).n_features_in_ >= 1
