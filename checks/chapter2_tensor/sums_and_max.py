"""Chapter 2, exercises 2.5–2.6: the backward of sum and mean, and of max with its ties."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from checks.chapter2_tensor.common import PROMOTES, array_of, check_op, fw, reals, seeds, shapes
from checks.harness import assert_close, check, probe

# -- 2.5 sum and mean ------------------------------------------------------------------------------


@st.composite
def reductions(draw, values=reals):
    """An array, an axis and keepdims; the axis is, about equally often, None, an int, a
    negative int or a tuple (whose entries are negative about half the time)."""
    shape = draw(shapes)
    ndim = len(shape)
    kind = draw(st.sampled_from(["none", "int", "negative int", "tuple"])) if ndim else "none"
    if kind == "none":
        axis = None
    elif kind == "int":
        axis = draw(st.integers(0, ndim - 1))
    elif kind == "negative int":
        axis = draw(st.integers(-ndim, -1))
    else:
        axes = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
        axis = tuple(a - ndim if draw(st.booleans()) else a for a in axes)
    return draw(array_of(shape, values)), axis, draw(st.booleans())


TIE_COUNT_PROMOTES = (
    "likely the count of ties: summing a boolean array counts in int64, and float32 divided "
    "by int64 is float64; count with sum(..., dtype=a.dtype) or cast the count to a.dtype")


def reduction_check(name: str, x, axis, keepdims, seed, np_fn) -> None:
    what = f"{name}(axis={axis}, keepdims={keepdims}) of shape {x.shape}"
    fn = lambda t: getattr(t, name)(axis=axis, keepdims=keepdims)
    promotes = TIE_COUNT_PROMOTES if name == "amax" else PROMOTES
    check_op(fn, [x], lambda a: np_fn(a, axis=axis, keepdims=keepdims), seed, what, promotes)


reduction_examples = [
    (np.arange(9.0).reshape(3, 3), 1, False),
    (np.arange(24.0).reshape(2, 3, 4) / 10, (0, -1), False),
    (np.arange(24.0).reshape(2, 3, 4) / 10, 1, True),
    (np.arange(24.0).reshape(2, 3, 4) / 10, -2, False),
    (np.array(1.5), None, False),
]


def with_reduction_examples(test):
    for x, axis, keepdims in reduction_examples:
        test = example(case=(x, axis, keepdims), seed=0)(test)
    return test


@probe("2.5")
def probe_sum_mean(fw):
    x = fw.Tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), requires_grad=True)
    g = np.array([1.0, 2.0], dtype=np.float32)
    return {"rule of sum(axis=1) at [1, 2]": lambda: x.sum(axis=1).grad_fn(g),
            "rule of mean(axis=1) at [1, 2]": lambda: x.mean(axis=1).grad_fn(g)}


@check("2.5")
@given(case=reductions(), seed=seeds)
@with_reduction_examples
def test_sum_gradient_over_any_axes(case, seed):
    """sum over None, an int, a negative int or a tuple, keepdims or not: ∂a = g, re-expanded."""
    reduction_check("sum", *case, seed, np.sum)


@check("2.5")
@given(case=reductions(), seed=seeds)
@with_reduction_examples
def test_mean_gradient_over_any_axes(case, seed):
    """mean over any axes: ∂a = g / n, n the number of elements reduced."""
    reduction_check("mean", *case, seed, np.mean)


# -- 2.6 max -------------------------------------------------------------------------------------


@st.composite
def distinct_reductions(draw):
    """A reduction case whose values are a random permutation of distinct, spaced numbers."""
    x, axis, keepdims = draw(reductions())
    order = draw(st.permutations(range(x.size)))
    offset = draw(st.floats(-1.0, 1.0))
    values = (np.array(order, dtype=np.float64) - x.size / 2) * 0.25 + offset
    return values.reshape(x.shape), axis, keepdims


@st.composite
def tied_reductions(draw):
    """A reduction case with values from {0, 1, 2}: ties at the maximum are common."""
    x, axis, keepdims = draw(reductions(values=st.sampled_from([0.0, 1.0, 2.0])))
    return x, axis, keepdims


@probe("2.6")
def probe_max(fw):
    x = fw.Tensor([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]], requires_grad=True)
    g = np.array([1.0, 1.0], dtype=np.float32)
    return {"rule of amax(axis=1) of [[1, 3, 3], [2, 0, -1]] at ones": x.amax(axis=1).grad_fn(g)}


@check("2.6")
@given(case=distinct_reductions(), seed=seeds)
@example(case=(np.array([[0.5, 2.0, -1.0], [1.5, -0.5, 0.0], [3.0, 1.0, 2.5]]), 1, False), seed=0)
@example(case=(np.array([[0.5, 2.0, -1.0], [1.5, -0.5, 0.0]]), None, False), seed=1)
@example(case=(np.arange(24.0).reshape(2, 3, 4)[:, ::-1] / 4, (0, 2), True), seed=2)
def test_max_gradient_without_ties(case, seed):
    """max over any axes of distinct values: the whole gradient goes to the maximum."""
    reduction_check("amax", *case, seed, np.max)


@check("2.6")
@given(case=tied_reductions(), seed=seeds)
@example(case=(np.ones((2, 2)), None, False), seed=0)
@example(case=(np.array([[3.0, 3.0, 1.0], [2.0, 0.0, 2.0]]), 1, False), seed=1)
@example(case=(np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 2.0]]), (-2, -1), True), seed=2)
def test_max_splits_the_gradient_equally_among_ties(case, seed):
    """With k tied maxima each receives g / k (finite differences cannot check this)."""
    x, axis, keepdims = case
    axes = tuple(range(x.ndim)) if axis is None else tuple(
        np.atleast_1d(axis) % max(x.ndim, 1))
    leaf = fw.Tensor(x, requires_grad=True)
    out = leaf.amax(axis=axis, keepdims=keepdims)
    cotangent = np.random.default_rng(seed).standard_normal(out.data.shape)
    (grad,) = out.grad_fn(cotangent)
    top = x.max(axis=axes, keepdims=True)
    winners = x == top
    expected = winners * cotangent.reshape(top.shape) / winners.sum(axis=axes, keepdims=True)
    assert_close(grad, expected, f"amax(axis={axis}, keepdims={keepdims}) gradient of "
                 f"{x.tolist()}: each of k tied maxima gets g / k")
    assert_close(out.data, x.max(axis=axes, keepdims=keepdims), f"amax(axis={axis}) of {x.tolist()}")
