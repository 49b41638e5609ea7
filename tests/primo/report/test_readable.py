"""Reports that stay readable (issue 20): many pair terms become one ranked table, wide trees fit
the page, metadata reads as a summary, and unusual predictions are flagged."""
import re

import numpy as np
import pytest

from primo import PrAMRegressor
from primo.explain import explain_global
from primo.report import build


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
    drawn = re.findall(r'<figure data-figure="pair-\d+-\d+">.*?<figcaption>(.*?):', html, flags=re.S)
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
