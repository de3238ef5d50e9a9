"""Chapter 2's bonus track, graded apart from the 100 points: 2.11 cumsum, 2.12 logsumexp."""

from __future__ import annotations

import importlib

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from checks.chapter2_tensor.common import array_of, check_op, fw, reals, seeds
from checks.harness import assert_close, backprop, check, probe

# -- bonus track: graded apart from the 100 points ---------------------------------------------


def extra():
    """`framework.bonus.chapter2_tensor`, the bonus file (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.bonus.chapter2_tensor")


@st.composite
def along_an_axis(draw, elements=reals):
    """An array of 1 to 3 axes and one of its axes, negative about half the time."""
    x = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4).flatmap(
        lambda shape: array_of(shape, elements)))
    axis = draw(st.integers(0, x.ndim - 1))
    return x, axis - x.ndim if draw(st.booleans()) else axis


# -- 2.11 (bonus) cumsum ------------------------------------------------------------------------


@probe("2.11")
def probe_cumsum(fw):
    x = fw.Tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    return {"cumsum along 1": lambda: extra().cumsum(x, 1).data,
            "its rule at ones": lambda: extra().cumsum(x, 1).grad_fn(np.ones((2, 3)))}


@check("2.11")
@given(case=along_an_axis(), seed=seeds)
@example(case=(np.array([1.0, -2.0, 0.5]), 0), seed=0)
def test_cumsum_value_and_gradient(case, seed):
    """cumsum along an axis: the running sum, and ∂a_j = Σ_{i ≥ j} g_i (float64 and float32)."""
    x, axis = case
    check_op(lambda t: extra().cumsum(t, axis), [x], lambda a: np.cumsum(a, axis=axis), seed,
             f"cumsum(dim={axis}) of shape {x.shape}")


@check("2.11")
@given(n=st.integers(1, 6))
def test_cumsum_gradient_counts_the_outputs_each_input_reaches(n):
    """For cumsum of n values and g = ones, input j reaches n - j outputs: ∂a = [n, n-1, …, 1]."""
    leaf = fw.Tensor(np.zeros(n), requires_grad=True)
    grad = backprop(extra().cumsum(leaf, 0), np.ones(n)).get(id(leaf))
    assert_close(grad, np.arange(n, 0, -1), f"the rule of cumsum of {n} values at g = ones")


# -- 2.12 (bonus) logsumexp ----------------------------------------------------------------------


def logsumexp_formula(a, axis, keepdims):
    a = np.asarray(a, dtype=np.float64)
    peak = a.max(axis=axis, keepdims=True)
    out = peak + np.log(np.sum(np.exp(a - peak), axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis)


@probe("2.12")
def probe_logsumexp(fw):
    x = fw.Tensor([[0.0, 1.0, 2.0], [1000.0, 1000.0, 0.0]], requires_grad=True)
    return {"logsumexp along 1": lambda: extra().logsumexp(x, 1).data}


@check("2.12")
@given(case=along_an_axis(), keepdim=st.booleans(), seed=seeds)
@example(case=(np.array([[0.5, -1.0], [2.0, 0.0]]), 1), keepdim=False, seed=0)
def test_logsumexp_value_and_gradient(case, keepdim, seed):
    """log Σ eᵃ along an axis, kept or not: ∂a = g · softmax(a) (float64 and float32)."""
    x, axis = case
    check_op(lambda t: extra().logsumexp(t, axis, keepdim), [x],
             lambda a: np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdim)), seed,
             f"logsumexp(dim={axis}, keepdim={keepdim}) of shape {x.shape}")


@check("2.12")
@given(case=along_an_axis(st.floats(-2.0, 2.0).map(lambda v: v + 1000.0)),
       sign=st.sampled_from([-1.0, 1.0]), seed=seeds)
def test_logsumexp_is_finite_for_large_inputs(case, sign, seed):
    """Values near ±1000 give the exact result and gradient, never inf or nan (shift by the max)."""
    x, axis = case
    x = sign * x
    leaf = fw.Tensor(x, requires_grad=True)
    out = extra().logsumexp(leaf, axis)
    expected = logsumexp_formula(x, axis, False)
    what = f"logsumexp(dim={axis}) of values near {sign * 1000:g}, shape {x.shape}"
    assert_close(out.data, expected, what, rtol=1e-12, atol=1e-9)
    g = np.random.default_rng(seed).standard_normal(expected.shape)
    grad = backprop(out, g).get(id(leaf))
    want = np.expand_dims(g, axis) * np.exp(x - np.expand_dims(expected, axis))
    assert_close(grad, want, f"{what}: the rule", rtol=1e-9, atol=1e-12)
