"""What chapter 2's parts share: the strategies, pinned examples and the check of one op."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays, mutually_broadcastable_shapes

from checks.harness import assert_close, backprop, framework, gradient_check

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


PROMOTES = ("a NumPy scalar or float64 array in the rule promotes it: most often an integer "
            "count (np.prod(...) or a sum of a boolean mask gives an np.int64, which NumPy 2 "
            "promotes float32 to float64 with; a Python int does not), or an np.float64; make "
            "the count a Python number (int(count)) or cast with .astype(grad.dtype)")


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
