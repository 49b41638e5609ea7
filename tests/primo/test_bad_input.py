"""One bad-input contract (issue 17 item 4): every case raises a named error naming the argument or column,
and neither the caller's data nor a fitted model changes.

Each case builds the failing call from fresh copies of tiny data; the test checks the error type, that the
message names what is wrong, the error's ``argument``/``column`` attributes, and that every object the
call was given (data, and the fitted model) is exactly as before.
"""
from __future__ import annotations

import copy
import logging
import warnings
from dataclasses import dataclass, field
from typing import Callable

import joblib
import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from sklearn.exceptions import NotFittedError

import primo.adjust as adjust
from primo import PrAMClassifier, PrAMRegressor, PrDTClassifier, PrDTRegressor, report
from primo.errors import ColumnMismatchError, InputError, InputTypeError
from primo.export import export_model, to_c, to_json

FAST_PRAM = dict(max_rounds=50, outer_bags=1, n_jobs=1, interactions=0, random_state=0)
FAMILIES = {
    "PrDTClassifier": lambda: PrDTClassifier(max_depth=3, random_state=0),
    "PrDTRegressor": lambda: PrDTRegressor(max_depth=3, random_state=0),
    "PrAMClassifier": lambda: PrAMClassifier(**FAST_PRAM),
    "PrAMRegressor": lambda: PrAMRegressor(**FAST_PRAM),
}
CLASSIFIERS = ("PrDTClassifier", "PrAMClassifier")
REGRESSORS = ("PrDTRegressor", "PrAMRegressor")
PRDT = ("PrDTClassifier", "PrDTRegressor")
PRAM = ("PrAMClassifier", "PrAMRegressor")
ALL = tuple(FAMILIES)


def _table(n: int = 24) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "a": rng.normal(size=n),
        "b": rng.uniform(0, 10, size=n),
        "kind": np.array(["red", "green", "blue"])[np.arange(n) % 3],
    })


def _target(family: str, X: pd.DataFrame) -> np.ndarray:
    if family in CLASSIFIERS:
        return (X["a"] > 0).astype(int).to_numpy()
    return (2 * X["a"] + X["b"]).to_numpy()


@pytest.fixture(scope="module")
def fitted():
    """Each family fit once on the tiny table (the tests never change them: that is what they check)."""
    X = _table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {family: make().fit(X, _target(family, X)) for family, make in FAMILIES.items()}


@dataclass
class Context:
    family: str
    model: object  # the fitted model of the family
    X: pd.DataFrame
    y: np.ndarray

    def fresh(self):
        return FAMILIES[self.family]()


@dataclass
class Case:
    """``call(ctx)`` returns ``(function, watched)``: the failing call and the objects it must leave unchanged."""

    id: str
    families: tuple
    call: Callable
    error: type
    match: str
    argument: str | None = None
    column: str | None = None
    marks: list = field(default_factory=list)


def fit_with(make_args):
    """A fit of a fresh model on ``make_args(ctx) -> (X, y, kwargs)``; the fitted model is watched too."""
    def call(ctx):
        X, y, kwargs = make_args(ctx)
        return (lambda: ctx.fresh().fit(X, y, **kwargs)), [X, y, kwargs, ctx.model]
    return call


def refit_with(make_args):
    """A refit of the already fitted model: a failed refit must leave it as it was."""
    def call(ctx):
        X, y, kwargs = make_args(ctx)
        return (lambda: ctx.model.fit(X, y, **kwargs)), [X, y, kwargs, ctx.model]
    return call


def predict_with(make_X, method="predict"):
    def call(ctx):
        X = make_X(ctx)
        return (lambda: getattr(ctx.model, method)(X)), [X, ctx.model]
    return call


def predict_numeric_with(make_X):
    """A predict of the family fit on the numeric columns only, as an array (sparse rows carry no text)."""
    def call(ctx):
        model, X = ctx.fresh().fit(ctx.X[["a", "b"]].to_numpy(), ctx.y), make_X(ctx)
        return (lambda: model.predict(X)), [X, model]
    return call


def _sparse_with(X, row, value):
    """Columns a and b as a sparse matrix, with ``value`` stored in column b (x1) at ``row``."""
    values = X[["a", "b"]].to_numpy(copy=True)
    values[row, 1] = value
    return scipy.sparse.csr_matrix(values)


def _with_value(X, column, row, value):
    """A copy of ``X`` with one cell replaced (the column becomes object dtype for non-floats)."""
    cells = X[column].tolist()
    cells[row] = value
    dtype = float if isinstance(value, float) else object
    return X.assign(**{column: pd.Series(cells, index=X.index, dtype=dtype)})


def _y_with(ctx, value):
    y = ctx.y.astype(object)
    y[1] = value
    return y


CASES = [
    # ---- X at fit: shapes and types
    Case("fit_X_1d", ALL, fit_with(lambda c: (c.X["a"].to_numpy(), c.y, {})), InputError, "Reshape your data", "X"),
    Case("fit_X_3d", ALL, fit_with(lambda c: (np.zeros((len(c.y), 2, 2)), c.y, {})), InputError, "2-D", "X"),
    Case("fit_X_none", ALL, fit_with(lambda c: (None, c.y, {})), InputTypeError, "X must be a 2-D array", "X"),
    Case("fit_X_empty", ALL, fit_with(lambda c: (c.X.iloc[:0], c.y[:0], {})), InputError, "no rows", "X"),
    Case("fit_X_no_columns", ALL, fit_with(lambda c: (c.X.iloc[:, :0], c.y, {})), InputError, r"0 feature\(s\)", "X"),
    Case("fit_X_complex", ALL, fit_with(lambda c: (np.ones((len(c.y), 2)) * 1j, c.y, {})), InputError,
         "Complex data not supported", "X"),
    Case("fit_X_sparse_pram", PRAM, fit_with(lambda c: (scipy.sparse.csr_matrix(np.ones((len(c.y), 2))), c.y, {})),
         InputTypeError, "sparse", "X"),
    # ---- X at fit: values
    Case("fit_X_sparse_nan_prdt", PRDT, fit_with(lambda c: (_sparse_with(c.X, 2, np.nan), c.y, {})), InputError,
         "column 'x1' of sparse X holds NaN at rows \\[2\\]; .* dense X only: pass X.toarray\\(\\)", "X", "x1"),
    Case("fit_X_sparse_inf_prdt", PRDT, fit_with(lambda c: (_sparse_with(c.X, 3, -np.inf), c.y, {})), InputError,
         "column 'x1' of sparse X holds infinity at rows \\[3\\]", "X", "x1"),
    Case("fit_X_inf_column_prdt", PRDT, fit_with(lambda c: (_with_value(c.X, "b", 2, np.inf), c.y, {})), InputError,
         "column 'b' of X holds infinity at rows \\[2\\]", "X", "b"),
    Case("fit_X_minus_inf_array_prdt", PRDT, fit_with(lambda c: (np.c_[c.X[["a"]].to_numpy(), np.r_[-np.inf, c.X["b"][1:]]],
                                                          c.y, {})), InputError, "column 'x1' of X holds infinity", "X", "x1"),
    Case("fit_X_beyond_float32_prdt", PRDT, fit_with(lambda c: (_with_value(c.X, "a", 3, -1e300), c.y, {})), InputError,
         "column 'a' of X holds values beyond float32's range \\(±3.4e\\+38\\) at rows \\[3\\]", "X", "a"),
    Case("fit_X_datetime", ALL, fit_with(lambda c: (c.X.assign(when=pd.date_range("2026-01-01", periods=len(c.y))),
                                                    c.y, {})), InputError, "column 'when' holds dates", "X", "when"),
    Case("fit_X_dates_as_text", ALL, fit_with(lambda c: (c.X.assign(when=pd.date_range("2026-01-01", periods=len(c.y))
                                                                   .strftime("%Y-%m-%d %H:%M:%S")), c.y, {})),
         InputError, "column 'when' holds dates written as text \\(e.g. '2026-01-01 00:00:00'\\)", "X", "when"),
    Case("fit_X_text_in_array", PRDT, fit_with(lambda c: (_with_value(c.X[["a", "b"]], "b", 3, "eighty").to_numpy(),
                                                          c.y, {})), InputError, "column 'x1' holds text \\('eighty'", "X", "x1"),
    Case("fit_X_list_in_a_cell", ALL, fit_with(lambda c: (_with_value(c.X, "kind", 4, ["red", "blue"]), c.y, {})),
         InputTypeError, "column 'kind' holds a list at row 4 \\(\\['red', 'blue'\\]\\); a cell holds one value", "X", "kind"),
    Case("fit_X_tuple_in_a_cell", ALL, fit_with(lambda c: (_with_value(c.X, "kind", 2, ("red",)), c.y, {})),
         InputTypeError, "column 'kind' holds a tuple at row 2", "X", "kind"),
    Case("fit_X_dict_in_object_array", ALL, fit_with(lambda c: (_with_value(c.X[["a", "b"]].astype(object), "b", 3,
                                                                            {"x": 1}).to_numpy(), c.y, {})),
         InputTypeError, "column 'x1' holds a dict at row 3 .*the argument must be a string", "X", "x1"),
    Case("fit_X_duplicate_columns", ALL, fit_with(lambda c: (c.X.set_axis(["a", "a", "kind"], axis=1), c.y, {})),
         ColumnMismatchError, "duplicate column names \\['a'\\]", "X", "a"),
    Case("fit_X_duplicate_as_text", ALL, fit_with(lambda c: (c.X[["a", "b"]].set_axis([1, "1"], axis=1), c.y, {})),
         ColumnMismatchError, "duplicate column names \\['1'\\]", "X", "1"),
    # ---- y at fit
    Case("fit_y_none", ALL, fit_with(lambda c: (c.X, None, {})), InputError, "requires y", "y"),
    Case("fit_y_holds_none", ALL, fit_with(lambda c: (c.X, _y_with(c, None), {})), InputError,
         "y has missing values \\(None or NaN\\) at rows \\[1\\]", "y"),
    Case("fit_y_nan", ALL, fit_with(lambda c: (c.X, np.r_[np.nan, c.y[1:]], {})), InputError, "y has missing values", "y"),
    Case("fit_y_inf", ALL, fit_with(lambda c: (c.X, np.r_[c.y[:-1], np.inf], {})), InputError,
         "y contains infinity at rows \\[23\\]", "y"),
    Case("fit_y_text_regressor", REGRESSORS, fit_with(lambda c: (c.X, _y_with(c, "eighty"), {})), InputError,
         "y must hold numbers .*row 1 holds 'eighty'", "y"),
    Case("fit_y_fractional_labels", CLASSIFIERS, fit_with(lambda c: (c.X, np.where(c.X["a"] > 0, 0.5, 1.5), {})),
         InputError, "needs class labels, but y holds numbers with a fraction at rows \\[0, 1, 2, 3, 4, ...\\]", "y"),
    Case("fit_y_wrong_length", ALL, fit_with(lambda c: (c.X, c.y[:-4], {})), InputError, "X has 24 rows but y has 20", "y"),
    Case("fit_y_multi_output_pram", PRAM, fit_with(lambda c: (c.X, np.c_[c.y, c.y], {})), InputError,
         "y has shape \\(24, 2\\)", "y"),
    Case("fit_y_3d", ALL, fit_with(lambda c: (c.X, c.y.reshape(-1, 1, 1), {})), InputError, "y must hold one target", "y"),
    Case("fit_y_one_class_pram", ("PrAMClassifier",), fit_with(lambda c: (c.X, np.zeros(len(c.y), int), {})),
         InputError, "single class", "y"),
    # ---- sample_weight
    Case("fit_weight_negative", ALL, fit_with(lambda c: (c.X, c.y, {"sample_weight": np.r_[-1.0, np.ones(23)]})),
         InputError, "negative weights at rows \\[0\\]", "sample_weight"),
    Case("fit_weight_all_zero", ALL, fit_with(lambda c: (c.X, c.y, {"sample_weight": np.zeros(24)})),
         InputError, "sample_weight is all zeros", "sample_weight"),
    Case("fit_weight_nan", ALL, fit_with(lambda c: (c.X, c.y, {"sample_weight": np.r_[np.ones(23), np.nan]})),
         InputError, "sample_weight contains NaN or infinity at rows \\[23\\]", "sample_weight"),
    Case("fit_weight_wrong_length", ALL, fit_with(lambda c: (c.X, c.y, {"sample_weight": np.ones(10)})),
         InputError, "sample_weight has shape \\(10,\\)", "sample_weight"),
    Case("fit_weight_text", ALL, fit_with(lambda c: (c.X, c.y, {"sample_weight": ["heavy"] * 24})),
         InputError, "sample_weight must hold numbers", "sample_weight"),
    # ---- a failed refit leaves the fitted model as it was
    Case("refit_y_holds_none", ALL, refit_with(lambda c: (c.X, _y_with(c, None), {})), InputError, "y has missing", "y"),
    Case("refit_weight_negative", ALL, refit_with(lambda c: (c.X, c.y, {"sample_weight": -np.ones(24)})),
         InputError, "negative weights", "sample_weight"),
    Case("refit_one_class_pram", ("PrAMClassifier",), refit_with(lambda c: (c.X, np.ones(len(c.y), int), {})),
         InputError, "single class", "y"),
    # ---- predict
    Case("predict_before_fit", ALL, lambda c: ((lambda: c.fresh().predict(c.X)), [c.X]), NotFittedError, "not fitted"),
    Case("predict_missing_column", ALL, predict_with(lambda c: c.X[["a", "kind"]]), ColumnMismatchError,
         "missing \\['b'\\]", "X", "b"),
    Case("predict_extra_column", ALL, predict_with(lambda c: c.X.assign(c=1.0)), ColumnMismatchError,
         "unknown \\['c'\\]", "X", "c"),
    Case("predict_renamed_column", ALL, predict_with(lambda c: c.X.rename(columns={"b": "B"})), ColumnMismatchError,
         "unknown \\['B'\\], missing \\['b'\\]", "X", "b"),
    Case("predict_set_in_a_cell", ALL, predict_with(lambda c: _with_value(c.X, "kind", 1, {"red"})), InputTypeError,
         "column 'kind' holds a set at row 1", "X", "kind"),
    Case("predict_duplicate_column", ALL, predict_with(lambda c: pd.concat([c.X, c.X[["a"]]], axis=1)),
         ColumnMismatchError, "duplicate column names \\['a'\\]", "X", "a"),
    Case("predict_array_wrong_count", ALL, predict_with(lambda c: np.zeros((3, 2))), ColumnMismatchError,
         "X has 2 features, but .* is expecting 3", "X"),
    Case("predict_1d_row", ALL, predict_with(lambda c: c.X.iloc[0].to_numpy()), InputError, "Reshape your data", "X"),
    Case("predict_empty", ALL, predict_with(lambda c: c.X.iloc[:0]), InputError, "no rows", "X"),
    Case("predict_none", ALL, predict_with(lambda c: None), InputTypeError, "X must be a 2-D array", "X"),
    Case("predict_text_in_numeric_column", ALL, predict_with(lambda c: _with_value(c.X, "b", 4, "eighty")), InputError,
         "column 'b' holds text \\('eighty' at row 4\\)", "X", "b"),
    Case("predict_dict_in_numeric_column", ALL, predict_with(lambda c: _with_value(c.X, "a", 0, {"x": 1})),
         InputTypeError, "column 'a' holds a dict", "X", "a"),
    Case("predict_datetime_column", ALL, predict_with(lambda c: c.X.assign(a=pd.date_range("2026", periods=24))),
         InputError, "column 'a' holds dates", "X", "a"),
    Case("predict_inf_prdt", PRDT, predict_with(lambda c: _with_value(c.X, "a", 5, -np.inf)), InputError,
         "column 'a' of X holds infinity at rows \\[5\\]", "X", "a"),
    Case("predict_beyond_float32_array_prdt", PRDT, predict_with(lambda c: np.c_[c.X[["a", "b"]].to_numpy(), np.zeros(24)]
                                                                 * np.r_[1e300, np.ones(23)][:, None]),
         InputError, "column 'a' of X holds values beyond float32's range .* at rows \\[0\\]", "X", "a"),
    Case("predict_sparse_nan_prdt", PRDT, predict_numeric_with(lambda c: _sparse_with(c.X, 5, np.nan)), InputError,
         "column 'x1' of sparse X holds NaN at rows \\[5\\]", "X", "x1"),
    Case("predict_sparse_rows_for_text_categories_prdt", PRDT,
         predict_with(lambda c: scipy.sparse.csr_matrix(np.ones((3, 3)))), InputTypeError,
         "X is a sparse matrix, but .* reads \\['kind'\\] as text categories: pass a DataFrame", "X", "kind"),
    Case("predict_proba_missing_column", CLASSIFIERS, predict_with(lambda c: c.X[["a"]], "predict_proba"),
         ColumnMismatchError, "missing \\['b', 'kind'\\]", "X", "b"),
    # ---- adjust
    Case("monotonize_unknown_feature", ALL, lambda c: (
        (lambda: adjust.monotonize(c.model, "speed", X_train=c.X, y_train=c.y)), [c.X, c.y, c.model]),
        InputError, "unknown (term|feature) 'speed'", None, "speed"),
    Case("monotonize_inplace_one_unknown", PRAM, lambda c: (
        (lambda: adjust.monotonize(c.model, ["a", "speed"], inplace=True)), [c.model]),
        InputError, "unknown term 'speed'", "term", "speed"),
    Case("monotonize_nominal", ("PrAMRegressor", "PrDTRegressor"), lambda c: (
        (lambda: adjust.monotonize(c.model, "kind", X_train=c.X, y_train=c.y)), [c.X, c.y, c.model]),
        InputError, "nominal", "features", "kind"),
    Case("monotonize_bad_direction", ALL, lambda c: (
        (lambda: adjust.monotonize(c.model, "a", direction="upwards", X_train=c.X, y_train=c.y)), [c.model]),
        InputError, "direction must be one of", "direction"),
    Case("edit_unknown_term", ("PrAMRegressor",), lambda c: (
        (lambda: adjust.shift_term_scores(c.model, "speed", 1.0, inplace=True)), [c.model]),
        InputError, "unknown term 'speed'", "term", "speed"),
    Case("leaf_edit_on_pram", ("PrAMRegressor",), lambda c: ((lambda: adjust.set_leaf_value(c.model, 0, 1.0)), [c.model]),
         TypeError, "needs a fitted PrDT"),
    Case("counterfactual_reference_missing_column", ALL, lambda c: (
        (lambda: adjust.counterfactuals(c.model, c.X.iloc[[0]], c.y[1], c.X[["a", "kind"]])), [c.X, c.model]),
        ColumnMismatchError, "reference_X lacks the model's features \\['b'\\]", "reference_X", "b"),
    # ---- report
    Case("report_two_column_y", ALL, lambda c: (
        (lambda: report.build(c.model, c.X, np.c_[c.y, c.y], measure_latency=False)), [c.X, c.y, c.model]),
        InputError, "y has shape \\(24, 2\\)", "y"),
    Case("report_y_holds_none", ALL, lambda c: (
        (lambda: report.build(c.model, c.X, _y_with(c, None), measure_latency=False)), [c.X, c.model]),
        InputError, "y has missing values .* rows \\[1\\]", "y"),
    Case("report_wrong_columns", ALL, lambda c: (
        (lambda: report.build(c.model, c.X[["a", "b"]], c.y, measure_latency=False)), [c.X, c.model]),
        ColumnMismatchError, "missing \\['kind'\\]", "X", "kind"),
    Case("report_unfitted", ALL, lambda c: ((lambda: report.build(c.fresh())), []), InputTypeError,
         "expected a fitted PrDT or PrAM", "model"),
    # ---- export
    Case("export_unknown_format", ALL, lambda c: ((lambda: export_model(c.model, "xml", "unused.xml")), [c.model]),
         InputError, "unknown export format 'xml'", "format"),
    Case("export_unfitted", ALL, lambda c: ((lambda: to_c(c.fresh())), []), TypeError,
         "expected a fitted PrDT or PrAM"),
    Case("export_not_a_model", ("PrDTRegressor",), lambda c: ((lambda: to_json({"tree": 1})), []), TypeError,
         "expected a fitted PrDT or PrAM"),
]

PARAMS = [pytest.param(case, family, id=f"{case.id}-{family}") for case in CASES for family in case.families]


def _fingerprint(value):
    """What 'unchanged' compares: data by content, types and labels; models by every attribute."""
    if isinstance(value, pd.DataFrame):
        return ("frame", tuple(map(str, value.columns)), tuple(map(str, value.dtypes)), joblib.hash(value))
    if scipy.sparse.issparse(value):
        return ("sparse", joblib.hash(value.toarray()))
    return joblib.hash(value)


def test_the_table_is_large_enough():
    assert len(CASES) >= 40 and len(PARAMS) >= 150


@pytest.mark.parametrize("case, family", PARAMS)
def test_bad_input_raises_a_named_error_and_changes_nothing(case, family, fitted, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an export that wrongly succeeded would write here, not in the repository
    X = _table()
    context = Context(family, fitted[family], X, _target(family, X))
    call, watched = case.call(context)
    before = [_fingerprint(v) for v in watched]
    copies = copy.deepcopy([v for v in watched if not hasattr(v, "fit")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(case.error, match=case.match) as caught:
            call()
    if case.argument is not None:
        assert caught.value.argument == case.argument
    if case.column is not None:
        assert caught.value.column == case.column
    assert [_fingerprint(v) for v in watched] == before, "the failed call changed its input or the model"
    for original, kept in zip([v for v in watched if not hasattr(v, "fit")], copies):
        if isinstance(original, pd.DataFrame):
            pd.testing.assert_frame_equal(original, kept)
    assert not list(tmp_path.iterdir()), "a failed export left a file behind"


# ---- what the contract accepts, the same way in both families


@pytest.mark.parametrize("family", ALL)
def test_columns_match_by_name_in_any_order(family, fitted):
    model, X = fitted[family], _table()
    shuffled = X[["kind", "b", "a"]]
    np.testing.assert_array_equal(model.predict(shuffled), model.predict(X))
    assert list(shuffled.columns) == ["kind", "b", "a"]  # the caller's frame is not reordered


@pytest.mark.parametrize("family", ALL)
def test_non_text_column_names_are_matched_as_text(family):
    X = _table()[["a", "b"]].set_axis([0, 1], axis=1)
    y = _target(family, _table())
    model = FAMILIES[family]().fit(X, y)
    assert model.feature_names_ == ["0", "1"]
    np.testing.assert_array_equal(model.predict(X.set_axis(["0", "1"], axis=1)), model.predict(X))
    np.testing.assert_array_equal(model.predict(X[[1, 0]]), model.predict(X))


@pytest.mark.parametrize("family", PRAM)
def test_pram_reads_infinity_beyond_every_bin_edge(family):
    """PrAM's contract (its exports reproduce it): ±inf falls in the outermost bins, at fit and predict."""
    X = _table()[["a", "b"]].to_numpy(copy=True)
    y = _target(family, _table())
    X_inf = X.copy()
    X_inf[0, 0], X_inf[1, 1] = np.inf, -np.inf
    model = FAMILIES[family]().fit(X_inf, y)
    rows = np.array([[np.inf, 1.0], [1e300, 1.0], [-np.inf, 1.0], [-1e300, 1.0]])
    raw = model.decision_function(rows) if family in CLASSIFIERS else model.predict(rows)
    assert raw[0] == raw[1] and raw[2] == raw[3]
    frame = pd.DataFrame(rows, columns=["x0", "x1"])
    assert FAMILIES[family]().fit(pd.DataFrame(X_inf, columns=["x0", "x1"]), y).predict(frame).shape == (4,)


@pytest.mark.parametrize("family", ALL)
def test_missing_values_are_accepted_at_fit_and_predict(family):
    X = _table()
    X.loc[[1, 5], "a"] = np.nan
    model = FAMILIES[family]().fit(X, _target(family, _table()))
    assert np.all(pd.notna(model.predict(X)))


@pytest.mark.parametrize("family", PRDT)
def test_prdt_fits_sparse_rows_like_dense_ones(family):
    X = _table()[["a", "b"]].to_numpy(copy=True)
    X[X < 0.5] = 0.0
    y = _target(family, _table())
    dense = FAMILIES[family]().fit(X, y)
    sparse = FAMILIES[family]().fit(scipy.sparse.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.predict(scipy.sparse.csr_matrix(X)), dense.predict(X), rtol=1e-12)


def test_prdt_classifier_with_one_class_predicts_it():
    """scikit-learn's contract: a one-class tree is valid (one leaf); PrAM refuses one class (see the table)."""
    X = _table()
    model = PrDTClassifier().fit(X, np.full(len(X), "busy"))
    assert set(model.predict(X)) == {"busy"}


def test_pram_drops_zero_weight_rows_without_touching_the_callers_weights():
    X = _table()
    y = _target("PrAMRegressor", X)
    weights = np.r_[np.zeros(4), np.ones(20)]
    kept = weights.copy()
    PrAMRegressor(**FAST_PRAM).fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(weights, kept)


@pytest.mark.parametrize("family", ALL)
def test_a_successful_fit_and_predict_leave_the_callers_data_as_it_was(family):
    X = _table().assign(flag=lambda t: t["a"] > 0.5)
    X.loc[[2, 7], "b"] = np.nan
    X.loc[3, "kind"] = None
    X = X.set_axis(["a", 1, "kind", "flag"], axis=1)  # a non-text name, renamed as text inside the model only
    y, weights = _target(family, _table()), np.linspace(0.5, 2.0, 24)
    watched = [X, y, weights]
    before = [_fingerprint(v) for v in watched]
    model = FAMILIES[family]().fit(X, y, sample_weight=weights)
    model.predict(X[["flag", "kind", 1, "a"]])
    assert [_fingerprint(v) for v in watched] == before
    assert list(X.columns) == ["a", 1, "kind", "flag"]


@pytest.mark.parametrize("selection, bad", [(s, b) for s in ("PrimoClassifier", "PrimoRegressor", "RandomSearch")
                                            for b in ("nan", "none", "inf", "short")
                                            if (s, b) != ("PrimoClassifier", "inf")])  # infinity: a regressor's problem
def test_searches_and_selection_name_a_bad_target_before_any_trial(selection, bad):
    """The target is checked as the families check it, before a search splits or scores anything."""
    from primo import PrimoClassifier, PrimoRegressor
    from primo.search import RandomSearch

    classifier = selection == "PrimoClassifier"
    y = _target("PrDTClassifier" if classifier else "PrDTRegressor", _table()).astype(object if classifier else float)
    y = {"nan": lambda: np.r_[y[:5], np.nan, y[6:]], "none": lambda: np.r_[y[:5], None, y[6:]],
         "inf": lambda: np.r_[y[:5], np.inf, y[6:]], "short": lambda: y[:-4]}[bad]()
    estimator = {"PrimoClassifier": lambda: PrimoClassifier(n_trials=2, progress=False),
                 "PrimoRegressor": lambda: PrimoRegressor(n_trials=2, progress=False),
                 "RandomSearch": lambda: RandomSearch(PrDTRegressor(), n_trials=2, progress=False)}[selection]()
    message = {"nan": r"missing values .* at rows \[5\]", "none": r"missing values .* at rows \[5\]",
               "inf": r"infinity at rows \[5\]", "short": "X has 24 rows but y has 20"}[bad]
    with pytest.raises(InputError, match=message) as caught:
        estimator.fit(_table(), y)
    assert caught.value.argument == "y"


@pytest.mark.parametrize("selection", ["PrimoRegressor", "RandomSearch"])
@pytest.mark.parametrize("dates", ["datetime", "text"])
def test_searches_and_selection_name_a_date_column_before_any_trial(selection, dates, caplog):
    """Input every trial would refuse is named once, not in a failed trial per configuration."""
    from primo import PrimoRegressor
    from primo.search import RandomSearch

    when = pd.date_range("2026-01-01", periods=len(_table()))
    X = _table().assign(when=when if dates == "datetime" else when.strftime("%Y-%m-%d"))
    estimator = {"PrimoRegressor": lambda: PrimoRegressor(n_trials=2, progress=False),
                 "RandomSearch": lambda: RandomSearch(PrAMRegressor(), n_trials=2, progress=False)}[selection]()
    with caplog.at_level(logging.WARNING), pytest.raises(InputError, match="column 'when' holds dates") as caught:
        estimator.fit(X, _target("PrDTRegressor", _table()))
    assert caught.value.column == "when" and "failed" not in caplog.text


def test_selection_names_itself_for_fractional_labels_and_drops_pram_once_for_one_class(caplog):
    """Float class labels get a Primo error naming PrimoClassifier (not scikit-learn's bare "Unknown label type");
    a single class is refused by PrAM once, before any trial, and the one-leaf PrDT is kept with one warning."""
    from primo import PrimoClassifier

    X = _table()
    with pytest.raises(InputError, match="PrimoClassifier needs class labels.*first: 0.5") as caught:
        PrimoClassifier(n_trials=2, progress=False).fit(X, np.where(X["a"] > 0, 0.5, 1.5))
    assert caught.value.argument == "y"
    with caplog.at_level(logging.WARNING), pytest.warns(UserWarning, match="pram: y has a single class") as caught:
        model = PrimoClassifier(n_trials=2, progress=False).fit(X, np.ones(len(X), int))
    assert not [r for r in caplog.records if "trial" in r.getMessage()]
    assert len([w for w in caught if "single class" in str(w.message)]) == 1
    assert model.best_family_ == "prdt" and list(model.predict(X.head(3))) == [1, 1, 1]


def test_prdt_warns_when_float32_cannot_tell_a_columns_values_apart():
    """Epoch seconds in float32 (scikit-learn's trees) are 128-second steps: the tree could not split between
    jobs submitted a minute apart, silently. The warning names the column; the same times as offsets fit quietly."""
    rng = np.random.default_rng(0)
    seconds = np.sort(rng.uniform(0, 86400, 2000))
    X = pd.DataFrame({"submitted": 1.7e9 + seconds, "load": rng.normal(size=2000)})
    y = (seconds % 600 > 300).astype(float)
    with pytest.warns(UserWarning, match=r"float32.*'submitted' \(2,000 distinct values, 640 in float32\)"):
        PrDTRegressor().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PrDTRegressor().fit(X.assign(submitted=seconds), y)
        PrDTRegressor().fit(X.to_numpy() - [1.7e9, 0.0], y)
    with pytest.warns(UserWarning, match="'x0'"):
        PrDTClassifier().fit(X.to_numpy(), y > 0)
