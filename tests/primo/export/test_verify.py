"""``primo export --verify``: the written file, run in its runtime, against the model on the user's rows."""
import re

import pandas as pd
import pytest

import primo
from primo import PrAMRegressor, PrDTClassifier
from primo.cli import main
from primo.export import export_model
from primo.export.runtimes import differing_rows, verify_export
from tests.primo.helpers import clara_ms
from tests.primo.tables_any import housing, housing_with_unseen

SUFFIXES = {"c": "h", "js": "mjs", "lua": "lua", "onnx": "onnx", "json": "json"}


@pytest.fixture(scope="module")
def clara_model(data_dir, tmp_path_factory):
    X, y, X_test, y_test = clara_ms(data_dir)
    directory = tmp_path_factory.mktemp("verify")
    PrAMRegressor(max_rounds=100, outer_bags=1, n_jobs=1).fit(X, y).save(directory / "clara.primo")
    X_test.assign(cores=y_test).to_csv(directory / "test.csv", index=False)
    return directory


@pytest.mark.parametrize("fmt", list(SUFFIXES))
def test_every_format_is_verified_on_real_rows(clara_model, fmt, capsys):
    out = clara_model / f"m_{fmt}.{SUFFIXES[fmt]}"
    assert main(["export", str(clara_model / "clara.primo"), "--out", str(out), "--verify",
                 str(clara_model / "test.csv")]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"verified m_\w+\.\w+ with \S+ on \d+ rows of .*: all \d+ predictions equal the model's", printed)


def test_text_categories_missing_and_unseen_values_verify_in_every_runtime(tmp_path):
    X, price = housing(n=300)
    model = PrDTClassifier(max_depth=6, random_state=0).fit(X, price > price.median())
    rows = housing_with_unseen(n=120)
    for fmt in SUFFIXES:
        path = export_model(model, fmt, tmp_path / f"m.{SUFFIXES[fmt]}", **({"name": "m"} if fmt in ("c", "onnx") else {}))
        check = verify_export(model, fmt, path, rows, name="m")
        assert check.ok and check.n_rows == 120, (fmt, check.summary())


def test_a_tampered_export_is_caught(clara_model):
    out = clara_model / "tampered.mjs"
    assert main(["export", str(clara_model / "clara.primo"), "--out", str(out)]) == 0
    source = out.read_text()
    numbers = re.findall(r"-?\d+\.\d{6,}", source)
    out.write_text(source.replace(numbers[len(numbers) // 2], "1000.0"))  # one score of one bin
    check = verify_export(primo.load(clara_model / "clara.primo"), "js", out,
                          pd.read_csv(clara_model / "test.csv").drop(columns="cores"))
    assert not check.ok and check.max_abs_difference > 100 and check.first_differing_row is not None
    assert "differ from the model's" in check.summary()


def test_a_missing_runtime_is_named_and_the_export_kept(clara_model, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(clara_model))  # no node here
    out = clara_model / "no_node.mjs"
    assert main(["export", str(clara_model / "clara.primo"), "--out", str(out), "--verify",
                 str(clara_model / "test.csv")]) == 2
    assert "node is not installed" in capsys.readouterr().err and out.exists()


def test_verify_is_for_float_exports(clara_model, capsys):
    assert main(["export", str(clara_model / "clara.primo"), "--out", str(clara_model / "i.h"), "--integer",
                 "--verify", str(clara_model / "test.csv")]) == 2
    assert "--check-data" in capsys.readouterr().err


def test_labels_compare_as_numbers_or_text_and_values_within_tolerance():
    assert differing_rows(["1", "true", "Paris"], [1.0, True, "paris"], classifier=True)[0].size == 0
    assert list(differing_rows(["0", "a"], [1, "a"], classifier=True)[0]) == [0]
    wrong, largest = differing_rows([1.0, float("nan"), 1e12 + 1e-3], [1.0 + 1e-12, float("nan"), 1e12],
                                    classifier=False)
    assert wrong.size == 0 and largest == pytest.approx(1e-3, rel=0.1)  # 1e12 + 1e-3 rounds
    wrong, largest = differing_rows([1.0, 2.0], [1.0, 2.1], classifier=False)
    assert list(wrong) == [1] and largest == pytest.approx(0.1)
