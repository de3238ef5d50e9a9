"""Chapter 2, exercises 2.7–2.9: the backward of reshape and permute, matmul and getitem."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from checks.chapter2_tensor.common import (
    array_of,
    check_op,
    fw,
    matmul_pairs,
    operands,
    pinned,
    seeds,
    shapes,
)
from checks.harness import check, gradient_check, probe

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
