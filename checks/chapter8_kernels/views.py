"""Chapter 8, exercise 8.2: views (permute, expand, slices) and contiguous copies.

Each view is read back by the grader's own reader (`common.read`, NumPy's as_strided) and
compared with NumPy's transpose, broadcast_to and indexing of the same values; a view must
read the very memory of the array it came from (a write into that storage shows through it).
"""

from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from checks.chapter8_kernels.common import (
    Layout,
    c_strides,
    kernels,
    layout_for,
    layouts,
    read,
    seeds,
    storage_for,
)
from checks.harness import assert_close, check, probe


def strided(layout: Layout, seed: int, dtype=np.float64):
    """A StridedArray of `layout` over a storage of distinct values."""
    return kernels.StridedArray(storage_for(layout, seed, dtype), layout.shape, layout.strides,
                                layout.offset)


def values(x) -> np.ndarray:
    """What a StridedArray holds, read by the grader from its storage, shape, strides and offset."""
    return read(x.storage, x.shape, x.strides, x.offset)


def assert_view(view, array, what: str) -> None:
    """`view` reads `array`'s memory: a write into array's storage is seen through the view."""
    before = values(view)
    if before.size == 0:
        return
    array.storage += 1000.0
    try:
        after = values(view)
    finally:
        array.storage -= 1000.0
    assert np.array_equal(after, before + 1000.0), (
        f"{what}: after adding 1000 to every element of the original's storage, the result still "
        "reads the old values: it is a copy. A view is a new StridedArray over the SAME storage "
        "(pass self.storage on), with new shape, strides and offset"
    )


def described(x) -> str:
    return f"a StridedArray of shape {x.shape}, strides {x.strides}, offset {x.offset}"


@probe("8.2")
def probe_views(fw):
    def grid():
        return kernels.StridedArray(np.arange(24.0), (2, 3, 4), (12, 4, 1))

    return {"grid(2, 3, 4).permute(2, 0, 1): shape, strides":
                lambda: (grid().permute(2, 0, 1).shape, grid().permute(2, 0, 1).strides),
            "grid[1, ::-2]: shape, strides, offset":
                lambda: (grid()[1, ::-2].shape, grid()[1, ::-2].strides, grid()[1, ::-2].offset),
            "grid[0, 1].expand(2, 4): strides": lambda: grid()[0, 1].expand(2, 4).strides,
            "grid.permute(2, 0, 1).contiguous()":
                lambda: grid().permute(2, 0, 1).contiguous().numpy()}


# -- permute -------------------------------------------------------------------------------------


@st.composite
def permuted(draw):
    layout = draw(layouts(max_side=3))
    return layout, tuple(draw(st.permutations(range(len(layout.shape))))), draw(seeds)


@check("8.2")
@given(case=permuted())
@example(case=(Layout((2, 3, 4), (12, 4, 1), 0, 24), (2, 0, 1), 0))
@example(case=(Layout((3, 2), (-2, 1), 4, 6), (1, 0), 1))
def test_permute_reorders_the_axes_as_transpose_does(case):
    """permute(*order) holds what np.transpose(values, order) holds, over the same storage."""
    layout, order, seed = case
    a = strided(layout, seed)
    got = a.permute(*order)
    what = f"permute{order} of {described(a)}"
    assert tuple(got.shape) == tuple(layout.shape[i] for i in order), (
        f"{what}: shape {got.shape}, expected {tuple(layout.shape[i] for i in order)}")
    assert_close(values(got), values(a).transpose(order), what, rtol=0, atol=0)
    assert_view(got, a, what)


# -- expand --------------------------------------------------------------------------------------


@st.composite
def expanded(draw):
    layout = draw(layouts(shape=draw(st.lists(st.sampled_from([1, 1, 2, 3]), max_size=3)
                                     .map(tuple))))
    lead = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    target = lead + tuple(draw(st.integers(0, 3)) if n == 1 else n for n in layout.shape)
    return layout, target, draw(seeds)


@check("8.2")
@given(case=expanded())
@example(case=(Layout((3, 1), (1, 1), 0, 3), (2, 3, 4), 0))
@example(case=(Layout((1, 2), (5, -1), 1, 2), (3, 2), 1))
@example(case=(Layout((), (), 2, 3), (2, 2), 2))
def test_expand_broadcasts_as_broadcast_to_does(case):
    """expand(*shape) holds np.broadcast_to(values, shape), over the same storage (stride 0)."""
    layout, target, seed = case
    a = strided(layout, seed)
    got = a.expand(*target)
    what = f"expand{target} of {described(a)}"
    assert tuple(got.shape) == target, f"{what}: shape {got.shape}, expected {target}"
    assert_close(values(got), np.broadcast_to(values(a), target), what, rtol=0, atol=0)
    assert_view(got, a, what)


# -- slices and ints -----------------------------------------------------------------------------


@st.composite
def indexed(draw):
    layout = draw(layouts(max_side=5))
    key = []
    for size in layout.shape[:draw(st.integers(0, len(layout.shape)))]:
        if size and draw(st.booleans()):
            key.append(draw(st.integers(-size, size - 1)))
        else:
            key.append(slice(draw(st.none() | st.integers(-6, 6)),
                             draw(st.none() | st.integers(-6, 6)),
                             draw(st.none() | st.sampled_from([1, 2, 3, -1, -2, -3]))))
    if len(key) == 1 and draw(st.booleans()):
        return layout, key[0], draw(seeds)
    return layout, tuple(key), draw(seeds)


@check("8.2")
@given(case=indexed())
@example(case=(Layout((2, 3, 4), (12, 4, 1), 0, 24), (1, slice(None, None, -2)), 0))
@example(case=(Layout((5,), (1,), 0, 5), slice(4, 0, -1), 1))
@example(case=(Layout((4, 3), (3, 1), 0, 12), (slice(None, None, -1), 2), 2))
@example(case=(Layout((3, 4), (-4, 1), 8, 12), (slice(1, 1), slice(2, None)), 3))
@example(case=(Layout((4, 3), (1, 4), 0, 12), -1, 4))
def test_getitem_selects_what_numpy_indexing_selects(case):
    """a[key] for ints and slices (any step, negative and empty too, fewer keys than axes) holds
    what NumPy's values[key] holds, over the same storage."""
    layout, key, seed = case
    a = strided(layout, seed)
    got = a[key]
    expected = values(a)[key]
    what = f"[{key!r}] of {described(a)}"
    assert tuple(got.shape) == expected.shape, (
        f"{what}: shape {got.shape}, expected {expected.shape} (NumPy's): an int drops its axis, "
        "a slice keeps it with len(range(*slice.indices(size))) elements")
    assert_close(values(got), expected, what, rtol=0, atol=0)
    assert_view(got, a, what)


# -- contiguous ----------------------------------------------------------------------------------


@st.composite
def scattered(draw):
    """Views whose memory is out of row-major order: permuted, reversed, broadcast, strided."""
    layout = draw(layouts(max_side=4))
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    return layout, dtype, draw(seeds)


@check("8.2")
@given(case=scattered())
@example(case=(Layout((3, 4), (1, 3), 0, 12), np.float64, 0))  # a transpose
@example(case=(Layout((2, 3), (-3, -1), 5, 6), np.float32, 1))  # both axes reversed
@example(case=(Layout((2, 3, 2), (0, 1, 0), 0, 3), np.float64, 2))  # expanded
@example(case=(Layout((4,), (2,), 1, 9), np.float64, 3))  # every other element
def test_contiguous_copies_in_row_major_order(case):
    """contiguous() holds the same values in a new storage of exactly size elements, row-major."""
    layout, dtype, seed = case
    a = strided(layout, seed, dtype)
    expected = values(a)
    got = a.contiguous()
    what = f"contiguous() of {described(a)} ({np.dtype(dtype).name})"
    assert tuple(got.shape) == layout.shape, f"{what}: shape {got.shape}, expected {layout.shape}"
    assert got.storage.dtype == dtype, f"{what}: a storage of {got.storage.dtype}, expected {dtype}"
    assert_close(values(got), expected, f"{what}: read through its shape, strides, offset",
                 rtol=0, atol=0)
    if a.is_contiguous():  # then contiguous() is the array itself, storage and all
        return
    assert got.storage.size == expected.size, (
        f"{what}: a storage of {got.storage.size} elements, expected exactly {expected.size} (the "
        "array's size): copy only the elements the view reads, once each")
    assert_close(got.storage, expected.reshape(-1), f"{what}: the new storage, in memory order",
                 rtol=0, atol=0)
    if expected.size:
        assert not np.shares_memory(got.storage, a.storage), (
            f"{what}: the result shares the original's storage; a copy was needed")


@check("8.2")
@given(shape=st.lists(st.integers(1, 4), max_size=4).map(tuple), seed=seeds)
@example(shape=(2, 3, 4), seed=0)
def test_contiguous_of_a_contiguous_array_is_itself(shape, seed):
    """An array already row-major: contiguous() returns that very array (no copy, as in PyTorch)."""
    a = kernels.StridedArray(storage_for(layout_for(shape, c_strides(shape)), seed), shape)
    assert a.contiguous() is a, (
        f"contiguous() of {described(a)}, row-major already: returned another array; return "
        "self when self.is_contiguous()")


@check("8.2")
def test_a_view_of_a_view_reads_the_right_elements():
    """Chained views: grid[1:, ::-1].permute(1, 0)[::2].expand(2, 2, 2) against NumPy's."""
    layout = layout_for((3, 4), (4, 1), 2, 1)
    a = strided(layout, 5)
    got = a[1:, ::-1].permute(1, 0)[::2].expand(2, 2, 2)
    expected = np.broadcast_to(values(a)[1:, ::-1].transpose(1, 0)[::2], (2, 2, 2))
    what = f"[1:, ::-1].permute(1, 0)[::2].expand(2, 2, 2) of {described(a)}"
    assert_close(values(got), expected, what, rtol=0, atol=0)
    assert_close(values(got.contiguous()), expected, what + ".contiguous()", rtol=0, atol=0)
    assert_view(got, a, what)
