"""Chapter 3: the functions layers and losses are made of, as in `torch.nn.functional`.

Each is ONE `Function` with its own analytic backward: fewer graph nodes and temporary arrays,
numerics we control (no loss exponentiates a large positive number: logits of 1e4 are fine).
"""

from __future__ import annotations

import math

import numpy as np

from ..function import Function, unwrap
from ..ops import ReLU, Sigmoid, Tanh, stable_sigmoid
from ..provided import backend, promotion
from ..provided.dims import accepts_dim
from ..tensor import Tensor
from ._reduction import check_reduction as _check_reduction
from ._reduction import legacy_arguments as _legacy_arguments


def __getattr__(name: str):
    """Chapters 5's and 6's ops (`F.layer_norm`, `F.conv2d`) and the provided extras
    (`F.leaky_relu`), read from their files when first used: chapter 3 waits for none."""
    if name in ("leaky_relu", "silu", "smooth_l1_loss", "dropout2d"):
        from . import functional_extra as home
    elif name in ("layer_norm", "scaled_dot_product_attention", "dropout"):
        from . import functional_transformer as home
    elif name in ("conv2d", "max_pool2d", "avg_pool2d"):
        from . import conv as home
    else:  # the other provided extras, or the error that names a missing name
        from . import functional_extra as home
    globals()[name] = getattr(home, name)
    return globals()[name]


# -- activations -------------------------------------------------------------------------------


def relu(x: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0); ∂ = 1 where x > 0. `inplace=True` writes it into x (`x.relu_()`), as PyTorch."""
    return x.relu_() if inplace else ReLU.apply(x)


def sigmoid(x: Tensor) -> Tensor:
    """σ(x) = 1 / (1 + e⁻ˣ); ∂ = σ(1 - σ)."""
    return Sigmoid.apply(x)


def tanh(x: Tensor) -> Tensor:
    """tanh x; ∂ = 1 - tanh² x."""
    return Tanh.apply(x)


_GELU_C = math.sqrt(2 / math.pi)  # a Python float: an np.float64 would promote float32
GELU_BLOCK = 65536  # elements a pass works on at a time: a block's arrays stay in a core's cache


class GELU(Function):
    """c = x/2 · (1 + tanh u), u = √(2/π)(x + 0.044715x³);
    ∂c/∂x = (1 + tanh u)/2 + x/2 · (1 - tanh² u) · √(2/π)(1 + 3 · 0.044715x²).
    """

    # One pass a line, in place after the first, a block of the flattened array at a time: one
    # expression made ten passes and new arrays (1.6× slower, backward 1.8×); whole-array passes
    # missed the cache (W5's (768, 512): 0.63/0.79 ms forward/backward, blocks 0.5/0.6).

    @staticmethod
    def forward(ctx, x):
        flat = np.ravel(x)
        dtype = np.result_type(x, 1.0)  # ints: float64
        t, out = np.empty(flat.shape, dtype), np.empty(flat.shape, dtype)
        for start in range(0, flat.size, GELU_BLOCK):
            block = slice(start, start + GELU_BLOCK)
            x_b, u, out_b = flat[block], t[block], out[block]
            np.multiply(x_b, x_b, out=u)
            u *= 0.044715 * _GELU_C
            u += _GELU_C
            u *= x_b  # u = √(2/π)(x + 0.044715x³), x³ as products: float32 ** is slow
            np.tanh(u, out=u)
            np.add(u, 1, out=out_b)
            out_b *= x_b
            out_b *= 0.5
        ctx.save_for_backward(x, t)
        return out.reshape(np.shape(x))

    @staticmethod
    def backward(ctx, grad):
        x, t = ctx.saved_tensors
        flat, grad_flat = np.ravel(x), np.ravel(grad)
        dx = np.empty_like(t)
        for start in range(0, t.size, GELU_BLOCK):
            block = slice(start, start + GELU_BLOCK)
            x_b, t_b, d = flat[block], t[block], dx[block]
            slope = np.multiply(x_b, x_b, dtype=t.dtype)
            slope *= 3 * 0.044715 * _GELU_C
            slope += _GELU_C
            slope *= x_b  # x · du/dx
            np.multiply(t_b, t_b, out=d)
            np.subtract(1, d, out=d)
            d *= slope  # x (1 - tanh² u) du/dx
            d += t_b
            d += 1
            d *= 0.5
            d *= grad_flat[block]
        return (dx.reshape(np.shape(x)),)


def gelu(x: Tensor) -> Tensor:
    """GELU in its tanh form (GPT-2's, PyTorch's approximate="tanh")."""
    return backend.gelu(x, GELU.apply)  # or chapter 8's kernel, under set_backend("kernels")


# -- the Linear layer's op -------------------------------------------------------------------------


class LinearFunction(Function):
    """y = x Wᵀ + b, x (..., K), W (N, K), b (N,) or None; ∂x = G W, ∂W = Gᵀ x, ∂b = Σ G.

    The batch axes are folded into one (M, K) @ (K, N) product, forward and backward.
    """

    @staticmethod
    def forward(ctx, x, weight, bias):
        if x.ndim == 0 or x.shape[-1] != weight.shape[1]:
            raise ValueError(
                f"linear: input of shape {x.shape} for a weight of shape {weight.shape}: the "
                f"input's last axis must be in_features = {weight.shape[1]}"
            )
        ctx.x_shape = x.shape
        ### BEGIN SOLUTION 3.2
        raise NotImplementedError("Exercise 3.2: The Linear layer — see chapters/03_primitives.ipynb, '3.2 The Linear layer'")
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 3.2
        raise NotImplementedError("Exercise 3.2: The Linear layer — see chapters/03_primitives.ipynb, '3.2 The Linear layer'")
        ### END SOLUTION


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x Wᵀ + b as one op (PyTorch's F.linear)."""
    return LinearFunction.apply(x, weight, bias)


# -- exercise 3.3: softmax and log-softmax -----------------------------------------------------------


class Softmax(Function):
    """s = eˣ / Σ eˣ along an axis; ∂x = s ⊙ (g - Σ g ⊙ s) (the sum along the same axis)."""

    @staticmethod
    def forward(ctx, x, axis=-1):
        ### BEGIN SOLUTION 3.3
        raise NotImplementedError("Exercise 3.3: Softmax and log-softmax — see chapters/03_primitives.ipynb, '3.3 Softmax and log-softmax'")
        ### END SOLUTION
        ctx.save_for_backward(out)
        ctx.axis = axis
        return out

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 3.3
        raise NotImplementedError("Exercise 3.3: Softmax and log-softmax — see chapters/03_primitives.ipynb, '3.3 Softmax and log-softmax'")
        ### END SOLUTION


class LogSoftmax(Function):
    """l = x - log Σ eˣ along an axis; ∂x = g - softmax(x) ⊙ Σ g."""

    @staticmethod
    def forward(ctx, x, axis=-1):
        ### BEGIN SOLUTION 3.3
        raise NotImplementedError("Exercise 3.3: Softmax and log-softmax — see chapters/03_primitives.ipynb, '3.3 Softmax and log-softmax'")
        ### END SOLUTION
        ctx.save_for_backward(out)
        ctx.axis = axis
        return out

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 3.3
        raise NotImplementedError("Exercise 3.3: Softmax and log-softmax — see chapters/03_primitives.ipynb, '3.3 Softmax and log-softmax'")
        ### END SOLUTION


def _softmax_axis(op: str, x: Tensor, axis: int | None) -> int:
    """The axis given, or PyTorch's implicit one where it is the last axis (up to 2 axes)."""
    if axis is not None:
        return axis
    if np.ndim(unwrap(x)) > 2:
        raise TypeError(
            f"{op}: no dim given for an input of {np.ndim(unwrap(x))} axes; PyTorch would pick "
            "an implicit one (deprecated) that is not the last; pass dim= explicitly"
        )
    return -1


@accepts_dim
def softmax(x: Tensor, axis: int | None = None) -> Tensor:
    """Probabilities along `axis` (also `dim=`; default: the last of ≤ 2 axes): non-negative,
    summing to 1."""
    return backend.softmax(x, _softmax_axis("softmax", x, axis), Softmax.apply)  # or chapter 8's


@accepts_dim
def log_softmax(x: Tensor, axis: int | None = None) -> Tensor:
    """log(softmax(x)) computed without ever taking the log of an underflowed 0."""
    return LogSoftmax.apply(x, axis=_softmax_axis("log_softmax", x, axis))


# -- exercise 3.4: cross-entropy -----------------------------------------------------------------------


def _class_targets(logits: np.ndarray, targets, ignore_index: int,
                   op: str = "cross_entropy") -> np.ndarray:
    """Validate (N, C) logits against (N,) integer class targets; the targets as an array."""
    targets = np.asarray(unwrap(targets))
    if logits.ndim != 2:
        raise ValueError(
            f"{op}: {'logits' if op == 'cross_entropy' else 'input'} must be (N, C), got shape "
            f"{logits.shape}; "
            "reshape a batch of sequences (B, T, C) to (B*T, C) and its targets to (B*T,)"
        )
    if targets.shape != logits.shape[:1] or not np.issubdtype(targets.dtype, np.integer):
        raise ValueError(
            f"{op}: targets must be integer class indices of shape "
            f"({logits.shape[0]},), got {targets.dtype} of shape {targets.shape}"
        )
    classes = logits.shape[1]
    if targets.size and (targets.min() >= 0 and targets.max() < classes):
        return targets
    bad = (targets != ignore_index) & ((targets < 0) | (targets >= classes))
    if bad.any():
        raise IndexError(
            f"{op}: target {targets[bad][0]} is not a class of 0..{classes - 1} "
            f"(nor ignore_index={ignore_index})"
        )
    return targets


class CrossEntropy(Function):
    """Per row i with target yᵢ ≠ ignore_index and q = (1-ε)·onehot(yᵢ) + ε/C:
    loss_i = -Σ_c q_c log softmax(x_i)_c; ∂x_i = (softmax(x_i) - q) · gᵢ.

    "mean" divides the sum by the number of rows that are not ignored (PyTorch).
    """

    @staticmethod
    def forward(ctx, logits, targets, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        ### BEGIN SOLUTION 3.4
        raise NotImplementedError("Exercise 3.4: Cross-entropy — see chapters/03_primitives.ipynb, '3.4 Cross-entropy'")
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 3.4
        raise NotImplementedError("Exercise 3.4: Cross-entropy — see chapters/03_primitives.ipynb, '3.4 Cross-entropy'")
        ### END SOLUTION


@_legacy_arguments
def cross_entropy(
    logits: Tensor, targets, ignore_index: int = -100, reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """-log softmax(logits)[target] per row, from logits (N, C) and class indices (N,).

    Rows whose target is ignore_index count for nothing; label_smoothing ε mixes the
    one-hot target with the uniform distribution, (1-ε)·onehot + ε/C.
    """
    _check_reduction("cross_entropy", reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be in [0, 1], got {label_smoothing}")
    data = np.asarray(unwrap(logits))
    targets = _class_targets(data, targets, ignore_index)
    return CrossEntropy.apply(logits, targets, ignore_index=ignore_index, reduction=reduction,
                              label_smoothing=label_smoothing)


# -- exercise 3.5: mean squared error and binary cross-entropy ----------------------------------------


def _same_shape(op: str, a, b) -> None:
    if np.shape(a) != np.shape(b):
        raise ValueError(
            f"{op}: input of shape {np.shape(a)} and target of shape {np.shape(b)}; a loss "
            "compares them elementwise, so give them the same shape (broadcasting here is "
            "almost always a bug, e.g. (N, 1) against (N,))"
        )


def _reduce(losses: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.mean()


def _reduction_scale(grad: np.ndarray, size: int, reduction: str) -> np.ndarray:
    """The cotangent of each element's loss, from the cotangent of the reduced loss."""
    return grad / size if reduction == "mean" else grad


class MSELoss(Function):
    """loss = (x - y)² elementwise, then reduced; ∂x = 2(x - y) · g, ∂y = -∂x."""

    @staticmethod
    def forward(ctx, x, y, reduction="mean"):
        ### BEGIN SOLUTION 3.5
        raise NotImplementedError("Exercise 3.5: MSE and binary cross-entropy — see chapters/03_primitives.ipynb, '3.5 MSE and binary cross-entropy'")
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 3.5
        raise NotImplementedError("Exercise 3.5: MSE and binary cross-entropy — see chapters/03_primitives.ipynb, '3.5 MSE and binary cross-entropy'")
        ### END SOLUTION


class BCEWithLogits(Function):
    """loss = -[y log σ(x) + (1 - y) log(1 - σ(x))] = max(x, 0) - x·y + log(1 + e^-|x|);
    ∂x = (σ(x) - y) · g, ∂y = -x · g.
    """

    @staticmethod
    def forward(ctx, x, y, reduction="mean"):
        ### BEGIN SOLUTION 3.5
        raise NotImplementedError("Exercise 3.5: MSE and binary cross-entropy — see chapters/03_primitives.ipynb, '3.5 MSE and binary cross-entropy'")
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 3.5
        raise NotImplementedError("Exercise 3.5: MSE and binary cross-entropy — see chapters/03_primitives.ipynb, '3.5 MSE and binary cross-entropy'")
        ### END SOLUTION


@_legacy_arguments
def mse_loss(input: Tensor, target, reduction: str = "mean") -> Tensor:
    """Mean (or sum, or each) of the squared differences; input and target of the same shape."""
    _check_reduction("mse_loss", reduction)
    _same_shape("mse_loss", unwrap(input), unwrap(target))
    input, target = promotion._promoted(input, target)  # float32 with int64 is float32, as PyTorch
    return MSELoss.apply(input, target, reduction=reduction)


@_legacy_arguments
def binary_cross_entropy_with_logits(input: Tensor, target, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy of σ(input) against targets in [0, 1], stable for any logit."""
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    _same_shape("binary_cross_entropy_with_logits", unwrap(input), unwrap(target))
    return BCEWithLogits.apply(input, target, reduction=reduction)


# -- provided: the other losses of torch.nn.functional, composed of tensor ops -------------------


def _reduced(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.mean()


@_legacy_arguments
def nll_loss(input: Tensor, target, ignore_index: int = -100, reduction: str = "mean") -> Tensor:
    """-input[i, yᵢ] per row, from log-probabilities (N, C) and class indices (N,):
    cross_entropy(x, y) = nll_loss(log_softmax(x), y). "mean" averages the rows not ignored.
    """
    _check_reduction("nll_loss", reduction)
    data = unwrap(input)
    targets = _class_targets(np.asarray(data), target, ignore_index, "nll_loss")
    keep = targets != ignore_index
    picks = np.zeros(data.shape, data.dtype)  # 1 at (i, yᵢ) of each kept row: a sum picks it
    picks[np.flatnonzero(keep), targets[keep]] = 1
    losses = -(input * picks).sum(axis=1)
    if reduction != "mean":
        return _reduced(losses, reduction)
    count = int(np.count_nonzero(keep))
    if count == 0:
        return losses.sum() * np.nan  # no row counts: PyTorch's mean is nan too
    return losses.sum() / count


@_legacy_arguments
def l1_loss(input: Tensor, target, reduction: str = "mean") -> Tensor:
    """|x - y| elementwise, then reduced; ∂x = sign(x - y) (0 where they are equal)."""
    _check_reduction("l1_loss", reduction)
    _same_shape("l1_loss", unwrap(input), unwrap(target))
    return _reduced((input - target).abs(), reduction)


@_legacy_arguments
def binary_cross_entropy(input: Tensor, target, reduction: str = "mean") -> Tensor:
    """-[y log p + (1 - y) log(1 - p)] for probabilities p in [0, 1], each log clamped at -100
    as PyTorch does (so p = 0 or 1 gives a finite loss). Prefer the logits form: it is exact.
    """
    _check_reduction("binary_cross_entropy", reduction)
    _same_shape("binary_cross_entropy", unwrap(input), unwrap(target))
    p = np.asarray(unwrap(input))
    if p.size and not (p.min() >= 0 and p.max() <= 1):
        raise ValueError(
            f"binary_cross_entropy: input values must be probabilities in [0, 1], got values "
            f"from {p.min()} to {p.max()}; pass sigmoid(logits), or the logits to "
            "binary_cross_entropy_with_logits"
        )
    return BinaryCrossEntropy.apply(input, target, reduction=reduction)


class BinaryCrossEntropy(Function):
    """loss = -[y log p + (1 - y) log(1 - p)], each log clamped at -100; ∂p = (p - y) ·
    g / max(p(1 - p), 1e-12) and ∂y = (log(1 - p) - log p) · g: PyTorch's rules, finite at
    p = 0 and p = 1, where the composed ops would divide 0 by 0.
    """

    @staticmethod
    def forward(ctx, p, y, reduction="mean"):
        with np.errstate(divide="ignore"):  # log 0 = -inf, clamped at once
            log_p, log_q = np.maximum(np.log(p), -100.0), np.maximum(np.log1p(-p), -100.0)
        ctx.save_for_backward(p, y, log_p, log_q)
        ctx.reduction = reduction
        return _reduce(-(y * log_p + (1 - y) * log_q), reduction)

    @staticmethod
    def backward(ctx, grad):
        p, y, log_p, log_q = ctx.saved_tensors
        scale = _reduction_scale(grad, p.size, ctx.reduction)
        grad_p = (p - y) / np.maximum(p * (1 - p), 1e-12) * scale
        grad_y = (log_q - log_p) * scale if ctx.needs_input_grad[1] else None
        return grad_p, grad_y


__all__ = [
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "gelu",
    "l1_loss", "linear", "log_softmax", "mse_loss", "nll_loss", "relu", "sigmoid", "softmax", "tanh",
    # chapter 5's, read from functional_transformer.py when first used (__getattr__ above)
    "dropout", "layer_norm", "scaled_dot_product_attention",  # noqa: F822
]
