"""Self-contained HTML interpretation reports (and their Markdown text) for PrAM and PrDT models.

A report holds a model card (family, parameters, complexity, metrics against baselines with what
each row was scored on, measured latency, how many predictions deserve caution, and the
search/selection/distillation/edit history, metadata summarized), the global interpretation
(importances; PrAM shape functions, heatmaps of the top pair terms and a ranked table of the rest;
the PrDT tree with traffic-proportional branches, in panels that fit the page), local
interpretations of chosen rows (with their cautions: outside the training target range, unseen
categories), and counterfactuals when given. The HTML file is one document with inline CSS and
SVG, no scripts and no external resources, so it opens offline anywhere.

Example
-------
>>> from primo import report
>>> r = report.build(model, X_test, y_test, local_rows=3)  # doctest: +SKIP
>>> r.save("report.html"); print(r)  # HTML file; Markdown text  # doctest: +SKIP
"""
from primo.explain.card import Baseline
from primo.report.report import Report, build

__all__ = ["Baseline", "Report", "build"]
