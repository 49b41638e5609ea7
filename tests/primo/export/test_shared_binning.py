"""PrAM paths bin each feature once (issue 19): shared binnings, ONNX, tables and source exports on real rows.

interpret cuts a feature differently for main terms and pairs; the batch paths look each feature up
once over the union of its edges and map that bin to every binning. These tests check the maps on
edge values, that the ONNX graph searches each feature once (also on edges built to be awkward for
its grid), and that ONNX and the tables
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
from primo.export.tables import AdditiveTables, Binning, Term, fold_main_terms, share_binnings
from primo.export.onnx_graph import _Grid
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


def _initializer(proto: onnx.ModelProto, name: str) -> np.ndarray:
    (found,) = [i for i in proto.graph.initializer if i.name == name]
    return onnx.numpy_helper.to_array(found)


def _n_searches(proto: onnx.ModelProto) -> int:
    """Features the PrAM graph searches: one grid origin each."""
    return len(_initializer(proto, "grid_lo"))


def test_clara_ms_onnx_and_tables_equal_python_with_one_search_per_feature(clara_ms):
    model, X_test = clara_ms
    tables = model_tables(model)
    assert any(len(term.binnings) == 2 for term in tables.terms)
    # Pairs use a coarser binning: more binnings than features, yet one search per feature.
    assert len(tables.binnings) > len(tables.shared_binnings)
    proto = to_onnx(model)
    assert _n_searches(proto) == len(tables.shared_binnings)
    rows = X_test.to_numpy(dtype=np.float64)
    expected = model.predict(X_test)
    np.testing.assert_allclose(onnx_outputs(proto, rows)["prediction"], expected, rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(tables.predict(rows), expected, rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("name", ["pram_binary", "pram_multiclass", "pram_regressor"])
def test_linnos_onnx_has_one_search_per_feature(name, models):
    model, X_check = models[name]
    tables = model_tables(model)
    proto = to_onnx(model)
    assert _n_searches(proto) == len(tables.shared_binnings) <= tables.n_features
    rows = encode_categories(tables, X_check)
    out = onnx_outputs(proto, rows)
    if tables.is_classifier:
        np.testing.assert_array_equal(out["label"], model.predict(X_check))
        np.testing.assert_allclose(out["probabilities"], model.predict_proba(X_check), rtol=0, atol=TOLERANCE)
    else:
        np.testing.assert_allclose(out["prediction"], model.predict(X_check), rtol=0, atol=TOLERANCE)


def test_grid_start_and_steps_bracket_every_value_with_a_cell_of_slack():
    """For every value, the keys before the search's start are at most the value and its bin lies
    within the ``2^steps - 1`` keys after it, also when a runtime computes the value's cell one off."""
    rng = np.random.default_rng(1)
    key_sets = [np.sort(rng.choice(10_000, n, replace=False)) / 7.0 for n in (1, 2, 3, 7, 50, 300)]
    key_sets += [np.r_[1.0 + np.arange(40) * 2.0 ** -40, 1e6], np.r_[-1e300, np.linspace(0, 1, 33), 1e300],
                 np.array([])]
    for keys in key_sets:
        values = np.r_[keys, np.nextafter(keys, np.inf), np.nextafter(keys, -np.inf), np.inf, -np.inf,
                       rng.uniform(keys.min(initial=0) - 1, keys.max(initial=0) + 1, 500)]
        below = np.searchsorted(keys, values, side="right")  # #{keys <= x}
        for n_cells in (1, 2, 8, 64, 1024):
            grid = _Grid.fit(keys, n_cells)
            cells = _Grid.cells(values, grid.lo, grid.scale, n_cells)
            for slack in (-1, 0, 1):
                start = grid.first[np.clip(cells + slack, 0, n_cells - 1)]
                assert np.all(start <= below) and np.all(below - start <= 2 ** grid.steps - 1), (len(keys), n_cells)


def test_onnx_search_finds_every_bin_on_edges_built_to_be_awkward_for_its_grid():
    """The ONNX graph starts each search from a uniform grid over the feature's edges. Edges crowded in
    one cell beside outliers that span nearly all of float64, edges an ulp apart, around 0 and
    subnormal, one edge, none, and categories (matched, unseen, between two, -1) still give every value
    the tables' bin, missing and infinite values included (integer scores: sums are exact)."""
    rng = np.random.default_rng(0)
    crowded = 1.0 + np.arange(300) * 2.0 ** -40
    continuous = [np.r_[-1.7e308, -1.0, -5e-324, 0.0, 5e-324, 1e-300, crowded, 1e300, 1.7e308],
                  2.5 + np.arange(3) * np.spacing(2.5),
                  np.array([2.5]), np.array([]), np.linspace(-50, 50, 101)]
    binnings = [Binning(j, len(cuts) + 3, cuts=cuts) for j, cuts in enumerate(continuous)]
    categories = np.array([-3.5, 0.0, 2.0, 7.0, 1e9])
    binnings.append(Binning(5, 7, categories=categories, category_bins=np.array([2, 1, 5, 4, 3])))
    binnings.append(Binning(0, 6, cuts=np.array([-1.0, 1.0 + 2.0 ** -35, 1e300])))  # feature 0's pair level
    terms = [Term(f"x{b.feature}", (i,), rng.integers(-1000, 1000, (b.n_bins, 1)).astype(float))
             for i, b in enumerate(binnings[:-1])]
    terms.append(Term("x0 & x5", (6, 5), rng.integers(-1000, 1000, (6, 7, 1)).astype(float)))
    tables = AdditiveTables(feature_names=[f"x{j}" for j in range(6)], binnings=binnings, terms=terms,
                            intercept=np.array([0.5]), link="identity", classes=None, vocabularies={})
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e308, -1e308, 5e-324])
    columns = []
    for cuts in continuous:
        values = np.r_[cuts, np.nextafter(cuts, np.inf), np.nextafter(cuts, -np.inf), specials,
                       rng.uniform(-60, 60, 200), 1.0 + rng.uniform(0, 300, 200) * 2.0 ** -40]
        columns.append(rng.permutation(np.resize(values, 2000)))
    cat_values = np.r_[categories, np.nextafter(categories, np.inf), -1.0, 2.25, 1e10, specials]
    columns.append(rng.permutation(np.resize(cat_values, 2000)))
    rows = np.column_stack(columns)
    proto = to_onnx(tables)
    assert _n_searches(proto) == 6
    np.testing.assert_array_equal(onnx_outputs(proto, rows)["prediction"], tables.predict(rows))


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


def test_main_terms_ride_in_pair_tables_with_the_same_sums(clara_ms):
    """ONNX folds main terms into pairs (fewer lookups): every row's score sum is kept, missing values
    and values on every cut included, and the graph looks up each remaining term once."""
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
    assert len(_initializer(proto, "axis0_features")) == len(terms)
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
    assert np.isfinite(_initializer(proto, "keys_1_ahead")).sum() == kept_cuts  # the searched edges
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
