"""Chapter 8, exercise 8.1: row-major strides, and an index's position in the storage (and back)."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given

from checks.chapter8_kernels.common import Layout, c_strides, ints, kernels, layouts, positions, shapes
from checks.harness import check, probe


@probe("8.1")
def probe_positions(fw):
    index = np.zeros(3, np.int64)

    def unravel():
        kernels.position_to_index(17, ints([2, 3, 4]), index)
        return index.copy()

    return {"contiguous_strides((2, 3, 4))": lambda: kernels.contiguous_strides((2, 3, 4)),
            "index_to_position([1, 2, 3], strides [12, 4, 1], offset 5)":
                lambda: kernels.index_to_position(ints([1, 2, 3]), ints([12, 4, 1]), 5),
            "position_to_index(17, shape [2, 3, 4])": unravel}


@check("8.1")
@given(shape=shapes(min_side=1, max_side=5))
@example(shape=(2, 3, 4))
@example(shape=())
@example(shape=(5, 1, 3))
def test_contiguous_strides_are_numpys_row_major_strides(shape):
    """contiguous_strides(shape) = NumPy's strides of np.empty(shape), in elements, as a tuple."""
    got = kernels.contiguous_strides(shape)
    expected = c_strides(shape)
    assert isinstance(got, (tuple, list)) and tuple(int(s) for s in got) == expected, (
        f"contiguous_strides({shape}) = {got!r}, expected {expected} (NumPy's np.empty({shape})"
        ".strides divided by the item size): the last axis has stride 1, each axis before it "
        "the next one's stride times the next one's size"
    )


@check("8.1")
@given(layout=layouts(min_side=1, max_side=4))
@example(layout=Layout((2, 3, 4), (12, 4, 1), 5, 29))
@example(layout=Layout((3, 2), (-2, 1), 4, 6))
@example(layout=Layout((), (), 3, 4))
def test_index_to_position_is_offset_plus_index_times_strides(layout):
    """index_to_position(index, strides, offset) is where NumPy's as_strided reads element index."""
    expected = positions(layout)
    strides = ints(layout.strides)
    for index in np.ndindex(layout.shape):
        got = kernels.index_to_position(ints(index), strides, layout.offset)
        assert got == expected[index], (
            f"index_to_position({list(index)}, strides {list(layout.strides)}, offset "
            f"{layout.offset}) = {got}, expected {expected[index]} = offset + Σ index[i]·strides[i]"
            " (strides may be negative or 0)"
        )


@check("8.1")
@given(shape=shapes(min_side=1, max_side=5))
@example(shape=(2, 3, 4))
@example(shape=(4, 1, 3))
@example(shape=())
def test_position_to_index_counts_in_row_major_order(shape):
    """position_to_index(k, shape, out) writes np.unravel_index(k, shape) into out, for every k."""
    for ordinal in range(int(np.prod(shape))):
        out = np.full(len(shape), -1, np.int64)
        kernels.position_to_index(ordinal, ints(shape), out)
        expected = [int(i) for i in np.unravel_index(ordinal, shape)]
        assert out.tolist() == expected, (
            f"position_to_index({ordinal}, shape {list(shape)}, out_index) left out_index = "
            f"{out.tolist()}, expected {expected} (np.unravel_index): the last axis is the "
            "ordinal modulo its size, the axes before it what the division leaves; write every "
            "entry of out_index"
        )



@check("8.1")
@given(shape=shapes(min_side=1, max_side=5))
@example(shape=(3, 1, 2, 4))
def test_an_ordinal_round_trips_through_an_index(shape):
    """index_to_position(position_to_index(k), contiguous_strides(shape), 0) == k for every k."""
    strides = ints(kernels.contiguous_strides(shape))
    index = np.empty(len(shape), np.int64)
    for ordinal in range(int(np.prod(shape))):
        kernels.position_to_index(ordinal, ints(shape), index)
        back = kernels.index_to_position(index, strides, 0)
        assert back == ordinal, (
            f"shape {shape}: ordinal {ordinal} → index {index.tolist()} → position {back} with "
            f"contiguous_strides = {tuple(strides)}; in a contiguous array the k-th element in "
            "row-major order lives at position k"
        )
