"""Reading and writing tables (delimited text or Parquet, chosen by file suffix) for the CLI."""
from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import re
import warnings
from pathlib import Path

import pandas as pd

from primo.errors import rows_text
from primo.io import atomic_write_bytes
from primo.models.encoding import frame_from_arrow

#: Separators a text table may use; the one in use is sniffed from its first lines (Excel writes ';' in
#: locales whose decimal mark is a comma).
SEPARATORS = ",;\t|"
#: Suffixes of the text tables Primo reads, and the compressions it reads them in (``trace.csv.gz``).
TEXT_SUFFIXES = (".csv", ".tsv", ".txt")
COMPRESSIONS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
#: Bytes of a text table read to sniff its separator and header.
SNIFF_BYTES = 1 << 16
_DECIMAL_COMMA = re.compile(r"[+-]?(\d+(,\d*)?|,\d+)([eE][+-]?\d+)?")  # 1,5  -0,25  ,5  9,5e-05
#: Cells read as missing: pandas' default markers less ``None``, which R, spreadsheets and pandas' own
#: ``to_csv`` never write for a missing value and which is a category in many tables (an exercise level
#: in MASS's survey, an outcome in vcd's Arthritis); a missing number or boolean written by ``str(None)``
#: still reads as missing (:func:`_read_none_as_missing`).
MISSING_MARKERS = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
                   "N/A", "NA", "NULL", "NaN", "n/a", "nan", "null")
_BOOLEANS = {"True": True, "TRUE": True, "true": True, "False": False, "FALSE": False, "false": False}


def read_table(path) -> pd.DataFrame:
    """Read a delimited text (.csv, .tsv, .txt, also compressed: .csv.gz, .csv.bz2, .csv.xz) or Parquet file,
    with errors that name the file and the problem.

    Text is UTF-8 (a byte-order mark is skipped); its separator is sniffed among ``SEPARATORS``; a header
    naming a column twice is refused (pandas would rename the second ``a`` to ``a.1`` without a word,
    where Primo's models refuse duplicate names); ``None`` is a value, not a missing cell, unless the other
    values of its column are numbers or booleans (:data:`MISSING_MARKERS`); a first column with an empty name holds row names (R's
    ``write.csv`` and pandas' ``to_csv`` write them so) and is left out; and in a
    ';'-separated file, a text column whose every value is a number written with a decimal comma (``1,5``)
    is read as numbers, with a warning.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no data file at {path}")
    suffix = path.suffix.lower()
    compressed = suffix in COMPRESSIONS
    kind = Path(path.stem).suffix.lower() if compressed else suffix
    if kind not in TEXT_SUFFIXES + (() if compressed else (".parquet", ".pq")):
        raise ValueError(f"{path}: unsupported data format {''.join(path.suffixes[-2:] if compressed else [path.suffix])!r} "
                         "(use .csv, .tsv, .txt, one of them compressed as .gz, .bz2 or .xz, or .parquet)")
    try:
        table = pd.read_parquet(path) if kind in (".parquet", ".pq") else _read_text(path, kind)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, OSError, ValueError, EOFError, lzma.LZMAError) as exc:
        raise ValueError(f"{path}: cannot read table: {exc}") from None
    if table.empty:
        raise ValueError(f"{path}: the table has no rows")
    return table


def _read_text(path: Path, kind: str) -> pd.DataFrame:
    """A text table of suffix ``kind`` (before a compression suffix, which pandas reads too)."""
    with COMPRESSIONS.get(path.suffix.lower(), open)(path, "rb") as file:
        head = file.read(SNIFF_BYTES)
    try:
        text = head.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not merely a character cut by the end of the sample
            raise ValueError(f"not UTF-8 text (byte {head[exc.start]:#04x} at position {exc.start}); "
                             "save the file as UTF-8") from None
        text = head[:exc.start].decode("utf-8-sig")
    try:
        sample = text[:SNIFF_BYTES // 4]
        separator = csv.Sniffer().sniff(sample.rsplit("\n", 1)[0] if "\n" in sample else sample,
                                        delimiters=SEPARATORS).delimiter
    except csv.Error:  # one column, or no line to compare
        separator = "\t" if kind == ".tsv" else ","
    header = next(csv.reader(io.StringIO(text), delimiter=separator), [])
    duplicates = sorted({name for name in header if header.count(name) > 1})
    if duplicates:
        raise ValueError(f"the header names columns {duplicates} more than once; give each column its own name")
    # Read as a feature, R's row names (1, 2, ... or labels) would be an index the model learns from, and
    # a table written without them could not be predicted on. Rows stay numbered 0..n-1 (as commands count them).
    row_names = len(header) > 1 and header[0] == ""
    try:
        # low_memory=False: pandas otherwise infers a column's type chunk by chunk, and a column of numbers
        # with text after the first chunk became Python ints and strings mixed, with a warning about options
        table = pd.read_csv(path, sep=separator, encoding="utf-8-sig", index_col=0 if row_names else None,
                            keep_default_na=False, na_values=list(MISSING_MARKERS), low_memory=False)
        table = table.reset_index(drop=True) if row_names else table
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} beyond the first {SNIFF_BYTES:,} bytes); "
                         "save the file as UTF-8") from None
    _read_none_as_missing(table, decimal_comma=separator == ";")
    if separator == ";":
        _read_decimal_commas(table)
    return table


def _read_none_as_missing(table: pd.DataFrame, *, decimal_comma: bool) -> None:
    """In text columns whose values other than ``None`` are all numbers (with a decimal comma too, when
    ``decimal_comma``) or booleans, ``None`` becomes missing and the column what pandas reads it as (in place)."""
    for name in table.columns:
        column = table[name]
        if not pd.api.types.is_string_dtype(column) or not (column == "None").any():
            continue
        rest = column.mask(column == "None")
        values = rest.dropna()
        numbers = pd.to_numeric(rest, errors="coerce")
        if numbers.notna().sum() == len(values):
            table[name] = numbers
        elif values.isin(_BOOLEANS).all():
            table[name] = rest.map(_BOOLEANS).astype(object)
        elif decimal_comma and _decimal_comma_numbers(values):
            table[name] = rest  # read as numbers by _read_decimal_commas


def _decimal_comma_numbers(values: pd.Series) -> bool:
    """Whether every value is text of a number written with a decimal comma (``1,5``)."""
    return bool(values.map(lambda v: isinstance(v, str) and _DECIMAL_COMMA.fullmatch(v) is not None).all())


def _read_decimal_commas(table: pd.DataFrame) -> None:
    """Text columns whose every value is a number with a decimal comma become numbers (in place)."""
    converted = []
    for name in table.columns:
        if not pd.api.types.is_string_dtype(table[name]):  # numbers, dates and booleans stay as read
            continue
        values = table[name].dropna()
        if len(values) and _decimal_comma_numbers(values):
            table[name] = pd.to_numeric(table[name].str.replace(",", ".", regex=False))
            converted.append(str(name))
    if converted:
        warnings.warn(f"read {converted} as numbers written with a decimal comma (1,5 = 1.5)", UserWarning,
                      stacklevel=4)


def split_target(table: pd.DataFrame, target: str, drop=()) -> tuple[pd.DataFrame, pd.Series]:
    """Split a table into features and the ``target`` column, leaving out the ``drop`` columns (a name not in the
    table is an error naming it, as an absent target is, and so is a target with missing values: every command
    that reads one fits on it or scores against it)."""
    columns = ", ".join(map(str, table.columns))
    if target not in table.columns:
        raise KeyError(f"target column {target!r} not in the data (columns: {columns})")
    unknown = [name for name in drop if name not in table.columns]
    if unknown:
        raise KeyError(f"columns to drop {unknown} not in the data (columns: {columns})")
    if target in drop:
        raise KeyError(f"{target!r} is the target column; it cannot be dropped too")
    y = table[target]
    if y.isna().any():
        raise ValueError(f"target column {target!r} has missing values at rows {rows_text(y.isna().to_numpy())}, "
                         "counted from 0; drop those rows or fill them in")
    return table.drop(columns=[target, *drop]), y


def model_inputs(model, table):
    """The model's feature columns of ``table`` (a DataFrame, or an Arrow table: pyarrow, polars) in the
    model's order (all columns, as an array, for a model fit without names); extra columns are ignored,
    missing ones named in the error."""
    table = frame_from_arrow(table)
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        return table.to_numpy()
    missing = [n for n in names if n not in table.columns]
    if missing:
        raise KeyError(f"the data lacks the model's feature columns {missing}")
    return table[list(names)]


def write_table(table: pd.DataFrame, path) -> Path:
    """Write a table atomically as CSV or Parquet, by suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        payload = table.to_csv(index=False).encode()
    elif suffix in (".parquet", ".pq"):
        payload = table.to_parquet(index=False)
    else:
        raise ValueError(f"{path}: unsupported output format {path.suffix!r} (use .csv or .parquet)")
    return atomic_write_bytes(path, payload)
