"""Pieces shared by the source-code exporters (C, JavaScript, Python): names, literals, tree branches."""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from primo.export.tables import INT_MISSING, Binning, SharedBinning, Term, TreeTables, share_binnings


def identifier(name: str) -> str:
    """A C/JavaScript identifier made from ``name`` (e.g. ``"linnos-tree"`` → ``"linnos_tree"``).

    Raises ``ValueError`` when nothing usable is left.
    """
    cleaned = re.sub(r"\W", "_", str(name), flags=re.ASCII).strip("_")
    if not cleaned:
        raise ValueError(f"{name!r} cannot be turned into a C identifier; use letters, digits and _")
    return cleaned if not cleaned[0].isdigit() else f"m_{cleaned}"


def float_literal(value: float, *, infinity: str) -> str:
    """Shortest literal that parses back to exactly ``value`` (``repr`` round-trips in C and JS)."""
    value = float(value)
    if math.isnan(value):
        raise ValueError("NaN cannot appear in an exported table")
    if math.isinf(value):
        return infinity if value > 0 else f"-{infinity}"
    text = repr(value)
    return text if any(c in text for c in ".en") else f"{text}.0"


def int_literal(value: int, *, int64_min: str) -> str:
    value = int(value)
    return int64_min if value == INT_MISSING else str(value)


def _escaped_char(character: str) -> str:
    r"""JSON's ``\uXXXX`` escape of one character (a surrogate pair above U+FFFF)."""
    code = ord(character)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def comment_safe(text: str) -> str:
    r"""``text`` as printable ASCII that is inert in a C, JavaScript or Lua comment.

    Non-ASCII and control characters (newlines, NUL, U+2028/U+2029 — JavaScript line terminators)
    become JSON ``\uXXXX`` escapes, and so does ``\`` (a C line ending in one joins the next line),
    so nothing ends a line comment; the ``/`` of ``*/`` and ``/*`` and the first ``?`` of ``??`` (C
    trigraphs such as ``??/``) are escaped too, so nothing ends a block comment, nests one, or turns
    into a backslash. The text reads back with JSON's escape rules (see :func:`comment_quoted`).

    Example
    -------
    >>> print(comment_safe("a */ b\u2028c ??/"))
    a *\u002f b\u2028c \u003f?/
    """
    escaped = "".join(c if " " <= c <= "~" and c != "\\" else _escaped_char(c) for c in str(text))
    escaped = escaped.replace("*/", "*\\u002f").replace("/*", "\\u002f*")
    return re.sub(r"\?(?=\?)", r"\\u003f", escaped)


def comment_quoted(text: str) -> str:
    r"""``text`` as a double-quoted JSON string that is also inert in a C/JavaScript/Lua comment.

    Example
    -------
    >>> print(comment_quoted('say "hi" */'))
    "say \"hi\" *\u002f"
    """
    return '"' + comment_safe(text).replace('"', '\\"') + '"'


def json_literal(value) -> str:
    r"""``value`` as JSON that is also a valid JavaScript expression (ASCII only, so U+2028/U+2029 are
    escaped, and ``</`` written ``<\/``): how every exporter emits names and labels as data.

    Example
    -------
    >>> print(json_literal(["x\u2028y", "</script>", 1.5]))
    ["x\u2028y", "<\/script>", 1.5]
    """
    return json.dumps(value, ensure_ascii=True, allow_nan=False).replace("</", "<\\/")


def join_wrapped(items: list[str], *, indent: str = "    ", width: int = 100) -> str:
    """Comma-separated items wrapped into lines of at most ``width`` characters."""
    lines, line = [], indent
    for item in items:
        piece = f"{item}, "
        if len(line) + len(piece) > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += piece
    if line.strip():
        lines.append(line.rstrip().rstrip(","))
    return "\n".join(lines)


def tree_branches(
    tables: TreeTables,
    condition: Callable[[int], str],
    leaf: Callable[[int], str],
    *,
    braces: bool = True,
    indent: str = "    ",
    level: int = 1,
) -> list[str]:
    """Nested if/else lines walking a tree; ``condition(node)`` is true for the left child.

    ``braces=True`` writes C/JavaScript blocks, ``False`` Python blocks. ``leaf(leaf_number)`` is the
    statement written at a leaf (e.g. ``return 3;``).
    """
    lines: list[str] = []
    # An explicit stack rather than recursion: deep unpruned trees would hit Python's recursion limit.
    stack: list[tuple[str, int, int]] = [("node", 0, level)]
    while stack:
        kind, node, depth = stack.pop()
        pad = indent * depth
        if kind == "text":
            lines.append(pad + ("} else {" if braces else "else:") if node == 0 else pad + "}")
            continue
        if tables.left[node] == -1:
            lines.append(pad + leaf(int(tables.leaf_index[node])))
            continue
        lines.append(f"{pad}if ({condition(node)}) {{" if braces else f"{pad}if {condition(node)}:")
        if braces:
            stack.append(("text", 1, depth))
        stack.append(("node", int(tables.right[node]), depth + 1))
        stack.append(("text", 0, depth))
        stack.append(("node", int(tables.left[node]), depth + 1))
    return lines


@dataclass(frozen=True)
class TermLookup:
    """One additive term as generated code reads it when every feature is binned once.

    ``scores`` is the table to write: a main term's re-indexed by its feature's shared bin (so it needs
    no map), a pair's as fitted. The term's row in it is the sum, over ``axes``, of each axis' part:
    ``(feature, offsets)`` reads ``offsets[s]`` for the feature's shared bin ``s``, or ``s`` itself when
    ``offsets`` is ``None``.
    """

    scores: np.ndarray
    axes: tuple[tuple[int, np.ndarray | None], ...]

    @property
    def maps(self) -> list[tuple[int, int, np.ndarray]]:
        """``(axis, feature, offsets)`` of every axis read through a map (the arrays to write)."""
        return [(axis, feature, offsets) for axis, (feature, offsets) in enumerate(self.axes) if offsets is not None]

    def row(self, shared_bin: Callable[[int], str], mapped: Callable[[int, int], str]) -> str:
        """Source of the term's row: ``shared_bin(feature)`` names a feature's shared bin and
        ``mapped(axis, feature)`` reads that axis' map at it.

        Example
        -------
        >>> TermLookup(np.zeros(12), ((0, np.arange(3) * 4), (1, None))).row(
        ...     lambda f: f"s{f}", lambda axis, f: f"map{axis}[s{f}]")
        'map0[s0] + s1'
        """
        return " + ".join(shared_bin(feature) if offsets is None else mapped(axis, feature)
                          for axis, (feature, offsets) in enumerate(self.axes))


def shared_lookups(binnings: list[Binning], terms: list[Term],
                   scores: list[np.ndarray]) -> tuple[list[SharedBinning], list[TermLookup]]:
    """Each feature's one binning (:func:`~primo.export.tables.share_binnings`) and every term's
    :class:`TermLookup` over those shared bins: what the C, JavaScript, Lua and Python exporters write.

    ``scores`` are the terms' tables (the fitted ones, or integer mode's).

    Example
    -------
    >>> a_fine, a_coarse = Binning(0, 5, cuts=np.array([1.0, 2.0])), Binning(0, 4, cuts=np.array([2.0]))
    >>> b = Binning(1, 4, cuts=np.array([0.5]))
    >>> terms = [Term("a", (0,), np.arange(5.0)[:, None]), Term("a & b", (2, 1), np.arange(16.0).reshape(4, 4, 1))]
    >>> shared, lookups = shared_lookups([a_fine, b, a_coarse], terms, [t.scores for t in terms])
    >>> lookups[0].scores[:, 0].tolist(), lookups[0].axes
    ([0.0, 1.0, 2.0, 3.0, 4.0], ((0, None),))
    >>> [(feature, None if offsets is None else offsets.tolist()) for feature, offsets in lookups[1].axes]
    [(0, [0, 4, 4, 8, 12]), (1, None)]
    """
    shared = share_binnings(binnings, terms, scores)
    shared_of = {b: one for one in shared for b in one.level_bins}
    lookups = []
    for term, table in zip(terms, scores):
        if len(term.binnings) == 1:
            one = shared_of[term.binnings[0]]
            lookups.append(TermLookup(table[one.level_bins[term.binnings[0]]], ((one.binning.feature, None),)))
            continue
        axes = []
        for b, stride in term.strides(binnings):
            one = shared_of[b]
            offsets = one.level_bins[b] * stride
            identity = np.array_equal(offsets, np.arange(len(offsets)))  # the shared bins are this binning's own
            axes.append((one.binning.feature, None if identity else offsets))
        lookups.append(TermLookup(table, tuple(axes)))
    return shared, lookups


def float32_threshold(threshold: float) -> float:
    """The float64 ``t'`` with ``x <= t'`` ⟺ ``float32(x) <= threshold`` for every float64 ``x``.

    scikit-learn rounds inputs to float32 before comparing them with float64 thresholds; code with no
    cheap float32 rounding (Python) compares with ``t'`` instead. ``fl`` is monotonic, so the rows going
    left are those below the rounding midpoint between ``a`` (largest float32 ≤ threshold) and the next
    float32; whether the midpoint itself rounds down depends on ``a``'s last mantissa bit (ties to even).
    """
    if not math.isfinite(threshold):
        return threshold
    a = np.float32(threshold)
    if float(a) > threshold:
        a = np.nextafter(a, np.float32(-np.inf))
    if np.isinf(a):  # threshold below -FLT_MAX: only -inf goes left
        return -math.inf
    b = np.nextafter(a, np.float32(np.inf))
    if np.isinf(b):  # a == FLT_MAX: everything that does not round to +inf
        return float(np.nextafter(np.float64(a) + (np.float64(a) - np.float64(np.nextafter(a, np.float32(0)))) / 2, -np.inf))
    midpoint = (float(a) + float(b)) / 2  # exact in float64
    a_is_even = int(np.asarray(a).view(np.uint32)) % 2 == 0
    return midpoint if a_is_even else float(np.nextafter(midpoint, -np.inf))


def lua_string(text: str) -> str:
    """A double-quoted Lua 5.1 string literal that reads back as exactly the UTF-8 bytes of ``text``.

    Every byte outside printable ASCII, and ``"`` and ``\\``, is written as a three-digit decimal
    escape (``\\ddd``, the only numeric escape Lua 5.1 has; three digits so that a following digit
    cannot join it), so no name can end the literal, start a comment or break a line.

    Example
    -------
    >>> lua_string('op "read"\\n')
    '"op \\\\034read\\\\034\\\\010"'
    """
    data = str(text).encode("utf-8", errors="surrogatepass")
    return '"' + "".join(chr(b) if 0x20 <= b < 0x7F and b not in (0x22, 0x5C) else f"\\{b:03d}" for b in data) + '"'
