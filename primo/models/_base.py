"""What every Primo model shares: complexity, metadata, model files, input checks.

The input checks are one contract for both families (see :mod:`primo.errors`): a bad ``X``, ``y`` or
``sample_weight`` raises an :class:`~primo.errors.InputError` naming the argument and column before
anything is fitted or changed, and DataFrame columns are matched to the model's by name (as text), in
any order. They are written here rather than left to scikit-learn's ``check_array`` because its
messages name neither the column nor the rows at fault, and PrAM's DataFrames go to interpret without it.
"""
from __future__ import annotations

import contextlib
import contextvars
import sys
import warnings

import numpy as np
import pandas as pd
from pandas.api.types import infer_dtype

from primo.errors import ColumnMismatchError, InputError, InputTypeError, InputWarning, rows_text
from primo.models.encoding import (CATEGORICAL, NUMERIC, check_no_dates_as_text, dtype_kind, frame_from_arrow,
                                   numeric_values, plain_columns)


def check_is_fitted(model) -> None:
    """scikit-learn's ``check_is_fitted``, imported only when the model does not answer "fitted" itself.

    A predictor read from a model file (:mod:`primo.export.saved`) is fitted by construction and says
    so through scikit-learn's ``__sklearn_is_fitted__`` protocol; answering it here keeps scikit-learn
    (a second of imports) out of ``primo predict``.

    Example
    -------
    >>> class Ready:
    ...     def __sklearn_is_fitted__(self):
    ...         return True
    >>> check_is_fitted(Ready())
    """
    answer = getattr(model, "__sklearn_is_fitted__", None)
    if answer is not None and answer():
        return
    from sklearn.utils.validation import check_is_fitted as sklearn_check_is_fitted

    sklearn_check_is_fitted(model)


def _is_sparse(X) -> bool:
    # A SciPy sparse matrix cannot exist before scipy.sparse is imported, so it is not imported to ask.
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(X)


def count_rows(X) -> int:
    """The number of rows of ``X``: its ``shape[0]`` when it has a shape (a sparse matrix has no ``len``), else
    ``len(X)`` (a list of rows).

    Example
    -------
    >>> count_rows(np.zeros((3, 2))), count_rows([[1.0], [2.0]])
    (3, 2)
    """
    return X.shape[0] if hasattr(X, "shape") else len(X)


class PrimoModelMixin:
    """Mixin for Primo estimators.

    Subclasses implement ``complexity_`` (the paper's C(θ)) and ``_get_state``/``_set_state``
    (their fitted attributes as plain values and arrays, for :mod:`primo.io`). ``metadata_`` is a
    JSON-able dict carried in the model file: search history, distillation history, edit log.
    """

    def save(self, path, *, overwrite_read_only=False):
        """Save the fitted model to ``path`` atomically; reload with :func:`primo.load`.

        A read-only ``path`` is refused unless ``overwrite_read_only=True``.

        Example
        -------
        >>> model.save("model.primo")  # doctest: +SKIP
        """
        from primo.io import save_model

        check_is_fitted(self)
        return save_model(self, path, overwrite_read_only=overwrite_read_only)

    @property
    def feature_names_(self) -> list[str]:
        """Feature names used in printed rules and reports (``x0``, ``x1``… when fit on arrays)."""
        check_is_fitted(self)
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            return [f"x{i}" for i in range(self.n_features_in_)]
        return [str(n) for n in names]

    #: Whether ±infinity in X is a value the family reads (PrAM: beyond every bin edge) or an error (PrDT:
    #: scikit-learn's trees work in float32 and refuse it).
    _accepts_infinity = False

    def _features_read_as_numbers(self) -> list[int]:
        """Positions of the features the fitted model reads as numbers (text there is an error)."""
        return list(range(self.n_features_in_))


def _column_names(model, n_columns: int) -> list[str]:
    names = getattr(model, "feature_names_in_", None) if model is not None else None
    if names is not None and len(names) == n_columns:
        return [str(n) for n in names]
    return [f"x{j}" for j in range(n_columns)]


def _as_array(X, who: str, argument: str = "X") -> np.ndarray:
    """``X`` (not a DataFrame or sparse matrix) as a 2-D NumPy array, or an error saying what it is
    (``argument``: the caller's name for it)."""
    if X is None or isinstance(X, (str, bytes, dict)) or np.isscalar(X):
        raise InputTypeError(
            f"{argument} must be a 2-D array or a DataFrame of shape (n_samples, n_features), got {type(X).__name__}",
            argument=argument)
    try:
        array = np.asarray(X)
    except (TypeError, ValueError) as error:
        raise InputError(f"{argument} cannot be read as a table of rows ({error})", argument=argument) from None
    if array.ndim != 2:
        raise InputError(
            f"{argument} must be 2-D (n_samples, n_features) for {who}, got a {array.ndim}-D array of shape "
            f"{array.shape}; Reshape your data with {argument}.reshape(-1, 1) for a single feature or "
            f"{argument}.reshape(1, -1) for a single row", argument=argument)
    return array


#: How to get dense rows, where the sparse matrix came from (in a Pipeline, the preprocessing step).
DENSE_ROWS = ("pass X.toarray() (in a Pipeline: ColumnTransformer(sparse_threshold=0) or "
              "OneHotEncoder(sparse_output=False))")


def _check_shape(n_rows: int, n_columns: int, argument: str = "X") -> None:
    if n_columns == 0:
        # scikit-learn's estimator checks look for this wording.
        raise InputError(f"{argument} has 0 feature(s) (shape=({n_rows}, 0)) while a minimum of 1 is required.",
                         argument=argument)
    if n_rows == 0:
        raise InputError(f"{argument} has no rows (shape=(0, {n_columns})); pass at least one row", argument=argument)


def _text_names(X: pd.DataFrame, argument: str = "X") -> pd.DataFrame:
    """``X`` with its column names as text (how Primo matches them), refusing duplicates."""
    names = [str(c) for c in X.columns]
    seen, duplicates = set(), []
    for name in names:
        if name in seen and name not in duplicates:
            duplicates.append(name)
        seen.add(name)
    if duplicates:
        raise ColumnMismatchError(
            f"{argument} has duplicate column names {duplicates} (compared as text); give each column its own name",
            argument=argument, column=duplicates[0])
    return X if names == list(X.columns) else X.set_axis(names, axis=1)


#: A text or category column with more distinct values than this share of the rows (and at least
#: IDENTIFIER_MIN_VALUES of them) is warned about at fit: as categories most values are seen about once, so a
#: new row's is likely unknown. Caught on held-out tables: a district name in 409 of 420 rows (Caschool), a
#: subject id (mao), free-text descriptions in 847 of 996 rows (nace_rev2, whose pair terms took 300x longer).
#: A numeric column of at least IDENTIFIER_MIN_VALUES rows holding each integer of a range once is too: on the
#: 248 tables of sampled_tables.py's draws 1-9 that rule flags 16 columns, 15 of them row numbers or ids (`id`,
#: `obs`, `INDEX`, `case`, `patnr`, ...) and one a time index (Births78's `day_of_year`).
IDENTIFIER_SHARE = 0.5
IDENTIFIER_MIN_VALUES = 50

#: scikit-learn's trees read X as float32, where any larger magnitude becomes infinity.
FLOAT32_MAX = float(np.finfo(np.float32).max)


def _beyond_float32(values: np.ndarray) -> np.ndarray:
    """Where ``values`` are infinite or become so in float32 (NaN is not)."""
    return np.abs(values) > FLOAT32_MAX


def beyond_float32_text(values: np.ndarray) -> str:
    """What ``values`` hold beyond float32's range, in words: ``infinity`` or ``values beyond float32's range``."""
    beyond = _beyond_float32(values)
    return "infinity" if np.isinf(values[beyond]).all() else f"values beyond float32's range (±{FLOAT32_MAX:.3g})"


def _infinity_error(name: str, values: np.ndarray, argument: str = "X") -> InputError:
    return InputError(
        f"column {name!r} of {argument} holds {beyond_float32_text(values)} at rows "
        f"{rows_text(_beyond_float32(values))}; "
        "a PrDT reads NaN as missing but cannot read these (scikit-learn's trees work in float32): replace them with "
        "NaN, or clip or rescale the column to finite float32 numbers", argument=argument, column=name)


def _check_cells_are_values(X: pd.DataFrame, kinds, argument: str = "X") -> None:
    """A list, dict, tuple, set or array in a cell of an ``object`` column, named with its column and row
    (hashing it as a category would fail without saying where)."""
    for j, kind in enumerate(kinds):
        column = X.iloc[:, j]
        # infer_dtype reads the column in C; only a column of mixed types is read again in Python.
        if kind != CATEGORICAL or column.dtype != object or infer_dtype(column, skipna=True) != "mixed":
            continue
        row = next((i for i, value in enumerate(column) if not pd.api.types.is_scalar(value)), None)
        if row is not None:
            value = column.iloc[row]
            raise InputTypeError(
                f"column {str(X.columns[j])!r} holds a {type(value).__name__} at row {row} ({repr(value)[:60]}); a cell "
                "holds one value: the argument must be a string, a number, a boolean or missing", argument=argument,
                column=str(X.columns[j]))


def _numbers_the_rows(column: pd.Series) -> bool:
    """Whether a numeric column holds each integer of a range as long as the table exactly once (a row
    number or a sequential id); most columns are ruled out by their range alone."""
    rows = len(column)
    if column.dtype.kind not in "iuf" or rows < IDENTIFIER_MIN_VALUES:
        return False
    low, high = float(column.min()), float(column.max())
    if high - low + 1 != rows or column.isna().any():
        return False
    values = column.to_numpy(dtype=np.float64)
    return bool((values == np.floor(values)).all()) and column.nunique() == rows


def _warn_identifier_columns(X: pd.DataFrame) -> None:
    """Warn, naming them, about text or category columns that look like identifiers or free text, and
    numeric columns that number the rows."""
    rows = len(X)
    found, numbering = [], []
    for j, dtype in enumerate(X.dtypes):
        name, column = str(X.columns[j]), X.iloc[:, j]
        if dtype_kind(dtype, X.columns[j]) != CATEGORICAL:
            if _numbers_the_rows(column):
                numbering.append(f"{name!r} (each integer from {column.min():.0f} to {column.max():.0f} once)")
            continue
        distinct = column.nunique()
        if distinct >= IDENTIFIER_MIN_VALUES and distinct > IDENTIFIER_SHARE * rows:
            found.append(f"{name!r} ({distinct:,} distinct values in {rows:,} rows)")
    if found:
        warnings.warn(f"column(s) {', '.join(found)} look like identifiers or free text: as categories most values "
                      "are seen about once, and a new row's value is likely unknown to the model (it reads as an "
                      "unseen category); drop them or derive features from them", InputWarning, stacklevel=4)
    if numbering:
        # Tables are often stored sorted (by the target, a group, a date): a row number then carries that
        # order, which cross-validation rewards and new rows do not share.
        warnings.warn(f"column(s) {', '.join(numbering)} look like row numbers or sequential ids: the model reads "
                      "them as numbers and learns from the order the rows were stored in, which new rows do not "
                      "share; drop them, unless they are a time index the model should use", InputWarning,
                      stacklevel=4)


def _check_frame_values(X: pd.DataFrame, read_as_numbers, allow_infinity: bool, argument: str = "X") -> None:
    """Dates, containers in cells, infinity (unless allowed) and text where the model reads numbers, each
    named by column."""
    # Kinds come from the dtypes and float columns are read as one block: this runs on every predict.
    dtypes = list(X.dtypes)
    kinds = [dtype_kind(dtype, name) for name, dtype in zip(X.columns, dtypes)]
    _check_cells_are_values(X, kinds, argument)
    if not allow_infinity:
        floats = [j for j, dtype in enumerate(dtypes) if kinds[j] == NUMERIC and dtype.kind == "f"]
        if floats:
            block = X if len(floats) == X.shape[1] else X.iloc[:, floats]
            infinite = _beyond_float32(block.to_numpy(dtype=np.float64, na_value=np.nan))
            if infinite.any():
                j = floats[int(np.flatnonzero(infinite.any(axis=0))[0])]
                raise _infinity_error(X.columns[j], X.iloc[:, j].to_numpy(dtype=np.float64, na_value=np.nan), argument)
    for j in read_as_numbers:
        if kinds[j] == CATEGORICAL:  # numbers stored as objects or text
            values = numeric_values(X.iloc[:, j], X.columns[j], argument)
            if not allow_infinity and _beyond_float32(values).any():
                raise _infinity_error(X.columns[j], values, argument)


def _check_array_values(array: np.ndarray, names: list[str], read_as_numbers, allow_infinity: bool,
                        argument: str = "X") -> None:
    kind = array.dtype.kind
    if kind == "c":
        raise InputError(f"Complex data not supported: {argument} holds complex numbers", argument=argument)
    if kind in "mM":
        raise InputError(f"{argument} holds dates or times ({array.dtype}); Primo models need numbers: derive numeric "
                         "features first (hours, weekdays, seconds since a reference)", argument=argument)
    if kind in "fiub":
        if kind == "f" and not allow_infinity:
            columns = _beyond_float32(array).any(axis=0)
            if columns.any():
                j = int(np.flatnonzero(columns)[0])
                raise _infinity_error(names[j], array[:, j], argument)
        return
    # A list or dict in a cell, named as in a frame (a family reading text reads the array's cells as values).
    _check_cells_are_values(pd.DataFrame(array, columns=names, copy=False), [CATEGORICAL] * len(names), argument)
    for j in read_as_numbers:  # text in an object array: only where the model reads numbers
        values = numeric_values(pd.Series(array[:, j]), names[j], argument)
        if not allow_infinity and _beyond_float32(values).any():
            raise _infinity_error(names[j], values, argument)


def _check_sample_weight(sample_weight, n_rows: int) -> None:
    if sample_weight is None:
        return
    try:
        weights = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("sample_weight must hold numbers, one weight per row of X", argument="sample_weight") from None
    if weights.ndim == 0:  # one weight for every row, as scikit-learn allows
        weights = np.full(n_rows, float(weights))
    if weights.shape != (n_rows,):
        raise InputError(f"sample_weight has shape {weights.shape}; expected one weight per row of X: ({n_rows},)",
                         argument="sample_weight")
    if not np.all(np.isfinite(weights)):
        raise InputError(f"sample_weight contains NaN or infinity at rows {rows_text(~np.isfinite(weights))}",
                         argument="sample_weight")
    if np.any(weights < 0):
        raise InputError(f"sample_weight has negative weights at rows {rows_text(weights < 0)}; weights must be >= 0",
                         argument="sample_weight")
    if not np.any(weights > 0):
        raise InputError("sample_weight is all zeros: at least one row needs a positive weight",
                         argument="sample_weight")


def check_target(model, y, n_rows: int, *, classifier: bool, multi_output: bool) -> None:
    """Check a training target for ``model``: present, one value per row of X, no missing value or infinity,
    numbers for a regressor; the error names the problem and the rows."""
    who = type(model).__name__
    if y is None:
        raise InputError(f"{who} requires y to be passed, but the target y is None", argument="y")
    target = np.asarray(y)
    if target.ndim == 0 or target.ndim > 2:
        raise InputError(f"y must hold one target per row of X (1-D), got shape {target.shape}", argument="y")
    if target.ndim == 2 and target.shape[1] != 1 and not multi_output:
        raise InputError(f"y has shape {target.shape}, but {who} predicts one target: y should be a 1d array "
                         "with one value per row", argument="y")
    if len(target) != n_rows:
        raise InputError(f"X has {n_rows} rows but y has {len(target)}; give one target per row", argument="y")
    if target.dtype.kind == "c":
        raise InputError("Complex data not supported: y holds complex numbers", argument="y")
    missing = np.asarray(pd.isna(target))
    if not classifier and target.dtype.kind not in "fiub":
        numbers = pd.to_numeric(pd.Series(target.ravel(), dtype=object), errors="coerce").to_numpy()
        text = np.isnan(numbers.astype(np.float64)) & ~missing.ravel()
        if text.any():
            row = int(np.flatnonzero(text)[0]) // (target.shape[1] if target.ndim == 2 else 1)
            raise InputError(f"y must hold numbers for {who}; row {row} holds {str(target.ravel()[text][0])!r}", argument="y")
    missing_rows = missing.any(axis=1) if missing.ndim == 2 else missing
    if missing_rows.any():
        raise InputError(f"y has missing values (None or NaN) at rows {rows_text(missing_rows)}; "
                         "drop those rows or fill them in", argument="y")
    if target.dtype.kind == "f":
        infinite = np.isinf(target)
        infinite_rows = infinite.any(axis=1) if infinite.ndim == 2 else infinite
        if infinite_rows.any():
            raise InputError(f"y contains infinity at rows {rows_text(infinite_rows)}", argument="y")
        fractional = target != np.round(target)
        fractional_rows = fractional.any(axis=1) if fractional.ndim == 2 else fractional
        if classifier and fractional_rows.any():
            # scikit-learn's words ("Unknown label type: continuous") kept, so its estimator checks still match.
            first = float(target.ravel()[fractional.ravel()][0])
            raise InputError(f"Unknown label type: continuous. {who} needs class labels, but y holds numbers with "
                             f"a fraction at rows {rows_text(fractional_rows)} (first: {first!r}); fit a regressor "
                             "for a numeric target, or give the classes as whole numbers or text", argument="y")


def check_training_input(model, X, y, sample_weight=None, *, classifier: bool, multi_output: bool,
                         accept_sparse: bool, text_in_arrays: bool):
    """Check what ``fit`` was given, naming the argument and column at fault; the caller's data is not changed.

    Returns ``X`` itself, except that an Arrow table (polars, pyarrow) becomes a DataFrame
    (:func:`~primo.models.encoding.frame_from_arrow`), a DataFrame's column names become text (how predictions match
    them) and its Arrow-backed columns and ``object`` columns of numbers NumPy-backed ones
    (:func:`~primo.models.encoding.plain_columns`). ``accept_sparse``: the family fits sparse matrices;
    ``text_in_arrays``: an object array may hold text (categories) rather than numbers only.

    Example
    -------
    >>> from primo import PrDTRegressor
    >>> check_training_input(PrDTRegressor(), np.ones((2, 1)), [1.0, -np.inf], classifier=False,
    ...                      multi_output=True, accept_sparse=True, text_in_arrays=False)
    Traceback (most recent call last):
    ...
    primo.errors.InputError: y contains infinity at rows [1]
    """
    who, allow_infinity = type(model).__name__, model._accepts_infinity
    X = frame_from_arrow(X)
    if isinstance(X, pd.DataFrame):
        n_rows, n_columns = X.shape
        _check_shape(n_rows, n_columns)
        X = plain_columns(_text_names(X))
        _check_frame_values(X, (), allow_infinity)
        check_no_dates_as_text(X)
        _warn_identifier_columns(X)
    elif _is_sparse(X):
        if not accept_sparse:
            raise InputTypeError(f"X is a sparse matrix, but {who} needs dense rows: {DENSE_ROWS}", argument="X")
        n_rows, n_columns = X.shape
        _check_shape(n_rows, n_columns)
    else:
        array = _as_array(X, who)
        n_rows, n_columns = array.shape
        _check_shape(n_rows, n_columns)
        _check_array_values(array, _column_names(None, n_columns), () if text_in_arrays else range(n_columns),
                            allow_infinity)
    check_target(model, y, n_rows, classifier=classifier, multi_output=multi_output)
    _check_sample_weight(sample_weight, n_rows)
    return X


def _numeric_frame_values(model, X: pd.DataFrame, known) -> np.ndarray | None:
    """The float64 values of ``X`` when it is already what the model reads, else ``None``.

    "Already": the model's column names in its order (as text, so no duplicates), at least one row,
    every column int or float, every feature read as a number, and no infinity unless the family
    reads it. This is every check :func:`check_prediction_input` makes, answered from the column
    index and pandas' dtype blocks instead of column by column (a 1-row call is mostly this
    overhead); anything else returns ``None`` and takes the full path, which names the problem.
    """
    if known is None or X.shape[0] == 0 or X.shape[1] != len(known):
        return None
    # pandas' internal blocks give every dtype without building the dtypes Series (~10x cheaper); an
    # Arrow-backed frame is converted on the full path (interpret cannot read it as it is).
    if not all(block.dtype.kind in "fiu" and not isinstance(block.dtype, pd.ArrowDtype) for block in X._mgr.blocks):
        return None
    if X.columns.tolist() != known or len(model._features_read_as_numbers()) != len(known):
        return None
    values = X.to_numpy(dtype=np.float64)
    if not model._accepts_infinity and _beyond_float32(values).any():
        return None
    return values


#: True while a function that has checked the caller's rows (and so warned about their names, when due) passes
#: them on to the model's own methods: see :func:`names_warned_once`.
_NAMES_WARNED = contextvars.ContextVar("primo_names_warned", default=False)


@contextlib.contextmanager
def names_warned_once():
    """Within this block, :func:`check_prediction_input` gives no warning about feature names.

    For a function that checks the caller's rows itself (which gives scikit-learn's warning, when due, once per
    call) and then passes the same rows to several of the model's methods, each of which would warn again. A
    context variable rather than a warnings filter: other threads' warnings, and every other warning, are kept.

    Example
    -------
    >>> from primo import PrDTRegressor
    >>> tree = PrDTRegressor().fit(pd.DataFrame({"a": [1.0, 2.0]}), [1.0, 2.0])
    >>> with names_warned_once():
    ...     tree.predict(np.ones((1, 1))).tolist()
    [1.0]
    """
    token = _NAMES_WARNED.set(True)
    try:
        yield
    finally:
        _NAMES_WARNED.reset(token)


def _warn_without_names(known, who: str, argument: str) -> None:
    """scikit-learn's warning, in its words, when a model fit on named columns is given rows without names
    (taken by position, in the fitted order). After the shape checks: a wrong width is an error alone."""
    if known is not None and not _NAMES_WARNED.get():
        warnings.warn(f"{argument} does not have valid feature names, but {who} was fitted with feature names",
                      UserWarning, stacklevel=3)


def _has_feature_names(X: pd.DataFrame) -> bool:
    """scikit-learn's rule for a table's columns to be feature names: there are some and all are text
    (a frame made from an array, with column labels 0, 1, ..., has none)."""
    return X.shape[1] > 0 and all(isinstance(c, str) for c in X.columns)


def names_warning_due(model, X) -> bool:
    """Whether scikit-learn's warning about feature names is due for rows ``X`` given to ``model``: rows without
    names (an array, a sparse matrix, a table whose column labels are not all text) for a model fit on named
    columns, or a table with names for one fit without them (on an array) -- :func:`check_prediction_input`'s rule
    (which refuses some of these rows outright), for any estimator with scikit-learn's ``feature_names_in_``.

    For a function given rows in two arguments, or two models for the same rows, that warns at most once per call:
    when the first warning was due (so given), the second check is made inside :func:`names_warned_once`.

    Example
    -------
    >>> from primo import PrDTRegressor
    >>> tree = PrDTRegressor().fit(pd.DataFrame({"a": [1.0, 2.0]}), [1.0, 2.0])
    >>> names_warning_due(tree, np.ones((1, 1))), names_warning_due(tree, pd.DataFrame({"a": [1.0]}))
    (True, False)
    """
    X = frame_from_arrow(X)
    named = isinstance(X, pd.DataFrame) and _has_feature_names(X)
    return named != (getattr(model, "feature_names_in_", None) is not None)


def _warn_with_names(named: bool, known, who: str, argument: str) -> None:
    """scikit-learn's warning, in its words, when a model fit without names (on an array) is given a table whose
    columns have names (``named``, by :func:`_has_feature_names`): its columns are taken by position, whatever
    their names. After the shape checks, as :func:`_warn_without_names`."""
    if named and known is None and not _NAMES_WARNED.get():
        warnings.warn(f"{argument} has feature names, but {who} was fitted without feature names",
                      UserWarning, stacklevel=3)


def check_prediction_input(model, X, *, numeric_frames_as_arrays: bool = False, argument: str = "X"):
    """Check X against what the model was fit on, naming the problem when it does not match.

    DataFrame columns are matched by name (as text), in any order: the result has the model's column
    order, with Arrow-backed columns and ``object`` columns of numbers NumPy-backed
    (:func:`~primo.models.encoding.plain_columns`); a missing, unknown or duplicated column is a
    :class:`~primo.errors.ColumnMismatchError`. Other input is returned as it was given (with scikit-learn's
    ``UserWarning`` when the model was fit on named columns). A model fit without names (on an array) reads a
    DataFrame's columns by position, with scikit-learn's ``UserWarning`` when they have names (all text); inside
    :func:`names_warned_once` neither warning is given. NaN is a missing value; dates, text in a column the model
    reads as numbers, and infinity for a family that cannot read it (PrDT) are errors naming the column.

    ``numeric_frames_as_arrays``: a DataFrame that is already in the model's column order with only
    numeric columns the model reads as numbers comes back as a float64 array (the caller's library
    predicts faster from arrays); checks are the same either way.

    ``argument``: the caller's name for ``X`` (e.g. ``X_train``), used in messages and ``InputError.argument``.

    Example
    -------
    >>> from primo import PrDTRegressor
    >>> tree = PrDTRegressor().fit(pd.DataFrame({"a": [1.0, 2.0], "b": [0.0, 1.0]}), [1.0, 2.0])
    >>> list(check_prediction_input(tree, pd.DataFrame({"b": [1.0], "a": [2.0]})).columns)
    ['a', 'b']
    """
    check_is_fitted(model)
    who, expected = type(model).__name__, model.n_features_in_
    known = getattr(model, "feature_names_in_", None)
    X = frame_from_arrow(X)
    if isinstance(X, pd.DataFrame):
        if known is not None:
            known = [str(n) for n in known]
        values = _numeric_frame_values(model, X, known)
        if values is not None:
            return values if numeric_frames_as_arrays else X
        named = known is None and _has_feature_names(X)  # before the names become text
        X = plain_columns(_text_names(X, argument))
        if known is not None:
            unknown = [c for c in X.columns if c not in set(known)]
            missing = [c for c in known if c not in set(X.columns)]
            if unknown or missing:
                raise ColumnMismatchError(
                    f"feature names do not match the model's: unknown {unknown or 'none'}, "
                    f"missing {missing or 'none'} (columns are matched by name, in any order)",
                    argument=argument, column=(missing or unknown)[0])
            if list(X.columns) != known:
                X = X[known]
        elif X.shape[1] != expected:
            raise ColumnMismatchError(f"{argument} has {X.shape[1]} features, but {who} is expecting {expected} "
                                      "features as input", argument=argument)
        _check_shape(*X.shape, argument)
        _warn_with_names(named, known, who, argument)
        _check_frame_values(X, set(model._features_read_as_numbers()), model._accepts_infinity, argument)
        return X
    if _is_sparse(X):
        n_rows, n_columns = X.shape
        if n_columns != expected:
            raise ColumnMismatchError(f"{argument} has {n_columns} features, but {who} is expecting {expected} "
                                      "features as input", argument=argument)
        _check_shape(n_rows, n_columns, argument)
        _warn_without_names(known, who, argument)
        return X
    array = _as_array(X, who, argument)
    if array.shape[1] != expected:
        raise ColumnMismatchError(f"{argument} has {array.shape[1]} features, but {who} is expecting {expected} "
                                  "features as input", argument=argument)
    _check_shape(*array.shape, argument)
    _warn_without_names(known, who, argument)
    if array.dtype.kind in "iub" or (array.dtype.kind == "f" and (model._accepts_infinity or not _beyond_float32(array).any())):
        return X  # plain numbers: nothing left to check (column names are built only for an error)
    _check_array_values(array, _column_names(model, expected), model._features_read_as_numbers(),
                        model._accepts_infinity, argument)
    return X
