"""Provided: more of `torch.nn.functional`'s losses, each built from ops that have their
gradients: `kl_div`, `soft_margin_loss`, `margin_ranking_loss`, `hinge_embedding_loss`,
`cosine_embedding_loss`, `poisson_nll_loss`, `gaussian_nll_loss`, `triplet_margin_loss`.
Each takes PyTorch's `reduction` ("mean", "sum" or "none"), and as PyTorch's the deprecated
`size_average=`/`reduce=` where PyTorch takes them; `nn/loss.py` has their module
forms. Refused: `huber_loss` (and `smooth_l1_loss`), bonus exercise 3.9's answer, and
`soft_margin_loss`, softplus of the margin, 3.8's.
"""

from __future__ import annotations

import math

import numpy as np

from ..tensor import Tensor
from ._reduction import REDUCTIONS, legacy_arguments
from .functional_activation import cosine_similarity, pairwise_distance, refused_as_softplus


def reduced(losses: Tensor, reduction: str, op: str) -> Tensor:
    """The losses averaged, summed or kept, as `reduction` says."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of {REDUCTIONS}, got {reduction!r}")
    return losses.mean() if reduction == "mean" else losses.sum() if reduction == "sum" else losses


@legacy_arguments
def kl_div(input: Tensor, target, reduction: str = "mean", log_target: bool = False) -> Tensor:  # noqa: A002
    """Σ target · (log target - input), input being log-probabilities ("batchmean" divides the
    sum by the batch size, as PyTorch's)."""
    target = target if isinstance(target, Tensor) else Tensor(np.asarray(target))
    pointwise = (target.exp() * (target - input) if log_target
                 else target * ((target + (target == 0)).log() - input))
    if reduction == "batchmean":
        return pointwise.sum() / input.shape[0]
    return reduced(pointwise, reduction, "kl_div")


soft_margin_loss = refused_as_softplus("soft_margin_loss", "softplus(-target * input), reduced")


@legacy_arguments
def margin_ranking_loss(input1: Tensor, input2: Tensor, target, margin: float = 0.0,
                        reduction: str = "mean") -> Tensor:
    """max(0, -target · (input1 - input2) + margin), targets ±1."""
    return reduced((-(input1 - input2) * target + margin).relu(), reduction, "margin_ranking_loss")


@legacy_arguments
def hinge_embedding_loss(input: Tensor, target, margin: float = 1.0,  # noqa: A002
                         reduction: str = "mean") -> Tensor:
    """input where target is 1, max(0, margin - input) where it is -1."""
    positive = np.asarray(getattr(target, "data", target)) == 1
    losses = input.masked_fill(~positive, 0.0) + (margin - input).relu().masked_fill(positive, 0.0)
    return reduced(losses, reduction, "hinge_embedding_loss")


@legacy_arguments
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target, margin: float = 0.0,
                          reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1."""
    cosine = cosine_similarity(input1, input2, dim=-1)
    positive = np.asarray(getattr(target, "data", target)) == 1
    losses = (1 - cosine).masked_fill(~positive, 0.0) + (cosine - margin).relu().masked_fill(positive, 0.0)
    return reduced(losses, reduction, "cosine_embedding_loss")


@legacy_arguments
def poisson_nll_loss(input: Tensor, target, log_input: bool = True, full: bool = False,  # noqa: A002
                     eps: float = 1e-8, reduction: str = "mean") -> Tensor:
    """e^input - target · input (log_input), or input - target · log(input + eps); with
    `full`, Stirling's term target · log target - target + ½ log(2π target) where target > 1."""
    losses = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        t = np.asarray(getattr(target, "data", target), dtype=input.dtype)
        safe = np.where(t > 1, t, 2)
        losses = losses + np.where(t > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * math.pi * safe), 0)
    return reduced(losses, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input: Tensor, target, var, full: bool = False, eps: float = 1e-6,  # noqa: A002
                      reduction: str = "mean") -> Tensor:
    """½ (log max(var, eps) + (input - target)² / max(var, eps)), plus ½ log 2π if `full`."""
    var = var.clamp(min=eps) if isinstance(var, Tensor) else np.maximum(var, eps)
    logs = var.log() if isinstance(var, Tensor) else np.log(var)
    losses = 0.5 * (logs + (input - target) ** 2 / var) + (0.5 * math.log(2 * math.pi) if full else 0.0)
    return reduced(losses, reduction, "gaussian_nll_loss")


@legacy_arguments
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        reduction: str = "mean") -> Tensor:
    """max(0, d(anchor, positive) - d(anchor, negative) + margin), d the p-norm distance."""
    near, far = pairwise_distance(anchor, positive, p, eps), pairwise_distance(anchor, negative, p, eps)
    if swap:
        far = far.minimum(pairwise_distance(positive, negative, p, eps))
    return reduced((near - far + margin).relu(), reduction, "triplet_margin_loss")


def huber_loss(input: Tensor, target, reduction: str = "mean", delta: float = 1.0) -> Tensor:  # noqa: A002
    """Not provided: Huber's loss is chapter 3's bonus exercise 3.9."""
    raise NotImplementedError(
        "F.huber_loss is not provided: it is chapter 3's bonus exercise 3.9; once written, use "
        "framework.bonus.chapter3_primitives.huber_loss(input, target, reduction, delta)")


NAMES = ("kl_div", "soft_margin_loss", "margin_ranking_loss", "hinge_embedding_loss",
         "cosine_embedding_loss", "poisson_nll_loss", "gaussian_nll_loss", "triplet_margin_loss",
         "huber_loss")
