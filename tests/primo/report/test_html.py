"""The HTML report: self-contained, and showing what the model is (checked on the markup)."""
import re

import numpy as np
import pandas as pd
import pytest

from primo.explain import explain_global
from primo.report import build
from primo.report.tree_diagram import MAX_EDGE_PX, tree_panels
from tests.primo.report.conftest import MONOTONE_TERM


def _external_references(html: str) -> list[str]:
    refs = re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', html)
    return [r for r in refs if not (r.startswith("data:") or r.startswith("#"))]


def test_pram_report_is_self_contained_and_small(pram_report):
    html = pram_report.to_html()
    assert _external_references(html) == []
    assert "<script" not in html.lower() and "<link" not in html.lower() and "url(" not in html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert len(html.encode()) < 2_000_000


def test_pram_report_shows_card_history_and_every_term(pram_report, edited_pram):
    html = pram_report.to_html()
    for text in ("Clara-MS PrAM", "Model card", "(1 + 2 pair terms) × 32 bins = 96", "training mean",
                 "Measured prediction latency", "bayesian search, 4 trials", "Distillation", "R_ec made increasing",
                 "Counterfactual explanations", "row 0 → 50 cores"):
        assert text in html, text
    mains = [t for t in edited_pram.term_names_ if " & " not in t]
    assert html.count('data-figure="shape-') == len(mains)
    assert len(re.findall(r'data-figure="pair-', html)) == edited_pram.n_interactions_
    assert html.count('data-figure="distill-') == 2  # fidelity and loss per iteration
    assert html.count('data-figure="local-') == 2
    # the search chart and the loss-size front each ring the kept trial (score 2.5, the 3rd)
    search_chart = re.search(r'<figure data-figure="search">(.*?)</figure>', html, flags=re.S).group(1)
    assert search_chart.count('class="chosen"') == 1 and "chosen: trial 3, 2.5" in search_chart
    front = re.search(r'<figure data-figure="front">(.*?)</figure>', html, flags=re.S).group(1)
    # (a file without sizes: C on the x axis; ring on the point, and its key in the legend)
    assert front.count('class="chosen"') == 2 and "kept = lowest S: trial 3, size 32" in front


def test_monotone_edit_is_overlaid_on_its_shape_function(pram_report):
    html = pram_report.to_html()
    figures = re.findall(r'<figure data-figure="shape-\d+">(.*?)</figure>', html, flags=re.S)
    edited = [f for f in figures if f"{MONOTONE_TERM} (importance" in f]
    others = [f for f in figures if f"{MONOTONE_TERM} (importance" not in f]
    assert len(edited) == 1
    assert "overlay-0" in edited[0] and "overlay-1" in edited[0]  # before and after lines
    assert not any("overlay-" in f for f in others)


def test_local_contributions_add_up_in_the_report(pram_report):
    for item in pram_report.local:
        assert item.intercept + item.contributions.sum() == pytest.approx(item.prediction)
    first = pram_report.local[0]
    assert f"= {first.prediction:.4g}" in pram_report.to_html()


def test_overlay_of_wrong_length_is_noted_not_drawn(edited_pram, clara):
    _, _, X_test, _ = clara
    edits = edited_pram.metadata_["edits"]
    edited_pram.metadata_["edits"] = edits + [{"operation": "monotonize", "term": "R_i", "summary": "bad",
                                               "before": [0.0, 1.0], "after": [1.0, 2.0]}]
    try:
        html = build(edited_pram, local_rows=0, measure_latency=False).to_html()
    finally:
        edited_pram.metadata_["edits"] = edits
    assert "&#39;before&#39; of &#39;R_i&#39; has 2 values for" in html


def test_prdt_report_draws_traffic_and_collapses_deep_subtrees(prdt_report, prdt_classifier):
    html = prdt_report.to_html()
    tree = explain_global(prdt_classifier)
    assert prdt_classifier.depth_ > 3  # the diagram must collapse something
    panels = tree_panels(tree, max_depth=3)
    assert len(panels) > 1 and html.count('class="node collapsed"') == len(panels) - 1  # one box per continued subtree
    widths = [float(w) for w in re.findall(r'class="edge" stroke-width="([\d.]+)"', html)]
    root_left, root_right = tree.children(tree.root)
    expected = [max(n.n_samples / tree.root.n_samples * MAX_EDGE_PX, 1) for n in (root_left, root_right)]
    assert widths[:2] == pytest.approx(expected, abs=0.06)
    # the outline has one <details> per split, and every leaf
    assert html.count("<details open>") + html.count("<details>") - html.count("<details><summary>Feature values") \
        - html.count("<details><summary>Parameters") == sum(not n.is_leaf for n in tree.nodes)
    assert html.count('class="leaf"') == tree.n_leaves
    for path in prdt_report.local:
        assert path.steps[0].condition in html.replace("&lt;", "<").replace("&gt;", ">")


def test_fragment_for_notebooks_and_markdown_text(prdt_report, tmp_path):
    fragment = prdt_report._repr_html_()
    assert not fragment.lstrip().startswith("<!DOCTYPE") and "<style>" in fragment
    assert fragment.lstrip().startswith('<div class="primo-report">')
    markdown = str(prdt_report)
    assert markdown.startswith("# PrDTClassifier interpretation report")
    assert "| feature | importance |" in markdown and "## Local interpretation" in markdown
    path = prdt_report.save(tmp_path / "report.md")
    assert path.read_text() == markdown
    html_path = prdt_report.save(tmp_path / "report.html")
    assert html_path.read_text().startswith("<!DOCTYPE html>")
    with pytest.raises(ValueError, match="unknown report format"):
        prdt_report.save(tmp_path / "report.pdf")


def test_build_rejects_what_it_cannot_explain(prdt_classifier, linnos):
    X, _ = linnos
    with pytest.raises(TypeError, match="PrDT or PrAM"):
        build(np.zeros(3))
    with pytest.raises(ValueError, match="feature names do not match"):
        build(prdt_classifier, X.rename(columns={"size_kb": "other"}))


def test_local_rows_given_as_an_arrow_table():
    """Rows to explain given as a pyarrow Table (columns in another order than the model's) are explained
    as its pandas frame is; before, it was taken for row positions: a TypeError beside X, and without X
    the report silently explained no row."""
    pa = pytest.importorskip("pyarrow")
    from primo import PrDTRegressor
    from tests.primo.tables_any import housing

    X, price = housing(n=200)
    model = PrDTRegressor(max_depth=4, random_state=0).fit(X, price)
    rows = X[X.columns[::-1]].iloc[:3]
    report = build(model, local_rows=pa.Table.from_pandas(rows, preserve_index=False))
    expected = build(model, local_rows=rows)
    report.generated = expected.generated
    assert len(report.local) == 3 and report.to_markdown() == expected.to_markdown()


def test_multiclass_pram_with_a_nominal_feature(clara):
    """One line per class in shape plots, one heatmap per class for pairs, categories as points."""
    from primo import PrAMClassifier

    X, y, _, _ = clara
    X = X[["R_i", "R_res", "A_e"]].assign(size=pd.cut(X["R_ic"], 3, labels=["small", "medium", "large"]).astype(str))
    labels = pd.cut(y, [0, 40, 50, 100], labels=["few", "some", "many"]).astype(str)
    model = PrAMClassifier(max_bins=16, interactions=1, max_rounds=100, outer_bags=2, n_jobs=1).fit(X, labels)
    report = build(model, X.iloc[:100], labels.iloc[:100], local_rows=1, measure_latency=False)
    html = report.to_html()
    assert html.count('data-figure="shape-') == 4 and html.count('data-figure="pair-') == 3 * model.n_interactions_
    assert html.count("line line-2") >= 4  # the third class's line in every shape plot
    item = report.local[0]
    assert "medium" in html and item.class_shown == item.prediction  # explains the predicted class's score


def test_rows_with_a_class_the_model_never_learned(prdt_classifier, linnos):
    """A binary model's report on rows holding a third label (a rare class its training rows lacked, or a
    distilled student whose teacher never predicted it): metrics are macro averages, not a crash."""
    X, y = linnos
    labels = np.asarray(y).copy()
    labels[::10] = max(prdt_classifier.classes_) + 1
    assert len(prdt_classifier.classes_) == 2 and len(np.unique(labels)) == 3
    report = build(prdt_classifier, X, labels, local_rows=1, measure_latency=False)
    assert report.to_html().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("family", ["PrDTClassifier", "PrAMClassifier"])
def test_build_warns_about_the_rows_names_once_per_call(family):
    """An array for a model fit on a DataFrame (or the reverse) gets scikit-learn's warning once per build; before,
    once per prediction made for the report: 158 or 159 times (the card's latency timing, the local explanations,
    the cautions). Other rows to explain (local_rows) warn when X does not; rows as the model was fit give no
    warning, nor does a frame without names (columns 0, 1) for a model fit on an array, which warned 158 times
    (the checked frame's columns had become the text '0', '1'). The report reads as from the named rows."""
    import warnings

    import primo

    family = getattr(primo, family)
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=120), "b": rng.normal(size=120)})
    y = (X["a"] + X["b"] > 0).astype(int).to_numpy()
    params = dict(max_depth=3, random_state=0) if family.__name__.startswith("PrDT") else dict(
        max_rounds=30, outer_bags=1, n_jobs=1, random_state=0)
    named, unnamed = family(**params).fit(X, y), family(**params).fit(X.to_numpy(), y)
    without = f"X does not have valid feature names, but {family.__name__} was fitted with feature names"
    with_names = f"X has feature names, but {family.__name__} was fitted without feature names"

    def caught(call):
        with warnings.catch_warnings(record=True) as given:
            warnings.simplefilter("always")
            call()
        return [str(w.message) for w in given]

    assert caught(lambda: build(named, X.to_numpy(), y, local_rows=3)) == [without]
    assert caught(lambda: build(named, X.to_numpy(), y, baselines={"same fit": named}, local_rows=X[:2])) == [without]
    assert caught(lambda: build(unnamed, X, y, local_rows=X[:2])) == [with_names]
    assert caught(lambda: build(unnamed, X.to_numpy(), y, local_rows=X[:2])) == [with_names]
    assert caught(lambda: build(unnamed, local_rows=X[:2])) == [with_names]
    with pytest.warns(UserWarning, match=without):
        from_array = build(named, X.to_numpy(), y, local_rows=3, measure_latency=False)
    expected = build(named, X, y, local_rows=3, measure_latency=False)
    from_array.generated = expected.generated
    assert from_array.to_markdown() == expected.to_markdown()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build(named, X, y, local_rows=X[:2])
        build(unnamed, X.to_numpy(), y, local_rows=3)
        build(unnamed, pd.DataFrame(X.to_numpy()), y, local_rows=pd.DataFrame(X.to_numpy()[:2]))
