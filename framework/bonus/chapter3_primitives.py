"""Chapter 3's bonus track (optional): softplus, a smooth ReLU, and the Huber loss.

As `torch.nn.functional.softplus` and `torch.nn.functional.huber_loss`. Nothing provided
calls them: a learner who skips the bonus track loses nothing.
"""

from __future__ import annotations

import numpy as np

from ..function import Function, unwrap
from ..nn.functional import _check_reduction, _reduce, _reduction_scale, _same_shape
from ..ops import stable_sigmoid
from ..tensor import Tensor

# -- bonus exercise 3.8 ------------------------------------------------------------------------


class Softplus(Function):
    """c = (1/β) ln(1 + e^(βa)), finite for every finite a; ∂a = g · σ(βa)."""

    @staticmethod
    def forward(ctx, a, beta):
        ### BEGIN SOLUTION 3.8
        raise NotImplementedError("Exercise 3.8: Softplus, a smooth ReLU (bonus) — see chapters/03_primitives.ipynb, '3.8 Bonus: softplus'")
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 3.8
        raise NotImplementedError("Exercise 3.8: Softplus, a smooth ReLU (bonus) — see chapters/03_primitives.ipynb, '3.8 Bonus: softplus'")
        ### END SOLUTION


def softplus(input: Tensor, beta: float = 1.0) -> Tensor:
    """Elementwise (1/β) ln(1 + e^(βx)): close to relu(x) away from 0, smooth at 0."""
    if not beta > 0:
        raise ValueError(f"softplus: beta={beta!r} must be positive")
    return Softplus.apply(input, beta=float(beta))


# -- bonus exercise 3.9 ------------------------------------------------------------------------


class HuberLoss(Function):
    """With d = x − y: ½d² where |d| ≤ δ, δ(|d| − ½δ) elsewhere, then reduced;
    ∂x = clip(d, −δ, δ) · g, ∂y = −∂x."""

    @staticmethod
    def forward(ctx, x, y, reduction="mean", delta=1.0):
        ### BEGIN SOLUTION 3.9
        raise NotImplementedError("Exercise 3.9: The Huber loss (bonus) — see chapters/03_primitives.ipynb, '3.9 Bonus: the Huber loss'")
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 3.9
        raise NotImplementedError("Exercise 3.9: The Huber loss (bonus) — see chapters/03_primitives.ipynb, '3.9 Bonus: the Huber loss'")
        ### END SOLUTION


def huber_loss(input: Tensor, target, reduction: str = "mean", delta: float = 1.0) -> Tensor:
    """Squared error for small differences, absolute error (slope δ) for large ones."""
    _check_reduction("huber_loss", reduction)
    _same_shape("huber_loss", unwrap(input), unwrap(target))
    if not delta > 0:
        raise ValueError(f"huber_loss: delta={delta!r} must be positive")
    return HuberLoss.apply(input, target, reduction=reduction, delta=float(delta))
