"""Provided parts of chapter 7 (the reference): the Shakespeare data, the GPT's constructor and
initialisation, KVCache's storage, the argument checks and their messages."""

import importlib
import math

import numpy as np
import pytest

from checks.loader import load_framework

fw = load_framework("solutions")
nn = importlib.import_module("framework.nn")
gpt = importlib.import_module("framework.nn.gpt")


def test_load_shakespeare_is_a_fixed_90_10_split_of_the_shipped_text():
    """train + validation is the whole file, in order; validation is the last tenth."""
    train, val = fw.data.load_shakespeare()
    text = fw.data.SHAKESPEARE_FILE.read_text(encoding="ascii")
    assert train + val == text and len(text) > 1_000_000
    assert len(val) == len(text) - round(0.9 * len(text))
    assert train.startswith("HAMLET, PRINCE OF DENMARK") and "\r" not in text
    assert "Gutenberg" not in text and "\nHam.\n" in text  # speaker names kept, licence text gone


def test_load_shakespeare_rejects_a_bad_fraction():
    with pytest.raises(ValueError, match="validation_fraction=0 must be between 0 and 1"):
        fw.data.load_shakespeare(validation_fraction=0)


def test_gpt_parameters_names_and_count():
    """Tied head: no separate output matrix; 4 layers of 12·E² + 13·E, embeddings, ln_f."""
    model = nn.GPT(76, block_size=64, n_layer=4, n_head=4, n_embd=128)
    names = [name for name, _ in model.named_parameters()]
    assert names[:2] == ["wte.weight", "wpe.weight"] and names[-2:] == ["ln_f.weight", "ln_f.bias"]
    e = 128
    expected = 76 * e + 64 * e + 4 * (12 * e * e + 13 * e) + 2 * e
    assert sum(p.data.size for p in model.parameters()) == expected
    assert all(p.dtype == np.float32 for p in model.parameters())


def test_gpt_initialisation_is_gpt2s():
    """N(0, 0.02) weights, output projections N(0, 0.02/√(2L)), zero biases, LayerNorms 1 and 0."""
    fw.manual_seed(0)
    model = nn.GPT(50, block_size=32, n_layer=3, n_head=2, n_embd=64)
    params = dict(model.named_parameters())
    assert abs(params["wte.weight"].data.std() - 0.02) < 0.002
    assert abs(params["blocks.0.fc1.weight"].data.std() - 0.02) < 0.002
    assert abs(params["blocks.2.fc2.weight"].data.std() - 0.02 / math.sqrt(6)) < 0.001
    assert abs(params["blocks.1.attn.out_proj.weight"].data.std() - 0.02 / math.sqrt(6)) < 0.002
    assert not params["blocks.0.attn.q_proj.bias"].data.any()
    assert np.all(params["blocks.0.ln_1.weight"].data == 1) and not params["ln_f.bias"].data.any()


def test_the_same_seed_builds_the_same_model():
    fw.manual_seed(3)
    first = nn.GPT(10, 8, 1, 1, 4).state_dict()
    fw.manual_seed(3)
    second = nn.GPT(10, 8, 1, 1, 4).state_dict()
    assert all(np.array_equal(first[k], second[k]) for k in first)


def test_a_long_input_is_refused_with_the_limit_named():
    model = nn.GPT(10, block_size=8, n_layer=1, n_head=1, n_embd=4)
    with pytest.raises(ValueError, match="T <= block_size=8: crop to the last 8"):
        model(np.zeros((2, 9), dtype=np.int64))


def test_generate_with_the_cache_names_the_positions_it_would_need():
    model = nn.GPT(10, block_size=8, n_layer=1, n_head=1, n_embd=4)
    with pytest.raises(ValueError, match="3 prompt ids \\+ 7 new ones need 9 positions"):
        model.generate(np.zeros((1, 3), dtype=np.int64), 7)


def test_generate_keeps_the_training_mode_and_builds_no_graph():
    model = nn.GPT(10, block_size=8, n_layer=1, n_head=1, n_embd=4)
    out = model.generate(np.zeros((1, 2), dtype=np.int64), 3, generator=np.random.default_rng(0))
    assert model.training and out.dtype == np.int64 and out.shape == (1, 5)
    assert all(p.grad is None for p in model.parameters())


def test_generate_restores_every_modules_own_mode():
    """A model whose blocks are in eval and the rest in training comes back exactly so."""
    model = nn.GPT(10, block_size=8, n_layer=2, n_head=1, n_embd=4)
    model.blocks[0].eval()
    before = [m.training for m in model.modules()]
    model.generate(np.zeros((1, 2), dtype=np.int64), 2, generator=np.random.default_rng(0))
    assert [m.training for m in model.modules()] == before


def test_loss_and_generate_take_tensor_ids_as_a_data_loader_yields_them():
    fw.manual_seed(0)
    model = nn.GPT(10, block_size=8, n_layer=1, n_head=1, n_embd=4)
    idx, targets = np.array([[1, 2, 3]]), np.array([[2, 3, 4]])
    assert model.loss(fw.tensor(idx), fw.tensor(targets)).item() == model.loss(idx, targets).item()
    drawn = model.generate(fw.tensor(idx), 2, generator=np.random.default_rng(1))
    assert np.array_equal(drawn, model.generate(idx, 2, generator=np.random.default_rng(1)))


# -- sampling: what has no distribution is refused before the learner's code runs -----------------

LOGITS = np.array([[1.0, 2.0, 0.0], [0.5, 0.1, 0.2]])


def draw(logits=LOGITS, temperature=1.0, top_k=None, top_p=None):
    return gpt.sample_next(logits, temperature, top_k, top_p, np.random.default_rng(0))


def test_sampling_refuses_a_negative_temperature():
    with pytest.raises(ValueError, match="next_token_probabilities: temperature=-1 must be 0 "
                                         "\\(greedy.*or a finite number > 0"):
        gpt.next_token_probabilities(np.zeros(3), temperature=-1)


def test_sampling_refuses_a_nan_temperature():
    with pytest.raises(ValueError, match="sample_next: temperature=nan must be 0 .* finite number > 0"):
        draw(temperature=float("nan"))


def test_sampling_refuses_an_infinite_temperature():
    with pytest.raises(ValueError, match="sample_next: temperature=inf must be 0 .* finite number"):
        draw(temperature=math.inf)


def test_sampling_refuses_a_temperature_so_small_the_scaled_logits_overflow():
    """2 / 1e-309 is inf in float64: the draw would be NaN, so it is refused with the bound."""
    with pytest.raises(ValueError, match="sample_next: temperature=1e-309 is so small that the "
                                         "logit 2 / temperature overflows float64; use "
                                         "temperature=0 for greedy decoding, or a temperature "
                                         "above 1.11e-308"):
        draw(temperature=1e-309)


def test_sampling_refuses_a_bool_temperature():
    with pytest.raises(TypeError, match="sample_next: temperature=True must be a number"):
        draw(temperature=True)


def test_temperature_zero_stays_greedy():
    assert draw(temperature=0).tolist() == [1, 0]
    assert draw(temperature=0.0, top_k=1, top_p=0.5).tolist() == [1, 0]


def test_sampling_refuses_a_nan_logit_naming_where():
    logits = LOGITS.copy()
    logits[1, 2] = np.nan
    with pytest.raises(ValueError, match="sample_next: logits\\[1, 2\\] is nan; NaN and \\+inf "
                                         "logits give no distribution"):
        draw(logits)


def test_sampling_refuses_a_positive_infinite_logit_naming_where():
    logits = LOGITS.copy()
    logits[0, 1] = np.inf
    with pytest.raises(ValueError, match="next_token_probabilities: logits\\[0, 1\\] is inf; "
                                         "NaN and \\+inf logits"):
        gpt.next_token_probabilities(logits)


def test_sampling_refuses_a_row_whose_logits_are_all_minus_inf():
    logits = LOGITS.copy()
    logits[1] = -np.inf
    with pytest.raises(ValueError, match="sample_next: every logit of row \\[1\\] of logits "
                                         "\\(2, 3\\) is -inf, so no id is possible"):
        draw(logits)


def test_a_minus_inf_logit_is_an_impossible_id_not_an_error():
    """-inf masks an id, as PyTorch's softmax gives it probability 0; the others are drawn."""
    logits = np.tile([[0.0, -np.inf, 0.0]], (2000, 1))
    probs = gpt.next_token_probabilities(logits[:1])
    assert probs.tolist() == [[0.5, 0.0, 0.5]]
    assert 1 not in gpt.sample_next(logits, generator=np.random.default_rng(0))


def test_sampling_refuses_logits_with_no_ids():
    with pytest.raises(ValueError, match="next_token_probabilities: logits of shape \\(2, 0\\); "
                                         "expected rows \\(..., V\\) of V >= 1"):
        gpt.next_token_probabilities(np.zeros((2, 0)))


def test_sample_next_refuses_logits_of_every_position_with_the_last_ones_named():
    """(N, T, V), the model's output, would draw from the wrong totals: take logits[:, -1]."""
    with pytest.raises(ValueError, match="sample_next: logits of shape \\(2, 3, 4\\); expected "
                                         "\\(N, V\\).*logits\\[:, -1\\]"):
        draw(np.zeros((2, 3, 4)))


def test_sample_next_refuses_one_row_without_a_batch_axis():
    with pytest.raises(ValueError, match="sample_next: logits of shape \\(4,\\); expected "
                                         "\\(N, V\\).*logits\\[None\\]"):
        draw(np.zeros(4))


def test_sampling_refuses_a_fractional_top_k():
    with pytest.raises(TypeError, match="sample_next: top_k=2.5 must be None or an int >= 1"):
        draw(top_k=2.5)


def test_sampling_refuses_a_bool_top_k():
    with pytest.raises(TypeError, match="sample_next: top_k=True must be None or an int >= 1"):
        draw(top_k=True)


def test_sampling_refuses_top_k_zero():
    with pytest.raises(ValueError, match="sample_next: top_k=0 must be >= 1.*pass None"):
        draw(top_k=0)


def test_a_top_k_beyond_the_vocabulary_keeps_every_id():
    assert np.array_equal(gpt.next_token_probabilities(LOGITS, top_k=np.int64(10)),
                          gpt.next_token_probabilities(LOGITS))


def test_sampling_refuses_top_p_above_one():
    with pytest.raises(ValueError, match="next_token_probabilities: top_p=1.5 must be in "
                                         "\\(0, 1\\]"):
        gpt.next_token_probabilities(np.zeros(3), top_p=1.5)


def test_sampling_refuses_top_p_zero():
    with pytest.raises(ValueError, match="sample_next: top_p=0 must be in \\(0, 1\\]"):
        draw(top_p=0)


def test_sampling_refuses_a_nan_top_p():
    with pytest.raises(ValueError, match="sample_next: top_p=nan must be in \\(0, 1\\]"):
        draw(top_p=float("nan"))


def test_sampling_refuses_a_top_p_that_is_not_a_number():
    with pytest.raises(TypeError, match="sample_next: top_p='0.9' must be None or a number"):
        draw(top_p="0.9")


# -- CharVocab.decode ------------------------------------------------------------------------------


def test_decode_refuses_a_negative_id():
    """-1 would silently be the last character (Python's indexing from the end)."""
    vocab = gpt.CharVocab("hello world")
    with pytest.raises(ValueError, match="CharVocab.decode: ids \\[-1\\] not in the vocabulary "
                                         "of 8 characters, ids 0..7"):
        vocab.decode([-1])


def test_decode_refuses_an_id_past_the_vocabulary_naming_every_one():
    vocab = gpt.CharVocab("hello world")
    with pytest.raises(ValueError, match="CharVocab.decode: ids \\[8, 12\\] not in the "
                                         "vocabulary of 8 characters"):
        vocab.decode(np.array([[1, 8], [12, 8]]))


def test_decode_refuses_ids_that_are_not_integers():
    vocab = gpt.CharVocab("hello world")
    with pytest.raises(TypeError, match="CharVocab.decode: ids must be integers, got float64"):
        vocab.decode([1.0, 2.0])


def test_decode_of_no_ids_is_the_empty_text():
    assert gpt.CharVocab("hello world").decode([]) == ""


# -- GPT.generate's prompt and length ------------------------------------------------------------


def tiny_gpt():
    fw.manual_seed(0)
    return nn.GPT(7, block_size=8, n_layer=2, n_head=1, n_embd=4)


def test_generate_refuses_an_empty_prompt():
    with pytest.raises(ValueError, match="GPT.generate: a prompt of shape \\(1, 0\\); expected "
                                         "a batch \\(N, T\\) of T >= 1 ids"):
        tiny_gpt().generate(np.zeros((1, 0), dtype=np.int64), 3)


def test_generate_refuses_a_one_dimensional_prompt_naming_the_batch_axis():
    with pytest.raises(ValueError, match="GPT.generate: a prompt of shape \\(2,\\); expected .* "
                                         "idx\\[None\\]"):
        tiny_gpt().generate(np.array([1, 2]), 3)


def test_generate_refuses_a_prompt_of_floats():
    with pytest.raises(TypeError, match="GPT.generate: prompt ids must be integers, got float64"):
        tiny_gpt().generate(np.array([[1.7]]), 3)


def test_generate_refuses_a_prompt_id_outside_the_vocabulary():
    with pytest.raises(ValueError, match="GPT.generate: prompt id 9 is not in the vocabulary, ids "
                                         "0..6 \\(vocab_size=7\\)"):
        tiny_gpt().generate(np.array([[1, 9]]), 3)


def test_generate_refuses_a_negative_max_new_tokens():
    with pytest.raises(ValueError, match="GPT.generate: max_new_tokens=-1 must be >= 0"):
        tiny_gpt().generate(np.array([[1]]), -1)


def test_generate_refuses_a_max_new_tokens_that_is_not_an_int():
    with pytest.raises(TypeError, match="GPT.generate: max_new_tokens=2.0 must be an int >= 0"):
        tiny_gpt().generate(np.array([[1]]), 2.0)


def test_generate_zero_new_tokens_returns_the_prompt():
    prompt = np.array([[1, 2], [3, 4]])
    for cached in (True, False):
        assert np.array_equal(tiny_gpt().generate(prompt, 0, use_cache=cached), prompt)


def unrunnable_gpt():
    """A model whose forward must not run: the settings are refused before it."""
    model = tiny_gpt()

    def forward(*args, **kwargs):
        raise AssertionError("generate ran the model before checking its settings")

    model.forward = forward
    return model


def test_generate_refuses_a_fractional_top_k_before_running_the_model():
    with pytest.raises(TypeError, match="GPT.generate: top_k=2.5 must be None or an int >= 1"):
        unrunnable_gpt().generate(np.array([[1]]), 2, top_k=2.5)


def test_generate_refuses_a_nan_temperature_before_running_the_model():
    with pytest.raises(ValueError, match="GPT.generate: temperature=nan must be 0"):
        unrunnable_gpt().generate(np.array([[1]]), 2, float("nan"))


# -- KVCache that does not fit ----------------------------------------------------------------------


def test_a_cache_of_no_layers_is_refused():
    with pytest.raises(ValueError, match="KVCache: num_layers=0 must be an int >= 1"):
        gpt.KVCache(0, 8)


def test_a_cache_of_no_positions_is_refused():
    with pytest.raises(ValueError, match="KVCache: max_length=0 must be an int >= 1"):
        gpt.KVCache(1, 0)


def test_a_cache_of_fewer_layers_than_the_model_is_refused():
    with pytest.raises(ValueError, match="GPT: a KVCache of 1 layers for a model of n_layer=2; "
                                         "build it as KVCache\\(model.n_layer, model.block_size\\)"):
        tiny_gpt()(np.zeros((1, 3), dtype=np.int64), gpt.KVCache(1, 8))


def test_a_cache_longer_than_the_context_is_refused_naming_positions():
    """Not "token id 8": the position embedding has rows 0..block_size-1."""
    model, cache = tiny_gpt(), gpt.KVCache(2, 20)
    with pytest.raises(ValueError, match="GPT: a KVCache of max_length=20 positions for a model "
                                         "whose context is block_size=8 positions \\(0..7\\)"):
        model(np.zeros((1, 3), dtype=np.int64), cache)
    assert cache.length == 0


def test_a_cache_fed_another_batch_size_is_refused_and_kept():
    model, cache = tiny_gpt(), gpt.KVCache(2, 8)
    with fw.no_grad():
        model(np.zeros((1, 3), dtype=np.int64), cache)
        with pytest.raises(ValueError, match="GPT: a batch of 2 sequences fed to a KVCache holding "
                                             "1; .*start a new one"):
            model(np.zeros((2, 1), dtype=np.int64), cache)
    assert cache.length == 3


def test_a_model_refuses_one_dimensional_ids_with_a_cache_too():
    with pytest.raises(ValueError, match="GPT: ids of shape \\(3,\\); expected a batch \\(N, T\\)"):
        tiny_gpt()(np.zeros(3, dtype=np.int64), gpt.KVCache(2, 8))


def test_cache_update_refuses_keys_of_another_shape_than_held():
    cache, keys = gpt.KVCache(1, 8), fw.tensor(np.zeros((1, 2, 3, 4)))
    cache.update(0, keys, keys)
    other = fw.tensor(np.zeros((2, 2, 1, 4)))
    with pytest.raises(ValueError, match="KVCache.update: layer 0 holds keys of shape \\(1, 2, 3, "
                                         "4\\).*new keys of shape \\(2, 2, 1, 4\\)"):
        cache.update(0, other, other)
    assert cache.length == 3


def test_cache_update_refuses_a_layer_it_does_not_have():
    keys = fw.tensor(np.zeros((1, 2, 3, 4)))
    with pytest.raises(IndexError, match="KVCache.update: layer 1 of a cache of 1 layers"):
        gpt.KVCache(1, 8).update(1, keys, keys)


def test_get_batch_refuses_a_text_without_a_next_id():
    with pytest.raises(ValueError, match="5 ids leave no window of block_size=5"):
        gpt.get_batch(np.arange(5), 2, 5)


def test_an_empty_cache_holds_no_positions():
    cache = gpt.KVCache(num_layers=3, max_length=16)
    assert cache.length == 0 and cache.max_length == 16 and len(cache.keys) == 3
