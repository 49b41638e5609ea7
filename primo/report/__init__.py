"""Self-contained HTML interpretation reports (and their Markdown text) for PrAM and PrDT models.

A report holds a model card (family, parameters, complexity, metrics against baselines, measured
latency, search/distillation/edit history), the global interpretation (importances; PrAM shape
functions and pair heatmaps; the PrDT tree with traffic-proportional branches), local
interpretations of chosen rows, and counterfactuals when given. The HTML file is one document
with inline CSS and SVG, no scripts and no external resources, so it opens offline anywhere.

Example
-------
>>> from primo import report
>>> r = report.build(model, X_test, y_test, local_rows=3)  # doctest: +SKIP
>>> r.save("report.html"); print(r)  # HTML file; Markdown text  # doctest: +SKIP
"""
from primo.explain.card import Baseline
from primo.report.report import Report, build

__all__ = ["Baseline", "Report", "build"]
