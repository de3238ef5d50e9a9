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


def test_sampling_arguments_are_checked():
    with pytest.raises(ValueError, match="temperature=-1 must be >= 0"):
        gpt.next_token_probabilities(np.zeros(3), temperature=-1)
    with pytest.raises(ValueError, match="top_p=1.5 in \\(0, 1\\]"):
        gpt.next_token_probabilities(np.zeros(3), top_p=1.5)


def test_get_batch_refuses_a_text_without_a_next_id():
    with pytest.raises(ValueError, match="5 ids leave no window of block_size=5"):
        gpt.get_batch(np.arange(5), 2, 5)


def test_an_empty_cache_holds_no_positions():
    cache = gpt.KVCache(num_layers=3, max_length=16)
    assert cache.length == 0 and cache.max_length == 16 and len(cache.keys) == 3
