"""Chapter 8, exercises 8.3–8.4: map, zip and reduce kernels on every core; the tiled matmul.

8.3's kernels are called directly, with the raw arguments a launcher would pass (1-D storages,
int64 shapes and strides, offsets) built here from drawn layouts, so 8.3 is graded without
8.2's views: inputs transposed, reversed, broadcast (stride 0) and at offsets inside larger
storages; outputs themselves strided and filled with a sentinel that must survive wherever no
element of the output lives; 0-d and empty shapes. A few @njit functions are defined once here:
each compiled kernel costs about a second.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from numba import njit

from checks.chapter8_kernels.common import (
    SENTINEL,
    Layout,
    built,
    ints,
    kernels,
    layout_for,
    layouts,
    out_layouts,
    positions,
    read,
    seeds,
    shapes,
    storage_for,
)
from checks.harness import assert_close, check, probe


@njit
def affine(x):
    return 3.0 * x - 1.0


@njit
def combine(x, y):
    return x - 2.0 * y


@njit
def add(total, x):
    return total + x


@njit
def largest(total, x):
    return max(total, x)


@njit
def fold(total, x):
    return total * 2.0 + x


# the same folds in NumPy, one step for all outputs at once; and each one's start
FOLDS = {"sum": (add, np.add, 0.0), "max": (largest, np.maximum, -math.inf),
         "acc * 2 + x": (fold, lambda total, x: total * 2.0 + x, 0.5)}


def tolerance(dtype) -> dict:
    return {"rtol": 1e-6, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-12}


def layout_args(storage: np.ndarray, layout: Layout) -> tuple:
    return storage, ints(layout.strides), layout.offset


def check_out(out: np.ndarray, layout: Layout, expected: np.ndarray, what: str) -> None:
    """out's view holds `expected`, in out's dtype; every other position still the sentinel."""
    got = read(out, layout.shape, layout.strides, layout.offset)
    assert_close(got, expected, f"{what}: out read through its shape, strides and offset",
                 **tolerance(out.dtype))
    outside = np.ones(layout.size, bool)
    outside[positions(layout).reshape(-1)] = False
    touched = np.flatnonzero(outside & (out != SENTINEL))
    assert not touched.size, (
        f"{what}: out's storage changed at positions {touched.tolist()[:8]}, where no element of "
        f"out lives (out: {layout!r}); write only at index_to_position(index, out_strides, "
        "out_offset) for the indices of out_shape")


def unchanged(storage: np.ndarray, before: np.ndarray, name: str, what: str) -> None:
    assert np.array_equal(storage, before), f"{what}: the kernel wrote into its input {name}"


class Case(NamedTuple):
    out: Layout
    inputs: tuple[Layout, ...]
    dtype: type
    seed: int

    def __repr__(self) -> str:
        named = ", ".join(f"{n} {x!r}" for n, x in zip("ab", self.inputs))
        return f"out {self.out!r}; {named}; {np.dtype(self.dtype).name}"


@st.composite
def cases(draw, inputs: int):
    shape = draw(shapes())
    return Case(draw(out_layouts(shape)), tuple(draw(layouts(shape=shape)) for _ in range(inputs)),
                draw(st.sampled_from([np.float64, np.float32])), draw(seeds))


def run(factory, fn, case: Case):
    """Call the kernel on storages for the case; out filled with the sentinel. (out, inputs)."""
    out = np.full(case.out.size, SENTINEL, case.dtype)
    inputs = [storage_for(x, case.seed + i, case.dtype) for i, x in enumerate(case.inputs)]
    before = [x.copy() for x in inputs]
    args = [arg for x, layout in zip(inputs, case.inputs) for arg in layout_args(x, layout)]
    built(factory, fn)(out, ints(case.out.shape), ints(case.out.strides), case.out.offset, *args)
    for name, x, b in zip("ab", inputs, before):
        unchanged(x, b, name, f"{factory.__name__} with {case!r}")
    return out, [read(x, layout.shape, layout.strides, layout.offset)
                 for x, layout in zip(inputs, case.inputs)]


TRANSPOSED = Case(layout_for((2, 3), (1, 2)), (layout_for((2, 3), (3, 1), 2, 1),) * 2,
                  np.float64, 0)
REVERSED = Case(layout_for((3, 4), (-4, -1), 1, 2), (layout_for((3, 4), (1, -3), 1),
                layout_for((3, 4), (0, 1))), np.float32, 1)  # b broadcast along axis 0
SCALAR = Case(layout_for((), (), 2, 2), (layout_for((), (), 1, 1),) * 2, np.float64, 2)
EMPTY = Case(layout_for((2, 0, 3), (3, 3, 1)), (layout_for((2, 0, 3), (0, 1, 2)),) * 2,
             np.float64, 3)


# -- 8.3 map, zip, reduce --------------------------------------------------------------------------


@probe("8.3")
def probe_kernels(fw):
    def mapped():
        out = np.zeros(6)
        built(kernels.tensor_map, affine)(out, ints([2, 3]), ints([3, 1]), 0,
                                             np.arange(6.0), ints([1, 2]), 0)
        return out

    return {"map 3x - 1 of arange(6) read as (2, 3) with strides (1, 2)": mapped}


@check("8.3")
@given(case=cases(inputs=1))
@example(case=TRANSPOSED._replace(inputs=TRANSPOSED.inputs[:1]))
@example(case=REVERSED._replace(inputs=REVERSED.inputs[:1]))
@example(case=SCALAR._replace(inputs=SCALAR.inputs[:1]))
@example(case=EMPTY._replace(inputs=EMPTY.inputs[:1]))
def test_map_applies_fn_at_every_index_through_each_arrays_strides(case):
    """tensor_map(fn) writes fn(a[i]) at out's position of i, for every index i of out_shape."""
    out, (a,) = run(kernels.tensor_map, affine, case)
    check_out(out, case.out, 3.0 * a - 1.0, f"tensor_map(3x - 1) with {case!r}")


@check("8.3")
@given(case=cases(inputs=2))
@example(case=TRANSPOSED)
@example(case=REVERSED)
@example(case=SCALAR)
@example(case=EMPTY)
def test_zip_pairs_the_elements_of_one_index(case):
    """tensor_zip(fn) writes fn(a[i], b[i]) at out's position of i; b may be broadcast (stride 0)."""
    out, (a, b) = run(kernels.tensor_zip, combine, case)
    check_out(out, case.out, a - 2.0 * b, f"tensor_zip(x - 2y) with {case!r}")


@st.composite
def reductions(draw):
    shape = draw(shapes(min_dims=1))
    axis = draw(st.integers(0, len(shape) - 1))
    name = draw(st.sampled_from(sorted(FOLDS)))
    dtype = np.float32 if name == "sum" and draw(st.booleans()) else np.float64
    out_shape = shape[:axis] + (1,) + shape[axis + 1:]
    return (Case(draw(out_layouts(out_shape)), (draw(layouts(shape=shape)),), dtype, draw(seeds)),
            axis, name)


@check("8.3")
@given(case=reductions())
@example(case=(Case(layout_for((2, 1), (1, 2)), (layout_for((2, 3), (1, 2)),), np.float64, 0),
               1, "acc * 2 + x"))
@example(case=(Case(layout_for((1, 4), (4, 1)), (layout_for((3, 4), (-4, 1), 1),), np.float64, 1),
               0, "max"))
@example(case=(Case(layout_for((2, 1, 3), (3, 3, 1)), (layout_for((2, 4, 3), (0, 3, -1)),),
                    np.float32, 2), 1, "sum"))
@example(case=(Case(layout_for((3, 1), (1, 1)), (layout_for((3, 0), (1, 1)),), np.float64, 3),
               1, "acc * 2 + x"))
def test_reduce_folds_along_one_axis_from_start_in_order(case):
    """out[i] = fn(…fn(fn(start, a[i₀]), a[i₁])…, a[i_{n-1}]), i_k with k on the axis, k = 0, 1, …"""
    case, axis, name = case
    fn, numpy_fn, start = FOLDS[name]
    (layout,) = case.inputs
    out = np.full(case.out.size, SENTINEL, case.dtype)
    a = storage_for(layout, case.seed, case.dtype)
    before = a.copy()
    values = read(a, layout.shape, layout.strides, layout.offset)
    built(kernels.tensor_reduce, fn)(
        out, ints(case.out.shape), ints(case.out.strides), case.out.offset, *layout_args(a, layout),
        axis, layout.shape[axis], case.dtype(start))
    expected = np.full(case.out.shape, start)
    for k in range(layout.shape[axis]):
        expected = numpy_fn(expected, np.take(values, [k], axis=axis))
    what = f"tensor_reduce({name}, start {start}) along axis {axis}; {case!r}"
    unchanged(a, before, "a", what)
    check_out(out, case.out, expected, what)


# -- 8.4 the tiled matmul --------------------------------------------------------------------------


@probe("8.4")
def probe_matmul(fw):
    def product():
        out = np.full((2, 2), np.nan)
        kernels.matmul_kernel(np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2) - 2, out)
        return out

    return {"matmul_kernel(arange(6) as 2×3, arange(6) as 3×2 - 2)": product}


def check_matmul(n: int, k: int, m: int, dtype, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (n, k)).astype(dtype)
    b = rng.uniform(-1, 1, (k, m)).astype(dtype)
    before = a.copy(), b.copy()
    out = np.full((n, m), np.nan, dtype)
    kernels.matmul_kernel(a, b, out)
    what = f"matmul_kernel of a ({n}, {k}) and b ({k}, {m}), {np.dtype(dtype).name}, TILE = " \
           f"{kernels.TILE}, out filled with NaN before"
    assert np.array_equal(a, before[0]) and np.array_equal(b, before[1]), (
        f"{what}: the kernel wrote into a or b")
    tight = {"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-10}
    assert_close(out, a.astype(np.float64) @ b.astype(np.float64), what, **tight)


@check("8.4")
@given(n=st.integers(1, 140), k=st.integers(1, 140), m=st.integers(1, 140),
       dtype=st.sampled_from([np.float64, np.float32]), seed=seeds)
@example(n=1, k=1, m=1, dtype=np.float64, seed=0)
@example(n=65, k=3, m=2, dtype=np.float64, seed=1)
@example(n=130, k=70, m=129, dtype=np.float64, seed=2)
@example(n=64, k=128, m=64, dtype=np.float32, seed=3)
@example(n=3, k=130, m=67, dtype=np.float32, seed=4)
def test_matmul_kernel_is_a_times_b_at_any_size(n, k, m, dtype, seed):
    """out = a @ b for sizes that are and are not multiples of TILE; out arrives holding NaN."""
    check_matmul(n, k, m, dtype, seed)


@check("8.4")
def test_matmul_kernel_of_an_empty_inner_axis_is_zeros():
    """K = 0: a (3, 0) @ b (0, 5) is a (3, 5) of zeros (an empty sum), out holding NaN before."""
    out = np.full((3, 5), np.nan)
    kernels.matmul_kernel(np.empty((3, 0)), np.empty((0, 5)), out)
    assert_close(out, np.zeros((3, 5)), "matmul_kernel of a (3, 0) and b (0, 5), out filled with "
                 "NaN before: every row tile sets its rows of out to 0 before adding",
                 rtol=0, atol=0)
