"""Reading and writing tables (CSV or Parquet, chosen by file suffix) for the CLI."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from primo.io import atomic_write_bytes

_READERS = {".csv": pd.read_csv, ".parquet": pd.read_parquet, ".pq": pd.read_parquet}


def read_table(path) -> pd.DataFrame:
    """Read a CSV or Parquet file, with errors that name the file and the problem."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no data file at {path}")
    reader = _READERS.get(path.suffix.lower())
    if reader is None:
        raise ValueError(f"{path}: unsupported data format {path.suffix!r} (use .csv or .parquet)")
    try:
        table = reader(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, OSError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read table: {exc}") from None
    if table.empty:
        raise ValueError(f"{path}: the table has no rows")
    return table


def split_target(table: pd.DataFrame, target: str) -> tuple[pd.DataFrame, pd.Series]:
    """Split a table into features and the ``target`` column (named in the error when absent)."""
    if target not in table.columns:
        raise KeyError(f"target column {target!r} not in the data (columns: {', '.join(map(str, table.columns))})")
    return table.drop(columns=[target]), table[target]


def model_inputs(model, table: pd.DataFrame):
    """The model's feature columns of ``table`` in the model's order (all columns, as an array, for
    a model fit without names); extra columns are ignored, missing ones named in the error."""
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
