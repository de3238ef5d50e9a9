"""Provided: pictures of what the framework computes.

- `draw_graph` draws a computation graph as SVG in pure Python (no graphviz, no
  system binaries), so it works wherever the course runs (in `provided/graph_drawing.py`).
- `plot_*` draw decision boundaries, loss curves, attention, optimizer paths and
  activation histograms. matplotlib is imported only when a plot is drawn, so
  `import framework` stays fast.
- `show_broadcast` explains, step by step, how NumPy broadcasting lines shapes up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np

from .graph_drawing import SVGGraph, draw_graph

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["SVGGraph", "draw_graph", "plot_attention", "plot_contours", "plot_decision_boundary",
           "plot_histograms", "plot_loss_curve", "plot_paths", "show_broadcast"]

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
