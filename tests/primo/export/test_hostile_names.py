"""Hostile feature names, category names and class labels cannot hijack an export (issue 17, item 3).

Names carry quotes, ``*/``, trigraphs, backslashes, newlines, U+2028/U+2029, NUL, C/JS keywords,
non-ASCII text and 3,000-character runs. Every C header compiles under gcc (and clang when installed)
with -std=c99 -Wall -Wextra -pedantic -Werror, every JavaScript module passes ``node --check``, runs
without executing injected code, and every export predicts what the Python model predicts.
"""
import json
import shutil
import subprocess

import numpy as np
import onnx
import pandas as pd
import pytest

from primo import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.export import encode_categories, model_tables, to_c, to_js, to_json, to_onnx
from primo.export.codegen import comment_quoted, comment_safe, json_literal
from primo.export.tables import TreeTables
from primo.export.runtimes import GCC, c_outputs, js_outputs, onnx_outputs

INJECTION = "x\u2028globalThis.__pwned = 1; //"
FEATURE_NAMES = [
    INJECTION,
    'say "hi" */ int pwned = 1; /*',
    "ends in a trigraph ??/",
    "??= ??( ??) ??< ??> ??! ??' ??-",
    "back\\slash\\",
    "new\nline\r\n#define predict 0",
    "nul\x00byte\tand\x1bescape",
    "para\u2029graph \u2028",
    "int",
    "a-b",
]
EXTRA_NAMES = ["a b", "naïve débit 速度 🚀 " + "ж" * 3000]  # "a b" and "a-b" sanitize to the same identifier
CATEGORIES = ["*/ evil", "\u2028", "??/", 'q"uote', "</script>"]
LABELS = ["few */ #include <stdio.h>", "many\u2028globalThis.__pwned = 2;", "return"]


@pytest.fixture(scope="module")
def hostile_table(data_dir):
    train = pd.read_csv(data_dir / "clara" / "ms_train.csv").head(400)
    X = train.drop(columns="cores")
    X.columns = FEATURE_NAMES
    X[EXTRA_NAMES[0]] = np.array(CATEGORIES, dtype=object)[train.index % len(CATEGORIES)]
    X[EXTRA_NAMES[1]] = train["R_state"].to_numpy() * 2.0
    X.iloc[::13, 1] = np.nan
    cores = train["cores"].to_numpy()
    binary = np.where(cores > np.median(cores), LABELS[1], LABELS[0])
    three = np.array(LABELS)[np.digitize(cores, np.quantile(cores, [1 / 3, 2 / 3]))]
    return X, cores.astype(float), binary, three


FAST_PRAM = dict(max_bins=16, interactions=2, max_rounds=100, outer_bags=1, n_jobs=1, random_state=0)
CASES = {
    "prdt_classifier": lambda X, y, b, t: PrDTClassifier(ccp_alpha=0.005, random_state=0).fit(X, t),
    "prdt_regressor": lambda X, y, b, t: PrDTRegressor(ccp_alpha=1.0, random_state=0).fit(X, y),
    "prdt_single_class": lambda X, y, b, t: PrDTClassifier().fit(X, np.full(len(y), LABELS[2])),
    "pram_classifier": lambda X, y, b, t: PrAMClassifier(**FAST_PRAM).fit(X, b),
    "pram_regressor": lambda X, y, b, t: PrAMRegressor(**FAST_PRAM).fit(X, y),
    "pram_multiclass": lambda X, y, b, t: PrAMClassifier(**{**FAST_PRAM, "interactions": 0}).fit(X, t),
}


@pytest.fixture(scope="module", params=list(CASES))
def case(request, hostile_table):
    X, y, binary, three = hostile_table
    model = CASES[request.param](X, y, binary, three)
    tables = model_tables(model)
    rows = encode_categories(tables, X)
    return request.param, model, tables, X, rows


@pytest.mark.parametrize("text", FEATURE_NAMES + EXTRA_NAMES + CATEGORIES + LABELS + ["*/*", "/*/", "???/", "\\"])
def test_comment_text_is_inert_and_reads_back(text):
    safe = comment_safe(text)
    assert safe.isascii() and safe.isprintable()
    assert "*/" not in safe and "/*" not in safe and "??" not in safe and not safe.endswith("\\")
    assert json.loads(comment_quoted(text)) == text
    assert json.loads(json_literal(text)) == text and json_literal(text).isascii()


def _expected_c(model, tables, X, outputs):
    """Python's answers in the C driver's layout (class index for classifiers)."""
    predicted = model.predict(X)
    if tables.is_classifier:
        index = {label: k for k, label in enumerate(tables.classes)}
        return np.asarray([index[p] for p in predicted], dtype=float)
    return predicted


def test_c_compiles_strictly_and_matches(case, tmp_path):
    name, model, tables, X, rows = case
    compilers = [GCC] + ([["clang", *GCC[1:]]] if shutil.which("clang") else [])
    for integer in (False, True):
        header = to_c(model, name="hostile", integer=integer)
        for line in header.splitlines():
            assert line.isascii() and "??" not in line and not line.endswith("\\"), line
        for compiler in compilers:
            source = tmp_path / "check.c"
            (tmp_path / "hostile.h").write_text(header)
            source.write_text('#include "hostile.h"\nint main(void) { return 0; }\n')
            result = subprocess.run([*compiler, "-fsyntax-only", str(source)], capture_output=True, text=True)
            assert result.returncode == 0, result.stderr
        if integer:
            continue  # integer mode approximates; its exactness is tested elsewhere
        outputs = c_outputs(header, tables, rows, tmp_path, name="hostile")
        predicted = outputs[:, 1] if isinstance(tables, TreeTables) or tables.n_scores == 1 else outputs[:, -1]
        expected = _expected_c(model, tables, X, outputs)
        if tables.is_classifier:
            np.testing.assert_array_equal(predicted, expected)
        else:
            np.testing.assert_allclose(predicted, expected, rtol=0, atol=1e-9)


def test_js_checks_runs_clean_and_matches(case, tmp_path):
    name, model, tables, X, rows = case
    source = to_js(model)
    assert source.isascii()
    module = tmp_path / "model.mjs"
    module.write_text(source)
    checked = subprocess.run(["node", "--check", str(module)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    probe = tmp_path / "probe.mjs"
    probe.write_text(f'const m = await import({json.dumps(str(module))});\n'
                     'process.stdout.write(JSON.stringify({pwned: globalThis.__pwned ?? null, '
                     'names: m.featureNames, classes: m.classes ?? null}));\n')
    ran = subprocess.run(["node", str(probe)], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    seen = json.loads(ran.stdout)
    assert seen["pwned"] is None
    assert seen["names"] == list(X.columns)
    if tables.is_classifier:
        assert seen["classes"] == [str(c) for c in tables.classes]
    outputs = js_outputs(source, rows, tmp_path)
    expected = model.predict(X)
    if tables.is_classifier:
        assert list(outputs["predict"]) == list(expected)
    else:
        np.testing.assert_allclose(outputs["predict"].astype(float), expected, rtol=0, atol=1e-9)


def test_onnx_and_json_carry_names_exactly(case):
    name, model, tables, X, rows = case
    proto = to_onnx(model, name="hostile */ \u2028 graph")
    onnx.checker.check_model(proto)
    metadata = {p.key: p.value for p in proto.metadata_props}
    assert metadata["primo.vocabularies"].isascii()
    assert json.loads(metadata["primo.vocabularies"]) == {tables.feature_names[j]: list(v)
                                                          for j, v in tables.vocabularies.items()}
    outputs = onnx_outputs(proto, rows)
    expected = model.predict(X)
    if tables.is_classifier:
        assert list(outputs["label"]) == list(expected)
    else:
        np.testing.assert_allclose(outputs["prediction"], expected, rtol=0, atol=1e-9)
    text = to_json(model)
    assert text.isascii()
    document = json.loads(text)
    assert document["state"]["feature_names_in_"]["__object_array__"] == list(X.columns)


@pytest.mark.parametrize("prefix", ["int", "return", "*/ x /*", "9lives", "__Reserved", "a-b"])
def test_hostile_c_prefixes_become_valid_identifiers(hostile_table, tmp_path, prefix):
    X, y, _, _ = hostile_table
    model = PrDTRegressor(ccp_alpha=5.0, random_state=0).fit(X, y)
    header = to_c(model, name=prefix)
    (tmp_path / "m.h").write_text(header)
    (tmp_path / "m.c").write_text('#include "m.h"\nint main(void) { return 0; }\n')
    result = subprocess.run([*GCC, "-fsyntax-only", str(tmp_path / "m.c")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("prefix", ["δ?!", "??/", "\u2028"])
def test_a_prefix_with_nothing_usable_is_a_clear_error(hostile_table, prefix):
    X, y, _, _ = hostile_table
    with pytest.raises(ValueError, match="cannot be turned into a C identifier"):
        to_c(PrDTRegressor(ccp_alpha=5.0).fit(X, y), name=prefix)
