"""HTML rendering of a :class:`~primo.report.Report` (jinja2 templates + inline SVG figures)."""
from __future__ import annotations

import logging
from functools import lru_cache
from importlib import resources

import numpy as np
import pandas as pd
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from primo.report import figures, search_view, summary
from primo.report.svg import fmt
from primo.report.tree_diagram import node_value_text, tree_panels

logger = logging.getLogger(__name__)


def _record_keys(records: list[dict]) -> list[str]:
    keys: dict[str, None] = {}
    for record in records:
        keys.update(dict.fromkeys(map(str, record)))
    return list(keys)


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The jinja2 environment of the report templates (autoescaping on for every template)."""
    env = Environment(loader=PackageLoader("primo.report", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=False, lstrip_blocks=False)
    env.filters.update(
        fmt=fmt,
        summary=summary.summarize,
        facts=summary.facts,
        label=summary.label,
        record_keys=_record_keys,
        is_records=lambda v: isinstance(v, list) and bool(v) and all(isinstance(r, dict) for r in v),
        node_value=node_value_text,
        zip=lambda a, b: list(zip(a, b)),
    )
    return env


@lru_cache(maxsize=1)
def stylesheet() -> Markup:
    return Markup(resources.files("primo.report").joinpath("static/report.css").read_text(encoding="utf-8"))


def monotone_overlays(card, explanation) -> tuple[dict[str, list], list[str]]:
    """Before/after score lines of ``monotonize`` edits, by term name, and notes on skipped edits.

    An edit's ``before``/``after`` lists may hold every bin of the term (missing and unknown bins
    included) or only the drawn ones; other lengths cannot be placed on the plot and are noted.
    """
    overlays: dict[str, list] = {}
    notes = []
    names = {t.name: t for t in getattr(explanation, "terms", [])}
    for number, edit in enumerate(card.edits, 1):
        if edit.get("operation") != "monotonize":
            continue
        term = names.get(str(edit.get("term")))
        if term is None or term.is_pair:
            notes.append(f"edit {number}: monotonize of {edit.get('term')!r} has no 1-D shape function to draw on")
            continue
        n_bins = len(term.scores)
        lines = []
        for key in ("before", "after"):
            values = np.asarray(edit.get(key, []), dtype=float)
            if values.ndim == 2 and values.shape[1] == 1:
                values = values[:, 0]
            if len(values) == n_bins + 2:
                values = values[1:-1]
            if values.ndim != 1 or len(values) != n_bins:
                notes.append(f"edit {number}: {key!r} of {term.name!r} has {len(values)} values for {n_bins} bins; not drawn")
                lines = []
                break
            lines.append((f"{key} edit {number}", values))
        overlays.setdefault(term.name, []).extend(lines)
    return overlays, notes


def pair_summary(explanation, pairs, *, first_rank: int = 1) -> pd.DataFrame | None:
    """One row per pair term in ``pairs`` (ranked by importance, numbered from ``first_rank``): its
    mean |contribution|, its share of all the terms' summed mean |contribution|, its bins and the
    range of its contributions. None when ``pairs`` is empty.

    A report draws the top few pairs as heatmaps and ranks the rest here: twenty heatmaps of
    interactions that each move predictions by a fraction of a percent bury the ones that matter.
    """
    if not pairs:
        return None
    shares = explanation.importance_shares()
    rows = {}
    for rank, term in enumerate(pairs, first_rank):
        scores = np.asarray(term.scores, dtype=float)
        n_bins = "×".join(str(len(b) - (t == "continuous")) for b, t in zip(term.bins, term.feature_types))
        rows[rank] = {"pair term": term.name, "mean |contribution|": term.importance,
                      "share of Σ mean |contribution|": f"{shares.get(term.name, np.nan):.2%}",
                      "bins": n_bins, "contributions from": fmt(float(np.nanmin(scores))),
                      "to": fmt(float(np.nanmax(scores)))}
    return pd.DataFrame.from_dict(rows, orient="index")


def search_context(card) -> dict:
    """Template values about how the model was chosen: the front, its caption, the kept trial, the
    trials table without its list columns, and the automatic-selection table."""
    front = search_view.loss_size_front(card)
    search = card.search
    lowest_name = "lowest loss" if search is None or search.lam == 0 else "lowest S"
    caption = ""
    if front is not None:
        caption = (f"Rule: {search_view.rule_sentence(search)} Dots: trials (bars ±1 standard error); "
                   f"line: the loss–size Pareto front; ring: the kept model; square: the {lowest_name}."
                   + (f" ({front.left_out}.)" if front.left_out else ""))
    trials = None
    if search is not None:
        trials = search.trials.drop(columns=[c for c in ("params", "fold_losses") if c in search.trials])
    selection = None if card.selection is None else search_view.selection_table(card.selection)
    return dict(front=front, front_caption=caption, lowest_name=lowest_name, trials_table=trials,
                kept=None if search is None else search_view.kept_text(search),
                rule=None if search is None else "Rule: " + search_view.rule_sentence(search),
                selection=selection,
                latency_legend=None if card.selection is None else search_view.latency_legend(card.selection),
                selected_family=None if card.selection is None else search_view.selected_family(card.selection))


def render_html(report, *, full_document: bool = True) -> str:
    """The report as HTML: a whole self-contained document, or a fragment for notebooks."""
    card, explanation = report.card, report.explanation
    kind = "additive" if hasattr(explanation, "terms") else "tree"
    context = dict(report=report, card=card, ex=explanation, kind=kind, version=report.version,
                   tree_depth=report.tree_depth, outline_depth=report.outline_depth,
                   css=stylesheet(), inline_css=not full_document, overlay_notes=[], pair_table=None, tree_panels=[], tree_outline_only=0)
    figs = {"importance": figures.importance_chart(
        explanation.importances, label="importance of " + ("terms" if kind == "additive" else "features"))}
    context.update(search_context(card))
    figs["front"], figs["search"] = None, None
    if context["front"] is not None:
        figs["front"] = figures.front_chart(context["front"], label="loss–size front",
                                            lowest_name=context["lowest_name"])
    if card.search is not None and "score" in card.search.trials:
        trials = card.search.trials
        if "source" not in trials or trials["source"].eq("search").any():  # searches proposing trials in turn
            own = trials[trials["source"] != "prior"] if "source" in trials else trials
            figs["search"] = figures.trial_chart(own, card.search.chosen_index, label="search history")
    figs["distill"] = []
    if card.distillation is not None:
        frame = card.distillation.iterations
        x_column = "iteration" if "iteration" in frame else None
        for column in frame.columns:
            if column != x_column and pd.api.types.is_numeric_dtype(frame[column]) and frame[column].notna().any():
                figs["distill"].append((str(column), figures.series_chart(frame, column, label=f"distillation {column}",
                                                                          x_column=x_column)))
    shapes, pairs = [], []
    if kind == "additive":
        overlays, notes = monotone_overlays(card, explanation)
        for note in notes:
            logger.warning(note)
        ordered = sorted(explanation.terms, key=lambda t: -np.nan_to_num(t.importance, nan=-1.0))
        ranked_pairs = [t for t in ordered if t.is_pair]
        drawn_pairs = {t.name for t in ranked_pairs[: report.pair_heatmaps]}
        context["pair_table"] = pair_summary(explanation, ranked_pairs[report.pair_heatmaps:],
                                             first_rank=report.pair_heatmaps + 1)
        for term in ordered:
            if term.is_pair and term.name not in drawn_pairs:
                continue
            if term.is_pair:
                if np.ndim(term.scores) == 3:
                    svgs = [(f" (class {c})", figures.heatmap(term, label=term.name, class_index=k))
                            for k, c in enumerate(explanation.classes)]
                else:
                    svgs = [("", figures.heatmap(term, label=term.name))]
                pairs.append({"term": term, "svgs": svgs, "index": len(pairs) + 1})
                continue
            extra = overlays.get(term.name, [])
            caption = f"{term.name} (importance {fmt(term.importance)})"
            if term.missing_text() is not None:  # the missing bin is not on the curve: say what it adds
                caption += f"; {term.missing_text()}"
            if extra:
                caption += "; dashed grey: before the monotone edit, orange: after (the solid line is the current model)."
            shapes.append({"term": term, "caption": caption,
                           "svg": figures.shape_plot(term, label=term.name, overlays=extra,
                                                     class_names=explanation.classes)})
        context["overlay_notes"] = notes
    else:
        context["tree_panels"] = tree_panels(explanation, max_depth=report.tree_depth)
        context["tree_outline_only"] = sum(number is None for panel in context["tree_panels"]
                                           for number in panel.continued.values())
    local = []
    for item in report.local:
        svg = None
        if kind == "additive":
            total = "prediction" if item.link == "identity" else f"{item.link} score"
            svg = figures.waterfall(item.intercept, item.contributions, label=f"contributions {item.label}",
                                    total_label=total)
        local.append({"item": item, "svg": svg})
    cfs = []
    for view in report.counterfactuals:
        svg = None
        if view.term_deltas is not None and not view.term_deltas.empty:
            first = pd.to_numeric(view.term_deltas.iloc[0], errors="coerce").fillna(0.0)
            top = first.reindex(first.abs().sort_values(ascending=False).index[:15])
            svg = figures.contribution_chart([str(k) for k in top.index], top.to_numpy(),
                                             label=f"term deltas {view.label}", value_label="contribution change")
        cfs.append({"view": view, "svg": svg})
    context.update(figs=figs, shapes=shapes, pairs=pairs, local=local, cfs=cfs)
    env = environment()
    body = env.get_template("body.html.j2").render(**context)
    if not full_document:
        return body
    return env.get_template("report.html.j2").render(report=report, version=report.version, css=stylesheet(),
                                                     body=Markup(body))
