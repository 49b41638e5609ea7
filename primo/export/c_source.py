"""C export: one header-only, allocation-free, dependency-free C99 file per model.

Everything is ``static const`` tables and ``static inline`` functions named after ``name``; include the
header in one or more ``.c`` files. Inputs are one row ``x`` in the model's feature order (see
:mod:`primo.export.tables` for missing values and categories). The header comment lists the code of
every text category and what to pass for an unseen one (PrDT: missing; PrAM: -1).

Float mode (``const double *x``; NaN = missing):

* PrDT: ``int NAME_leaf(x)`` (straight-line if/else, the tree as code; each node compares the double
  ``x[j]`` with ``float32_threshold(t)``, the same test as scikit-learn's ``float32(x[j]) <= t``
  without rounding anything), ``int NAME_predict(x)`` (class index into the classes listed in the
  header) and ``void NAME_predict_proba(x, proba)`` for classifiers (a second walk whose leaves store
  their probabilities as constants), ``double NAME_predict(x)`` for regressors.
* PrAM: each feature binned once over the union of its terms' bin edges by a branch-free search (a
  fixed number of halving steps, each a conditional add: random inputs cost no mispredicted
  branches), main-term tables indexed by that bin, pair tables through small maps of it;
  ``double NAME_decision(x)``
  (regression value or binary log-odds) or ``void NAME_decision(x, scores)`` (multiclass raw scores),
  and ``int NAME_predict(x)`` (class index) for classifiers. Probabilities need ``exp``, so they are
  left to the caller (sigmoid / softmax of the scores) to keep the file free of libm.

Integer mode (``integer=True``; ``const int64_t *x`` with ``x[j] = round(value · NAME_SCALE_j)`` and
``NAME_MISSING`` for missing; no floating point at all): the same functions with integer thresholds;
scores are fixed-point integers (``score · NAME_SCORE_SCALE``). See :mod:`primo.export.quantize`.

Example
-------
>>> header = to_c(tree, name="linnos_tree", integer=True, check_data=X_test)  # doctest: +SKIP
>>> print(header.splitlines()[1])  # doctest: +SKIP
"""
from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numpy as np

from primo.export.codegen import (
    comment_quoted,
    comment_safe,
    float32_threshold,
    float_literal,
    identifier,
    int_literal,
    join_wrapped,
    shared_lookups,
    TermLookup,
    tree_branches,
)
from primo.export.quantize import (
    IntegerAdditive,
    IntegerTree,
    QuantizationReport,
    quantize,
)
from primo.export.tables import (
    AdditiveTables,
    Binning,
    TreeTables,
    encode_categories,
    model_tables,
)

_float = partial(float_literal, infinity="HUGE_VAL")


def to_c(model, *, name: str = "primo_model", integer: bool = False, feature_scales="auto",
         score_scale: int | str = "auto", check_data=None) -> str:
    """C99 header source for a fitted PrDT or PrAM.

    Parameters
    ----------
    model : fitted PrDT/PrAM (or its :func:`~primo.export.tables.model_tables`).
    name : prefix of every function, table and macro (made a valid C identifier).
    integer : integer-only code for kernels; see :mod:`primo.export.quantize`.
    feature_scales, score_scale : integer mode's scales (``"auto"``: powers of ten per feature; 10^6 for
        scores, or the largest smaller power of ten under which they cannot overflow).
    check_data : rows (array, DataFrame or Arrow table) on which integer mode counts predictions that
        differ from the float model; the count is written into the header comment.

    Example
    -------
    >>> open("linnos_tree.h", "w").write(to_c(tree, name="linnos_tree", integer=True))  # doctest: +SKIP
    """
    if integer:
        return integer_c(model, name=name, feature_scales=feature_scales, score_scale=score_scale,
                         check_data=check_data).source
    if check_data is not None:
        raise ValueError("check_data is for integer mode (float mode is exact)")
    tables = _tables(model)
    return _writer(tables, identifier(name), None).header(type(model).__name__, None)


class IntegerC(NamedTuple):
    """Integer mode's header ``source``, the ``quantized`` model it was written from (what a caller
    scales its rows with) and the ``report`` of mismatches on ``check_data`` (None without it)."""

    source: str
    quantized: IntegerTree | IntegerAdditive
    report: QuantizationReport | None


def integer_c(model, *, name: str = "primo_model", feature_scales="auto", score_scale: int | str = "auto",
              check_data=None) -> IntegerC:
    """:func:`to_c` in integer mode, with the quantized model and its mismatch report (computed once).

    Example
    -------
    >>> header = integer_c(tree, name="linnos_tree", check_data=X_test)  # doctest: +SKIP
    >>> header.report.summary()  # doctest: +SKIP
    """
    tables = _tables(model)
    quantized = quantize(tables, feature_scales=feature_scales, score_scale=score_scale)
    report = None if check_data is None else quantized.compare(encode_categories(tables, check_data))
    source = _writer(tables, identifier(name), quantized).header(type(model).__name__, report)
    return IntegerC(source, quantized, report)


def _tables(model):
    return model if isinstance(model, (TreeTables, AdditiveTables)) else model_tables(model)


def _writer(tables, prefix: str, quantized):
    return (_TreeWriter if isinstance(tables, TreeTables) else _AdditiveWriter)(tables, prefix, quantized)


class _Writer:
    """What the tree and additive writers share: types, literals, the file frame."""

    def __init__(self, tables, prefix: str, quantized: IntegerTree | IntegerAdditive | None):
        self.tables = tables
        self.prefix = prefix
        self.quantized = quantized
        self.integer = quantized is not None
        self.value_type = "int64_t" if self.integer else "double"
        self.uses_huge_val = False
        self.macro = prefix.upper()

    def value(self, v) -> str:
        if self.integer:
            return int_literal(v, int64_min=f"{self.macro}_MISSING")
        text = _float(v)
        self.uses_huge_val |= "HUGE_VAL" in text
        return text

    def array(self, ctype: str, name: str, values, literal=None) -> str:
        literal = literal or self.value
        items = [literal(v) for v in np.ravel(values)]
        return f"static const {ctype} {name}[{len(items)}] = {{\n{join_wrapped(items)}\n}};"

    def is_missing(self, v: str) -> str:
        return f"{v} == {self.macro}_MISSING" if self.integer else f"{v} != {v}"

    def header(self, source: str, report: QuantizationReport | None) -> str:
        from primo._version import __version__

        body = self.body()
        guard = f"{self.macro}_H"
        tables = self.tables
        lines = [
            f"/* {self.prefix}: {source} exported by primo {__version__} (primo.export.to_c), "
            f"{'integer' if self.integer else 'float'} mode.",
            " *",
            f" * Input: x[0..{tables.n_features - 1}], one value per feature:",
        ]
        for j, feature in enumerate(tables.feature_names):
            scale = f"  (scale {self.quantized.exactness_note(j)})" if self.integer else ""
            lines.append(f" *   x[{j}] {comment_safe(feature)}{scale}{self.feature_note(j)}")
        if tables.is_classifier:
            lines.append(" * Classes (index returned by *_predict -> label):")
            lines += [f" *   {i}: {comment_safe(label)}" for i, label in enumerate(tables.classes)]
        lines += [f" * {comment_safe(line)}" for line in self.usage()]
        if self.integer:
            lines.append(" * Integer mode: pass round(value * scale) per feature, saturated to +-9.2e18 (as quantize.scale_inputs "
                         f"does), {self.macro}_MISSING for a missing value.")
            inexact = [tables.feature_names[j] for j, exact in enumerate(self.quantized.exact_features) if not exact]
            if inexact:
                lines.append(f" * NOT EXACT: no 64-bit scale holds every bin edge of {comment_safe(', '.join(inexact))}; "
                             "values near those edges may take another bin than the float model.")
            lines.append(f" * Check: {comment_safe(report.summary())}." if report is not None
                         else " * Check: not measured (export with check_data to count mismatches).")
        lines += [" */", f"#ifndef {guard}", f"#define {guard}", ""]
        if self.integer:
            lines += ["#ifdef __KERNEL__", "#include <linux/types.h>", "#else", "#include <stdint.h>", "#endif",
                      f"#define {self.macro}_MISSING (-9223372036854775807LL - 1) /* INT64_MIN */",
                      f"#define {self.macro}_SCORE_SCALE {int(self.quantized.score_scale)}"]
        elif self.uses_huge_val:
            lines.append("#include <math.h> /* HUGE_VAL only; no libm needed */")
        lines.append(f"#define {self.macro}_N_FEATURES {tables.n_features}")
        if tables.is_classifier:
            lines.append(f"#define {self.macro}_N_CLASSES {len(tables.classes)}")
        lines += ["", body, "", f"#endif /* {guard} */", ""]
        return "\n".join(lines)

    def feature_note(self, j: int) -> str:
        """The codes of a text-categorical feature, and what an unseen category is passed as."""
        vocabulary = self.tables.vocabularies.get(j)
        if vocabulary is None:
            return ""
        # JSON quoting keeps commas, '=' and control characters in a category unambiguous.
        listed = ", ".join(f"{code}={comment_quoted(key)}" for code, key in enumerate(vocabulary))
        if isinstance(self.tables, AdditiveTables):
            unseen = "-1"
        else:
            unseen = f"{self.macro}_MISSING (missing)" if self.integer else "NAN (missing)"
        return f", categorical codes: {listed}; unseen category: {unseen}"


class _TreeWriter(_Writer):
    def usage(self) -> list[str]:
        t, p, v = self.tables, self.prefix, self.value_type
        lines = [f"int {p}_leaf(const {v} *x): leaf number, 0..{len(t.leaf_values) - 1}."]
        if t.is_classifier:
            lines.append(f"int {p}_predict(const {v} *x): class index.")
            if not self.integer:
                lines.append(f"void {p}_predict_proba(const double *x, double *proba): {len(t.classes)} probabilities.")
        else:
            unit = f" times {self.macro}_SCORE_SCALE" if self.integer else ""
            lines.append(f"{v} {p}_predict(const {v} *x): predicted value{unit}.")
        return lines

    def condition(self, node: int) -> str:
        t = self.tables
        x = f"x[{int(t.feature[node])}]"
        if self.integer:
            threshold = self.value(self.quantized.thresholds[node])
            # INT64_MIN (missing) is <= every threshold, so it goes left unless told otherwise.
            return f"{x} <= {threshold}" if t.missing_left[node] else f"{x} <= {threshold} && {x} != {self.macro}_MISSING"
        # scikit-learn compares float32(x) with the double threshold t; comparing the double x with the
        # double t' of float32_threshold is the same test without rounding x at all (cheaper than
        # rounding the row once per call). NaN fails every comparison: "!(x > t')" sends it left.
        threshold = self.value(float32_threshold(t.threshold[node]))
        return f"!({x} > {threshold})" if t.missing_left[node] else f"{x} <= {threshold}"

    def body(self) -> str:
        t, p, v = self.tables, self.prefix, self.value_type
        branches = tree_branches(t, self.condition, lambda leaf: f"return {leaf};")
        if t.left[0] == -1:  # a single leaf reads no feature; -Wextra would flag the unused x
            branches.insert(0, "    (void)x;")
        parts = [f"static inline int {p}_leaf(const {v} *x)\n{{\n" + "\n".join(branches) + "\n}"]
        if t.is_classifier:
            parts.insert(0, self.array("int", f"{p}_leaf_class", t.leaf_labels, literal=str))
            parts.append(f"static inline int {p}_predict(const {v} *x)\n{{\n    return {p}_leaf_class[{p}_leaf(x)];\n}}")
            if not self.integer:
                # Each leaf stores its probabilities as constants: a table row picked by the leaf number
                # would be one more dependent load per call (LinnOS, random rows: 5.57 vs 5.17 ns).
                def store(leaf: int) -> str:
                    return " ".join(f"proba[{k}] = {self.value(v)};" for k, v in enumerate(t.leaf_values[leaf])) + " return;"

                walk = tree_branches(t, self.condition, store)
                if t.left[0] == -1:
                    walk.insert(0, "    (void)x;")
                parts.append(f"static inline void {p}_predict_proba(const double *x, double *proba)\n{{\n"
                             + "\n".join(walk) + "\n}")
        else:
            values = self.quantized.leaf_values if self.integer else t.leaf_values[:, 0]
            parts.insert(0, self.array(v, f"{p}_leaf_value", values))
            parts.append(f"static inline {v} {p}_predict(const {v} *x)\n{{\n    return {p}_leaf_value[{p}_leaf(x)];\n}}")
        return "\n\n".join(parts)


class _AdditiveWriter(_Writer):
    """Each feature is binned once (the union of its binnings' edges, :func:`share_binnings`) by a
    branch-free search; main terms are tabled by that shared bin, pairs map it to their own bins."""

    def __init__(self, tables: AdditiveTables, prefix, quantized):
        super().__init__(tables, prefix, quantized)
        binnings: list[Binning] = quantized.binnings if quantized is not None else tables.binnings
        scores = quantized.scores if quantized is not None else [term.scores for term in tables.terms]
        self.shared, self.lookups = shared_lookups(binnings, tables.terms, scores)
        self.intercept = quantized.intercept if quantized is not None else tables.intercept
        self.multiclass = tables.n_scores > 1

    def usage(self) -> list[str]:
        p, v = self.prefix, self.value_type
        unit = f" times {self.macro}_SCORE_SCALE" if self.integer else ""
        if self.multiclass:
            lines = [f"void {p}_decision(const {v} *x, {v} *scores): {self.tables.n_scores} raw class scores{unit} "
                     "(softmax gives probabilities)."]
        elif self.tables.is_classifier:
            lines = [f"{v} {p}_decision(const {v} *x): log-odds of class 1{unit} (sigmoid gives its probability)."]
        else:
            lines = [f"{v} {p}_decision(const {v} *x): predicted value{unit}."]
        if self.tables.is_classifier:
            lines.append(f"int {p}_predict(const {v} *x): class index.")
        return lines

    def body(self) -> str:
        p, v, n_scores = self.prefix, self.value_type, self.tables.n_scores
        parts = [self.search_functions()]
        bin_lines = []
        for shared in self.shared:
            f = shared.binning.feature
            feature = comment_safe(self.tables.feature_names[f])
            bin_lines.append(f"    const int s{f} = {self.bin_expression(shared.binning, parts, feature)};")
        score_lines = []
        for i, (term, lookup) in enumerate(zip(self.tables.terms, self.lookups)):
            index = self.term_row(i, lookup, parts)
            parts.append(f"/* term {i}: {comment_safe(term.name)} */\n" + self.array(v, f"{p}_term{i}", lookup.scores))
            if self.multiclass:
                score_lines.append(f"    t = {p}_term{i} + ({index}) * {n_scores};")
                score_lines.append(f"    for (k = 0; k < {n_scores}; k++) scores[k] += t[k];")
            else:
                score_lines.append(f"    s += {p}_term{i}[{index}];")
        parts.append(self.array(v, f"{p}_intercept", self.intercept))
        if self.multiclass:
            parts.append(
                f"static inline void {p}_decision(const {v} *x, {v} *scores)\n{{\n" + "\n".join(bin_lines)
                + (f"\n    const {v} *t;" if self.tables.terms else "") + "\n    int k;\n"
                f"    for (k = 0; k < {n_scores}; k++) scores[k] = {p}_intercept[k];\n"
                + "\n".join(score_lines) + "\n}"
            )
            parts.append(
                f"static inline int {p}_predict(const {v} *x)\n{{\n    {v} scores[{n_scores}];\n"
                f"    int k, best = 0;\n    {p}_decision(x, scores);\n"
                f"    for (k = 1; k < {n_scores}; k++)\n        if (scores[k] > scores[best]) best = k;\n"
                "    return best;\n}"
            )
        else:
            unused = "" if self.shared else "    (void)x;\n"
            parts.append(
                f"static inline {v} {p}_decision(const {v} *x)\n{{\n" + unused + "\n".join(bin_lines)
                + f"\n    {v} s = {p}_intercept[0];\n" + "\n".join(score_lines) + "\n    return s;\n}"
            )
            if self.tables.is_classifier:
                zero = "0" if self.integer else "0.0"
                parts.append(f"static inline int {p}_predict(const {v} *x)\n{{\n    return {p}_decision(x) > {zero};\n}}")
        return "\n\n".join(parts)

    def term_row(self, i: int, lookup: TermLookup, parts: list[str]) -> str:
        """The C expression of a term's row from the shared bins (its maps are added to ``parts``)."""
        for axis, f, offsets in lookup.maps:
            parts.append(f"/* term {i}: shared bin of x[{f}] -> its share of the row */\n"
                         + self.array("int", f"{self.prefix}_term{i}_map{axis}", offsets, literal=str))
        return lookup.row(lambda f: f"s{f}", lambda axis, f: f"{self.prefix}_term{i}_map{axis}[s{f}]")

    def search_functions(self) -> str:
        p, v = self.prefix, self.value_type
        present = f"(v != {self.macro}_MISSING)" if self.integer else "(v == v)"  # 1, or 0 for a missing value
        # Branch-free: the loop runs log2(n) times whatever v is (n is a constant once inlined), and each
        # step is a conditional add, so random inputs cost no branch mispredictions. Written out rather
        # than bsearch, which needs <stdlib.h>, calls through a pointer and branches on every step.
        return (
            f"/* Bin of v over sorted cuts (n >= 1): 0 when missing, else 1 + number of cuts <= v. */\n"
            f"static inline int {p}_cut_bin(const {v} *cuts, int n, {v} v)\n{{\n"
            f"    const {v} *base = cuts;\n"
            "    while (n > 1) {\n        const int half = n / 2;\n"
            "        base += (base[half] <= v) * half;\n        n -= half;\n    }\n"
            f"    return ((int)(base - cuts) + (base[0] <= v) + 1) * {present};\n}}\n\n"
            f"/* Bin of category v over sorted values (n >= 1): 0 when missing, bins[i] when v == values[i], else unseen. */\n"
            f"static inline int {p}_category_bin(const {v} *values, const int *bins, int n, int unseen, {v} v)\n{{\n"
            f"    const {v} *base = values;\n    int found;\n"
            "    while (n > 1) {\n        const int half = n / 2;\n"
            "        base += (base[half] <= v) * half;\n        n -= half;\n    }\n"
            "    found = base[0] == v;  /* base[0] is the largest value <= v, if any */\n"
            f"    return (unseen + (bins[base - values] - unseen) * found) * {present};\n}}"
        )

    def bin_expression(self, binning: Binning, parts: list[str], feature: str) -> str:
        p, v, f = self.prefix, self.value_type, binning.feature
        x = f"x[{f}]"
        missing = self.is_missing(x)
        if binning.is_categorical:
            unseen = binning.n_bins - 1
            if len(binning.categories) == 0:  # C has no empty arrays
                return f"{missing} ? 0 : {unseen}"
            parts.append(f"/* feature {f}: {feature} (categories) */\n"
                         + self.array(v, f"{p}_categories{f}", binning.categories) + "\n"
                         + self.array("int", f"{p}_category_bins{f}", binning.category_bins, literal=str))
            return f"{p}_category_bin({p}_categories{f}, {p}_category_bins{f}, {len(binning.categories)}, {unseen}, {x})"
        if len(binning.cuts) == 0:
            return f"{missing} ? 0 : 1"
        parts.append(f"/* feature {f}: {feature} (bin edges of every term) */\n" + self.array(v, f"{p}_cuts{f}", binning.cuts))
        return f"{p}_cut_bin({p}_cuts{f}, {len(binning.cuts)}, {x})"
