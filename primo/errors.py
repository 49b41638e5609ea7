"""The errors Primo raises for data a user passed in the wrong shape, type or values.

One contract for ``fit``, ``predict``, the edits of :mod:`primo.adjust`, :func:`primo.report.build`
and :mod:`primo.export`: bad input raises an :class:`InputError` (a ``ValueError``, so code written
for scikit-learn's errors keeps working) whose message names the argument (``X``, ``y``,
``sample_weight``, ``features``…) and, for a table, the column; nothing the caller passed, and no
fitted model, is changed by the failed call. Model files that cannot be trusted raise
:class:`primo.ModelFileError` instead; an unfitted model raises scikit-learn's ``NotFittedError``.

Example
-------
>>> import numpy as np
>>> from primo import PrDTRegressor
>>> try:
...     PrDTRegressor().fit(np.ones((3, 1)), [1.0, None, 2.0])
... except InputError as error:
...     print(error.argument, "|", error)
y | y has missing values (None or NaN) at rows [1]; drop those rows or fill them in
"""
from __future__ import annotations

import numpy as np


def rows_text(mask: np.ndarray, limit: int = 5) -> str:
    """The rows where ``mask`` holds, counted from 0, as error messages name them: ``[0, 3]``, or
    ``[0, 3, 7, 9, 12, ...] (40 rows)`` when many rows are at fault."""
    rows = np.flatnonzero(mask)
    shown = ", ".join(str(int(r)) for r in rows[:limit])
    return f"[{shown}]" if len(rows) <= limit else f"[{shown}, ...] ({len(rows)} rows)"


class InputError(ValueError):
    """Data passed to Primo that it cannot use; ``argument`` (and ``column`` for tables) say which."""

    def __init__(self, message: str, *, argument: str | None = None, column: str | None = None):
        super().__init__(message)
        self.argument = argument
        self.column = column


class ColumnMismatchError(InputError):
    """The columns of ``X`` are not the model's: missing, unknown or duplicated names, or a wrong count."""


class InputTypeError(InputError, TypeError):
    """An argument of the wrong kind: ``None`` for data, a sparse matrix where rows must be dense, not a model."""


class InputWarning(UserWarning):
    """Data Primo can fit but that will likely not do what the user expects (an identifier column, values
    float32 cannot tell apart); a search gives it once, before its trials, and does not count it among the
    libraries' warnings it summarises."""
