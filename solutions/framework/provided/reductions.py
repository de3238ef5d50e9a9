"""Provided: a row's maximum, NumPy's numbers by a faster road for short rows.

Chapter 5's attention takes the maximum of each row of scores before its softmax.
"""

from __future__ import annotations

import numpy as np

SHORT_ROW = 48  # measured crossover: below it, the copy to the front pays for itself


def row_max(x: np.ndarray) -> np.ndarray:
    """x.max(axis=-1, keepdims=True), the same numbers (NaN included), faster for short rows.

    NumPy reduces a last axis one row at a time: over W3's attention scores, rows of 12,
    that took 190 µs where an exponential of the same array took 14. With that axis moved
    to the front (one copy), `max(axis=0)` compares whole contiguous rows element by
    element instead: 22 µs, copy included. Rows of 48 or more keep NumPy's own reduction.
    """
    if x.ndim == 0 or x.shape[-1] >= SHORT_ROW:
        return x.max(axis=-1, keepdims=True)
    return np.ascontiguousarray(np.moveaxis(x, -1, 0)).max(axis=0)[..., None]
