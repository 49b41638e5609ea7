"""Integer mode is exact on the case-study test sets (issue 19): compiled integer C equals float Python.

Float C equals the Python model on the same rows (with missing values). Clara-MS features are
fractions whose bin edges no power of ten holds; the auto scales pick powers of two fine enough for
every edge, so the integer C (gcc) predicts what the float model predicts on every test row, and the
header says which features are exact for every value. The demo's breast-cancer table and a scale
chosen too coarse (the header must say so) are checked too.
"""
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer

import primo
from primo.export import model_tables, quantize, to_c
from primo.export.quantize import NOT_EXACT
from primo.export.runtimes import c_outputs


def _fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, y)


@pytest.fixture(scope="module")
def clara_ms(data_dir):
    train = pd.read_csv(data_dir / "clara" / "ms_train.csv")
    test = pd.read_csv(data_dir / "clara" / "ms_test.csv")
    return train.drop(columns="cores"), train["cores"], test.drop(columns="cores")


def _integer_c_equals_float_python(model, rows: np.ndarray, tmp_path, name: str) -> str:
    tables = model_tables(model)
    integer = quantize(tables)
    header = to_c(model, name=name, integer=True, check_data=rows)
    out = c_outputs(header, tables, integer.scale_inputs(rows), tmp_path, name=name, integer=True)
    if hasattr(tables, "terms"):
        float_scores = tables.decision_function(rows)
        n_scores = tables.n_scores
        # Same bins everywhere: the scores differ by fixed-point rounding of the tables only.
        assert np.array_equal(out[:, :n_scores], integer.decision_function(integer.scale_inputs(rows)))
        bound = 0.5 * (len(tables.terms) + 1) / integer.score_scale
        assert np.abs(out[:, :n_scores] / integer.score_scale - float_scores).max() <= bound
        if tables.is_classifier:
            assert np.array_equal(out[:, n_scores], np.searchsorted(tables.classes, tables.predict(rows)))
    else:
        assert np.array_equal(out[:, 0], tables.apply(rows))  # every row reaches the float model's leaf
    report = integer.compare(rows)
    assert report.n_different_paths == 0 and report.n_different_predictions == 0
    return header


def test_clara_ms_pram_integer_c_is_exact_on_every_test_row(clara_ms, tmp_path):
    X, y, X_test = clara_ms
    model = _fit(primo.PrAMRegressor(interactions=4, max_rounds=300, outer_bags=1, n_jobs=1, random_state=0), X, y)
    integer = quantize(model_tables(model))
    assert NOT_EXACT not in integer.exactness
    assert any(scale > 1e6 for scale in integer.feature_scales)  # fractions: powers of two, not of ten
    header = _integer_c_equals_float_python(model, X_test.to_numpy(dtype=np.float64), tmp_path, "clara_pram")
    assert "exact for every value" in header and "NOT EXACT" not in header


def test_clara_ms_float_c_equals_python_on_every_test_row(clara_ms, tmp_path):
    X, y, X_test = clara_ms
    model = _fit(primo.PrAMRegressor(interactions=4, max_rounds=300, outer_bags=1, n_jobs=1, random_state=0), X, y)
    tables, rows = model_tables(model), X_test.to_numpy(dtype=np.float64)
    rows[::17, 4] = np.nan  # missing values take bin 0 in the branch-free search too
    out = c_outputs(to_c(model, name="clara_float"), tables, rows, tmp_path, name="clara_float")
    np.testing.assert_allclose(out[:, 0], model.predict(pd.DataFrame(rows, columns=X.columns)), rtol=0, atol=1e-9)
    tree = primo.PrDTRegressor(ccp_alpha=0.2, random_state=0).fit(X, y)
    out = c_outputs(to_c(tree, name="clara_tree"), model_tables(tree), rows, tmp_path, name="clara_tree")
    np.testing.assert_array_equal(out[:, 1], tree.predict(pd.DataFrame(rows, columns=X.columns)))


def test_clara_ms_prdt_integer_c_is_exact_on_every_test_row(clara_ms, tmp_path):
    X, y, X_test = clara_ms
    model = primo.PrDTRegressor(ccp_alpha=0.2, random_state=0).fit(X, y)
    _integer_c_equals_float_python(model, X_test.to_numpy(dtype=np.float64), tmp_path, "clara_prdt")


def test_demo_breast_cancer_integer_c_is_exact(tmp_path):
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    model = _fit(primo.PrAMClassifier(interactions=4, max_rounds=200, outer_bags=1, n_jobs=1, random_state=0), X, y)
    _integer_c_equals_float_python(model, X.to_numpy(dtype=np.float64), tmp_path, "demo_pram")


def test_binary_scales_put_values_next_to_an_edge_on_its_side():
    """Doubles one step either side of every edge keep their bin: what 'exact for every value' claims."""
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    model = _fit(primo.PrAMRegressor(interactions=0, max_rounds=100, outer_bags=1, n_jobs=1, random_state=0),
                 X.iloc[:, :5] / 7.0, y)  # sevenths: no power of ten holds the edges
    tables = model_tables(model)
    integer = quantize(tables)
    assert all(kind == "edges" for kind, used in zip(integer.exactness, range(5)))
    base = (X.iloc[:40, :5] / 7.0).to_numpy()
    probes = [base]
    for binning in tables.binnings:
        for direction in (-np.inf, np.inf):
            near = np.nextafter(binning.cuts, direction)
            rows = np.repeat(base[:1], len(near), axis=0)
            rows[:, binning.feature] = near
            probes.append(rows)
            rows = rows.copy()
            rows[:, binning.feature] = binning.cuts
            probes.append(rows)
    report = integer.compare(np.concatenate(probes))
    assert report.n_different_paths == 0


def test_a_scale_that_cannot_hold_the_edges_is_named_in_the_header(clara_ms):
    X, y, X_test = clara_ms
    model = _fit(primo.PrAMRegressor(interactions=0, max_rounds=100, outer_bags=1, n_jobs=1, random_state=0), X, y)
    header = to_c(model, name="coarse", integer=True, feature_scales=1000, check_data=X_test)
    assert "NOT exact" in header
