"""Reports opened in headless Chromium: they load cleanly, fetch nothing, draw every figure,
and names containing HTML stay text (no injected script runs)."""
import pandas as pd
import pytest
from matplotlib.image import imread

from primo import PrAMClassifier, PrDTClassifier
from primo.report import build


def _check_clean(page, n_figures):
    assert page.console_errors == []
    assert page.requests == []
    assert page.empty_figures == []
    assert len(page.figures) == n_figures
    assert page.scripts == 0 and page.event_handlers == 0


def _assert_screenshot_shows_content(path, min_height=900):
    image = imread(path)
    assert image.shape[1] == 1280 and image.shape[0] >= min_height
    assert image[..., :3].std() > 0.05  # not a blank page
    return image


def test_pram_report_renders_in_chromium(browser, pram_report, screenshots, tmp_path):
    path = pram_report.save(tmp_path / "pram.html")
    page = browser.check(path, screenshot=screenshots / "pram_clara.png")
    n_figures = pram_report.to_html().count("<figure ")
    assert n_figures >= 15
    _check_clean(page, n_figures)
    assert page.title == "Clara-MS PrAM"
    _assert_screenshot_shows_content(page.screenshot, min_height=3000)


def test_prdt_report_renders_in_chromium(browser, prdt_report, screenshots, tmp_path):
    path = prdt_report.save(tmp_path / "prdt.html")
    page = browser.check(path, screenshot=screenshots / "prdt_linnos.png")
    _check_clean(page, prdt_report.to_html().count("<figure "))  # importance chart, tree diagram and its subtrees
    assert {f["name"] for f in page.figures} >= {"importance", "tree", "subtree-2"}
    tree_figure = next(f for f in page.figures if f["name"] == "tree")
    assert tree_figure["drawn"] > 4 * prdt_report.explanation.n_leaves
    _assert_screenshot_shows_content(page.screenshot)


EVIL = {
    "script": "<script>document.title='PWNED'</script>",
    "attr": 'x" onmouseover="document.title=\'PWNED\'',
    "amp": "a & b <i>c</i>",
    "img": "<img src=x onerror=\"document.title='PWNED'\">",
}


def _without_csp(html: str) -> str:
    """The report minus its Content-Security-Policy, so that only escaping stands in the way."""
    start = html.index('<meta http-equiv="Content-Security-Policy"')
    return html[:start] + html[html.index(">", start) + 1:]


@pytest.mark.parametrize("family", ["prdt", "pram"])
def test_html_in_names_and_labels_is_escaped(browser, linnos, family, tmp_path):
    X, y = linnos
    X = X.iloc[:600].set_axis(list(EVIL.values()), axis=1)
    labels = pd.Series(y.iloc[:600].map({0: "fast & <b>ok</b>", 1: EVIL["img"]}).to_numpy(), index=X.index)
    if family == "prdt":
        model = PrDTClassifier(ccp_alpha=0.005, random_state=0).fit(X, labels)
    else:
        model = PrAMClassifier(max_bins=16, interactions=1, max_rounds=100, outer_bags=2, n_jobs=1).fit(X, labels)
    report = build(model, X, labels, local_rows=2, measure_latency=False, title="<script>x</script> & title")
    html = report.to_html()
    assert "<script" not in html and "onerror=" not in html.replace("onerror=&#34;", "")
    assert "&lt;script&gt;document.title=&#39;PWNED&#39;&lt;/script&gt;" in html
    path = tmp_path / "evil.html"
    path.write_text(_without_csp(html))
    page = browser.check(path)
    assert page.title == "<script>x</script> & title"  # shown as text, and no payload renamed the page
    assert page.scripts == 0 and page.event_handlers == 0
    assert page.requests == [] and page.console_errors == []
    assert page.empty_figures == []


def test_checker_catches_errors_requests_and_empty_figures(browser, tmp_path):
    """The browser check itself can fail: a page that misbehaves is reported."""
    path = tmp_path / "bad.html"
    path.write_text("<!DOCTYPE html><html><head><title>bad</title></head><body>"
                    '<img src="http://127.0.0.1:9/missing.png">'
                    '<figure data-figure="empty"><svg width="100" height="50"></svg></figure>'
                    "<script>console.error('boom')</script></body></html>")
    page = browser.check(path)
    assert any("127.0.0.1:9" in url for url in page.requests)
    assert any("boom" in message for message in page.console_errors)
    assert page.empty_figures == ["empty"] and page.scripts == 1
