"""Markdown rendering of a :class:`~primo.report.Report`: the same explanation data as the HTML,
as tables and lists that read well in a terminal and render in notebooks.

Names and free text are escaped (``<``, ``|``, ``*``… get a backslash; names go in code spans),
so a feature called ``<script>`` stays text in any Markdown viewer.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from primo.report import search_view, summary
from primo.report.svg import fmt
from primo.report.tree_diagram import node_value_text

# Characters that start Markdown or HTML markup; "_" only at a word boundary (GFM ignores R_ec).
_SPECIAL = re.compile(r"([\\`*\[\]<>|~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")


def text(value) -> str:
    """Free text with Markdown/HTML special characters backslash-escaped, on one line (lists and
    mappings summarized, see :func:`primo.report.summary.summarize`)."""
    shown = value if isinstance(value, str) else summary.summarize(value)  # text is kept whole, collections summarized
    return _SPECIAL.sub(r"\\\1", shown).replace("\n", " ")


def code(value) -> str:
    """A code span (backticks grown as needed); pipes escaped so it can sit in a table cell."""
    content = str(value).replace("\n", " ").replace("|", "\\|")
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", content)), default=0) + 1)
    pad = " " if content.startswith("`") or content.endswith("`") else ""
    return f"{ticks}{pad}{content}{pad}{ticks}"


def table(header: list[str], rows: list[list]) -> list[str]:
    """A GitHub-flavoured Markdown table as lines, then a blank line; cells are used as given (escape them first)."""
    lines = ["| " + " | ".join(str(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines + [""]


def table_text(header: list[str], rows: list[list]) -> str:
    """:func:`table` as one string, without the blank line after it."""
    return "\n".join(table(header, rows)[:-1])


def frame_table(frame: pd.DataFrame, *, index_name: str = "", max_rows: int = 50) -> list[str]:
    rows = [[code(idx)] + [text(v) for v in row] for idx, row in frame.head(max_rows).iterrows()]
    lines = table([text(index_name)] + [code(c) for c in frame.columns], rows)
    if len(frame) > max_rows:
        lines.insert(-1, f"({len(frame) - max_rows} more rows)")
    return lines


def render_markdown(report, *, max_terms: int = 30) -> str:
    """The report as Markdown text.

    Example
    -------
    >>> print(render_markdown(primo.report.build(model, X_test, y_test)))  # doctest: +SKIP
    """
    card, ex = report.card, report.explanation
    out = [f"# {text(report.title)}", "",
           f"{code(card.model_class)} · {card.task} · complexity {fmt(card.complexity)} · generated "
           f"{report.generated} by primo {report.version}", "", "## Model card", ""]
    facts = [["Family", text(card.family)], ["Complexity C(θ)", text(card.complexity_formula)],
             ["Features", f"{len(card.feature_names)}: " + ", ".join(code(f) for f in card.feature_names[:40])],
             ["Training data", f"{fmt(card.training_rows)} rows"]]
    if card.classes is not None:
        facts.insert(1, ["Classes", ", ".join(code(c) for c in card.classes)])
    if card.eval_rows is not None:
        facts.append(["Evaluation data", f"{card.eval_rows} rows"])
    if report.cautions is not None:
        facts.append(["Unusual predictions", text("; ".join([f"{report.cautions.flagged} of {report.cautions.rows} rows "
                                                             "flagged"] + report.cautions.sentences()))])
    if card.latency_us:
        facts.append(["Latency", f"{fmt(card.latency_us['single_row'])} µs single row; "
                                 f"{fmt(card.latency_us['batch_per_row'])} µs/row in a batch"])
    out += table(["", ""], facts)
    if card.metrics is not None:
        out += ["### Metrics on the evaluation data", ""] + frame_table(card.metrics, index_name="model")
    out += ["Parameters: " + ", ".join(code(f"{k}={v!r}") for k, v in card.params.items()), ""]
    out += _history(card)
    out += ["## Global interpretation", ""]
    if hasattr(ex, "terms"):
        out += [f"Prediction = link⁻¹(intercept + Σ terms), link {code(ex.link)}, intercept "
                + ", ".join(fmt(v) for v in ex.intercept) + f"; {len(ex.terms)} terms.", ""]
        out += [f"### Term importance ({text(ex.importance_kind)})", ""]
        shares = ex.importance_shares()
        ranked = sorted(ex.terms, key=lambda t: -np.nan_to_num(t.importance, nan=-1))
        out += table(["term", "importance", "share", "shape"], [
            [code(t.name), fmt(t.importance), f"{shares.get(t.name, np.nan):.1%}", _shape_summary(t)]
            for t in ranked[:max_terms]])
        if len(ranked) > max_terms:
            rest = ranked[max_terms:]
            out += [f"({len(rest)} more terms, {sum(shares.get(t.name, 0.0) for t in rest):.1%} of the summed "
                    "importance, not listed)", ""]
    else:
        out += [f"{ex.n_leaves} leaves, depth {ex.depth}, criterion {code(ex.criterion)}.", "",
                f"### Feature importance ({text(ex.importance_kind)})", ""]
        out += table(["feature", "importance"], [[code(k), fmt(v)] for k, v in ex.importances.items()])
        out += ["### Tree", "", "```"] + _tree_lines(ex) + ["```", ""]
    if report.local:
        flagged = sum(bool(item.cautions) for item in report.local)
        out += ["## Local interpretation", "",
                f"{flagged} of {len(report.local)} explained rows carry a caution (marked ⚠): a prediction outside the "
                "training target range, a category never seen in training, or a number outside its feature's "
                "training range.", ""] + _local(report)
    if report.counterfactuals:
        out += ["## Counterfactual explanations", ""]
        for view in report.counterfactuals:
            desired = f" (desired {text(view.desired)})" if view.desired is not None else ""
            out += [f"### {text(view.label)}{desired}", "", "Neighbors:", ""] + frame_table(view.neighbors)
            out += ["Differences (neighbor − x):", ""] + frame_table(view.differences)
            if view.term_deltas is not None:
                out += ["Term deltas:", ""] + frame_table(view.term_deltas)
    return "\n".join(out).rstrip() + "\n"


def _shape_summary(term) -> str:
    """One line about a shape function: its range, and its direction when monotone."""
    scores = np.asarray(term.scores, dtype=float)
    if term.is_pair or scores.ndim != 1:
        return f"{'×'.join(str(len(b) - (t == 'continuous')) for b, t in zip(term.bins, term.feature_types))} bins, " \
               f"range {fmt(np.nanmin(scores))} … {fmt(np.nanmax(scores))}"
    steps = np.diff(scores)
    trend = ("increasing" if np.all(steps >= 0) else "decreasing" if np.all(steps <= 0) else "not monotone")
    missing = f"; {term.missing_text()}" if term.missing_text() is not None else ""
    return f"{len(scores)} bins, {fmt(scores.min())} … {fmt(scores.max())}, {trend}{missing}"


def _history(card) -> list[str]:
    out = []
    if card.selection is not None:
        out += ["## Automatic selection", "",
                f"Selected: {code(search_view.selected_family(card.selection))}; relative loss: validated loss ÷ the "
                "trivial predictor's (1 = knowing nothing).", ""]
        out += frame_table(search_view.selection_table(card.selection), index_name="family")
        out += [text(search_view.latency_legend(card.selection)), ""]
    if card.search is not None:
        s = card.search
        out += ["## Hyper-parameter search", "",
                f"{text(s.method)}, {len(s.trials)} trials, loss {code(s.scoring)}, λ = {fmt(s.lam)}, "
                f"γ = {fmt(s.gamma)}. Rule: {text(search_view.rule_sentence(s))}", "",
                f"Kept: {text(search_view.kept_text(s))}.", ""]
        front = search_view.loss_size_front(card)
        if front is not None:
            on_front = front.points[front.points["pareto"]].sort_values("size")
            out += [f"Loss–size Pareto front ({text(front.y_label)} against {text(front.x_label)}):", ""]
            out += table(["trial", front.x_label.split(" (")[0], "loss ± se", ""], [
                [fmt(row["trial"]), fmt(row["size"]), text(search_view.plus_minus(row["loss"], row["loss_se"])),
                 ", ".join(name for name, at in (("kept", front.chosen), ("lowest", front.lowest)) if at == index)]
                for index, row in on_front.iterrows()])
    if card.distillation is not None:
        d = card.distillation
        out += ["## Distillation", "", f"Method {code(d.method)}, fidelity {text(d.fidelity)}.", ""]
        if d.details:
            out += table(["", ""], [[text(name), text(value)] for name, value in summary.facts(d.details)])
        if not d.iterations.empty:
            out += frame_table(d.iterations, index_name="iteration")
    if card.edits:
        out += ["## Edit log", ""]
        out += [f"{i}. {code(e.get('operation', '?'))}: {text(e.get('summary', ''))}" for i, e in enumerate(card.edits, 1)]
        out.append("")
    for key, value in card.other_metadata.items():
        out += [f"## {text(summary.label(key).capitalize())}", ""]
        if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
            out += frame_table(pd.DataFrame(value))
        elif isinstance(value, dict) and value:
            out += table(["", ""], [[text(name), text(facts)] for name, facts in summary.facts(value)])
        else:
            out += [text(value), ""]
    return out


def _tree_lines(ex, max_nodes: int = 400) -> list[str]:
    """The tree as indented rules (raw text inside a code fence: no escaping needed there)."""
    lines, stack = [], [(ex.root, "")]
    while stack and len(lines) < max_nodes:
        node, answer = stack.pop()
        indent = "|   " * node.depth
        facts = f"samples {node.n_samples}, {ex.criterion} {fmt(node.impurity)}, {node_value_text(node, ex.classes)}"
        head = f"{indent}{answer}"
        lines.append(f"{head}→ {node.prediction}  [{facts}]" if node.is_leaf else f"{head}{node.condition}  [{facts}]")
        if not node.is_leaf:
            left, right = ex.children(node)
            stack += [(right, "no: "), (left, "yes: ")]
    if stack:
        lines.append(f"… ({len(ex.nodes) - len(lines)} more nodes)")
    return [line.replace("```", "'''") for line in lines]


def _local(report) -> list[str]:
    out = []
    for item in report.local:
        out += [f"### {'⚠ ' if item.cautions else ''}{text(item.label)}: prediction {text(item.prediction)}", ""]
        out += [f"- caution: {text(message)}" for message in item.cautions] + ([""] if item.cautions else [])
        if hasattr(item, "contributions"):
            out += [f"intercept {fmt(item.intercept)} + Σ contributions = {fmt(item.raw_score)}"
                    + ("" if item.link == "identity" else f" ({item.link} score)"), ""]
            order = item.contributions.abs().sort_values(ascending=False).index
            out += table(["term", "contribution", "value"], [
                [code(t), f"{item.contributions[t]:+.5g}", text(item.features.get(t, ""))] for t in order])
        else:
            rows = [[str(i), str(s.node), code(s.condition), "yes" if s.went_left else "no"] for i, s in enumerate(item.steps)]
            rows.append([str(len(item.steps)), str(item.leaf.id), f"leaf: samples {item.leaf.n_samples}, "
                         f"{text(node_value_text(item.leaf, report.explanation.classes))}", f"→ {text(item.prediction)}"])
            out += table(["depth", "node", "test", "goes"], rows)
    return out
