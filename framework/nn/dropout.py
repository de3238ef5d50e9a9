"""Provided: `Dropout` and `Dropout2d`, as in `torch.nn` (torch/nn/modules/dropout.py), over `F.dropout`."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .modules import Module

__all__ = ["Dropout", "Dropout2d"]


class Dropout(Module):
    """Zeroes each element with probability p while training (scaling the rest by 1/(1-p));
    the identity in eval mode. Draws from the shared generator (`framework.manual_seed`).
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p={p} must be a probability in [0, 1]")
        self.p = p
        self.inplace = inplace  # shown in the repr, as PyTorch's; the result is the same

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout2d(Dropout):
    """Zeroes whole channels of (N, C, H, W) with probability p while training (F.dropout2d)."""

    def forward(self, x: Tensor) -> Tensor:
        return F.dropout2d(x, self.p, self.training)
