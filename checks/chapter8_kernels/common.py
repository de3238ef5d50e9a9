"""What chapter 8's parts share: drawn layouts (shape, strides, offset, storage size), and the
grader's own reader of a layout, written with NumPy's `as_strided`, never the learner's code."""

from __future__ import annotations

import importlib
import math
from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st

from checks.harness import framework

fw = framework()
kernels = importlib.import_module(f"{fw.__name__}.kernels")

seeds = st.integers(0, 2**32 - 1)
_built: dict = {}


def built(factory, *arguments):
    """factory(*arguments), made once per process: every call of one kernel reuses its
    compilation (a parallel kernel costs about a second to compile)."""
    key = (factory.__name__, *arguments)
    if key not in _built:
        _built[key] = factory(*arguments)
    return _built[key]


SENTINEL = -777.25  # what an out storage holds where no element of the view lives


class Layout(NamedTuple):
    """Element `index` lives at storage[offset + Σ index[i] · strides[i]], storage of `size`."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    size: int

    @property
    def count(self) -> int:
        return math.prod(self.shape)

    def __repr__(self) -> str:
        return (f"shape {self.shape}, strides {self.strides}, offset {self.offset}, in a storage "
                f"of {self.size}")


def reach(shape, strides) -> tuple[int, int]:
    """The lowest and highest Σ index·strides over the indices of `shape` (0, 0 when empty)."""
    if math.prod(shape) == 0:
        return 0, 0
    low = sum(s * (n - 1) for n, s in zip(shape, strides) if s < 0)
    high = sum(s * (n - 1) for n, s in zip(shape, strides) if s > 0)
    return low, high


def layout_for(shape, strides, before: int = 0, after: int = 0) -> Layout:
    """The smallest storage that holds `shape` read with `strides`, plus margins on either side."""
    low, high = reach(shape, strides)
    return Layout(tuple(shape), tuple(strides), before - low, before + high - low + 1 + after)


def c_strides(shape) -> tuple[int, ...]:
    """Row-major strides in elements, from NumPy itself (sizes ≥ 1)."""
    return tuple(s // 8 for s in np.empty(shape, np.float64).strides)


def shapes(min_side: int = 0, max_side: int = 4, min_dims: int = 0, max_dims: int = 4):
    return st.lists(st.integers(min_side, max_side), min_size=min_dims,
                    max_size=max_dims).map(tuple)


@st.composite
def layouts(draw, shape=None, min_side=0, max_side=4):
    """Any strides (negative and 0 too), a view at an offset inside a larger storage."""
    shape = draw(shapes(min_side, max_side)) if shape is None else shape
    strides = tuple(draw(st.integers(-7, 7)) for _ in shape)
    return layout_for(shape, strides, draw(st.integers(0, 3)), draw(st.integers(0, 3)))


@st.composite
def out_layouts(draw, shape):
    """Layouts no two elements of which share a position: the axes in any order in memory,
    each walked forwards or backwards, every element 1 or 2 apart, at an offset."""
    order = draw(st.permutations(range(len(shape))))
    gap = draw(st.sampled_from([1, 2]))
    inner = c_strides(tuple(max(shape[i], 1) for i in order)) if shape else ()
    strides = [0] * len(shape)
    for place, axis in enumerate(order):
        strides[axis] = gap * inner[place] * draw(st.sampled_from([1, -1]))
    return layout_for(shape, strides, draw(st.integers(0, 3)), draw(st.integers(0, 3)))


def read(storage: np.ndarray, shape, strides, offset: int) -> np.ndarray:
    """The grader's reader: a copy of the elements of (storage, shape, strides, offset)."""
    shape = tuple(int(n) for n in shape)
    if math.prod(shape) == 0:
        return np.empty(shape, storage.dtype)
    low, high = reach(shape, strides)
    assert 0 <= offset + low and offset + high < storage.size, (
        f"shape {shape}, strides {tuple(strides)} and offset {offset} reach positions "
        f"{offset + low} to {offset + high} of a storage of {storage.size} elements"
    )
    item = storage.itemsize
    base = storage[offset:] if offset < storage.size else storage[:0]
    return np.lib.stride_tricks.as_strided(
        base, shape, tuple(int(s) * item for s in strides), writeable=False).copy()


def positions(layout: Layout) -> np.ndarray:
    """The storage position of every element of the layout (NumPy's addresses, of an arange)."""
    return read(np.arange(layout.size), layout.shape, layout.strides, layout.offset)


def storage_for(layout: Layout, seed: int, dtype=np.float64) -> np.ndarray:
    """A storage of distinct values (two positions never hold the same value), scrambled."""
    rng = np.random.default_rng(seed)
    return (rng.permutation(layout.size) / 4 - layout.size / 8 + 0.125).astype(dtype)


def ints(values) -> np.ndarray:
    return np.array(values, dtype=np.int64)
