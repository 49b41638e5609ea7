"""The edit log: every adjustment of a fitted model is a named, replayable, undoable record.

``model.metadata_["edits"]`` is a list of JSON-able dicts, saved in the model file. Each record has

* ``"operation"`` — the name of the edit (``"monotonize"``, ``"set_term_scores"``, …);
* ``"summary"`` — one human sentence;
* ``"arguments"`` — the keyword arguments that replay it (``replay`` calls the operation again
  with them);
* ``"before"`` / ``"after"`` — the edited values before and after (a term's per-bin scores, a
  leaf value, a threshold), used by :func:`undo` and drawn by the HTML report for ``monotonize``;
* operation-specific extras (``"term"``, ``"bins"``, ``"pairs"``, …).

Operations register themselves here with :func:`operation`, giving the function that applies them
and the one that reverts a record; :func:`replay` and :func:`undo` only dispatch.

Example
-------
>>> edited = primo.adjust.shift_term_scores(model, "A_i", 0.5, bins=[3, 4])  # doctest: +SKIP
>>> fresh = primo.adjust.replay(refit_model, edited.metadata_["edits"])  # doctest: +SKIP
>>> original = primo.adjust.undo(edited)  # doctest: +SKIP
"""
from __future__ import annotations

import copy
import inspect
import logging
from dataclasses import dataclass
from typing import Callable

import numpy as np

from primo.validation import validate_edit_records, validate_state

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Operation:
    apply: Callable  # apply(model, **arguments, inplace=True, [X_train, y_train, sample_weight]) -> model
    revert: Callable  # revert(model, record, **data) -> model with the record's effect removed (log: undo's job)
    needs_data: bool  # True when applying/reverting refits the model on training data


_OPERATIONS: dict[str, _Operation] = {}


def operation(name: str, *, revert: Callable, needs_data: bool = False):
    """Register an edit function under ``name`` (decorator) so that logs naming it can be replayed."""

    def register(function):
        _OPERATIONS[name] = _Operation(apply=function, revert=revert, needs_data=needs_data)
        return function

    return register


def edits_of(model) -> list[dict]:
    """The edit log of ``model`` (an empty list when it has none)."""
    records = (getattr(model, "metadata_", None) or {}).get("edits") or []
    return validate_edit_records(records, 'metadata_["edits"]')


def target_model(model, inplace: bool):
    """The model an edit writes into: ``model`` itself, or a deep copy (so the caller's is untouched)."""
    if not (hasattr(model, "ebm_") or hasattr(model, "tree_")):
        raise TypeError(f"expected a fitted PrAM or PrDT model, got {type(model).__name__}")
    return model if inplace else copy.deepcopy(model)


def append_record(model, record: dict) -> None:
    """Append a record to the model's edit log (creating ``metadata_`` / the log when absent)."""
    missing = [k for k in ("operation", "summary", "arguments") if k not in record]
    if missing:
        raise ValueError(f"edit record lacks {missing}")
    metadata = getattr(model, "metadata_", None)
    if metadata is None:
        metadata = model.metadata_ = {}
    metadata.setdefault("edits", []).append(jsonable(record))
    logger.info("edit %d: %s", len(metadata["edits"]), record["summary"])


def jsonable(value):
    """``value`` with numpy scalars/arrays turned into plain Python (the log must be JSON)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def _data_kwargs(X_train, y_train, sample_weight) -> dict:
    return {"X_train": X_train, "y_train": y_train, "sample_weight": sample_weight}


def replay(model, edits, *, inplace: bool = False, X_train=None, y_train=None, sample_weight=None):
    """Apply a list of edit records (e.g. another model's ``metadata_["edits"]``) to ``model``.

    Use it to carry the adjustments of a model over to a fresh fit of the same model (new data,
    new seed): PrAM edits given by feature value (``values``/``value_range``) are mapped onto the
    new model's bins; edits given by bin or node index assume the same binning/tree.

    Parameters
    ----------
    model : fitted PrAM or PrDT.
    edits : list of edit records.
    inplace : edit ``model`` itself instead of a copy.
    X_train, y_train, sample_weight : training data, needed only by edits that refit (PrDT
        ``monotonize``).

    Returns
    -------
    The edited model; its log ends with the replayed records.

    Example
    -------
    >>> refit = PrAMRegressor(**old.get_params()).fit(X, y)  # doctest: +SKIP
    >>> adjusted = replay(refit, old.metadata_["edits"])  # doctest: +SKIP
    """
    # Logs travel inside model files: check every record before the first edit touches the model.
    edits = validate_edit_records(list(edits))
    for number, record in enumerate(edits, 1):
        name = record["operation"]
        entry = _OPERATIONS.get(name)
        if entry is None:
            raise ValueError(f"edit {number}: unknown operation {name!r} (known: {', '.join(sorted(_OPERATIONS))})")
        _check_arguments(number, name, entry, record["arguments"])
    model = target_model(model, inplace)
    for record in edits:
        entry = _OPERATIONS[record["operation"]]
        extra = _data_kwargs(X_train, y_train, sample_weight) if entry.needs_data else {}
        model = entry.apply(model, **record["arguments"], inplace=True, **extra)
    return model


def _check_arguments(number: int, name: str, entry: _Operation, arguments: dict) -> None:
    """The record's arguments are keyword arguments ``entry.apply`` takes, and not ones replay sets."""
    reserved = {"model", "inplace", *_data_kwargs(None, None, None)} & arguments.keys()
    if reserved:
        raise ValueError(f"edit {number} ({name}): arguments may not set {sorted(reserved)}")
    parameters = inspect.signature(entry.apply).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return
    unknown = sorted(arguments.keys() - parameters.keys())
    if unknown:
        raise ValueError(f"edit {number} ({name}): unknown arguments {unknown} (it takes {', '.join(parameters)})")


def undo(model, *, inplace: bool = False, X_train=None, y_train=None, sample_weight=None):
    """Remove the last edit: revert its effect and drop it from the log.

    Score, leaf and threshold edits are reverted from the values their record saved (and the
    current values are first checked against the record's ``after``, so a model changed outside
    the log is not silently corrupted). Edits that refit a tree are undone by refitting the
    original tree on ``X_train``/``y_train`` and replaying all earlier edits. The reverted model is
    checked like a loaded model file (a record read from a file cannot leave a broken model) before
    it is returned or, with ``inplace=True``, written into ``model``.

    Example
    -------
    >>> previous = undo(edited)  # doctest: +SKIP
    """
    records = edits_of(model)
    if not records:
        raise ValueError("the model has no edits to undo")
    record = records[-1]
    entry = _OPERATIONS.get(record["operation"])
    if entry is None:
        raise ValueError(f"cannot undo unknown operation {record['operation']!r}")
    extra = _data_kwargs(X_train, y_train, sample_weight) if entry.needs_data else {}
    # Reverted on a copy and checked before it counts: the record's "before" values may come from a file.
    reverted = entry.revert(target_model(model, inplace=False), record, **extra)
    validate_state(type(reverted).__name__, reverted._get_state())
    # The reverted model's log is the original one minus this record, whatever the revert did to it.
    metadata = reverted.metadata_
    metadata["edits"] = copy.deepcopy(records[:-1])
    if not metadata["edits"]:
        del metadata["edits"]
    if inplace:
        vars(model).update(vars(reverted))
        return model
    return reverted


def format_edits(model) -> str:
    """The edit log as numbered lines: operation, summary and replay arguments.

    Example
    -------
    >>> print(format_edits(edited))  # doctest: +SKIP
    1. monotonize: A_i made increasing by PAV ...
    """
    lines = []
    for number, record in enumerate(edits_of(model), 1):
        arguments = ", ".join(f"{k}={_short(v)}" for k, v in record.get("arguments", {}).items())
        lines.append(f"{number}. {record['operation']}: {record.get('summary', '')}")
        if arguments:
            lines.append(f"   arguments: {arguments}")
    return "\n".join(lines) if lines else "no edits"


def _short(value, limit: int = 8) -> str:
    if isinstance(value, list) and len(value) > limit:
        return f"[{', '.join(map(repr, value[:limit]))}, … ({len(value)} items)]"
    return repr(value)
