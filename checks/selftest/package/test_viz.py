"""Selftests of the provided `framework.viz`: graph drawing, plots, `show_broadcast`."""

from __future__ import annotations

import importlib
import subprocess
import sys
import xml.etree.ElementTree as ET

import matplotlib
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import (
    BroadcastableShapes,
    array_shapes,
    mutually_broadcastable_shapes,
)

from checks.loader import impl_folder, load_framework

matplotlib.use("Agg")  # draw off-screen: no display needed, nothing pops up
import matplotlib.pyplot as plt  # noqa: E402  (only after the backend is chosen)

fw = load_framework("solutions")
viz = importlib.import_module(f"{fw.__name__}.viz")
graph_drawing = importlib.import_module(f"{fw.__name__}.graph_drawing")

SVG = "{http://www.w3.org/2000/svg}"


class Node:
    """The node protocol and nothing more: what `draw_graph` may rely on."""

    __slots__ = ("data", "grad", "parents", "grad_fn", "op", "label")

    def __init__(self, data, parents=(), op="", label="", grad=None):
        self.data, self.grad, self.parents, self.op, self.label = data, grad, parents, op, label
        self.grad_fn = (lambda g: (g,) * len(parents)) if parents else None


def neuron() -> Node:
    """tanh(x1*w1 + x2*w2 + b), micrograd's example: 10 nodes, 5 leaves and 5 computed."""
    x1, w1 = Node(2.0, label="x1"), Node(-3.0, label="w1")
    x2, w2 = Node(0.0, label="x2"), Node(1.0, label="w2")
    b = Node(6.8813735, label="b")
    a = Node(-6.0, (x1, w1), "*")
    c = Node(0.0, (x2, w2), "*")
    s = Node(-6.0, (a, c), "+")
    n = Node(0.8814, (s, b), "+", label="n")
    return Node(0.7071, (n,), "tanh", label="out", grad=1.0)


def parse(graph) -> ET.Element:
    return ET.fromstring(graph.svg)


def boxes(root: ET.Element) -> list[ET.Element]:
    return root.findall(f".//{SVG}rect[@class='node']")


def texts(root: ET.Element) -> list[str]:
    return [t.text for t in root.iter(f"{SVG}text")]


# -- draw_graph ------------------------------------------------------------------


def test_graph_svg_parses_as_xml_with_an_svg_root():
    assert parse(viz.draw_graph(neuron())).tag == f"{SVG}svg"


def test_graph_has_one_box_per_node():
    assert len(boxes(parse(viz.draw_graph(neuron())))) == 10


def test_graph_has_one_ellipse_per_op_node():
    ellipses = parse(viz.draw_graph(neuron())).findall(f".//{SVG}ellipse[@class='op']")
    assert len(ellipses) == 5


def test_graph_has_one_edge_per_argument_plus_one_per_op():
    x = Node(3.0, label="x")
    square = Node(9.0, (x, x), "*")  # x used twice: two arrows
    edges = parse(viz.draw_graph(square)).findall(f".//{SVG}path[@class='edge']")
    assert len(edges) == 2 + 1


def test_graph_is_deterministic_for_identically_built_graphs():
    assert viz.draw_graph(neuron()).svg == viz.draw_graph(neuron()).svg
    first = neuron()
    _padding = [Node(0.0) for _ in range(100)]  # so the second graph's nodes lie elsewhere
    assert viz.draw_graph(first).svg == viz.draw_graph(neuron()).svg


def test_graph_lists_nodes_breadth_first_from_the_root_in_parents_order():
    labels = [t.text for t in parse(viz.draw_graph(neuron())).iter(f"{SVG}text")
              if t.get("font-weight") == "bold"]
    assert labels == ["out", "n", "b", "x1", "w1", "x2", "w2"]  # out, n, s, b, a, c, x1, ...


def edge_ends(svg: ET.Element, rankdir: str) -> list[tuple[float, float]]:
    """Where each arrow starts and ends along the flow (x for "LR", y for "TB")."""
    axis = 0 if rankdir == "LR" else 1
    ends = []
    for path in svg.findall(f".//{SVG}path[@class='edge']"):
        words = path.get("d").replace("M", "").replace("C", "").split()
        points = [(float(words[k]), float(words[k + 1])) for k in range(0, len(words), 2)]
        ends.append((points[0][axis], points[-1][axis]))
    return ends


def skip_connection() -> Node:
    """x feeds tanh(tanh(tanh(x))) and the final + directly: x is an edge of 1 and of 4 steps."""
    x = Node(0.5, label="x")
    h = x
    for _ in range(3):
        h = Node(0.0, (h,), "tanh")
    diamond = Node(0.0, (h, Node(0.0, (h,), "exp")), "*")
    return Node(0.0, (diamond, x), "+", label="out")


@pytest.mark.parametrize("rankdir", ["LR", "TB"])
@pytest.mark.parametrize("make", [neuron, skip_connection])
def test_every_arrow_points_forward(make, rankdir):
    ends = edge_ends(parse(viz.draw_graph(make(), rankdir=rankdir)), rankdir)
    assert ends and all(start < end for start, end in ends)


def test_a_node_sits_one_layer_before_its_first_consumer():
    """Layers are longest distances from the root: every edge goes from a strictly deeper
    layer, and a node's deepest consumer is exactly one layer shallower than it."""
    parents = [[1, 5], [2, 3], [4], [4], [5], []]  # node 0 the root; 5 is read by 0 and by 4
    layers = graph_drawing._layers(parents)
    assert layers[0] == max(layers)
    for child, ps in enumerate(parents):
        assert all(layers[p] < layers[child] for p in ps)
    for node in range(1, len(parents)):
        consumers = [c for c, ps in enumerate(parents) if node in ps]
        assert layers[node] == min(layers[c] for c in consumers) - 1
    assert layers == [4, 3, 2, 2, 1, 0]


def test_graph_refuses_a_cycle_instead_of_looping():
    a = Node(1.0)
    b = Node(2.0, (a,), "exp")
    a.parents = (b,)
    with pytest.raises(ValueError, match="cycle"):
        viz.draw_graph(b)


def test_graph_draws_a_3000_node_chain_without_recursion():
    node = Node(0.0)
    for _ in range(2999):
        node = Node(0.0, (node,), "tanh")
    svg = parse(viz.draw_graph(node))
    assert len(boxes(svg)) == 3000
    assert all(start < end for start, end in edge_ends(svg, "LR"))


def test_graph_escapes_xml_in_labels_and_ops():
    root = Node(1.0, (Node(2.0, label="a<b & c"),), op="<&>")
    drawn = texts(parse(viz.draw_graph(root)))
    assert "a<b & c" in drawn
    assert "<&>" in drawn


def test_graph_formats_scalars_to_4_significant_digits():
    assert "data 3.142" in texts(parse(viz.draw_graph(Node(3.14159265))))


def test_graph_shows_arrays_as_shape_and_dtype():
    root = Node(np.zeros((3, 4), np.float32), grad=np.ones((3, 4), np.float32))
    drawn = texts(parse(viz.draw_graph(root)))
    assert "data shape (3, 4) float32" in drawn
    assert "grad shape (3, 4) float32" in drawn


def test_graph_shows_grad_only_when_asked_and_set():
    assert "grad 0.5" in texts(parse(viz.draw_graph(Node(1.0, grad=0.5))))
    assert not any("grad" in t for t in texts(parse(viz.draw_graph(Node(1.0)))))
    hidden = texts(parse(viz.draw_graph(Node(1.0, grad=0.5), show_grad=False)))
    assert not any("grad" in t for t in hidden)


@pytest.mark.parametrize("rankdir", ["LR", "TB"])
def test_graph_boxes_do_not_overlap_and_fit_the_picture(rankdir):
    svg = parse(viz.draw_graph(neuron(), rankdir=rankdir))
    width, height = float(svg.get("width")), float(svg.get("height"))
    rects = [tuple(float(r.get(k)) for k in ("x", "y", "width", "height")) for r in boxes(svg)]
    for x, y, w, h in rects:
        assert 0 <= x and x + w <= width and 0 <= y and y + h <= height
    for i, (x, y, w, h) in enumerate(rects):
        for x2, y2, w2, h2 in rects[i + 1 :]:
            assert x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y


def test_graph_flows_from_leaves_to_root_in_both_directions():
    for rankdir, coordinate in [("LR", "x"), ("TB", "y")]:
        rects = boxes(parse(viz.draw_graph(neuron(), rankdir=rankdir)))
        positions = [float(r.get(coordinate)) for r in rects]
        (root,) = [r for r in rects if r.get("stroke-width") == "2"]  # the root's border
        assert float(root.get(coordinate)) == max(positions)  # furthest along
        leaves = [float(r.get(coordinate)) for r in rects if r.get("fill") != "white"]
        assert min(leaves) == min(positions)


def test_graph_rejects_an_unknown_rankdir():
    with pytest.raises(ValueError, match="rankdir"):
        viz.draw_graph(Node(1.0), rankdir="RL")


def test_svggraph_shows_in_jupyter_and_saves(tmp_path):
    graph = viz.draw_graph(neuron())
    assert graph._repr_svg_() == graph.svg
    graph.save(tmp_path / "g.svg")
    assert (tmp_path / "g.svg").read_text(encoding="utf-8") == graph.svg


def test_importing_framework_does_not_import_matplotlib():
    code = "import sys, framework; assert 'matplotlib' not in sys.modules"
    folder = str(impl_folder("solutions"))
    subprocess.run([sys.executable, "-c", code], cwd=folder, check=True)


# -- plots -----------------------------------------------------------------------


@pytest.fixture
def ax():
    figure, axes = plt.subplots()
    yield axes
    plt.close(figure)


MOONS_X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
MOONS_Y = np.array([0, 1, 1, 0])


def test_decision_boundary_passes_float32_grid_points_to_predict(ax):
    seen = []

    def predict(points):
        seen.append(points)
        return points[:, 0]

    viz.plot_decision_boundary(predict, MOONS_X, MOONS_Y, ax=ax, resolution=20)
    assert seen[0].shape == (400, 2) and seen[0].dtype == np.float32


@pytest.mark.parametrize(
    "predict",
    [lambda p: (p[:, 0] > 0.5).astype(np.int64), lambda p: p[:, 0] - 0.5],
    ids=["labels", "scores"],
)
def test_decision_boundary_draws_regions_and_points(ax, predict):
    out = viz.plot_decision_boundary(predict, MOONS_X, MOONS_Y, ax=ax, resolution=20)
    assert out is ax
    assert len(ax.collections) >= 2  # filled regions, then the points


def test_decision_boundary_explains_a_predict_with_the_wrong_shape(ax):
    with pytest.raises(ValueError, match="one label or score per point"):
        viz.plot_decision_boundary(lambda p: np.zeros((len(p), 2)), MOONS_X, MOONS_Y, ax=ax)


def test_loss_curve_draws_one_line(ax):
    assert viz.plot_loss_curve([3.0, 2.0, 1.5], ax=ax) is ax
    assert len(ax.lines) == 1


def test_loss_curve_smoothing_adds_a_moving_average(ax):
    viz.plot_loss_curve(np.arange(10.0), ax=ax, smooth=3, label="train")
    raw, average = ax.lines
    np.testing.assert_allclose(average.get_ydata(), np.arange(1.0, 9.0))
    assert average.get_color() == raw.get_color()


def test_loss_curve_log_scale(ax):
    viz.plot_loss_curve([1.0, 0.1], ax=ax, logy=True)
    assert ax.get_yscale() == "log"


def test_attention_labels_ticks_with_characters(ax):
    weights = np.full((2, 3), 1 / 3)
    viz.plot_attention(weights, list("a b"), list("xy"), ax=ax, title="head 0")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "␣", "b"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["x", "y"]
    assert len(ax.images) == 1 and ax.get_title() == "head 0"


def test_attention_rejects_labels_that_do_not_match_the_weights(ax):
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        viz.plot_attention(np.zeros((2, 3)), list("ab"), list("xy"), ax=ax)


def test_contours_and_paths_draw_an_optimizer_race(ax):
    rosenbrock = lambda x, y: (1 - x) ** 2 + 100 * (y - x**2) ** 2
    viz.plot_contours(rosenbrock, (-2, 2), (-1, 3), ax=ax)
    assert ax.collections and ax.get_xlim() == (-2, 2)
    paths = {"SGD": np.array([[-1.5, 2.0], [0.0, 0.5]]), "Adam": np.array([[-1.5, 2.0], [1, 1]])}
    viz.plot_paths(paths, ax=ax)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["SGD", "Adam"]


def test_paths_reject_points_that_are_not_2d(ax):
    with pytest.raises(ValueError, match="SGD"):
        viz.plot_paths({"SGD": np.zeros((5, 3))}, ax=ax)


def test_histograms_draw_one_per_array_with_its_statistics(ax):
    rng = np.random.default_rng(0)
    arrays = {"layer 1": rng.normal(size=100), "layer 2": rng.normal(size=(10, 5))}
    viz.plot_histograms(arrays, ax=ax, bins=10)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(ax.patches) == 2
    assert legend[0].startswith("layer 1: mean") and "std" in legend[1]


def test_plots_make_their_own_axes_when_none_is_given():
    ax = viz.plot_loss_curve([1.0, 0.5])
    assert ax.lines
    plt.close(ax.figure)


# -- show_broadcast --------------------------------------------------------------


def test_show_broadcast_explains_the_classic_case():
    text = viz.show_broadcast((3, 1), (4,))
    assert "<- padded to (1, 4)" in text
    assert "axis -1: 1 stretches to 4" in text
    assert "axis -2: 1 stretches to 3" in text
    assert text.endswith("Result: (3, 4)")


def test_show_broadcast_labels_table_columns_with_negative_axes():
    header = viz.show_broadcast((2, 3, 4), (4,)).splitlines()[4]
    assert header.split() == ["axis", "-3", "-2", "-1"]


def test_show_broadcast_names_the_mismatched_axis():
    text = viz.show_broadcast((2, 4), (3,))
    assert "axis -1: MISMATCH: 4 vs 3" in text
    assert text.endswith("do not broadcast: axis -1 has 4 vs 3")


def broadcastable(num_shapes: int):
    """`num_shapes` shapes that broadcast together, zero-size axes included."""
    return mutually_broadcastable_shapes(num_shapes=num_shapes, min_side=0)


@given(st.integers(1, 4).flatmap(broadcastable))
@example(BroadcastableShapes(input_shapes=((3, 1), (1, 4)), result_shape=(3, 4)))
@example(BroadcastableShapes(input_shapes=((), (2, 3)), result_shape=(2, 3)))
def test_show_broadcast_agrees_with_numpy(shapes):
    expected = np.broadcast_shapes(*shapes.input_shapes)
    assert viz.show_broadcast(*shapes.input_shapes).endswith(f"Result: {expected}")


@st.composite
def mismatched_pairs(draw):
    """Two shapes that agree except on one axis, where the sizes differ and neither is 1;
    the second may lack some leading axes."""
    shape = draw(array_shapes(min_dims=1, max_dims=4, min_side=1))
    axis = draw(st.integers(-len(shape), -1))
    a, b = draw(st.lists(st.integers(2, 6), min_size=2, max_size=2, unique=True))
    left, right = list(shape), list(shape)
    left[axis], right[axis] = a, b
    cut = draw(st.integers(0, len(shape) + axis))
    return tuple(left), tuple(right[cut:]), f"axis {axis} has {a} vs {b}"


@given(mismatched_pairs())
@example(((2, 4), (3,), "axis -1 has 4 vs 3"))
def test_show_broadcast_agrees_with_numpy_on_mismatches(case):
    left, right, clash = case
    with pytest.raises(ValueError):
        np.broadcast_shapes(left, right)
    assert viz.show_broadcast(left, right).endswith(f"do not broadcast: {clash}")
