"""Provided: `LayerNorm`, as in `torch.nn` (torch/nn/modules/normalization.py); its op,
`F.layer_norm`, is chapter 5's exercise in `functional_transformer.py`.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .modules import Module, Parameter

__all__ = ["LayerNorm"]


class LayerNorm(Module):
    """Normalise each row over its last axes (normalized_shape), then scale and shift them."""

    def __init__(self, normalized_shape: int | tuple[int, ...], eps: float = 1e-5,
                 dtype=np.float32) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.weight = Parameter(np.ones(shape, dtype=dtype))
        self.bias = Parameter(np.zeros(shape, dtype=dtype))

    def forward(self, x: Tensor) -> Tensor:
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}"
