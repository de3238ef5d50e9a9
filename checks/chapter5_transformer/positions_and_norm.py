"""Chapter 5, exercises 5.1–5.2: sinusoidal positions, and LayerNorm."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from checks.chapter5_transformer.common import F, T, array_of, fw, nn, np_layer_norm, np_positions, seeds
from checks.harness import assert_close, check, gradient_check, probe

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
