"""Reports that stay readable (issue 20): many pair terms become one ranked table, wide trees fit
the page, metadata reads as a summary, and unusual predictions are flagged."""
import re
from pathlib import Path

import numpy as np
import pytest

from primo import PrAMRegressor, PrDTClassifier, PrDTRegressor
from primo.explain import explain_global
from primo.io import load
from primo.report import Baseline, build
from primo.report.tree_diagram import BOX_W, GAP_X, MAX_PANELS, MAX_SLOTS, tree_panels

PENSIEVE_TREE = Path(__file__).parents[3] / "reports" / "pensieve" / "pensieve_tree.primo"


def _figure_svg(html: str, name: str) -> str:
    return re.search(rf'<figure data-figure="{re.escape(name)}"[^>]*>(<svg[^>]*>)', html).group(1)


@pytest.fixture(scope="module")
def many_pairs_pram(clara):
    """A Clara-MS PrAM with twelve pair terms (cheap: one bag, few rounds)."""
    X, y, _, _ = clara
    return PrAMRegressor(max_bins=32, interactions=12, max_rounds=200, outer_bags=1, n_jobs=1,
                         random_state=0).fit(X, y)


def test_pairs_beyond_the_top_few_are_ranked_in_one_table(many_pairs_pram, clara):
    _, _, X_test, y_test = clara
    html = build(many_pairs_pram, X_test, y_test, local_rows=0, measure_latency=False).to_html()
    explanation = explain_global(many_pairs_pram)
    pairs = sorted((t for t in explanation.terms if t.is_pair), key=lambda t: -t.importance)
    assert len(pairs) == 12
    drawn = re.findall(r'<figure data-figure="pair-\d+-\d+">.*?<figcaption>(.*?):', html, flags=re.DOTALL)
    assert [name.replace("&amp;", "&") for name in drawn] == [t.name for t in pairs[:4]]  # the top four, in order
    table = html[html.index("Other pair terms, by importance"):]
    table = table[:table.index("</table>")].replace("&amp;", "&")
    rows = re.findall(r"<tr><th>(\d+)</th><td>(.*?)</td><td[^>]*>(.*?)</td><td>(.*?)</td>", table)
    assert [(int(rank), name) for rank, name, _, _ in rows] == [(5 + i, t.name) for i, t in enumerate(pairs[4:])]
    shares = explanation.importance_shares()
    assert shares.sum() == pytest.approx(1.0)
    for (_, name, importance, share), term in zip(rows, pairs[4:]):
        assert float(importance) == pytest.approx(term.importance, rel=1e-3)
        assert float(share.rstrip("%")) == pytest.approx(100 * shares[name], abs=0.006)
    assert f"{len(explanation.terms)} terms (12 pairs)" in html


def test_pair_heatmaps_is_the_callers_choice(many_pairs_pram):
    everything = build(many_pairs_pram, pair_heatmaps=12, measure_latency=False).to_html()
    assert everything.count('data-figure="pair-') == 12 and "Other pair terms" not in everything
    none = build(many_pairs_pram, pair_heatmaps=0, measure_latency=False).to_html()
    assert none.count('data-figure="pair-') == 0 and none.count("<tr><th>") >= 12
    with pytest.raises(ValueError, match="pair_heatmaps must be a whole number"):
        build(many_pairs_pram, pair_heatmaps=-1)


def test_markdown_gives_each_terms_share(many_pairs_pram):
    markdown = build(many_pairs_pram, measure_latency=False).to_markdown()
    shares = explain_global(many_pairs_pram).importance_shares()
    top = shares.index[0]
    assert "| term | importance | share | shape |" in markdown
    assert re.search(rf"\| `{re.escape(top)}` \| [^|]+ \| {100 * shares[top]:.1f}% \|", markdown)


def _panel_checks(tree, panels, max_depth):
    """Every split is opened by exactly one panel (or left to the outline when panels ran out), each
    cut-off subtree starts a panel of its own, and no panel is wider than MAX_SLOTS boxes."""
    assert panels[0].root.id == tree.root.id and panels[0].path == ()
    opened = [node for panel in panels for node in panel.expanded]
    assert len(opened) == len(set(opened))
    roots = {panel.root.id: panel.number for panel in panels}
    for panel in panels:
        assert float(re.search(r'width="([\d.]+)"', panel.svg).group(1)) <= MAX_SLOTS * (BOX_W + GAP_X) + GAP_X
        assert all(tree.nodes[n].depth - panel.root.depth < max_depth for n in panel.expanded)
        for node_id, number in panel.continued.items():
            assert number is None or roots[node_id] == number
        assert len(panel.path) == panel.root.depth
    splits = {n.id for n in tree.nodes if not n.is_leaf}
    if len(panels) < MAX_PANELS:
        assert set(opened) == splits
    else:
        assert set(opened) < splits


@pytest.mark.parametrize("alpha", [0.0, 0.0005])
def test_a_wide_tree_is_split_into_panels_that_fit_the_page(linnos, alpha):
    X, y = linnos
    model = PrDTClassifier(ccp_alpha=alpha, random_state=0).fit(X, y)
    tree = explain_global(model)
    assert tree.n_leaves > 30
    panels = tree_panels(tree, max_depth=5)
    _panel_checks(tree, panels, 5)
    html = build(model, measure_latency=False, tree_depth=5).to_html()
    assert html.count('data-figure="subtree-') == len(panels) - 1
    second = panels[1]
    assert f"Subtree 2: node {second.root.id}, {tree.leaves_below(second.root)} leaves" in html
    assert "→ see subtree 2" in html


def test_a_tree_beyond_the_panel_limit_leaves_the_rest_to_the_outline(clara):
    X, y, _, _ = clara
    model = PrDTRegressor(min_samples_leaf=1, random_state=0).fit(X, y)
    tree = explain_global(model)
    panels = tree_panels(tree, max_depth=4)
    assert len(panels) == MAX_PANELS
    _panel_checks(tree, panels, 4)
    html = build(model, measure_latency=False).to_html()
    assert "→ see the outline" in html and f"subtrees beyond the {MAX_PANELS} panels are shown only in the outline" in html


def test_the_committed_pensieve_tree_fits_the_page_with_its_root_visible(browser, screenshots, tmp_path):
    model = load(PENSIEVE_TREE)
    report = build(model, local_rows=0, measure_latency=False, tree_depth=5)
    tree = report.explanation
    _panel_checks(tree, tree_panels(tree, max_depth=5), 5)
    page = browser.check(report.save(tmp_path / "pensieve.html"), screenshot=screenshots / "pensieve_tree.png")
    assert page.console_errors == [] and page.empty_figures == []
    column = 1100  # the report's max-width (report.css; content-box: its padding is outside)
    for figure in page.figures:
        if figure["name"] == "tree" or figure["name"].startswith("subtree-"):
            assert figure["width"] <= column + 0.5  # no scroll bar: the root and every box are on the page
            natural = float(re.search(r'width="([\d.]+)"', _figure_svg(report.to_html(), figure["name"])).group(1))
            assert figure["width"] >= 0.8 * min(natural, column)  # shrunk at most to 0.8: text stays readable


def test_distillation_options_read_as_a_summary_not_a_raw_dict(prdt_classifier, linnos):
    X, y = linnos
    model = clone_with_metadata(prdt_classifier, {
        "distillation": {"method": "viper", "fidelity": 0.958, "reward": 44.45,
                         "teacher": {"class": "StudentViewTeacher", "interface": ["action_probabilities", "predict"]},
                         "options": {"n_iterations": 10, "eval_seeds": list(range(142)), "weighting": "margin",
                                     "lam": 1e-05},
                         "iterations": [{"iteration": 1, "fidelity": 0.94}, {"iteration": 2, "fidelity": 0.95}]},
        "notes": {"trace_set": "HSDPA", "rates_kbps": [300, 750, 1200, 1850, 2850, 4300, 5000, 6000, 8000]},
    })
    report = build(model, X.iloc[:200], y.iloc[:200], local_rows=0, measure_latency=False)
    html, markdown = report.to_html(), report.to_markdown()
    for text in (html, markdown):
        assert "142 values: 0 to 141 (consecutive integers)" in text
        assert "options › eval seeds" in text and "teacher › interface" in text and "action_probabilities, predict" in text
        assert "9 values from 300 to 8000, median 2850" in text
        assert "{" not in _between(text, "Distillation", "Iterations" if text is html else "| iteration")
        assert ", 5, 6, 7," not in text and "[0, 1" not in text  # no seed list spelled out


def test_every_metrics_row_says_what_it_was_scored_on(prdt_classifier, linnos):
    X, y = linnos
    rows, labels = X.iloc[:300], y.iloc[:300]
    fitted_here = PrDTClassifier(random_state=0).fit(rows, labels)
    report = build(prdt_classifier, rows, labels, local_rows=0, measure_latency=False, scored_on="300 LinnOS reads",
                   baselines={"all-fast": np.zeros(300, dtype=int),
                              "tree fit on these rows": Baseline(fitted_here, scored_on="its own training rows")})
    column = report.card.metrics["scored on"]
    assert column.tolist() == ["300 LinnOS reads", "the same rows", "its own training rows"]
    assert report.card.metrics.loc["tree fit on these rows", "accuracy"] == 1.0
    html = report.to_html()
    assert "<th>scored on</th>" in html and "<td>its own training rows</td>" in html
    assert "| its own training rows |" in report.to_markdown()
    default = build(prdt_classifier, rows, labels, local_rows=0, measure_latency=False)
    assert default.card.metrics["scored on"].tolist() == ["the 300 evaluation rows"]


def clone_with_metadata(model, metadata):
    from copy import deepcopy

    copy = deepcopy(model)
    copy.metadata_ = metadata
    return copy


def _between(text: str, start: str, end: str) -> str:
    begin = text.index(start)
    return text[begin:text.index(end, begin)]


def test_a_readable_pram_report_in_chromium(browser, screenshots, many_pairs_pram, clara, tmp_path):
    """Twelve pairs, a flagged prediction and a long options list, as a person sees them (screenshot kept)."""
    X, y, X_test, y_test = clara
    model = clone_with_metadata(many_pairs_pram, {"distillation": {
        "method": "supervised", "fidelity": 0.97, "options": {"eval_seeds": list(range(142)), "weighting": "margin"}}})
    rows = X_test.iloc[:40].copy()
    rows.iloc[0, 0] = X.iloc[:, 0].max() * 10 + 1  # far beyond the training range: flagged
    report = build(model, rows, y_test.iloc[:40], local_rows=[0, 5], title="Clara-MS PrAM, 12 pairs",
                   baselines={"training mean": Baseline(np.full(40, float(y.mean())), scored_on="the same 40 rows")})
    page = browser.check(report.save(tmp_path / "pairs.html"), screenshot=screenshots / "pram_twelve_pairs.png")
    assert page.console_errors == [] and page.requests == [] and page.empty_figures == []
    assert sum(f["name"].startswith("pair-") for f in page.figures) == 4
    html = report.to_html()
    assert "Other pair terms, by importance" in html and "142 values: 0 to 141" in html
    assert f"⚠ {report.local[0].label}" in html and report.cautions.beyond_training_range[X.columns[0]] >= 1


def test_structural_counterfactuals_read_as_changes_not_neighbors():
    from sklearn.datasets import load_wine

    from primo import PrDTClassifier
    from primo.adjust import counterfactuals
    from primo.report import build
    from primo.report.html import render_html

    X, y = load_wine(return_X_y=True, as_frame=True)
    tree = PrDTClassifier(ccp_alpha=0.01, random_state=0).fit(X, y)
    smallest = counterfactuals(tree, X.iloc[0], 1, X, k=2, immutable=["magnesium"])
    nearest = counterfactuals(tree, X.iloc[0], 1, X, k=2, method="nearest")
    page = render_html(build(tree, X, y, local_rows=0,
                             counterfactuals={"row 0 smallest": smallest, "row 0 nearest": nearest}))
    assert "row 0 smallest: desired 1 (smallest change)" in page
    assert "<code>flavanoids</code> 3.06 → 2.16" in page
    assert "row 0 nearest: desired 1 (nearest rows)" in page and "<h4>Neighbors</h4>" in page
    assert "<h4>Options</h4>" in page
