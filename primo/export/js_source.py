"""JavaScript export: one ES module with no dependencies (browsers, Node, dash.js players).

The module exports ``featureNames``, ``classes`` (classifiers) and functions of one row ``x`` (an array
in the model's feature order; ``NaN``, ``null`` or ``undefined`` = missing):

* ``predict(x)``: class label or predicted value;
* ``predictProba(x)``: class probabilities in the order of ``classes`` (classifiers);
* ``decisionFunction(x)``: raw score (PrAM: log-odds for binary, one score per class for multiclass);
* ``leaf(x)``: leaf number (PrDT).

Text categories may be given as strings (or as codes, see :mod:`primo.export.tables`); an unseen
string is treated as every export treats an unseen category (PrDT: missing; PrAM: the unseen bin).
``categoryCodes`` lists the code of every text category by feature index. Numbers follow the same
rules as every other export.

Example
-------
>>> open("abr_tree.mjs", "w").write(to_js(tree))  # doctest: +SKIP
>>> # import { predict } from "./abr_tree.mjs"; predict([3.1, 0.5, 12])
"""
from __future__ import annotations

from functools import partial

import numpy as np

from primo.export.codegen import (
    comment_safe,
    float_literal,
    join_wrapped,
    json_literal,
    shared_lookups,
    tree_branches,
)
from primo.export.tables import AdditiveTables, TreeTables, model_tables

_float = partial(float_literal, infinity="Infinity")


def to_js(model) -> str:
    """ES-module source for a fitted PrDT or PrAM (or its tables).

    Example
    -------
    >>> source = to_js(model)  # doctest: +SKIP
    """
    from primo._version import __version__

    tables = model if isinstance(model, (TreeTables, AdditiveTables)) else model_tables(model)
    header = [
        f"// {type(model).__name__} exported by primo {__version__} (primo.export.to_js). No dependencies.",
        "// Input: one row x, an array in feature order; NaN, null or undefined = missing.",
        f"export const featureNames = {json_literal(tables.feature_names)};",
    ]
    if tables.is_classifier:
        header.append(f"export const classes = {json_literal(_labels(tables.classes))};")
    body = _tree_body(tables) if isinstance(tables, TreeTables) else _additive_body(tables)
    return "\n".join(header) + "\n\n" + body + "\n"


def _labels(classes: np.ndarray) -> list:
    return [c.item() if isinstance(c, np.generic) else c for c in classes]


def _array(name: str, values, *, typed: str = "Float64Array") -> str:
    items = [_float(v) if typed == "Float64Array" else str(int(v)) for v in np.ravel(values)]
    return f"const {name} = new {typed}([\n{join_wrapped(items, indent='  ')}\n]);"


def _row_function(vocabularies: dict[int, list[str]], unseen: str) -> list[str]:
    """``categoryCodes`` and ``row(x)``: the input with strings replaced by codes and null/undefined by NaN."""
    codes = {str(j): {key: code for code, key in enumerate(vocab)} for j, vocab in vocabularies.items()}
    return [
        # JSON.parse, not an object literal: a category named "__proto__" must stay an ordinary key.
        f"export const categoryCodes = JSON.parse({json_literal(json_literal(codes))});",
        "function row(x) {\n  const out = new Float64Array(featureNames.length);\n"
        "  for (let j = 0; j < out.length; j++) {\n    const v = x[j];\n"
        "    if (v === null || v === undefined) out[j] = NaN;\n"
        "    else if (typeof v === 'string') out[j] = j in categoryCodes && Object.hasOwn(categoryCodes[j], v)"
        f" ? categoryCodes[j][v] : {unseen};\n"
        "    else out[j] = v;\n  }\n  return out;\n}",
    ]


def _tree_body(t: TreeTables) -> str:
    def condition(node: int) -> str:
        # Math.fround rounds to float32 as scikit-learn does (null/undefined become NaN); NaN fails every
        # comparison, so "!(x > t)" sends it left and "x <= t" right.
        x, threshold = f"Math.fround(x[{int(t.feature[node])}] ?? NaN)", _float(t.threshold[node])
        return f"!({x} > {threshold})" if t.missing_left[node] else f"{x} <= {threshold}"

    branches = tree_branches(t, condition, lambda leaf: f"return {leaf};", indent="  ")
    if t.vocabularies:  # text categories: strings become codes, unseen ones missing
        parts = _row_function(t.vocabularies, "NaN")
        parts.append("function leafOfCodes(x) {\n" + "\n".join(branches) + "\n}")
        parts.append("export function leaf(x) {\n  return leafOfCodes(row(x));\n}")
    else:
        parts = ["export function leaf(x) {\n" + "\n".join(branches) + "\n}"]
    if t.is_classifier:
        n_classes = len(t.classes)
        parts.insert(0, _array("leafProba", t.leaf_values))
        parts.insert(1, _array("leafClass", t.leaf_labels, typed="Int32Array"))
        parts.append("export function predict(x) {\n  return classes[leafClass[leaf(x)]];\n}")
        parts.append(
            f"export function predictProba(x) {{\n  const start = leaf(x) * {n_classes};\n"
            f"  return Array.from(leafProba.subarray(start, start + {n_classes}));\n}}"
        )
    else:
        parts.insert(0, _array("leafValue", t.leaf_values[:, 0]))
        parts.append("export function predict(x) {\n  return leafValue[leaf(x)];\n}")
    return "\n\n".join(parts)


def _additive_body(t: AdditiveTables) -> str:
    parts = _row_function(t.vocabularies, "-1") + [
        "// Bin of v over sorted cuts: 0 when missing, else 1 + number of cuts <= v.\n"
        "function cutBin(cuts, v) {\n  if (v !== v) return 0;\n  let lo = 0, n = cuts.length;\n"
        "  while (n > 0) {\n    const half = n >> 1;\n"
        "    if (cuts[lo + half] <= v) { lo += half + 1; n -= half + 1; } else { n = half; }\n  }\n  return lo + 1;\n}",
        "// Bin of category v: 0 when missing, bins[i] when v === values[i], else unseen.\n"
        "function categoryBin(values, bins, unseen, v) {\n  if (v !== v) return 0;\n  let lo = 0, n = values.length;\n"
        "  while (n > 0) {\n    const half = n >> 1;\n"
        "    if (values[lo + half] < v) { lo += half + 1; n -= half + 1; } else { n = half; }\n  }\n"
        "  return lo < values.length && values[lo] === v ? bins[lo] : unseen;\n}",
    ]
    shared, lookups = shared_lookups(t.binnings, t.terms, [term.scores for term in t.terms])
    bin_lines = []
    for one in shared:  # each feature binned once, whatever number of terms read it
        b, f = one.binning, one.binning.feature
        feature = comment_safe(t.feature_names[f])
        if b.is_categorical:
            parts.append(f"// feature {f}: {feature} (categories)\n" + _array(f"categories{f}", b.categories)
                         + "\n" + _array(f"categoryBins{f}", b.category_bins, typed="Int32Array"))
            bin_lines.append(f"  const s{f} = categoryBin(categories{f}, categoryBins{f}, {b.n_bins - 1}, x[{f}]);")
        else:
            parts.append(f"// feature {f}: {feature} (bin edges of every term)\n" + _array(f"cuts{f}", b.cuts))
            bin_lines.append(f"  const s{f} = cutBin(cuts{f}, x[{f}]);")
    n_scores = t.n_scores
    score_lines = []
    for i, (term, lookup) in enumerate(zip(t.terms, lookups)):
        for axis, f, offsets in lookup.maps:
            parts.append(f"// term {i}: shared bin of x[{f}] -> its share of the row\n"
                         + _array(f"term{i}Map{axis}", offsets, typed="Int32Array"))
        parts.append(f"// term {i}: {comment_safe(term.name)}\n" + _array(f"term{i}", lookup.scores))
        index = lookup.row(lambda f: f"s{f}", lambda axis, f: f"term{i}Map{axis}[s{f}]")
        if n_scores == 1:
            score_lines.append(f"  s += term{i}[{index}];")
        else:
            score_lines.append(f"  o = ({index}) * {n_scores};")
            score_lines.append(f"  for (let k = 0; k < {n_scores}; k++) s[k] += term{i}[o + k];")
    parts.append(_array("intercept", t.intercept))
    if n_scores == 1:
        start, finish = "  let s = intercept[0];", "  return s;"
    else:
        start, finish = "  const s = Array.from(intercept);\n  let o;", "  return s;"
    parts.append("export function decisionFunction(input) {\n  const x = row(input);\n" + "\n".join(bin_lines)
                 + "\n" + start + "\n" + "\n".join(score_lines) + "\n" + finish + "\n}")
    if t.link == "logit":
        parts.append("export function predictProba(x) {\n  const p = 1 / (1 + Math.exp(-decisionFunction(x)));\n"
                     "  return [1 - p, p];\n}")
        parts.append("export function predict(x) {\n  return classes[decisionFunction(x) > 0 ? 1 : 0];\n}")
    elif t.link == "mlogit":
        parts.append("export function predictProba(x) {\n  const s = decisionFunction(x);\n  const top = Math.max(...s);\n"
                     "  const e = s.map((v) => Math.exp(v - top));\n  const total = e.reduce((a, b) => a + b, 0);\n"
                     "  return e.map((v) => v / total);\n}")
        parts.append("export function predict(x) {\n  const s = decisionFunction(x);\n  let best = 0;\n"
                     "  for (let k = 1; k < s.length; k++) if (s[k] > s[best]) best = k;\n  return classes[best];\n}")
    else:
        parts.append("export function predict(x) {\n  return decisionFunction(x);\n}")
    return "\n\n".join(parts)
