"""Chapter 2, exercises 2.3–2.4: the binary and unary elementwise ops' backward."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from checks.chapter2_tensor.common import (
    array_of,
    broadcast_pairs,
    check_op,
    fw,
    off_zero,
    operands,
    pinned,
    positives,
    reals,
    seeds,
    shapes,
)
from checks.harness import assert_close, check, gradient_check, probe

# -- 2.3 binary elementwise ops ------------------------------------------------------------------


@probe("2.3")
def probe_binary(fw):
    a = fw.Tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = fw.Tensor([[2.0], [4.0]], requires_grad=True)
    g = np.ones((2, 3), dtype=np.float32)
    return {
        "rule of [1, 2, 3] * [[2], [4]] at ones": lambda: (a * b).grad_fn(g),
        "rule of [1, 2, 3] + [[2], [4]] at ones": lambda: (a + b).grad_fn(g),
    }


@check("2.3")
@given(xs=operands(broadcast_pairs), seed=seeds)
@example(xs=pinned((3, 1), (1, 4)), seed=0)
@example(xs=pinned((), (2, 3)), seed=1)
def test_add_gradient_with_broadcasting(xs, seed):
    """a + b on broadcast shapes: value, dtype, and gradients summed back to each input."""
    check_op(lambda a, b: a + b, list(xs), np.add, seed, "add")


@check("2.3")
@given(xs=operands(broadcast_pairs), seed=seeds)
@example(xs=pinned((3, 1), (1, 4)), seed=0)
@example(xs=pinned((), (2, 3)), seed=1)
def test_mul_gradient_with_broadcasting(xs, seed):
    """a · b on broadcast shapes: ∂a = g·b and ∂b = g·a, each summed back."""
    check_op(lambda a, b: a * b, list(xs), np.multiply, seed, "mul")


@check("2.3")
@given(xs=operands(broadcast_pairs, second=off_zero), seed=seeds)
@example(xs=pinned((3, 1), (1, 4), low=0.5, high=2.0), seed=0)
@example(xs=pinned((), (2, 3), low=0.5, high=2.0), seed=1)
def test_div_gradient_with_broadcasting(xs, seed):
    """a / b (b away from 0): ∂a = g/b and ∂b = -g·a/b², each summed back."""
    check_op(lambda a, b: a / b, list(xs), np.divide, seed, "div")


@check("2.3")
@given(xs=operands(broadcast_pairs, first=positives), seed=seeds)
@example(xs=pinned((3, 1), (1, 4), low=0.5, high=2.0), seed=0)
@example(xs=pinned((), (2, 3), low=0.5, high=2.0), seed=1)
def test_pow_gradient_with_broadcasting(xs, seed):
    """aᵇ (a > 0): ∂a = g·b·aᵇ⁻¹ and ∂b = g·aᵇ·ln a, each summed back."""
    check_op(lambda a, b: a**b, list(xs), np.power, seed, "pow")


number_ops = {
    "x + 2.5": (lambda t: t + 2.5, lambda x: x + 2.5),
    "2.5 + x": (lambda t: 2.5 + t, lambda x: 2.5 + x),
    "x * -1.5": (lambda t: t * -1.5, lambda x: x * -1.5),
    "-1.5 * x": (lambda t: -1.5 * t, lambda x: -1.5 * x),
    "x / 2.0": (lambda t: t / 2.0, lambda x: x / 2.0),
    "2.0 / x": (lambda t: 2.0 / t, lambda x: 2.0 / x),
    "x ** 2": (lambda t: t**2, lambda x: x**2),
    "x ** 3.0": (lambda t: t**3.0, lambda x: x**3.0),
    "x * array": (lambda t: t * np.linspace(1, 2, t.shape[-1] if t.ndim else 1),
                  lambda x: x * np.linspace(1, 2, x.shape[-1] if x.ndim else 1)),
    "array / x": (lambda t: np.linspace(1, 2, t.shape[-1] if t.ndim else 1) / t,
                  lambda x: np.linspace(1, 2, x.shape[-1] if x.ndim else 1) / x),
}


@check("2.3")
@given(x=shapes.flatmap(lambda s: array_of(s, off_zero)), which=st.sampled_from(sorted(number_ops)),
       seed=seeds)
def test_numbers_and_arrays_on_either_side(x, which, seed):
    """Python numbers and NumPy arrays work on either side; only the tensor gets a gradient."""
    fn, expected = number_ops[which]
    gradient_check(fn, [x], seed, which)
    out = fn(fw.Tensor(x))
    assert_close(out.data, expected(x), f"{which} at {x.tolist()}")


@check("2.3")
@given(x=shapes.flatmap(lambda s: array_of(s, positives)), seed=seeds)
def test_a_number_to_a_tensor_power(x, seed):
    """2.0 ** x: the exponent's gradient is g·2ˣ·ln 2."""
    gradient_check(lambda t: 2.0**t, [x], seed, "2.0 ** x")
    assert_close((2.0 ** fw.Tensor(x)).data, 2.0**x, f"2.0 ** {x.tolist()}")


# -- 2.4 unary elementwise ops -------------------------------------------------------------------


@probe("2.4")
def probe_unary(fw):
    x = fw.Tensor([-1.0, 0.5, 2.0], requires_grad=True)
    g = np.ones(3, dtype=np.float32)
    return {f"rule of {name} at ones": lambda name=name: getattr(x, name)().grad_fn(g)
            for name in ("exp", "tanh", "relu", "sigmoid")}


unary_ops = {
    "exp": (reals, np.exp),
    "log": (st.floats(0.1, 3.0), np.log),
    "tanh": (reals, np.tanh),
    "relu": (off_zero, lambda x: np.maximum(x, 0)),
    "sigmoid": (st.floats(-4.0, 4.0), lambda x: 1 / (1 + np.exp(-x))),
}


def unary_check(name: str, x: np.ndarray, seed: int) -> None:
    check_op(lambda t: getattr(t, name)(), [x], unary_ops[name][1], seed, name)


def unary_inputs(name: str):
    return shapes.flatmap(lambda s: array_of(s, unary_ops[name][0]))


@check("2.4")
@given(x=unary_inputs("exp"), seed=seeds)
@example(x=np.array(1.0), seed=0)
def test_exp_gradient(x, seed):
    """exp: ∂a = g·eᵃ."""
    unary_check("exp", x, seed)


@check("2.4")
@given(x=unary_inputs("log"), seed=seeds)
@example(x=np.array([0.1, 1.0, 3.0]), seed=0)
def test_log_gradient(x, seed):
    """log (a > 0): ∂a = g / a."""
    unary_check("log", x, seed)


@check("2.4")
@given(x=unary_inputs("tanh"), seed=seeds)
def test_tanh_gradient(x, seed):
    """tanh: ∂a = g·(1 - tanh²a)."""
    unary_check("tanh", x, seed)


@check("2.4")
@given(x=unary_inputs("relu"), seed=seeds)
@example(x=np.array([[-1.0, 0.5], [2.0, -0.1]]), seed=0)
def test_relu_gradient(x, seed):
    """relu (a away from 0): the gradient passes where a > 0 and is 0 where a < 0."""
    unary_check("relu", x, seed)


@check("2.4")
@given(x=unary_inputs("sigmoid"), seed=seeds)
def test_sigmoid_gradient(x, seed):
    """sigmoid: ∂a = g·s(1 - s)."""
    unary_check("sigmoid", x, seed)


@check("2.4")
@given(scale=st.floats(700.0, 1e4), seed=seeds)
@example(scale=1e4, seed=0)
def test_sigmoid_gradient_is_finite_at_large_logits(scale, seed):
    """sigmoid at ±1e4: values 0 and 1, gradient 0, nothing infinite or NaN."""
    x = fw.Tensor(np.array([-scale, scale], dtype=np.float32), requires_grad=True)
    out = x.sigmoid()
    g = np.random.default_rng(seed).standard_normal(2).astype(np.float32)
    (grad,) = out.grad_fn(g)
    assert_close(out.data, [0.0, 1.0], f"sigmoid of [-{scale:g}, {scale:g}]")
    assert_close(grad, [0.0, 0.0], f"the sigmoid rule at [-{scale:g}, {scale:g}]")
