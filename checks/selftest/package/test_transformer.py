"""Provided parts of chapter 5 (the reference): Embedding, Dropout, PositionalEncoding, the
stacks, MultiheadAttention's shape errors and weights, greedy generation, the W3 size."""

import importlib

import numpy as np
import pytest

from checks.loader import load_framework

fw = load_framework("solutions")
nn = importlib.import_module("framework.nn")
F = importlib.import_module("framework.nn.functional")
transformer = importlib.import_module("framework.nn.transformer")
LAYOUT = dict(batch_first=True, norm_first=True)  # the layers' layout, which they require said


def small_model(**kwargs):
    fw.manual_seed(0)
    settings = dict(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                    dim_feedforward=16)
    return nn.Transformer(7, 9, **{**settings, **kwargs})


# -- Embedding -------------------------------------------------------------------------------------


def test_embedding_looks_up_rows_of_its_weight():
    fw.manual_seed(0)
    embedding = nn.Embedding(5, 3)
    ids = np.array([[4, 0], [2, 2]])
    np.testing.assert_array_equal(embedding(ids).data, embedding.weight.data[ids])
    np.testing.assert_array_equal(embedding(fw.Tensor(ids)).data, embedding.weight.data[ids])


def test_embedding_starts_standard_normal_from_the_shared_generator():
    fw.manual_seed(3)
    weight = nn.Embedding(4, 2).weight.data
    expected = np.random.default_rng(3).standard_normal((4, 2)).astype(np.float32)
    np.testing.assert_array_equal(weight, expected)


def test_embedding_gradient_adds_up_over_repeated_ids():
    embedding = nn.Embedding(4, 2)
    embedding(np.array([1, 3, 1])).sum().backward()
    np.testing.assert_array_equal(embedding.weight.grad, [[0, 0], [2, 2], [0, 0], [1, 1]])


def test_embedding_padding_row_starts_at_zero_and_gets_no_gradient():
    embedding = nn.Embedding(4, 3, padding_idx=0)
    assert not embedding.weight.data[0].any() and embedding.weight.data[1:].any()
    embedding(np.array([[0, 2, 0]])).sum().backward()
    assert not embedding.weight.grad[0].any()
    np.testing.assert_array_equal(embedding.weight.grad[2], [1, 1, 1])


def test_embedding_rejects_ids_outside_the_table():
    with pytest.raises(IndexError, match="Embedding: token id 5 is outside 0..4"):
        nn.Embedding(5, 2)(np.array([1, 5]))
    with pytest.raises(TypeError, match="Embedding: token ids must be integers"):
        nn.Embedding(5, 2)(np.array([1.0]))


# -- Dropout ----------------------------------------------------------------------------------------


def test_dropout_is_the_identity_in_eval_mode_and_at_p_zero():
    x = fw.Tensor(np.ones((4, 5), np.float32))
    assert nn.Dropout(0.5).eval()(x) is x
    assert nn.Dropout(0.0)(x) is x


def test_dropout_in_training_zeroes_about_p_and_scales_the_rest():
    fw.manual_seed(0)
    out = nn.Dropout(0.25)(fw.Tensor(np.ones((100, 100), np.float32))).data
    assert set(np.unique(out)) == {0.0, np.float32(1 / 0.75)}
    assert abs((out == 0).mean() - 0.25) < 0.02


def test_dropout_is_repeatable_with_manual_seed_and_its_gradient_is_its_mask():
    x = fw.Tensor(np.ones((3, 4), np.float32), requires_grad=True)
    fw.manual_seed(7)
    first = nn.Dropout(0.5)(x)
    fw.manual_seed(7)
    second = nn.Dropout(0.5)(x)
    np.testing.assert_array_equal(first.data, second.data)
    first.sum().backward()
    np.testing.assert_array_equal(x.grad, first.data)


def test_dropout_rejects_a_probability_outside_0_1():
    with pytest.raises(ValueError, match="Dropout: p=1.5"):
        nn.Dropout(1.5)


# -- PositionalEncoding and LayerNorm ---------------------------------------------------------------


def test_positional_encoding_adds_the_table_without_weights():
    module = nn.PositionalEncoding(6, max_len=10)
    x = np.random.default_rng(0).standard_normal((2, 4, 6)).astype(np.float32)
    expected = x + transformer.sinusoidal_positional_encoding(10, 6)[:4]
    np.testing.assert_allclose(module(fw.Tensor(x)).data, expected)
    assert list(module.parameters()) == [] and module.state_dict() == {}


def test_positional_encoding_rejects_sequences_longer_than_max_len():
    with pytest.raises(ValueError, match=r"PositionalEncoding: input of shape \(1, 11, 6\)"):
        nn.PositionalEncoding(6, max_len=10)(fw.Tensor(np.zeros((1, 11, 6), np.float32)))


def test_layer_norm_module_starts_as_gain_one_bias_zero():
    norm = nn.LayerNorm(5)
    np.testing.assert_array_equal(norm.weight.data, np.ones(5))
    np.testing.assert_array_equal(norm.bias.data, np.zeros(5))
    assert norm.normalized_shape == (5,) and norm.eps == 1e-5


# -- the stacks -------------------------------------------------------------------------------------


def test_encoder_stack_runs_copies_of_its_layer_in_order_then_its_norm():
    fw.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **LAYOUT)
    encoder = nn.TransformerEncoder(layer, 3, nn.LayerNorm(8))
    assert len(encoder.layers) == 3 and isinstance(encoder.norm, nn.LayerNorm)
    assert len({id(clone) for clone in encoder.layers} | {id(layer)}) == 4
    for clone in encoder.layers:
        np.testing.assert_array_equal(clone.linear1.weight.data, layer.linear1.weight.data)
    x = fw.Tensor(np.random.default_rng(1).standard_normal((2, 5, 8)).astype(np.float32))
    mask = np.array([[False] * 4 + [True], [False] * 5])
    expected = x
    for clone in encoder.layers:
        expected = clone(expected, src_key_padding_mask=mask)
    np.testing.assert_allclose(encoder(x, src_key_padding_mask=mask).data,
                               encoder.norm(expected).data, rtol=1e-6)


def test_encoder_stack_without_a_norm_ends_with_its_last_layer():
    fw.manual_seed(0)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **LAYOUT), 2)
    x = fw.Tensor(np.random.default_rng(1).standard_normal((2, 5, 8)).astype(np.float32))
    expected = encoder.layers[1](encoder.layers[0](x))
    assert encoder.norm is None
    np.testing.assert_allclose(encoder(x).data, expected.data, rtol=1e-6)


def test_stack_copies_train_apart():
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **LAYOUT), 2)
    encoder.layers[0].linear1.weight.data += 1.0
    assert not np.array_equal(encoder.layers[0].linear1.weight.data,
                              encoder.layers[1].linear1.weight.data)


def test_decoder_stack_runs_copies_of_its_layer_in_order_then_its_norm():
    fw.manual_seed(0)
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **LAYOUT)
    decoder = nn.TransformerDecoder(layer, 2, nn.LayerNorm(8))
    assert len(decoder.layers) == 2 and isinstance(decoder.norm, nn.LayerNorm)
    assert all(clone is not layer for clone in decoder.layers)
    rng = np.random.default_rng(1)
    y = fw.Tensor(rng.standard_normal((2, 3, 8)).astype(np.float32))
    memory = fw.Tensor(rng.standard_normal((2, 5, 8)).astype(np.float32))
    expected = y
    for clone in decoder.layers:
        expected = clone(expected, memory)
    np.testing.assert_allclose(decoder(y, memory).data, decoder.norm(expected).data, rtol=1e-6)


def test_transformer_layers_keep_weights_of_their_own():
    """The stacks copy one layer, as PyTorch's do; the Transformer then redraws every Linear of
    every copy, biases and attention projections included."""
    fw.manual_seed(0)
    model = nn.Transformer(16, 16)
    for stack in (model.encoder, model.decoder):
        first, second = stack.layers
        for name in ("linear1.weight", "linear2.bias", "self_attn.q_proj.weight",
                     "self_attn.out_proj.bias"):
            a, b = (dict(layer.named_parameters())[name].data for layer in (first, second))
            assert not np.array_equal(a, b), f"{name} is the same in both layers"


def test_the_w3_configuration_has_236816_parameters_named_as_pytorch():
    model = nn.Transformer(16, 16)
    assert sum(p.numel() for p in model.parameters()) == 236_816
    names = dict(model.named_parameters())
    for name in ("src_embedding.weight", "encoder.layers.1.self_attn.q_proj.weight",
                 "decoder.layers.0.multihead_attn.out_proj.bias", "decoder.layers.1.norm3.weight",
                 "encoder.norm.bias", "decoder.norm.weight", "output.weight"):
        assert name in names


# -- MultiheadAttention -------------------------------------------------------------------------------


def attention_inputs(n=2, length=3, source=4, embed=8):
    rng = np.random.default_rng(0)
    query = fw.Tensor(rng.standard_normal((n, length, embed)).astype(np.float32))
    memory = fw.Tensor(rng.standard_normal((n, source, embed)).astype(np.float32))
    return query, memory


@pytest.mark.parametrize("shapes, message", [
    (((2, 3, 6), (2, 4, 8), (2, 4, 8)), r"query has shape \(2, 3, 6\); expected \(N, T, embed_dim=8\)"),
    (((2, 3, 8), (2, 4), (2, 4, 8)), r"key has shape \(2, 4\); expected \(N, T, embed_dim=8\)"),
    (((2, 3, 8), (2, 4, 8), (2, 5, 8)), r"key \(2, 4, 8\) and value \(2, 5, 8\) must agree on \(N, S\)"),
    (((1, 3, 8), (2, 4, 8), (2, 4, 8)), r"query \(1, 3, 8\) and key \(2, 4, 8\) have different batch"),
])
def test_attention_shape_errors_name_query_key_or_value(shapes, message):
    attention = nn.MultiheadAttention(8, 2, batch_first=True)
    query, key, value = (fw.Tensor(np.zeros(s, np.float32)) for s in shapes)
    with pytest.raises(ValueError, match="MultiheadAttention: " + message):
        attention(query, key, value)


def test_attention_shape_errors_name_the_mask():
    attention = nn.MultiheadAttention(8, 2, batch_first=True)
    query, memory = attention_inputs()
    expected = r"key_padding_mask has shape \(2, 3\); expected \(N, S\) = \(2, 4\)"
    with pytest.raises(ValueError, match=expected):
        attention(query, memory, memory, key_padding_mask=np.zeros((2, 3), bool))
    with pytest.raises(ValueError, match=r"attn_mask has shape \(4, 3\); expected \(L, S\) = \(3, 4\)"):
        attention(query, memory, memory, attn_mask=np.zeros((4, 3), bool))


def test_attention_rejects_heads_that_do_not_divide_the_width():
    with pytest.raises(ValueError, match="embed_dim=10 is not divisible by num_heads=4"):
        nn.MultiheadAttention(10, 4)


def test_attention_weights_are_averaged_over_heads_or_given_per_head():
    fw.manual_seed(0)
    attention = nn.MultiheadAttention(8, 2, batch_first=True)
    query, memory = attention_inputs()
    padding = np.array([[False, False, True, True], [False] * 4])
    out, none = attention(query, memory, memory, key_padding_mask=padding, need_weights=False)
    assert none is None
    same, averaged = attention(query, memory, memory, key_padding_mask=padding, need_weights=True)
    _, per_head = attention(query, memory, memory, key_padding_mask=padding, need_weights=True,
                            average_attn_weights=False)
    np.testing.assert_allclose(same.data, out.data, rtol=1e-6)
    assert averaged.shape == (2, 3, 4) and per_head.shape == (2, 2, 3, 4)
    np.testing.assert_allclose(per_head.data.mean(axis=1), averaged.data, rtol=1e-6)
    np.testing.assert_allclose(per_head.data.sum(axis=-1), 1, rtol=1e-6)
    assert not per_head.data[0, :, :, 2:].any()


@pytest.mark.parametrize("layer", ["TransformerEncoderLayer", "TransformerDecoderLayer"])
@pytest.mark.parametrize("layout", [{}, dict(batch_first=True), dict(norm_first=True),
                                    dict(batch_first=False, norm_first=True)])
def test_layers_require_their_layout_said_since_pytorchs_defaults_differ(layer, layout):
    with pytest.raises(ValueError, match=rf"{layer}: pass batch_first=True and norm_first=True"):
        getattr(nn, layer)(8, 2, **layout)


def test_attention_is_sequence_first_by_default_as_pytorch():
    """batch_first=False: (T, N, E) in and out, the same numbers as batch first transposed."""
    fw.manual_seed(0)
    first = nn.MultiheadAttention(8, 2, batch_first=True)
    second = nn.MultiheadAttention(8, 2)
    second.load_state_dict(first.state_dict())
    query, memory = attention_inputs()
    padding = np.array([[False, False, True, True], [False] * 4])
    out, weights = first(query, memory, memory, key_padding_mask=padding)
    out_t, weights_t = second(query.transpose(0, 1), memory.transpose(0, 1), memory.transpose(0, 1),
                              key_padding_mask=padding)
    assert out_t.shape == (3, 2, 8) and weights_t.shape == (2, 3, 4)
    np.testing.assert_allclose(out_t.transpose(0, 1).data, out.data, rtol=1e-6)
    np.testing.assert_allclose(weights_t.data, weights.data, rtol=1e-6)


def test_attention_shape_errors_speak_of_the_sequence_first_layout():
    attention = nn.MultiheadAttention(8, 2)
    query, key = (fw.Tensor(np.zeros(s, np.float32)) for s in ((3, 2, 8), (4, 3, 8)))
    with pytest.raises(ValueError, match=r"query \(3, 2, 8\) and key \(4, 3, 8\) have different batch"):
        attention(query, key, key)
    with pytest.raises(ValueError, match=r"expected \(T, N, embed_dim=8\) \(sequence first"):
        attention(query[0], key, key)


def test_attention_loads_pytorchs_packed_in_projection():
    """in_proj_weight (3E, E) and in_proj_bias (3E,) split into q_proj, k_proj, v_proj."""
    attention = nn.MultiheadAttention(8, 2)
    rng = np.random.default_rng(0)
    packed = {"in_proj_weight": rng.standard_normal((24, 8)), "in_proj_bias": rng.standard_normal(24),
              "out_proj.weight": rng.standard_normal((8, 8)), "out_proj.bias": rng.standard_normal(8)}
    attention.load_state_dict(packed)
    state = attention.state_dict()
    for i, name in enumerate(("q_proj", "k_proj", "v_proj")):
        np.testing.assert_allclose(state[f"{name}.weight"], packed["in_proj_weight"][8 * i:8 * i + 8],
                                   rtol=1e-6)
        np.testing.assert_allclose(state[f"{name}.bias"], packed["in_proj_bias"][8 * i:8 * i + 8],
                                   rtol=1e-6)


def test_attention_rejects_pytorch_arguments_it_does_not_support():
    with pytest.raises(NotImplementedError, match="MultiheadAttention: kdim= is not supported"):
        nn.MultiheadAttention(8, 2, kdim=4)


def test_attention_takes_one_mask_per_batch_element_and_head():
    fw.manual_seed(0)
    attention = nn.MultiheadAttention(8, 2, batch_first=True)
    query, memory = attention_inputs()
    blocked = np.zeros((4, 3, 4), bool)
    blocked[:, :, 3] = True  # every (batch, head) blocks key 3
    _, weights = attention(query, memory, memory, attn_mask=blocked, need_weights=True)
    assert not weights.data[..., 3].any()
    np.testing.assert_allclose(weights.data.sum(axis=-1), 1, rtol=1e-6)


def test_attention_dropout_acts_in_training_only():
    fw.manual_seed(0)
    attention = nn.MultiheadAttention(8, 2, dropout=0.5, batch_first=True)
    query, memory = attention_inputs()
    first = attention(query, memory, memory)[0].data
    second = attention(query, memory, memory)[0].data
    assert not np.allclose(first, second)
    attention.eval()
    np.testing.assert_array_equal(attention(query, memory, memory)[0].data,
                                  attention(query, memory, memory)[0].data)


# -- the Transformer: generation and the heatmaps ------------------------------------------------------


def scripted(model, choices):
    """Make model.decode return logits whose last position picks choices[step][row]."""
    calls = []

    def decode(tgt, memory, tgt_key_padding_mask=None, memory_key_padding_mask=None):
        step = len(calls)
        calls.append(np.array(tgt))
        logits = np.zeros((len(tgt), tgt.shape[1], 9), np.float32)
        logits[np.arange(len(tgt)), -1, choices[step]] = 1.0
        return fw.Tensor(logits)

    model.decode = decode
    return calls


def test_generate_stops_once_every_row_has_produced_eos_and_pads_with_eos():
    model = small_model()
    calls = scripted(model, [[3, 4], [2, 5], [6, 2], [7, 7]])  # EOS = 2: row 0, then row 1
    out = model.generate(np.zeros((2, 5), np.int64), bos_id=1, eos_id=2, max_len=10)
    np.testing.assert_array_equal(out, [[3, 2, 2], [4, 5, 2]])
    assert out.dtype == np.int64 and len(calls) == 3
    np.testing.assert_array_equal(calls[0], [[1], [1]])  # decoding starts from BOS


def test_generate_stops_at_max_len_without_eos():
    model = small_model()
    calls = scripted(model, [[3, 4]] * 10)
    out = model.generate(np.zeros((2, 5), np.int64), bos_id=1, eos_id=2, max_len=4)
    np.testing.assert_array_equal(out, [[3, 3, 3, 3], [4, 4, 4, 4]])
    assert len(calls) == 4


def test_generate_runs_in_eval_mode_without_a_graph_and_restores_training():
    model = small_model(dropout=0.5)
    src = np.random.default_rng(0).integers(0, 7, (4, 5))
    first = model.generate(src, bos_id=1, eos_id=2, max_len=6)
    np.testing.assert_array_equal(model.generate(src, bos_id=1, eos_id=2, max_len=6), first)
    assert model.training and all(m.training for m in model.modules())
    assert all(p.grad is None for p in model.parameters())


def test_cross_attention_weights_are_per_layer_heads_and_sum_to_one():
    model = small_model(num_decoder_layers=2)
    rng = np.random.default_rng(0)
    src, tgt = rng.integers(0, 7, (2, 5)), rng.integers(0, 9, (2, 4))
    padding = np.array([[False] * 3 + [True] * 2, [False] * 5])
    weights = model.cross_attention_weights(src, tgt, src_key_padding_mask=padding)
    assert len(weights) == 2 and all(w.shape == (2, 2, 4, 5) for w in weights)
    np.testing.assert_allclose(weights[1].sum(axis=-1), 1, rtol=1e-5)
    assert not weights[0][0, ..., 3:].any()


def test_the_model_accepts_tensor_ids():
    model = small_model()
    rng = np.random.default_rng(0)
    src, tgt = rng.integers(0, 7, (2, 5)), rng.integers(0, 9, (2, 4))
    np.testing.assert_array_equal(model(fw.Tensor(src), fw.Tensor(tgt)).data, model(src, tgt).data)


# -- scaled_dot_product_attention's errors (the provided wrapper) ---------------------------------------


def test_attention_function_errors_name_the_disagreeing_operand():
    q, k = fw.Tensor(np.zeros((2, 3, 4), np.float32)), fw.Tensor(np.zeros((2, 5, 4), np.float32))
    with pytest.raises(ValueError, match=r"query of shape \(2, 3, 4\) and key of shape \(2, 5, 6\)"):
        F.scaled_dot_product_attention(q, fw.Tensor(np.zeros((2, 5, 6), np.float32)), k)
    with pytest.raises(ValueError, match=r"key of shape \(2, 5, 4\) and value of shape \(2, 6, 4\)"):
        F.scaled_dot_product_attention(q, k, fw.Tensor(np.zeros((2, 6, 4), np.float32)))
    with pytest.raises(ValueError, match=r"attn_mask of dtype bool and shape \(5, 3\) does not broadcast"):
        F.scaled_dot_product_attention(q, k, k, attn_mask=np.ones((5, 3), bool))


# -- the model's padding_idx: the default source mask ----------------------------------------------


def padded_batch():
    """Two sources over ids 1..6, the second ending in two padding ids (0), and targets."""
    rng = np.random.default_rng(0)
    src, tgt = rng.integers(1, 7, (2, 5)), rng.integers(1, 9, (2, 4))
    src[1, 3:] = 0
    return src, tgt, src == 0


def test_forward_masks_the_source_padding_of_a_model_with_a_padding_idx():
    model = small_model(padding_idx=0)
    src, tgt, padding = padded_batch()
    np.testing.assert_array_equal(model(src, tgt).data,
                                  model(src, tgt, src_key_padding_mask=padding).data)
    unmasked = model(src, tgt, src_key_padding_mask=np.zeros_like(padding)).data
    assert not np.allclose(model(src, tgt).data[1], unmasked[1])  # the padding mattered


def test_an_explicit_source_mask_wins_over_the_padding_idx():
    model = small_model(padding_idx=0)
    src, tgt, padding = padded_batch()
    blocked = np.zeros_like(padding)
    blocked[0, 4] = True
    plain = small_model()
    plain.load_state_dict(model.state_dict())  # the same weights, without a padding_idx
    np.testing.assert_array_equal(model(src, tgt, src_key_padding_mask=blocked).data,
                                  plain(src, tgt, src_key_padding_mask=blocked).data)


def test_a_model_without_a_padding_idx_masks_nothing_by_default():
    src, tgt, _ = padded_batch()
    model = small_model()
    np.testing.assert_array_equal(model(src, tgt).data,
                                  model(src, tgt, src_key_padding_mask=np.zeros((2, 5), bool)).data)


def test_generate_and_the_heatmaps_mask_the_source_padding_by_default():
    model = small_model(padding_idx=0)
    src, tgt, padding = padded_batch()
    np.testing.assert_array_equal(
        model.generate(src, bos_id=1, eos_id=2, max_len=6),
        model.generate(src, bos_id=1, eos_id=2, max_len=6, src_key_padding_mask=padding))
    weights = model.cross_attention_weights(src, tgt)
    assert not weights[0][1, ..., 3:].any()  # no position reads the padding


# -- state_dict round trips ---------------------------------------------------------------------------


def test_a_transformer_round_trips_through_its_state_dict_and_a_file(tmp_path):
    model, other = small_model(num_decoder_layers=2), small_model(num_decoder_layers=2)
    for parameter in other.parameters():
        parameter.data[...] = 0.5
    fw.save(model, tmp_path / "model.npz")
    other.load_state_dict(fw.load(tmp_path / "model.npz"))
    assert other.state_dict().keys() == model.state_dict().keys()
    for name, array in model.state_dict().items():
        np.testing.assert_array_equal(other.state_dict()[name], array, err_msg=name)
    src, tgt, _ = padded_batch()
    np.testing.assert_array_equal(other(src, tgt).data, model(src, tgt).data)
