"""Chapter 5's functions of `torch.nn.functional`: `layer_norm` (exercise 5.2),
`scaled_dot_product_attention` (5.3) and `dropout` (provided). `functional.py` exports them,
so they are called as PyTorch's are: `F.layer_norm`, `F.scaled_dot_product_attention`,
`F.dropout`.
"""

from __future__ import annotations

import math

import numpy as np

from ..function import Function, broadcast_failure, unbroadcast, unwrap
from ..provided import backend
from ..provided.generator import default_generator
from ..provided.reductions import row_max
from ..tensor import Tensor

__all__ = ["dropout", "layer_norm", "scaled_dot_product_attention"]


def _normalized_size(op: str, shape: tuple[int, ...], normalized_shape) -> int:
    """The number of elements each normalised row holds; checks they are the last axes."""
    normalized = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not normalized or tuple(shape[-len(normalized):]) != normalized:
        raise ValueError(
            f"{op}: input of shape {tuple(shape)} with normalized_shape {normalized}: the "
            f"input's last {len(normalized)} axes must be exactly {normalized}"
        )
    return math.prod(normalized)


class LayerNormFunction(Function):
    """y = x̂ · w + b with x̂ = (x - μ) / σ, μ and σ² = mean (x - μ)² per row (biased), σ = √(σ² + ε).

    With ĝ = g · w: ∂x = (ĝ - mean ĝ - x̂ · mean(ĝ x̂)) / σ, ∂w = Σ g x̂, ∂b = Σ g (sums over rows).
    A row is the last `size` elements; the rows are folded into one (M, size) matrix.
    """

    @staticmethod
    def forward(ctx, x, weight, bias, size, eps=1e-5):
        ### BEGIN SOLUTION 5.2
        x2 = x.reshape(-1, size)
        # a row's mean as its product with a column of 1/size: one BLAS call, where NumPy's mean
        # along W3's rows of 64 numbers took 7 times as long
        average = np.full(size, 1 / size, np.result_type(x2, 1.0))
        centred = x2 - (x2 @ average)[:, None]
        variance = np.square(centred) @ average  # biased: divided by size
        inv_std = 1 / np.sqrt(variance + eps)[:, None]
        x_hat = centred
        x_hat *= inv_std
        # a copy without weight: backward reads x_hat, so the output must not be the same array
        out = x_hat.copy() if weight is None else x_hat * weight.reshape(-1)
        if bias is not None:
            out = out + bias.reshape(-1)
        ctx.save_for_backward(x_hat, inv_std, weight)
        ### END SOLUTION
        ctx.shapes = x.shape, np.shape(weight), np.shape(bias)
        return out.reshape(x.shape)

    @staticmethod
    def backward(ctx, grad):
        x_shape, weight_shape, bias_shape = ctx.shapes
        ### BEGIN SOLUTION 5.2
        x_hat, inv_std, weight = ctx.saved_tensors
        g2 = grad.reshape(x_hat.shape)
        g_x_hat = g2 * x_hat
        ones = np.ones(len(g2), g2.dtype)  # the sums over rows as products too
        grad_w = (ones @ g_x_hat).reshape(weight_shape) if ctx.needs_input_grad[1] else None
        grad_b = (ones @ g2).reshape(bias_shape) if ctx.needs_input_grad[2] else None
        grad_x = None
        if ctx.needs_input_grad[0]:
            size = x_hat.shape[1]
            # ĝ = g · w, so the row means of ĝ and of ĝ x̂ are g and g x̂ times w / size:
            # two products with one vector, and ĝ formed once, as ∂x's own buffer
            w = np.ones(size, g2.dtype) if weight is None else weight.reshape(-1)
            w_mean = w / size
            mean_g_hat = (g2 @ w_mean)[:, None]
            mean_g_hat_x_hat = (g_x_hat @ w_mean)[:, None]
            grad_x = g2 * w
            grad_x -= mean_g_hat
            grad_x -= np.multiply(x_hat, mean_g_hat_x_hat, out=g_x_hat)
            grad_x *= inv_std
            grad_x = grad_x.reshape(x_shape)
        return grad_x, grad_w, grad_b
        ### END SOLUTION


def layer_norm(
    x: Tensor, normalized_shape: int | tuple[int, ...], weight: Tensor | None = None,
    bias: Tensor | None = None, eps: float = 1e-5,
) -> Tensor:
    """Normalise over the last len(normalized_shape) axes to mean 0, variance 1 (biased), then
    scale by weight and shift by bias (each of shape normalized_shape), as one op.
    """
    size = _normalized_size("layer_norm", np.shape(unwrap(x)), normalized_shape)
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and math.prod(np.shape(unwrap(p))) != size:
            raise ValueError(
                f"layer_norm: {name} of shape {np.shape(unwrap(p))} for normalized_shape "
                f"{normalized_shape}: it must hold one value per normalised element ({size})"
            )
    # chapter 8's kernel under set_backend("kernels")
    return backend.layer_norm(x, weight, bias, size, eps, LayerNormFunction.apply)


def _mask_name(mask: np.ndarray) -> str:
    return f"attn_mask of dtype {mask.dtype} and shape {mask.shape}"


class ScaledDotProductAttention(Function):
    """O = P V, P = softmax(S) along the keys, S = Q Kᵀ / √E + M (M = -∞ where a query may not
    look, or a float mask added as it is). With G = ∂O:
    ∂V = Pᵀ G, ∂P = G Vᵀ, ∂S = P ⊙ (∂P - Σ_keys ∂P ⊙ P), ∂Q = ∂S K / √E, ∂K = ∂Sᵀ Q / √E.
    A row whose keys are all masked has P = 0: its output and its gradients are zeros.
    """

    @staticmethod
    def forward(ctx, query, key, value, attn_mask=None, is_causal=False):
        ### BEGIN SOLUTION 5.3
        scale = 1 / math.sqrt(query.shape[-1])
        scores = query @ np.swapaxes(key, -1, -2)
        scores *= scale  # in place from here on: the scores are this op's own new array
        length, source = scores.shape[-2:]
        if is_causal:  # query i may look at keys j <= i: -∞ strictly above the diagonal
            scores += np.triu(np.full((length, source), -np.inf, scores.dtype), 1)
        if attn_mask is not None and attn_mask.dtype == bool:  # its batch axes may be more
            scores = scores + np.where(attn_mask, 0, -np.inf).astype(scores.dtype)
        elif attn_mask is not None:
            scores = scores + attn_mask.astype(scores.dtype, copy=False)
        top = row_max(scores)  # scores.max(axis=-1, keepdims=True), 9× faster on short rows
        top[np.isneginf(top)] = 0  # a fully masked row: exp(-∞ - 0) = 0, never -∞ + ∞
        scores -= top
        weights = np.exp(scores, out=scores)
        # the row sums as a product with a column of ones: one BLAS call a matrix, where NumPy's
        # sum along W3's rows of 12 took ten times as long
        ones = np.ones(source, weights.dtype)
        total = (weights @ ones)[..., None]
        total[total == 0] = 1  # a fully masked row stays 0
        weights /= total
        ctx.save_for_backward(query, key, value, weights)
        ctx.scale = scale
        return weights @ value
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 5.3
        query, key, value, weights = ctx.saved_tensors
        grad_v = None
        if ctx.needs_input_grad[2]:
            grad_v = unbroadcast(np.swapaxes(weights, -1, -2) @ grad, value.shape)
        grad_p = grad @ np.swapaxes(value, -1, -2)
        # ∂S = P ⊙ (∂P - Σ ∂P ⊙ P), the softmax rule, then the scale of the scores; in place,
        # as ∂P is this op's own new array, and the sum as a product with ones, as forward's
        grad_p -= ((grad_p * weights) @ np.ones(weights.shape[-1], weights.dtype))[..., None]
        grad_p *= weights
        grad_s = grad_p
        grad_s *= ctx.scale
        grad_q = unbroadcast(grad_s @ key, query.shape) if ctx.needs_input_grad[0] else None
        grad_k = None
        if ctx.needs_input_grad[1]:
            grad_k = unbroadcast(np.swapaxes(grad_s, -1, -2) @ query, key.shape)
        return grad_q, grad_k, grad_v
        ### END SOLUTION


def scaled_dot_product_attention(
    query: Tensor, key: Tensor, value: Tensor, attn_mask=None, is_causal: bool = False,
) -> Tensor:
    """softmax(Q Kᵀ / √E + mask) V as one op: query (..., L, E), key (..., S, E),
    value (..., S, Ev) → (..., L, Ev).

    attn_mask broadcasts to (..., L, S). A BOOLEAN mask is True where a query MAY attend
    to a key (PyTorch's convention for this function; MultiheadAttention's masks are the
    opposite, True = blocked). A float mask is added to the scores. is_causal: query i
    attends to keys j <= i only. A query with no key left gets zeros, never NaN.
    """
    q, k, v = (np.shape(unwrap(t)) for t in (query, key, value))
    op = "scaled_dot_product_attention"
    if len(q) < 2 or len(k) < 2 or len(v) < 2:
        raise ValueError(f"{op}: query {q}, key {k} and value {v} need at least 2 axes each "
                         "((..., L, E), (..., S, E), (..., S, Ev))")
    if q[-1] != k[-1]:
        raise ValueError(f"{op}: query of shape {q} and key of shape {k}: their last axes "
                         f"(E = {q[-1]} vs {k[-1]}) must match, queries are compared with keys")
    if k[-2] != v[-2]:
        raise ValueError(f"{op}: key of shape {k} and value of shape {v}: one value per key, "
                         f"so their second-to-last axes (S = {k[-2]} vs {v[-2]}) must match")
    failure = broadcast_failure(op + " (batch axes of query, key, value)", q[:-2], k[:-2], v[:-2])
    if failure:
        raise ValueError(failure)
    mask = None if attn_mask is None else np.asarray(unwrap(attn_mask))
    if mask is not None:
        scores = np.broadcast_shapes(q[:-2], k[:-2]) + (q[-2], k[-2])
        if broadcast_failure(op, mask.shape, scores):
            raise ValueError(f"{op}: {_mask_name(mask)} does not broadcast to the scores' shape "
                             f"{scores} (..., L, S): give it (L, S) or (..., L, S)")
        if mask.dtype != bool and not np.issubdtype(mask.dtype, np.floating):
            raise TypeError(f"{op}: {_mask_name(mask)} must be bool (True = may attend) or "
                            "float (added to the scores)")
    return ScaledDotProductAttention.apply(query, key, value, attn_mask=mask, is_causal=is_causal)


def dropout(x: Tensor, p: float = 0.5, training: bool = True) -> Tensor:
    """Inverted dropout: each element zeroed with probability p, the rest scaled by 1/(1-p),
    so the expectation is unchanged; the identity when not training or p == 0. ∂ = the mask.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p={p} must be a probability in [0, 1]")
    if not training or p == 0.0:
        return x
    data = unwrap(x)
    keep = default_generator().random(np.shape(data)) >= p
    scale = np.zeros((), data.dtype) if p == 1.0 else np.asarray(1 / (1 - p), data.dtype)
    return x * (keep * scale)
