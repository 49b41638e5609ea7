"""Predicting from a model file's tables (``primo predict`` without scikit-learn or interpret, issue 19).

The predictor :func:`primo.export.saved.read_predictor` builds must answer as the model :func:`primo.load`
builds: the same predictions on real rows (LinnOS, Clara-MS with a text column and edits, the demo's
breast-cancer table, a table of text/category/bool/NaN columns with unseen categories), the same
errors for bad input and for damaged files. The command must not import the estimator libraries.
"""
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer

import primo
from primo.errors import InputError
from primo.export.saved import NeedsEstimator, read_predictor
from primo.export.tables import TreeTables
from primo.validation import ModelFileError
from tests.primo.model_files import MUTATION_KINDS, clara_table, fit_models, mutated_file
from tests.primo.tables_any import housing, housing_with_unseen

REPOSITORY = Path(__file__).resolve().parents[3]
HEAVY_LIBRARIES = ("sklearn", "interpret", "scipy", "onnx", "onnxruntime")
PROBABILITY_TOLERANCE = 1e-15  # PrAM: interpret's exponential is its own; NumPy's differs in the last bit


def _same_answers(full, fast, X):
    """``fast`` predicts exactly what ``full`` does on ``X`` (probabilities to the last bit or two)."""
    expected = full.predict(X)
    predicted = fast.predict(X)
    assert predicted.dtype == expected.dtype
    np.testing.assert_array_equal(predicted, expected)
    if hasattr(full, "predict_proba"):
        np.testing.assert_array_equal(fast.classes_, full.classes_)
        tolerance = 0.0 if isinstance(fast.tables, TreeTables) else PROBABILITY_TOLERANCE  # a tree's are exact
        np.testing.assert_allclose(fast.predict_proba(X), full.predict_proba(X), rtol=0, atol=tolerance)
    else:
        assert not hasattr(fast, "predict_proba")


def _both(model, path):
    model.save(path)
    return primo.load(path), read_predictor(path)


def _through_csv(X: pd.DataFrame, path) -> pd.DataFrame:
    X.to_csv(path, index=False)
    return pd.read_csv(path)


def test_linnos_models_predict_identically(models, tmp_path):
    for name, (model, X_check) in models.items():
        full, fast = _both(model, tmp_path / f"{name}.primo")
        _same_answers(full, fast, X_check)
        if isinstance(X_check, pd.DataFrame):  # the PrAMs: as `primo predict` reads a CSV
            _same_answers(full, fast, _through_csv(X_check, tmp_path / f"{name}.csv"))


@pytest.fixture(scope="module")
def clara_models(data_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit_models(data_dir)


def _clara_check_rows(data_dir) -> pd.DataFrame:
    """Every Clara-MS row the models were not fit on (test, real NFs, the training rows after the first
    300), with the models' text column, an unseen tier, missing tiers and missing values."""
    clara = data_dir / "clara"
    rows = pd.concat([pd.read_csv(clara / "ms_test.csv"), pd.read_csv(clara / "ms_real_nfs.csv"),
                      pd.read_csv(clara / "ms_train.csv").iloc[300:]], ignore_index=True)
    X = rows[["R_state", "A_i", "A_e", "I_c"]].copy()
    median = clara_table(data_dir)[0]["R_state"].median()
    X["tier"] = np.where(X["R_state"] > median, "large state", "small state")
    X.loc[X.index[::11], "tier"] = "medium state"  # never seen at fit time
    X.loc[X.index[5::13], "tier"] = np.nan
    X.loc[X.index[::7], "A_e"] = np.nan
    return X


def test_clara_models_with_text_and_edits_predict_identically(clara_models, data_dir, tmp_path):
    X = _clara_check_rows(data_dir)
    assert len(X) > 550
    for name, model in clara_models.items():
        full, fast = _both(model, tmp_path / f"{name}.primo")
        _same_answers(full, fast, X)
        _same_answers(full, fast, _through_csv(X, tmp_path / "rows.csv"))


def test_demo_table_predicts_identically(tmp_path):
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pram = primo.PrAMClassifier(max_rounds=200, outer_bags=1, interactions=3, n_jobs=1, random_state=0).fit(X, y)
    tree = primo.PrDTClassifier(ccp_alpha=0.005, random_state=0).fit(X.to_numpy(), y)  # fit on an array
    for name, model, rows in (("pram", pram, X), ("prdt", tree, X.to_numpy())):
        full, fast = _both(model, tmp_path / f"{name}.primo")
        _same_answers(full, fast, rows)


@pytest.fixture(scope="module")
def any_table_rows():
    X = housing_with_unseen(n=300)
    X.loc[::9, "rooms"] = 9  # a number never seen
    return X


@pytest.mark.parametrize("family", ["prdt_regressor", "prdt_classifier", "pram_regressor", "pram_classifier",
                                    "pram_multiclass"])
def test_text_category_bool_and_missing_columns_predict_identically(family, any_table_rows, tmp_path):
    X, y = housing()
    band = np.where(y > 350, "high", np.where(y > 250, "mid", "low"))
    pram = dict(max_rounds=200, outer_bags=1, interactions=2, n_jobs=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = {
            "prdt_regressor": lambda: primo.PrDTRegressor(ccp_alpha=50.0).fit(X, y),
            "prdt_classifier": lambda: primo.PrDTClassifier(ccp_alpha=0.002).fit(X, band),
            "pram_regressor": lambda: primo.PrAMRegressor(**pram).fit(X, y),
            "pram_classifier": lambda: primo.PrAMClassifier(**pram).fit(X, y > 300),
            "pram_multiclass": lambda: primo.PrAMClassifier(**pram).fit(X, band),
        }[family]()
    full, fast = _both(model, tmp_path / "model.primo")
    _same_answers(full, fast, any_table_rows)
    _same_answers(full, fast, _through_csv(any_table_rows, tmp_path / "rows.csv"))
    _same_answers(full, fast, any_table_rows.iloc[:, ::-1])  # columns matched by name


def test_bad_input_gives_the_models_own_errors(clara_models, data_dir, tmp_path):
    X = _clara_check_rows(data_dir).head(20)
    bad_inputs = {
        "missing column": X.drop(columns="A_i"),
        "text in a number column": X.assign(A_i=["many"] * len(X)),
        "infinity": X.assign(A_e=np.inf),
        "dates": X.assign(I_c=pd.Timestamp("2026-01-01")),
        "one-dimensional": X["A_i"].to_numpy(),
        "no rows": X.head(0),
    }
    for name, model in clara_models.items():
        full, fast = _both(model, tmp_path / f"{name}.primo")
        for problem, rows in bad_inputs.items():
            try:
                expected = full.predict(rows)
            except Exception as error:  # noqa: BLE001 - whatever the model raises, the predictor must too
                with pytest.raises(type(error)) as caught:
                    fast.predict(rows)
                assert str(caught.value) == str(error), (name, problem)
            else:
                np.testing.assert_array_equal(fast.predict(rows), expected)


def test_tables_that_cannot_answer_defer_to_the_estimator(data_dir, tmp_path):
    X, cores = clara_table(data_dir)
    X = X.drop(columns="tier")
    two_outputs = primo.PrDTRegressor(ccp_alpha=1.0).fit(X, np.c_[cores, cores * 2])
    two_outputs.save(tmp_path / "two.primo")
    with pytest.raises(NeedsEstimator, match="2 outputs"):
        read_predictor(tmp_path / "two.primo")
    tree = primo.PrDTRegressor(ccp_alpha=1.0).fit(X, cores)
    tree.save(tmp_path / "one.primo")
    huge = X.head(3).assign(A_i=1e39)  # beyond float32: the tree's named error, from the predictor itself
    with pytest.raises(InputError, match="column 'A_i' of X holds values beyond float32's range") as caught:
        read_predictor(tmp_path / "one.primo").predict(huge)
    with pytest.raises(InputError) as estimator:
        tree.predict(huge)
    assert str(caught.value) == str(estimator.value)


# --------------------------------------------------------------------------- damaged files

SEEDS_PER_KIND = 12  # × 6 kinds × 5 models = 360 damaged files
#: What only the estimator's constructors need: the predictor reads these files, primo.load refuses them.
_CONSTRUCTOR_ONLY = ("params: unknown parameters", "params: The '", "state.ebm_.params: unknown parameters",
                     "state.tree_.nodes: fields")


def _outcome(call):
    try:
        return "ok", call()
    except ModelFileError as error:
        return "refused", re.sub(r"0x[0-9a-f]+", "0x...", str(error))  # a parser's message may name an object's address
    except NeedsEstimator as error:
        return "needs estimator", str(error)


def test_damaged_files_are_refused_as_load_refuses_them(clara_models, data_dir, tmp_path):
    rows = clara_table(data_dir, n_rows=60)[0]
    scratch = tmp_path / "case.primo"
    counts = {"refused": 0, "predicted": 0}
    for name, model in clara_models.items():
        source = model.save(tmp_path / f"{name}.primo").read_bytes()
        for kind in MUTATION_KINDS:
            for seed in range(SEEDS_PER_KIND):
                scratch.write_bytes(mutated_file(source, kind, seed))
                case = f"{name}/{kind}/{seed}"
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    full = _outcome(lambda: primo.load(scratch))
                fast = _outcome(lambda: read_predictor(scratch))
                if full[0] == "refused":
                    counts["refused"] += 1
                    if not (fast[0] == "refused" and fast[1] == full[1]):  # else read by other rules
                        assert any(part in full[1] for part in _CONSTRUCTOR_ONLY), (case, full[1], fast)
                    continue
                assert fast[0] != "refused", (case, fast[1])
                if fast[0] == "ok":
                    counts["predicted"] += 1
                    _same_answers_or_errors(full[1], fast[1], rows, case)
    assert counts["refused"] > 100 and counts["predicted"] > 20, counts


def _same_answers_or_errors(full, fast, rows, case):
    from tests.primo.fuzz_worker import model_rows

    X = model_rows(full, rows)
    methods = ["predict"] + (["predict_proba"] if hasattr(full, "predict_proba") else [])
    for method in methods:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = getattr(full, method)(X)
        except Exception as error:  # noqa: BLE001 - a damaged-but-valid file may make the model refuse rows
            with pytest.raises(type(error)):
                getattr(fast, method)(X)
            continue
        answer = getattr(fast, method)(X)
        if method == "predict":
            np.testing.assert_array_equal(answer, expected, err_msg=case)
        else:
            np.testing.assert_allclose(answer, expected, rtol=0, atol=PROBABILITY_TOLERANCE, err_msg=case)


# --------------------------------------------------------------------------- the command

def _run_predict(args: list[str]) -> tuple[list[str], subprocess.CompletedProcess]:
    """Run ``primo predict`` in a fresh interpreter; returns the heavy libraries it imported."""
    probe = (f"import sys\nfrom primo.cli import main\ncode = main({['predict', *args]!r})\n"
             f"print('loaded:', *(m for m in {HEAVY_LIBRARIES!r} if m in sys.modules), file=sys.stderr)\n"
             "sys.exit(code)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPOSITORY)
    loaded = result.stderr.strip().splitlines()[-1].split()[1:] if "loaded:" in result.stderr else ["?"]
    return loaded, result


@pytest.mark.parametrize("name", ["pram_multiclass", "prdt_classifier", "pram_regressor"])
def test_command_imports_neither_library_and_writes_the_full_paths_output(name, clara_models, data_dir, tmp_path):
    model_path = clara_models[name].save(tmp_path / f"{name}.primo")
    rows = tmp_path / "rows.csv"
    _clara_check_rows(data_dir).assign(extra=1).to_csv(rows, index=False)  # extra columns are ignored
    options = ["--proba"] if "classifier" in name or "multiclass" in name else []
    loaded, result = _run_predict([str(model_path), str(rows), *options, "--out", str(tmp_path / "out.csv")])
    assert result.returncode == 0, result.stderr
    assert loaded == []
    written = pd.read_csv(tmp_path / "out.csv")
    from primo.commands.predict import predictions

    expected = predictions(primo.load(model_path), pd.read_csv(rows), proba=bool(options))
    assert list(written.columns) == list(expected.columns)
    np.testing.assert_array_equal(written["prediction"].to_numpy(), expected["prediction"].to_numpy())
    for column in written.columns[1:]:
        np.testing.assert_allclose(written[column], expected[column], rtol=0, atol=PROBABILITY_TOLERANCE)


def test_command_errors_are_unchanged(clara_models, data_dir, tmp_path):
    model_path = clara_models["prdt_regressor"].save(tmp_path / "tree.primo")
    rows = tmp_path / "rows.csv"
    _clara_check_rows(data_dir).drop(columns="A_i").to_csv(rows, index=False)
    loaded, result = _run_predict([str(model_path), str(rows)])
    assert result.returncode == 2 and "the data lacks the model's feature columns ['A_i']" in result.stderr
    assert loaded == []
    broken = tmp_path / "broken.primo"
    broken.write_bytes(model_path.read_bytes()[:300])
    _, result = _run_predict([str(broken), str(rows)])
    with pytest.raises(ModelFileError) as refused:
        primo.load(broken)
    assert result.returncode == 2 and f"primo predict: error: {refused.value}\n" in result.stderr
    huge = tmp_path / "huge.csv"
    _clara_check_rows(data_dir).assign(A_i=1e39).to_csv(huge, index=False)  # the tree's own error, without it
    loaded, result = _run_predict([str(model_path), str(huge)])
    assert result.returncode == 2 and "column 'A_i' of X holds values beyond float32's range" in result.stderr
    assert loaded == []
