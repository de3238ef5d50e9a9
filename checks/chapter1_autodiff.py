"""Chapter 1 grader: the graph engine and the scalar `Value`.

Op exercises are graded through `grad_fn` with the graders' own walk and a random
cotangent, against central differences in float64. The walk exercises (1.6, 1.7)
are graded on graphs the checks build themselves, so they do not depend on the
ops being done; 1.7's walk, `backpropagate`, is also graded on bare nodes, since
Chapter 2's `Tensor` runs on it (a gradient per call, rules that return None,
`retain_graph=False` releasing nodes).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from checks.harness import (
    assert_close,
    backprop,
    central_difference,
    check,
    fixture,
    framework,
    probe,
    read_only,
    submodule,
)
from checks.remote import shared

fw = framework()

cotangents = st.floats(0.5, 2.0) | st.floats(-2.0, -0.5)
reals = st.floats(-3.0, 3.0)
positives = st.floats(0.1, 4.0)
off_zero = st.tuples(st.floats(0.01, 4.0), st.sampled_from([-1.0, 1.0])).map(lambda t: t[0] * t[1])


def op_gradient_check(op: str, xs: list[float], cotangent: float, what: str, *params) -> None:
    """The rule's gradient of the op at xs, through a cotangent, against central differences.

    The op (`checks.fixtures.expressions.op`) runs where the Values live, all the perturbed
    inputs in one request; the differences and the comparison are the judge's.
    """
    built = fixture("expressions")
    function = built.op(op, *params)
    got = built.gradients(fw.Value, function, xs, cotangent)
    eps, points = 1e-6, []
    for index in range(len(xs)):
        for sign in (1, -1):
            x = np.array(xs, dtype=np.float64)
            x[index] = x[index] + sign * eps
            points.append(x.tolist())
    values = np.array(built.values_at(fw.Value, function, points), dtype=np.float64)
    expected = cotangent * (values[0::2] - values[1::2]) / (2 * eps)
    assert_close(got, expected, f"{what}: gradients at {xs} with cotangent {cotangent:.3g}")


# -- 1.1 numerical derivative -------------------------------------------------------------


@probe("1.1")
def probe_numerical_derivative(fw):
    return {"d(x³)/dx at 2": fw.numerical_derivative(lambda x: x**3, 2.0)}


@check("1.1")
@given(x=reals, which=st.sampled_from(["sin", "exp", "cube"]))
def test_numerical_derivative_matches_known_derivatives(x, which):
    """The central difference of sin, exp and x³ matches their derivatives."""
    f, df = {
        "sin": (math.sin, math.cos),
        "exp": (math.exp, math.exp),
        "cube": (lambda t: t**3, lambda t: 3 * t**2),
    }[which]
    assert_close(fw.numerical_derivative(f, x), df(x), f"numerical derivative of {which} at {x}")


@check("1.1")
@given(x=reals)
def test_numerical_derivative_is_central(x):
    """For x², a central difference is exact whatever eps; a one-sided one is off by eps."""
    got = fw.numerical_derivative(lambda t: t * t, x, eps=1e-3)
    assert_close(got, 2 * x, f"numerical derivative of x² at {x} with eps=1e-3", atol=1e-8)


@check("1.1")
@given(x=reals, eps=st.sampled_from([0.1, 0.05, 0.2]))
def test_numerical_derivative_uses_the_given_eps(x, eps):
    """For x³ the central difference is 3x² + eps²: the step given is the step used."""
    got = fw.numerical_derivative(lambda t: t**3, x, eps=eps)
    assert_close(got, 3 * x * x + eps * eps, f"numerical derivative of x³ at {x}, eps={eps}")


# -- 1.2 add and multiply ----------------------------------------------------------------


@probe("1.2")
def probe_add_mul(fw):
    a, b = fw.Value(2.0), fw.Value(-3.0)
    return {"2 + -3": lambda: (a + b).data, "2 * -3": lambda: (a * b).data,
            "rule of 2 * -3 at 1": lambda: (a * b).grad_fn(1.0)}


@check("1.2")
@given(a=reals, b=reals)
def test_add_and_mul_forward(a, b):
    """a + b and a · b compute the sums and products of their data."""
    assert_close((fw.Value(a) + fw.Value(b)).data, a + b, f"Value({a}) + Value({b})")
    assert_close((fw.Value(a) * fw.Value(b)).data, a * b, f"Value({a}) * Value({b})")


@check("1.2")
@given(a=reals, b=reals, g=cotangents)
def test_add_gradient(a, b, g):
    """The rule of a + b returns (g, g)."""
    op_gradient_check("add", [a, b], g, "add")


@check("1.2")
@given(a=reals, b=reals, g=cotangents)
def test_mul_gradient(a, b, g):
    """The rule of a · b returns (g · b, g · a)."""
    op_gradient_check("mul", [a, b], g, "mul")


@check("1.2")
def test_add_and_mul_record_their_parents_in_order():
    """The result's parents are the two operands, in order; a number becomes a leaf Value."""
    a, b = fw.Value(1.5), fw.Value(2.5)
    for name, out in (("add", a + b), ("mul", a * b)):
        assert out.parents[0] is a and out.parents[1] is b, f"{name}: parents should be (a, b)"
    out = a * 4.0
    assert out.parents[0] is a and out.parents[1].data == 4.0, "mul by 4.0: parents (a, Value(4.0))"


@check("1.2")
@given(a=reals, b=reals)
def test_mixing_values_and_numbers(a, b):
    """Numbers work on either side: a + 2, 2 + a, a · 2, 2 · a."""
    x = fw.Value(a)
    assert_close([(x + b).data, (b + x).data], [a + b, a + b], f"Value({a}) + {b} both ways")
    assert_close([(x * b).data, (b * x).data], [a * b, a * b], f"Value({a}) * {b} both ways")


@check("1.2")
def test_add_and_mul_leave_no_reference_cycle():
    """With the garbage collector off, a result is freed as soon as its names are gone."""
    memory = fixture("memory")
    memory.collector(False)
    try:
        a, b = fw.Value(2.0), fw.Value(3.0)
        product = a * b
        total = product + a
        watched = memory.watch(product, total)
        del product, total
        assert not any(memory.alive(watched)), (
            "a result outlived its names: its grad_fn captures the result itself "
            "(a reference cycle); capture the operands' data instead"
        )
    finally:
        memory.collector(True)


# -- 1.3 power, subtraction, division ------------------------------------------------------


@probe("1.3")
def probe_pow_sub_div(fw):
    a, b = fw.Value(2.0), fw.Value(4.0)
    return {"2 ** 3": lambda: (a**3).data, "2 - 4": lambda: (a - b).data,
            "2 / 4": lambda: (a / b).data}


@check("1.3")
@given(a=positives, n=st.sampled_from([-2.0, -1.0, 0.5, 2.0, 3.0]), g=cotangents)
@example(a=2.0, n=3.0, g=1.0)
def test_pow_gradient(a, n, g):
    """The rule of aⁿ returns g · n · aⁿ⁻¹."""
    op_gradient_check("pow", [a], g, f"pow **{n}", n)
    assert_close((fw.Value(a) ** n).data, a**n, f"Value({a}) ** {n}")


@check("1.3")
@given(a=reals, b=reals, g=cotangents)
def test_sub_gradient(a, b, g):
    """a - b has gradients (g, -g) and the right value."""
    op_gradient_check("sub", [a, b], g, "sub")
    assert_close((fw.Value(a) - fw.Value(b)).data, a - b, f"Value({a}) - Value({b})")


@check("1.3")
@given(a=reals, b=positives, g=cotangents)
def test_div_gradient(a, b, g):
    """a / b has gradients (g / b, -g · a / b²) and the right value."""
    op_gradient_check("div", [a, b], g, "div")
    assert_close((fw.Value(a) / fw.Value(b)).data, a / b, f"Value({a}) / Value({b})")


@check("1.3")
@given(a=positives, b=positives)
def test_reflected_sub_and_div(a, b):
    """Numbers on the left: 2 - a and 2 / a."""
    x = fw.Value(b)
    assert_close([(a - x).data, (a / x).data], [a - b, a / b], f"{a} - Value({b}), {a} / Value({b})")


# -- 1.4 exp and log ---------------------------------------------------------------------


@probe("1.4")
def probe_exp_log(fw):
    return {"exp(1)": lambda: fw.Value(1.0).exp().data, "log(2)": lambda: fw.Value(2.0).log().data}


@check("1.4")
@given(a=reals, g=cotangents)
def test_exp_value_and_gradient(a, g):
    """exp(a) = eᵃ and its rule returns g · eᵃ."""
    assert_close(fw.Value(a).exp().data, math.exp(a), f"Value({a}).exp()")
    op_gradient_check("exp", [a], g, "exp")


@check("1.4")
@given(a=positives, g=cotangents)
@example(a=0.1, g=1.0)
def test_log_value_and_gradient(a, g):
    """log(a) = ln a and its rule returns g / a."""
    assert_close(fw.Value(a).log().data, math.log(a), f"Value({a}).log()")
    op_gradient_check("log", [a], g, "log")


# -- 1.5 activations ---------------------------------------------------------------------


@probe("1.5")
def probe_activations(fw):
    x = fw.Value(0.5)
    return {"tanh(0.5)": lambda: x.tanh().data, "relu(0.5)": lambda: x.relu().data,
            "sigmoid(0.5)": lambda: x.sigmoid().data}


@check("1.5")
@given(a=reals, g=cotangents)
def test_tanh_value_and_gradient(a, g):
    """tanh's rule returns g · (1 - tanh²a)."""
    assert_close(fw.Value(a).tanh().data, math.tanh(a), f"Value({a}).tanh()")
    op_gradient_check("tanh", [a], g, "tanh")


@check("1.5")
@given(a=off_zero, g=cotangents)
@example(a=-0.5, g=1.0)
def test_relu_value_and_gradient(a, g):
    """relu passes the gradient where a > 0 and blocks it where a < 0."""
    assert_close(fw.Value(a).relu().data, max(a, 0.0), f"Value({a}).relu()")
    op_gradient_check("relu", [a], g, "relu")


@check("1.5")
@given(a=reals, g=cotangents)
def test_sigmoid_value_and_gradient(a, g):
    """sigmoid's rule returns g · s(1 - s)."""
    assert_close(fw.Value(a).sigmoid().data, 1 / (1 + math.exp(-a)), f"Value({a}).sigmoid()")
    op_gradient_check("sigmoid", [a], g, "sigmoid")


@check("1.5")
@given(a=st.floats(700.0, 1e4), sign=st.sampled_from([-1.0, 1.0]))
@example(a=1e4, sign=-1.0)
def test_sigmoid_is_stable_for_large_inputs(a, sign):
    """sigmoid(±1e4) is 1 or 0 with a finite gradient, not an OverflowError."""
    out = fw.Value(sign * a).sigmoid()
    (grad,) = out.grad_fn(1.0)
    assert_close([out.data, grad], [1.0 if sign > 0 else 0.0, 0.0], f"sigmoid({sign * a:g})")


# -- 1.6 topological order: graded on plain nodes built here ------------------------------


@shared
class Node:
    """A bare node of the protocol; it counts how often its parents are read."""

    __slots__ = ("_parents", "name", "reads", "budget")
    grad_fn = None

    def __init__(self, parents=(), name="", budget=None):
        self._parents, self.name, self.reads, self.budget = tuple(parents), name, 0, budget

    @property
    def parents(self):
        self.reads += 1
        if self.budget is not None and self.reads > self.budget:
            raise AssertionError(
                f"node {self.name} was expanded {self.reads} times: keep a visited set, "
                "so each node is expanded once"
            )
        return self._parents


def reachable(root) -> set[int]:
    seen, stack = {id(root)}, [root]
    while stack:
        for parent in stack.pop()._parents:
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append(parent)
    return seen


dags = st.lists(st.lists(st.integers(0, 10**6), max_size=3), min_size=1, max_size=25)


def build_dag(spec, budget=None) -> list[Node]:
    nodes = []
    for i, picks in enumerate(spec):
        parents = [nodes[p % i] for p in picks] if i else []
        nodes.append(Node(parents, f"n{i}", budget))
    return nodes


def ladder(levels: int, budget: int) -> Node:
    """Two nodes a level, each depending on both nodes below: 2ⁿ paths, 2n nodes."""
    pair = [Node((), "a0", budget), Node((), "b0", budget)]
    for level in range(1, levels):
        pair = [Node(pair, f"a{level}", budget), Node(pair, f"b{level}", budget)]
    return Node(pair, "top", budget)


@probe("1.6")
def probe_topological_order(fw):
    a = Node((), "a")
    b = Node((a,), "b")
    c = Node((a, b), "c")
    return {"order of a, b ← a, c ← (a, b)": [n.name for n in fw.topological_order(c)]}


@check("1.6")
@given(spec=dags)
@example(spec=[[], [0], [0, 0], [1, 2]])
def test_every_reachable_node_appears_once(spec):
    """The order holds each node the root depends on exactly once, and nothing else."""
    root = build_dag(spec)[-1]
    order = fw.topological_order(root)
    ids = [id(n) for n in order]
    assert len(ids) == len(set(ids)), "a node appears more than once: keep a visited set"
    assert set(ids) == reachable(root), (
        f"the order has {len(set(ids))} distinct nodes; the root depends on {len(reachable(root))}"
    )


@check("1.6")
@given(spec=dags)
def test_parents_come_before_children(spec):
    """Every node comes after all of its parents, and the root comes last."""
    root = build_dag(spec)[-1]
    order = fw.topological_order(root)
    position = {id(n): i for i, n in enumerate(order)}
    assert order and order[-1] is root, "the root must come last"
    for node in order:
        for parent in node._parents:
            assert position[id(parent)] < position[id(node)], (
                f"{parent.name} is a parent of {node.name} but comes after it"
            )


@check("1.6")
def test_chain_of_100000_nodes():
    """A chain 100,000 nodes deep is ordered without hitting the recursion limit."""
    graphs = fixture("graphs")
    leaf, node = graphs.chain_of_nodes(100_000)
    order = graphs.kept(fw.topological_order, node)
    assert len(order) == 100_000 and order[0] is leaf and order[-1] is node, (
        "a chain of 100,000 nodes must come back whole, leaf first, root last"
    )


@check("1.6")
def test_linear_time_on_a_ladder():
    """A graph with 2⁴⁰ paths but 81 nodes: each node's parents are read a bounded number of times."""
    root = ladder(40, budget=3)
    order = fw.topological_order(root)
    assert len(order) == 81, f"the ladder has 81 nodes, the order has {len(order)}"


# -- 1.7 backward: graded on Values built with hand-written rules, and on bare nodes ------


def add(a, b):
    return fixture("expressions").add(fw.Value, a, b)


def mul(a, b):
    return fixture("expressions").mul(fw.Value, a, b)


def tanh(a):
    return fixture("expressions").tanh(fw.Value, a)


expressions = st.lists(
    st.tuples(st.sampled_from(["add", "mul", "tanh"]), st.integers(0, 10**6), st.integers(0, 10**6)),
    min_size=1, max_size=20,
)


def evaluate(spec, leaves):
    """Build the expression on the given leaves; every step may reuse any earlier node."""
    return fixture("expressions").evaluate(fw.Value, spec, leaves)


def value_at(spec, xs) -> float:
    """The expression's value on fresh leaves holding `xs`."""
    return fixture("expressions").value_at(fw.Value, spec, [float(x) for x in xs])


@probe("1.7")
def probe_backward(fw):
    a, b = fw.Value(2.0), fw.Value(3.0)
    out = add(mul(a, b), a)
    out.backward()
    return {"d(a·b + a)/da, /db at (2, 3)": (a.grad, b.grad)}


@check("1.7")
@given(spec=expressions, xs=st.lists(st.floats(-1.5, 1.5), min_size=3, max_size=3))
@example(spec=[("mul", 0, 0)], xs=[1.5, 0.0, 0.0])
def test_backward_matches_central_differences(spec, xs):
    """backward() fills every leaf's grad with the derivative of the root."""
    leaves = [fw.Value(x) for x in xs]
    root = evaluate(spec, leaves)
    root.backward()
    expected = central_difference(
lambda v: value_at(spec, v), np.array(xs))
    assert_close([leaf.grad for leaf in leaves], expected, f"leaf grads of {spec} at {xs}")


@check("1.7")
@given(a=reals)
def test_a_node_used_twice_gets_both_contributions(a):
    """For a · a the gradient is 2a and for a + a it is 2: contributions add up."""
    x = fw.Value(a)
    mul(x, x).backward()
    y = fw.Value(a)
    add(y, y).backward()
    assert_close([x.grad, y.grad], [2 * a, 2.0], f"grads of a·a and a+a at a={a}")


@check("1.7")
@given(spec=expressions, xs=st.lists(st.floats(-1.5, 1.5), min_size=3, max_size=3))
def test_leaf_gradients_accumulate_across_calls(spec, xs):
    """Two backward() calls on one graph give leaves exactly twice the gradient of one."""
    once = [fw.Value(x) for x in xs]
    evaluate(spec, once).backward()
    twice = [fw.Value(x) for x in xs]
    root = evaluate(spec, twice)
    root.backward()
    root.backward()
    assert_close([v.grad for v in twice], [2 * v.grad for v in once],
                 f"leaf grads after two backward() calls of {spec}")


@check("1.7")
@given(x=reals, y=reals, z=reals)
def test_a_node_with_three_parents_passes_each_its_share(x, y, z):
    """A rule may have any number of parents: d(x·y + z) is (y, x, 1)."""
    a, b, c = fw.Value(x), fw.Value(y), fw.Value(z)
    fused = fw.Value(x * y + z, (a, b, c), lambda g: (g * y, g * x, g), "fma")
    fw.Value(fused.data, (fused,), lambda g: (2 * g,), "double").backward()
    assert_close([a.grad, b.grad, c.grad], [2 * y, 2 * x, 2.0],
                 f"grads of 2·(x·y + z) at {(x, y, z)}")


@check("1.7")
def test_root_gradient_is_seeded_with_one():
    """After backward() the root's own grad is 1: d(root)/d(root)."""
    root = tanh(add(fw.Value(0.3), fw.Value(0.2)))
    root.backward()
    assert_close(root.grad, 1.0, "root.grad after backward()")


@check("1.7")
def test_backward_through_a_chain_of_100000_nodes():
    """backward() on a chain 100,000 deep works and gives the right gradient."""
    x, node = fixture("graphs").chain_of_additions(fw.Value, 100_000)
    node.backward()
    assert_close(x.grad, 1.0, "gradient through 100,000 additions")


@check("1.7")
def test_backward_calls_each_rule_once():
    """On a graph with 2⁴⁰ paths each node's rule runs exactly once."""
    calls = []

    def counted(a, b):
        return fw.Value(a.data + b.data, (a, b), lambda g: calls.append(1) or (g, g), "+")

    pair = [fw.Value(1.0), fw.Value(2.0)]
    for _ in range(40):
        pair = [counted(*pair), counted(*pair)]
    counted(*pair).backward()
    assert len(calls) == 81, f"81 rules should run once each, {len(calls)} calls were made"


@check("1.7")
@given(a=reals, b=reals)
def test_an_intermediate_node_holds_the_gradient_of_the_last_call(a, b):
    """Intermediate grads are this call's, not a sum over calls: after two backward() d(c²)/dc = 2c."""
    c = add(fw.Value(a), fw.Value(b))
    root = mul(c, c)
    root.backward()
    root.backward()
    assert_close([c.grad, root.grad], [2 * (a + b), 1.0],
                 f"grads of c = a + b and of c·c after two backward() calls, a={a}, b={b}")


@check("1.7")
def test_a_graph_is_freed_after_backward_without_the_garbage_collector():
    """With gc disabled, a graph dies once its names are deleted after backward(): the walk keeps nothing."""
    memory = fixture("memory")
    memory.collector(False)
    try:
        x = fw.Value(0.5)
        hidden = tanh(mul(x, x))
        root = add(hidden, x)
        root.backward()
        watched = memory.watch(hidden, root)
        del hidden, root
        assert not any(memory.alive(watched)), (
            "a node outlived backward() and its names: the walk keeps a reference to the "
            "graph (a global, a class attribute, a default argument); keep the walk's state local"
        )
    finally:
        memory.collector(True)


RELEASED = (
    "release() empties a node: its parents become () and its rule is gone (chapter 2's Tensor "
    "does exactly this, to free memory); read node.parents and call node.grad_fn before "
    "node.release()"
)


@shared
class Bare:
    """A node of the protocol with its own hooks: it records what the walk does to it.

    Its `release` does what chapter 2's Tensor does: the parents become () and the rule
    is dropped, so a walk that reads either after `release()` shows it here.
    """

    def __init__(self, name, parents=(), rule=None, log=None):
        self.name, self.parents, self.grad_fn, self.log = name, tuple(parents), None, log
        self.received = []
        if rule is not None:
            def logged(g):
                log.append(("rule", name))
                return rule(g)
            self.grad_fn = logged

    def receive_grad(self, grad):
        self.received.append(grad)

    def release(self):
        self.log.append(("release", self.name))
        self.parents = ()
        self.grad_fn = self.released

    def released(self, g):
        raise AssertionError(f"the walk called the rule of node {self.name!r} after its "
                             f"release(): {RELEASED}")


def bare_graph(log):
    """out = f(h, x, y), h = f(x, y, z): h's rule gives y and z None, so z gets no gradient."""
    x, y, z = Bare("x", log=log), Bare("y", log=log), Bare("z", log=log)
    h = Bare("h", (x, y, z), lambda g: (3 * g, None, None), log)
    out = Bare("out", (h, x, y), lambda g: (2 * g, 5 * g, 7 * g), log)
    return x, y, z, h, out


@check("1.7")
@given(g=cotangents)
def test_backpropagate_hands_each_node_its_gradient_once(g):
    """backpropagate(root, g): each node receives d(root)/d(node)·g once; a None share is skipped."""
    x, y, z, h, out = bare_graph([])
    fw.autodiff.backpropagate(out, g)
    got = {n.name: n.received for n in (x, y, z, h, out)}
    expected = {"x": [5 * g + 6 * g], "y": [7 * g], "z": [], "h": [2 * g], "out": [g]}
    assert got.keys() == expected.keys() and all(
        len(got[k]) == len(expected[k]) and np.allclose(got[k], expected[k]) for k in got
    ), f"backpropagate(out, {g}): the nodes received {got}, expected {expected}"


@check("1.7")
def test_backpropagate_releases_nodes_only_without_retain_graph():
    """retain_graph=False releases each non-leaf once, after its rule; leaves and True release none."""
    log = []
    *_, out = bare_graph(log)
    fw.autodiff.backpropagate(out, 1.0, retain_graph=False)
    expected = [("rule", "out"), ("release", "out"), ("rule", "h"), ("release", "h")]
    assert log == expected, (
        f"with retain_graph=False the walk did {log}, expected {expected}: {RELEASED}"
    )
    log.clear()
    *_, out = bare_graph(log)
    fw.autodiff.backpropagate(out, 1.0, retain_graph=True)
    assert log == [("rule", "out"), ("rule", "h")], (
        f"with retain_graph=True the walk did {log}: it must release nothing"
    )


@check("1.7")
@given(g=cotangents)
def test_backpropagate_reads_a_node_before_releasing_it(g):
    """With retain_graph=False every node still receives its gradient: a node is read, then released."""
    x, y, z, h, out = bare_graph([])
    fw.autodiff.backpropagate(out, g, retain_graph=False)
    got = {n.name: n.received for n in (x, y, z, h, out)}
    expected = {"x": [5 * g + 6 * g], "y": [7 * g], "z": [], "h": [2 * g], "out": [g]}
    assert all(
        len(got[k]) == len(expected[k]) and np.allclose(got[k], expected[k]) for k in expected
    ), (
        f"backpropagate(out, {g}, retain_graph=False): the nodes received {got}, expected "
        f"{expected}. {RELEASED}"
    )


@check("1.7")
@given(g=arrays(np.float64, array_shapes(max_dims=2, max_side=3), elements=st.floats(-2.0, 2.0)))
def test_backpropagate_never_changes_a_gradient_in_place(g):
    """With array gradients, summing two shares makes a new array: the ones rules send stay as they were."""
    x = Bare("x")
    h = Bare("h", (x,), lambda grad: (read_only(grad),), [])
    # one (read-only) array sent to both parents: a sum in place would change the other's too
    out = Bare("out", (h, x), lambda grad: (read_only(grad),) * 2, [])
    advice = ("A rule may send one array to several parents, and a node keeps the array it "
              "received: sum two shares into a new array (`total = total + share`), never in "
              "place (`total += share`)")
    try:
        fw.autodiff.backpropagate(out, read_only(g))
    except ValueError as error:
        if "read-only" not in str(error):
            raise
        raise AssertionError(f"backpropagate(out, g) with g = {g.tolist()} wrote into a "
                             f"gradient a rule returned ({error}). {advice}") from None
    got = {n.name: n.received for n in (x, h, out)}
    expected = {"x": [2 * g], "h": [g], "out": [g]}
    assert all(
        len(got[k]) == 1 and np.array_equal(got[k][0], expected[k][0]) for k in expected
    ), f"backpropagate(out, g) with g = {g.tolist()}: the nodes hold {got}, expected {expected}"


# -- bonus track: graded apart from the 100 points ---------------------------------------------


def extra():
    """`framework.bonus.chapter1_autodiff`, the bonus file (imported on first use)."""
    return submodule("bonus.chapter1_autodiff")


# -- 1.8 (bonus) abs and softplus on Value -------------------------------------------------------


@probe("1.8")
def probe_abs_softplus(fw):
    return {"|-2|": lambda: extra().value_abs(fw.Value(-2.0)).data,
            "softplus(0)": lambda: extra().softplus(fw.Value(0.0)).data}


@check("1.8")
@given(a=off_zero, g=cotangents)
@example(a=-1.5, g=1.0)
def test_abs_value_and_gradient(a, g):
    """|a| and its rule g · sign(a), away from the kink."""
    assert_close(extra().value_abs(fw.Value(a)).data, abs(a), f"value_abs(Value({a}))")
    op_gradient_check("value_abs", [a], g, "value_abs")


@check("1.8")
@given(g=cotangents)
def test_abs_gradient_at_zero_is_zero(g):
    """At a = 0 the rule returns 0 (sign(0) = 0, as PyTorch), never ±g."""
    leaf = fw.Value(0.0)
    out = extra().value_abs(leaf)
    grad = backprop(out, g).get(id(leaf), 0.0)
    assert_close([out.data, grad], [0.0, 0.0], f"value_abs(Value(0.0)): value and rule of {g:.3g}")


@check("1.8")
@given(a=reals, g=cotangents)
@example(a=0.0, g=1.0)
def test_softplus_value_and_gradient(a, g):
    """softplus(a) = ln(1 + eᵃ) and its rule g · σ(a)."""
    assert_close(extra().softplus(fw.Value(a)).data, math.log1p(math.exp(a)),
                 f"softplus(Value({a}))")
    op_gradient_check("softplus", [a], g, "softplus")


@check("1.8")
@given(a=st.floats(50.0, 1e4), sign=st.sampled_from([-1.0, 1.0]))
@example(a=1e4, sign=1.0)
def test_softplus_is_finite_for_large_inputs(a, sign):
    """softplus(±1e4) is 1e4 or 0 with gradient 1 or 0: no OverflowError, no inf."""
    leaf = fw.Value(sign * a)
    out = extra().softplus(leaf)
    grad = backprop(out, 1.0).get(id(leaf), 0.0)
    want = (a, 1.0) if sign > 0 else (0.0, 0.0)
    assert_close([out.data, grad], want, f"softplus({sign * a:g}): value and gradient",
                 rtol=1e-12, atol=1e-12)


# -- 1.9 (bonus) gradient descent with backward() -----------------------------------------------

# each function's derivative; the functions of a Value are built where the Value lives
DERIVATIVES = {
    "(x - 1.5)²": lambda t: 2 * (t - 1.5),
    "x⁴/4 - x": lambda t: t**3 - 1,
    "eˣ + e⁻ˣ": lambda t: math.exp(t) - math.exp(-t),
}


def descent_function(which: str):
    return fixture("expressions").DESCENT[which]


@probe("1.9")
def probe_gradient_descent(fw):
    return {"path of (x - 1.5)² from 0, lr 0.25, 3 steps":
            lambda: extra().gradient_descent(descent_function("(x - 1.5)²"), 0.0, 0.25, 3)}


@check("1.9")
@given(which=st.sampled_from(sorted(DERIVATIVES)), x0=st.floats(-1.0, 1.0),
       lr=st.floats(0.01, 0.2), steps=st.integers(0, 6))
@example(which="(x - 1.5)²", x0=0.0, lr=0.25, steps=3)
def test_gradient_descent_follows_x_minus_lr_times_the_derivative(which, x0, lr, steps):
    """The path is [x₀, x₁, …] with x_{k+1} = x_k − lr · f′(x_k): steps + 1 floats."""
    f, df = descent_function(which), DERIVATIVES[which]
    expected = [x0]
    for _ in range(steps):
        expected.append(expected[-1] - lr * df(expected[-1]))
    got = extra().gradient_descent(f, x0, lr, steps)
    assert isinstance(got, list) and len(got) == steps + 1, (
        f"gradient_descent(f, {x0}, lr={lr}, steps={steps}) returned {got!r}: expected a list of "
        f"{steps + 1} numbers, x₀ first")
    assert_close(got, expected, f"gradient_descent on {which} from {x0:.4g}, lr {lr:.4g}",
                 rtol=1e-9, atol=1e-12)


@check("1.9")
@given(x0=st.floats(-3.0, 3.0))
def test_gradient_descent_reaches_the_minimum_of_a_bowl(x0):
    """On (x - 1.5)² with lr 0.1, 100 steps end within 1e-6 of the minimum 1.5."""
    path = extra().gradient_descent(descent_function("(x - 1.5)²"), x0, 0.1, 100)
    assert abs(path[-1] - 1.5) < 1e-6, (
        f"gradient_descent((x - 1.5)², {x0:.4g}, lr=0.1, steps=100) ended at {path[-1]!r}, "
        "not at the minimum 1.5: a fresh Value each step (its grad starts at 0), and step downhill")
