"""The Lua export computes what the Python model computes, run by the ``lua5.1`` interpreter.

Same models and rows as :mod:`tests.primo.export.test_equivalence`: 12,000 real I/Os of a FlashNet
NVMe trace plus rows at, just below and just above every threshold and bin edge, NaN, ±inf and
unseen categories. Labels must be identical and scores within 1e-6.
"""
import shutil

import numpy as np
import pytest

from primo.export import export_model, model_tables, to_lua
from primo.export.tables import TreeTables, encode_categories
from primo.export.runtimes import lua_outputs
from tests.primo.export.runners import decoded_frame, edge_rows

LUA = shutil.which("lua5.1")
pytestmark = pytest.mark.skipif(LUA is None, reason="the lua5.1 interpreter is not installed "
                                                    "(apt-get install lua5.1; .ci/run installs it)")
KINDS = ["prdt_binary", "prdt_multiclass", "prdt_regressor", "pram_binary", "pram_multiclass", "pram_regressor"]
TOLERANCE = 1e-6

@pytest.fixture(scope="module")
def cases(models):
    out = {}
    for name in KINDS:
        model, X_check = models[name]
        tables = model_tables(model)
        real = encode_categories(tables, X_check)
        rows = np.vstack([real, edge_rows(tables, real[:3])])
        X = rows if isinstance(tables, TreeTables) else decoded_frame(tables, rows)
        out[name] = (model, tables, rows, X)
    return out


@pytest.mark.parametrize("name", KINDS)
def test_lua_equals_python(name, cases, tmp_path):
    model, tables, rows, X = cases[name]
    out = lua_outputs(to_lua(model), rows.tolist(), tmp_path)
    assert len(out) == len(rows)
    predict = model.predict(X)
    if tables.is_classifier:
        assert [o[0] for o in out] == [str(p).lower() if isinstance(p, (bool, np.bool_)) else str(p) for p in predict]
        proba = np.array([[float(v) for v in o[-len(tables.classes):]] for o in out])
        np.testing.assert_allclose(proba, model.predict_proba(X), rtol=0, atol=TOLERANCE)
    else:
        np.testing.assert_allclose([float(o[0]) for o in out], predict, rtol=0, atol=TOLERANCE)
    if isinstance(tables, TreeTables):
        assert np.array_equal([int(o[1]) for o in out], tables.leaf_index[model.apply(X)])
    else:
        decision = np.asarray(model.decision_function(X) if tables.is_classifier else predict).reshape(len(rows), -1)
        n = decision.shape[1]
        np.testing.assert_allclose([[float(v) for v in o[1:1 + n]] for o in out], decision, rtol=0, atol=TOLERANCE)


def test_text_categories_may_be_strings(models, tmp_path):
    model, X_check = models["pram_binary"]
    X = X_check.head(200)
    rows = [[v if isinstance(v, str) else float(v) for v in row] for row in X.itertuples(index=False)]
    rows[0][X.columns.get_loc("op")] = "never seen"
    out = lua_outputs(to_lua(model), rows, tmp_path)
    expected = X.copy()
    expected.iloc[0, X.columns.get_loc("op")] = "never seen"
    np.testing.assert_allclose([float(o[1]) for o in out], model.decision_function(expected), rtol=0, atol=TOLERANCE)


def test_hostile_names_are_escaped(linnos, tmp_path):
    """A feature name or category with quotes, newlines, ']]' and non-ASCII cannot break the module."""
    from primo import PrAMRegressor

    X_check = linnos["check"]
    X = X_check.head(600)[["pending", "op"]].rename(columns={"pending": 'p"]]\n--[[x', "op": "é\\op"})
    X["é\\op"] = X["é\\op"].map({"read": 'r"\n]]', "write": "w\x01\u2028"})
    model = PrAMRegressor(max_rounds=30, outer_bags=1, n_jobs=1, interactions=0, random_state=0,
                          feature_types=["continuous", "nominal"]).fit(X, X_check.head(600)["latency"])
    source = to_lua(model)
    rows = [[float(p), op] for p, op in X.itertuples(index=False)]
    out = lua_outputs(source, rows, tmp_path)
    np.testing.assert_allclose([float(o[0]) for o in out], model.predict(X), rtol=0, atol=TOLERANCE)
    names = lua_outputs(source.replace("\nreturn M\n", "\nM.predict = function() return M.feature_names[1] end\n"
                                       "return M\n"), [[0.0, 0.0]], tmp_path)
    assert names[0][0] == 'p"]]\n--[[x'
    # Class labels too: the predicted label is the text itself, tabs, newlines and backslashes included.
    from primo import PrDTClassifier

    labels = np.where(X_check.head(600)["latency"].to_numpy() > X_check.head(600)["latency"].median(),
                      ']]\n--\tos.exit(3) "', "\\\x00[==[")
    tree = PrDTClassifier(max_depth=3, random_state=0).fit(X, labels)
    out = lua_outputs(to_lua(tree), rows, tmp_path)
    assert [o[0] for o in out] == tree.predict(X).tolist() and len(set(o[0] for o in out)) == 2


def test_export_model_and_cli_write_lua(models, tmp_path):
    from primo.cli import main

    model, X_check = models["prdt_regressor"]
    path = export_model(model, "lua", tmp_path / "tree.lua")
    model_path = model.save(tmp_path / "tree.primo")
    assert main(["export", str(model_path), "--out", str(tmp_path / "cli.lua")]) == 0  # format from the suffix
    assert (tmp_path / "cli.lua").read_text() == path.read_text()
    out = lua_outputs(path.read_text(), X_check[:50].tolist(), tmp_path)
    np.testing.assert_allclose([float(o[0]) for o in out], model.predict(X_check[:50]), rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("name", ["prdt_multiclass", "pram_multiclass"])
def test_long_tables_are_built_in_chunks(name, cases, tmp_path, monkeypatch):
    """Tables longer than one chunk (50,000 values in real use) are joined back in order."""
    from primo.export import lua_source

    model, _, rows, _ = cases[name]
    whole = lua_outputs(to_lua(model), rows[:300].tolist(), tmp_path)
    monkeypatch.setattr(lua_source, "_CHUNK", 7)
    source = to_lua(model)
    assert "join({" in source
    assert lua_outputs(source, rows[:300].tolist(), tmp_path) == whole
