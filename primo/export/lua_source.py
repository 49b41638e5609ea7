"""Lua export: one dependency-free Lua 5.1 module (also runs on Lua 5.2–5.4 and LuaJIT).

Made for schedulers and proxies that embed Lua (Slurm's ``job_submit/lua`` plugin, nginx/OpenResty,
HAProxy). The module returns a table ``M`` with:

* ``M.feature_names`` and, for classifiers, ``M.classes`` (both 1-based Lua arrays);
* ``M.predict(x)``: class label or predicted value;
* ``M.predict_proba(x)``: class probabilities in the order of ``M.classes`` (classifiers);
* ``M.decision_function(x)``: raw score (PrAM: log-odds for binary, a table of one score per class
  for multiclass);
* ``M.leaf(x)``: leaf number, 0-based like the other exports (PrDT).

``x`` is one row, a Lua array in the model's feature order (``x[1]`` is the first feature); ``nil``
or NaN means missing. Text categories may be given as strings or as codes (see
:mod:`primo.export.tables`); an unknown string is an unseen category.

Lua has no float32 type, so tree thresholds are written as the float64 bound that makes
``x <= t`` agree with scikit-learn's float32 comparison (:func:`primo.export.codegen.float32_threshold`).
Every table lives in its own function so that no function exceeds Lua 5.1's 2^18 constants, and the
tree is walked as arrays rather than nested ``if``\\ s so that depth never meets the parser's nesting
limit.

Example
-------
>>> open("workload.lua", "w").write(to_lua(model))  # doctest: +SKIP
>>> # local model = dofile("workload.lua"); print(model.predict({2, 64, 0/0}))
"""
from __future__ import annotations

from functools import partial

import numpy as np

from primo.export.codegen import (
    comment_safe,
    float32_threshold,
    float_literal,
    join_wrapped,
    lua_string,
    shared_lookups,
)
from primo.export.tables import AdditiveTables, TreeTables, model_tables

_float = partial(float_literal, infinity="math.huge")
_CHUNK = 50_000  # items per generated function: far below Lua 5.1's 262,143 constants per function


def to_lua(model) -> str:
    """Lua 5.1 module source for a fitted PrDT or PrAM (or its tables).

    Example
    -------
    >>> source = to_lua(model)  # doctest: +SKIP
    >>> source.splitlines()[-1]  # doctest: +SKIP
    'return M'
    """
    from primo._version import __version__

    tables = model if isinstance(model, (TreeTables, AdditiveTables)) else model_tables(model)
    lines = [
        f"-- {comment_safe(type(model).__name__)} exported by primo {__version__} (primo.export.to_lua). "
        "Lua 5.1+, no dependencies.",
        "-- Input: one row x, a Lua array in feature order (x[1] = first feature); nil or NaN = missing.",
        "local M = {}",
        "local function join(parts)  -- long tables are built in chunks (see the module docstring)",
        "  local out, n = {}, 0",
        "  for _, part in ipairs(parts) do for i = 1, #part do n = n + 1; out[n] = part[i] end end",
        "  return out",
        "end",
        f"M.feature_names = {{{', '.join(lua_string(n) for n in tables.feature_names)}}}",
    ]
    if tables.is_classifier:
        lines.append(f"M.classes = {{{', '.join(_label(c) for c in tables.classes)}}}")
    body = _tree_body(tables) if isinstance(tables, TreeTables) else _additive_body(tables)
    return "\n".join(lines) + "\n\n" + body + "\n\nreturn M\n"


def _label(value) -> str:
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    return lua_string(str(value))


def _array(values, *, integer: bool = False) -> str:
    """A Lua array expression of ``values`` (1-based), split into functions of at most ``_CHUNK`` items."""
    flat = np.ravel(np.asarray(values))
    items = [str(int(v)) for v in flat] if integer else [_float(v) for v in flat]
    chunks = [items[i:i + _CHUNK] for i in range(0, len(items), _CHUNK)] or [[]]
    parts = ["(function() return {\n" + join_wrapped(chunk, indent="  ") + "\n} end)()" for chunk in chunks]
    return parts[0] if len(parts) == 1 else "join({" + ", ".join(parts) + "})"


def _category_codes(vocabularies: dict[int, list[str]]) -> str:
    """``category_codes``: feature (1-based) -> text category -> code (its position in the vocabulary)."""
    lines = []
    for j, vocabulary in sorted(vocabularies.items()):
        entries = ", ".join(f"[{lua_string(key)}] = {code}" for code, key in enumerate(vocabulary))
        lines.append(f"  [{j + 1}] = {{{entries}}},")
    return ("-- Text categories: feature -> category -> code (the position in the training vocabulary).\n"
            "local category_codes = {\n" + "\n".join(lines) + "\n}")


def _tree_body(t: TreeTables) -> str:
    internal = t.left != -1
    # 1-based node numbers; 0 marks a leaf (no child), so the walk stops there.
    left = np.where(internal, t.left + 1, 0)
    right = np.where(internal, t.right + 1, 0)
    threshold = [float32_threshold(float(v)) if i else 0.0 for v, i in zip(t.threshold, internal)]
    parts = [
        _category_codes(t.vocabularies),
        # a string is a text category: its code, or missing when unseen (a PrDT's rule, as every export)
        "local function value(x, j)\n  local v = x[j]\n  if type(v) == 'string' then\n"
        "    local codes = category_codes[j]\n    return codes and codes[v]\n  end\n  return v\nend",
        "local feature = " + _array(t.feature + 1, integer=True),
        "local threshold = " + _array(threshold),
        "local left = " + _array(left, integer=True),
        "local right = " + _array(right, integer=True),
        "local missing_left = " + _array(t.missing_left.astype(int), integer=True),
        "local leaf_number = " + _array(t.leaf_index, integer=True),
        "-- Leaf number (0-based) of row x: NaN/nil go where scikit-learn sends missing values.\n"
        "function M.leaf(x)\n  local node = 1\n  while left[node] ~= 0 do\n    local v = value(x, feature[node])\n"
        "    local go_left\n    if v == nil or v ~= v then go_left = missing_left[node] == 1\n"
        "    else go_left = v <= threshold[node] end\n"
        "    if go_left then node = left[node] else node = right[node] end\n  end\n"
        "  return leaf_number[node]\nend",
    ]
    if t.is_classifier:
        n_classes = len(t.classes)
        parts.insert(0, "local leaf_proba = " + _array(t.leaf_values))
        parts.insert(1, "local leaf_class = " + _array(t.leaf_labels + 1, integer=True))
        parts.append("function M.predict(x)\n  return M.classes[leaf_class[M.leaf(x) + 1]]\nend")
        parts.append(f"function M.predict_proba(x)\n  local start = M.leaf(x) * {n_classes}\n  local out = {{}}\n"
                     f"  for k = 1, {n_classes} do out[k] = leaf_proba[start + k] end\n  return out\nend")
    else:
        parts.insert(0, "local leaf_value = " + _array(t.leaf_values[:, 0]))
        parts.append("function M.predict(x)\n  return leaf_value[M.leaf(x) + 1]\nend")
    return "\n\n".join(parts)


def _additive_body(t: AdditiveTables) -> str:
    parts = [
        _category_codes(t.vocabularies),
        "local NAN = 0 / 0",
        "local function value(x, j)\n  local v = x[j]\n  if v == nil then return NAN end\n"
        "  if type(v) == 'string' then\n    local codes = category_codes[j]\n"
        "    local code = codes and codes[v]\n    if code == nil then return -1 end  -- unseen\n"
        "    return code\n  end\n  return v\nend",
        "-- Bin of v over sorted cuts: 0 when missing, else 1 + number of cuts <= v.\n"
        "local function cut_bin(cuts, v)\n  if v ~= v then return 0 end\n  local lo, n = 0, #cuts\n"
        "  while n > 0 do\n    local half = math.floor(n / 2)\n"
        "    if cuts[lo + half + 1] <= v then lo = lo + half + 1; n = n - half - 1 else n = half end\n"
        "  end\n  return lo + 1\nend",
        "-- Bin of category v: 0 when missing, bins[i] when v == values[i], else unseen.\n"
        "local function category_bin(values, bins, unseen, v)\n  if v ~= v then return 0 end\n"
        "  local lo, n = 0, #values\n  while n > 0 do\n    local half = math.floor(n / 2)\n"
        "    if values[lo + half + 1] < v then lo = lo + half + 1; n = n - half - 1 else n = half end\n"
        "  end\n  if lo < #values and values[lo + 1] == v then return bins[lo + 1] end\n  return unseen\nend",
        "local binning, term, term_map = {}, {}, {}",
    ]
    shared, lookups = shared_lookups(t.binnings, t.terms, [term.scores for term in t.terms])
    bin_lines = []
    for one in shared:  # each feature binned once, whatever number of terms read it
        b, f = one.binning, one.binning.feature
        feature = comment_safe(t.feature_names[f])
        if b.is_categorical:
            parts.append(f"-- feature {f}: {feature} (categories)\n"
                         f"binning[{f + 1}] = {{values = {_array(b.categories)},\n"
                         f"  bins = {_array(b.category_bins, integer=True)}}}")
            bin_lines.append(f"  b[{f}] = category_bin(binning[{f + 1}].values, binning[{f + 1}].bins, "
                             f"{b.n_bins - 1}, value(x, {f + 1}))")
        else:
            parts.append(f"-- feature {f}: {feature} (bin edges of every term)\nbinning[{f + 1}] = {_array(b.cuts)}")
            bin_lines.append(f"  b[{f}] = cut_bin(binning[{f + 1}], value(x, {f + 1}))")
    n_scores = t.n_scores
    score_lines = []
    for i, (term, lookup) in enumerate(zip(t.terms, lookups)):
        if lookup.maps:  # per axis read through a map: shared bin of its feature -> its share of the row
            entries = ",\n".join(f"  [{axis + 1}] = {_array(offsets, integer=True)}" for axis, _, offsets in lookup.maps)
            parts.append(f"-- term {i}: maps of shared bins\nterm_map[{i + 1}] = {{\n{entries}\n}}")
        parts.append(f"-- term {i}: {comment_safe(term.name)}\nterm[{i + 1}] = {_array(lookup.scores)}")
        index = lookup.row(lambda f: f"b[{f}]", lambda axis, f: f"term_map[{i + 1}][{axis + 1}][b[{f}] + 1]")
        if n_scores == 1:
            score_lines.append(f"  s = s + term[{i + 1}][{index} + 1]")
        else:
            score_lines.append(f"  o = ({index}) * {n_scores}")
            score_lines.append(f"  for k = 1, {n_scores} do s[k] = s[k] + term[{i + 1}][o + k] end")
    parts.append("local intercept = " + _array(t.intercept))
    # Left to right, intercept first: the order interpret sums in, so results match to the bit.
    start = "  local s = intercept[1]" if n_scores == 1 else \
        f"  local s, o = {{}}, 0\n  for k = 1, {n_scores} do s[k] = intercept[k] end"
    # Bins in a table, not one local each: Lua 5.1 allows only 200 locals per function.
    parts.append("function M.decision_function(x)\n  local b = {}\n" + "\n".join(bin_lines) + "\n"
                 + start + "\n" + "\n".join(score_lines) + "\n  return s\nend")
    if t.link == "logit":
        parts.append("function M.predict_proba(x)\n  local p = 1 / (1 + math.exp(-M.decision_function(x)))\n"
                     "  return {1 - p, p}\nend")
        parts.append("function M.predict(x)\n  if M.decision_function(x) > 0 then return M.classes[2] end\n"
                     "  return M.classes[1]\nend")
    elif t.link == "mlogit":
        parts.append("function M.predict_proba(x)\n  local s = M.decision_function(x)\n  local top = s[1]\n"
                     "  for k = 2, #s do if s[k] > top then top = s[k] end end\n  local e, total = {}, 0\n"
                     "  for k = 1, #s do e[k] = math.exp(s[k] - top); total = total + e[k] end\n"
                     "  for k = 1, #s do e[k] = e[k] / total end\n  return e\nend")
        parts.append("function M.predict(x)\n  local s = M.decision_function(x)\n  local best = 1\n"
                     "  for k = 2, #s do if s[k] > s[best] then best = k end end\n  return M.classes[best]\nend")
    else:
        parts.append("function M.predict(x)\n  return M.decision_function(x)\nend")
    return "\n\n".join(parts)

