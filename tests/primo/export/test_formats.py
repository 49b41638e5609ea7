"""JSON document, file writing, the CLI and errors for what cannot be exported."""
import json
import subprocess

import numpy as np
import onnx
import pytest
from sklearn.tree import DecisionTreeRegressor

import primo
from primo.cli import main
from primo.export import export_all, export_model, to_c, to_js, to_json, to_onnx
from primo.io import model_from_document
from primo.export.runtimes import GCC


def _walk_json_tree(document: dict, X: np.ndarray) -> np.ndarray:
    """Predict from the JSON alone, as a non-Python consumer would, following the documented fields."""
    tree = document["state"]["tree_"]
    nodes = {k: v["__list__"] if isinstance(v, dict) else v for k, v in tree["nodes"]["__records__"].items()}
    values = np.asarray(tree["values"]["__list__"]).reshape(tree["values"]["shape"])
    classes = document["state"]["classes_"]["__list__"]
    out = []
    for row in X.astype(np.float32).astype(np.float64):
        node = 0
        while nodes["left_child"][node] != -1:
            v = row[nodes["feature"][node]]
            go_left = nodes["missing_go_to_left"][node] if np.isnan(v) else v <= _number(nodes["threshold"][node])
            node = nodes["left_child"][node] if go_left else nodes["right_child"][node]
        out.append(classes[int(np.argmax(values[node, 0]))])
    return np.asarray(out)


def _number(value):
    return float(value["__float__"]) if isinstance(value, dict) else value


def test_json_is_pure_json_and_describes_the_tree(models):
    model, X_check = models["prdt_binary"]
    text = to_json(model)
    assert "NaN" not in text and "Infinity" not in text  # strict JSON, readable by any parser
    document = json.loads(text)
    assert document["format"] == "primo-model" and document["model_class"] == "PrDTClassifier"
    assert np.array_equal(_walk_json_tree(document, X_check[:2000]), model.predict(X_check[:2000]))


def test_json_rebuilds_a_pram(models):
    model, X_check = models["pram_multiclass"]
    rebuilt = model_from_document(json.loads(to_json(model)))
    assert np.array_equal(rebuilt.predict_proba(X_check), model.predict_proba(X_check))


def test_export_all_writes_every_format(models, tmp_path):
    model, X_check = models["prdt_multiclass"]
    result = export_all(model, tmp_path / "exports", name="linnos", check_data=X_check)
    assert set(result["files"]) == {"onnx", "c", "c_integer", "js", "json"}
    onnx.checker.check_model(onnx.load(result["files"]["onnx"]))
    assert result["integer_check"]["n_rows"] == len(X_check)
    assert f"Check: on {len(X_check)} rows" in result["files"]["c_integer"].read_text()
    for header in (result["files"]["c"], result["files"]["c_integer"]):
        compiled = subprocess.run(GCC + ["-fsyntax-only", "-x", "c", str(header)], capture_output=True, text=True)
        assert compiled.returncode == 0, compiled.stderr


def test_cli_exports_and_reports(models, tmp_path, capsys):
    model, X_check = models["prdt_binary"]
    model_path = model.save(tmp_path / "tree.primo")
    table = tmp_path / "check.csv"
    np.savetxt(table, X_check[:3000], delimiter=",", header=",".join(f"x{i}" for i in range(X_check.shape[1])),
               comments="")
    assert main(["export", str(model_path), "--integer", "--check-data", str(table), "--out", str(tmp_path / "t.h")]) == 0
    printed = capsys.readouterr().out
    assert "integer mode" in printed and "on 3000 rows" in printed
    assert "int64_t" in (tmp_path / "t.h").read_text()
    assert main(["export", str(model_path), "--format", "js", "--out", str(tmp_path / "t.mjs")]) == 0
    assert "export function predict" in (tmp_path / "t.mjs").read_text()
    assert main(["export", str(model_path), "--out", str(tmp_path / "t.onnx")]) == 0
    onnx.checker.check_model(onnx.load(tmp_path / "t.onnx"))
    # errors a user can make are named, not tracebacks
    assert main(["export", str(model_path), "--out", str(tmp_path / "t.txt")]) == 2
    assert main(["export", str(model_path), "--format", "js", "--integer", "--out", str(tmp_path / "t.js")]) == 2
    assert "--format c only" in capsys.readouterr().err


def test_errors_name_the_problem(models, tmp_path):
    model = models["prdt_binary"][0]
    with pytest.raises(ValueError, match="unknown export format"):
        export_model(model, "wasm", tmp_path / "m.wasm")
    with pytest.raises(TypeError, match="expected a fitted PrDT or PrAM"):
        to_onnx(object())
    with pytest.raises(ValueError, match="C identifier"):
        to_c(model, name="***")
    auto = primo.PrimoClassifier.__new__(primo.PrimoClassifier)
    auto.best_estimator_ = model
    with pytest.raises(TypeError, match="best_estimator_"):
        to_js(auto)
    two_outputs = DecisionTreeRegressor(max_depth=2).fit(np.arange(20.0).reshape(10, 2), np.ones((10, 2)))
    with pytest.raises(ValueError, match="2 outputs"):
        to_c(two_outputs)


def test_onnx_files_declare_the_oldest_format_their_operators_allow(tmp_path, capsys):
    """Older onnxruntime releases (as systems embed them) load a file whose IR version and opsets are
    the lowest its operators need; the checker rejects an operator newer than the declared opset. A PrDT
    also exports with ai.onnx.ml opset 3 (onnxruntime >= 1.15), also from the command line."""
    from primo.export.onnx_graph import MIN_ONNXRUNTIME, OPSET
    from primo.export.runtimes import onnx_outputs

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    X[::9, 1] = np.nan
    y = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) * X[:, 2]
    tree = primo.PrDTRegressor(max_depth=3).fit(X, y)
    models = {("tree", 5): tree, ("tree", 3): tree, ("additive", None): primo.PrAMClassifier(
        outer_bags=1, max_rounds=100, n_jobs=1).fit(X, y > 0)}
    for (family, ml_opset), model in models.items():
        proto = to_onnx(model, ml_opset=ml_opset)
        opsets = {o.domain: o.version for o in proto.opset_import}
        assert opsets[""] == OPSET == 15 and opsets.get("ai.onnx.ml") == ml_opset  # a PrAM imports no ai.onnx.ml
        assert proto.ir_version == onnx.helper.find_min_ir_version_for(list(proto.opset_import))
        assert proto.ir_version == (10 if ml_opset == 5 else 8)  # ai.onnx.ml opset 5 needs IR 10
        properties = {p.key: p.value for p in proto.metadata_props}
        assert properties["primo.min_onnxruntime"] == MIN_ONNXRUNTIME[family, ml_opset]
        onnx.checker.check_model(proto, full_check=True)
    assert np.array_equal(onnx_outputs(to_onnx(tree, ml_opset=3), X)["prediction"], tree.predict(X))
    stump = primo.PrDTRegressor(max_depth=1, min_samples_leaf=200).fit(X, y)  # a single leaf
    assert np.array_equal(onnx_outputs(to_onnx(stump, ml_opset=3), X)["prediction"], stump.predict(X))
    with pytest.raises(primo.errors.InputError, match="PrAM's ONNX graph uses no ai.onnx.ml operator") as error:
        to_onnx(models["additive", None], ml_opset=3)
    assert error.value.argument == "ml_opset"
    with pytest.raises(primo.errors.InputError, match="ai.onnx.ml opset 5 or 3, not 4") as error:
        to_onnx(tree, ml_opset=4)
    tree.save(tmp_path / "t.primo")
    np.savetxt(tmp_path / "rows.csv", X, delimiter=",", header="x0,x1,x2", comments="")
    assert main(["export", str(tmp_path / "t.primo"), "--out", str(tmp_path / "t.onnx"), "--ml-opset", "3",
                 "--verify", str(tmp_path / "rows.csv")]) == 0
    assert {o.domain: o.version for o in onnx.load(tmp_path / "t.onnx").opset_import}["ai.onnx.ml"] == 3
    assert main(["export", str(tmp_path / "t.primo"), "--out", str(tmp_path / "t.h"), "--ml-opset", "3"]) == 2
    assert "--ml-opset applies to --format onnx only" in capsys.readouterr().err
