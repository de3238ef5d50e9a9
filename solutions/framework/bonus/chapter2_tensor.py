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
        ctx.axis = axis
        return np.cumsum(a, axis=axis)
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.11
        reversed_grad = np.flip(grad, ctx.axis)
        return (np.flip(np.cumsum(reversed_grad, axis=ctx.axis), ctx.axis),)
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
        shift = np.max(a, axis=axis, keepdims=True)
        kept = shift + np.log(np.sum(np.exp(a - shift), axis=axis, keepdims=True))
        ctx.save_for_backward(a, kept)
        ctx.axis, ctx.keepdims = axis, keepdims
        return kept if keepdims else np.squeeze(kept, axis=axis)
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.12
        a, kept = ctx.saved_tensors
        if not ctx.keepdims:
            grad = np.expand_dims(grad, ctx.axis)
        return (grad * np.exp(a - kept),)
        ### END SOLUTION


def logsumexp(x: Tensor, dim: int, keepdim: bool = False) -> Tensor:
    """log Σ exp(x) along `dim`, as `torch.logsumexp(x, dim, keepdim)`."""
    return LogSumExp.apply(x, axis=dim, keepdims=keepdim)
