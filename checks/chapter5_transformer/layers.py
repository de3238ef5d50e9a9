"""Chapter 5, exercises 5.5–5.6: the encoder layer and the decoder layer."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from checks.chapter5_transformer.common import (
    COMPOSITE,
    LAYOUT,
    F,
    T,
    fw,
    jitter_norms,
    padding_mask,
    probe_first,
    seeds,
    values,
)
from checks.harness import assert_close, check, check_gradients, probe

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
