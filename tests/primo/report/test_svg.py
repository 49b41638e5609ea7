"""The inline-SVG writer escapes everything and maps data to pixels."""
import pytest

from primo.report.svg import Axis, Svg, fmt, truncate


def test_svg_escapes_text_titles_and_attributes():
    svg = Svg(100, 50, label='a "label" <b>')
    svg.text(1, 2, "<script>alert(1)</script>", title="t & <u>")
    svg.rect(0, 0, 10, 10, cls='x" onclick="y', fill="red")
    out = str(svg.render())
    assert "<script>" not in out and "&lt;script&gt;" in out and "t &amp; &lt;u&gt;" in out
    assert 'onclick="' not in out and "&#34;" in out
    assert 'aria-label="a &#34;label&#34; &lt;b&gt;"' in out and 'style="fill:red"' in out


def test_axis_maps_values_and_picks_ticks_inside_the_range():
    axis = Axis(0.0, 10.0, 100.0, 200.0)
    assert axis(0) == 100 and axis(10) == 200 and axis(5) == 150
    assert axis.clip(20) == 200
    assert all(0 <= t <= 10 for t in axis.ticks) and len(axis.ticks) >= 3
    flat = Axis(3.0, 3.0, 0.0, 1.0)  # a constant series still gets a usable range
    assert flat.low < 3.0 < flat.high
    assert Axis(0.5, 4.5, 0, 1, integer=True).ticks == pytest.approx([1, 2, 3, 4])


def test_number_and_text_helpers():
    assert fmt(0.000123456) == "0.0001235" and fmt(3) == "3" and fmt(float("nan")) == "–"
    assert truncate("abcdefghijklmnopqrstuvwxyz", 66) == "abcdefghi…"
