"""The PrDT tree diagram: boxes with test, traffic, impurity and value; branch width ∝ traffic.

As in the Primo paper's LinnOS and Pensieve figures, the width of the arrow into a node is
proportional to the share of training rows that reach it.

A tree wider than the page is split into *panels* that each fit it at a readable scale: the first
panel starts at the root and opens its busiest splits (up to ``max_depth`` levels down) while the
bottom row fits in ``max_slots`` boxes side by side; every subtree cut off there continues in a
panel of its own, numbered, with the path of tests that leads to it. Scaling the whole tree down instead makes its text unreadable
(the committed Pensieve tree was 3,920 px wide), and a scroll box hides the root.

Example
-------
>>> panels = tree_panels(explain_tree(prdt), max_depth=6)  # doctest: +SKIP
>>> panels[0].root.id, [p.root.id for p in panels[1:]]      # doctest: +SKIP
(0, [5, 12])
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from markupsafe import Markup

from primo.explain.tree import TreeExplanation, TreeNode
from primo.report.svg import Svg, fmt, truncate

BOX_W, BOX_H, GAP_X, LEVEL_H, MAX_EDGE_PX = 148, 74, 12, 112, 16
# 8 boxes side by side make a 1,292 px figure: 0.82 of it on the report's 1,064 px column (11 px text
# stays ≥ 9 px), so no panel needs a scroll bar.
MAX_SLOTS = 8
MAX_PANELS = 40  # beyond that, subtrees are left to the outline (a page of 40 diagrams is already long)
LEAF_COLOURS = ["#dbe9f6", "#fde0c5", "#d9f0d3", "#f2d7e6", "#e6e0f3", "#f7f0c6", "#d4eeee", "#eadccf"]


def node_value_text(node: TreeNode, classes) -> str:
    """``"A 12% · B 88%"`` for a classifier (top 3 classes), ``"value 4.25"`` for a regressor."""
    if classes is None:
        return f"value {fmt(float(node.value[0]))}"
    order = np.argsort(node.value)[::-1][:3]
    return " · ".join(f"{classes[k]} {node.value[k]:.0%}" for k in order if node.value[k] > 0)


@dataclass(frozen=True)
class TreePanel:
    """One diagram of a tree split into panels.

    ``number`` counts panels from 1 (the root's); ``root`` is the node the panel starts at, ``expanded``
    the ids of the splits whose children it draws, ``path`` the tests from the tree's root down to ``root`` (empty for
    the first panel), ``continued`` maps each node whose subtree is cut off here to the number of the
    panel that draws it (None when it is left to the outline), and ``svg`` is the drawing.
    """

    number: int
    root: TreeNode
    expanded: frozenset[int]
    path: tuple[str, ...]
    continued: dict[int, int | None]
    svg: Markup


def expanded_splits(tree: TreeExplanation, root: TreeNode, max_depth: int, max_slots: int = MAX_SLOTS) -> set[int]:
    """The splits below ``root`` whose children a panel draws: the busiest first (most training rows),
    as long as the bottom row stays within ``max_slots`` boxes and ``max_depth`` levels of ``root``.

    Expanding by traffic shows the paths most rows take deepest, as the paper's figures do; the
    rest continue in other panels.

    Example
    -------
    >>> tree = explain_tree(prdt)                        # doctest: +SKIP
    >>> 0 in expanded_splits(tree, tree.root, 4)        # doctest: +SKIP
    True
    """
    expanded: set[int] = set()
    frontier, slots = [root], 1
    while True:
        candidates = [n for n in frontier if not n.is_leaf and n.depth - root.depth < max_depth]
        if not candidates or slots + 1 > max_slots and expanded:
            return expanded
        busiest = max(candidates, key=lambda n: (n.n_samples, -n.id))
        expanded.add(busiest.id)
        frontier.remove(busiest)
        frontier.extend(tree.children(busiest))
        slots += 1


def tree_panels(tree: TreeExplanation, *, max_depth: int = 4, max_slots: int = MAX_SLOTS,
                max_panels: int = MAX_PANELS) -> list[TreePanel]:
    """The tree as panels that each fit the page: the root's first, then the cut-off subtrees breadth-first.

    Parameters
    ----------
    tree : a :func:`~primo.explain.explain_tree` result.
    max_depth : most levels drawn below a panel's root.
    max_slots : most boxes side by side in a panel.
    max_panels : most panels; subtrees beyond are left to the report's outline.
    """
    plan: list[tuple[TreeNode, set[int]]] = [(tree.root, expanded_splits(tree, tree.root, max_depth, max_slots))]
    continued: list[dict[int, int | None]] = []
    number_of: dict[int, int] = {}
    position = 0
    while position < len(plan):
        node, expanded = plan[position]
        cut = {}
        for frontier in _cut_off(tree, node, expanded):
            if len(plan) < max_panels:
                plan.append((frontier, expanded_splits(tree, frontier, max_depth, max_slots)))
                number_of[frontier.id] = len(plan)
            cut[frontier.id] = number_of.get(frontier.id)
        continued.append(cut)
        position += 1
    return [TreePanel(number=i + 1, root=node, expanded=frozenset(expanded), path=tuple(path_to(tree, node)),
                      continued=cut,
                      svg=tree_diagram(tree, root=node, expanded=expanded, continued=cut,
                                       label="tree diagram" if i == 0 else f"subtree {i + 1} of the tree diagram"))
            for i, ((node, expanded), cut) in enumerate(zip(plan, continued))]


def _cut_off(tree: TreeExplanation, node: TreeNode, expanded: set[int]) -> list[TreeNode]:
    """Splits at the bottom of a panel (not expanded), left to right: their subtrees are cut off."""
    if node.is_leaf:
        return []
    if node.id not in expanded:
        return [node]
    return [n for child in tree.children(node) for n in _cut_off(tree, child, expanded)]


def path_to(tree: TreeExplanation, node: TreeNode) -> list[str]:
    """The tests (branch conditions) a row passes from the root to ``node``."""
    steps = []
    while node.parent >= 0:
        parent = tree.nodes[node.parent]
        steps.append(parent.left_condition if node.id == parent.left else parent.right_condition)
        node = parent
    return [step or "?" for step in reversed(steps)]


def tree_diagram(tree: TreeExplanation, *, root: TreeNode, expanded: set[int],
                 continued: dict[int, int | None] | None = None, label: str = "tree diagram") -> Markup:
    """Draw ``tree`` from ``root`` as SVG, opening the splits in ``expanded`` (see :func:`expanded_splits`).

    Other splits are drawn as one dashed box, naming the panel that continues them when
    ``continued`` maps their node id to a panel number. The SVG shrinks to the page's width.

    Example
    -------
    >>> tree = explain_tree(prdt)                                                    # doctest: +SKIP
    >>> svg = tree_diagram(tree, root=tree.root, expanded=expanded_splits(tree, tree.root, 3))  # doctest: +SKIP
    """
    continued = continued or {}
    slots: dict[int, float] = {}
    visible: list[TreeNode] = []
    next_slot = [0]

    def cut_off(node: TreeNode) -> bool:
        return node.id not in expanded

    def place(node: TreeNode) -> float:  # in-order leaf slots; parents centred over children
        visible.append(node)
        if node.is_leaf or cut_off(node):
            slots[node.id] = next_slot[0]
            next_slot[0] += 1
        else:
            left, right = tree.children(node)
            slots[node.id] = (place(left) + place(right)) / 2
        return slots[node.id]

    place(root)
    deepest = max(n.depth for n in visible) - root.depth
    width = next_slot[0] * (BOX_W + GAP_X) + GAP_X
    height = (deepest + 1) * LEVEL_H + 10
    svg = Svg(width, height, label=label)
    total = max(tree.root.n_samples, 1)

    def centre(node: TreeNode) -> tuple[float, float]:
        return GAP_X + slots[node.id] * (BOX_W + GAP_X) + BOX_W / 2, 6 + (node.depth - root.depth) * LEVEL_H

    for node in visible:  # edges first, under the boxes
        if node.is_leaf or cut_off(node):
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
        collapsed = not node.is_leaf and cut_off(node)
        _box(svg, tree, node, *centre(node), collapsed=collapsed, panel=continued.get(node.id) if collapsed else None)
    return svg.render()


def _box(svg: Svg, tree: TreeExplanation, node: TreeNode, cx: float, top: float, *, collapsed: bool,
         panel: int | None) -> None:
    x = cx - BOX_W / 2
    value = node_value_text(node, tree.classes)
    details = (f"node {node.id}: {node.condition or 'leaf'}\nsamples {node.n_samples}\n"
               f"{tree.criterion} {node.impurity:.4g}\n{value}\npredicts {node.prediction}")
    if node.is_leaf:
        cls, fill = "node leaf", _leaf_fill(tree, node)
        title = [f"→ {node.prediction}" if tree.classes is not None else f"→ {fmt(node.prediction)}"]
    elif collapsed:
        below = tree.leaves_below(node)
        where = f"subtree {panel}" if panel is not None else "the outline"
        cls, fill, title = "node collapsed", None, [f"… {below} leaves below", f"→ see {where}"]
        details += f"\n(subtree of {below} leaves, continued in {where})"
    else:
        cls, fill, title = "node", None, _condition_lines(node)
    svg.rect(x, top, BOX_W, BOX_H, cls=cls, fill=fill, rx=5, title=details)
    lines = [(text, "node-title") for text in title]
    lines += [(f"samples {node.n_samples}", "node-text"), (f"{tree.criterion} {node.impurity:.3g}", "node-text"),
              (value, "node-text")]
    for i, (text, text_cls) in enumerate(lines[:5]):
        svg.text(cx, top + 14 + i * 13.5, truncate(text, BOX_W - 8), anchor="middle", cls=text_cls, title=text)


def _condition_lines(node: TreeNode) -> list[str]:
    """A split's test on two lines, the feature's name then the rest (``<= 0.43``, ``in {a, b}``), so
    that long names and thresholds both fit a narrow box."""
    condition = node.condition or ""
    if node.feature and condition.startswith(node.feature + " "):
        return [node.feature, condition[len(node.feature) + 1:]]
    return [condition]


def _leaf_fill(tree: TreeExplanation, node: TreeNode) -> str:
    if tree.classes is not None:
        return LEAF_COLOURS[tree.classes.index(node.prediction) % len(LEAF_COLOURS)]
    leaves = [n.value[0] for n in tree.nodes if n.is_leaf]
    low, high = min(leaves), max(leaves)
    share = 0.5 if high == low else (node.value[0] - low) / (high - low)
    # white → orange ramp for regression leaves: darker = larger predicted value
    r, g, b = (255, int(245 - 110 * share), int(235 - 190 * share))
    return f"#{r:02x}{g:02x}{b:02x}"
