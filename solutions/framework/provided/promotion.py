"""Provided: the dtype of a binary op's result, PyTorch's rather than NumPy's.

NumPy and PyTorch promote dtypes differently (float32 with int64 is float64 in NumPy, float32
in PyTorch). `Tensor`'s arithmetic passes its operands through `_promoted` first, so a
float32 model stays float32 whatever numbers it meets.
"""

from __future__ import annotations

import numpy as np

from ..function import Differentiable
from ..shape_ops import Cast


def _kind(x) -> str | None:
    """"f" (floating), "b"/"i"/"u" (bool, integers) for arrays and tensors; "float" for a Python
    float; None for a Python int or bool, which NumPy already treats as PyTorch does."""
    if isinstance(x, (Differentiable, np.ndarray)):
        return x.dtype.kind
    return "float" if isinstance(x, float) else None


def _cast(x, dtype):
    """x as `dtype`; a tensor through `Cast`, so its gradient comes back in its own dtype."""
    return Cast.apply(x, dtype) if isinstance(x, Differentiable) else x.astype(dtype)


#: PyTorch's categories of dtype kinds: a 0-d operand widens no dimensioned one of its category.
_CATEGORY = {"b": "bool", "i": "integer", "u": "integer", "f": "floating"}


def _promoted(a, b, divide: bool = False) -> tuple:
    """The operands of a binary op, cast where NumPy's result dtype differs from PyTorch's:
    an integer or bool operand of a floating one takes its dtype (NumPy: float32 with int64 is
    float64), an integer one with a Python float becomes float32 (NumPy: float64), and so do
    both integer operands of a division. A NumPy scalar counts as a Python number, as in
    PyTorch. A 0-d operand with a dimensioned one of the same category (floating, integer)
    takes the dimensioned one's dtype (NumPy: float32 with a 0-d float64 is float64)."""
    a = a.item() if isinstance(a, np.generic) else a
    b = b.item() if isinstance(b, np.generic) else b
    ka, kb = _kind(a), _kind(b)
    if _CATEGORY.get(ka, ka) == _CATEGORY.get(kb, kb) in ("integer", "floating"):
        if a.ndim == 0 < b.ndim and a.dtype != b.dtype:
            a = _cast(a, b.dtype)
        elif b.ndim == 0 < a.ndim and a.dtype != b.dtype:
            b = _cast(b, a.dtype)
    whole = ("b", "i", "u")
    if ka == "f" and kb in whole:
        return a, _cast(b, a.dtype)
    if kb == "f" and ka in whole:
        return _cast(a, b.dtype), b
    if ka in whole and (kb == "float" or divide and kb in (*whole, None)):
        a = _cast(a, np.float32)
    if kb in whole and (ka == "float" or divide and ka in (*whole, None)):
        b = _cast(b, np.float32)
    return a, b
