"""Provided: more of `torch.nn.functional`'s activations and distances, each built from ops
that have their gradients (so each has PyTorch's): `elu`, `selu`, `celu`, `relu6`,
`hardtanh`, `hardsigmoid`, `hardswish`, `softsign`, `tanhshrink`, `softshrink`, `hardshrink`,
`threshold`, `glu`, `softmin`, `normalize`, `cosine_similarity`, `pairwise_distance`.
`nn/activation.py` has their module forms. Refused by name: `softplus`, and `logsigmoid` and
`mish`, softplus under other names: bonus exercise 3.8's answer.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor

SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805  # PyTorch's constants


def refused_as_softplus(name: str, how: str):
    """A function refused by name: softplus, or softplus under another name, is bonus 3.8's."""
    def refuse(*args, **kwargs):
        raise NotImplementedError(
            f"F.{name} is not provided: it is softplus, chapter 3's bonus exercise 3.8; once "
            f"written, use {how} with softplus = framework.bonus.chapter3_primitives.softplus")

    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = f"Not provided: {name} is softplus, bonus exercise 3.8's answer."
    return refuse


softplus = refused_as_softplus("softplus", "softplus(x, beta)")
logsigmoid = refused_as_softplus("logsigmoid", "-softplus(-x)")
mish = refused_as_softplus("mish", "x * softplus(x).tanh()")


def elu(x: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x where x > 0, α(eˣ - 1) elsewhere."""
    return x.relu() + alpha * (-(-x).relu()).expm1()


def selu(x: Tensor, inplace: bool = False) -> Tensor:
    """scale · elu(x, α) with PyTorch's self-normalising α and scale."""
    return SELU_SCALE * elu(x, SELU_ALPHA)


def celu(x: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, α(e^(x/α) - 1))."""
    return x.relu() + alpha * (-(-x).relu() / alpha).expm1()


def hardtanh(x: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    return x.clamp(min_val, max_val)


def relu6(x: Tensor, inplace: bool = False) -> Tensor:
    return x.clamp(0.0, 6.0)


def hardsigmoid(x: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6."""
    return relu6(x + 3.0) / 6.0


def hardswish(x: Tensor, inplace: bool = False) -> Tensor:
    return x * hardsigmoid(x)


def softsign(x: Tensor) -> Tensor:
    return x / (1 + x.abs())


def tanhshrink(x: Tensor) -> Tensor:
    return x - x.tanh()


def softshrink(x: Tensor, lambd: float = 0.5) -> Tensor:
    """x - λ above λ, x + λ below -λ, 0 between."""
    return (x - lambd).relu() - (-x - lambd).relu()


def hardshrink(x: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > λ, 0 elsewhere."""
    return x.masked_fill(np.abs(x.data) <= lambd, 0.0)


def threshold(x: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """x where x > threshold, `value` elsewhere."""
    return x.masked_fill(x.data <= threshold, value)


def glu(x: Tensor, dim: int = -1) -> Tensor:
    """a · σ(b), a and b the two halves of x along `dim`."""
    if x.shape[dim] % 2:
        raise ValueError(f"glu: dim {dim} has odd size {x.shape[dim]}; it is split in halves")
    a, b = x.chunk(2, dim)
    return a * b.sigmoid()


def softmin(x: Tensor, dim: int | None = None) -> Tensor:
    return (-x).softmax(-1 if dim is None else dim)


def normalize(x: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """x / max(‖x‖_p, eps) along `dim` (p = 1 or 2)."""
    return x / x.norm(p, dim, keepdim=True).clamp(min=eps)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """x1 · x2 / (max(‖x1‖, eps) · max(‖x2‖, eps)) along `dim`."""
    norms = x1.norm(dim=dim).clamp(min=eps) * x2.norm(dim=dim).clamp(min=eps)
    return (x1 * x2).sum(dim) / norms


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """‖x1 - x2 + eps‖_p along the last axis."""
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


NAMES = ("softplus", "elu", "selu", "celu", "hardtanh", "relu6", "hardsigmoid", "hardswish",
         "logsigmoid", "mish", "softsign", "tanhshrink", "softshrink", "hardshrink", "threshold",
         "glu", "softmin", "normalize", "cosine_similarity", "pairwise_distance")
