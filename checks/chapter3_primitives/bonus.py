"""Chapter 3's bonus track, graded apart from the 100 points: 3.8 softplus, 3.9 the Huber loss."""

from __future__ import annotations

import importlib

import numpy as np
from hypothesis import assume, example, given
from hypothesis import strategies as st

from checks.chapter3_primitives.common import array_of, fw, seeds, small_shapes
from checks.harness import assert_close, backprop, check, gradient_check, probe

# -- bonus track: graded apart from the 100 points ---------------------------------------------


def smooth():
    """`framework.bonus.chapter3_primitives`, the bonus file (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.bonus.chapter3_primitives")


def softplus_formula(x, beta):
    z = beta * np.asarray(x, dtype=np.float64)
    return np.logaddexp(0.0, z) / beta  # log(1 + e^z), without overflow


betas = st.sampled_from([1.0, 1.0, 0.5, 2.0, 3.0])


# -- 3.8 (bonus) softplus ------------------------------------------------------------------------


@probe("3.8")
def probe_softplus(fw):
    x = fw.Tensor([-2.0, 0.0, 2.0])
    return {"softplus([-2, 0, 2])": lambda: smooth().softplus(x).data,
            "with beta 2": lambda: smooth().softplus(x, beta=2.0).data}


@check("3.8")
@given(x=small_shapes.flatmap(array_of), beta=betas, seed=seeds)
@example(x=np.array([-2.0, 0.0, 2.0]), beta=2.0, seed=0)
def test_softplus_value_and_gradient(x, beta, seed):
    """(1/β) ln(1 + e^(βx)) and its gradient g · σ(βx), by central differences."""
    what = f"softplus(beta={beta}) of shape {x.shape}"
    assert_close(smooth().softplus(fw.Tensor(x), beta=beta).data, softplus_formula(x, beta), what)
    gradient_check(lambda t: smooth().softplus(t, beta=beta), [x], seed, what)


@check("3.8")
@given(beta=betas, dtype=st.sampled_from([np.float32, np.float64]), seed=seeds)
def test_softplus_is_finite_and_exact_at_1e4(beta, dtype, seed):
    """At ±1e4: values 1e4 and 0, gradient g and 0, in the input's dtype, no inf or nan."""
    x = fw.Tensor(np.array([-1e4, 1e4], dtype=dtype), requires_grad=True)
    out = smooth().softplus(x, beta=beta)
    assert out.data.dtype == dtype, f"softplus of {np.dtype(dtype)} gave {out.data.dtype}"
    assert_close(out.data, [0.0, 1e4], f"softplus(beta={beta}) of [-1e4, 1e4]", rtol=1e-6)
    g = np.random.default_rng(seed).standard_normal(2).astype(dtype)
    grad = backprop(out, g).get(id(x))
    assert_close(grad, [0.0, g[1]], f"softplus(beta={beta})'s gradient at [-1e4, 1e4]")


# -- 3.9 (bonus) Huber loss ----------------------------------------------------------------------


def huber_formula(x, y, reduction, delta):
    d = np.asarray(x, dtype=np.float64) - y
    losses = np.where(np.abs(d) <= delta, 0.5 * d * d, delta * (np.abs(d) - 0.5 * delta))
    return {"none": losses, "sum": losses.sum(), "mean": losses.mean()}[reduction]


@st.composite
def huber_cases(draw):
    """x, y of one shape, a reduction and δ; no difference within 1e-3 of the kink at ±δ."""
    shape = draw(small_shapes)
    x, y = draw(array_of(shape)), draw(array_of(shape))
    delta = draw(st.sampled_from([1.0, 0.5, 2.0]) | st.floats(0.1, 3.0))
    assume(np.all(np.abs(np.abs(x - y) - delta) > 1e-3))
    return x, y, draw(st.sampled_from(["mean", "sum", "none"])), delta


@probe("3.9")
def probe_huber(fw):
    x, y = fw.Tensor([0.5, 3.0, -2.0]), fw.Tensor([0.0, 0.0, 0.0])
    return {"huber_loss([0.5, 3, -2], 0, 'none')":
            lambda: smooth().huber_loss(x, y, reduction="none").data}


@check("3.9")
@given(case=huber_cases(), seed=seeds)
@example(case=(np.array([0.5, 3.0, -2.0]), np.zeros(3), "none", 1.0), seed=0)
def test_huber_loss_value_and_gradients(case, seed):
    """½d² inside ±δ, δ(|d| − ½δ) outside, reduced; gradients of input and target by differences."""
    x, y, reduction, delta = case
    what = f"huber_loss(reduction={reduction!r}, delta={delta:.4g}) of shape {x.shape}"
    got = smooth().huber_loss(fw.Tensor(x), fw.Tensor(y), reduction=reduction, delta=delta)
    assert_close(got.data, huber_formula(x, y, reduction, delta), what)
    gradient_check(lambda a, b: smooth().huber_loss(a, b, reduction=reduction, delta=delta),
                   [x, y], seed, what)


@check("3.9")
@given(d=st.floats(-50.0, 50.0), delta=st.floats(0.1, 3.0))
def test_huber_gradient_is_the_difference_clipped_to_delta(d, delta):
    """One element, 'sum': the gradient is d inside ±δ and ±δ outside, never more."""
    x = fw.Tensor(np.array([d]), requires_grad=True)
    out = smooth().huber_loss(x, fw.Tensor(np.zeros(1)), reduction="sum", delta=delta)
    grad = backprop(out, np.array(1.0)).get(id(x))
    assert_close(grad, [min(max(d, -delta), delta)],
                 f"huber_loss(reduction='sum', delta={delta:.4g})'s gradient at d = {d:.4g}")
