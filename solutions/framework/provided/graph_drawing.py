"""Provided: `draw_graph`, a computation graph as SVG in pure Python (no graphviz, no system
binaries), exported by `framework.viz`.

It needs nothing else from the framework: it reads the node protocol (`parents`, `op`,
`data`, `grad`, and `label` where there is one), so it draws the scalar `Value` of chapter 1
and the `Tensor` of chapter 2 alike.
"""

from __future__ import annotations

import math
import os
from collections import deque
from pathlib import Path
from xml.sax.saxutils import escape

__all__ = ["SVGGraph", "draw_graph"]

# There is no renderer to measure text with, so boxes are sized for a monospace
# font, whose glyphs are all about 0.6 em wide.
_FONT_SIZE = 12
_CHAR_WIDTH = 0.6 * _FONT_SIZE
_LINE_HEIGHT = 16
_PAD = 8  # between a box's border and its text
_OP_RADIUS = 13  # half the height of an op's ellipse
_MARGIN = 16
_OP_GAP = 20  # from an op to the node it produces: room for an arrow
_LAYER_GAP = 56  # from one layer's boxes to the next layer's ops: room for edges to bend
_ROW_GAP = 16
_ARROW = 7  # length of an arrowhead


class SVGGraph:
    """An SVG drawing: Jupyter shows it inline, `.svg` is its text, `save` writes it."""

    def __init__(self, svg: str, width: float, height: float) -> None:
        self.svg = svg
        self.width = width
        self.height = height

    def _repr_svg_(self) -> str:
        return self.svg

    def save(self, path: str | os.PathLike) -> None:
        """Write the drawing to `path` (open it in a browser, or embed it in a page)."""
        Path(path).write_text(self.svg, encoding="utf-8")

    def __repr__(self) -> str:
        return f"SVGGraph(width={self.width:g}, height={self.height:g})"


def draw_graph(root, show_grad: bool = True, rankdir: str = "LR") -> SVGGraph:
    """Draw the computation graph that ends at `root`, micrograd-style.

    Each node is a rounded box with its label (if any), its data (a scalar to 4
    significant digits, an array as its shape and dtype) and, if `show_grad`, its
    grad. A node computed by an op has a small ellipse naming the op in front of
    it; arrows run from each parent to that ellipse, one per argument in argument
    order (so `a * a` shows two arrows), and from the ellipse to the node. Leaves
    are shaded.

    Layers follow the flow and are counted back from the root: a node sits as many
    layers before the root as its longest path to it has steps, so every arrow points
    forward and each node sits just before its first consumer (a bias added last is
    next to its `+`). `rankdir` is "LR" (leaves on the left) or "TB" (leaves on top).
    The drawing depends only on the graph, so the same graph always gives the same
    text.
    """
    if rankdir not in ("LR", "TB"):
        raise ValueError(
            f"draw_graph: rankdir must be 'LR' (left to right) or 'TB' (top to bottom), "
            f"got {rankdir!r}"
        )
    nodes = _nodes(root)
    index = {id(node): i for i, node in enumerate(nodes)}
    parents = [[index[id(parent)] for parent in node.parents] for node in nodes]
    layers = _layers(parents)
    texts = [_box_text(node, show_grad) for node in nodes]
    ops = [(getattr(node, "op", "") or "?") if node.parents else None for node in nodes]
    layout = _Layout(texts, ops, layers, horizontal=rankdir == "LR")
    return layout.render(parents)


def _nodes(root) -> list:
    """Every node `root` depends on, each once: `root` first, then breadth first along
    `parents` in their stored order, so the order depends only on the graph (never on
    memory addresses: `id` only tells nodes apart)."""
    nodes, seen = [root], {id(root)}
    for node in nodes:  # the list grows while it is read: it is the queue
        for parent in node.parents:
            if id(parent) not in seen:
                seen.add(id(parent))
                nodes.append(parent)
    return nodes


def _layers(parents: list[list[int]]) -> list[int]:
    """Each node's layer, from the parent indices of the nodes (node 0 the root).

    A node's depth is its longest distance from the root: depths start at 0 and are raised
    until depth(parent) ≥ depth(child) + 1 holds on every edge. Each raise is to the length
    of a longer path, so a node is raised at most once per length of its paths to the root:
    quadratic at worst, and drawn graphs are small. The layer is the depth counted back from
    the deepest, so every arrow points forward.
    """
    depth = [0] * len(parents)
    pending = deque([0])  # the nodes whose depth rose: their parents may have to follow
    while pending:
        child = pending.popleft()
        for parent in parents[child]:
            if depth[parent] <= depth[child]:
                depth[parent] = depth[child] + 1
                if depth[parent] >= len(parents):  # a path longer than the graph: a loop
                    raise ValueError(
                        "draw_graph: the nodes' parents form a cycle, which no computation "
                        "graph has; was a node's `parents` changed after it was made?"
                    )
                pending.append(parent)
    deepest = max(depth)
    return [deepest - d for d in depth]


def _format(x) -> str:
    """A scalar to 4 significant digits; an array as its shape and dtype."""
    shape = getattr(x, "shape", ())
    dtype = getattr(x, "dtype", None)
    if shape:
        return f"shape {tuple(shape)} {dtype}"
    text = f"{x:.4g}"
    return f"{text} {dtype}" if dtype is not None else text


def _box_text(node, show_grad: bool) -> tuple[str, list[str]]:
    """The label (or '') and the lines below it: data, and grad if asked for and set."""
    lines = [f"data {_format(node.data)}"]
    if show_grad and node.grad is not None:
        lines.append(f"grad {_format(node.grad)}")
    return getattr(node, "label", ""), lines


def _num(x: float) -> str:
    """A coordinate to one decimal: plenty for pixels, and short, stable text."""
    return f"{x:.1f}"


class _Layout:
    """Where each box and ellipse goes, and the SVG that draws them.

    Positions are worked out along the flow (x for "LR", y for "TB") and across
    it, so one piece of code serves both directions; `_xy` turns them into x, y.
    """

    def __init__(self, texts, ops, layers, horizontal: bool) -> None:
        self.texts, self.ops, self.horizontal = texts, ops, horizontal
        self.box_size = [_text_size(label, lines) for label, lines in texts]
        self.op_size = [None if op is None else _ellipse_size(op) for op in ops]
        self._place_along(layers)
        self._place_across(layers)

    def _along(self, size):
        return size[0] if self.horizontal else size[1]

    def _across(self, size):
        return size[1] if self.horizontal else size[0]

    def _xy(self, along: float, across: float) -> tuple[float, float]:
        return (along, across) if self.horizontal else (across, along)

    def _place_along(self, layers) -> None:
        """Each layer is a band: its ops, then its boxes, all boxes starting level."""
        count = max(layers) + 1
        op_band, box_band = [0.0] * count, [0.0] * count
        for i, layer in enumerate(layers):
            box_band[layer] = max(box_band[layer], self._along(self.box_size[i]))
            if self.op_size[i] is not None:
                op_band[layer] = max(op_band[layer], self._along(self.op_size[i]))
        op_center, box_start = [], []
        cursor = _MARGIN
        for layer in range(count):
            op_center.append(cursor + op_band[layer] / 2)
            if op_band[layer]:
                cursor += op_band[layer] + _OP_GAP
            box_start.append(cursor)
            cursor += box_band[layer] + _LAYER_GAP
        self.length = cursor - _LAYER_GAP + _MARGIN
        self.op_center = [op_center[layer] for layer in layers]
        self.box_start = [box_start[layer] for layer in layers]

    def _place_across(self, layers) -> None:
        """Nodes of a layer side by side in `_nodes`' order, each layer centred."""
        members: dict[int, list[int]] = {}
        for i, layer in enumerate(layers):
            members.setdefault(layer, []).append(i)
        sizes = self.box_size + [size for size in self.op_size if size is not None]
        slot = max(self._across(size) for size in sizes)
        pitch = slot + _ROW_GAP
        widest = max(len(nodes) for nodes in members.values())
        self.center = [0.0] * len(layers)
        for nodes in members.values():
            offset = (widest - len(nodes)) / 2
            for k, i in enumerate(nodes):
                self.center[i] = _MARGIN + (k + offset) * pitch + slot / 2
        self.breadth = 2 * _MARGIN + widest * pitch - _ROW_GAP

    def render(self, parents) -> SVGGraph:
        width, height = self._xy(self.length, self.breadth)
        edges, nodes = [], []
        for i, ps in enumerate(parents):
            if self.ops[i] is None:
                continue
            for k, p in enumerate(ps):
                edges += self._edge_to_op(p, i, k, len(ps))
            edges += self._edge_from_op(i)
            nodes.append(self._ellipse(i))
        nodes += [self._box(i, is_leaf=not ps, is_root=i == 0) for i, ps in enumerate(parents)]
        svg = "\n".join(
            [
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{_num(width)}" '
                f'height="{_num(height)}" viewBox="0 0 {_num(width)} {_num(height)}" '
                f'font-family="monospace" font-size="{_FONT_SIZE}">',
                # An opaque background keeps black text readable in dark themes.
                '<rect class="background" width="100%" height="100%" fill="white"/>',
                '<g class="edges" stroke="#555" fill="#555">',
                *edges,
                "</g>",
                *nodes,
                "</svg>",
                "",
            ]
        )
        return SVGGraph(svg, width, height)

    def _edge_to_op(self, parent: int, child: int, k: int, n: int) -> list[str]:
        """A curve from the parent's box to the k-th of n entry points on the op."""
        a_along = self._along(self.op_size[child]) / 2
        a_across = self._across(self.op_size[child]) / 2
        # Spread the entry points over the middle of the ellipse's near side.
        offset = 0.0 if n == 1 else a_across * (k / (n - 1) - 0.5)
        end_across = self.center[child] + offset
        end_along = self.op_center[child] - a_along * math.sqrt(1 - (offset / a_across) ** 2)
        start = (self.box_start[parent] + self._along(self.box_size[parent]), self.center[parent])
        return self._arrow(start, (end_along, end_across))

    def _edge_from_op(self, i: int) -> list[str]:
        start = self.op_center[i] + self._along(self.op_size[i]) / 2
        return self._arrow((start, self.center[i]), (self.box_start[i], self.center[i]))

    def _arrow(self, start, end) -> list[str]:
        """An S-curve (straight when level) that leaves and enters along the flow."""
        base = end[0] - _ARROW
        bend = (base - start[0]) / 2
        points = [start, (start[0] + bend, start[1]), (base - bend, end[1]), (base, end[1])]
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = (self._xy(*p) for p in points)
        path = (
            f'<path class="edge" fill="none" d="M {_num(x0)} {_num(y0)} C {_num(x1)} {_num(y1)} '
            f'{_num(x2)} {_num(y2)} {_num(x3)} {_num(y3)}"/>'
        )
        tip = [(end[0], end[1]), (base, end[1] - _ARROW / 2), (base, end[1] + _ARROW / 2)]
        corners = " ".join(f"{_num(x)},{_num(y)}" for x, y in (self._xy(*p) for p in tip))
        return [path, f'<polygon class="arrowhead" stroke="none" points="{corners}"/>']

    def _ellipse(self, i: int) -> str:
        x, y = self._xy(self.op_center[i], self.center[i])
        rx, ry = self.op_size[i][0] / 2, self.op_size[i][1] / 2
        return (
            f'<ellipse class="op" cx="{_num(x)}" cy="{_num(y)}" rx="{_num(rx)}" ry="{_num(ry)}" '
            f'fill="#fdf1c7" stroke="#333"/>\n'
            f'<text x="{_num(x)}" y="{_num(y + 4)}" text-anchor="middle">'
            f"{escape(self.ops[i])}</text>"
        )

    def _box(self, i: int, is_leaf: bool, is_root: bool) -> str:
        w, h = self.box_size[i]
        left, top = self._xy(self.box_start[i], self.center[i] - self._across((w, h)) / 2)
        fill = "#e3edfb" if is_leaf else "white"
        stroke_width = 2 if is_root else 1
        parts = [
            f'<rect class="node" x="{_num(left)}" y="{_num(top)}" width="{_num(w)}" '
            f'height="{_num(h)}" rx="6" fill="{fill}" stroke="#333" '
            f'stroke-width="{stroke_width}"/>'
        ]
        label, lines = self.texts[i]
        rows = ([(label, ' font-weight="bold"')] if label else []) + [(s, "") for s in lines]
        for k, (text, style) in enumerate(rows):
            y = top + _PAD + k * _LINE_HEIGHT + _FONT_SIZE
            parts.append(
                f'<text x="{_num(left + w / 2)}" y="{_num(y)}" text-anchor="middle"{style}>'
                f"{escape(text)}</text>"
            )
        return "\n".join(parts)


def _text_size(label: str, lines: list[str]) -> tuple[float, float]:
    rows = ([label] if label else []) + lines
    width = max(len(row) for row in rows) * _CHAR_WIDTH + 2 * _PAD
    return width, len(rows) * _LINE_HEIGHT + 2 * _PAD


def _ellipse_size(op: str) -> tuple[float, float]:
    """Width and height of an op's ellipse: a circle for short names, wider for long ones."""
    return max(2 * _OP_RADIUS + 6, len(op) * _CHAR_WIDTH + 16), 2 * _OP_RADIUS
