"""Chapter 2, exercises 2.1–2.2: the numerical gradient for arrays, and unbroadcast."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from checks.chapter2_tensor.common import array_of, broadcast_pairs, fw, off_zero, seeds, shapes
from checks.harness import assert_close, check, probe

# -- 2.1 numerical gradient for arrays ---------------------------------------------------------


@probe("2.1")
def probe_numerical_gradient(fw):
    x = np.array([1.0, -2.0, 3.0])
    return {"∇ Σx² at [1, -2, 3]": fw.numerical_gradient(lambda v: float(np.sum(v * v)), x)}


known_gradients = {
    "Σ x²": (lambda x: np.sum(x * x), lambda x: 2 * x),
    "Σ sin x": (lambda x: np.sum(np.sin(x)), np.cos),
    "log Σ eˣ": (lambda x: np.log(np.sum(np.exp(x))), lambda x: np.exp(x) / np.sum(np.exp(x))),
    "(Σ x)³": (lambda x: np.sum(x) ** 3, lambda x: np.full_like(x, 3 * np.sum(x) ** 2)),
}


@check("2.1")
@given(x=shapes.flatmap(array_of), which=st.sampled_from(sorted(known_gradients)))
@example(x=np.array(0.5), which="Σ x²")
def test_numerical_gradient_matches_known_gradients(x, which):
    """The numerical gradient of Σx², Σsin x, log Σeˣ and (Σx)³ matches the analytic one."""
    f, df = known_gradients[which]
    got = fw.numerical_gradient(lambda v: float(f(v)), x)
    assert_close(got, df(x), f"numerical gradient of {which} at {x.tolist()}", atol=1e-5)


@check("2.1")
@given(x=shapes.flatmap(array_of), w=off_zero, eps=st.sampled_from([0.1, 0.05, 0.2]))
def test_numerical_gradient_is_central_with_the_given_eps(x, w, eps):
    """For (w·Σx)² + Σx³ a central difference gives 2w²Σx + 3x² + eps² exactly, restoring x."""
    f = lambda v: float((w * np.sum(v)) ** 2 + np.sum(v**3))
    got = fw.numerical_gradient(f, x, eps=eps)
    expected = 2 * w * w * np.sum(x) + 3 * x * x + eps * eps
    assert_close(got, expected, f"numerical gradient of (w·Σx)² + Σx³ at {x.tolist()}, "
                 f"w={w}, eps={eps} (a one-sided difference is off by about eps; an element "
                 "not put back shifts the next ones)", atol=1e-8)


@check("2.1")
@given(x=array_shapes(min_dims=1, max_dims=3, max_side=4).flatmap(array_of))
def test_numerical_gradient_never_changes_the_callers_array(x):
    """The caller's array is the same during and after the call: perturb a float64 copy."""
    original = x.copy()
    seen_changed = []

    def f(v):
        if not np.array_equal(x, original):
            seen_changed.append(True)
        return float(np.sum(v * v))

    fw.numerical_gradient(f, x)
    assert not seen_changed and np.array_equal(x, original), (
        "numerical_gradient changed the caller's array while it ran; perturb a copy "
        "(np.array(x, dtype=np.float64)), never x itself"
    )


@check("2.1")
@given(x=array_shapes(min_dims=1, max_dims=2, max_side=4).flatmap(array_of))
def test_numerical_gradient_of_a_float32_array_is_accurate(x):
    """A float32 input is differenced in float64: eps = 1e-6 is lost in float32 rounding."""
    x32 = x.astype(np.float32)
    got = fw.numerical_gradient(lambda v: float(np.sum(v * v)), x32)
    assert_close(got, 2 * x32.astype(np.float64), "numerical gradient of Σx² for a float32 x "
                 "(work on a float64 copy)", atol=1e-5)


# -- 2.2 unbroadcast ---------------------------------------------------------------------------


def summed_back(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """The adjoint of broadcasting, element by element: each copy adds to its source."""
    expected = np.zeros(shape)
    added = grad.ndim - len(shape)  # the axes broadcasting put in front
    for index in np.ndindex(grad.shape):
        source = tuple(0 if n == 1 else i for i, n in zip(index[added:], shape))
        expected[source] += grad[index]
    return expected


@probe("2.2")
def probe_unbroadcast(fw):
    grad = np.arange(6.0).reshape(2, 3)
    return {"(2, 3) to (3,)": lambda: fw.unbroadcast(grad, (3,)),
            "(2, 3) to (2, 1)": lambda: fw.unbroadcast(grad, (2, 1))}


@check("2.2")
@given(pair=broadcast_pairs, seed=seeds)
@example(pair=((3, 1), (1, 4)), seed=0)
@example(pair=((), (2, 3)), seed=1)
@example(pair=((4,), (2, 3, 1)), seed=2)
def test_unbroadcast_sums_copies_back_to_each_shape(pair, seed):
    """For a broadcast pair, unbroadcast(grad, shape) is each copy summed back to its source."""
    result_shape = np.broadcast_shapes(*pair)
    grad = np.random.default_rng(seed).standard_normal(result_shape)
    for shape in pair:
        got = np.asarray(fw.unbroadcast(grad, shape))
        assert got.shape == tuple(shape), (
            f"unbroadcast of a {result_shape} gradient to {shape} has shape {got.shape}"
        )
        assert_close(got, summed_back(grad, shape), f"unbroadcast from {result_shape} to {shape}")


@check("2.2")
@given(pair=broadcast_pairs, seed=seeds)
@example(pair=((2, 1, 3), (4, 3)), seed=0)
def test_unbroadcast_keeps_float32(pair, seed):
    """A float32 gradient stays float32 after summing back, and has the target shape."""
    result_shape = np.broadcast_shapes(*pair)
    grad = np.random.default_rng(seed).standard_normal(result_shape).astype(np.float32)
    for shape in pair:
        got = np.asarray(fw.unbroadcast(grad, shape))
        assert got.dtype == np.float32 and got.shape == tuple(shape), (
            f"unbroadcast of a float32 {result_shape} gradient to {shape}: got "
            f"{got.dtype} of shape {got.shape}"
        )
        assert_close(got, summed_back(grad, shape), f"unbroadcast from {result_shape} to {shape}",
                     rtol=1e-4, atol=1e-5)


@check("2.2")
@given(shape=shapes, seed=seeds)
def test_unbroadcast_to_the_same_shape_changes_nothing(shape, seed):
    """When grad already has the target shape, unbroadcast returns its values unchanged."""
    grad = np.random.default_rng(seed).standard_normal(shape)
    assert_close(fw.unbroadcast(grad, shape), grad, f"unbroadcast from {shape} to itself")


@check("2.2")
def test_unbroadcast_classic_cases():
    """(2, 3) to (3,), (2, 1), (1, 3), () and (1, 1): the sums by hand."""
    grad = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    cases = {
        (3,): [5.0, 7.0, 9.0], (2, 1): [[6.0], [15.0]], (1, 3): [[5.0, 7.0, 9.0]],
        (): 21.0, (1, 1): [[21.0]], (2, 3): grad,
    }
    for shape, expected in cases.items():
        assert_close(fw.unbroadcast(grad, shape), expected,
                     f"unbroadcast of {grad.tolist()} to {shape}")
