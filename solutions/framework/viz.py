"""Provided: pictures of what the framework computes.

- `draw_graph` draws a computation graph as SVG in pure Python (no graphviz, no
  system binaries), so it works wherever the course runs.
- `plot_*` draw decision boundaries, loss curves, attention, optimizer paths and
  activation histograms. matplotlib is imported only when a plot is drawn, so
  `import framework` stays fast.
- `show_broadcast` explains, step by step, how NumPy broadcasting lines shapes up.

`draw_graph` needs nothing else from the framework: it reads the node protocol
(`parents`, `op`, `data`, `grad`, and `label` where there is one), so it draws the
scalar `Value` of chapter 1 and the `Tensor` of chapter 2 alike.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from numbers import Integral
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes

# -- drawing a computation graph -------------------------------------------------

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

    Layers follow the flow: a node's layer is its longest distance from the
    leaves, and a leaf then moves up to the layer just before its first consumer,
    so a bias added last sits next to its `+`. `rankdir` is "LR" (leaves on the
    left) or "TB" (leaves on top). The drawing depends only on the graph, so the
    same graph always gives the same text.
    """
    if rankdir not in ("LR", "TB"):
        raise ValueError(
            f"draw_graph: rankdir must be 'LR' (left to right) or 'TB' (top to bottom), "
            f"got {rankdir!r}"
        )
    order = _walk(root)
    index = {id(node): i for i, node in enumerate(order)}
    parents = [[index[id(parent)] for parent in node.parents] for node in order]
    layers = _layers(parents)
    texts = [_box_text(node, show_grad) for node in order]
    ops = [(getattr(node, "op", "") or "?") if node.parents else None for node in order]
    layout = _Layout(texts, ops, layers, horizontal=rankdir == "LR")
    return layout.render(parents)


def _walk(root) -> list:
    """Every node `root` depends on, parents before children, `root` last.

    An iterative depth-first search over `parents` in their stored order: the
    order depends only on the graph (never on memory addresses), and a chain of
    thousands of nodes does not hit Python's recursion limit. `id` only tells
    visited nodes apart. (Not the engine's `topological_order`: that is the learner's
    exercise 1.6, and the notebook draws graphs before it is written.)
    """
    order = []
    seen = {id(root)}
    stack = [(root, iter(root.parents))]
    while stack:
        node, pending = stack[-1]
        for parent in pending:
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append((parent, iter(parent.parents)))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def _layers(parents: list[list[int]]) -> list[int]:
    """Each node's layer, from the parent indices of nodes in topological order."""
    layer = [0] * len(parents)
    for i, ps in enumerate(parents):
        if ps:
            layer[i] = 1 + max(layer[p] for p in ps)
    # Leaves all start in layer 0; move each to just before its first consumer,
    # which shortens edges without making any edge point backwards.
    first_use = {}
    for i, ps in enumerate(parents):
        for p in ps:
            if not parents[p]:
                first_use[p] = min(first_use.get(p, layer[i]), layer[i])
    for leaf, use in first_use.items():
        layer[leaf] = use - 1
    return layer


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
        """Nodes of a layer side by side in walk order, each layer centred."""
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
        root = len(parents) - 1
        nodes += [self._box(i, is_leaf=not ps, is_root=i == root) for i, ps in enumerate(parents)]
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


# -- plots -------------------------------------------------------------------------


def _axes(ax: Axes | None) -> Axes:
    """`ax`, or the axes of a new figure: pyplot is imported only when a plot is drawn."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    return ax


def plot_decision_boundary(
    predict: Callable[[np.ndarray], np.ndarray],
    X: np.ndarray,
    y: np.ndarray,
    ax: Axes | None = None,
    resolution: int = 200,
    padding: float = 0.5,
) -> Axes:
    """Colour the plane by what `predict` says about each point, with the data on top.

    `predict` maps grid points, an (M, 2) float32 array, to an (M,) array: class
    labels (whole numbers), which fill each class's region with its colour, or
    scores for class 1 (a probability in [0, 1], or a logit), which shade from
    class 0's colour to class 1's, with the decision boundary (0.5 or 0) in black.
    The grid spans the data plus `padding` on every side, `resolution` points a side.
    """
    from matplotlib.colors import LinearSegmentedColormap, ListedColormap, Normalize

    X, y = np.asarray(X), np.asarray(y).ravel()
    if X.ndim != 2 or X.shape[1] != 2 or len(X) != len(y):
        raise ValueError(
            f"plot_decision_boundary: X must be (N, 2) and y (N,), got X {X.shape}, y {y.shape}"
        )
    ax = _axes(ax)
    low, high = X.min(axis=0) - padding, X.max(axis=0) + padding
    gx, gy = np.meshgrid(
        np.linspace(low[0], high[0], resolution), np.linspace(low[1], high[1], resolution)
    )
    grid = np.stack([gx.ravel(), gy.ravel()], axis=1).astype(np.float32)
    z = np.asarray(predict(grid), dtype=np.float64)
    if z.size != len(grid):
        raise ValueError(
            f"plot_decision_boundary: predict returned shape {z.shape} for {len(grid)} points; "
            "return one label or score per point, e.g. lambda p: model(p).argmax(axis=1)"
        )
    z = z.reshape(gx.shape)
    if np.all(z == np.round(z)):
        classes = np.unique(np.concatenate([y, z.ravel()]))
        colours = [f"C{k % 10}" for k in range(len(classes))]
        # One filled band per class: the levels sit halfway between class indices.
        ax.contourf(
            gx,
            gy,
            np.searchsorted(classes, z),
            levels=np.arange(len(classes) + 1) - 0.5,
            cmap=ListedColormap(colours),
            alpha=0.35,
        )
    else:
        classes = np.unique(y)
        colours = [f"C{k % 10}" for k in range(len(classes))]
        threshold = 0.5 if z.min() >= 0 and z.max() <= 1 else 0.0
        # Centre the colour scale on the threshold, so white marks the boundary.
        half = max(abs(z.max() - threshold), abs(z.min() - threshold)) or 1.0
        shading = LinearSegmentedColormap.from_list("boundary", [colours[0], "white", colours[-1]])
        norm = Normalize(threshold - half, threshold + half)
        ax.contourf(gx, gy, z, levels=20, cmap=shading, norm=norm, alpha=0.6)
        if z.min() < threshold < z.max():
            ax.contour(gx, gy, z, levels=[threshold], colors="black", linewidths=1)
    point_colours = [colours[k] for k in np.searchsorted(classes, y)]
    ax.scatter(X[:, 0], X[:, 1], c=point_colours, s=16, edgecolors="black", linewidths=0.5)
    return ax


def plot_loss_curve(
    losses: Sequence[float],
    ax: Axes | None = None,
    label: str | None = None,
    logy: bool = False,
    smooth: int = 0,
) -> Axes:
    """The loss at each step; with `smooth` > 1, a moving average over that many steps
    drawn over the faded raw curve (minibatch losses are noisy)."""
    losses = np.asarray(losses, dtype=np.float64).ravel()
    ax = _axes(ax)
    steps = np.arange(len(losses))
    window = min(smooth, len(losses))
    if window > 1:
        (raw,) = ax.plot(steps, losses, alpha=0.3)
        average = np.convolve(losses, np.ones(window) / window, mode="valid")
        # Each average belongs to the last step of its window: it never sees the future.
        ax.plot(steps[window - 1 :], average, color=raw.get_color(), label=label)
    else:
        ax.plot(steps, losses, label=label)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    if label is not None:
        ax.legend()
    return ax


def plot_attention(
    weights: np.ndarray,
    x_labels: Sequence[str],
    y_labels: Sequence[str],
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """Heat map of one head's attention: row i is how output i spreads over the inputs.

    `weights` is (T_out, T_in) with rows summing to 1, so the colour scale is fixed
    to [0, 1] and maps can be compared. Labels are usually characters; a space is
    shown as '␣' so it stays visible.
    """
    weights = np.asarray(weights)
    if weights.shape != (len(y_labels), len(x_labels)):
        raise ValueError(
            f"plot_attention: weights have shape {weights.shape}, but there are "
            f"{len(y_labels)} y_labels (outputs, rows) and {len(x_labels)} x_labels "
            "(inputs, columns); pass one head's (T_out, T_in) weights, e.g. weights[0, head]"
        )
    ax = _axes(ax)
    ax.imshow(weights, cmap="viridis", vmin=0.0, vmax=1.0)
    visible = lambda labels: ["␣" if s == " " else s for s in labels]
    ax.set_xticks(range(len(x_labels)), labels=visible(x_labels), fontfamily="monospace")
    ax.set_yticks(range(len(y_labels)), labels=visible(y_labels), fontfamily="monospace")
    ax.set_xlabel("input")
    ax.set_ylabel("output")
    if title is not None:
        ax.set_title(title)
    return ax


def plot_contours(
    f: Callable[[np.ndarray, np.ndarray], np.ndarray],
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    ax: Axes | None = None,
    levels: int = 30,
    log: bool = True,
) -> Axes:
    """Contour lines of f(x, y) over a box; `f` works elementwise on NumPy arrays.

    With `log`, the lines follow log(1 + f - min f), so they stay spread out down
    a narrow valley such as Rosenbrock's instead of crowding its steep walls.
    """
    ax = _axes(ax)
    x, y = np.meshgrid(np.linspace(*xlim, 200), np.linspace(*ylim, 200))
    z = np.asarray(f(x, y), dtype=np.float64)
    if log:
        z = np.log1p(z - z.min())
    ax.contour(x, y, z, levels=levels, cmap="viridis", linewidths=0.8)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return ax


def plot_paths(paths: dict[str, np.ndarray], ax: Axes | None = None) -> Axes:
    """Each optimizer's path, a (steps, 2) array of points: a dot at every step,
    a circle where it started and a cross where it ended."""
    ax = _axes(ax)
    for name, path in paths.items():
        path = np.asarray(path)
        if path.ndim != 2 or path.shape[1] != 2:
            raise ValueError(f"plot_paths: path {name!r} must be (steps, 2), got {path.shape}")
        (line,) = ax.plot(path[:, 0], path[:, 1], marker=".", markersize=3, lw=1, label=name)
        ax.plot(path[0, 0], path[0, 1], marker="o", color=line.get_color())
        ax.plot(path[-1, 0], path[-1, 1], marker="x", markersize=9, color=line.get_color())
    ax.legend()
    return ax


def plot_histograms(arrays: dict[str, np.ndarray], ax: Axes | None = None, bins: int = 50) -> Axes:
    """Overlaid histograms of each array's values (say, each layer's activations),
    on shared bins and as densities, so arrays of any size compare; the legend
    gives each mean and standard deviation."""
    ax = _axes(ax)
    flat = {name: np.asarray(a, dtype=np.float64).ravel() for name, a in arrays.items()}
    edges = np.histogram_bin_edges(np.concatenate(list(flat.values())), bins=bins)
    for name, values in flat.items():
        label = f"{name}: mean {values.mean():+.2f}, std {values.std():.2f}"
        ax.hist(values, bins=edges, density=True, histtype="step", linewidth=1.2, label=label)
    ax.set_xlabel("value")
    ax.set_ylabel("density")
    ax.legend()
    return ax


# -- broadcasting, explained ---------------------------------------------------------


def show_broadcast(*shapes: tuple[int, ...] | int) -> str:
    """Explain step by step how NumPy broadcasts `shapes`; print the text it returns.

    Right-align the shapes, padding the shorter ones with leading 1s; then, on each
    axis from the right, the sizes must be equal or 1, and a 1 stretches to the
    other size. The text ends with the result shape, or names each axis whose
    sizes clash: `print(show_broadcast((3, 1), (4,)))` ends with "Result: (3, 4)".
    It agrees with `np.broadcast_shapes`; an int stands for a 1-D shape, as there.
    """
    if not shapes:
        raise ValueError(
            "show_broadcast: give at least one shape, e.g. show_broadcast((3, 1), (4,))"
        )
    shapes = tuple((s,) if isinstance(s, Integral) else tuple(s) for s in shapes)
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + s for s in shapes]
    names = [str(s) for s in shapes]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    lines = [
        f"Broadcasting {listed}",
        "",
        "1. Right-align the shapes; pad the shorter ones with leading 1s:",
        "",
        *_shape_table(shapes, padded),
        "",
        "2. Compare each axis, from the right: sizes must be equal, or 1 (which stretches):",
        "",
    ]
    result, clashes = [], []
    for axis in range(-1, -ndim - 1, -1):
        sizes = [p[axis] for p in padded]
        others = list(dict.fromkeys(n for n in sizes if n != 1))  # distinct, in order
        if len(others) > 1:
            sizes_text = " vs ".join(str(n) for n in others)
            lines.append(f"   axis {axis}: MISMATCH: {sizes_text}")
            clashes.append(f"axis {axis} has {sizes_text}")
        elif others and 1 in sizes:
            lines.append(f"   axis {axis}: 1 stretches to {others[0]}")
        else:
            lines.append(f"   axis {axis}: equal ({sizes[0]})")
        result.append(others[0] if others else 1)
    if ndim == 0:
        lines.append("   (no axes: every shape is a scalar)")
    lines.append("")
    if clashes:
        lines.append("Result: these shapes do not broadcast: " + "; ".join(clashes))
    else:
        lines.append(f"Result: {tuple(reversed(result))}")
    return "\n".join(lines)


def _shape_table(shapes: tuple[tuple[int, ...], ...], padded: list[tuple[int, ...]]) -> list[str]:
    """One row per shape, one column per axis, headed by negative axis numbers."""
    ndim = len(padded[0])
    header = [str(axis) for axis in range(-ndim, 0)]
    columns = list(zip(header, *padded, strict=True))
    widths = [max(len(str(cell)) for cell in column) for column in columns]
    names = [str(s) for s in shapes]
    name_width = max(len("axis"), *(len(name) for name in names))

    def row(name: str, cells: tuple, note: str = "") -> str:
        body = "  ".join(str(c).rjust(w) for c, w in zip(cells, widths, strict=True))
        return f"   {name.rjust(name_width)}   {body}{note}".rstrip()

    rows = [row("axis", tuple(header))]
    for name, shape, full in zip(names, shapes, padded, strict=True):
        rows.append(row(name, full, f"   <- padded to {full}" if full != shape else ""))
    return rows
