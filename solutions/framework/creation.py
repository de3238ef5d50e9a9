"""Provided: tensors made from data or from nothing, and the ops as functions, as in PyTorch
(`torch.tensor`, `torch.zeros`, `torch.cat`, `torch.where`, ...).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._dims import accepts_dim
from .function import unwrap
from .ops import MatMul, Maximum, Where
from .shape_ops import Concatenate, Stack
from .tensor import Tensor, _shape_args


def tensor(data, requires_grad: bool = False, dtype=None) -> Tensor:
    """A new tensor holding a copy of `data` (as `torch.tensor`; `from_numpy` shares memory)."""
    data = unwrap(data)
    if isinstance(data, np.ndarray):
        data = data.copy()
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)


def maximum(a, b) -> Tensor:
    return Maximum.apply(a, b)


def minimum(a, b) -> Tensor:
    return -Maximum.apply(-a, -b)


def where(condition, a, b) -> Tensor:
    condition = unwrap(condition)
    return Where.apply(condition, a, b)


@accepts_dim
def concatenate(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """The tensors joined along an existing axis (PyTorch's `cat`)."""
    return Concatenate.apply(*tensors, axis=axis)


cat = concatenate


@accepts_dim
def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    return Stack.apply(*tensors, axis=axis)


def matmul(a, b) -> Tensor:
    return MatMul.apply(a, b)


def zeros(*shape, dtype=None, requires_grad: bool = False) -> Tensor:
    """Zeros of `shape` (`zeros(2, 3)` or `zeros((2, 3))`), float32 unless `dtype` says otherwise."""
    return Tensor(np.zeros(_shape_args(shape), dtype=_float32_default(dtype)), requires_grad=requires_grad)


def ones(*shape, dtype=None, requires_grad: bool = False) -> Tensor:
    """Ones of `shape`, float32 unless `dtype` says otherwise."""
    return Tensor(np.ones(_shape_args(shape), dtype=_float32_default(dtype)), requires_grad=requires_grad)


def randn(*shape, dtype=None, requires_grad: bool = False) -> Tensor:
    """Standard normal values from the shared generator (`framework.manual_seed`), float32
    unless `dtype` says otherwise."""
    from .generator import default_generator

    values = default_generator().standard_normal(_shape_args(shape)).astype(_float32_default(dtype))
    return Tensor(values, requires_grad=requires_grad)


def _float32_default(dtype):
    """PyTorch's default dtype for floating factories: float32 when none (or None) is given."""
    return np.float32 if dtype is None else dtype
