"""Chapter 6: convolution and pooling on NCHW arrays, as in `torch.nn.functional`.

A convolution slides a small kernel over an image. Written as loops it is six nested
loops; written with `unfold` (im2col) it is one matrix product: every window of the
input becomes a row, the kernel becomes a column per output channel. Each op here is
ONE `Function` with its own analytic backward. Arrays are (N, C, H, W): batch,
channels, height, width; weights are (C_out, C_in, kH, kW), PyTorch's layout.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..function import Function
from ..tensor import Tensor

__all__ = ["avg_pool2d", "conv2d", "fold", "max_pool2d", "pair", "unfold"]


def pair(value, name: str, op: str) -> tuple[int, int]:
    """(value, value) for an int, the pair itself for a pair of ints (PyTorch's `_pair`)."""
    values = (value, value) if isinstance(value, (int, np.integer)) else value
    integers = isinstance(values, (tuple, list)) and len(values) == 2 and all(
        isinstance(v, (int, np.integer)) for v in values)
    if not integers:
        raise TypeError(f"{op}: {name} must be an int or a pair of ints, got {value!r}")
    return int(values[0]), int(values[1])


def _check_image(op: str, x: np.ndarray) -> None:
    if x.ndim != 4:
        raise ValueError(
            f"{op}: the input must be 4-D (N, C, H, W), got shape {x.shape}; for one image "
            "of shape (C, H, W) use x.reshape((1, C, H, W))"
        )


def _check_window(op: str, shape, kernel, stride, padding) -> None:
    if min(stride) < 1 or min(padding) < 0 or min(kernel) < 1:
        raise ValueError(f"{op}: kernel size {kernel} and stride {stride} must be ≥ 1, "
                         f"padding {padding} ≥ 0")
    padded = (shape[2] + 2 * padding[0], shape[3] + 2 * padding[1])
    if kernel[0] > padded[0] or kernel[1] > padded[1]:
        raise ValueError(
            f"{op}: a {kernel[0]}×{kernel[1]} kernel does not fit in the input of shape {shape} "
            f"padded by {padding} ({padded[0]}×{padded[1]}); use a smaller kernel or more padding"
        )


# -- exercise 6.1: unfold ------------------------------------------------------------------------


def unfold(x: np.ndarray, kernel_size: tuple[int, int], stride: tuple[int, int] = (1, 1),
           padding: tuple[int, int] = (0, 0)) -> np.ndarray:
    """Every kH×kW window of x (N, C, H, W), zero-padded, as a view (N, C, OH, OW, kH, kW):
    windows[n, c, i, j] = x_padded[n, c, i·sH : i·sH + kH, j·sW : j·sW + kW]. No copy is made
    beyond the padding: the windows share x's memory through strides.
    """
    ### BEGIN SOLUTION 6.1
    (ph, pw), (sh, sw) = padding, stride
    if ph or pw:  # zeros laid out as x is: a channels-last image stays channels-last
        n, c, h, w = x.shape
        padded = np.zeros_like(x, shape=(n, c, h + 2 * ph, w + 2 * pw))
        padded[:, :, ph:ph + h, pw:pw + w] = x
        x = padded
    windows = sliding_window_view(x, kernel_size, axis=(2, 3))
    return windows[:, :, ::sh, ::sw]
    ### END SOLUTION


def fold(windows_grad: np.ndarray, shape: tuple[int, ...], stride: tuple[int, int],
         padding: tuple[int, int]) -> np.ndarray:
    """The adjoint of `unfold`: the gradient of x (shape `shape`) from the gradient of its
    windows (N, C, OH, OW, kH, kW). A pixel inside several windows receives the sum of
    their shares; one slice-add per kernel offset, not a loop over pixels.
    """
    n, c, oh, ow, kh, kw = windows_grad.shape
    (sh, sw), (ph, pw) = stride, padding
    grad = np.zeros((n, c, shape[2] + 2 * ph, shape[3] + 2 * pw), dtype=windows_grad.dtype)
    for i in range(kh):
        for j in range(kw):
            grad[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw] += windows_grad[:, :, :, :, i, j]
    return grad[:, :, ph:ph + shape[2], pw:pw + shape[3]]


# -- exercises 6.2 to 6.4: the convolution ------------------------------------------------------


def conv2d_weight_grad(grad: np.ndarray, columns: np.ndarray, weight_shape) -> np.ndarray:
    """∂W[o, c, i, j] = Σ_{n,y,x} G[n, o, y, x] · x_pad[n, c, y·s + i, x·s + j]: a correlation
    of the input with the output's gradient, one product G₂ᵀ · columns with G₂ (N·OH·OW, C_out)
    and the forward's columns (N·OH·OW, kH·kW·C), channels last.
    """
    ### BEGIN SOLUTION 6.3
    c_out, c, kh, kw = weight_shape
    grad2 = grad.transpose(0, 2, 3, 1).reshape(-1, c_out)  # no copy when G is channels-last
    return (grad2.T @ columns).reshape(c_out, kh, kw, c).transpose(0, 3, 1, 2)
    ### END SOLUTION


def conv2d_bias_grad(grad: np.ndarray) -> np.ndarray:
    """∂b[o] = Σ_{n,y,x} G[n, o, y, x]: the bias is added at every position of every image."""
    ### BEGIN SOLUTION 6.3
    grad2 = grad.transpose(0, 2, 3, 1).reshape(-1, grad.shape[1])  # (N·OH·OW, C_out)
    # the column sums as a product with ones: one BLAS call, where NumPy's sum over three
    # axes of a channels-last array was measured 16 times slower
    return np.ones(len(grad2), grad.dtype) @ grad2
    ### END SOLUTION


def conv2d_input_grad(grad: np.ndarray, weight: np.ndarray, shape, stride, padding) -> np.ndarray:
    """∂x = the transposed convolution of G: G spread out by the stride (zeros between), then
    a full correlation (padding k - 1) with the kernel flipped in both axes and its two
    channel axes swapped, at x's positions only (not its padding's); rows no window reached
    get 0. A convolution like the forward's, so one product of channels-last columns again.
    """
    ### BEGIN SOLUTION 6.4
    n, c_out, oh, ow = grad.shape
    kh, kw = weight.shape[2:]
    (sh, sw), (ph, pw) = stride, padding
    # G spread by the stride into x's frame widened by k - 1: output row a read x's rows
    # a·s - p … a·s - p + k - 1, so it goes to frame row a·s + k - 1 - p, and x's row y then
    # gathers frame rows y … y + k - 1: one window per pixel of x, none to crop or add
    top, left = kh - 1 - ph, kw - 1 - pw
    mh, mw = max(-top, 0), max(-left, 0)  # a margin where the padding is wider than the kernel
    frame = np.zeros_like(grad, shape=(n, c_out, shape[2] + kh - 1 + 2 * mh,
                                       shape[3] + kw - 1 + 2 * mw))
    frame[:, :, mh + top:mh + top + (oh - 1) * sh + 1:sh,
          mw + left:mw + left + (ow - 1) * sw + 1:sw] = grad
    windows = unfold(frame, (kh, kw))[:, :, mh:mh + shape[2], mw:mw + shape[3]]
    columns = windows.transpose(0, 2, 3, 4, 5, 1).reshape(-1, kh * kw * c_out)
    flipped = weight[:, :, ::-1, ::-1]
    kernels = flipped.transpose(2, 3, 0, 1).reshape(-1, weight.shape[1])  # (kH·kW·C_out, C)
    return (columns @ kernels).reshape(n, *shape[2:], shape[1]).transpose(0, 3, 1, 2)
    ### END SOLUTION


class Conv2dFunction(Function):
    """y[n, o] = b[o] + Σ_c x[n, c] ⋆ W[o, c] (cross-correlation, PyTorch's convolution), as one
    product of the unfolded windows (N·OH·OW, kH·kW·C) with the kernels (kH·kW·C, C_out).

    Channels last: the product's rows are (n, y, x) positions and its columns channels, so its
    output is the next layer's input laid out channels-last already, returned as an
    (N, C_out, OH, OW) view without a copy; the next unfold then copies runs of whole channels.
    """

    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding):
        _check_image("conv2d", x)
        if weight.ndim != 4:
            raise ValueError(
                f"conv2d: the weight must be 4-D (out_channels, in_channels, kH, kW), got shape "
                f"{weight.shape}; for one input channel give it shape (C_out, 1, kH, kW)"
            )
        if weight.shape[1] != x.shape[1]:
            raise ValueError(
                f"conv2d: the input of shape {x.shape} has {x.shape[1]} channels, the weight of "
                f"shape {weight.shape} expects {weight.shape[1]} (C_out, C_in, kH, kW)"
            )
        if bias is not None and bias.shape != (weight.shape[0],):
            raise ValueError(f"conv2d: bias of shape {bias.shape} for {weight.shape[0]} output "
                             f"channels; it must be ({weight.shape[0]},)")
        _check_window("conv2d", x.shape, weight.shape[2:], stride, padding)
        ctx.shape, ctx.stride, ctx.padding = x.shape, stride, padding
        ### BEGIN SOLUTION 6.2
        windows = unfold(x, weight.shape[2:], stride, padding)  # (N, C, OH, OW, kH, kW)
        n, _, oh, ow, kh, kw = windows.shape
        if x.strides[1] == x.itemsize:  # channels-last memory: one copy reads runs of kW·C
            columns = windows.transpose(0, 2, 3, 4, 5, 1).reshape(n * oh * ow, -1)
        else:  # image rows in memory: a copy per kernel offset reads runs of OW
            columns = np.empty((n, oh, ow, kh, kw, x.shape[1]), x.dtype)
            for u, v in np.ndindex(kh, kw):
                columns[:, :, :, u, v] = windows[..., u, v].transpose(0, 2, 3, 1)
            columns = columns.reshape(n * oh * ow, -1)
        kernels = weight.transpose(0, 2, 3, 1).reshape(weight.shape[0], -1)  # (C_out, kH·kW·C)
        out = columns @ kernels.T  # (N·OH·OW, C_out)
        if bias is not None:
            out += bias
        ctx.save_for_backward(columns, weight)
        return out.reshape(n, oh, ow, -1).transpose(0, 3, 1, 2)
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        columns, weight = ctx.saved_tensors
        needs = ctx.needs_input_grad
        grad_x = (conv2d_input_grad(grad, weight, ctx.shape, ctx.stride, ctx.padding)
                  if needs[0] else None)
        grad_w = conv2d_weight_grad(grad, columns, weight.shape) if needs[1] else None
        grad_b = conv2d_bias_grad(grad) if needs[2] else None
        return grad_x, grad_w, grad_b


def conv2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0) -> Tensor:
    """PyTorch's F.conv2d: x (N, C_in, H, W), weight (C_out, C_in, kH, kW), bias (C_out,) or
    None; out (N, C_out, OH, OW), OH = ⌊(H + 2p - kH) / s⌋ + 1. stride, padding: int or pair.
    """
    return Conv2dFunction.apply(x, weight, bias, pair(stride, "stride", "conv2d"),
                                pair(padding, "padding", "conv2d"))


# -- exercises 6.5 and 6.6: pooling ----------------------------------------------------------------


def _pool_windows(op: str, x: np.ndarray, kernel_size, stride) -> tuple:
    _check_image(op, x)
    kernel = pair(kernel_size, "kernel_size", op)
    steps = kernel if stride is None else pair(stride, "stride", op)
    _check_window(op, x.shape, kernel, steps, (0, 0))
    return unfold(x, kernel, steps), steps


class MaxPool2dFunction(Function):
    """y = the maximum of each window; the gradient goes to ONE winner per window, the first
    maximum in row-major order (PyTorch's rule; ties are not split, unlike Tensor.max).
    """

    @staticmethod
    def forward(ctx, x, kernel_size, stride):
        windows, ctx.stride = _pool_windows("max_pool2d", x, kernel_size, stride)
        ctx.shape = x.shape
        ### BEGIN SOLUTION 6.5
        kh, kw = windows.shape[4:]
        offsets = [windows[..., i, j] for i, j in np.ndindex(kh, kw)]  # every window's (i, j)
        # (N, C, OH, OW), a new array laid out as x is; one offset alone gives itself
        out = np.maximum(offsets[0], offsets[-1])
        for offset in offsets[1:-1]:
            np.maximum(out, offset, out=out)
        ctx.x, ctx.windows, ctx.out = x, windows, out
        return out
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 6.5
        (kh, kw), (sh, sw), (oh, ow) = ctx.windows.shape[4:], ctx.stride, grad.shape[2:]
        overlapping = sh < kh or sw < kw
        tiled = (sh, sw) == (kh, kw) and (oh * kh, ow * kw) == ctx.shape[2:]
        # windows that tile x write every pixel below, once: no zeros needed first
        grad_x = np.empty_like(ctx.x) if tiled else np.zeros_like(ctx.x)
        laid_out = np.empty_like(ctx.out)  # G laid out as the output: like with like is fast
        laid_out[...] = grad
        unclaimed = np.ones_like(ctx.out, dtype=bool)  # windows no offset has won yet
        for k in range(kh * kw):  # row-major order, so a tie goes to its first maximum
            i, j = divmod(k, kw)
            won = ctx.windows[..., i, j] == ctx.out
            won &= unclaimed  # a window already won gives later ties nothing
            unclaimed ^= won
            pixels = grad_x[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw]
            if overlapping:  # a pixel may win several windows: add up its shares
                pixels += laid_out * won
            else:  # each pixel is in one window at most: write its share in place
                np.multiply(laid_out, won, out=pixels)
        return (grad_x,)
        ### END SOLUTION


class AvgPool2dFunction(Function):
    """y = the mean of each kH×kW window; every pixel of a window gets G / (kH·kW) of it."""

    @staticmethod
    def forward(ctx, x, kernel_size, stride):
        windows, ctx.stride = _pool_windows("avg_pool2d", x, kernel_size, stride)
        ctx.shape = x.shape
        ### BEGIN SOLUTION 6.6
        ctx.kernel = windows.shape[4:]
        return windows.mean(axis=(4, 5))
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 6.6
        kh, kw = ctx.kernel
        share = grad / (kh * kw)
        windows_grad = np.broadcast_to(share[..., None, None], grad.shape + (kh, kw))
        return (fold(windows_grad, ctx.shape, ctx.stride, (0, 0)),)
        ### END SOLUTION


def max_pool2d(x: Tensor, kernel_size, stride=None) -> Tensor:
    """PyTorch's F.max_pool2d without padding: the maximum of each window; stride defaults to
    kernel_size (windows side by side); out (N, C, ⌊(H - kH) / sH⌋ + 1, ⌊(W - kW) / sW⌋ + 1).
    """
    return MaxPool2dFunction.apply(x, kernel_size, stride)


def avg_pool2d(x: Tensor, kernel_size, stride=None) -> Tensor:
    """PyTorch's F.avg_pool2d without padding: the mean of each window; stride as max_pool2d."""
    return AvgPool2dFunction.apply(x, kernel_size, stride)
