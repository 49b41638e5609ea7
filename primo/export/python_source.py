"""A fast path for single-row prediction in Python.

scikit-learn's and interpret's public ``predict`` spend tens to thousands of microseconds validating
a one-row batch; a system calling the model once per decision (one I/O, one video chunk) pays that
every time. :func:`compile_python` turns a PrDT into straight-line Python (nested ``if``\\ s; about
0.1 µs per call on this project's machine) and a PrAM into straight-line ``bisect`` lookups and one
sum per class over plain lists.

The compiled function takes one row of numbers in the model's feature order (NaN = missing, text
categories as codes from :func:`~primo.export.tables.encode_categories`, which also applies the
unseen-category rule, see :mod:`primo.export.tables`) and returns what ``model.predict`` would return
for that row.

Example
-------
>>> predict_one = compile_python(tree)  # doctest: +SKIP
>>> predict_one([12.0, 3.0, 250.0])  # doctest: +SKIP
1
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence

from primo.export.codegen import float32_threshold, shared_lookups, tree_branches
from primo.export.tables import AdditiveTables, TreeTables, model_tables


def compile_python(model) -> Callable[[Sequence[float]], object]:
    """Single-row predictor for a fitted PrDT or PrAM (or its tables); see the module docstring."""
    tables = model if isinstance(model, (TreeTables, AdditiveTables)) else model_tables(model)
    if isinstance(tables, TreeTables):
        return _compile_tree(tables)
    return _compile_additive(tables)


def _compile_tree(t: TreeTables) -> Callable:
    def condition(node: int) -> str:
        # float32_threshold makes a float64 comparison behave like scikit-learn's float32 one;
        # NaN fails every comparison, so "not x > t" sends it left and "x <= t" right.
        x, threshold = f"x[{int(t.feature[node])}]", repr(float32_threshold(float(t.threshold[node])))
        return f"not {x} > {threshold}" if t.missing_left[node] else f"{x} <= {threshold}"

    outputs = _plain(t.classes[t.leaf_labels] if t.is_classifier else t.leaf_values[:, 0])
    lines = ["def predict_one(x):"] + tree_branches(t, condition, lambda leaf: f"return _out[{leaf}]", braces=False)
    namespace = {"_out": outputs, "inf": float("inf")}
    exec(compile("\n".join(lines), "<primo PrDT>", "exec"), namespace)  # our own generated code only
    return namespace["predict_one"]


def _compile_additive(t: AdditiveTables) -> Callable:
    namespace: dict = {"_bisect": bisect_right, "_classes": None if t.classes is None else _plain(t.classes)}
    lines = ["def predict_one(x):"]
    shared, lookups = shared_lookups(t.binnings, t.terms, [term.scores for term in t.terms])
    for one in shared:  # each feature binned once, whatever number of terms read it
        b, f = one.binning, one.binning.feature
        lines.append(f"    v = x[{f}]")
        if b.is_categorical:
            namespace[f"_categories{f}"] = dict(zip(b.categories.tolist(), b.category_bins.tolist()))
            lines.append(f"    b{f} = 0 if v != v else _categories{f}.get(v, {b.n_bins - 1})")
        else:
            namespace[f"_cuts{f}"] = b.cuts.tolist()
            lines.append(f"    b{f} = 0 if v != v else 1 + _bisect(_cuts{f}, v)")
    indices = []
    for i, lookup in enumerate(lookups):
        namespace[f"_term{i}"] = lookup.scores.reshape(-1, t.n_scores).T.tolist()  # [class][flat row]
        namespace.update({f"_term{i}_map{axis}": offsets.tolist() for axis, _, offsets in lookup.maps})
        indices.append(lookup.row(lambda f: f"b{f}", lambda axis, f: f"_term{i}_map{axis}[b{f}]"))
    for k in range(t.n_scores):
        # Left to right, intercept first: the order interpret sums in, so results match to the bit.
        total = " + ".join([repr(float(t.intercept[k]))] + [f"_term{i}[{k}][{index}]" for i, index in enumerate(indices)])
        lines.append(f"    s{k} = {total}")
    if t.classes is None:
        lines.append("    return s0")
    elif t.n_scores == 1:
        lines.append("    return _classes[1] if s0 > 0 else _classes[0]")
    else:
        lines.append(f"    s = ({', '.join(f's{k}' for k in range(t.n_scores))})")
        lines.append("    return _classes[s.index(max(s))]")
    exec(compile("\n".join(lines), "<primo PrAM>", "exec"), namespace)  # our own generated code only
    return namespace["predict_one"]


def _plain(values) -> tuple:
    return tuple(v.item() if hasattr(v, "item") else v for v in values)
