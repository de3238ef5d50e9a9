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
        raise NotImplementedError("Exercise 5.2: LayerNorm — see chapters/05_transformer.ipynb, '5.2 LayerNorm'")
        ### END SOLUTION
        ctx.shapes = x.shape, np.shape(weight), np.shape(bias)
        return out.reshape(x.shape)

    @staticmethod
    def backward(ctx, grad):
        x_shape, weight_shape, bias_shape = ctx.shapes
        ### BEGIN SOLUTION 5.2
        raise NotImplementedError("Exercise 5.2: LayerNorm — see chapters/05_transformer.ipynb, '5.2 LayerNorm'")
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
        raise NotImplementedError("Exercise 5.3: Scaled dot-product attention — see chapters/05_transformer.ipynb, '5.3 Attention: a soft dictionary lookup'")
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 5.3
        raise NotImplementedError("Exercise 5.3: Scaled dot-product attention — see chapters/05_transformer.ipynb, '5.3 Attention: a soft dictionary lookup'")
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
