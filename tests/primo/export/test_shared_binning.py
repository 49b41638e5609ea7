"""PrAM paths bin each feature once (issue 19): shared binnings, ONNX, tables and source exports on real rows.

interpret cuts a feature differently for main terms and pairs; the batch paths look each feature up
once over the union of its edges and map that bin to every binning. These tests check the maps on
edge values, that the ONNX graph holds one search tree per feature, and that ONNX and the tables
give Python's predictions on Clara-MS, LinnOS and a table with text, category and missing values.
"""
import dataclasses
import warnings

import numpy as np
import onnx
import pandas as pd
import pytest

import primo
from primo.export import compile_python, encode_categories, model_tables, to_c, to_js, to_lua, to_onnx
from primo.export.quantize import quantize
from primo.export.tables import Binning, fold_main_terms, share_binnings
from primo.export.runtimes import c_outputs, js_outputs, onnx_outputs
from tests.primo.tables_any import housing

TOLERANCE = 1e-9


def test_shared_bin_maps_give_each_binnings_own_bin():
    rng = np.random.default_rng(0)
    fine = Binning(feature=0, n_bins=8, cuts=np.array([-1.5, 0.0, 0.25, 1.0, 7.0]))
    coarse = Binning(feature=0, n_bins=5, cuts=np.array([0.0, 0.3]))  # 0.3: an edge only the coarse one has
    categories = Binning(feature=1, n_bins=4, categories=np.array([1.0, 4.0]), category_bins=np.array([2, 1]))
    other = Binning(feature=1, n_bins=3, categories=np.array([4.0]), category_bins=np.array([1]))
    binnings = [fine, coarse, categories, other]
    shared = share_binnings(binnings)
    assert [s.binning.feature for s in shared] == [0, 1]
    edges = np.r_[fine.cuts, coarse.cuts, np.nextafter(fine.cuts, -np.inf), np.nextafter(coarse.cuts, np.inf)]
    values = np.r_[edges, rng.normal(0, 3, 200), np.nan, np.inf, -np.inf]
    labels = np.r_[1.0, 4.0, 2.0, -1.0, np.nan, 0.5]
    for s in shared:
        column = values if s.binning.feature == 0 else labels
        shared_bins = s.binning.lookup(column)
        for b, level_bins in s.level_bins.items():
            np.testing.assert_array_equal(level_bins[shared_bins], binnings[b].lookup(column))


@pytest.fixture(scope="module")
def clara_ms(data_dir):
    train = pd.read_csv(data_dir / "clara" / "ms_train.csv")
    test = pd.read_csv(data_dir / "clara" / "ms_test.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = primo.PrAMRegressor(interactions=4, max_rounds=300, outer_bags=1, n_jobs=1,
                                    random_state=0).fit(train.drop(columns="cores"), train["cores"])
    return model, test.drop(columns="cores")


def _n_trees(proto: onnx.ModelProto) -> int:
    (ensemble,) = [n for n in proto.graph.node if n.op_type == "TreeEnsembleRegressor"]
    return len(set(next(a.ints for a in ensemble.attribute if a.name == "nodes_treeids")))


def test_clara_ms_onnx_and_tables_equal_python_with_one_tree_per_feature(clara_ms):
    model, X_test = clara_ms
    tables = model_tables(model)
    assert any(len(term.binnings) == 2 for term in tables.terms)
    # Pairs use a coarser binning: more binnings than features, yet one search per feature.
    assert len(tables.binnings) > len(tables.shared_binnings)
    proto = to_onnx(model)
    assert _n_trees(proto) == len(tables.shared_binnings)
    rows = X_test.to_numpy(dtype=np.float64)
    expected = model.predict(X_test)
    np.testing.assert_allclose(onnx_outputs(proto, rows)["prediction"], expected, rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(tables.predict(rows), expected, rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("name", ["pram_binary", "pram_multiclass", "pram_regressor"])
def test_linnos_onnx_has_one_tree_per_feature(name, models):
    model, X_check = models[name]
    tables = model_tables(model)
    proto = to_onnx(model)
    assert _n_trees(proto) == len(tables.shared_binnings) <= tables.n_features
    rows = encode_categories(tables, X_check)
    out = onnx_outputs(proto, rows)
    if tables.is_classifier:
        np.testing.assert_array_equal(out["label"], model.predict(X_check))
        np.testing.assert_allclose(out["probabilities"], model.predict_proba(X_check), rtol=0, atol=TOLERANCE)
    else:
        np.testing.assert_allclose(out["prediction"], model.predict(X_check), rtol=0, atol=TOLERANCE)


def test_text_category_and_missing_columns_with_pairs():
    X, y = housing(n=300, seed=2)
    X.loc[::9, "kind"] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = primo.PrAMClassifier(interactions=4, max_rounds=200, outer_bags=1, n_jobs=1,
                                     random_state=0).fit(X, y > 300)
    check, _ = housing(n=150, seed=3)
    check.loc[::5, "city"] = "Oslo"  # unseen
    check.loc[::7, "dist_center_km"] = np.nan
    tables = model_tables(model)
    rows = encode_categories(tables, check)
    out = onnx_outputs(to_onnx(model), rows)
    np.testing.assert_array_equal(out["label"], model.predict(check))
    np.testing.assert_allclose(out["probabilities"], model.predict_proba(check), rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(tables.decision_function(rows)[:, 0], model.decision_function(check), rtol=0,
                               atol=TOLERANCE)


def _n_targets(proto: onnx.ModelProto) -> int:
    (ensemble,) = [n for n in proto.graph.node if n.op_type == "TreeEnsembleRegressor"]
    return next(a.i for a in ensemble.attribute if a.name == "n_targets")


def test_main_terms_ride_in_pair_tables_with_the_same_sums(clara_ms):
    """ONNX folds main terms into pairs (fewer tree outputs and gathers): every row's score sum is kept,
    missing values and values on every cut included, and the graph has one output per remaining term."""
    model, X_test = clara_ms
    tables = model_tables(model)
    binnings, terms = fold_main_terms(tables.binnings, tables.terms)
    pairs = [term for term in tables.terms if len(term.binnings) == 2]
    assert len(terms) == len(tables.terms) - len(pairs)  # here every pair took a main term
    assert all(term.scores.size <= 2 ** 14 for term in terms)
    folded = dataclasses.replace(tables, binnings=binnings, terms=terms)
    rows = X_test.to_numpy(dtype=np.float64)
    on_cuts = [np.resize(np.r_[b.cuts, np.nextafter(b.cuts, -np.inf)], len(rows)) for b in tables.binnings]
    edges = rows.copy()
    for b, values in zip(tables.binnings, on_cuts):
        edges[:, b.feature] = values
    holes = rows.copy()
    holes[np.arange(len(rows)) % 3 == 0, :] = np.nan
    holes[np.arange(len(rows)) % 3 == 1, 1::2] = np.nan
    for batch in (rows, edges, holes):
        np.testing.assert_allclose(folded.decision_function(batch), tables.decision_function(batch), rtol=0, atol=1e-12)
    proto = to_onnx(model)
    assert _n_targets(proto) == len(terms)
    np.testing.assert_allclose(onnx_outputs(proto, holes)["prediction"], tables.predict(holes), rtol=0, atol=TOLERANCE)


def test_folding_respects_the_table_size_limit(clara_ms):
    model, _ = clara_ms
    tables = model_tables(model)
    binnings, terms = fold_main_terms(tables.binnings, tables.terms, max_entries=1)
    assert binnings == tables.binnings and terms == tables.terms


def test_source_exports_search_each_feature_once_and_equal_python(clara_ms, tmp_path):
    """JavaScript, Lua, C and the compiled Python bin each feature once (pairs read maps of those bins)
    and give Python's predictions on Clara-MS rows (node and lua5.1 run them)."""
    from tests.primo.export.test_lua_export import LUA, lua_outputs

    model, X_test = clara_ms
    tables = model_tables(model)
    n_features = len(tables.shared_binnings)
    assert len(tables.binnings) > n_features  # pairs have their own, coarser binnings
    js, lua, c = to_js(model), to_lua(model), to_c(model, name="clara")
    assert js.count("= cutBin(") == lua.count("= cut_bin(") == c.count("= clara_cut_bin(") == n_features
    assert "Map" in js and "term_map[" in lua  # some pair reads a feature through a map of its shared bins
    rows = X_test.to_numpy(dtype=np.float64)
    expected = model.predict(X_test)
    np.testing.assert_allclose(js_outputs(js, rows, tmp_path)["predict"].astype(float), expected, rtol=0,
                               atol=TOLERANCE)
    predict_one = compile_python(model)
    np.testing.assert_array_equal([predict_one(row) for row in rows.tolist()], expected)
    if LUA is not None:
        lua_predictions = [float(out[0]) for out in lua_outputs(lua, rows.tolist(), tmp_path)]
        np.testing.assert_allclose(lua_predictions, expected, rtol=0, atol=TOLERANCE)


def test_silent_cuts_are_dropped_and_every_path_still_equals_python(clara_ms, tmp_path):
    """A simplified PrAM's shapes are flat over runs of bins: the searches skip the cuts no term
    changes its score across (fewer cuts, same predictions in ONNX, C float and integer, JS, Python)."""
    model, X_test = clara_ms
    simple = model.simplified(max_pieces=4)
    tables = model_tables(simple)
    union_cuts = sum(len(s.binning.cuts) for s in tables.shared_binnings if not s.binning.is_categorical)
    compact = share_binnings(tables.binnings, tables.terms)
    kept_cuts = sum(len(s.binning.cuts) for s in compact if not s.binning.is_categorical)
    assert 0 < kept_cuts < union_cuts / 3
    rows = X_test.to_numpy(dtype=np.float64)
    expected = simple.predict(X_test)
    proto = to_onnx(simple)
    (ensemble,) = [n for n in proto.graph.node if n.op_type == "TreeEnsembleRegressor"]
    n_nodes = len(next(a.ints for a in ensemble.attribute if a.name == "nodes_nodeids"))
    assert n_nodes < 2 * (kept_cuts + 2 * len(compact)) + 1  # the full union would need > 2 * union_cuts
    np.testing.assert_allclose(onnx_outputs(proto, rows)["prediction"], expected, rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(js_outputs(to_js(simple), rows, tmp_path)["predict"].astype(float), expected,
                               rtol=0, atol=TOLERANCE)
    predict_one = compile_python(simple)
    np.testing.assert_array_equal([predict_one(row) for row in rows.tolist()], expected)
    c_float = c_outputs(to_c(simple, name="simple"), tables, rows, tmp_path, name="simple")
    np.testing.assert_allclose(c_float[:, -1], expected, rtol=0, atol=TOLERANCE)
    integer = quantize(tables)
    rows_int = integer.scale_inputs(rows)
    c_integer = c_outputs(to_c(simple, name="simple_int", integer=True), tables, rows_int, tmp_path,
                          name="simple_int", integer=True)
    np.testing.assert_array_equal(c_integer[:, 0], integer.decision_function(rows_int)[:, 0])
