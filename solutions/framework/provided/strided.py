"""Chapter 8's strided array, the part that is given: what it holds, checks and shows.

`framework.kernels.StridedArray` (exercises 8.1 and 8.2) subclasses `StridedBase` with the
views (`permute`, `expand`, slicing, `contiguous`); this file checks a new array's fields
(every element it can reach lies inside its storage), shows it as a NumPy view, and reads
an index key (`axis_keys`) into one int or slice per axis.
"""

from __future__ import annotations

import math
import operator

import numpy as np

Shape = tuple[int, ...]


class StridedBase:
    """storage (a 1-D NumPy array), shape, strides (in elements) and offset, checked."""

    def __init__(self, storage: np.ndarray, shape: Shape, strides: Shape, offset: int = 0) -> None:
        if not isinstance(storage, np.ndarray) or storage.ndim != 1:
            raise TypeError(f"StridedArray: storage must be a 1-D NumPy array, not "
                            f"{type(storage).__name__} of shape {np.shape(storage)}")
        shape = tuple(operator.index(n) for n in shape)
        strides = tuple(operator.index(s) for s in strides)
        if len(strides) != len(shape) or any(n < 0 for n in shape):
            raise ValueError(f"StridedArray: shape {shape} and strides {strides} must be as long "
                             "as each other, with no negative size")
        self.storage, self.shape, self.strides = storage, shape, strides
        self.offset = operator.index(offset)
        if self.size:
            low = self.offset + sum(s * (n - 1) for s, n in zip(strides, shape) if s < 0)
            high = self.offset + sum(s * (n - 1) for s, n in zip(strides, shape) if s > 0)
            if low < 0 or high >= storage.size:
                raise ValueError(
                    f"StridedArray: shape {shape}, strides {strides} and offset {offset} reach "
                    f"positions {low} to {high} of a storage of {storage.size} elements")

    def numpy(self) -> np.ndarray:
        """A read-only NumPy view of the same memory (no copy), for printing and checking."""
        if self.size == 0:
            return np.empty(self.shape, self.storage.dtype)
        item = self.storage.itemsize
        return np.lib.stride_tricks.as_strided(
            self.storage[self.offset:], self.shape, tuple(s * item for s in self.strides),
            writeable=False)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> np.dtype:
        return self.storage.dtype

    def transpose(self, dim0: int, dim1: int):
        """Axes dim0 and dim1 swapped: a permute."""
        order = list(range(self.ndim))
        order[dim0], order[dim1] = order[dim1], order[dim0]
        return self.permute(*order)

    def __repr__(self) -> str:
        return (f"StridedArray(shape={self.shape}, strides={self.strides}, offset={self.offset}, "
                f"storage of {self.storage.size} {self.dtype})")


def axis_keys(key, shape: Shape) -> list:
    """The key as one int (wrapped, in range) or slice per axis; refuses what views cannot be."""
    key = key if isinstance(key, tuple) else (key,)
    if len(key) > len(shape):
        raise IndexError(f"StridedArray: {len(key)} indices for an array of {len(shape)} axes "
                         f"(shape {shape})")
    keys = []
    for axis, (item, size) in enumerate(zip(key, shape)):
        if isinstance(item, slice):
            keys.append(item)
            continue
        try:
            i = operator.index(item)
        except TypeError:
            raise TypeError(f"StridedArray: index {item!r} on axis {axis} is neither an int nor a "
                            "slice; views take ints and slices only") from None
        if not -size <= i < size:
            raise IndexError(f"StridedArray: index {i} is out of range for axis {axis} of size "
                             f"{size}")
        keys.append(i % size)
    return keys + [slice(None)] * (len(shape) - len(key))
