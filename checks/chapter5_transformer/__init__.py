"""Chapter 5 grader: positions, LayerNorm, attention, the Transformer and its training step.

The functions (5.1–5.3) are compared with NumPy formulas written here and
gradient-checked in float64 through the graders' own walk with a random cotangent,
element by element (the full Jacobian), so each is graded on its own.
MultiheadAttention (5.4) is compared with a NumPy multi-head attention that uses the
module's own weights. The layers and the model (5.5–5.7) build on the learner's
LayerNorm and attention, as a network does, but their values are compared with the
composition of their own parts, called here: a wrong part fails its own exercise,
not the wiring's. Their gradients are checked along a random direction. Properties:
causality, padding invariance (keys, not queries), rows of attention summing to 1,
fully masked rows giving zeros, eval mode deterministic. 5.8 trains a small
Transformer on digit reversal to 99% exact match with greedy decoding.
"""

from __future__ import annotations

import importlib
import math
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays, mutually_broadcastable_shapes

from checks.harness import (
    assert_close,
    backprop,
    check,
    check_gradients,
    framework,
    gradient_check,
    probe,
    read_only,
)

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


# -- the graders' own NumPy formulas ---------------------------------------------------------------


def np_positions(length: int, d_model: int) -> np.ndarray:
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(p / 10000^(2i/d)), in float64."""
    position = np.arange(length, dtype=np.float64)[:, None]
    even = np.arange(0, d_model, 2, dtype=np.float64)
    angles = position / np.power(10000.0, even / d_model)
    table = np.zeros((length, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return table


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


# -- 5.1 sinusoidal positions ----------------------------------------------------------------------


@probe("5.1")
def probe_positions(fw):
    return {"sinusoidal_positional_encoding(3, 4)": T.sinusoidal_positional_encoding(3, 4)}


# any width, odd ones included: 5.7's models have widths heads × head_dim such as 1 and 3
widths = st.integers(1, 32)


@check("5.1")
@given(length=st.integers(1, 64), d_model=widths)
@example(length=512, d_model=64)
@example(length=3, d_model=2)
@example(length=4, d_model=5)
@example(length=2, d_model=1)
def test_positional_table_matches_the_sin_cos_formula(length, d_model):
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(same angle); float32 (length, d).
    An odd width ends with a sine column: ⌈d/2⌉ sines, ⌊d/2⌋ cosines."""
    table = np.asarray(T.sinusoidal_positional_encoding(length, d_model))
    assert table.shape == (length, d_model), (
        f"sinusoidal_positional_encoding({length}, {d_model}) has shape {table.shape}, "
        f"expected (length, d_model) = {(length, d_model)}"
    )
    assert table.dtype == np.float32, f"the table is {table.dtype}, expected float32"
    assert_close(table, np_positions(length, d_model),
                 f"sinusoidal_positional_encoding({length}, {d_model})", rtol=1e-4, atol=1e-4)


@check("5.1")
def test_even_columns_are_sines_and_odd_columns_cosines():
    """Row 0 is [0, 1, 0, 1, …] (sin 0, cos 0); column 0 is sin p and column 1 is cos p."""
    table = np.asarray(T.sinusoidal_positional_encoding(6, 8), dtype=np.float64)
    assert_close(table[0], np.tile([0.0, 1.0], 4), "position 0: sin 0 = 0 in even columns, "
                 "cos 0 = 1 in odd ones", atol=1e-6)
    p = np.arange(6.0)
    assert_close(table[:, 0], np.sin(p), "column 0 = sin(p) (frequency 1)", atol=1e-6)
    assert_close(table[:, 1], np.cos(p), "column 1 = cos(p), the same angle as column 0",
                 atol=1e-6)
    assert_close(table[:, 6], np.sin(p / 10000 ** (6 / 8)), "column 6 = sin(p / 10000^(6/8))",
                 atol=1e-6)


@check("5.1")
@given(n=st.integers(1, 2), length=st.integers(1, 6), d_model=widths, seed=seeds)
def test_positional_encoding_module_adds_the_table(n, length, d_model, seed):
    """PositionalEncoding(d)(x) = x + PE[:T] for x (N, T, d), unscaled, float32 kept."""
    x = np.random.default_rng(seed).standard_normal((n, length, d_model)).astype(np.float32)
    out = T.PositionalEncoding(d_model, max_len=32)(fw.Tensor(x))
    assert out.dtype == np.float32, f"float32 input gave {out.dtype}"
    assert_close(out.data, x + np_positions(length, d_model), f"PositionalEncoding({d_model}) "
                 f"of x {x.shape}", rtol=1e-4, atol=1e-5)


# -- 5.2 LayerNorm ----------------------------------------------------------------------------------


@probe("5.2")
def probe_layer_norm(fw):
    x = fw.Tensor([[1.0, 2.0, 4.0], [0.0, 0.0, 3.0]])
    return {"layer_norm of [[1, 2, 4], [0, 0, 3]]": F.layer_norm(x, (3,)).data}


@st.composite
def normalisations(draw):
    """x of 1–3 axes, normalised over its last 1 or 2; weight and bias of that shape or None."""
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    n_axes = draw(st.integers(1, min(2, len(shape))))
    normalized = shape[len(shape) - n_axes:]
    x = draw(array_of(shape))
    affine = draw(st.booleans())
    weight = draw(array_of(normalized, st.floats(0.5, 2.0))) if affine else None
    bias = draw(array_of(normalized)) if affine else None
    return x, normalized, weight, bias


PINNED_NORM = (np.array([[1.0, 2.0, 4.0], [0.0, -1.0, 3.0], [2.0, 2.5, -2.0]]), (3,),
               np.array([1.5, 0.5, 1.0]), np.array([0.1, -0.2, 0.3]))


@check("5.2")
@given(case=normalisations(), eps=st.sampled_from([1e-5, 1e-3, 0.5]))
@example(case=PINNED_NORM, eps=1e-5)
@example(case=PINNED_NORM[:2] + (None, None), eps=0.5)
def test_layer_norm_matches_numpy_with_biased_variance(case, eps):
    """(x - mean) / √(var + eps) · w + b over the last axes, var = mean (x - mean)² (÷ n)."""
    x, normalized, weight, bias = case
    wrap = (lambda a: None if a is None else fw.Tensor(a))
    out = F.layer_norm(fw.Tensor(x), normalized, wrap(weight), wrap(bias), eps=eps)
    assert_close(out.data, np_layer_norm(x, len(normalized), weight, bias, eps),
                 f"layer_norm of shape {x.shape} over the last axes {normalized}, eps={eps}, "
                 f"{'with' if weight is not None else 'without'} weight and bias")
    out32 = F.layer_norm(fw.Tensor(x.astype(np.float32)), normalized)
    assert out32.dtype == np.float32, f"float32 input gave a {out32.dtype} result"


@check("5.2")
@given(case=normalisations(), seed=seeds)
@example(case=PINNED_NORM, seed=0)
def test_layer_norm_gradient(case, seed):
    """∂x = (ĝ - mean ĝ - x̂ · mean(ĝ x̂)) / σ with ĝ = g·w; ∂w = Σ g x̂, ∂b = Σ g (full Jacobian)."""
    x, normalized, weight, bias = case
    if weight is None:
        gradient_check(lambda t: F.layer_norm(t, normalized, eps=1e-3), [x], seed,
                       f"layer_norm of shape {x.shape} over {normalized} without weight")
    else:
        gradient_check(lambda t, w, b: F.layer_norm(t, normalized, w, b, eps=1e-3),
                       [x, weight, bias], seed,
                       f"layer_norm of shape {x.shape} over {normalized} (inputs: x, weight, bias)")


@check("5.2")
@given(shape=array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4), seed=seeds)
def test_layer_norm_of_constant_rows_is_the_bias(shape, seed):
    """A row with zero variance normalises to 0 (eps keeps it finite): the output is the bias."""
    rng = np.random.default_rng(seed)
    x = np.broadcast_to(rng.standard_normal(shape[:-1] + (1,)) * 100, shape).copy()
    bias = rng.standard_normal(shape[-1:])
    out = F.layer_norm(fw.Tensor(x), shape[-1:], fw.Tensor(np.full(shape[-1:], 2.0)),
                       fw.Tensor(bias))
    assert np.all(np.isfinite(out.data)), f"layer_norm of constant rows is not finite: {out.data}"
    assert_close(out.data, np.broadcast_to(bias, shape), "layer_norm of constant rows "
                 "(x - mean = 0, so weight · 0 + bias)", atol=1e-5)


@check("5.2")
@given(n=st.integers(1, 3), width=st.integers(1, 6), seed=seeds)
def test_layernorm_module_starts_at_ones_and_zeros_and_uses_its_parameters(n, width, seed):
    """LayerNorm(d): weight ones, bias zeros (float32 Parameters); forward = layer_norm with them."""
    layer = nn.LayerNorm(width)
    assert [name for name, _ in layer.named_parameters()] == ["weight", "bias"], (
        f"LayerNorm's parameters: {[name for name, _ in layer.named_parameters()]}"
    )
    assert_close(layer.weight.data, np.ones(width), "LayerNorm's initial weight")
    assert_close(layer.bias.data, np.zeros(width), "LayerNorm's initial bias")
    rng = np.random.default_rng(seed)
    layer.weight.data = rng.standard_normal(width).astype(np.float32)
    layer.bias.data = rng.standard_normal(width).astype(np.float32)
    x = rng.standard_normal((n, 2, width)).astype(np.float32)
    out = layer(fw.Tensor(x))
    assert out.dtype == np.float32, f"LayerNorm of float32 input gave {out.dtype}"
    assert_close(out.data, np_layer_norm(x.astype(np.float64), 1, layer.weight.data,
                                         layer.bias.data), f"LayerNorm({width}) with random "
                 "weight and bias", rtol=1e-4, atol=1e-4)


# -- 5.3 scaled dot-product attention -------------------------------------------------------------


@probe("5.3")
def probe_attention(fw):
    q = fw.Tensor([[1.0, 0.0], [0.0, 1.0]])
    k = fw.Tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    v = fw.Tensor([[1.0], [2.0], [3.0]])
    return {"attention": lambda: F.scaled_dot_product_attention(q, k, v).data,
            "causal": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True).data}


@st.composite
def attention_inputs(draw, mask: str = "none", elements=reals):
    """query (…, L, E), key (…, S, E), value (…, S, Ev) with broadcasting batch axes, a mask.

    mask: "none", "bool" (True = may attend), "float" (added) or "any" (one of these).
    """
    batches = draw(mutually_broadcastable_shapes(num_shapes=3, max_dims=2, max_side=2))
    length, source = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    width, width_v = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    qb, kb, vb = batches.input_shapes
    q = draw(array_of(qb + (length, width), elements))
    k = draw(array_of(kb + (source, width), elements))
    v = draw(array_of(vb + (source, width_v)))
    kind = draw(st.sampled_from(["none", "bool", "float"])) if mask == "any" else mask
    scores = np.broadcast_shapes(qb, kb) + (length, source)
    mask_shape = draw(st.sampled_from([(length, source), (1, source), (length, 1), scores]))
    attn_mask = None
    if kind == "bool":
        attn_mask = draw(arrays(np.bool_, mask_shape))
    elif kind == "float":
        attn_mask = draw(array_of(mask_shape, st.floats(-3.0, 3.0)))
    return q, k, v, attn_mask


def attention_what(q, k, v, mask, is_causal=False) -> str:
    described = "no mask" if mask is None else f"a {mask.dtype} mask of shape {mask.shape}"
    return (f"scaled_dot_product_attention(query {q.shape}, key {k.shape}, value {v.shape}, "
            f"{described}, is_causal={is_causal})")


PINNED_QKV = (np.array([[0.5, -1.0], [1.5, 0.25], [-0.5, 2.0]]),
              np.array([[1.0, 0.5], [-1.0, 2.0], [0.25, -0.75], [2.0, 1.0]]),
              np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [3.0, -2.0, 0.5], [0.5, 0.5, 0.5]]))


@check("5.3")
@given(case=attention_inputs())
@example(case=PINNED_QKV + (None,))
def test_attention_matches_numpy_with_the_1_over_sqrt_e_scale(case):
    """softmax(Q Kᵀ / √E) V along the keys, batch axes broadcast; float32 kept."""
    q, k, v, _ = case
    out = F.scaled_dot_product_attention(fw.Tensor(q), fw.Tensor(k), fw.Tensor(v))
    assert_close(out.data, np_attention(q, k, v)[0], attention_what(q, k, v, None))
    out32 = F.scaled_dot_product_attention(*(fw.Tensor(a.astype(np.float32)) for a in (q, k, v)))
    assert out32.dtype == np.float32, f"float32 query, key, value gave {out32.dtype}"


@check("5.3")
@given(case=attention_inputs("bool"))
@example(case=PINNED_QKV + (np.array([[True, False, True, False], [False, False, False, False],
                                      [True, True, True, False]]),))
def test_boolean_mask_true_means_may_attend(case):
    """A boolean mask keeps the keys where it is True; a query with none left gets zeros."""
    q, k, v, mask = case
    out = F.scaled_dot_product_attention(fw.Tensor(q), fw.Tensor(k), fw.Tensor(v), attn_mask=mask)
    assert np.all(np.isfinite(out.data)), (
        f"{attention_what(q, k, v, mask)} is not finite (a fully masked row must give zeros, "
        f"never NaN): {out.data}"
    )
    assert_close(out.data, np_attention(q, k, v, mask)[0], attention_what(q, k, v, mask))


@check("5.3")
@given(case=attention_inputs("float"))
def test_float_mask_is_added_to_the_scores(case):
    """A float mask M gives softmax(Q Kᵀ / √E + M) V."""
    q, k, v, mask = case
    out = F.scaled_dot_product_attention(fw.Tensor(q), fw.Tensor(k), fw.Tensor(v), attn_mask=mask)
    assert_close(out.data, np_attention(q, k, v, mask)[0], attention_what(q, k, v, mask))


@check("5.3")
@given(case=attention_inputs("any"))
@example(case=PINNED_QKV + (None,))
def test_is_causal_lets_query_i_see_keys_up_to_i(case):
    """is_causal: query i attends to keys j <= i only (L ≠ S too), with or without a mask."""
    q, k, v, mask = case
    out = F.scaled_dot_product_attention(fw.Tensor(q), fw.Tensor(k), fw.Tensor(v), attn_mask=mask,
                                         is_causal=True)
    assert np.all(np.isfinite(out.data)), f"{attention_what(q, k, v, mask, True)}: {out.data}"
    assert_close(out.data, np_attention(q, k, v, mask, True)[0],
                 attention_what(q, k, v, mask, True))


@check("5.3")
@given(case=attention_inputs("bool", st.floats(-4.0, 4.0)), is_causal=st.booleans())
def test_attention_rows_sum_to_one_and_fully_masked_rows_are_zero(case, is_causal):
    """With V = I the output is the weights: each row sums to 1, or is all 0 if fully masked."""
    q, k, _, mask = case
    source = k.shape[-2]
    out = F.scaled_dot_product_attention(fw.Tensor(q), fw.Tensor(k), fw.Tensor(np.eye(source)),
                                         attn_mask=mask, is_causal=is_causal).data
    expected = np_attention(q, k, np.eye(source), mask, is_causal)[1]
    what = attention_what(q, k, np.eye(source), mask, is_causal) + " (value = identity)"
    assert np.all(np.isfinite(out)), f"{what}: {out}"
    sums, expected_sums = out.sum(axis=-1), expected.sum(axis=-1)
    assert_close(sums, expected_sums, f"{what}: the weights' row sums (1, or 0 for a query that "
                 "may see no key)")
    assert np.all(out >= -1e-12), f"{what}: negative attention weights {out}"
    assert_close(out, expected, f"{what}: the attention weights")


@check("5.3")
@given(case=attention_inputs(), seed=seeds)
@example(case=PINNED_QKV + (None,), seed=0)
def test_attention_gradient(case, seed):
    """∂Q, ∂K, ∂V of softmax(Q Kᵀ/√E) V against central differences (full Jacobian)."""
    q, k, v, _ = case
    gradient_check(F.scaled_dot_product_attention, [q, k, v], seed, attention_what(q, k, v, None))


@check("5.3")
@given(case=attention_inputs("any"), is_causal=st.booleans(), seed=seeds)
@example(case=PINNED_QKV + (np.array([[True, False, True, False], [False, False, False, False],
                                      [True, True, True, False]]),), is_causal=False, seed=0)
def test_attention_gradient_with_masks(case, is_causal, seed):
    """Masked keys get no gradient, a fully masked query row gets zeros, a float mask adds."""
    q, k, v, mask = case
    gradient_check(
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=mask,
                                                       is_causal=is_causal),
        [q, k, v], seed, attention_what(q, k, v, mask, is_causal))


@check("5.3")
@given(seed=seeds, dtype=st.sampled_from([np.float32, np.float64]))
def test_attention_is_stable_at_scores_of_1e4(seed, dtype):
    """Scores of ±1e4 give finite outputs and gradients, the softmax of the scaled scores."""
    rng = np.random.default_rng(seed)
    q = np.array([[100.0, 0.0], [0.0, -100.0], [100.0, 100.0]])
    k = np.array([[100.0, 1.0], [-100.0, 0.0], [0.0, 100.0]])
    v = rng.standard_normal((3, 2))
    leaves = [fw.Tensor(a.astype(dtype), requires_grad=True) for a in (q, k, v)]
    out = F.scaled_dot_product_attention(*leaves)
    assert np.all(np.isfinite(out.data)), f"attention at scores ±1e4 is not finite: {out.data}"
    assert_close(out.data, np_attention(q, k, v)[0], f"attention at scores ±1e4 ({np.dtype(dtype)})",
                 rtol=1e-4, atol=1e-4)
    grads = backprop(out, rng.standard_normal(out.data.shape).astype(dtype))
    for name, leaf in zip("QKV", leaves):
        grad = grads.get(id(leaf))
        assert grad is not None and np.all(np.isfinite(grad)), (
            f"∂{name} at scores ±1e4 is not finite: {grad}"
        )


# -- 5.4 multi-head attention -------------------------------------------------------------------------


@probe("5.4")
def probe_multihead(fw):
    x = np.linspace(-1, 1, 8).reshape(1, 2, 4)
    probe_first(nn.MultiheadAttention, "forward", fw.Tensor(x), fw.Tensor(x), fw.Tensor(x),
                embed_dim=4, num_heads=2, head_dim=2, batch_first=True)
    fw.manual_seed(0)
    out, _ = nn.MultiheadAttention(4, 2, batch_first=True)(fw.Tensor(x), fw.Tensor(x), fw.Tensor(x))
    return {"MultiheadAttention(4, 2) output": out.data}


class MultiheadCase(NamedTuple):
    """A drawn attention case; a failing one prints with its fields named."""

    n: int
    length: int
    source: int
    heads: int
    head_dim: int
    cross: bool
    seed: int


@st.composite
def multihead_cases(draw, cross: bool | None = None):
    """Sizes (N, L, S, H, D), whether key/value differ from query, a seed."""
    n, heads, head_dim = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    length = draw(st.integers(1, 4))
    cross = draw(st.booleans()) if cross is None else cross
    source = draw(st.integers(1, 4)) if cross else length
    return MultiheadCase(n, length, source, heads, head_dim, cross, draw(seeds))


def multihead_setup(case, dtype=np.float64):
    """A seeded float64 MultiheadAttention and query, key, value arrays for a case."""
    n, length, source, heads, head_dim, cross, seed = case
    embed = heads * head_dim
    fw.manual_seed(seed)
    m = nn.MultiheadAttention(embed, heads, batch_first=True).to(dtype)
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, length, embed))
    if cross:
        k, v = rng.standard_normal((n, source, embed)), rng.standard_normal((n, source, embed))
    else:
        k = v = q
    return m, q, k, v, rng


def padding_mask(rng, n: int, source: int) -> np.ndarray:
    """(N, S) True = padding, at least one real key per row."""
    mask = rng.random((n, source)) < 0.4
    mask[np.arange(n), rng.integers(0, source, n)] = False
    return mask


def mha_what(case, *options: str) -> str:
    n, length, source, heads, head_dim, cross, _ = case
    kind = "cross" if cross else "self"
    return (f"MultiheadAttention({heads * head_dim}, {heads}) {kind}-attention, query "
            f"({n}, {length}, {heads * head_dim}), key/value length {source}"
            + "".join(f", {option}" for option in options))


def tensors(*arrays):
    return [fw.Tensor(a) for a in arrays]


@check("5.4")
@given(case=multihead_cases())
@example(case=MultiheadCase(2, 3, 3, 2, 2, False, 0))
@example(case=MultiheadCase(1, 2, 4, 3, 1, True, 1))
def test_multihead_matches_numpy_with_the_modules_weights(case):
    """Project, split E into H heads of E/H (head h = features h·D…), attend, merge, project."""
    m, q, k, v, _ = multihead_setup(case)
    out, weights = m(*tensors(q, k, v), need_weights=False)
    assert weights is None, "need_weights=False returns (output, None)"
    assert_close(values(out), np_multihead(m, case[3], q, k, v)[0], mha_what(case))


@check("5.4")
@given(case=multihead_cases())
@example(case=MultiheadCase(2, 4, 4, 2, 2, False, 3))
def test_key_padding_mask_blocks_keys_not_queries(case):
    """key_padding_mask (N, S), True = padding: no query looks at those keys; every query answers."""
    m, q, k, v, rng = multihead_setup(case)
    mask = padding_mask(rng, case[0], case[2])
    out, _ = m(*tensors(q, k, v), key_padding_mask=mask)
    assert_close(values(out), np_multihead(m, case[3], q, k, v, key_padding_mask=mask)[0],
                 mha_what(case, f"key_padding_mask {mask.tolist()}"))


@check("5.4")
@given(case=multihead_cases(cross=True))
def test_changing_padded_keys_and_values_changes_nothing(case):
    """Keys and values under key_padding_mask can be anything: the output stays the same."""
    m, q, k, v, rng = multihead_setup(case)
    mask = padding_mask(rng, case[0], case[2])
    before = values(m(*tensors(q, k, v), key_padding_mask=mask))
    k2, v2 = k.copy(), v.copy()
    k2[mask] = 10 * rng.standard_normal(k2[mask].shape)
    v2[mask] = 10 * rng.standard_normal(v2[mask].shape)
    after = values(m(*tensors(q, k2, v2), key_padding_mask=mask))
    assert_close(after, before, mha_what(case) + f": padded keys and values changed under mask "
                 f"{mask.tolist()}")


@check("5.4")
@given(case=multihead_cases(), per_head=st.booleans(), padded=st.booleans())
@example(case=MultiheadCase(2, 3, 3, 2, 2, False, 0), per_head=False, padded=False)
@example(case=MultiheadCase(2, 2, 4, 2, 1, True, 1), per_head=True, padded=True)
def test_boolean_attn_mask_true_means_blocked(case, per_head, padded):
    """attn_mask (L, S) or (N·H, L, S), True = BLOCKED (the opposite of sdpa's), ± padding."""
    m, q, k, v, rng = multihead_setup(case)
    n, length, source, heads = case[:4]
    shape = (n * heads, length, source) if per_head else (length, source)
    attn_mask = rng.random(shape) < 0.4
    padding = padding_mask(rng, n, source) if padded else None
    out, _ = m(*tensors(q, k, v), key_padding_mask=padding, attn_mask=attn_mask)
    assert np.all(np.isfinite(values(out))), (
        f"{mha_what(case)}: not finite with a fully blocked row (it must give zeros): {out}"
    )
    expected = np_multihead(m, heads, q, k, v, key_padding_mask=padding, attn_mask=attn_mask)[0]
    assert_close(values(out), expected, mha_what(case, f"attn_mask of shape {shape} (True = "
                                          f"blocked) {attn_mask.astype(int).tolist()}",
                                          f"key_padding_mask {padded}"))


@check("5.4")
@given(case=multihead_cases(cross=False))
def test_is_causal_in_multihead_attention(case):
    """is_causal=True: position i attends to positions j <= i in every head."""
    m, q, k, v, _ = multihead_setup(case)
    out, _ = m(*tensors(q, k, v), is_causal=True)
    assert_close(values(out), np_multihead(m, case[3], q, k, v, is_causal=True)[0],
                 mha_what(case, "is_causal=True"))


@check("5.4")
@given(case=multihead_cases(), average=st.booleans())
def test_attention_weights_per_head_or_averaged(case, average):
    """need_weights: (N, H, L, S) per head, or (N, L, S) averaged over heads; rows sum to 1."""
    m, q, k, v, rng = multihead_setup(case)
    mask = padding_mask(rng, case[0], case[2])
    out, weights = m(*tensors(q, k, v), key_padding_mask=mask, need_weights=True,
                     average_attn_weights=average)
    assert weights is not None, "need_weights=True must return the attention weights"
    expected_out, expected = np_multihead(m, case[3], q, k, v, key_padding_mask=mask)
    expected = expected.mean(axis=1) if average else expected
    got = values(weights)
    assert_close(got.sum(axis=-1), np.ones(got.shape[:-1]), mha_what(case) +
                 ": the attention weights' rows sum to 1")
    assert_close(got, expected, mha_what(case, f"average_attn_weights={average}") +
                 ": the attention weights")
    assert_close(values(out), expected_out, mha_what(case) + " with need_weights=True")


@check("5.4")
@given(case=multihead_cases(), masked=st.booleans())
@example(case=MultiheadCase(2, 3, 3, 2, 2, False, 0), masked=True)
def test_multihead_gradient(case, masked):
    """Gradients of query, key, value and every weight, along a random direction (float64)."""
    m, q, k, v, rng = multihead_setup(case)
    mask = padding_mask(rng, case[0], case[2]) if masked else None
    if case[5]:
        leaves = [fw.Tensor(a, requires_grad=True) for a in (q, k, v)]
        inputs = leaves
    else:
        leaves = [fw.Tensor(q, requires_grad=True)]
        inputs = leaves * 3
    check_gradients(lambda: m(*inputs, key_padding_mask=mask)[0],
                    leaves + list(m.parameters()), case[6] % 2**32,
                    mha_what(case, f"key_padding_mask {mask is not None}"), directional=True, **COMPOSITE)


@check("5.4")
def test_multihead_shape_errors_name_the_culprit():
    """Wrong shapes fail with an error naming query, key, value or key_padding_mask."""
    fw.manual_seed(0)
    m = nn.MultiheadAttention(4, 2, batch_first=True)
    good = np.zeros((2, 3, 4), dtype=np.float32)
    out, _ = m(*tensors(good, good, good))
    assert out.shape == (2, 3, 4), f"query, key, value (2, 3, 4) gave an output {out.shape}"
    bad = {
        "query": (np.zeros((2, 3, 5), np.float32), good, good, None),
        "key": (good, np.zeros((2, 3, 6), np.float32), good, None),
        "value": (good, good, np.zeros((2, 2, 4), np.float32), None),
        "key_padding_mask": (good, good, good, np.zeros((2, 4), dtype=bool)),
    }
    for culprit, (q, k, v, mask) in bad.items():
        shape = {"query": q.shape, "key": k.shape, "value": v.shape}.get(
            culprit, None if mask is None else mask.shape)
        try:
            m(*tensors(q, k, v), key_padding_mask=mask)
        except (ValueError, RuntimeError, IndexError) as error:
            message = str(error)
            assert culprit in message and str(shape) in message, (
                f"a {culprit} of the wrong shape {shape}: the error should name {culprit!r} and "
                f"its shape; it says: {message}"
            )
        else:
            raise AssertionError(
                f"MultiheadAttention(4, 2) accepted query {q.shape}, key {k.shape}, value "
                f"{v.shape}, key_padding_mask {None if mask is None else mask.shape}"
            )


# -- 5.5 the encoder layer -------------------------------------------------------------------------------


ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


@probe("5.5")
def probe_encoder_layer(fw):
    x = np.linspace(-1, 1, 8).reshape(1, 2, 4)
    probe_first(T.TransformerEncoderLayer, "forward", fw.Tensor(x))
    fw.manual_seed(0)
    layer = T.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, **LAYOUT)
    return {"TransformerEncoderLayer(4, 2) output": layer(fw.Tensor(x)).data}


class LayerCase(NamedTuple):
    """A drawn encoder or decoder layer case; a failing one prints with its fields named."""

    n: int
    length: int
    source: int
    heads: int
    head_dim: int
    ffn: int
    activation: str
    seed: int


@st.composite
def layer_cases(draw):
    """(N, T, S, H, D, feed-forward width, activation, seed) for the layers."""
    n, heads, head_dim = draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 3))
    length, source = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return LayerCase(n, length, source, heads, head_dim, draw(st.integers(1, 6)),
                     draw(st.sampled_from(sorted(ACTIVATIONS))), draw(seeds))


def layer_setup(layer_class, case, dropout: float):
    """A float64 layer of `layer_class` for a drawn case, norms jittered, and the case's rng."""
    *_, heads, head_dim, ffn, activation, seed = case
    fw.manual_seed(seed)
    layer = layer_class(heads * head_dim, heads, dim_feedforward=ffn, dropout=dropout,
                        activation=activation, **LAYOUT).to(np.float64)
    jitter_norms(layer, seed)
    return layer, np.random.default_rng(seed)


def encoder_setup(case, dropout: float = 0.0):
    n, length, _, heads, head_dim, *_ = case
    layer, rng = layer_setup(T.TransformerEncoderLayer, case, dropout)
    return layer, rng.standard_normal((n, length, heads * head_dim)), rng


def composed_encoder_layer(layer, activation: str, x, key_padding_mask=None, attn_mask=None):
    """x + self_attn(norm1 x), then + linear2(act(linear1(norm2 ·))): the layer's own parts."""
    h = layer.norm1(fw.Tensor(x))
    x = fw.Tensor(x) + layer.self_attn(h, h, h, key_padding_mask=key_padding_mask,
                                       attn_mask=attn_mask)[0]
    h = layer.norm2(x)
    return (x + layer.linear2(ACTIVATIONS[activation](layer.linear1(h)))).data


def layer_what(kind: str, case) -> str:
    n, length, source, heads, head_dim, ffn, activation, _ = case
    return (f"{kind}(d_model={heads * head_dim}, nhead={heads}, dim_feedforward={ffn}, "
            f"activation={activation!r}) on ({n}, {length}, {heads * head_dim})")


@check("5.5")
@given(case=layer_cases(), masked=st.booleans())
@example(case=LayerCase(2, 3, 3, 2, 2, 5, "relu", 0), masked=True)
def test_encoder_layer_is_pre_ln_composition_of_its_parts(case, masked):
    """x + self_attn(norm1(x)), then x + linear2(act(linear1(norm2(x)))), masks passed on."""
    layer, x, rng = encoder_setup(case)
    padding = padding_mask(rng, case[0], case[1]) if masked else None
    attn_mask = rng.random((case[1], case[1])) < 0.3 if masked else None
    out = layer(fw.Tensor(x), src_mask=attn_mask, src_key_padding_mask=padding)
    expected = composed_encoder_layer(layer, case[6], x, padding, attn_mask)
    assert_close(values(out), expected, layer_what("TransformerEncoderLayer", case) +
                 (" with src_mask and src_key_padding_mask" if masked else ""))


@check("5.5")
@given(case=layer_cases())
def test_encoder_layer_ignores_what_is_under_the_padding(case):
    """Changing the inputs at padded positions leaves the other positions' outputs unchanged."""
    layer, x, rng = encoder_setup(case)
    padding = padding_mask(rng, case[0], case[1])
    before = values(layer(fw.Tensor(x), src_key_padding_mask=padding))
    changed = x.copy()
    changed[padding] = 5 * rng.standard_normal(changed[padding].shape)
    after = values(layer(fw.Tensor(changed), src_key_padding_mask=padding))
    assert_close(after[~padding], before[~padding], layer_what("TransformerEncoderLayer", case) +
                 f": outputs at real positions after changing padded ones ({padding.tolist()})")


@check("5.5")
@given(case=layer_cases())
def test_encoder_layer_in_eval_mode_is_deterministic(case):
    """With dropout 0.5, eval() gives the dropout-free composition, the same every call."""
    layer, x, _ = encoder_setup(case, dropout=0.5)
    layer.eval()
    first, second = values(layer(fw.Tensor(x))), values(layer(fw.Tensor(x)))
    what = layer_what("TransformerEncoderLayer", case)
    assert_close(first, second, what + " in eval mode, called twice")
    assert_close(first, composed_encoder_layer(layer, case[6], x), what + " in eval mode "
                 "(dropout is the identity there)")


@check("5.5")
def test_encoder_layer_in_train_mode_applies_dropout():
    """With dropout 0.5 in train mode the output differs from eval mode's (and between calls)."""
    fw.manual_seed(0)
    layer = T.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.5, **LAYOUT)
    x = fw.Tensor(np.random.default_rng(0).standard_normal((2, 5, 4)).astype(np.float32))
    trained = values(layer.train()(x))
    evaluated = values(layer.eval()(x))
    assert_close(values(layer(x)), evaluated, "TransformerEncoderLayer(4, 2) in eval mode")
    assert not np.allclose(trained, evaluated), (
        "TransformerEncoderLayer(4, 2, dropout=0.5) in train mode gave the eval-mode output: "
        "apply self.dropout to the attention and feed-forward outputs"
    )


@check("5.5")
@given(case=layer_cases(), masked=st.booleans())
def test_encoder_layer_gradient(case, masked):
    """Gradients of the input and every parameter along a random direction (float64)."""
    layer, x, rng = encoder_setup(case)
    padding = padding_mask(rng, case[0], case[1]) if masked else None
    leaf = fw.Tensor(x, requires_grad=True)
    check_gradients(lambda: layer(leaf, src_key_padding_mask=padding),
                    [leaf] + list(layer.parameters()), case[7],
                    layer_what("TransformerEncoderLayer", case), directional=True, **COMPOSITE)


# -- 5.6 the decoder layer -----------------------------------------------------------------------------------


@probe("5.6")
def probe_decoder_layer(fw):
    y = np.linspace(-1, 1, 8).reshape(1, 2, 4)
    memory = np.linspace(1, -1, 12).reshape(1, 3, 4)
    probe_first(T.TransformerDecoderLayer, "forward", fw.Tensor(y), fw.Tensor(memory))
    fw.manual_seed(0)
    layer = T.TransformerDecoderLayer(4, 2, dim_feedforward=8, dropout=0.0, **LAYOUT)
    return {"TransformerDecoderLayer(4, 2) output": layer(fw.Tensor(y), fw.Tensor(memory)).data}


def decoder_setup(case, dropout: float = 0.0):
    n, length, source, heads, head_dim, *_ = case
    layer, rng = layer_setup(T.TransformerDecoderLayer, case, dropout)
    y = rng.standard_normal((n, length, heads * head_dim))
    return layer, y, rng.standard_normal((n, source, heads * head_dim)), rng


def composed_decoder_layer(layer, activation, y, memory, tgt_mask=None, memory_mask=None,
                           tgt_padding=None, memory_padding=None):
    """Causal self-attention (unless tgt_mask is given), cross-attention, feed-forward."""
    length = y.shape[1]
    if tgt_mask is None:
        tgt_mask = np.triu(np.ones((length, length), dtype=bool), 1)  # True = blocked
    y, memory = fw.Tensor(y), fw.Tensor(memory)
    h = layer.norm1(y)
    y = y + layer.self_attn(h, h, h, key_padding_mask=tgt_padding, attn_mask=tgt_mask)[0]
    h = layer.norm2(y)
    y = y + layer.multihead_attn(h, memory, memory, key_padding_mask=memory_padding,
                                 attn_mask=memory_mask)[0]
    h = layer.norm3(y)
    return (y + layer.linear2(ACTIVATIONS[activation](layer.linear1(h)))).data


@check("5.6")
@given(case=layer_cases(), masked=st.booleans())
@example(case=LayerCase(2, 3, 4, 2, 2, 5, "relu", 0), masked=False)
@example(case=LayerCase(2, 4, 3, 1, 3, 4, "gelu", 1), masked=True)
def test_decoder_layer_is_causal_self_cross_feed_forward(case, masked):
    """y + causal self_attn(norm1 y), + multihead_attn(norm2 y, memory), + FFN(norm3 y)."""
    layer, y, memory, rng = decoder_setup(case)
    n, length, source = case[:3]
    masks = {}
    if masked:
        masks = {"memory_mask": rng.random((length, source)) < 0.3,
                 "tgt_key_padding_mask": padding_mask(rng, n, length),
                 "memory_key_padding_mask": padding_mask(rng, n, source)}
    out = layer(fw.Tensor(y), fw.Tensor(memory), **masks)
    expected = composed_decoder_layer(layer, case[6], y, memory, None, masks.get("memory_mask"),
                                      masks.get("tgt_key_padding_mask"),
                                      masks.get("memory_key_padding_mask"))
    assert_close(values(out), expected, layer_what("TransformerDecoderLayer", case) +
                 f" with memory ({n}, {source}, ·)" + (", memory_mask and padding masks" * masked))


@check("5.6")
@given(case=layer_cases())
def test_decoder_layer_with_tgt_is_causal_false_uses_tgt_mask(case):
    """tgt_is_causal=False: self-attention follows tgt_mask (True = blocked) alone."""
    layer, y, memory, rng = decoder_setup(case)
    length = case[1]
    tgt_mask = rng.random((length, length)) < 0.4
    out = layer(fw.Tensor(y), fw.Tensor(memory), tgt_mask=tgt_mask, tgt_is_causal=False)
    expected = composed_decoder_layer(layer, case[6], y, memory, tgt_mask)
    assert_close(values(out), expected, layer_what("TransformerDecoderLayer", case) +
                 f" with tgt_is_causal=False and tgt_mask {tgt_mask.astype(int).tolist()}")


@check("5.6")
@given(case=layer_cases(), cut=st.integers(0, 3))
def test_decoder_layer_is_causal_by_default(case, cut):
    """Changing target positions from t on leaves the outputs before t unchanged."""
    layer, y, memory, rng = decoder_setup(case)
    cut = min(cut, case[1] - 1)
    before = values(layer(fw.Tensor(y), fw.Tensor(memory)))
    changed = y.copy()
    changed[:, cut:] = 3 * rng.standard_normal(changed[:, cut:].shape)
    after = values(layer(fw.Tensor(changed), fw.Tensor(memory)))
    what = layer_what("TransformerDecoderLayer", case)
    assert_close(after[:, :cut], before[:, :cut], f"{what}: outputs before position {cut} after "
                 f"changing the target from position {cut} on (the future must be invisible)")
    assert not np.allclose(after[:, cut:], before[:, cut:]), (
        f"{what}: changing the target from position {cut} on did not change its outputs there"
    )


@check("5.6")
@given(case=layer_cases())
def test_cross_attention_reads_the_memory_and_respects_its_padding(case):
    """Changing the memory changes the output; memory under memory_key_padding_mask does not."""
    layer, y, memory, rng = decoder_setup(case)
    padding = padding_mask(rng, case[0], case[2])
    before = values(layer(fw.Tensor(y), fw.Tensor(memory), memory_key_padding_mask=padding))
    hidden = memory.copy()
    hidden[padding] = 5 * rng.standard_normal(hidden[padding].shape)
    after = values(layer(fw.Tensor(y), fw.Tensor(hidden), memory_key_padding_mask=padding))
    what = layer_what("TransformerDecoderLayer", case)
    assert_close(after, before, f"{what}: output after changing padded memory positions "
                 f"({padding.tolist()})")
    moved = values(layer(fw.Tensor(y), fw.Tensor(rng.standard_normal(memory.shape)),
                         memory_key_padding_mask=padding))
    assert not np.allclose(moved, before), (
        f"{what}: a different memory gave the same output: does the cross-attention take its "
        "keys and values from the memory?"
    )


@check("5.6")
@given(case=layer_cases(), masked=st.booleans())
def test_decoder_layer_gradient(case, masked):
    """Gradients of target, memory and every parameter along a random direction (float64)."""
    layer, y, memory, rng = decoder_setup(case)
    padding = padding_mask(rng, case[0], case[2]) if masked else None
    leaves = [fw.Tensor(y, requires_grad=True), fw.Tensor(memory, requires_grad=True)]
    check_gradients(lambda: layer(*leaves, memory_key_padding_mask=padding),
                    leaves + list(layer.parameters()), case[7],
                    layer_what("TransformerDecoderLayer", case), directional=True, **COMPOSITE)


@check("5.6")
@given(case=layer_cases())
def test_decoder_layer_eval_is_deterministic(case):
    """With dropout 0.5 in eval mode the decoder layer is the dropout-free composition."""
    layer, y, memory, _ = decoder_setup(case, dropout=0.5)
    layer.eval()
    first = values(layer(fw.Tensor(y), fw.Tensor(memory)))
    assert_close(values(layer(fw.Tensor(y), fw.Tensor(memory))), first,
                 layer_what("TransformerDecoderLayer", case) + " in eval mode, called twice")
    assert_close(first, composed_decoder_layer(layer, case[6], y, memory),
                 layer_what("TransformerDecoderLayer", case) + " in eval mode (no dropout)")


# -- 5.7 the Transformer and greedy decoding ----------------------------------------------------------------


class ModelCase(NamedTuple):
    """A drawn tiny Transformer (d_model = heads · head_dim); a failing one prints named."""

    n: int
    source: int
    length: int
    src_vocab: int
    tgt_vocab: int
    heads: int
    head_dim: int
    encoder_layers: int
    decoder_layers: int
    seed: int


@st.composite
def model_cases(draw):
    """(N, S, T, vocab sizes, H, D, layers, seed) for a tiny Transformer."""
    return ModelCase(draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(1, 4)),
                     draw(st.integers(3, 7)), draw(st.integers(3, 7)), draw(st.integers(1, 2)),
                     draw(st.integers(1, 3)), draw(st.integers(1, 2)), draw(st.integers(1, 2)),
                     draw(seeds))


def tiny_model(case, dropout: float = 0.0, padding_idx: int | None = None, activation: str = "relu"):
    _, _, _, src_vocab, tgt_vocab, heads, head_dim, n_enc, n_dec, seed = case
    fw.manual_seed(seed)
    model = T.Transformer(src_vocab, tgt_vocab, d_model=heads * head_dim, nhead=heads,
                          num_encoder_layers=n_enc, num_decoder_layers=n_dec, dim_feedforward=6,
                          dropout=dropout, max_len=16, padding_idx=padding_idx,
                          activation=activation).to(np.float64)
    jitter_norms(model, seed)
    return model


def tokens(case, rng):
    n, source, length, src_vocab, tgt_vocab = case[:5]
    return (rng.integers(0, src_vocab, (n, source)), rng.integers(0, tgt_vocab, (n, length)))


def model_what(case) -> str:
    n, source, length, src_vocab, tgt_vocab, heads, head_dim, n_enc, n_dec, _ = case
    return (f"Transformer({src_vocab}, {tgt_vocab}, d_model={heads * head_dim}, nhead={heads}, "
            f"{n_enc} encoder and {n_dec} decoder layers) on src ({n}, {source}), "
            f"tgt ({n}, {length})")


def composed_model(model, src, tgt, src_padding=None, tgt_padding=None, memory_padding=None):
    """The model's own parts in order: embed + positions, encoder stack, decoder stack, output."""
    x = model.positional(model.src_embedding(src))
    for layer in model.encoder.layers:
        x = layer(x, src_key_padding_mask=src_padding)
    memory = model.encoder.norm(x)
    y = model.positional(model.tgt_embedding(tgt))
    for layer in model.decoder.layers:
        y = layer(y, memory, tgt_key_padding_mask=tgt_padding,
                  memory_key_padding_mask=memory_padding)
    return model.output(model.decoder.norm(y)).data


@probe("5.7")
def probe_transformer(fw):
    src, tgt = np.array([[1, 2, 3]]), np.array([[0, 1]])
    probe_first(T.Transformer, "forward", src, tgt,  # the provided padding default reads it
                src_embedding=SimpleNamespace(padding_idx=None))
    fw.manual_seed(0)
    model = T.Transformer(5, 4, d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                          dim_feedforward=8)
    return {"Transformer logits": lambda: model(src, tgt).data,
            "generate": lambda: model.generate(src, bos_id=0, eos_id=3, max_len=4)}


@check("5.7")
@given(case=model_cases(), masked=st.booleans(), as_tensors=st.booleans())
@example(case=ModelCase(2, 4, 3, 5, 6, 2, 2, 2, 2, 0), masked=True, as_tensors=False)
def test_transformer_forward_is_the_composition_of_its_parts(case, masked, as_tensors):
    """Embeddings + positions → encoder → memory; decoder on memory → output Linear; masks on."""
    model = tiny_model(case)
    rng = np.random.default_rng(case[-1])
    src, tgt = tokens(case, rng)
    src_padding = padding_mask(rng, case[0], case[1]) if masked else None
    tgt_padding = padding_mask(rng, case[0], case[2]) if masked else None
    wrap = (lambda a: fw.Tensor(a)) if as_tensors else (lambda a: a)
    logits = model(wrap(src), wrap(tgt), src_key_padding_mask=src_padding,
                   tgt_key_padding_mask=tgt_padding)
    expected = composed_model(model, src, tgt, src_padding, tgt_padding, src_padding)
    what = model_what(case) + (" with padding masks (memory_key_padding_mask defaults to the "
                               "source's)" if masked else "")
    assert values(logits).shape == expected.shape, (
        f"{what}: logits of shape {values(logits).shape}, expected (N, T, tgt_vocab) = "
        f"{expected.shape}"
    )
    assert_close(values(logits), expected, what)
    if masked:
        memory = model.encode(src, src_key_padding_mask=src_padding)
        decoded = model.decode(tgt, memory, tgt_key_padding_mask=tgt_padding,
                               memory_key_padding_mask=src_padding)
        assert_close(values(decoded), expected, f"{what}: decode(tgt, encode(src))")


@check("5.7")
def test_default_transformer_is_w3():
    """Transformer(16, 16) is W3: 236,816 parameters, logits (N, T, 16) for any N, S, T."""
    fw.manual_seed(0)
    model = T.Transformer(16, 16)
    count = sum(p.data.size for p in model.parameters())
    assert count == 236_816, f"Transformer(16, 16) has {count} parameters, W3 has 236,816"
    logits = model(np.zeros((2, 5), dtype=np.int64), np.ones((2, 3), dtype=np.int64))
    assert values(logits).shape == (2, 3, 16), f"logits of shape {values(logits).shape}"
    assert values(logits).dtype == np.float32, f"float32 model gave {values(logits).dtype} logits"


@check("5.7")
@given(case=model_cases(), cut=st.integers(0, 3))
def test_transformer_is_causal_in_the_target(case, cut):
    """Changing target tokens from position t on leaves the logits before t unchanged."""
    model = tiny_model(case)
    rng = np.random.default_rng(case[-1])
    src, tgt = tokens(case, rng)
    cut = min(cut, case[2] - 1)
    changed = tgt.copy()
    changed[:, cut:] = (changed[:, cut:] + 1 + rng.integers(0, case[4] - 1, changed[:, cut:].shape)
                        ) % case[4]
    before, after = values(model(src, tgt)), values(model(src, changed))
    assert_close(after[:, :cut], before[:, :cut], f"{model_what(case)}: logits before position "
                 f"{cut} after changing the target tokens from {cut} on")


@check("5.7")
@given(case=model_cases())
def test_transformer_ignores_padded_source_tokens(case):
    """Source tokens under src_key_padding_mask can be anything: the logits stay the same."""
    model = tiny_model(case)
    rng = np.random.default_rng(case[-1])
    src, tgt = tokens(case, rng)
    padding = padding_mask(rng, case[0], case[1])
    before = values(model(src, tgt, src_key_padding_mask=padding))
    changed = src.copy()
    changed[padding] = (changed[padding] + 1) % case[3]
    after = values(model(changed, tgt, src_key_padding_mask=padding))
    assert_close(after, before, f"{model_what(case)}: logits after changing the source tokens "
                 f"under the padding mask {padding.tolist()}")


def greedy_loop(model, src, bos_id: int, eos_id: int, max_len: int, src_padding=None):
    """The graders' greedy decoding with the model's own forward: argmax, append, until EOS."""
    model.eval()
    out = np.full((len(src), 1), bos_id, dtype=np.int64)
    done = np.zeros(len(src), dtype=bool)
    with fw.no_grad():
        for _ in range(max_len):
            logits = values(model(src, out, src_key_padding_mask=src_padding))[:, -1]
            step = np.where(done, eos_id, logits.argmax(axis=-1))
            out = np.concatenate([out, step[:, None]], axis=1)
            done |= step == eos_id
            if done.all():
                break
    return out[:, 1:]


@check("5.7")
@given(case=model_cases(), eos_boost=st.floats(0.0, 3.0), max_len=st.integers(1, 6),
       masked=st.booleans())
@example(case=ModelCase(2, 4, 3, 5, 6, 2, 2, 1, 1, 0), eos_boost=100.0, max_len=5, masked=False)
@example(case=ModelCase(2, 4, 3, 5, 6, 2, 2, 1, 2, 7), eos_boost=1.0, max_len=6, masked=True)
def test_generate_is_greedy_decoding_until_eos(case, eos_boost, max_len, masked):
    """generate = argmax, append, repeat from BOS; stops when every row has EOS, EOS after it."""
    model = tiny_model(case, dropout=0.5)  # generate must switch dropout off (eval mode)
    rng = np.random.default_rng(case[-1])
    src, _ = tokens(case, rng)
    bos_id, eos_id = 0, case[4] - 1
    model.output.bias.data[eos_id] += eos_boost  # so that some rows end early
    padding = padding_mask(rng, case[0], case[1]) if masked else None
    model.train()
    got = model.generate(src, bos_id=bos_id, eos_id=eos_id, max_len=max_len,
                         src_key_padding_mask=padding)
    expected = greedy_loop(model, src, bos_id, eos_id, max_len, padding)
    assert isinstance(got, np.ndarray) and np.issubdtype(got.dtype, np.integer), (
        f"generate must return an integer np.ndarray, got {type(got).__name__} "
        f"{getattr(got, 'dtype', '')}"
    )
    assert got.shape == expected.shape and np.array_equal(got, expected), (
        f"{model_what(case)}: generate(bos_id={bos_id}, eos_id={eos_id}, max_len={max_len}"
        f"{', src_key_padding_mask' if masked else ''}) gave\n{got}\nexpected (greedy, without "
        f"BOS, EOS after a row's end, stopping once every row has ended)\n{expected}"
    )


SCRIPT = np.array([[1, 2, 3, 3, 4, 0], [3, 3, 3, 2, 1, 0], [4, 1, 2, 0, 0, 3]])  # EOS is 2


@check("5.7")
@given(max_len=st.integers(1, 6))
@example(max_len=6)
def test_generate_fills_finished_rows_with_eos_and_stops_when_all_are_done(max_len):
    """Scripted next tokens: a row that produced EOS gets EOS after it; all done ends the loop."""
    fw.manual_seed(0)
    model = T.Transformer(5, 5, d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                          dim_feedforward=4, max_len=16)
    steps = []

    def scripted(y):  # the k-th call of the output layer is step k: its logits pick SCRIPT[:, k]
        logits = np.zeros(y.shape[:-1] + (5,))
        logits[np.arange(3), :, SCRIPT[:, len(steps)]] = 10.0
        steps.append(y.shape)
        return fw.Tensor(logits)

    model.output.forward = scripted
    got = model.generate(np.zeros((3, 2), dtype=np.int64), bos_id=0, eos_id=2, max_len=max_len)
    expected = np.array([[1, 2, 2, 2], [3, 3, 3, 2], [4, 1, 2, 2]])[:, :max_len]
    assert np.array_equal(np.asarray(got), expected), (
        f"generate(max_len={max_len}) with the next tokens scripted as {SCRIPT.tolist()} "
        f"(EOS = 2) gave {np.asarray(got).tolist()}, expected {expected.tolist()}: after its EOS "
        "a row gets EOS, whatever the model says, and generation stops once every row has "
        "produced EOS (here after 4 steps) or after max_len tokens"
    )


@check("5.7")
@given(case=model_cases())
def test_generate_encodes_once_in_eval_mode_without_a_graph(case):
    """generate runs each encoder layer once (not once per step), under no_grad, in eval mode."""
    model = tiny_model(case, dropout=0.5)
    rng = np.random.default_rng(case[-1])
    src, _ = tokens(case, rng)
    calls, modes = [], []

    def recorded(module, counts: bool) -> None:
        """Wrap module.forward to note (grad enabled, training) at each call, and count it."""
        def forward(*args, original=module.forward, **kwargs):
            modes.append((fw.is_grad_enabled(), module.training))
            if counts:
                calls.append(module)
            return original(*args, **kwargs)
        module.forward = forward

    # encoder layers, decoder layers and the output layer: whichever the learner's code calls
    for layer in model.encoder.layers:
        recorded(layer, counts=True)
    for module in (*model.decoder.layers, model.output):
        recorded(module, counts=False)
    eos_id = case[4] - 1
    model.output.bias.data[eos_id] -= 100.0  # EOS never wins: all 5 steps run
    model.train()
    model.generate(src, bos_id=0, eos_id=eos_id, max_len=5)
    assert len(calls) == len(model.encoder.layers), (
        f"generate ran the encoder layers {len(calls)} times for {len(model.encoder.layers)} "
        "layer(s) and 5 steps: encode the source once, then decode step by step"
    )
    assert modes and all(not grad and not training for grad, training in modes), (
        f"during generate (grad enabled, training) were {sorted(set(modes))}: generate must run "
        "in eval mode (no dropout) and under no_grad (no graph)"
    )


@check("5.7")
@given(case=model_cases())
def test_cross_attention_weights_per_layer(case):
    """cross_attention_weights: per decoder layer, (N, H, T, S) weights of the cross-attention."""
    model = tiny_model(case)
    rng = np.random.default_rng(case[-1])
    src, tgt = tokens(case, rng)
    got = model.cross_attention_weights(src, tgt)
    x = model.positional(model.src_embedding(src))
    for layer in model.encoder.layers:
        x = layer(x)
    memory = model.encoder.norm(x)
    y = model.positional(model.tgt_embedding(tgt))
    assert len(got) == len(model.decoder.layers), (
        f"{len(got)} weight arrays for {len(model.decoder.layers)} decoder layers"
    )
    for index, layer in enumerate(model.decoder.layers):
        h = layer.norm1(y)
        y1 = y + layer.self_attn(h, h, h, is_causal=True)[0]
        h2 = layer.norm2(y1)
        expected = layer.multihead_attn(h2, memory, memory, need_weights=True,
                                        average_attn_weights=False)[1]
        assert_close(np.asarray(got[index]), values(expected), f"{model_what(case)}: "
                     f"cross-attention weights of decoder layer {index} (N, H, T, S)")
        y = layer(y, memory)


# -- 5.8 training: teacher forcing ---------------------------------------------------------------------


@probe("5.8")
def probe_training_step(fw):
    return {"shift_right([[5, 6, 7]], bos_id=1)": T.shift_right(np.array([[5, 6, 7]]), 1)}


@check("5.8")
@given(tgt=arrays(np.int64, array_shapes(min_dims=2, max_dims=2, max_side=5),
                  elements=st.integers(0, 9)), bos_id=st.integers(0, 12))
def test_shift_right_puts_bos_first_and_drops_the_last_token(tgt, bos_id):
    """shift_right(y, BOS) = [BOS, y_0, …, y_{T-2}] per row, int64, the input untouched."""
    kept = tgt.copy()
    got = np.asarray(T.shift_right(tgt, bos_id))
    expected = np.concatenate([np.full((len(tgt), 1), bos_id), tgt[:, :-1]], axis=1)
    assert got.shape == tgt.shape and np.array_equal(got, expected), (
        f"shift_right({tgt.tolist()}, bos_id={bos_id}) gave {got.tolist()}, expected "
        f"{expected.tolist()}"
    )
    assert np.issubdtype(got.dtype, np.integer), f"shift_right gave {got.dtype}, expected integers"
    assert np.array_equal(tgt, kept), "shift_right changed its input"


def loss_setup(case, padded: bool, padding_idx: int | None = None, activation: str = "relu"):
    """A tiny float64 model, a source and targets; with padding (pad_id) at the rows' ends."""
    model = tiny_model(case, padding_idx=padding_idx, activation=activation)
    rng = np.random.default_rng(case[-1])
    n, source, length, src_vocab, tgt_vocab = case[:5]
    pad_id, bos_id = 0, 1
    src = rng.integers(1, src_vocab, (n, source))
    tgt_out = rng.integers(1, tgt_vocab, (n, length))
    if padded:
        for row in range(n):
            src[row, rng.integers(1, source + 1):] = pad_id
            tgt_out[row, rng.integers(1, length + 1):] = pad_id
        tgt_out[0, -1] = pad_id if length > 1 else tgt_out[0, -1]
    return model, src, tgt_out, pad_id, bos_id


def expected_loss(model, src, tgt_out, pad_id, bos_id, smoothing=0.0, src_mask=None):
    decoder_input = np.concatenate([np.full((len(src), 1), bos_id), tgt_out[:, :-1]], axis=1)
    src_mask = src == pad_id if src_mask is None else src_mask
    logits = model(src, decoder_input, src_key_padding_mask=src_mask,
                   tgt_key_padding_mask=decoder_input == pad_id)
    flat = logits.reshape(-1, logits.shape[-1])
    return F.cross_entropy(flat, tgt_out.reshape(-1), ignore_index=pad_id,
                           label_smoothing=smoothing)


@check("5.8")
@given(case=model_cases(), smoothing=st.sampled_from([0.0, 0.1]))
@example(case=ModelCase(2, 4, 3, 5, 6, 2, 2, 1, 1, 0), smoothing=0.0)
def test_seq2seq_loss_is_cross_entropy_of_the_shifted_input(case, smoothing):
    """Teacher forcing: logits of model(src, shift_right(tgt_out)) against tgt_out, mean CE."""
    model, src, tgt_out, pad_id, bos_id = loss_setup(case, padded=False)
    got = T.seq2seq_loss(model, src, tgt_out, bos_id=bos_id, pad_id=pad_id,
                         label_smoothing=smoothing)
    expected = expected_loss(model, src, tgt_out, pad_id, bos_id, smoothing)
    assert_close(values(got), values(expected), f"seq2seq_loss on {model_what(case)}, "
                 f"label_smoothing={smoothing}: cross-entropy of the logits for the decoder "
                 "input [BOS, y_0, …, y_{T-2}] against y")


@check("5.8")
@given(case=model_cases())
@example(case=ModelCase(2, 4, 4, 5, 6, 2, 2, 1, 1, 0))
def test_seq2seq_loss_ignores_padding(case):
    """Padded targets count for nothing (ignore_index=pad_id); padded source tokens are masked."""
    model, src, tgt_out, pad_id, bos_id = loss_setup(case, padded=True)
    got = T.seq2seq_loss(model, src, tgt_out, bos_id=bos_id, pad_id=pad_id)
    expected = expected_loss(model, src, tgt_out, pad_id, bos_id)
    what = (f"seq2seq_loss on {model_what(case)} with padding: src {src.tolist()}, tgt_out "
            f"{tgt_out.tolist()} (pad_id={pad_id})")
    assert_close(values(got), values(expected), what)
    given_mask = T.seq2seq_loss(model, src, tgt_out, bos_id=bos_id, pad_id=pad_id,
                                src_key_padding_mask=src == pad_id)
    assert_close(values(given_mask), values(expected), what + ", src_key_padding_mask given")


@check("5.8")
@given(case=model_cases(), data=st.data())
def test_seq2seq_loss_uses_an_explicit_source_mask_as_given(case, data):
    """A src_key_padding_mask passed in is the one used, all False too (attend to every position),
    also for a model with a padding_idx, whose own default would mask the padding."""
    model, src, tgt_out, pad_id, bos_id = loss_setup(case, padded=True, padding_idx=0)
    mask = data.draw(st.sampled_from(["all False", "drawn"]))
    src_mask = (np.zeros(src.shape, dtype=bool) if mask == "all False"
                else data.draw(arrays(bool, src.shape)))
    got = T.seq2seq_loss(model, src, tgt_out, bos_id=bos_id, pad_id=pad_id,
                         src_key_padding_mask=src_mask)
    expected = expected_loss(model, src, tgt_out, pad_id, bos_id, src_mask=src_mask)
    assert_close(values(got), values(expected), f"seq2seq_loss on {model_what(case)} with "
                 f"padding_idx={pad_id}, src {src.tolist()} and src_key_padding_mask "
                 f"{src_mask.tolist()} ({mask}): the mask given goes to the model as it is (None "
                 "would let the model mask src == padding_idx instead)")


@check("5.8")
@given(case=model_cases())
def test_seq2seq_loss_gradient(case):
    """The loss's gradient with respect to every parameter, along a random direction.

    The model's feed-forward uses GELU here: through ReLU's kink, central differences across
    a dozen layers missed a correct gradient by 0.3% in 1 of 1,000 drawn models.
    """
    model, src, tgt_out, pad_id, bos_id = loss_setup(case, padded=True, activation="gelu")
    check_gradients(lambda: T.seq2seq_loss(model, src, tgt_out, bos_id=bos_id, pad_id=pad_id),
                    list(model.parameters()), case[-1], f"seq2seq_loss on {model_what(case)}",
                    directional=True, **COMPOSITE)


REVERSAL_LENGTH, REVERSAL_STEPS = 12, 400  # W3's task: 12 digits


def exact_match(model, src, tgt_out, bos_id: int) -> float:
    """Greedy decoding of whole sequences (no teacher forcing): the share exactly right."""
    out = np.full((len(src), 1), bos_id, dtype=np.int64)
    model.eval()
    with fw.no_grad():
        memory = None
        for _ in range(tgt_out.shape[1]):
            memory = model.encode(src) if memory is None else memory
            step = values(model.decode(out, memory))[:, -1].argmax(axis=-1)
            out = np.concatenate([out, step[:, None]], axis=1)
    model.train()
    return float(np.mean(np.all(out[:, 1:] == tgt_out, axis=1)))


@check("5.8")
def test_reversal_reaches_99_percent_exact_match():
    """A small Transformer trained with seq2seq_loss reverses digits: ≥ 99% exact, ≤ 400 steps."""
    fw.manual_seed(0)
    bos_id, pad_id = fw.data.REVERSAL_BOS, fw.data.REVERSAL_BOS + 1  # no padding in this task
    # smaller than W3 (d_model 16, one layer each), so a few seconds: it reaches 99% in
    # 175-275 steps over seeds 0-8
    model = T.Transformer(fw.data.REVERSAL_VOCAB_SIZE, fw.data.REVERSAL_VOCAB_SIZE, d_model=16,
                          nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                          dim_feedforward=32, max_len=16)
    optimizer = optim.Adam(model.parameters(), lr=3e-3)
    batches = np.random.default_rng(1234)
    held_src, _, held_out = fw.data.reversal_batch(200, REVERSAL_LENGTH,
                                                   rng=np.random.default_rng(999))
    accuracy, losses = 0.0, []
    for step in range(1, REVERSAL_STEPS + 1):
        src, _, tgt_out = fw.data.reversal_batch(64, REVERSAL_LENGTH, rng=batches)
        optimizer.zero_grad()
        loss = T.seq2seq_loss(model, src, tgt_out, bos_id=bos_id, pad_id=pad_id)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step % 25 == 0 and losses[-1] < 0.2:
            accuracy = exact_match(model, held_src, held_out, bos_id)
            if accuracy >= 0.99:
                break
    assert accuracy >= 0.99, (
        f"after {len(losses)} steps greedy decoding reverses {accuracy:.1%} of 200 held-out "
        f"sequences of {REVERSAL_LENGTH} digits exactly (bar: 99%); the loss went "
        f"{losses[0]:.3f} → {losses[-1]:.3f}"
    )


# -- bonus track: graded apart from the 100 points ---------------------------------------------


def bonus_module(name: str):
    """`framework.nn.<name>`, a bonus file (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.nn.{name}")


# -- 5.9 (bonus) one step of beam search ----------------------------------------------------------


def np_beam_step(scores, log_probs, beam_size):
    """Every candidate, sorted by score (best first), then by beam, then by token."""
    candidates = sorted((-(scores[b] + log_probs[b, v]), b, v)
                         for b in range(log_probs.shape[0]) for v in range(log_probs.shape[1]))
    kept = candidates[:beam_size]
    return (np.array([-c[0] for c in kept]), np.array([c[1] for c in kept]),
            np.array([c[2] for c in kept]))


@st.composite
def beams(draw):
    """scores (B,) and log-probabilities (B, V); whole numbers about half the time, so ties occur."""
    b, v = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    values = st.integers(-4, 0).map(float) if draw(st.booleans()) else st.floats(-6.0, 0.0)
    scores = draw(arrays(np.float64, (b,), elements=values))
    log_probs = draw(arrays(np.float64, (b, v), elements=values))
    return scores, log_probs, draw(st.integers(1, b * v + 2))


@probe("5.9")
def probe_beam_step(fw):
    scores, log_probs = np.array([-1.0, -0.5]), np.log(np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]]))
    return {"beam_step(2 beams, 3 tokens, beam_size 3)":
            lambda: bonus_module("beam_search").beam_step(scores, log_probs, 3)}


@check("5.9")
@given(case=beams())
@example(case=(np.array([-1.0, -0.5]), np.log(np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])), 3))
@example(case=(np.zeros(2), np.zeros((2, 2)), 3))
def test_beam_step_keeps_the_best_candidates_best_first(case):
    """The beam_size best of scores[b] + log_probs[b, v], best first, ties to the lower b then v."""
    scores, log_probs, beam_size = case
    got = bonus_module("beam_search").beam_step(read_only(scores), read_only(log_probs), beam_size)
    want = np_beam_step(scores, log_probs, beam_size)
    what = f"beam_step(scores {scores.tolist()}, log_probs {log_probs.tolist()}, beam_size={beam_size})"
    assert isinstance(got, tuple) and len(got) == 3, f"{what} returned {got!r}, expected 3 arrays"
    for name, g, w in zip(("scores", "beams", "tokens"), got, want):
        assert_close(g, w, f"{what}: {name}", rtol=1e-12, atol=1e-12)
    for name, g in zip(("beams", "tokens"), got[1:]):
        assert np.issubdtype(np.asarray(g).dtype, np.integer), (
            f"{what}: {name} are {np.asarray(g).dtype}, expected integers (indices)")


@check("5.9")
@given(case=beams())
def test_beam_step_scores_are_the_sum_of_the_beam_and_its_token(case):
    """Each kept candidate's score is scores[beam] + log_probs[beam, token], and no pair repeats."""
    scores, log_probs, beam_size = case
    new, beam, token = bonus_module("beam_search").beam_step(scores, log_probs, beam_size)
    what = f"beam_step(scores {scores.tolist()}, log_probs {log_probs.tolist()}, beam_size={beam_size})"
    assert_close(new, scores[beam] + log_probs[beam, token],
                 f"{what}: the scores against scores[beams] + log_probs[beams, tokens]")
    assert len(set(zip(beam.tolist(), token.tolist()))) == len(beam), (
        f"{what}: a (beam, token) pair kept twice: {list(zip(beam.tolist(), token.tolist()))}")


# -- 5.10 (bonus) RMSNorm -------------------------------------------------------------------------


def np_rms_norm(x, weight, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


@st.composite
def rms_cases(draw):
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    return draw(array_of(shape)), draw(array_of(shape[-1:], st.floats(0.5, 2.0)))


@probe("5.10")
def probe_rms_norm(fw):
    x, w = fw.Tensor([[1.0, 2.0, 2.0], [3.0, 0.0, 4.0]]), fw.Tensor([1.0, 1.0, 2.0])
    return {"rms_norm of [[1, 2, 2], [3, 0, 4]]": lambda: bonus_module("rmsnorm").rms_norm(x, w).data}


@check("5.10")
@given(case=rms_cases(), eps=st.sampled_from([1e-6, 1e-3, 0.5]))
@example(case=(np.array([[1.0, 2.0, 2.0], [3.0, 0.0, 4.0]]), np.array([1.0, 1.0, 2.0])), eps=1e-6)
def test_rms_norm_matches_numpy(case, eps):
    """x / √(mean(x²) + eps) · w over the last axis, with no mean subtracted; float32 kept."""
    x, weight = case
    rms = bonus_module("rmsnorm")
    out = rms.rms_norm(fw.Tensor(x), fw.Tensor(weight), eps)
    assert_close(out.data, np_rms_norm(x, weight, eps),
                 f"rms_norm of shape {x.shape}, eps={eps}", rtol=1e-6, atol=1e-8)
    out32 = rms.rms_norm(fw.Tensor(x.astype(np.float32)), fw.Tensor(weight.astype(np.float32)))
    assert out32.dtype == np.float32, f"rms_norm of float32 gave {out32.dtype}"


@check("5.10")
@given(case=rms_cases(), seed=seeds)
def test_rms_norm_gradient(case, seed):
    """∂x = r·(ĝ − x̂·mean(ĝ·x̂)) with ĝ = g·w, ∂w = Σ g·x̂: against central differences."""
    x, weight = case
    gradient_check(lambda t, w: bonus_module("rmsnorm").rms_norm(t, w, 1e-3), [x, weight], seed,
                   f"rms_norm of shape {x.shape} (inputs: x, weight)")


@check("5.10")
def test_rms_norm_module_scales_rows_to_unit_root_mean_square():
    """RMSNorm(4)'s weight starts at ones: each output row has mean(y²) = 1 (up to eps)."""
    x = np.random.default_rng(0).standard_normal((3, 4)) * 10
    out = bonus_module("rmsnorm").RMSNorm(4, eps=1e-12)(fw.Tensor(x))
    assert_close(np.mean(out.data.astype(np.float64) ** 2, axis=-1), np.ones(3),
                 "RMSNorm(4): mean(y²) of each row", rtol=1e-4)
