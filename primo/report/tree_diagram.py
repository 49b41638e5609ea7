"""The PrDT tree diagram: boxes with test, traffic, impurity and value; branch width ∝ traffic.

As in the Primo paper's LinnOS and Pensieve figures, the width of the arrow into a node is
proportional to the share of training rows that reach it. Subtrees deeper than ``max_depth`` are
drawn as one "…" box (the report's outline view shows the whole tree, collapsible).
"""
from __future__ import annotations

import numpy as np
from markupsafe import Markup

from primo.explain.tree import TreeExplanation, TreeNode
from primo.report.svg import Svg, fmt, truncate

BOX_W, BOX_H, GAP_X, LEVEL_H, MAX_EDGE_PX = 172, 62, 14, 104, 16
LEAF_COLOURS = ["#dbe9f6", "#fde0c5", "#d9f0d3", "#f2d7e6", "#e6e0f3", "#f7f0c6", "#d4eeee", "#eadccf"]


def node_value_text(node: TreeNode, classes) -> str:
    """``"A 12% · B 88%"`` for a classifier (top 3 classes), ``"value 4.25"`` for a regressor."""
    if classes is None:
        return f"value {fmt(float(node.value[0]))}"
    order = np.argsort(node.value)[::-1][:3]
    return " · ".join(f"{classes[k]} {node.value[k]:.0%}" for k in order if node.value[k] > 0)


def tree_diagram(tree: TreeExplanation, *, max_depth: int = 4, label: str = "tree diagram") -> Markup:
    """Draw the top ``max_depth`` levels of ``tree`` as SVG (deeper subtrees collapsed to "…")."""
    slots: dict[int, float] = {}
    visible: list[TreeNode] = []
    next_slot = [0]

    def place(node: TreeNode) -> float:  # in-order leaf slots; parents centred over children
        visible.append(node)
        if node.is_leaf or node.depth >= max_depth:
            slots[node.id] = next_slot[0]
            next_slot[0] += 1
        else:
            left, right = tree.children(node)
            slots[node.id] = (place(left) + place(right)) / 2
        return slots[node.id]

    place(tree.root)
    deepest = max(n.depth for n in visible)
    width = next_slot[0] * (BOX_W + GAP_X) + GAP_X
    height = (deepest + 1) * LEVEL_H + 10
    svg = Svg(width, height, label=label)
    total = max(tree.root.n_samples, 1)

    def centre(node: TreeNode) -> tuple[float, float]:
        return GAP_X + slots[node.id] * (BOX_W + GAP_X) + BOX_W / 2, 6 + node.depth * LEVEL_H

    for node in visible:  # edges first, under the boxes
        if node.is_leaf or node.depth >= max_depth:
            continue
        x0, y0 = centre(node)
        for child, answer in zip(tree.children(node), ("yes", "no")):
            x1, y1 = centre(child)
            share = child.n_samples / total
            svg.polyline([(x0, y0 + BOX_H), (x0, y0 + BOX_H + 12), (x1, y1 - 12), (x1, y1)], cls="edge",
                         stroke_width=f"{max(share * MAX_EDGE_PX, 1):.1f}",
                         title=f"{answer}: {child.n_samples} rows ({share:.1%} of training traffic)")
            svg.text((x0 + x1) / 2 + (-6 if answer == "yes" else 6), (y0 + BOX_H + y1) / 2 - 2, answer,
                     anchor="end" if answer == "yes" else "start", cls="edge-label")
    for node in visible:
        _box(svg, tree, node, *centre(node), collapsed=not node.is_leaf and node.depth >= max_depth)
    return svg.render(min_scale=0.75)  # wide trees shrink to the page, then scroll


def _box(svg: Svg, tree: TreeExplanation, node: TreeNode, cx: float, top: float, *, collapsed: bool) -> None:
    x = cx - BOX_W / 2
    value = node_value_text(node, tree.classes)
    details = (f"node {node.id}: {node.condition or 'leaf'}\nsamples {node.n_samples}\n"
               f"{tree.criterion} {node.impurity:.4g}\n{value}\npredicts {node.prediction}")
    if node.is_leaf:
        cls, fill = "node leaf", _leaf_fill(tree, node)
        first = f"→ {node.prediction}" if tree.classes is not None else f"→ {fmt(node.prediction)}"
    elif collapsed:
        below = tree.leaves_below(node)
        cls, fill, first = "node collapsed", None, f"… {below} leaves below"
        details += f"\n(subtree of {below} leaves, see the outline)"
    else:
        cls, fill, first = "node", None, node.condition
    svg.rect(x, top, BOX_W, BOX_H, cls=cls, fill=fill, rx=5, title=details)
    lines = [(first, "node-title"), (f"samples {node.n_samples}", "node-text"),
             (f"{tree.criterion} {node.impurity:.3g}", "node-text"), (value, "node-text")]
    for i, (text, text_cls) in enumerate(lines):
        svg.text(cx, top + 14 + i * 13.5, truncate(text, BOX_W - 8), anchor="middle", cls=text_cls, title=text)


def _leaf_fill(tree: TreeExplanation, node: TreeNode) -> str:
    if tree.classes is not None:
        return LEAF_COLOURS[tree.classes.index(node.prediction) % len(LEAF_COLOURS)]
    leaves = [n.value[0] for n in tree.nodes if n.is_leaf]
    low, high = min(leaves), max(leaves)
    share = 0.5 if high == low else (node.value[0] - low) / (high - low)
    # white → orange ramp for regression leaves: darker = larger predicted value
    r, g, b = (255, int(245 - 110 * share), int(235 - 190 * share))
    return f"#{r:02x}{g:02x}{b:02x}"
