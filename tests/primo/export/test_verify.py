"""``primo export --verify``: the written file, run in its runtime, against the model on the user's rows."""
import re

import numpy as np
import pandas as pd
import pytest

import primo
from primo import PrAMRegressor, PrDTClassifier
from primo.cli import main
from primo.export import encode_categories, export_model, integer_c, model_tables, quantize
from primo.export.runtimes import ExportRuntimeError, differing_rows, verify_export
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


def test_arrow_table_is_encoded_checked_and_verified_by_column_name(tmp_path):
    """A pyarrow Table (columns in another order than the model's; text, missing and unseen categories)
    is encoded, checked in integer mode and verified as its pandas frame; before, encode_categories read
    it as an array, by position ('feature ... must be numeric')."""
    pa = pytest.importorskip("pyarrow")
    X, price = housing(n=300)
    model = PrDTClassifier(max_depth=6, random_state=0).fit(X, price > price.median())
    rows = housing_with_unseen(n=120)
    rows = rows[rows.columns[::-1]]
    table = pa.Table.from_pandas(rows, preserve_index=False)
    np.testing.assert_array_equal(encode_categories(model_tables(model), table),
                                  encode_categories(model_tables(model), rows))
    assert integer_c(model, check_data=table).report == integer_c(model, check_data=rows).report
    check = verify_export(model, "json", export_model(model, "json", tmp_path / "m.json"), table)
    assert check.ok and check.n_rows == 120


@pytest.mark.parametrize("family", [PrDTClassifier, PrAMRegressor])
def test_encode_categories_refuses_other_column_names_of_the_same_width(family, tmp_path):
    """Columns under other names are not the model's features, even when their count matches: the error names
    the missing features and the unknown columns (before, they were read by position, silently). Rows without
    names, and any table for a model fit on an array (saved or not), are read by position."""
    from primo.errors import ColumnMismatchError
    from primo.export.saved import read_predictor

    X, price = housing(n=300)
    X = X[["rooms", "dist_center_km"]]
    y = price > price.median() if family is PrDTClassifier else price
    params = {"max_rounds": 50, "outer_bags": 1, "n_jobs": 1} if family is PrAMRegressor else {"random_state": 0}
    tables = model_tables(family(**params).fit(X, y))
    np.testing.assert_array_equal(encode_categories(tables, X[["dist_center_km", "rooms"]]), X.to_numpy())  # by name
    renamed = X.rename(columns={"rooms": "n_rooms"})
    with pytest.raises(ColumnMismatchError, match=r"lacks the model's features \['rooms'\]; columns it does not "
                                                  r"know: \['n_rooms'\]") as error:
        encode_categories(tables, renamed)
    assert error.value.column == "rooms"
    if family is PrDTClassifier:
        with pytest.raises(ColumnMismatchError, match="n_rooms"):
            integer_c(family(**params).fit(X, y), check_data=renamed)
    np.testing.assert_array_equal(encode_categories(tables, X.to_numpy()), X.to_numpy())  # no names: by position
    unnamed = family(**params).fit(X.to_numpy(), y)
    np.testing.assert_array_equal(encode_categories(model_tables(unnamed), renamed), X.to_numpy())
    saved = read_predictor(unnamed.save(tmp_path / "unnamed.primo"))
    with pytest.warns(UserWarning, match="X has feature names, but .* was fitted without feature names"):
        np.testing.assert_array_equal(saved.predict(renamed), unnamed.predict(X.to_numpy()))  # a table on purpose


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


def test_integer_c_is_verified_on_real_rows_scaled_as_its_header_says(clara_model, capsys):
    arguments = ["export", str(clara_model / "clara.primo"), "--out", str(clara_model / "i.h"), "--integer",
                 "--verify", str(clara_model / "test.csv")]
    assert main(arguments) == 0
    assert re.search(r"verified i\.h with gcc on \d+ rows .*: all \d+ predictions equal", capsys.readouterr().out)
    # Clara's features are fractions: scale 1 rounds them to 0 or 1, and the verification says so.
    assert main(arguments + ["--scale", "1"]) == 1
    assert re.search(r"\d+ of \d+ predictions differ from the model's", capsys.readouterr().out)


def test_integer_c_verifies_categories_missing_and_unseen_values_and_catches_tampering(tmp_path):
    X, price = housing(n=300)
    rows = housing_with_unseen(n=120)
    for model in (PrDTClassifier(max_depth=6, random_state=0).fit(X, price > price.median()),
                  PrAMRegressor(max_rounds=60, outer_bags=1, n_jobs=1, random_state=0).fit(X, price)):
        integer = quantize(model_tables(model))
        path = export_model(model, "c", tmp_path / "m.h", name="m", integer=True)
        check = verify_export(model, "c", path, rows, name="m", integer=integer)
        assert check.ok and check.n_rows == 120, (type(model).__name__, check.summary())
    # One fixed-point score of the PrAM, moved by 0.01 in target units.
    source = path.read_text()
    entry = re.search(r"_term\d+\[\d+\] = \{[^}]*?(-?\d{5,})", source)
    path.write_text(source[:entry.start(1)] + str(int(entry.group(1)) + 10_000) + source[entry.end(1):])
    assert not verify_export(model, "c", path, rows, name="m", integer=integer).ok
    with pytest.raises(ExportRuntimeError, match="score scale is 1000000, not 1000"):
        verify_export(model, "c", path, rows, name="m", integer=quantize(model_tables(model), score_scale=1000))
    float_header = export_model(model, "c", tmp_path / "f.h", name="f")
    with pytest.raises(ExportRuntimeError, match="not an integer-mode export"):
        verify_export(model, "c", float_header, rows, name="f", integer=integer)


def test_labels_compare_as_numbers_or_text_and_values_within_tolerance():
    assert differing_rows(["1", "true", "Paris"], [1.0, True, "paris"], classifier=True)[0].size == 0
    assert list(differing_rows(["0", "a"], [1, "a"], classifier=True)[0]) == [0]
    wrong, largest = differing_rows([1.0, float("nan"), 1e12 + 1e-3], [1.0 + 1e-12, float("nan"), 1e12],
                                    classifier=False)
    assert wrong.size == 0 and largest == pytest.approx(1e-3, rel=0.1)  # 1e12 + 1e-3 rounds
    wrong, largest = differing_rows([1.0, 2.0], [1.0, 2.1], classifier=False)
    assert list(wrong) == [1] and largest == pytest.approx(0.1)


@pytest.mark.parametrize("family", ["PrDTClassifier", "PrAMRegressor"])
def test_verify_warns_about_the_rows_names_once_per_call(family, tmp_path):
    """An array for a model fit on a DataFrame (or the reverse) gets scikit-learn's warning once per verify_export;
    before, the JSON export read back as the same model warned a second time. Every format verifies; rows as the
    model was fit give no warning."""
    import warnings

    family = getattr(primo, family)
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=80), "b": rng.normal(size=80)})
    y = X["a"] + X["b"]
    y = (y > 0).astype(int) if family.__name__.endswith("Classifier") else y
    params = dict(max_depth=3, random_state=0) if family.__name__.startswith("PrDT") else dict(
        max_rounds=30, outer_bags=1, n_jobs=1, random_state=0)
    named, unnamed = family(**params).fit(X, y), family(**params).fit(X.to_numpy(), y)
    without = f"X does not have valid feature names, but {family.__name__} was fitted with feature names"
    with_names = f"X has feature names, but {family.__name__} was fitted without feature names"
    for fmt in ("json", "onnx"):
        for label, model, rows, message in [("named", named, X.to_numpy(), without), ("unnamed", unnamed, X, with_names)]:
            path = export_model(model, fmt, tmp_path / f"{label}.{SUFFIXES[fmt]}")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                assert verify_export(model, fmt, path, rows).ok
            assert [str(w.message) for w in caught] == [message]
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                assert verify_export(model, fmt, path, X if model is named else X.to_numpy()).ok
