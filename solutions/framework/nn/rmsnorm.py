"""Chapter 5's bonus exercise 5.10 (optional): RMSNorm, LayerNorm without the mean.

y = x / √(mean(x²) + ε) · w over the last axis (Zhang & Sennrich 2019; LLaMA's norm), as
`torch.nn.RMSNorm` over one axis. Nothing provided uses it.
"""

from __future__ import annotations

import numpy as np

from ..function import Function
from ..tensor import Tensor
from .modules import Module, Parameter


class RMSNormFunction(Function):
    """r = 1/√(mean(x²) + ε) per row, x̂ = x·r, y = x̂·w. With ĝ = g·w:
    ∂x = r · (ĝ − x̂ · mean(ĝ·x̂)) per row, ∂w = Σ_rows g·x̂."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        ### BEGIN SOLUTION 5.10
        r = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
        x_hat = x * r
        ctx.save_for_backward(x_hat, r, weight)
        return x_hat * weight
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 5.10
        x_hat, r, weight = ctx.saved_tensors
        g_hat = grad * weight
        grad_x = r * (g_hat - x_hat * np.mean(g_hat * x_hat, axis=-1, keepdims=True))
        grad_w = np.sum(grad * x_hat, axis=tuple(range(grad.ndim - 1)))
        return grad_x, grad_w
        ### END SOLUTION


def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    """RMSNorm over the last axis of x, scaled by `weight` (its size)."""
    if weight.shape != x.shape[-1:]:
        raise ValueError(f"rms_norm: weight {weight.shape} must be the last axis of x {x.shape}")
    return RMSNormFunction.apply(x, weight, eps=float(eps))


class RMSNorm(Module):
    """Normalise each row over its last axis by its root mean square, then scale it."""

    def __init__(self, size: int, eps: float = 1e-6, dtype=np.float32) -> None:
        super().__init__()
        self.eps = eps
        self.weight = Parameter(np.ones(size, dtype=dtype))

    def forward(self, x: Tensor) -> Tensor:
        return rms_norm(x, self.weight, self.eps)
