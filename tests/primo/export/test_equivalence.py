"""Every export computes what the Python model computes, on 12,000 real I/Os plus edge rows.

C is compiled with gcc (-std=c99 -Wall -Wextra -Werror -pedantic), JavaScript runs in node, ONNX in
onnxruntime. Labels must be identical and scores (probabilities, raw additive scores, regression
values) within 1e-6.
"""
import numpy as np
import pytest

from primo.export import compile_python, encode_categories, model_tables, to_c, to_js, to_onnx
from primo.export.quantize import quantize
from primo.export.tables import TreeTables
from tests.primo.export.conftest import N_CHECK
from primo.export.runtimes import c_outputs, js_outputs, onnx_outputs
from tests.primo.export.runners import decoded_frame, edge_rows

KINDS = ["prdt_binary", "prdt_multiclass", "prdt_regressor", "pram_binary", "pram_multiclass", "pram_regressor"]
TOLERANCE = 1e-6


@pytest.fixture(scope="module")
def cases(models):
    """name → (model, tables, rows, reference outputs of the Python model on those rows)."""
    out = {}
    for name in KINDS:
        model, X_check = models[name]
        tables = model_tables(model)
        real = encode_categories(tables, X_check)
        rows = np.vstack([real, edge_rows(tables, real[:3])])
        X = rows if isinstance(tables, TreeTables) else decoded_frame(tables, rows)
        reference = {"predict": model.predict(X), "n_real": len(real)}
        if isinstance(tables, TreeTables):
            reference["leaf"] = tables.leaf_index[model.apply(X)]
        if tables.is_classifier:
            reference["proba"] = model.predict_proba(X)
            reference["index"] = np.searchsorted(tables.classes, reference["predict"])
        if not isinstance(tables, TreeTables):
            raw = model.decision_function(X) if tables.is_classifier else reference["predict"]
            reference["decision"] = np.asarray(raw).reshape(len(rows), -1)
        out[name] = (model, tables, rows, reference)
    return out


def test_check_data_is_real_and_large_enough(cases):
    for _, _, rows, reference in cases.values():
        assert reference["n_real"] == N_CHECK >= 10_000
        assert len(rows) > N_CHECK  # plus edge rows


def test_tables_reproduce_the_model(cases):
    for name, (model, tables, rows, reference) in cases.items():
        predictions = tables.predict(rows)
        if tables.is_classifier:
            assert np.array_equal(predictions, reference["predict"]), name
        else:
            np.testing.assert_allclose(predictions, reference["predict"], rtol=0, atol=TOLERANCE, err_msg=name)


@pytest.mark.parametrize("name", KINDS)
def test_c_float_mode_equals_python(name, cases, tmp_path):
    model, tables, rows, reference = cases[name]
    out = c_outputs(to_c(model, name="m"), tables, rows, tmp_path, name="m")
    if isinstance(tables, TreeTables):
        assert np.array_equal(out[:, 0], reference["leaf"])
        if tables.is_classifier:
            assert np.array_equal(out[:, 1], reference["index"])
            np.testing.assert_allclose(out[:, 2:], reference["proba"], rtol=0, atol=TOLERANCE)
        else:
            np.testing.assert_allclose(out[:, 1], reference["predict"], rtol=0, atol=TOLERANCE)
    else:
        n_scores = tables.n_scores
        np.testing.assert_allclose(out[:, :n_scores], reference["decision"], rtol=0, atol=TOLERANCE)
        if tables.is_classifier:
            assert np.array_equal(out[:, n_scores], reference["index"])


@pytest.mark.parametrize("name", KINDS)
def test_javascript_equals_python(name, cases, tmp_path):
    model, tables, rows, reference = cases[name]
    out = js_outputs(to_js(model), rows, tmp_path)
    if tables.is_classifier:
        assert np.array_equal(out["predict"].astype(reference["predict"].dtype), reference["predict"])
        np.testing.assert_allclose(np.stack(out["proba"]), reference["proba"], rtol=0, atol=TOLERANCE)
    else:
        np.testing.assert_allclose(out["predict"].astype(float), reference["predict"], rtol=0, atol=TOLERANCE)
    if isinstance(tables, TreeTables):
        assert np.array_equal(out["leaf"].astype(int), reference["leaf"])
    else:
        decision = np.asarray(out["decision"].tolist(), dtype=float).reshape(len(rows), -1)
        np.testing.assert_allclose(decision, reference["decision"], rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("name, ml_opset", [(name, None) for name in KINDS]
                         + [(name, 3) for name in KINDS if name.startswith("prdt")])
def test_onnx_equals_python(name, ml_opset, cases):
    """Every kind at its default ai.onnx.ml opset, and a PrDT at opset 3 too (older runtimes): identical."""
    model, tables, rows, reference = cases[name]
    out = onnx_outputs(to_onnx(model, ml_opset=ml_opset), rows)
    if tables.is_classifier:
        assert np.array_equal(out["label"], reference["predict"])
        np.testing.assert_allclose(out["probabilities"], reference["proba"], rtol=0, atol=TOLERANCE)
    elif isinstance(tables, TreeTables):  # the leaf's own float64 value, whichever op finds the leaf
        assert np.array_equal(out["prediction"], reference["predict"])
    else:
        np.testing.assert_allclose(out["prediction"], reference["predict"], rtol=0, atol=TOLERANCE)
    if "scores" in out:
        np.testing.assert_allclose(out["scores"], reference["decision"], rtol=0, atol=TOLERANCE)
    empty = onnx_outputs(to_onnx(model, ml_opset=ml_opset), rows[:0])  # an empty batch, as a system may send
    assert {name: value.shape[0] for name, value in empty.items()} == {name: 0 for name in out}


@pytest.mark.parametrize("name", KINDS)
def test_python_fast_path_equals_python(name, cases):
    model, tables, rows, reference = cases[name]
    predict_one = compile_python(model)
    predictions = np.asarray([predict_one(row) for row in rows.tolist()], dtype=object)
    if tables.is_classifier:
        assert np.array_equal(predictions.astype(reference["predict"].dtype), reference["predict"])
    else:
        np.testing.assert_allclose(predictions.astype(float), reference["predict"], rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize("name", KINDS)
def test_c_integer_mode_matches_its_report(name, cases, tmp_path):
    """Integer C equals the NumPy integer simulation bit for bit, and the reported mismatch count is
    the number of predictions that really differ from the float model."""
    model, tables, rows, reference = cases[name]
    real = rows[: reference["n_real"]]
    integer = quantize(tables)
    report = integer.compare(real)
    header = to_c(model, name="m", integer=True, check_data=real)
    assert report.summary() in header
    out = c_outputs(header, tables, integer.scale_inputs(real), tmp_path, name="m", integer=True)
    X_int = integer.scale_inputs(real)
    if isinstance(tables, TreeTables):
        leaves = integer.apply(X_int)
        assert np.array_equal(out[:, 0], leaves)
        if tables.is_classifier:
            assert np.array_equal(out[:, 1], tables.leaf_labels[leaves])
            assert report.n_different_predictions == np.sum(out[:, 1] != reference["index"][: len(real)])
        else:
            assert np.array_equal(out[:, 1], integer.leaf_values[leaves])
    else:
        scores = integer.decision_function(X_int)
        assert np.array_equal(out[:, : tables.n_scores], scores)
        if tables.is_classifier:
            assert report.n_different_predictions == np.sum(out[:, tables.n_scores] != reference["index"][: len(real)])
        np.testing.assert_allclose(scores / integer.score_scale, reference["decision"][: len(real)],
                                   rtol=0, atol=report.max_abs_error + 1e-12)
