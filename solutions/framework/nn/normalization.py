"""Provided: `LayerNorm` (torch/nn/modules/normalization.py) and `BatchNorm1d`/`BatchNorm2d`
(batchnorm.py), as in `torch.nn`; LayerNorm's op,
`F.layer_norm`, is chapter 5's exercise in `functional_transformer.py`.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import functional as F
from .modules import Module, Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm"]


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
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine=True, bias=True"


class _BatchNorm(Module):
    """Normalise each channel (axis 1) over the batch and the other axes, then scale and shift;
    while training, the running mean and (unbiased) variance follow each batch's with
    `momentum`, and eval mode normalises with them, as PyTorch's."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1,
                 affine: bool = True, track_running_stats: bool = True, dtype=np.float32) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(np.ones(num_features, dtype=dtype)) if affine else None
        self.bias = Parameter(np.zeros(num_features, dtype=dtype)) if affine else None
        if track_running_stats:
            self.register_buffer("running_mean", np.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", np.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", np.array(0, dtype=np.int64))

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim not in self.NDIMS or x.shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}: input of shape {tuple(x.shape)}; expected "
                             f"{' or '.join(map(str, self.NDIMS))} axes with {self.num_features} "
                             "channels on axis 1")
        axes = (0, *range(2, x.ndim))
        shape = (1, self.num_features) + (1,) * (x.ndim - 2)
        if self.training or not self.track_running_stats:
            mean = x.mean(axes, keepdims=True)
            var = ((x - mean) * (x - mean)).mean(axes, keepdims=True)
            if self.training and self.track_running_stats:
                self._follow(mean.data.reshape(-1), var.data.reshape(-1), x.data.size // self.num_features)
            y = (x - mean) / (var + self.eps).sqrt()
        else:
            scale = 1 / np.sqrt(self.running_var + self.eps)
            y = (x - self.running_mean.reshape(shape)) * scale.reshape(shape).astype(x.dtype)
        if self.affine:
            y = y * self.weight.reshape(shape) + self.bias.reshape(shape)
        return y

    def _follow(self, mean: np.ndarray, var: np.ndarray, n: int) -> None:
        """The running statistics after one batch of n values per channel."""
        m = self.momentum
        unbiased = var * n / max(n - 1, 1)
        self.register_buffer("running_mean", ((1 - m) * self.running_mean + m * mean).astype(mean.dtype))
        self.register_buffer("running_var", ((1 - m) * self.running_var + m * unbiased).astype(var.dtype))
        self.register_buffer("num_batches_tracked", self.num_batches_tracked + 1)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch norm of (N, C) or (N, C, L)."""

    NDIMS = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm of (N, C, H, W)."""

    NDIMS = (4,)
