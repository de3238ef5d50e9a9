"""What chapter 5's parts share: the framework's modules, strategies, helpers and NumPy formulas."""

from __future__ import annotations

import importlib
import math

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.harness import framework

fw = framework()
nn = importlib.import_module(f"{fw.__name__}.nn")
F = importlib.import_module(f"{fw.__name__}.nn.functional")
T = importlib.import_module(f"{fw.__name__}.nn.transformer")
LAYOUT = dict(batch_first=True, norm_first=True)  # the layers' layout, which they require said
optim = importlib.import_module(f"{fw.__name__}.optim")


seeds = st.integers(0, 2**32 - 1)
reals = st.floats(-2.0, 2.0)
COMPOSITE = {"rtol": 1e-3, "atol": 1e-5}  # the design's tolerances for large composites


def array_of(shape, elements=reals):
    return arrays(np.float64, shape, elements=elements)


def probe_first(cls, method: str, *args, **attributes) -> None:
    """Call `cls.method` on a bare instance, so that this exercise's stub speaks first.

    Building a module can need other exercises (a Transformer builds its position table
    with 5.1's function, every module registers with 3.1's): a bare call, with just the
    `attributes` the provided code before the exercise's region reads, reaches the
    exercise's own code first. Only NotImplementedError goes through; anything else
    means the code is written.
    """
    bare = cls.__new__(cls)
    nn.Module.__init__(bare)
    for name, value in attributes.items():
        object.__setattr__(bare, name, value)
    try:
        getattr(cls, method)(bare, *args)
    except NotImplementedError:
        raise
    except Exception:  # a written method fails on a bare instance; the checks use real ones
        pass


def jitter_norms(module, seed: int) -> None:
    """Random LayerNorm gains and shifts, so that using the wrong norm (or none) shows."""
    rng = np.random.default_rng(seed)
    for name, parameter in module.named_parameters():
        owner = name.split(".")[-2] if "." in name else ""
        if "norm" in owner:
            shift = 1.0 if name.endswith("weight") else 0.0
            parameter.data = (shift + 0.5 * rng.standard_normal(parameter.shape)).astype(
                parameter.data.dtype)


def values(x) -> np.ndarray:
    """The array of a Tensor (or of the first element of a module's (output, weights))."""
    if isinstance(x, tuple):
        x = x[0]
    return np.asarray(x.data if isinstance(x, fw.Tensor) else x)


def padding_mask(rng, n: int, source: int) -> np.ndarray:
    """(N, S) True = padding, at least one real key per row."""
    mask = rng.random((n, source)) < 0.4
    mask[np.arange(n), rng.integers(0, source, n)] = False
    return mask


# -- the graders' own NumPy formulas ---------------------------------------------------------------


def np_positions(length: int, d_model: int) -> np.ndarray:
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(p / 10000^(2i/d)), in float64."""
    column = np.arange(d_model)
    pair_start = (column - column % 2).astype(np.float64)  # 2i for columns 2i and 2i+1
    angles = np.arange(length, dtype=np.float64)[:, None] / np.power(10000.0, pair_start / d_model)
    return np.where(column % 2 == 0, np.sin(angles), np.cos(angles))


def np_layer_norm(x, n_axes: int, weight=None, bias=None, eps: float = 1e-5) -> np.ndarray:
    axes = tuple(range(x.ndim - n_axes, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=axes, keepdims=True)  # biased: divide by n
    out = (x - mean) / np.sqrt(variance + eps)
    if weight is not None:
        out = out * weight
    return out + bias if bias is not None else out


def np_softmax_allowed(scores: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Softmax over the allowed entries of each row; a row with none allowed is all zeros."""
    allowed = np.broadcast_to(allowed, scores.shape)
    masked = np.where(allowed, scores, -np.inf)
    top = masked.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.where(allowed, np.exp(np.where(allowed, scores, 0.0) - top), 0.0)
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def np_attention(q, k, v, mask=None, is_causal: bool = False):
    """softmax(q kᵀ/√E + float mask, over the allowed keys) v, and the weights."""
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    allowed = np.ones(scores.shape[-2:], dtype=bool)
    if is_causal:
        allowed = np.tril(allowed)  # query i sees keys j <= i
    if mask is not None and mask.dtype == bool:
        allowed = allowed & mask
    elif mask is not None:
        scores = scores + mask
    scores, allowed = np.broadcast_arrays(scores, allowed)
    weights = np_softmax_allowed(scores, allowed)
    return weights @ v, weights


def np_linear(layer, x: np.ndarray) -> np.ndarray:
    out = x @ layer.weight.data.T
    return out + layer.bias.data if layer.bias is not None else out


def np_multihead(m, heads: int, q, k, v, key_padding_mask=None, attn_mask=None,
                 is_causal: bool = False):
    """Multi-head attention with the module's own projections: (output, weights (N, H, L, S)).

    Head h owns features h·D … (h+1)·D - 1 of each projection (D = E / H); the merged
    output puts head 0's features first. Masks here: True = BLOCKED.
    """
    n, length, embed = q.shape
    source, d = k.shape[1], embed // heads

    def split(x):
        return x.reshape(n, -1, heads, d).transpose(0, 2, 1, 3)

    queries, keys = split(np_linear(m.q_proj, q)), split(np_linear(m.k_proj, k))
    vals = split(np_linear(m.v_proj, v))
    blocked = np.zeros((n, heads, length, source), dtype=bool)
    if key_padding_mask is not None:
        blocked |= key_padding_mask[:, None, None, :]
    if attn_mask is not None:
        blocked |= attn_mask if attn_mask.ndim == 2 else attn_mask.reshape(blocked.shape)
    out, weights = np_attention(queries, keys, vals, ~blocked, is_causal)
    merged = out.transpose(0, 2, 1, 3).reshape(n, length, embed)
    return np_linear(m.out_proj, merged), weights
