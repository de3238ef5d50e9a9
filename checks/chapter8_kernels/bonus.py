"""Chapter 8's bonus track, graded apart from the 100 points: 8.8 lazy expressions fused.

The text `expression_source` writes is evaluated here in plain Python, element by element,
against NumPy's evaluation of the same expression tree (drawn by hypothesis: sums,
differences, products, quotients, maxima, exp, log and tanh of up to three arrays, one of
them used twice, and constants); and a few expressions go through `realize()`, compiled by
Numba, end to end. Compiling costs about a second an expression, so only those few are.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from checks.harness import assert_close, check, framework, probe

fw = framework()


def lazy_module():
    """`framework.bonus.chapter8_kernels`, the bonus file (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.bonus.chapter8_kernels")


NUMPY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum,
         "neg": np.negative, "exp": np.exp, "tanh": np.tanh}


@st.composite
def expressions(draw, leaves, depth=3):
    """(Lazy expression, its value by NumPy) over `leaves`, a list of (Lazy leaf, array) pairs.
    log and division take only a leaf (positive) or a constant (≥ 0.5) as their argument or
    divisor, so that every value stays finite."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()) or len(leaves) == 0:
            return draw(st.sampled_from(leaves))
        value = draw(st.sampled_from([0.5, 1.5, 2.0, 3.0]))
        return lazy_module().Lazy("const", value=value), value
    op = draw(st.sampled_from(["add", "sub", "mul", "maximum", "neg", "exp", "tanh", "div",
                               "log"]))
    if op in ("div", "log"):
        node, value = draw(st.sampled_from(leaves))
        if op == "log":
            return node.log(), np.log(value)
        top, top_value = draw(expressions(leaves, depth - 1))
        return top / node, top_value / value
    left, left_value = draw(expressions(leaves, depth - 1))
    if op in ("neg", "exp", "tanh"):
        inner = np.clip(left_value, -50, 50) if op == "exp" else left_value
        node = getattr(left, op)() if op != "neg" else -left
        if op == "exp" and not np.array_equal(inner, left_value):
            return left, left_value  # exp of a large value would overflow: keep the operand
        return node, NUMPY[op](left_value)
    right, right_value = draw(expressions(leaves, depth - 1))
    return left._op(op, right), NUMPY[op](left_value, right_value)


@st.composite
def cases(draw):
    """Three positive arrays of one length 1–6 and an expression of them."""
    lazy = lazy_module().Lazy
    length = draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    arrays = [rng.uniform(0.5, 2.0, length) for _ in range(3)]
    leaves = [(lazy.of(a), a) for a in arrays]
    leaves.append(leaves[0])  # the first array may be read twice: one leaf
    node, value = draw(expressions(leaves))
    if not node.leaves():  # constants alone: add an array, so that there are elements to read
        node, value = node + leaves[1][0], value + arrays[1]
    return node, value


def evaluate(text: str, node) -> np.ndarray:
    """The expression's text run in plain Python at each element i (no compiler)."""
    leaves = node.leaves()
    scope = {f"a{k}": a for k, a in enumerate(leaves)}
    return np.array([eval(text, {"math": math}, dict(scope, i=i))  # noqa: S307 (our own text)
                     for i in range(leaves[0].size)])


def source(node) -> str:
    positions = {id(a): k for k, a in enumerate(node.leaves())}
    return lazy_module().expression_source(node, positions)


@probe("8.8")
def probe_expression_source(fw):
    lazy = lazy_module().Lazy
    a, b = lazy.of(np.array([1.0, 2.0])), lazy.of(np.array([3.0, 4.0]))
    return {"source of a * b + a.exp()": lambda: source(a * b + a.exp()),
            "source of 2.0 - b / a": lambda: source(2.0 - b / a)}


@check("8.8")
@given(case=cases())
def test_expression_text_computes_the_expression(case):
    """The text, run at every element i, gives NumPy's value of the expression tree."""
    node, expected = case
    text = source(node)
    assert_close(evaluate(text, node), np.broadcast_to(expected, node.leaves()[0].shape),
                 f"the expression source {text!r}", rtol=1e-12, atol=1e-12)


@check("8.8")
def test_operands_keep_their_order():
    """a - b and a / b, not b - a and b / a: the templates take the inputs in order."""
    lazy = lazy_module().Lazy
    a, b = np.array([6.0, 9.0]), np.array([2.0, 3.0])
    for node, expected, what in ((lazy.of(a) - lazy.of(b), a - b, "a - b"),
                                 (lazy.of(a) / lazy.of(b), a / b, "a / b"),
                                 (1.0 - lazy.of(b), 1.0 - b, "1.0 - b")):
        text = source(node)
        assert_close(evaluate(text, node), expected, f"{what} written as {text!r}", rtol=0,
                     atol=1e-15)


@check("8.8")
def test_one_array_read_twice_is_one_leaf():
    """a * a + b reads a0 twice and b as a1: each distinct array has its own number."""
    lazy = lazy_module().Lazy
    a, b = np.array([2.0, 3.0]), np.array([5.0, 7.0])
    leaf = lazy.of(a)
    node = leaf * leaf + lazy.of(b)
    text = source(node)
    assert_close(evaluate(text, node), a * a + b, f"a * a + b written as {text!r}", rtol=0,
                 atol=1e-15)


@check("8.8")
def test_realize_runs_one_compiled_kernel():
    """realize() of a chain of five ops equals NumPy's passes, in float64 and in float32."""
    lazy = lazy_module().Lazy
    rng = np.random.default_rng(8)
    for dtype, tolerance in ((np.float64, 1e-12), (np.float32, 1e-5)):
        a, b = rng.uniform(0.5, 2.0, (2, 1000)).astype(dtype)
        got = ((lazy.of(a) * lazy.of(b) + lazy.of(a).exp()).tanh() - 0.5).realize()
        assert got.dtype == dtype, f"realize() of {dtype.__name__} arrays gave {got.dtype}"
        assert_close(got, np.tanh(a * b + np.exp(a)) - 0.5,
                     f"tanh(a * b + exp a) - 0.5 on {dtype.__name__}", rtol=tolerance,
                     atol=tolerance)


# -- 8.9 (bonus) cross-entropy fused with its gradient ------------------------------------------


def cross_entropy_definition(logits: np.ndarray, targets: np.ndarray):
    """(losses, ∂) by NumPy's passes, in float64: log-sum-exp with the max out, softmax - onehot."""
    z = logits.astype(np.float64)
    shifted = z - z.max(axis=1, keepdims=True)
    log_total = np.log(np.exp(shifted).sum(axis=1))
    rows = np.arange(len(z))
    losses = log_total - shifted[rows, targets]
    grad = np.exp(shifted - log_total[:, None])
    grad[rows, targets] -= 1.0
    return losses, grad


@st.composite
def logit_cases(draw):
    """logits (M, V), M 1–6, V 1–9, of magnitude up to 10^scale (scale 0–4), and targets."""
    rows, vocab = draw(st.integers(1, 6)), draw(st.integers(1, 9))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    scale = 10.0 ** draw(st.integers(0, 4))
    return rng.standard_normal((rows, vocab)) * scale, rng.integers(0, vocab, rows)


@probe("8.9")
def probe_cross_entropy(fw):
    return {"cross_entropy_rows([[0, 0], [1e4, 0]], [1, 0])": lambda: lazy_module()
            .cross_entropy_rows(np.array([[0.0, 0.0], [1e4, 0.0]]), np.array([1, 0]))}


@check("8.9")
@given(case=logit_cases())
def test_cross_entropy_rows_give_the_losses_and_their_gradient(case):
    """losses_i = logsumexp(z_i) - z_it and ∂ = softmax - onehot, finite for logits of 1e4."""
    logits, targets = case
    losses, grad = lazy_module().cross_entropy_rows(logits, targets)
    expected_losses, expected_grad = cross_entropy_definition(logits, targets)
    what = f"cross_entropy_rows of logits {logits.shape} up to {np.abs(logits).max():.3g}"
    assert np.isfinite(losses).all() and np.isfinite(grad).all(), (
        f"{what}: non-finite values; subtract the row's max before exp, and take the loss as "
        "log(sum) + max - z[target]")
    assert_close(losses, expected_losses, f"{what}: the losses", rtol=1e-9, atol=1e-9)
    assert_close(grad, expected_grad, f"{what}: the gradient", rtol=1e-9, atol=1e-12)


@check("8.9")
def test_cross_entropy_rows_keep_float32():
    """float32 logits give float32 losses and gradient, equal to float64's within 1e-5."""
    rng = np.random.default_rng(9)
    logits = rng.standard_normal((7, 11)).astype(np.float32) * 3
    targets = rng.integers(0, 11, 7)
    losses, grad = lazy_module().cross_entropy_rows(logits, targets)
    assert losses.dtype == np.float32 and grad.dtype == np.float32, (
        f"float32 logits gave losses {losses.dtype} and gradient {grad.dtype}")
    expected_losses, expected_grad = cross_entropy_definition(logits, targets)
    assert_close(losses, expected_losses, "float32 losses", rtol=1e-5, atol=1e-5)
    assert_close(grad, expected_grad, "float32 gradient", rtol=1e-5, atol=1e-6)
