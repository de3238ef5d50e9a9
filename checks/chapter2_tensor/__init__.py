"""Chapter 2 grader: the tensor engine, with NumPy broadcasting.

Op exercises (2.3–2.9) are graded through each result's `grad_fn` with the graders'
own walk and a random cotangent, against float64 central differences, so they do not
depend on the learner's walk (1.7) or hook (2.10). Each op check also compares the
forward value, the result's dtype (float32 in, float32 out) and the gradients' shapes and
dtypes with NumPy. `Tensor.backward` (Chapter 1's walk with the tensor's hook
`receive_grad`, 2.10) is graded on graphs of Functions written here, so it does not
depend on the op exercises.
"""

from __future__ import annotations

import gc
import importlib
import weakref

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays, mutually_broadcastable_shapes

from checks.harness import (
    assert_close,
    backprop,
    central_difference,
    check,
    framework,
    gradient_check,
    probe,
)

fw = framework()

seeds = st.integers(0, 2**32 - 1)
shapes = array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)
broadcast_pairs = mutually_broadcastable_shapes(
    num_shapes=2, min_dims=0, max_dims=3, max_side=4
).map(lambda b: b.input_shapes)
matmul_pairs = mutually_broadcastable_shapes(
    signature="(m?,n),(n,p?)->(m?,p?)", max_dims=2, max_side=4
).map(lambda b: b.input_shapes)

reals = st.floats(-2.0, 2.0)
positives = st.floats(0.5, 2.0)
# away from zero by construction: a magnitude and a sign
off_zero = st.tuples(st.floats(0.1, 2.0), st.sampled_from([-1.0, 1.0])).map(lambda t: t[0] * t[1])


@st.composite
def operands(draw, shape_pair, first=reals, second=reals):
    """Two float64 arrays whose shapes are drawn by `shape_pair`."""
    a_shape, b_shape = draw(shape_pair)
    return (draw(arrays(np.float64, a_shape, elements=first)),
            draw(arrays(np.float64, b_shape, elements=second)))


def array_of(shape, elements=reals):
    return arrays(np.float64, shape, elements=elements)


def pinned(*shape_list, low=-2.0, high=2.0):
    """Fixed arrays of the given shapes for `@example`: evenly spaced, no two equal."""
    out = []
    for shape in shape_list:
        size = int(np.prod(shape))
        out.append(np.linspace(low, high, size + 2)[1:-1].reshape(shape))
    return tuple(out)


PROMOTES = "a float64 array or np.float64 scalar in the rule promotes it"


def check_float32(fn, arrays_in: list, expected_fn, seed: int, what: str,
                  promotes: str = PROMOTES) -> None:
    """Forward value and dtype against NumPy in float32; gradient shapes and dtypes via grad_fn.
    `promotes` names the likely cause of a float64 gradient."""
    leaves = [fw.Tensor(np.asarray(a, dtype=np.float32), requires_grad=True) for a in arrays_in]
    out = fn(*leaves)
    expected = np.asarray(expected_fn(*[leaf.data for leaf in leaves]))
    assert out.data.dtype == np.float32, (
        f"{what}: float32 inputs gave a {out.data.dtype} result; NumPy gives {expected.dtype}"
    )
    assert_close(out.data, expected, f"{what}: forward value (float32)", rtol=1e-5, atol=1e-6)
    cotangent = np.random.default_rng(seed).standard_normal(out.data.shape).astype(np.float32)
    grads = backprop(out, cotangent)
    for index, leaf in enumerate(leaves):
        grad = grads.get(id(leaf))
        assert grad is not None, f"{what}: no gradient reached input {index}"
        grad = np.asarray(grad)
        assert grad.shape == leaf.data.shape, (
            f"{what}: gradient of shape {grad.shape} for input {index} of shape {leaf.data.shape}"
        )
        assert grad.dtype == np.float32, (
            f"{what}: the gradient of float32 input {index} is {grad.dtype}; a gradient keeps "
            f"its input's dtype ({promotes})"
        )


def check_op(fn, arrays_in: list, expected_fn, seed: int, what: str, promotes: str = PROMOTES,
             **tolerances) -> None:
    """The full per-op check: float64 gradients by central differences, then float32 behaviour."""
    gradient_check(fn, arrays_in, seed, what, **tolerances)
    check_float32(fn, arrays_in, expected_fn, seed, what, promotes)


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
    leading = grad.ndim - len(shape)
    for index in np.ndindex(grad.shape):
        source = tuple(0 if n == 1 else i for i, n in zip(index[leading:], shape))
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


# -- 2.7 reshape and permute -----------------------------------------------------------------------


@st.composite
def reshapes(draw):
    """An array and a shape with the same number of elements (maybe with -1)."""
    x = draw(shapes.flatmap(array_of))
    n, s = x.size, x.shape
    targets = [(n,), (-1,), s[::-1], (1, *s), (*s, 1), (1, -1), (-1, 1)]
    targets += [(d, n // d) for d in range(2, n) if n % d == 0]
    return x, draw(st.sampled_from(targets))


@st.composite
def permutations_of_axes(draw):
    x = draw(array_shapes(min_dims=1, max_dims=4, max_side=3).flatmap(array_of))
    return x, tuple(draw(st.permutations(range(x.ndim))))


@probe("2.7")
def probe_reshape_permute(fw):
    x = fw.Tensor(np.arange(6.0, dtype=np.float32).reshape(1, 2, 3), requires_grad=True)
    return {
        "rule of reshape to (3, 2)": lambda: x.reshape(3, 2).grad_fn(np.ones((3, 2), np.float32)),
        "rule of permute(1, 2, 0)": lambda: x.permute(1, 2, 0).grad_fn(
            np.arange(6.0, dtype=np.float32).reshape(2, 3, 1)),
    }


@check("2.7")
@given(case=reshapes(), seed=seeds)
@example(case=(np.arange(12.0).reshape(3, 4) / 4, (2, 6)), seed=0)
@example(case=(np.arange(6.0).reshape(2, 3) / 4, (3, 2)), seed=1)
def test_reshape_gradient(case, seed):
    """reshape: the gradient is reshaped back to the input's shape, elements in order."""
    x, shape = case
    check_op(lambda t: t.reshape(shape), [x], lambda a: a.reshape(shape), seed,
             f"reshape {x.shape} to {shape}")


@check("2.7")
@given(case=permutations_of_axes(), seed=seeds)
@example(case=(pinned((2, 3, 4))[0], (1, 2, 0)), seed=0)
@example(case=(pinned((2, 3, 4))[0], (2, 0, 1)), seed=1)
def test_permute_gradient(case, seed):
    """permute: the gradient is permuted back with the inverse order (a 3-axis cycle included)."""
    x, axes = case
    check_op(lambda t: t.permute(*axes), [x], lambda a: np.transpose(a, axes), seed,
             f"permute{axes} of shape {x.shape}")


@check("2.7")
@given(x=array_shapes(min_dims=2, max_dims=4, max_side=3).flatmap(array_of), seed=seeds)
@example(x=pinned((2, 3, 4))[0], seed=0)
def test_transpose_and_T_gradients(x, seed):
    """transpose(0, -1), the default transpose() and .T are permutes: their gradients go back."""
    cases = [
        ("transpose(0, -1)", lambda t: t.transpose(0, -1), lambda a: np.swapaxes(a, 0, -1)),
        ("transpose()", lambda t: t.transpose(), lambda a: np.swapaxes(a, -2, -1)),
        (".T", lambda t: t.T, lambda a: a.T),
    ]
    for name, fn, expected in cases:
        check_op(fn, [x], expected, seed, f"{name} of shape {x.shape}")


# -- 2.8 matmul ------------------------------------------------------------------------------------


matmul_examples = [
    ((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((2, 2, 3), (3, 4)),
    ((2, 1, 2, 3), (4, 3, 2)), ((3,), (2, 3, 4)), ((2, 4, 3), (3,)), ((3, 3), (3, 3)),
]


def with_matmul_examples(test):
    for i, pair in enumerate(matmul_examples):
        test = example(xs=pinned(*pair), seed=i)(test)
    return test


@probe("2.8")
def probe_matmul(fw):
    a = fw.Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = fw.Tensor([[0.5], [-1.0]], requires_grad=True)
    return {"rule of A @ B at ones": (a @ b).grad_fn(np.ones((2, 1), np.float32))}


@check("2.8")
@given(xs=operands(matmul_pairs), seed=seeds)
@with_matmul_examples
def test_matmul_gradient(xs, seed):
    """A @ B, 1-D, 2-D and batched with broadcast batch axes: ∂A = G Bᵀ, ∂B = Aᵀ G, summed back."""
    a, b = xs
    check_op(lambda x, y: x @ y, [a, b], np.matmul, seed, f"matmul {a.shape} @ {b.shape}")


@check("2.8")
@given(xs=operands(matmul_pairs), seed=seeds)
@example(xs=pinned((2, 2, 3), (3, 4)), seed=0)
@example(xs=pinned((3,), (3, 2)), seed=1)
def test_matmul_with_one_operand_constant(xs, seed):
    """fw.matmul(A, B) and A.matmul(B) with one side a NumPy array: only the tensor's gradient."""
    a, b = xs
    gradient_check(lambda x: fw.matmul(x, b), [a], seed, f"matmul {a.shape} @ array {b.shape}")
    gradient_check(lambda y: fw.Tensor(a).matmul(y), [b], seed,
                   f"matmul constant {a.shape} @ {b.shape}")


# -- 2.9 getitem -----------------------------------------------------------------------------------


@st.composite
def repeated_indices(draw):
    """An array and an integer index array along axis 0 in which some index repeats."""
    x = draw(array_shapes(min_dims=1, max_dims=3, max_side=4).flatmap(array_of))
    n = x.shape[0]
    picks = draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=5))
    return x, np.array(picks + [picks[0]])


def basic_indices(shape):
    """Ints, slices, None and ... that fit `shape` (at least one axis)."""
    last = shape[-1]
    menu = [0, -1, slice(None, None, 2), slice(1, None), (Ellipsis, 0), (None, 0),
            (slice(None), None), (Ellipsis, slice(None, None, -1)), (0, Ellipsis, None),
            (Ellipsis, last - 1)]
    if len(shape) >= 2:
        menu += [(0, 1 % shape[1]), (slice(None), 0), (-1, slice(None, None, -1))]
    return st.sampled_from(menu)


@st.composite
def basic_cases(draw):
    x = draw(array_shapes(min_dims=1, max_dims=3, max_side=4).flatmap(array_of))
    return x, draw(basic_indices(x.shape))


@st.composite
def mask_cases(draw):
    x = draw(array_shapes(min_dims=1, max_dims=3, max_side=4).flatmap(array_of))
    full = draw(st.booleans())
    shape = x.shape if full else x.shape[:1]
    return x, draw(arrays(np.bool_, shape))


def getitem_check(x, index, seed, what, plain=None) -> None:
    """Gradients of t[index]; `plain` is the same index for NumPy (default: index itself)."""
    plain = index if plain is None else plain
    check_op(lambda t: t[index], [x], lambda a: a[plain], seed, what)


@probe("2.9")
def probe_getitem(fw):
    x = fw.Tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = x[np.array([0, 0, 2])]
    return {"rule of x[[0, 0, 2]] at [1, 2, 3]": out.grad_fn(np.array([1.0, 2.0, 3.0], np.float32))}


@check("2.9")
@given(case=repeated_indices(), seed=seeds)
@example(case=(np.array([1.0, 2.0, 3.0]), np.array([0, 0, 1])), seed=0)
@example(case=(pinned((3, 2))[0], np.array([2, -1, 0, 2])), seed=1)
def test_getitem_repeated_indices_receive_the_sum(case, seed):
    """x[[i, i, ...]]: a repeated index receives the sum of its gradients (a scatter-add)."""
    x, index = case
    getitem_check(x, index, seed, f"x[{index.tolist()}] of shape {x.shape}")


@check("2.9")
@given(case=repeated_indices(), seed=seeds)
def test_getitem_with_an_integer_tensor_index(case, seed):
    """An int64 Tensor as index works like its array, repeats included."""
    x, index = case
    getitem_check(x, fw.Tensor(index), seed, f"x[Tensor({index.tolist()})] of shape {x.shape}",
                  plain=index)


@check("2.9")
@given(case=basic_cases(), seed=seeds)
@example(case=(pinned((2, 3))[0], (0, 1)), seed=0)
def test_getitem_with_ints_slices_none_and_ellipsis(case, seed):
    """Ints, slices (negative steps too), None and ...: the picked places get their gradient."""
    x, index = case
    getitem_check(x, index, seed, f"x[{index!r}] of shape {x.shape}")


@check("2.9")
@given(case=mask_cases(), seed=seeds)
@example(case=(pinned((2, 3))[0], np.array([[True, False, True], [False, False, True]])), seed=0)
def test_getitem_with_a_boolean_mask(case, seed):
    """x[mask]: the selected elements get their gradient, the others zero."""
    x, mask = case
    getitem_check(x, mask, seed, f"x[mask {mask.tolist()}] of shape {x.shape}")


@check("2.9")
@given(seed=seeds)
def test_getitem_with_two_index_arrays(seed):
    """x[[0, 0, 2], [1, 1, 0]]: pairs of indices, the repeated pair receives the sum."""
    x = pinned((3, 2))[0]
    index = (np.array([0, 0, 2]), np.array([1, 1, 0]))
    getitem_check(x, index, seed, "x[[0, 0, 2], [1, 1, 0]] of shape (3, 2)")


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
                 "leaves accumulate (+=), never overwrite")


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


# -- bonus track: graded apart from the 100 points ---------------------------------------------


def extra():
    """`framework.ops_extra`, the bonus file (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.ops_extra")


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
    shift = np.max(a, axis=axis, keepdims=True)
    out = shift + np.log(np.sum(np.exp(a - shift), axis=axis, keepdims=True))
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
