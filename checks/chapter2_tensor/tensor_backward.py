"""Chapter 2, exercise 2.10: Tensor.backward, on graphs of Functions written here."""

from __future__ import annotations

import gc
import weakref

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from checks.chapter2_tensor.common import array_of, fw, seeds, shapes
from checks.harness import assert_close, central_difference, check, probe

# -- 2.10 Tensor.backward (chapter 1's walk, the tensor's hook): graded on Functions written here --


class Times(fw.Function):
    """c = a · b for equal shapes; ∂a = g·b, ∂b = g·a."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a


class Plus(fw.Function):
    """c = a + b for equal shapes; both get the very same gradient array."""

    calls = 0

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad):
        Plus.calls += 1
        return grad, grad


class Tanh(fw.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.out = np.tanh(a)
        return ctx.out

    @staticmethod
    def backward(ctx, grad):
        return grad * (1 - ctx.out**2)


class Scale(fw.Function):
    """c = k · a, k a number (not a tensor: its gradient is None)."""

    @staticmethod
    def forward(ctx, a, k):
        ctx.k = k
        return a * k

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.k, None


class Total(fw.Function):
    """c = Σ a, a 0-d result."""

    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        return np.sum(a)

    @staticmethod
    def backward(ctx, grad):
        return np.full(ctx.shape, grad)


expressions = st.lists(
    st.tuples(st.sampled_from(["plus", "times", "tanh", "scale"]), st.integers(0, 10**6),
              st.integers(0, 10**6)),
    min_size=1, max_size=12,
)


def evaluate(spec, leaves):
    """Build the expression on the leaves; every step may reuse any earlier node."""
    nodes = list(leaves)
    for op, i, j in spec:
        a, b = nodes[i % len(nodes)], nodes[j % len(nodes)]
        nodes.append(Plus.apply(a, b) if op == "plus" else Times.apply(a, b) if op == "times"
                     else Tanh.apply(a) if op == "tanh" else Scale.apply(a, 0.5))
    return nodes[-1]


@st.composite
def graphs(draw):
    """An expression, three float64 leaf values of one shape, and a cotangent seed."""
    shape = draw(array_shapes(min_dims=0, max_dims=2, max_side=3))
    xs = [draw(array_of(shape, st.floats(-1.5, 1.5))) for _ in range(3)]
    return draw(expressions), xs, draw(seeds)


def grad_or_zero(leaf) -> np.ndarray:
    return np.zeros(leaf.data.shape) if leaf.grad is None else np.asarray(leaf.grad)


def leaf_grads_after(spec, xs, cotangent, calls: int = 1, retain: bool = False) -> list:
    leaves = [fw.Tensor(x, requires_grad=True) for x in xs]
    for _ in range(calls):
        root = evaluate(spec, leaves)
        root.backward(cotangent, retain_graph=retain)
        if retain:
            root.backward(cotangent)
            break
    return [grad_or_zero(leaf) for leaf in leaves]


@probe("2.10")
def probe_backward(fw):
    leaf = fw.Tensor([1.0, 2.0], requires_grad=True)
    leaf.receive_grad(np.array([0.5, 1.0], dtype=np.float32))  # the hook alone first: 2.10's own code
    x = fw.Tensor([1.0, 2.0], requires_grad=True)
    Total.apply(Times.apply(x, Plus.apply(x, x))).backward()  # then through the walk (1.7)
    return {"grad of a leaf after receive_grad([0.5, 1])": leaf.grad, "∇ Σ x·(x + x) at [1, 2]": x.grad}


@check("2.10")
@given(case=graphs())
@example(case=([("times", 0, 0), ("plus", 3, 3)], [np.array([0.5, -1.0])] * 3, 0))
def test_backward_matches_central_differences(case):
    """backward(cotangent) fills every leaf's grad with the vector-Jacobian product."""
    spec, xs, seed = case
    cotangent = np.random.default_rng(seed).standard_normal(xs[0].shape)
    got = leaf_grads_after(spec, xs, cotangent)
    for k, x in enumerate(xs):
        def f(v, k=k):
            values = [fw.Tensor(v if j == k else xs[j]) for j in range(3)]
            return float(np.sum(evaluate(spec, values).data * cotangent))

        assert_close(got[k], central_difference(f, x), f"grad of leaf {k} after backward() of "
                     f"{spec}", rtol=1e-5, atol=1e-6)


@check("2.10")
@given(case=graphs())
def test_gradients_accumulate_over_rebuilt_graphs(case):
    """Building the graph twice and calling backward on each doubles every leaf's grad."""
    spec, xs, seed = case
    cotangent = np.random.default_rng(seed).standard_normal(xs[0].shape)
    once = leaf_grads_after(spec, xs, cotangent)
    twice = leaf_grads_after(spec, xs, cotangent, calls=2)
    assert_close(twice, [2 * g for g in once], f"leaf grads after two graphs of {spec}: "
                 "leaves accumulate (+=), never overwrite; and the first gradient a leaf keeps "
                 "must be an array of its own (a copy): an op's backward may hand the same array "
                 "to two inputs (add gives g to both), so += into it changes the other's too")


@check("2.10")
@given(case=graphs())
def test_retain_graph_allows_a_second_backward(case):
    """backward(retain_graph=True), then backward() on the same graph: every leaf's grad doubles."""
    spec, xs, seed = case
    cotangent = np.random.default_rng(seed).standard_normal(xs[0].shape)
    once = leaf_grads_after(spec, xs, cotangent)
    twice = leaf_grads_after(spec, xs, cotangent, retain=True)
    assert_close(twice, [2 * g for g in once], f"leaf grads after backward(retain_graph=True) "
                 f"and backward() of {spec}")


@check("2.10")
@given(x=shapes.flatmap(array_of))
def test_a_tensor_used_twice_gets_both_contributions(x):
    """For x · x the gradient is 2x, for x + x it is 2: contributions to one node add up."""
    a = fw.Tensor(x, requires_grad=True)
    Total.apply(Times.apply(a, a)).backward()
    b = fw.Tensor(x, requires_grad=True)
    Total.apply(Plus.apply(b, b)).backward()
    assert_close([grad_or_zero(a), grad_or_zero(b)], [2 * x, np.full(x.shape, 2.0)],
                 f"grads of Σ x·x and Σ (x + x) at {x.tolist()}")


@check("2.10")
def test_a_second_backward_through_a_freed_graph_is_an_error():
    """backward() frees the graph: a second backward() raises a RuntimeError about retain_graph."""
    x = fw.Tensor([0.5, -1.0], requires_grad=True)
    loss = Total.apply(Tanh.apply(Times.apply(x, x)))
    loss.backward()
    assert_close(grad_or_zero(x), 2 * np.array([0.5, -1.0]) * (1 - np.tanh([0.25, 1.0]) ** 2),
                 "grad after the first backward()", rtol=1e-5)
    try:
        loss.backward()
    except RuntimeError as error:
        assert "retain_graph" in str(error) or "freed" in str(error), (
            f"the second backward() raised {error!r}; say that the graph was freed and how "
            "to keep it (retain_graph=True)"
        )
        return
    raise AssertionError(
        "a second backward() through a freed graph raised nothing; the walk (exercise 1.7) "
        "calls node.release() after each node's rule unless retain_graph=True"
    )


@check("2.10")
def test_backward_without_gradient_only_for_one_element():
    """backward() with no argument seeds 1 for a one-element result, and refuses a larger one."""
    x = fw.Tensor(np.array([[1.5]], dtype=np.float32), requires_grad=True)
    Times.apply(x, x).backward()
    assert x.grad is not None and x.grad.shape == (1, 1), (
        f"after backward() of a (1, 1) result, x.grad is {x.grad!r}, expected [[3.]]"
    )
    assert_close(x.grad, [[3.0]], "grad of x·x at [[1.5]] after backward() with no gradient")
    y = fw.Tensor(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    try:
        Times.apply(y, y).backward()
    except (RuntimeError, ValueError) as error:
        assert "gradient" in str(error), f"backward() on shape (2, 3) raised {error!r}"
        return
    raise AssertionError("backward() on a (2, 3) result without a gradient raised nothing")


@check("2.10")
@given(x=shapes.flatmap(array_of), seed=seeds)
def test_only_leaves_that_require_grad_get_grad(x, seed):
    """Leaves get a .grad of their shape and dtype; constants and intermediate results get none."""
    leaf = fw.Tensor(x.astype(np.float32), requires_grad=True)
    constant = fw.Tensor(np.full(x.shape, 2.0, dtype=np.float32))
    hidden = Times.apply(leaf, constant)
    out = Tanh.apply(hidden)
    cotangent = np.random.default_rng(seed).standard_normal(x.shape).astype(np.float32)
    out.backward(cotangent)
    assert leaf.grad is not None, "the leaf that requires grad has no .grad after backward()"
    grad = leaf.grad
    assert isinstance(grad, np.ndarray) and grad.shape == x.shape and grad.dtype == np.float32, (
        f"leaf.grad should be a float32 array of shape {x.shape}, got {grad!r}"
    )
    expected = cotangent * (1 - np.tanh(2 * x.astype(np.float32)) ** 2) * 2
    assert_close(grad, expected, "leaf grad of tanh(2x)", rtol=1e-4, atol=1e-5)
    assert constant.grad is None and hidden.grad is None and out.grad is None, (
        "only leaves that require grad get .grad; the constant, the intermediate and the "
        "root keep grad None"
    )


@check("2.10")
def test_leaf_grads_are_arrays_of_their_own():
    """Two leaves of x + y, and the gradient passed in, never share one array."""
    x = fw.Tensor([1.0, 2.0], requires_grad=True)
    y = fw.Tensor([3.0, 4.0], requires_grad=True)
    cotangent = np.array([1.0, -1.0], dtype=np.float32)
    Plus.apply(x, y).backward(cotangent)
    assert x.grad is not None and y.grad is not None, "x.grad and y.grad must be set"
    x.grad *= 10
    cotangent[:] = 0
    assert_close(y.grad, [1.0, -1.0], "y.grad after scaling x.grad in place and zeroing the "
                 "gradient passed (store a copy in a leaf's first .grad)")


@check("2.10")
@given(x=shapes.flatmap(array_of), seed=seeds)
def test_no_grad_records_nothing(x, seed):
    """A value computed under no_grad() is a constant: x · (x·x computed under no_grad) → ∂ = x²."""
    leaf = fw.Tensor(x, requires_grad=True)
    with fw.no_grad():
        constant = Times.apply(leaf, leaf)
    assert not constant.requires_grad and constant.parents == (), (
        "a result computed under no_grad() requires no grad and has no parents"
    )
    cotangent = np.random.default_rng(seed).standard_normal(x.shape)
    Times.apply(leaf, constant).backward(cotangent)
    assert_close(grad_or_zero(leaf), cotangent * x * x, "grad of x · (x·x under no_grad)")


@check("2.10")
@given(x=shapes.flatmap(array_of), seed=seeds)
def test_detach_cuts_the_graph(x, seed):
    """(x·x).detach() is a constant with the same values: ∂(detached · x)/∂x = x²."""
    leaf = fw.Tensor(x, requires_grad=True)
    square = Times.apply(leaf, leaf)
    cut = square.detach()
    assert not cut.requires_grad and np.array_equal(cut.data, x * x), "detach keeps the values"
    cotangent = np.random.default_rng(seed).standard_normal(x.shape)
    Times.apply(cut, leaf).backward(cotangent)
    assert_close(grad_or_zero(leaf), cotangent * x * x, "grad of detach(x·x) · x")


class Cube(fw.Function):
    """c = w · a³ with w a NumPy array that is no tensor: ∂a = 3 w a² g."""

    @staticmethod
    def forward(ctx, a, w):
        ctx.save_for_backward(a, w)
        return w * a**3

    @staticmethod
    def backward(ctx, grad):
        a, w = ctx.saved_tensors
        return 3 * w * a**2 * grad, None


@check("2.10")
@given(x=array_shapes(min_dims=1, max_dims=2, max_side=3).flatmap(array_of), seed=seeds)
def test_a_custom_function_through_apply(x, seed):
    """A Function subclass with its own backward, applied to a tensor and a plain array."""
    leaf = fw.Tensor(x, requires_grad=True)
    w = np.linspace(0.5, 1.5, x.shape[-1])
    out = Cube.apply(leaf, w)
    cotangent = np.random.default_rng(seed).standard_normal(out.shape)
    out.backward(cotangent)
    assert_close(grad_or_zero(leaf), 3 * w * x**2 * cotangent, "grad of the custom Cube function")


@check("2.10")
def test_a_steps_graph_is_freed_without_the_garbage_collector():
    """With gc disabled, an intermediate dies once the step's names are deleted after backward."""
    gc.disable()
    try:
        x = fw.Tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
        w = fw.Tensor(np.full((2, 3), 0.5), requires_grad=True)
        hidden = Tanh.apply(Times.apply(x, w))
        loss = Total.apply(Plus.apply(hidden, hidden))
        loss.backward()
        watched = [weakref.ref(hidden), weakref.ref(loss)]
        del hidden, loss
        assert all(ref() is None for ref in watched), (
            "after backward() and del, the step's intermediate tensors are still alive: "
            "something (a cycle, a cache, a global) keeps the graph"
        )
        assert x.grad is not None and w.grad is not None, "the leaves must keep their grads"
    finally:
        gc.enable()


@check("2.10")
def test_backward_frees_the_graph_while_the_loss_is_kept():
    """With gc disabled, after backward() an intermediate dies with its name even while the loss lives."""
    gc.disable()
    try:
        x = fw.Tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
        hidden = Tanh.apply(Times.apply(x, x))
        loss = Total.apply(hidden)
        loss.backward()
        watched = weakref.ref(hidden)
        del hidden
        assert watched() is None, (
            "after backward() the loss still holds its graph: release() must drop a node's "
            "parents as well as its rule, so memory returns even while the loss is kept for printing"
        )
    finally:
        gc.enable()


@check("2.10")
def test_backward_through_a_chain_of_10000_ops():
    """A chain 10,000 ops deep: no recursion limit, and the gradient 0.5¹⁰⁰⁰⁰ · 2¹⁰⁰⁰⁰ = 1."""
    x = fw.Tensor([1.0, -2.0], requires_grad=True)
    node = x
    for i in range(10_000):
        node = Scale.apply(node, 0.5 if i % 2 else 2.0)
    node.backward(np.array([1.0, 3.0]))
    assert_close(grad_or_zero(x), [1.0, 3.0], "grad through 10,000 scalings")


@check("2.10")
def test_backward_calls_each_rule_once():
    """On a graph with 2³⁰ paths and 61 nodes, each node's rule runs exactly once."""
    pair = [fw.Tensor([1.0], requires_grad=True), fw.Tensor([2.0], requires_grad=True)]
    leaves = list(pair)
    for _ in range(30):
        pair = [Plus.apply(*pair), Plus.apply(*pair)]
    root = Plus.apply(*pair)
    Plus.calls = 0
    root.backward(np.array([1.0]))
    assert Plus.calls == 61, f"61 rules should run once each, {Plus.calls} calls were made"
    assert_close([grad_or_zero(leaf) for leaf in leaves], [[2.0**30], [2.0**30]],
                 "leaf grads on the ladder")
