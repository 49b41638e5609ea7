"""The report's figures, drawn as inline SVG from :mod:`primo.explain` value objects.

Every function returns escaped SVG markup (:class:`markupsafe.Markup`) ready for the template.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from markupsafe import Markup

from primo.report.svg import Axis, LogAxis, Svg, draw_axes, fmt, truncate, x_ticks

WIDTH = 640


def importance_chart(importances: pd.Series, *, label: str, max_items: int = 30) -> Markup:
    """Horizontal bars of importances, largest on top (the rest summed into one bar)."""
    values = importances.astype(float)
    if len(values) > max_items:
        rest = values.iloc[max_items - 1:]
        values = pd.concat([values.iloc[: max_items - 1],
                            pd.Series([rest.sum()], index=[f"{len(rest)} other terms (sum)"])])
    return _bars(list(map(str, values.index)), values.to_numpy(), label=label, signed=False)


def _bars(names: list[str], values: np.ndarray, *, label: str, signed: bool, value_label: str = "") -> Markup:
    row, name_px = 20, 190
    rows_bottom = 6 + row * len(names)
    height = rows_bottom + (34 if value_label else 22)
    svg = Svg(WIDTH, height, label=label)
    low = min(0.0, float(np.nanmin(values))) if len(values) else 0.0
    high = max(0.0, float(np.nanmax(values))) if len(values) else 1.0
    x = Axis(low, high if high > low else low + 1, name_px + 10, WIDTH - 60, n_ticks=5)
    x_ticks(svg, x, rows_bottom)
    for i, (name, value) in enumerate(zip(names, values)):
        y = 6 + i * row
        start, end = sorted((x(0), x(value)))
        cls = ("bar pos" if value >= 0 else "bar neg") if signed else "bar"
        svg.rect(start, y + 2, end - start, row - 5, cls=cls, title=f"{name}: {fmt(value)}")
        svg.text(name_px, y + row / 2 + 3, truncate(name, name_px - 4), anchor="end", cls="label", title=name)
        svg.text(max(end, x(0)) + 4, y + row / 2 + 3, fmt(value, 3), cls="value")
    svg.line(x(0), 4, x(0), rows_bottom, cls="zero")
    if value_label:
        svg.text((x.start + x.end) / 2, height - 2, value_label, anchor="middle", cls="axis-title")
    return svg.render()


def contribution_chart(names: list[str], values: np.ndarray, *, label: str, value_label: str = "") -> Markup:
    """Signed horizontal bars (red raises the score, blue lowers it), in the given order."""
    return _bars(names, np.asarray(values, dtype=float), label=label, signed=True, value_label=value_label)


def waterfall(intercept: float, contributions: pd.Series, *, label: str, max_terms: int = 12,
              total_label: str = "score") -> Markup:
    """Intercept, then each term's contribution stacked, ending at the model's raw score.

    The axis spans the running totals (not zero), so that small contributions on top of a large
    intercept stay visible. The largest |contributions| are drawn one by one, the rest summed.
    """
    order = contributions.abs().sort_values(ascending=False).index
    if len(order) <= max_terms + 1:  # summing a single leftover term would hide its name for nothing
        max_terms = len(order)
    steps = [(str(k), float(contributions[k])) for k in order[:max_terms]]
    if len(order) > max_terms:
        rest = contributions[order[max_terms:]]
        steps.append((f"{len(rest)} other terms", float(rest.sum())))
    ends = float(intercept) + np.cumsum([v for _, v in steps])
    starts = np.concatenate([[float(intercept)], ends[:-1]])
    total = float(ends[-1]) if len(ends) else float(intercept)
    row, name_px = 20, 190
    rows_bottom = 6 + row * (len(steps) + 2)
    svg = Svg(WIDTH, rows_bottom + 22, label=label)
    span = np.concatenate([[intercept, total], starts, ends])
    pad = 0.04 * (span.max() - span.min() or 1.0)
    x = Axis(span.min() - pad, span.max() + pad, name_px + 10, WIDTH - 70)
    if x.low < 0 < x.high:
        svg.line(x(0), 4, x(0), rows_bottom, cls="zero")

    def marker(i, value, name, text):
        y = 6 + i * row + row / 2
        svg.line(x(value), y - row / 2 + 2, x(value), y + row / 2 - 3, cls="axis")
        svg.circle(x(value), y - 0.5, 4.5, cls="dot marker", title=f"{name} = {value:.6g}")
        svg.text(name_px, y + 3, name, anchor="end", cls="label strong")
        svg.text(x(value) + 8, y + 3, text, cls="value strong")

    marker(0, float(intercept), "intercept", f"{intercept:.4g}")
    for i, ((name, value), start, end) in enumerate(zip(steps, starts, ends), start=1):
        y = 6 + i * row
        lo, hi = sorted((x(start), x(end)))
        svg.rect(lo, y + 2, max(hi - lo, 1), row - 5, cls="bar " + ("pos" if value >= 0 else "neg"),
                 title=f"{name}: {value:+.6g} (running total {end:.6g})")
        svg.line(x(start), y - 3, x(start), y + 2, cls="connector")
        svg.text(name_px, y + row / 2 + 3, truncate(name, name_px - 4), anchor="end", cls="label", title=name)
        svg.text(hi + 4, y + row / 2 + 3, f"{value:+.4g}", cls="value")
    marker(len(steps) + 1, total, f"= {total_label}", f"{total:.4g}")
    x_ticks(svg, x, rows_bottom)
    return svg.render()


def shape_plot(term, *, label: str, overlays: list[tuple[str, np.ndarray]] = (), class_names=None) -> Markup:
    """A 1-D shape function: contribution per bin (step line, ±1 sd band) over the bin density.

    ``overlays`` are extra score arrays over the same bins (e.g. before/after a monotone edit),
    drawn as labelled lines. Nominal features are drawn as one point per category.
    """
    scores = np.asarray(term.scores, dtype=float)
    lines = [scores[:, k] for k in range(scores.shape[1])] if scores.ndim == 2 else [scores]
    line_names = [str(c) for c in class_names] if scores.ndim == 2 and class_names is not None else [term.name]
    line_names = line_names[: len(lines)]
    stdev = None if term.stdev is None else np.asarray(term.stdev, dtype=float)
    has_band = stdev is not None and scores.ndim == 1 and stdev.shape == scores.shape
    all_values = np.concatenate([scores.ravel()] + [np.ravel(np.asarray(o, dtype=float)) for _, o in overlays])
    low, high = float(np.nanmin(all_values)), float(np.nanmax(all_values))
    if has_band:
        low, high = min(low, float(np.nanmin(scores - stdev))), max(high, float(np.nanmax(scores + stdev)))
    left, right, top, plot_bottom, density_h = 60, WIDTH - 15, 12, 200, 34
    density_top = plot_bottom + 6
    axis_y = density_top + density_h
    height = axis_y + 40 + 16 * (len(overlays) > 0 or (scores.ndim == 2))
    svg = Svg(WIDTH, height, label=label)
    y = Axis(low, high, plot_bottom, top)
    nominal = term.feature_types[0] == "nominal"
    n_bins = len(lines[0])
    if nominal:
        x = Axis(-0.5, n_bins - 0.5, left, right)
        x.ticks = []
        centers = [(i - 0.5, i + 0.5) for i in range(n_bins)]
    else:
        edges = np.asarray(term.bins[0], dtype=float)
        x = Axis(edges[0], edges[-1], left, right)
        centers = list(zip(edges[:-1], edges[1:]))
    draw_axes(svg, x, y, x_label=term.features[0], y_label="contribution", x_at=axis_y)
    if y.low < 0 < y.high:
        svg.line(left, y(0), right, y(0), cls="zero")
    labels = term.bin_labels()
    if has_band:  # ±1 sd of the scores over the outer bags
        band_points = []
        for (a, b), s, d in zip(centers, scores, stdev):
            band_points += [(x(a), y.clip(s + d)), (x(b), y.clip(s + d))]
        for (a, b), s, d in reversed(list(zip(centers, scores, stdev))):
            band_points += [(x(b), y.clip(s - d)), (x(a), y.clip(s - d))]
        svg.polygon(band_points, cls="band")
    series = [(name, values, f"line line-{i % 8}") for i, (name, values) in enumerate(zip(line_names, lines))]
    series += [(name, np.asarray(values, dtype=float), f"line overlay-{i % 4}") for i, (name, values) in enumerate(overlays)]
    for name, values, cls in series:
        if nominal:
            for i, v in enumerate(values):
                svg.circle(x(i), y.clip(v), 3.5, cls=cls + " dot", title=f"{name}: {labels[i]} → {v:.6g}")
        else:
            points = []
            for (a, b), v in zip(centers, values):
                points += [(x(a), y.clip(v)), (x(b), y.clip(v))]
            svg.polyline(points, cls=cls, title=name)
    # Density strip: training rows per unit of x (per category when nominal). Bins hold similar
    # row counts (quantile binning), so rows per bin alone would look flat.
    weights = np.asarray(term.weights, dtype=float)
    widths = np.ones_like(weights) if nominal else np.maximum(np.diff(np.asarray(term.bins[0], dtype=float)), 1e-300)
    density = weights / widths
    cap = float(np.quantile(density, 0.95)) if density.size and density.max() > 0 else 1.0
    tooltips = n_bins <= 64  # per-bin tooltips cost ~100 bytes a bin: only for readable bin counts
    for (a, b), w, d, text, score in zip(centers, weights, density, labels, lines[0]):
        h = min(d / (cap or 1.0), 1.0) * density_h
        svg.rect(x(a), density_top + density_h - h, max(x(b) - x(a) - 0.3, 0.6), h, cls="density",
                 title=f"{text}: contribution {score:.4g}, {w:g} training rows" if tooltips else None)
    svg.text(left - 4, density_top + density_h / 2 + 3, "data", anchor="end", cls="tick")
    if nominal:
        for i, text in enumerate(labels[:40]):
            svg.text(x(i), axis_y + 14, truncate(text, (right - left) / max(n_bins, 1)), anchor="middle",
                     cls="tick", title=text)
    legend = [(n, c) for n, _, c in series] if len(series) > 1 else []
    for i, (name, cls) in enumerate(legend):
        lx = left + 10 + i * 150
        svg.line(lx, height - 8, lx + 18, height - 8, cls=cls)
        svg.text(lx + 22, height - 4, truncate(name, 125), cls="legend", title=name)
    return svg.render()


def heatmap(term, *, label: str, class_index: int | None = None) -> Markup:
    """A pair term as a heatmap over its bins (bin index axes, labelled with bin edges)."""
    from matplotlib import colormaps
    from matplotlib.colors import TwoSlopeNorm

    scores = np.asarray(term.scores, dtype=float)
    if scores.ndim == 3:
        scores = scores[:, :, class_index or 0]
    n_a, n_b = scores.shape
    bound = float(np.nanmax(np.abs(scores))) or 1.0
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-bound, vmax=bound)
    rgba = colormaps["RdBu_r"](norm(scores.T[::-1]))  # rows: feature b from high (top) to low
    left, top, plot_w, plot_h = 150, 10, 380, 260
    height = top + plot_h + 70
    svg = Svg(WIDTH, height, label=label)
    svg.png(left, top, plot_w, plot_h, (rgba * 255).astype(np.uint8))
    svg.rect(left, top, plot_w, plot_h, cls="frame")
    for axis, n in ((0, n_a), (1, n_b)):
        for position, text in _edge_ticks(term, axis):
            if axis == 0:
                px = left + position * plot_w / n
                svg.line(px, top + plot_h, px, top + plot_h + 4, cls="axis")
                svg.text(px, top + plot_h + 15, truncate(text, 70), anchor="middle", cls="tick", title=text)
            else:
                py = top + plot_h - position * plot_h / n
                svg.line(left - 4, py, left, py, cls="axis")
                svg.text(left - 6, py + 3.5, truncate(text, left - 30), anchor="end", cls="tick", title=text)
    svg.text(left + plot_w / 2, top + plot_h + 32, truncate(term.features[0], plot_w), anchor="middle",
             cls="axis-title", title=term.features[0])
    svg.text(12, top + plot_h / 2, truncate(term.features[1], plot_h), anchor="middle", cls="axis-title",
             transform=f"rotate(-90 12 {top + plot_h / 2:.1f})", title=term.features[1])
    # Colour scale.
    steps = 24
    ramp = colormaps["RdBu_r"](np.linspace(0, 1, steps))[::-1]
    cx = left + plot_w + 30
    for k in range(steps):
        colour = "#%02x%02x%02x" % tuple(int(c * 255) for c in ramp[k][:3])
        svg.rect(cx, top + k * plot_h / steps, 14, plot_h / steps + 0.5, fill=colour)
    svg.text(cx + 18, top + 8, f"{bound:+.3g}", cls="tick")
    svg.text(cx + 18, top + plot_h / 2 + 3, "0", cls="tick")
    svg.text(cx + 18, top + plot_h, f"{-bound:+.3g}", cls="tick")
    weights = np.asarray(term.weights, dtype=float)
    svg.text(left, height - 8, f"{n_a}×{n_b} bins, {int(np.count_nonzero(weights))} with training rows",
             cls="legend")
    return svg.render()


def _edge_ticks(term, axis: int, max_ticks: int = 6) -> list[tuple[float, str]]:
    """Tick positions (in bin units) and labels: bin edges for continuous axes, centres for categories."""
    n = len(term.bins[axis]) - (term.feature_types[axis] == "continuous")
    if term.feature_types[axis] == "nominal":
        picks = np.unique(np.round(np.linspace(0, n - 1, min(n, max_ticks))).astype(int))
        return [(i + 0.5, str(term.bins[axis][i])) for i in picks]
    picks = np.unique(np.round(np.linspace(0, n, min(n + 1, max_ticks))).astype(int))
    return [(float(i), fmt(float(term.bins[axis][i]), 3)) for i in picks]


def trial_chart(trials: pd.DataFrame, chosen, *, label: str, y_column: str = "score",
                y_label: str = "S(θ) = loss + λ·C^γ") -> Markup:
    """Score of each trial in order (numbered by its ``trial`` column when there is one), the
    best-so-far line, and the chosen point (row label ``chosen``) ringed."""
    values = pd.to_numeric(trials[y_column], errors="coerce").to_numpy(dtype=float)
    numbers = (pd.to_numeric(trials["trial"], errors="coerce").to_numpy(dtype=float) if "trial" in trials
               else np.arange(1, len(values) + 1, dtype=float))
    left, right, top, bottom = 60, WIDTH - 15, 12, 200
    svg = Svg(WIDTH, bottom + 44, label=label)
    finite = values[np.isfinite(values)]
    y = Axis(finite.min() if finite.size else 0, finite.max() if finite.size else 1, bottom, top)
    x = Axis(np.nanmin(numbers) - 0.5, np.nanmax(numbers) + 0.5, left, right, n_ticks=min(len(values), 10),
             integer=True)
    draw_axes(svg, x, y, x_label="trial", y_label=y_label)
    best_so_far = np.fmin.accumulate(np.where(np.isfinite(values), values, np.inf))
    svg.polyline([(x(n), y(v) if math.isfinite(v) else math.nan) for n, v in zip(numbers, best_so_far)],
                 cls="line line-1", title="best so far")
    for index, number, value in zip(trials.index, numbers, values):
        if math.isfinite(value):
            svg.circle(x(number), y(value), 3, cls="dot line-0", title=f"trial {fmt(number)}: {value:.6g}")
        if index == chosen and math.isfinite(value):
            svg.circle(x(number), y(value), 7.5, cls="chosen", title=f"chosen: trial {fmt(number)}, {value:.6g}")
    return svg.render()


def front_chart(front, *, label: str, lowest_name: str = "lowest loss") -> Markup:
    """Validated loss against size (log scale) of every trial of a search (a
    :class:`~primo.report.search_view.LossSizeFront`): ±1 standard error bars, the Pareto front as a
    step line (the lowest loss reachable at each size), the kept trial ringed, the trial of lowest
    loss marked with a square, both named in a legend row above the plot."""
    points = front.points
    sizes, losses = points["size"].to_numpy(dtype=float), points["loss"].to_numpy(dtype=float)
    spread = np.nan_to_num(points["loss_se"].to_numpy(dtype=float), nan=0.0)
    left, right, top, bottom = 64, WIDTH - 20, 34, 240
    svg = Svg(WIDTH, bottom + 46, label=label)
    low, high = float(np.min(losses - spread)), float(np.max(losses + spread))
    pad = 0.06 * (high - low or abs(high) or 1.0)
    y = Axis(low - pad, high + pad, bottom, top)
    x = LogAxis(sizes.min() / 1.3, sizes.max() * 1.3, left, right)
    draw_axes(svg, x, y, x_label=f"{front.x_label}, log scale", y_label=front.y_label)
    for size, loss, se in zip(sizes, losses, spread):
        if se > 0:
            px = x(size)
            svg.line(px, y(loss - se), px, y(loss + se), cls="errorbar")
            for end in (loss - se, loss + se):
                svg.line(px - 2.5, y(end), px + 2.5, y(end), cls="errorbar")
    on_front = points[points["pareto"]].sort_values("size")
    steps = []
    front_sizes, front_losses = on_front["size"].to_numpy(), on_front["loss"].to_numpy()
    for k, (size, loss) in enumerate(zip(front_sizes, front_losses)):
        steps.append((x(size), y(loss)))
        if k + 1 < len(front_sizes):  # until the next front point, this is the lowest loss reachable
            steps.append((x(front_sizes[k + 1]), y(loss)))
    svg.polyline(steps, cls="line front", title="loss–size Pareto front")
    for index, row in points.iterrows():
        se = f" ± {fmt(row['loss_se'], 2)}" if math.isfinite(row["loss_se"]) else ""
        svg.circle(x(row["size"]), y(row["loss"]), 3.2, cls="dot " + ("line-0" if row["pareto"] else "off-front"),
                   title=f"trial {fmt(row['trial'])}: size {fmt(row['size'])}, loss {fmt(row['loss'])}{se}")

    # The kept and lowest-loss trials are named in a legend row above the plot: labels next to the
    # points collide when the two are close, which is the usual case.
    def describe(index, name: str) -> str:
        row = points.loc[index]
        return f"{name}: trial {fmt(row['trial'])}, size {fmt(row['size'])}, {fmt(row['loss'], 3)}"

    legend_x = left
    if front.lowest is not None:
        text = describe(front.lowest, lowest_name)
        svg.rect(x(points.at[front.lowest, "size"]) - 5, y(points.at[front.lowest, "loss"]) - 5, 10, 10,
                 cls="lowest", title=text)
    if front.chosen is not None:
        text = describe(front.chosen, "kept" + (f" = {lowest_name}" if front.chosen == front.lowest else ""))
        svg.circle(x(points.at[front.chosen, "size"]), y(points.at[front.chosen, "loss"]), 7.5, cls="chosen",
                   title=text)
        svg.circle(legend_x + 6, 12, 5.5, cls="chosen")
        svg.text(legend_x + 17, 16, text, cls="annotation")
        legend_x += 17 + len(text) * 0.6 * 10.5 + 24
    if front.lowest is not None and front.lowest != front.chosen:
        svg.rect(legend_x + 1, 7, 10, 10, cls="lowest")
        svg.text(legend_x + 17, 16, describe(front.lowest, lowest_name), cls="annotation")
    return svg.render()


def series_chart(frame: pd.DataFrame, column: str, *, label: str, x_column: str | None = None) -> Markup:
    """One numeric column against the row order (or ``x_column``), as a line with points."""
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    xs = (pd.to_numeric(frame[x_column], errors="coerce").to_numpy(dtype=float) if x_column
          else np.arange(1, len(values) + 1, dtype=float))
    left, right, top, bottom = 60, WIDTH - 15, 12, 160
    svg = Svg(WIDTH, bottom + 44, label=label)
    finite = values[np.isfinite(values)]
    y = Axis(finite.min() if finite.size else 0, finite.max() if finite.size else 1, bottom, top)
    whole = bool(np.all(np.mod(xs[np.isfinite(xs)], 1) == 0))
    x = Axis(np.nanmin(xs) - 0.5, np.nanmax(xs) + 0.5, left, right, integer=whole)
    draw_axes(svg, x, y, x_label=x_column or "iteration", y_label=column)
    svg.polyline([(x(a), y(b) if math.isfinite(b) else math.nan) for a, b in zip(xs, values)], cls="line line-0")
    for a, b in zip(xs, values):
        if math.isfinite(b):
            svg.circle(x(a), y(b), 3, cls="dot line-0", title=f"{fmt(a)}: {b:.6g}")
    return svg.render()
