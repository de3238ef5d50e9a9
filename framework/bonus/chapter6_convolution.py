"""Chapter 6's bonus track (optional): dilated and depthwise convolutions.

Both are built on chapter 6's `conv2d`. A dilated convolution spreads its kernel out with
zeros between the taps, so a 3×3 kernel sees a 5×5 area at dilation 2 for the same nine
weights; a depthwise convolution gives each channel a kernel of its own (MobileNet's
building block). Nothing provided calls them: a learner who skips the bonus track loses nothing.
"""

from __future__ import annotations

import numpy as np

from ..function import Function
from ..nn.conv import conv2d
from ..provided.surface import concatenate
from ..tensor import Tensor

# -- bonus exercise 6.8 ------------------------------------------------------------------------


class Dilate(Function):
    """The kernel spread out: (C_out, C_in, kH, kW) → (C_out, C_in, d(kH − 1) + 1, d(kW − 1) + 1),
    tap (u, v) at (d·u, d·v) and zeros between; ∂ reads the gradient at the taps back."""

    @staticmethod
    def forward(ctx, weight, dilation):
        ### BEGIN SOLUTION 6.8
        raise NotImplementedError("Exercise 6.8: Dilated convolution (bonus) — see chapters/06_convolution.ipynb, '6.8 Bonus: dilation'")
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 6.8
        raise NotImplementedError("Exercise 6.8: Dilated convolution (bonus) — see chapters/06_convolution.ipynb, '6.8 Bonus: dilation'")
        ### END SOLUTION


def dilate(weight: Tensor, dilation: int) -> Tensor:
    """`weight` with dilation − 1 zeros between neighbouring taps, along both kernel axes."""
    if not (isinstance(dilation, int) and dilation >= 1):
        raise ValueError(f"dilate: dilation={dilation!r} must be a whole number >= 1")
    return Dilate.apply(weight, dilation=dilation)


def conv2d_dilated(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                   dilation: int = 1) -> Tensor:
    """F.conv2d with `dilation`: y[n, o, i, j] = b[o] + Σ W[o, c, u, v] · x_p[n, c, i·s + d·u, j·s + d·v]."""
    return conv2d(x, dilate(weight, dilation), bias, stride, padding)


# -- bonus exercise 6.9 ------------------------------------------------------------------------


def depthwise_conv2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1,
                     padding=0) -> Tensor:
    """F.conv2d with groups = C: x (N, C, H, W), weight (C, 1, kH, kW), bias (C,) or None;
    channel c of the output is channel c of x convolved with weight[c] alone (plus bias[c]).
    The gradients come from the ops it is built of."""
    if weight.ndim != 4 or weight.shape[:2] != (x.shape[1], 1):
        raise ValueError(f"depthwise_conv2d: weight {tuple(weight.shape)} must be (C, 1, kH, kW) with "
                         f"C = {x.shape[1]}, the channels of x {tuple(x.shape)}")
    ### BEGIN SOLUTION 6.9
    raise NotImplementedError("Exercise 6.9: Depthwise convolution (bonus) — see chapters/06_convolution.ipynb, '6.9 Bonus: depthwise convolution'")
    ### END SOLUTION
