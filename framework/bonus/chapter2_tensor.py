"""Chapter 2's bonus track (optional): two ops with backward rules of their own.

`cumsum` and `logsumexp` are `Function`s as in `tensor.py`; nothing provided calls them, so
a learner who skips the bonus track loses nothing.
"""

from __future__ import annotations

import numpy as np

from ..function import Function
from ..tensor import Tensor

# -- bonus exercise 2.11 -----------------------------------------------------------------------


class CumSum(Function):
    """c_i = Σ_{j ≤ i} a_j along `axis`; ∂a_j = Σ_{i ≥ j} g_i, a cumulative sum from the end."""

    @staticmethod
    def forward(ctx, a, axis):
        ### BEGIN SOLUTION 2.11
        raise NotImplementedError("Exercise 2.11: Cumsum, forward and backward (bonus) — see chapters/02_tensor.ipynb, '2.11 Bonus: cumsum'")
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.11
        raise NotImplementedError("Exercise 2.11: Cumsum, forward and backward (bonus) — see chapters/02_tensor.ipynb, '2.11 Bonus: cumsum'")
        ### END SOLUTION


def cumsum(x: Tensor, dim: int) -> Tensor:
    """The running sum of `x` along `dim`, as `torch.cumsum(x, dim)`; same shape and dtype."""
    return CumSum.apply(x, axis=dim)


# -- bonus exercise 2.12 -----------------------------------------------------------------------


class LogSumExp(Function):
    """c = log Σ_axis eᵃ, finite for large a (shift by the max first); ∂a = g · e^(a − c)."""

    @staticmethod
    def forward(ctx, a, axis, keepdims):
        ### BEGIN SOLUTION 2.12
        raise NotImplementedError("Exercise 2.12: Logsumexp, stable (bonus) — see chapters/02_tensor.ipynb, '2.12 Bonus: logsumexp'")
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.12
        raise NotImplementedError("Exercise 2.12: Logsumexp, stable (bonus) — see chapters/02_tensor.ipynb, '2.12 Bonus: logsumexp'")
        ### END SOLUTION


def logsumexp(x: Tensor, dim: int, keepdim: bool = False) -> Tensor:
    """log Σ exp(x) along `dim`, as `torch.logsumexp(x, dim, keepdim)`."""
    return LogSumExp.apply(x, axis=dim, keepdims=keepdim)
