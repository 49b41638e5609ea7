"""The report object: explanations of one model gathered for rendering as HTML or Markdown."""
from __future__ import annotations

import contextlib
import datetime as _dt
import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from primo.errors import InputError, InputTypeError
from primo.explain import (
    CautionCounts,
    CounterfactualView,
    ModelCard,
    as_counterfactual,
    explain_additive_rows,
    explain_global,
    explain_local,
    explain_tree_rows,
    row_cautions,
    target_range,
)
from primo.io import atomic_write_bytes
from primo.explain.card import _model_card
from primo.models._base import check_prediction_input, names_warned_once, names_warning_due
from primo.models.encoding import frame_from_arrow

logger = logging.getLogger(__name__)


@dataclass
class Report:
    """An interpretation report of one model; render it with :meth:`to_html`/:meth:`to_markdown`.

    Build it with :func:`primo.report.build`. In Jupyter it displays itself (``_repr_html_``);
    ``str(report)`` is its Markdown text.
    """

    title: str
    card: ModelCard
    explanation: object
    local: list
    counterfactuals: list[CounterfactualView]
    tree_depth: int = 4
    outline_depth: int = 3
    pair_heatmaps: int = 4
    cautions: CautionCounts | None = None
    generated: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))

    @property
    def version(self) -> str:
        from primo._version import __version__

        return __version__

    def to_html(self) -> str:
        """The whole report as one self-contained HTML document (inline CSS and SVG, no scripts)."""
        from primo.report.html import render_html

        return render_html(self, full_document=True)

    def to_markdown(self) -> str:
        """The same content as Markdown text (tables, no figures), for terminals and notebooks."""
        from primo.report.markdown import render_markdown

        return render_markdown(self)

    def save(self, path) -> Path:
        """Write the report to ``path``: HTML for ``.html``/``.htm``, Markdown for ``.md``.

        Example
        -------
        >>> build(model, X_test, y_test).save("report.html")  # doctest: +SKIP
        """
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix in (".html", ".htm"):
            text = self.to_html()
        elif suffix in (".md", ".markdown", ".txt"):
            text = self.to_markdown()
        else:
            raise ValueError(f"{path}: unknown report format {path.suffix!r} (use .html, .md or .txt)")
        written = atomic_write_bytes(path, text.encode("utf-8"))
        logger.info("wrote %s (%.0f kB)", written, len(text.encode("utf-8")) / 1e3)
        return written

    def _repr_html_(self) -> str:
        from primo.report.html import render_html

        return render_html(self, full_document=False)

    def __str__(self) -> str:
        return self.to_markdown()


def _check_report_target(model, X, y) -> None:
    """``y`` holds one known target per row of ``X``, shaped like the model's predictions."""
    target = np.asarray(y)
    outputs = int(getattr(model, "n_outputs_", 1))
    if target.ndim == 2 and target.shape[1] == 1 and outputs == 1:
        target = target[:, 0]
    expected = "(n_samples,)" if outputs == 1 else f"(n_samples, {outputs})"
    if target.ndim != (1 if outputs == 1 else 2) or (outputs > 1 and target.shape[1] != outputs):
        raise InputError(f"y has shape {target.shape}, but {type(model).__name__} predicts {expected}: give one "
                         "target per row of X", argument="y")
    if X is not None and len(target) != X.shape[0]:
        raise InputError(f"X has {X.shape[0]} rows but y has {len(target)}", argument="y")
    missing = np.asarray(pd.isna(target)).reshape(len(target), -1).any(axis=1)
    if missing.any():
        raise InputError(f"y has missing values (None or NaN) at rows {np.flatnonzero(missing)[:5].tolist()}; "
                         "metrics need a known target for every row", argument="y")


def build(model, X=None, y=None, *, baselines=None, scored_on: str | None = None, title: str | None = None,
          local_rows=3, counterfactuals=None,
          tree_depth: int = 4, outline_depth: int = 3, pair_heatmaps: int = 4,
          measure_latency: bool = True) -> Report:
    """Explain a fitted PrAM or PrDT and gather everything into a :class:`Report`.

    Parameters
    ----------
    model : fitted :class:`~primo.PrAMClassifier`, :class:`~primo.PrAMRegressor`,
        :class:`~primo.PrDTClassifier` or :class:`~primo.PrDTRegressor`.
    X, y : optional evaluation data (metrics need both; latency and local explanations need X).
    baselines : ``{name: fitted estimator, predictions on X, or Baseline}`` compared on the same
        metrics; wrap one in :class:`~primo.report.Baseline` to say what its row was scored on when
        that is not simply "the same rows" (e.g. "its own training states").
    scored_on : what X is, for the metrics table (e.g. "198 held-out NFs"; default "the N evaluation rows").
    title : report title (default: "<ModelClass> interpretation report").
    local_rows : rows of X to explain one by one: an int n (n rows spread over the range of
        predictions), a sequence of row positions, a DataFrame of other rows to explain (its index
        labels name them; an Arrow table such as polars or pyarrow: its row numbers), or None/0 for none.
    counterfactuals : counterfactual results to render (from :func:`primo.adjust.counterfactuals`
        or any object with ``neighbors``/``differences``/``term_deltas``), as a list or as a
        ``{label: result}`` dict.
    tree_depth : PrDT diagram depth; deeper subtrees are collapsed (the outline shows them all).
    outline_depth : PrDT outline levels open when the page loads.
    pair_heatmaps : PrAM pair terms drawn as heatmaps (the most important ones); the other pairs are
        ranked in one table with their share of the prediction.
    measure_latency : time single-row and batch predictions on X.

    Example
    -------
    >>> from primo import report
    >>> report.build(model, X_test, y_test, baselines={"XGBoost": xgb}).save("report.html")  # doctest: +SKIP
    """
    if not (hasattr(model, "ebm_") or hasattr(model, "tree_")):
        raise InputTypeError(f"expected a fitted PrDT or PrAM model, got {type(model).__name__}", argument="model")
    check_is_fitted(model)
    # scikit-learn's warning about the names of the caller's rows, when due, once per call: from the check of X
    # (or else of local_rows) only, not from each of the card's, explanations' and cautions' predictions on them.
    # Whether it was due is read from X as given: the checked X passed on has text column labels, which for a
    # model fit on an array would warn where a frame labelled 0, 1, ... does not.
    names_warned = False
    if X is not None:
        X = frame_from_arrow(X)
        names_warned = names_warning_due(model, X)
        X = check_prediction_input(model, X)
    if y is not None:
        _check_report_target(model, X, y)
    card = _model_card(model, X, y, baselines=baselines, measure_latency=measure_latency, model_name=None,
                       scored_on=scored_on, rows_checked=True)
    local_rows = frame_from_arrow(local_rows)  # other rows given as an Arrow table, not positions in X
    if isinstance(local_rows, pd.DataFrame):
        with names_warned_once() if names_warned else contextlib.nullcontext():
            rows = check_prediction_input(model, local_rows)
        labels = [str(label) for label in rows.index]
        with names_warned_once():
            local = (explain_additive_rows(model, rows, labels) if hasattr(model, "ebm_")
                     else explain_tree_rows(model, rows, labels))
    elif X is not None and local_rows is not None and not (isinstance(local_rows, int) and local_rows == 0):
        with names_warned_once():
            local = explain_local(model, X, local_rows)
    else:
        local = []
    if counterfactuals is None:
        views = []
    elif isinstance(counterfactuals, dict):
        views = [as_counterfactual(result, label) for label, result in counterfactuals.items()]
    else:
        views = [as_counterfactual(result, f"counterfactual {i}") for i, result in enumerate(counterfactuals, 1)]
    cautions = None
    if X is not None:
        with names_warned_once():
            cautions = CautionCounts.of(row_cautions(model, X), checks_target_range=target_range(model) is not None)
    return Report(
        title=title or f"{type(model).__name__} interpretation report",
        card=card,
        explanation=explain_global(model),
        local=local,
        counterfactuals=views,
        tree_depth=int(tree_depth),
        outline_depth=int(outline_depth),
        pair_heatmaps=_count(pair_heatmaps, "pair_heatmaps"),
        cautions=cautions,
    )


def _count(value, name: str) -> int:
    """A non-negative whole number of things to show (a clear error otherwise)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InputError(f"{name} must be a whole number >= 0, got {value!r}", argument=name)
    return int(value)
