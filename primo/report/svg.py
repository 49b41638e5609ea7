"""A minimal inline-SVG writer: shapes, text and axes, every string escaped.

Hand-written rather than matplotlib's SVG backend because reports hold dozens of figures: a
matplotlib SVG embeds its glyphs and styles per figure (tens of kB each), while these figures are a
few kB, scale with the page, and inherit the report's fonts and colours from its CSS.
"""
from __future__ import annotations

import base64
import io
import math

import numpy as np
from markupsafe import Markup, escape

FONT_PX = 11  # the figure text size the layout below assumes (CSS sets it on svg text)


def num(value: float) -> str:
    """Compact coordinate: one decimal, no trailing zeros."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def fmt(value, digits: int = 4) -> str:
    """Number for humans (4 significant digits); other values as text."""
    if isinstance(value, (bool, np.bool_)) or value is None:
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "–"
        if 10 ** digits <= abs(value) < 1e12:  # 12,530 rather than 1.253e+04
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"
    return str(value)


def truncate(text: str, width_px: float) -> str:
    """Cut ``text`` to fit roughly ``width_px`` at :data:`FONT_PX` (average glyph ≈ 0.6 em)."""
    limit = max(int(width_px / (0.6 * FONT_PX)), 3)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Svg:
    """Collects SVG elements and renders them as one escaped ``<svg>`` element.

    Example
    -------
    >>> figure = Svg(200, 100, label="demo")
    >>> figure.rect(10, 10, 50, 20, cls="bar", title="a <b>")
    >>> "&lt;b&gt;" in figure.render()
    True
    """

    def __init__(self, width: float, height: float, *, label: str):
        self.width, self.height, self.label = width, height, label
        self.parts: list[str] = []

    @staticmethod
    def _attrs(**attrs) -> str:
        out = []
        for key, value in attrs.items():
            if value is None:
                continue
            name = {"cls": "class"}.get(key, key.replace("_", "-"))
            text = num(value) if isinstance(value, (float, np.floating)) else str(value)
            out.append(f' {name}="{escape(text)}"')
        return "".join(out)

    def _add(self, tag: str, title: str | None, **attrs) -> None:
        if title is None:
            self.parts.append(f"<{tag}{self._attrs(**attrs)}/>")
        else:
            self.parts.append(f"<{tag}{self._attrs(**attrs)}><title>{escape(title)}</title></{tag}>")

    def rect(self, x, y, w, h, *, cls=None, fill=None, title=None, **attrs) -> None:
        """A rectangle; ``fill`` goes in a style attribute so that it wins over the class's CSS fill."""
        self._add("rect", title, x=float(x), y=float(y), width=float(max(w, 0)), height=float(max(h, 0)),
                  cls=cls, style=f"fill:{fill}" if fill else None, **attrs)

    def line(self, x1, y1, x2, y2, *, cls=None, **attrs) -> None:
        self._add("line", None, x1=float(x1), y1=float(y1), x2=float(x2), y2=float(y2), cls=cls, **attrs)

    def circle(self, x, y, r, *, cls=None, title=None, **attrs) -> None:
        self._add("circle", title, cx=float(x), cy=float(y), r=float(r), cls=cls, **attrs)

    def polyline(self, points, *, cls=None, title=None, **attrs) -> None:
        """A path through ``points`` [(x, y), …]; NaN points break the line."""
        commands, pen_down = [], False
        for x, y in points:
            if not (math.isfinite(x) and math.isfinite(y)):
                pen_down = False
                continue
            commands.append(f"{'L' if pen_down else 'M'}{num(x)} {num(y)}")
            pen_down = True
        if commands:
            self._add("path", title, d="".join(commands), cls=cls, **attrs)

    def polygon(self, points, *, cls=None, title=None, **attrs) -> None:
        if len(points):
            d = "M" + "L".join(f"{num(x)} {num(y)}" for x, y in points) + "Z"
            self._add("path", title, d=d, cls=cls, **attrs)

    def text(self, x, y, content, *, anchor="start", cls=None, title=None, **attrs) -> None:
        attributes = self._attrs(x=float(x), y=float(y), text_anchor=anchor if anchor != "start" else None,
                                 cls=cls, **attrs)
        inner = escape(str(content)) + (Markup(f"<title>{escape(title)}</title>") if title else "")
        self.parts.append(f"<text{attributes}>{inner}</text>")

    def png(self, x, y, w, h, rgba: np.ndarray) -> None:
        """An RGBA image (rows top to bottom), stored as an inline PNG, drawn with crisp pixels."""
        from matplotlib.image import imsave

        buffer = io.BytesIO()
        imsave(buffer, rgba, format="png")
        href = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
        self._add("image", None, x=float(x), y=float(y), width=float(w), height=float(h), href=href,
                  preserveAspectRatio="none", cls="raster")

    def raw(self, markup: Markup) -> None:
        """Append already-escaped markup (e.g. a ``<defs>`` block built here)."""
        self.parts.append(str(markup))

    def render(self) -> Markup:
        """The ``<svg>`` element (the report's CSS shrinks it to the page's width)."""
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {num(self.width)} {num(self.height)}" '
                f'width="{num(self.width)}" height="{num(self.height)}" role="img" aria-label="{escape(self.label)}">')
        return Markup(head + "".join(self.parts) + "</svg>")


class Axis:
    """Maps data values to pixels on one axis, with "nice" tick values (matplotlib's locator)."""

    def __init__(self, low: float, high: float, start_px: float, end_px: float, *, n_ticks: int = 5,
                 integer: bool = False):
        from matplotlib.ticker import MaxNLocator

        low, high = float(low), float(high)
        if not (math.isfinite(low) and math.isfinite(high)):
            low, high = 0.0, 1.0
        if high <= low:
            pad = abs(low) * 0.05 or 0.5
            low, high = low - pad, high + pad
        self.low, self.high, self.start, self.end = low, high, start_px, end_px
        ticks = MaxNLocator(nbins=n_ticks, integer=integer).tick_values(low, high)
        self.ticks = [t for t in ticks if low - 1e-12 * abs(high - low) <= t <= high + 1e-12 * abs(high - low)]

    def __call__(self, value) -> float:
        return self.start + (float(value) - self.low) / (self.high - self.low) * (self.end - self.start)

    def clip(self, value) -> float:
        return self(min(max(float(value), self.low), self.high))


class LogAxis(Axis):
    """A logarithmic :class:`Axis` over positive values, ticked at 1, 10, 100… (1, 2, 5… or evenly
    when that leaves fewer than two ticks inside the range).

    Example
    -------
    >>> LogAxis(3, 4000, 0, 300).ticks
    [10.0, 100.0, 1000.0]
    """

    def __init__(self, low: float, high: float, start_px: float, end_px: float):
        from matplotlib.ticker import LogLocator

        low, high = float(low), float(high)
        if not (math.isfinite(low) and math.isfinite(high) and low > 0):
            raise ValueError(f"a log axis needs finite positive bounds, got {low} and {high}")
        if high <= low:
            low, high = low / 1.5, high * 1.5
        self.low, self.high, self.start, self.end = low, high, start_px, end_px
        for subs in ((1.0,), (1.0, 2.0, 5.0)):
            ticks = [float(t) for t in LogLocator(base=10, subs=subs).tick_values(low, high)
                     if low * (1 - 1e-9) <= t <= high * (1 + 1e-9)]
            if len(ticks) >= 2:
                break
        self.ticks = ticks

    def __call__(self, value) -> float:
        share = (math.log10(float(value)) - math.log10(self.low)) / (math.log10(self.high) - math.log10(self.low))
        return self.start + share * (self.end - self.start)


def draw_axes(svg: Svg, x: Axis, y: Axis, *, x_label: str = "", y_label: str = "", grid: bool = True,
              x_at: float | None = None) -> None:
    """Ticks, tick labels, grid lines and axis titles of the plot area spanned by ``x`` and ``y``.

    The x ticks go under the plot area, or at the pixel row ``x_at`` (e.g. below a density strip).
    """
    top, bottom = min(y.start, y.end), max(y.start, y.end)
    left, right = min(x.start, x.end), max(x.start, x.end)
    for tick in y.ticks:
        py = y(tick)
        if grid:
            svg.line(left, py, right, py, cls="grid")
        svg.text(left - 4, py + 3.5, fmt(tick, 3), anchor="end", cls="tick")
    if y_label:
        svg.text(12, (top + bottom) / 2, truncate(y_label, bottom - top), anchor="middle", cls="axis-title",
                 transform=f"rotate(-90 12 {num((top + bottom) / 2)})", title=y_label)
    x_row = bottom if x_at is None else x_at
    if x_at is not None:
        svg.line(left, bottom, right, bottom, cls="axis")
    x_ticks(svg, x, x_row)
    if x_label:
        svg.text((left + right) / 2, x_row + 30, truncate(x_label, right - left), anchor="middle",
                 cls="axis-title", title=x_label)
    svg.line(left, top, left, bottom, cls="axis")


def x_ticks(svg: Svg, x: Axis, y_px: float) -> None:
    """A horizontal axis line at ``y_px`` with ``x``'s ticks and labels under it."""
    svg.line(min(x.start, x.end), y_px, max(x.start, x.end), y_px, cls="axis")
    for tick in x.ticks:
        px = x(tick)
        svg.line(px, y_px, px, y_px + 4, cls="axis")
        svg.text(px, y_px + 15, fmt(tick, 3), anchor="middle", cls="tick")
