"""Metadata values as readable summaries: a list of 142 seeds becomes "142 values: 0 to 141
(consecutive integers)", a nested options dict a list of labelled facts — never a raw dict.

Used by the HTML and Markdown reports and by ``primo info`` for whatever a model's ``metadata_``
holds besides the parts they render specially (search, selection, distillation iterations, edits).

Example
-------
>>> summarize(list(range(142)))
'142 values: 0 to 141 (consecutive integers)'
>>> summarize([0.5, 0.25, 2.0])
'0.5, 0.25, 2'
>>> facts({"n_iterations": 10, "options": {"eval_seeds": [1, 2, 3]}})
[('n iterations', '10'), ('options › eval seeds', '1, 2, 3')]
"""
from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from primo.report.svg import fmt

MAX_LISTED = 8  # items of a list spelled out before it is summarized by count and range
MAX_TEXT = 160  # characters of one value's text


def label(key) -> str:
    """A metadata key as words: ``"eval_seeds"`` → ``"eval seeds"``."""
    return str(key).replace("_", " ").strip()


def summarize(value, *, max_listed: int = MAX_LISTED, max_text: int = MAX_TEXT) -> str:
    """One value as short text: numbers to 4 significant digits, long lists by count and range,
    mappings as ``key: value`` pairs, long text cut with its length.

    Example
    -------
    >>> summarize({"class": "Teacher", "size": 3})
    'class: Teacher; size: 3'
    >>> summarize(["a", "b", "c", "d", "e", "f", "g", "h", "i"])
    '9 items: a, b, c, d, e, f, … i'
    """
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, Mapping):
        text = "; ".join(f"{label(k)}: {summarize(v, max_listed=max_listed, max_text=max_text)}"
                         for k, v in value.items()) or "none"
    elif isinstance(value, (list, tuple, set, frozenset)):
        text = _sequence(list(value), max_listed)
    else:
        text = fmt(value)
    return text if len(text) <= max_text else f"{text[:max_text - 1]}… ({len(text)} characters)"


def _sequence(items: list, max_listed: int) -> str:
    if not items:
        return "none"
    if all(isinstance(item, Mapping) for item in items):
        keys = list(dict.fromkeys(str(k) for item in items for k in item))
        return f"{len(items)} records of {', '.join(label(k) for k in keys[:6])}" + (" …" if len(keys) > 6 else "")
    numbers = _numbers(items)
    if len(items) <= max_listed:
        return ", ".join(summarize(item, max_listed=max_listed) for item in items)
    if numbers is not None:
        low, high = min(numbers), max(numbers)
        if all(float(n).is_integer() for n in numbers) and numbers == list(range(int(numbers[0]), int(numbers[0]) + len(numbers))):
            return f"{len(items)} values: {fmt(int(low))} to {fmt(int(high))} (consecutive integers)"
        distinct = len(set(numbers))
        return (f"{len(items)} values from {fmt(low)} to {fmt(high)}, median {fmt(float(np.median(numbers)))}"
                + (f" ({distinct} distinct)" if distinct < len(items) else ""))
    head = ", ".join(summarize(item, max_listed=max_listed) for item in items[: max_listed - 2])
    return f"{len(items)} items: {head}, … {summarize(items[-1], max_listed=max_listed)}"


def _numbers(items: list) -> list[float] | None:
    """The items as numbers when every one is a (non-boolean) finite number, else None."""
    out = []
    for item in items:
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, float, np.integer, np.floating)):
            return None
        if not math.isfinite(float(item)):
            return None
        out.append(float(item) if not isinstance(item, (int, np.integer)) else int(item))
    return out


def facts(mapping: Mapping, *, prefix: str = "") -> list[tuple[str, str]]:
    """A (possibly nested) mapping as ``(label, summary)`` rows; nested mappings are flattened with
    ``›`` between their keys, so that options inside options still read as one list of facts.

    Example
    -------
    >>> facts({"teacher": {"class": "Actor", "parameters": 111622}})
    [('teacher › class', 'Actor'), ('teacher › parameters', '111622')]
    """
    rows = []
    for key, value in mapping.items():
        name = f"{prefix}{label(key)}"
        if isinstance(value, Mapping) and value:
            rows += facts(value, prefix=f"{name} › ")
        else:
            rows.append((name, summarize(value)))
    return rows
