"""Tables with text, category, boolean and missing values, turned into the numbers a tree splits on.

scikit-learn's trees take numbers only. :func:`fit_vocabularies` and :func:`encode_table` give PrDT
(and any other consumer) one documented encoding of a DataFrame:

* **numeric** columns are taken as they are (NaN = missing);
* **boolean** columns become 0/1 (a nullable boolean's NA = missing);
* **categorical** columns — ``object``, pandas' ``str``/``string`` dtypes (pandas 3 reads text as
  ``str``, not ``object``) and ``category`` — become integer *codes*: the position of the category,
  as text (``str(value)``), in the column's vocabulary. A category not in the vocabulary (unseen at
  fit time, or an unused level of a pandas ``category``) becomes NaN, i.e. it is treated as missing;
* columns pandas stores other ways are read as the NumPy-backed kinds above (:func:`plain_columns`):
  Arrow-backed columns (``dtype_backend="pyarrow"``, Parquet) as float64 numbers, pandas booleans,
  text or categories, and an ``object`` column of numbers only (``decimal.Decimal``, what a SQL
  ``NUMERIC`` column reads as, or Python ``int``/``float``) as float64 numbers, not as categories;
* **datetime/timedelta/period** columns raise an :class:`~primo.errors.InputError` (a ``ValueError``) naming the column and saying how to
  derive numbers from it (hours, weekdays, seconds since a reference); which derived features make
  sense depends on the system, so Primo does not guess. So do **text columns whose every value is a
  date** (``2026-11-28``, ``2026-11-28 14:02:00``, ``11/28/2026``; :func:`date_text_columns`, refused at fit):
  a CSV gives dates as text, and as categories they would be memorised, every later date unseen. Dates
  meant as labels go in as a pandas ``category`` column.

Vocabularies are ordered by a *target statistic* on the training rows, so that a single threshold
``code <= t`` can separate any subset of categories that a best split would choose. For regression
the statistic is the (weighted) mean target; for binary classification the rate of the second class
(``classes_[1]``). For both, Breiman et al. (CART, 1984, §9.4) show that the best subset split for
squared error / Gini is one of the splits of this order, so nothing is lost. For multiclass targets no
single order is exact; Primo uses the rate of the class whose rate varies most across categories
(largest weighted variance), a heuristic that keeps the most informative class separable. Several
regression outputs are handled the same way (the output whose mean varies most); PrDT orders for the
first output of a multi-output classifier. Ties are broken by the category text, so the encoding is
deterministic.

Example
-------
>>> import pandas as pd
>>> X = pd.DataFrame({"city": ["Paris", "Lyon", "Nice", "Paris"], "rooms": [2, 3, 1, 4]})
>>> vocabularies = fit_vocabularies(X, [300.0, 150.0, 200.0, 320.0])
>>> vocabularies
{0: ['Lyon', 'Nice', 'Paris']}
>>> encode_table(X, vocabularies)["city"].tolist()
[2.0, 0.0, 1.0, 2.0]
"""
from __future__ import annotations

import numbers
import re
from decimal import Decimal

import numpy as np
import pandas as pd

from primo.errors import InputError, InputTypeError

NUMERIC, BOOLEAN, CATEGORICAL = "numeric", "boolean", "categorical"


def column_kind(column: pd.Series, name: str | None = None) -> str:
    """``"numeric"``, ``"boolean"`` or ``"categorical"`` for one column; a clear error for dates/times.

    Example
    -------
    >>> column_kind(pd.Series(["a", "b"]))
    'categorical'
    """
    return dtype_kind(column.dtype, name if name is not None else column.name)


def dtype_kind(dtype, name) -> str:
    """:func:`column_kind` from a column's dtype alone (no values are read); ``name`` is for the error."""
    label = repr(str(name))
    if (pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype)
            or isinstance(dtype, pd.PeriodDtype)):
        raise InputError(
            f"column {label} holds dates or times ({dtype}); Primo models need numbers. Derive numeric "
            f"features from it first, e.g. X[{label}].dt.hour, X[{label}].dt.dayofweek, or seconds since a "
            f"reference: (X[{label}] - reference).dt.total_seconds(), then drop the column",
            argument="X", column=str(name),
        )
    if pd.api.types.is_bool_dtype(dtype):
        return BOOLEAN
    if isinstance(dtype, (pd.CategoricalDtype, pd.StringDtype)) or dtype == object:
        return CATEGORICAL
    if pd.api.types.is_numeric_dtype(dtype):
        return NUMERIC
    raise InputError(f"column {label} has dtype {dtype}, which Primo cannot use; convert it to numbers or text",
                     argument="X", column=str(name))


def frame_from_arrow(X):
    """``X`` as a pandas DataFrame when it is a table that speaks the Arrow C stream protocol (a polars
    DataFrame, a pyarrow Table), so that its column names and kinds survive; any other
    ``X`` as it is. As an array it would lose its names, and its text would read as numbers that fail.

    Example
    -------
    >>> import pyarrow as pa
    >>> frame_from_arrow(pa.table({"city": ["Paris", None]})).columns.tolist()
    ['city']
    """
    if isinstance(X, pd.DataFrame) or not hasattr(X, "__arrow_c_stream__"):
        return X
    try:
        if hasattr(pd.DataFrame, "from_arrow"):  # pandas >= 3
            return pd.DataFrame.from_arrow(X)
        import pyarrow as pa

        return pa.table(X).to_pandas()
    except (TypeError, ValueError, ImportError):  # not a table (a single column): read as an array is
        return X


def _is_number(value) -> bool:
    return isinstance(value, (Decimal, numbers.Real)) and not isinstance(value, (bool, np.bool_))


def _is_missing(value) -> bool:
    """None, NA or a float NaN (pd.isna would answer a list in a cell element by element)."""
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def plain_columns(X: pd.DataFrame) -> pd.DataFrame:
    """``X`` with its Arrow-backed columns and its ``object`` columns of numbers as NumPy-backed ones (``X``
    itself when it has none).

    Arrow numbers (integer, floating, decimal) become float64 (null = NaN), Arrow booleans pandas'
    nullable booleans, Arrow text pandas' text and Arrow dictionaries plain values (categories); Arrow
    dates and times stay, for :func:`dtype_kind` to refuse by name. An ``object`` column whose present
    values are all numbers (``Decimal``, ``int``, ``float``; not text such as ``"4"``, which stays
    categories) becomes float64 too, unless a value is beyond float64's range. interpret cannot read
    Arrow dtypes, and numbers read as categories would make every value not seen in training unseen.

    Example
    -------
    >>> from decimal import Decimal
    >>> plain_columns(pd.DataFrame({"price": [Decimal("1.50"), None]}))["price"].tolist()
    [1.5, nan]
    """
    plain = {}
    for j, (name, dtype) in enumerate(zip(X.columns, X.dtypes)):
        column = X.iloc[:, j]
        if isinstance(dtype, pd.ArrowDtype):
            import pyarrow as pa

            kind = dtype.pyarrow_dtype
            if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
                plain[j] = column.to_numpy(dtype=np.float64, na_value=np.nan)
            elif pa.types.is_boolean(kind):
                plain[j] = column.astype("boolean")
            elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
                plain[j] = column.astype("str")
            elif pa.types.is_dictionary(kind):
                plain[j] = column.astype(object)
        elif dtype == object and _is_number(next((v for v in column if not _is_missing(v)), None)):
            # The first present value decides cheaply for text columns, the common case on every predict.
            if all(_is_number(v) for v in column.dropna()):
                try:
                    plain[j] = column.to_numpy(dtype=np.float64, na_value=np.nan)
                except OverflowError:  # an integer beyond float64: left as it was
                    pass
    if not plain:
        return X
    X = X.copy(deep=False)
    for j, values in plain.items():
        X.isetitem(j, values)
    return X


_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_CLOCK = r"([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?"
#: A date that names its year (a month's name or a time of day alone recurs, so it stays a category),
#: with an optional time and zone: ISO 8601 (``2024-01-31``, also with slashes), day and month either
#: way with slashes or dots (``1/31/2024``; ``31.01.2024`` with a 4-digit year only, unlike version
#: numbers), with a month's name (``31 Jan 2024``, ``January 31, 2024``, ``Jan 2024``, ``2024-Jan-31``)
#: or a quarter (``2024Q1``, ``2024 Q1``).
DATE_TEXT = re.compile(
    rf"(\d{{4}}[-/]\d{{1,2}}[-/]\d{{1,2}}|\d{{1,2}}/\d{{1,2}}/\d{{2,4}}|\d{{1,2}}\.\d{{1,2}}\.\d{{4}}"
    rf"|\d{{1,2}}[ -]{_MONTH}[-, ]*\d{{4}}|{_MONTH} (\d{{1,2}},? )?\d{{4}}|\d{{4}}-{_MONTH}(-\d{{1,2}})?){_CLOCK}"
    r"|\d{4} ?q[1-4]", re.IGNORECASE)


def date_text_columns(X: pd.DataFrame) -> list:
    """The text columns (not pandas ``category``) whose every present value is a date (:data:`DATE_TEXT`).

    Example
    -------
    >>> date_text_columns(pd.DataFrame({"day": ["2026-11-27", None], "city": ["Paris", "Lyon"]}))
    ['day']
    """
    found = []
    for name, dtype in zip(X.columns, X.dtypes):
        if isinstance(dtype, pd.CategoricalDtype) or dtype_kind(dtype, name) != CATEGORICAL:
            continue
        values = X[name].dropna().unique()
        if len(values) and all(isinstance(v, str) and DATE_TEXT.fullmatch(v.strip()) for v in values):
            found.append(name)
    return found


def check_no_dates_as_text(X: pd.DataFrame) -> None:
    """A clear error for the first of :func:`date_text_columns`.

    Example
    -------
    >>> check_no_dates_as_text(pd.DataFrame({"day": ["2026-11-27", "2026-11-28"]}))
    Traceback (most recent call last):
    ...
    primo.errors.InputError: column 'day' holds dates written as text (e.g. '2026-11-27'); as categories ...
    """
    columns = date_text_columns(X)
    if columns:
        name = columns[0]
        label = repr(str(name))
        raise InputError(
            f"column {label} holds dates written as text (e.g. {X[name].dropna().iloc[0]!r}); as categories every "
            f"later date would be unseen. Derive numbers from it first, e.g. dates = pd.to_datetime(X[{label}]), "
            "then dates.dt.dayofweek or (dates - reference).dt.total_seconds(), and drop the column; to use the "
            f"dates as labels on purpose, pass X[{label}].astype('category')", argument="X", column=str(name))


def numeric_values(column: pd.Series, name, argument: str = "X") -> np.ndarray:
    """A column the model reads as numbers, as float64 (NaN = missing); text in it is an error naming it
    (and ``argument``, the caller's name for the table).

    Numbers stored as objects or as text (``"3.5"``) read as numbers.

    Example
    -------
    >>> numeric_values(pd.Series(["1.5", None, 2]), "load").tolist()
    [1.5, nan, 2.0]
    """
    numbers = pd.to_numeric(column, errors="coerce")
    text = (numbers.isna() & column.notna()).to_numpy()
    if text.any():
        row = int(np.flatnonzero(text)[0])
        value = column.iloc[row]
        if not isinstance(value, (str, bytes)):
            # A dict or list in a cell is a wrong type, not a typo (scikit-learn's checks expect TypeError).
            raise InputTypeError(
                f"column {str(name)!r} holds a {type(value).__name__} at row {row} ({value!r}); the argument "
                "must be a string or a number", argument=argument, column=str(name))
        raise InputError(
            f"column {str(name)!r} holds text ({column.iloc[row]!r} at row {row}), but the model reads numbers "
            "in that column", argument=argument, column=str(name))
    return numbers.to_numpy(dtype=np.float64, na_value=np.nan)


def column_kinds(X: pd.DataFrame) -> list[str]:
    """:func:`column_kind` of every column of ``X``, in column order."""
    return [column_kind(X.iloc[:, j], X.columns[j]) for j in range(X.shape[1])]


def needs_encoding(X) -> bool:
    """True when ``X`` is a DataFrame with a column that is not plain NumPy numbers.

    That is a boolean, categorical or date/time column, or a pandas extension dtype (``Int64``,
    ``Float64``: their ``NA`` becomes NaN).
    """
    if not isinstance(X, pd.DataFrame):
        return False
    return any(
        isinstance(dtype, pd.api.extensions.ExtensionDtype) or pd.api.types.is_bool_dtype(dtype)
        or not pd.api.types.is_numeric_dtype(dtype)
        for dtype in X.dtypes
    )


def as_text(column: pd.Series) -> np.ndarray:
    """Object array of ``str(value)`` per row, None where the value is missing (how vocabularies are keyed)."""
    present = column.notna().to_numpy()
    text = np.full(len(column), None, dtype=object)
    text[present] = [str(v) for v in column.to_numpy(dtype=object)[present]]
    return text


def _target_statistic(y, classes) -> np.ndarray:
    """The per-row value whose per-category mean orders a vocabulary (see the module docstring)."""
    y = np.asarray(y)
    if classes is None:
        return y.astype(np.float64)
    classes = np.asarray(classes)
    if len(classes) <= 2:
        return (y == classes[-1]).astype(np.float64)
    one_hot = (y[:, np.newaxis] == classes[np.newaxis, :]).astype(np.float64)
    return one_hot  # the class with the largest spread is chosen per column


def _ordered_vocabulary(text: np.ndarray, statistic: np.ndarray, weight: np.ndarray) -> list[str]:
    present = np.asarray([t is not None for t in text], dtype=bool)
    if not present.any():
        return []
    keys, inverse = np.unique(text[present].astype(str), return_inverse=True)
    w = weight[present]
    stat = statistic[present].reshape(len(w), -1)
    totals = np.bincount(inverse, weights=w, minlength=len(keys))
    sums = np.stack([np.bincount(inverse, weights=w * stat[:, k], minlength=len(keys))
                     for k in range(stat.shape[1])], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / totals[:, np.newaxis]  # NaN for categories whose rows all weigh zero
    if means.shape[1] > 1:
        # Multiclass: order by the rate of the class that varies most across categories.
        seen = totals > 0
        share = totals[seen] / totals[seen].sum()
        centred = means[seen] - share @ means[seen]
        spread = share @ (centred ** 2)
        means = means[:, [int(np.argmax(spread))]]
    order = np.lexsort((keys, np.nan_to_num(means[:, 0], nan=np.inf)))
    return [str(k) for k in keys[order]]


def fit_vocabularies(X: pd.DataFrame, y, *, sample_weight=None, classes=None) -> dict[int, list[str]]:
    """Vocabulary of every categorical column of ``X`` (by column position), ordered by the target statistic.

    Parameters
    ----------
    X : DataFrame of the training rows.
    y : training target (values for regression, labels for classification).
    sample_weight : optional weights of the rows.
    classes : the sorted class labels for classification (``None`` for regression).

    Example
    -------
    >>> X = pd.DataFrame({"os": ["linux", "bsd", "linux", "bsd"]})
    >>> fit_vocabularies(X, [1, 0, 1, 1], classes=[0, 1])
    {0: ['bsd', 'linux']}
    """
    kinds = column_kinds(X)
    if CATEGORICAL not in kinds:
        return {}
    statistic = _target_statistic(y, classes)
    weight = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    return {
        j: _ordered_vocabulary(as_text(X.iloc[:, j]), statistic, weight)
        for j, kind in enumerate(kinds) if kind == CATEGORICAL
    }


def encode_table(X: pd.DataFrame, vocabularies: dict[int, list[str]]) -> pd.DataFrame:
    """``X`` as float64 columns (same names): codes for categorical columns, 0/1 for booleans, NaN = missing.

    A categorical column that is already numeric is taken as codes (encoded rows stay unchanged);
    text not in the column's vocabulary becomes NaN (missing).

    Example
    -------
    >>> encode_table(pd.DataFrame({"city": ["Nice", "Oslo", None]}), {0: ["Lyon", "Nice"]})["city"].tolist()
    [1.0, nan, nan]
    """
    columns = {}
    for j, name in enumerate(X.columns):
        column = X.iloc[:, j]
        kind = column_kind(column, name)
        if j in vocabularies and kind == CATEGORICAL:
            codes = pd.Index(vocabularies[j], dtype=object).get_indexer(as_text(column)).astype(np.float64)
            codes[codes < 0] = np.nan  # missing, or a category the model never saw
            columns[name] = codes
        elif kind == CATEGORICAL:  # numbers stored as objects still read as numbers
            columns[name] = numeric_values(column, name)
        else:
            columns[name] = column.to_numpy(dtype=np.float64, na_value=np.nan)
    return pd.DataFrame(columns, index=X.index, columns=X.columns)


def category_split(vocabulary: list[str], threshold: float) -> tuple[list[str], list[str]]:
    """The categories a split ``code <= threshold`` sends left and right.

    Example
    -------
    >>> category_split(["Lyon", "Nice", "Paris"], 1.5)
    (['Lyon', 'Nice'], ['Paris'])
    """
    n_left = int(np.clip(np.floor(threshold) + 1, 0, len(vocabulary))) if np.isfinite(threshold) else (
        len(vocabulary) if threshold > 0 else 0)
    return list(vocabulary[:n_left]), list(vocabulary[n_left:])
