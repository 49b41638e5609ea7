"""How a model was chosen, as display data: the loss–size front of its search, the choice rule in
words, the kept trial, and the automatic-selection table (shared by the HTML and Markdown reports
and ``primo info``).

Example
-------
>>> card = model_card(model)  # doctest: +SKIP
>>> front = loss_size_front(card)  # doctest: +SKIP
>>> front.points[front.points["pareto"]]  # doctest: +SKIP
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from primo.report.svg import fmt
from primo.search.choice import (MAX_NOISE_MARGIN, ONE_STANDARD_ERROR_RULE, RULE_BEFORE_2026_11,
                                 RULE_BEFORE_2026_11_29, pareto_front)


@dataclass(frozen=True)
class LossSizeFront:
    """The trials of a search placed on the loss–size plane.

    ``points`` is indexed by the trials' row labels, with columns ``trial``, ``size`` (x: readable
    size, or the paper's C for files that did not record it), ``loss`` (y: relative loss when the
    trivial predictor's loss is known, else the validation loss), ``loss_se`` (its standard error on
    the same scale, NaN when unknown) and ``pareto``. ``chosen`` and ``lowest`` are row labels in
    ``points`` (None when that trial is not drawn); ``left_out`` says which trials are not drawn.
    """

    points: pd.DataFrame
    chosen: int | None
    lowest: int | None
    x_label: str
    y_label: str
    left_out: str


def loss_size_front(card) -> LossSizeFront | None:
    """The loss–size front of ``card.search`` (a :class:`~primo.explain.ModelCard`), or None without one."""
    search = card.search
    if search is None or search.trials.empty or "loss" not in search.trials:
        return None
    trials = search.trials
    has_size = _column(trials, "size").notna().any()
    if has_size:
        unit = "leaves" if card.family.startswith("PrDT") else "constant pieces of the shape functions"
        x_label = f"size ({unit})"
    else:
        x_label = "complexity C (this file does not record the readable size)"
    reference = search.reference_loss
    relative = math.isfinite(reference) and reference > 0
    scale = reference if relative else 1.0
    # Short enough for the figure's vertical axis; 1.0 means no better than the trivial predictor.
    y_label = f"{search.scoring} ÷ trivial predictor's" if relative else f"validation {search.scoring}"
    points = pd.DataFrame({
        "trial": _column(trials, "trial") if "trial" in trials else pd.Series(trials.index + 1.0, index=trials.index),
        "size": _column(trials, "size" if has_size else "complexity"),
        "loss": _column(trials, "loss") / scale,
        "loss_se": _column(trials, "loss_se") / scale,
    })
    prior = trials["source"].eq("prior") if "source" in trials else pd.Series(False, index=trials.index)
    failed = trials["error"].notna() if "error" in trials else pd.Series(False, index=trials.index)
    drawable = ~prior & ~failed & np.isfinite(points["loss"]) & (points["size"] > 0)
    counts = {"trials of an earlier search": prior.sum(), "failed trials": (failed & ~prior).sum(),
              "trials without a loss or a positive size (log axis)": (~prior & ~failed & ~drawable).sum()}
    notes = [f"{int(n)} {what}" for what, n in counts.items() if n]
    points = points[drawable].copy()
    if points.empty:
        return None
    if "pareto" in trials:
        points["pareto"] = trials.loc[points.index, "pareto"].eq(True)
    else:  # files saved before the front was recorded
        points["pareto"] = pareto_front(points.assign(error=None))
    return LossSizeFront(
        points=points,
        chosen=search.chosen_index if search.chosen_index in points.index else None,
        lowest=search.lowest_index if search.lowest_index in points.index else None,
        x_label=x_label,
        y_label=y_label,
        left_out=" and ".join(notes) + " not drawn" if notes else "",
    )


def rule_sentence(search) -> str:
    """The rule that chose the kept trial, as a sentence to follow "Rule: " (from ``search.rule``).

    Example
    -------
    >>> rule_sentence(model_card(model).search)  # doctest: +SKIP
    "the smallest model whose validated loss is within one paired standard error of the lowest (...)."
    """
    objective = "validated loss" if search.lam == 0 else "validated S = loss + λ·C^γ"
    rule = search.rule
    if rule == ONE_STANDARD_ERROR_RULE:
        return (f"the smallest model whose {objective} is within one paired standard error of the lowest "
                f"(and at most {MAX_NOISE_MARGIN:.0%} above it), and no worse than the lowest on at least half "
                "of the validation folds (or hold-out chunks).")
    if rule == RULE_BEFORE_2026_11_29:
        return (f"the smallest model whose {objective} is within one paired standard error of the lowest "
                f"(and at most {MAX_NOISE_MARGIN:.0%} above it).")
    if rule == RULE_BEFORE_2026_11:
        return (f"the smallest model whose {objective} is within one paired standard error of the lowest "
                "(at most 2% of the trivial predictor's loss).")
    if rule.startswith("tolerance "):
        try:
            tolerance = float(rule.split()[1])
        except ValueError:
            return f"{rule}."
        if tolerance > 0:
            return (f"the smallest model whose {objective} is within {tolerance:g} × the trivial "
                    "predictor's loss of the lowest.")
        rule = "lowest S"
    if rule == "lowest S":
        return f"the lowest {objective} (the paper's rule)."
    return f"{rule}."


def kept_text(search) -> str:
    """The kept trial on one line (:func:`trial_text`), and where the kept model's parameters differ from it."""
    differing = ", ".join(f"{k}={fmt(v)}" for k, v in search.kept_model_params.items())
    return trial_text(search, search.chosen_index) + (f"; the kept model has {differing}" if differing else "")


def trial_text(search, index) -> str:
    """One trial of ``search`` (row label ``index``; None: the search's best parameters) on one line:
    number, source, parameters, validation loss ± se, relative loss, size.

    Example
    -------
    >>> search = model_card(model).search  # doctest: +SKIP
    >>> trial_text(search, search.chosen_index)  # doctest: +SKIP
    "trial 55 (path) ccp_alpha=0.1808; validation mae 2.598 ± 0.11 (0.372 of the trivial predictor's), size 24"
    """
    if index is None:
        return (", ".join(f"{k}={fmt(v)}" for k, v in search.best_params.items()) or "?") + \
            f" (S={fmt(search.best_score)})"
    row = search.trials.loc[index]
    # Older files keep the parameters only as columns, named as in best_params.
    params = row["params"] if isinstance(row.get("params"), dict) else {k: row.get(k) for k in search.best_params}
    text = f"trial {fmt(row.get('trial'))}"
    if row.get("source"):
        text += f" ({row['source']})"
    text += " " + ", ".join(f"{k}={fmt(v)}" for k, v in params.items())
    text += f"; validation {search.scoring} {plus_minus(row.get('loss'), row.get('loss_se'))}"
    if math.isfinite(_number(row.get("relative_loss"))):
        text += f" ({fmt(_number(row['relative_loss']), 3)} of the trivial predictor's)"
    size = _number(row.get("size"))
    text += f", size {fmt(size)}" if math.isfinite(size) else f", complexity {fmt(_number(row.get('complexity')))}"
    if search.lam:
        text += f", S={fmt(_number(row.get('score')))}"
    return text


def latency_legend(selection: pd.DataFrame) -> str:
    """What the selection table's latency column measures, in one line (see :mod:`primo.selection`).

    Example
    -------
    >>> latency_legend(pd.DataFrame({"latency_us": [5.1], "latency_p90_us": [5.6]}))[:40]
    'latency µs: median over 50 training rows'
    """
    from primo.selection import LATENCY_ROWS

    spread = " (p90: the 90th percentile of the same calls)" if "latency_p90_us" in selection else ""
    return (f"latency µs: median over {LATENCY_ROWS} training rows of one single-row call each (best of 3) of "
            f"the deployed path, Primo's compiled pure-Python predictor, timed when the model was selected"
            f"{spread}; model.predict on a one-row DataFrame costs more, the C and ONNX exports less.")


def selection_table(selection: pd.DataFrame) -> pd.DataFrame:
    """The automatic-selection rows as a compact table, one row per family (indexed by family).

    Columns: model, size, relative loss ± se (1 = the trivial predictor), log loss and ECE (only
    when some row has them: classifiers), single-row latency in µs (median, with its 90th
    percentile when recorded: see :func:`latency_legend`), and the reason for the verdict.
    """
    table = pd.DataFrame(index=pd.Index(selection["family"].astype(str), name="family"))
    table["model"] = selection["model"].astype(str).to_numpy() if "model" in selection else ""
    table["size"] = _column(selection, "size").to_numpy()
    relative = _column(selection, "relative_loss")
    # loss_se is on the loss's scale: divide by the reference loss, i.e. loss / relative_loss.
    relative_se = (_column(selection, "loss_se") * relative / _column(selection, "loss").replace(0, np.nan)).abs()
    table["relative loss ± se"] = [plus_minus(r, se, 3) for r, se in zip(relative, relative_se)]
    for column, name in (("log_loss", "log loss"), ("ece", "ECE")):
        values = _column(selection, column)
        if values.notna().any():
            table[name] = values.to_numpy()
    median = _column(selection, "latency_us")
    if "latency_p90_us" in selection:
        table["latency µs"] = [f"{fmt(m, 3)} (p90 {fmt(p, 3)})" if math.isfinite(p) else fmt(m, 3)
                               for m, p in zip(median, _column(selection, "latency_p90_us"))]
    else:  # files written before the spread was recorded
        table["latency µs"] = median.to_numpy()
    table["reason"] = selection["reason"].fillna("").astype(str).to_numpy() if "reason" in selection else ""
    return table


def selected_family(selection: pd.DataFrame) -> str | None:
    """The family the selection kept (None if no row says so)."""
    if "selected" not in selection:
        return None
    chosen = selection.loc[selection["selected"].eq(True), "family"]
    return str(chosen.iloc[0]) if len(chosen) else None


def _column(frame: pd.DataFrame, name: str) -> pd.Series:
    if name not in frame:
        return pd.Series(np.nan, index=frame.index)
    return pd.to_numeric(frame[name], errors="coerce").astype(float)


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def plus_minus(value, se, digits: int = 4) -> str:
    """``value ± se`` for humans (``value`` alone when the standard error is unknown)."""
    value, se = _number(value), _number(se)
    return fmt(value, digits) + (f" ± {fmt(se, 2)}" if math.isfinite(se) else "")
