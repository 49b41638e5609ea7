"""Text, pandas category, bool and NaN columns through every export, both families (issue 16, item 4).

Rows hold known and unseen cities, missing cities and missing distances; every export must give what
the Python model gives on the DataFrame (unseen category: missing for PrDT, the unseen bin for PrAM).
"""
import json
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import primo
from primo import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.export import compile_python, encode_categories, model_tables, to_c, to_js, to_json, to_lua, to_onnx
from primo.export.tables import TreeTables
from primo.io import model_from_document
from primo.export.runtimes import JS_RUNNER, c_outputs, js_outputs, lua_outputs, onnx_outputs
from tests.primo.tables_any import housing, housing_with_unseen

TOLERANCE = 1e-9
PRAM = dict(max_rounds=200, outer_bags=1, interactions=2, n_jobs=1, random_state=0)


@pytest.fixture(scope="module")
def check_rows():
    X = housing_with_unseen(n=200)
    X["city"] = X["city"].astype("str")
    return X


def _without_city_terms(model):
    """A PrAM no term of which reads the text column (as ``max_terms`` can leave one): still an input of every export."""
    model.ebm_.remove_terms([name for name in model.term_names_ if "city" in name])
    return model


@pytest.fixture(scope="module", params=["prdt_regressor", "prdt_classifier", "pram_regressor", "pram_classifier",
                                        "pram_without_city_terms"])
def case(request, check_rows):
    X, y = housing()
    expensive = np.where(y > 350, "high", np.where(y > 250, "mid", "low"))  # multiclass for PrDT
    model = {
        "prdt_regressor": lambda: PrDTRegressor(ccp_alpha=50.0).fit(X, y),
        "prdt_classifier": lambda: PrDTClassifier(ccp_alpha=0.002).fit(X, expensive),
        "pram_regressor": lambda: PrAMRegressor(**PRAM).fit(X, y),
        "pram_classifier": lambda: PrAMClassifier(**PRAM).fit(X, np.where(y > 300, "high", "low")),
        "pram_without_city_terms": lambda: _without_city_terms(PrAMRegressor(**PRAM).fit(X, y)),
    }[request.param]()
    tables = model_tables(model)
    rows = encode_categories(tables, check_rows)
    return request.param, model, tables, rows, model.predict(check_rows)


def _scores(model, tables, X):
    if isinstance(tables, TreeTables):
        return model.predict_proba(X) if tables.is_classifier else model.predict(X)
    return model.decision_function(X) if tables.is_classifier else model.predict(X)


def test_unseen_category_rule_per_family(case, check_rows):
    name, model, tables, rows, _ = case
    city = tables.feature_names.index("city")
    unseen = (check_rows["city"] == "Oslo").to_numpy()
    expected = np.nan if name.startswith("prdt") else -1.0
    np.testing.assert_array_equal(rows[unseen, city], np.full(unseen.sum(), expected))
    assert np.isnan(rows[check_rows["city"].isna().to_numpy(), city]).all()
    assert sorted(tables.vocabularies[city]) == sorted(["Paris", "Lyon", "Nice", "Lille", "Brest"])


def test_tables_and_compiled_python(case):
    _, model, tables, rows, expected = case
    np.testing.assert_array_equal(tables.predict(rows), expected)
    predict_one = compile_python(model)
    assert [predict_one(list(row)) for row in rows] == list(expected)


def test_c_header_lists_codes_and_matches(case, tmp_path, check_rows):
    name, model, tables, rows, expected = case
    header = to_c(model, name="house")
    city = tables.feature_names.index("city")
    codes = ", ".join(f'{code}="{key}"' for code, key in enumerate(tables.vocabularies[city]))
    assert f"x[{city}] city, categorical codes: {codes}; unseen category: " in header
    assert ("NAN (missing)" if name.startswith("prdt") else "unseen category: -1") in header
    out = c_outputs(header, tables, rows, tmp_path, name="house")
    if isinstance(tables, TreeTables):
        np.testing.assert_array_equal(out[:, 0], tables.leaf_index[model.apply(check_rows)])
        got = tables.classes[out[:, 1].astype(int)] if tables.is_classifier else out[:, 1]
        np.testing.assert_array_equal(got, expected)
    else:
        scores = np.asarray(_scores(model, tables, check_rows)).reshape(len(rows), -1)
        np.testing.assert_allclose(out[:, :scores.shape[1]], scores, rtol=0, atol=TOLERANCE)


def test_onnx_matches_and_carries_the_vocabulary(case, check_rows):
    name, model, tables, rows, expected = case
    proto = to_onnx(model)
    props = {p.key: p.value for p in proto.metadata_props}
    assert json.loads(props["primo.vocabularies"])["city"] == tables.vocabularies[tables.feature_names.index("city")]
    assert props["primo.unseen_category"] == ("NaN" if name.startswith("prdt") else "-1")
    out = onnx_outputs(proto, rows)
    if tables.is_classifier:
        np.testing.assert_array_equal(out["label"].astype(expected.dtype), expected)
        np.testing.assert_allclose(out["probabilities"], model.predict_proba(check_rows), rtol=0, atol=TOLERANCE)
    else:
        np.testing.assert_allclose(out["prediction"], expected, rtol=0, atol=TOLERANCE)


def test_javascript_takes_codes_or_strings(case, tmp_path, check_rows):
    _, model, tables, rows, expected = case
    source = to_js(model)
    coded = js_outputs(source, rows, tmp_path)
    # The same rows as the user has them: strings (unseen ones too), booleans, null for missing.
    plain = [[None if (isinstance(v, float) and np.isnan(v)) or v is pd.NA else (v.item() if hasattr(v, "item") else v)
              for v in row] for row in check_rows.astype(object).itertuples(index=False)]
    (tmp_path / "rows_text.json").write_text(json.dumps(plain))
    (tmp_path / "runner.mjs").write_text(JS_RUNNER)
    result = subprocess.run(["node", str(tmp_path / "runner.mjs"), str(tmp_path / "model.mjs"),
                             str(tmp_path / "rows_text.json")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    texts = json.loads(result.stdout)
    for got in (list(coded["predict"]), [o["predict"] for o in texts]):
        if tables.is_classifier:
            assert [type(expected[0].item())(g) for g in got] == list(expected)
        else:
            np.testing.assert_allclose(np.asarray(got, dtype=float), expected, rtol=0, atol=TOLERANCE)


@pytest.mark.skipif(shutil.which("lua5.1") is None, reason="the lua5.1 interpreter is not installed")
def test_lua_takes_codes_or_strings(case, tmp_path, check_rows):
    """Slurm's job_submit.lua passes ids as strings: known, unseen and missing ones, both families."""
    _, model, tables, rows, expected = case
    source = to_lua(model)
    plain = [[float("nan") if (isinstance(v, float) and np.isnan(v)) or v is None or v is pd.NA
              else v if isinstance(v, str) else float(v) for v in row]
             for row in check_rows.astype(object).itertuples(index=False)]
    assert any(isinstance(v, str) for row in plain for v in row)
    for given in (rows.tolist(), plain):
        got = [o[0] for o in lua_outputs(source, given, tmp_path)]
        if tables.is_classifier:
            assert got == [str(e) for e in expected]
        else:
            np.testing.assert_allclose(np.asarray(got, dtype=float), expected, rtol=0, atol=1e-6)


def test_json_and_model_file_round_trip(case, tmp_path, check_rows):
    _, model, _, _, expected = case
    rebuilt = model_from_document(json.loads(to_json(model)))
    np.testing.assert_array_equal(rebuilt.predict(check_rows), expected)
    model.save(tmp_path / "house.primo")
    np.testing.assert_array_equal(primo.load(tmp_path / "house.primo").predict(check_rows), expected)


def test_integer_c_keeps_categories_and_missing_exact(case, tmp_path, check_rows):
    from primo.export.quantize import quantize

    name, model, tables, rows, _ = case
    integer = quantize(tables)
    city = tables.feature_names.index("city")
    assert integer.feature_scales[city] == 1  # codes are integers: no scaling, no rounding
    header = to_c(model, name="house_int", integer=True, check_data=check_rows)
    report = integer.compare(rows)
    assert report.n_different_predictions == 0
    out = c_outputs(header, tables, integer.scale_inputs(rows), tmp_path, name="house_int", integer=True)
    if isinstance(tables, TreeTables):
        np.testing.assert_array_equal(out[:, 0], tables.leaf_index[model.apply(check_rows)])
        assert "unseen category: HOUSE_INT_MISSING (missing)" in header
    else:
        np.testing.assert_array_equal(out[:, 0], integer.decision_function(integer.scale_inputs(rows))[:, 0])
