"""Chapter 7, exercises 7.5–7.6: the decoder block, and the GPT with its loss."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.chapter7_gpt.common import (
    SMALL,
    block,
    cross_entropy,
    describe,
    fw,
    gpt,
    gpt_logits,
    gradient_sizes,
    ids_of,
    model_of,
    nn,
    redraw,
    seeds,
    sizes,
    state,
)
from checks.harness import assert_close, check, check_gradients, probe

# -- 7.5 the decoder block --------------------------------------------------------------------


@probe("7.5")
def probe_block(fw):
    return {"causal_mask(2, 4)": gpt.causal_mask(2, 4)}


@check("7.5")
@given(source=st.integers(1, 9), data=st.data())
@example(source=3, data=None)
def test_causal_mask_lets_each_query_see_itself_and_the_past(source, data):
    """causal_mask(L, S)[i, j] is True exactly when j <= S - L + i (queries are the last L)."""
    length = source if data is None else data.draw(st.integers(1, source), label="length")
    got = np.asarray(gpt.causal_mask(length, source))
    expected = np.array([[j <= source - length + i for j in range(source)] for i in range(length)])
    assert got.dtype == bool, f"causal_mask of dtype {got.dtype}; True = may attend, boolean"
    assert_close(got, expected, f"causal_mask({length}, {source})", 0, 0)


def block_of(n_head: int, head_dim: int, seed: int):
    fw.manual_seed(seed)
    return redraw(gpt.Block(n_head * head_dim, n_head), seed)


block_cases = st.fixed_dictionaries({
    "n_head": st.integers(1, 3), "head_dim": st.integers(1, 3), "batch": st.integers(1, 2),
    "length": st.integers(1, 6), "seed": seeds})


def block_input(case: dict, data) -> np.ndarray:
    """x (N, T, E) from hypothesis.extra.numpy, or from the case's seed for an explicit example.

    Drawn rows are spread out (a ramp 0, 1, …, E-1 plus draws within ±0.4): the block's
    LayerNorm divides by the row's σ, and on a row of near-equal values (σ → 0) its gradient
    is so large that central differences no longer measure it.
    """
    shape = (case["batch"], case["length"], case["n_head"] * case["head_dim"])
    if data is None:
        return np.random.default_rng(case["seed"]).standard_normal(shape)
    noise = data.draw(arrays(np.float64, shape, elements=st.floats(-0.4, 0.4)), label="noise")
    return noise + np.arange(shape[-1])


@check("7.5")
@given(case=block_cases, data=st.data())
@example(case={"n_head": 2, "head_dim": 2, "batch": 2, "length": 5, "seed": 0}, data=None)
def test_block_is_pre_ln_causal_attention_then_feed_forward(case, data):
    """Block(x) = x + attn(LN₁ x), then + fc2(gelu(fc1(LN₂ ·))), attention causal, by heads."""
    layer = block_of(case["n_head"], case["head_dim"], case["seed"])
    e = case["n_head"] * case["head_dim"]
    x = block_input(case, data)
    assert_close(layer(fw.Tensor(x)).data, block(x, state(layer), case["n_head"]),
                 f"Block({e}, {case['n_head']}) on x {x.shape}", 1e-9, 1e-10)


@check("7.5")
@given(case=block_cases)
def test_a_later_position_never_changes_an_earlier_output(case):
    """Changing x at position t leaves the block's outputs at positions < t exactly as they were."""
    assume(case["length"] >= 2)
    layer = block_of(case["n_head"], case["head_dim"], case["seed"])
    rng = np.random.default_rng(case["seed"])
    x = rng.standard_normal((case["batch"], case["length"], case["n_head"] * case["head_dim"]))
    t = int(rng.integers(1, case["length"]))
    changed = x.copy()
    changed[:, t:] += rng.standard_normal(changed[:, t:].shape)
    before, after = layer(fw.Tensor(x)).data, layer(fw.Tensor(changed)).data
    assert_close(after[:, :t], before[:, :t], f"outputs at positions 0..{t - 1} after changing "
                 f"positions {t}.. (a causal block must not read ahead)", 0, 1e-12)
    assert not np.allclose(after[:, t:], before[:, t:]), "the changed positions' outputs did not change"


class RecordingCache:
    """The graders' cache: `update(layer, k, v)` appends the new keys and values to the ones it
    holds and returns all of them, as `KVCache.update` (7.8) does, written here so that 7.5 is
    graded with fewer queries than keys without 7.8's code."""

    def __init__(self) -> None:
        self.keys: dict[int, np.ndarray] = {}
        self.values: dict[int, np.ndarray] = {}

    def update(self, layer: int, k, v):
        for held, new in ((self.keys, k), (self.values, v)):
            held[layer] = (new.data if layer not in held
                           else np.concatenate([held[layer], new.data], axis=2))
        return fw.Tensor(self.keys[layer]), fw.Tensor(self.values[layer])


@check("7.5")
@given(case=block_cases)
@example(case={"n_head": 2, "head_dim": 2, "batch": 2, "length": 5, "seed": 0})
def test_with_a_cache_fewer_queries_read_every_earlier_key(case):
    """The last L positions fed after the first S - L, through a cache: their outputs are the
    full sequence's at those positions (query i of L reads keys 0 … S - L + i, not 0 … i)."""
    assume(case["length"] >= 2)
    layer = block_of(case["n_head"], case["head_dim"], case["seed"])
    rng = np.random.default_rng(case["seed"])
    x = rng.standard_normal((case["batch"], case["length"], case["n_head"] * case["head_dim"]))
    split = int(rng.integers(1, case["length"]))
    cache = RecordingCache()
    layer(fw.Tensor(x[:, :split]), cache, 0)
    got = layer(fw.Tensor(x[:, split:]), cache, 0).data
    expected = block(x, state(layer), case["n_head"])[:, split:]
    assert_close(got, expected, f"Block on positions {split}..{case['length'] - 1} of "
                 f"{case['length']}, after positions 0..{split - 1} went into the cache: "
                 f"{case['length'] - split} queries of {case['length']} keys (the mask is "
                 "causal_mask(L, S), which is_causal=True is not)", 1e-9, 1e-10)


@check("7.5")
@given(case=block_cases, data=st.data())
def test_block_gradients(case, data):
    """∂ of the block for x (every element) and its weights, float64 central differences."""
    layer = block_of(case["n_head"], case["head_dim"], case["seed"])
    e = case["n_head"] * case["head_dim"]
    x = fw.Tensor(block_input(case, data), requires_grad=True)
    check_gradients(lambda: layer(x), [x], case["seed"], f"Block({e}, {case['n_head']}), ∂x",
                    rtol=1e-4, atol=1e-6)
    check_gradients(lambda: layer(x), list(layer.parameters()), case["seed"],
                    f"Block({e}, {case['n_head']}), its weights", rtol=1e-4, atol=1e-6,
                    directional=True)


# -- 7.6 the GPT and its loss -----------------------------------------------------------------


@probe("7.6")
def probe_gpt(fw):
    gpt.bits_per_char(1.0)  # this exercise's own code first: a model needs chapters 3 and 5
    fw.manual_seed(0)
    model = nn.GPT(5, 4, n_layer=1, n_head=1, n_embd=2)
    ids = np.array([[1, 2, 3]])
    return {"bits_per_char(1.0)": gpt.bits_per_char(1.0),
            "GPT(5, 4, 1, 1, 2) logits": lambda: model(ids).data,
            "its loss for targets [[2, 3, 4]]": lambda: model.loss(ids, np.array([[2, 3, 4]])).item()}


def gpt2_shapes(vocab_size: int, block_size: int, n_layer: int, n_embd: int) -> dict:
    """The contract's parameters: GPT-2's names, each with its shape (the head is wte: tied)."""
    e = n_embd
    block = {"ln_1.weight": (e,), "ln_1.bias": (e,), "ln_2.weight": (e,), "ln_2.bias": (e,),
             "fc1.weight": (4 * e, e), "fc1.bias": (4 * e,), "fc2.weight": (e, 4 * e), "fc2.bias": (e,),
             **{f"attn.{p}_proj.{k}": (e, e) if k == "weight" else (e,)
                for p in ("q", "k", "v", "out") for k in ("weight", "bias")}}
    return {"wte.weight": (vocab_size, e), "wpe.weight": (block_size, e),
            "ln_f.weight": (e,), "ln_f.bias": (e,),
            **{f"blocks.{layer}.{name}": shape for layer in range(n_layer) for name, shape in block.items()}}


@check("7.6")
@given(size=sizes)
@example(size=SMALL)
def test_the_constructor_registers_gpt2s_parameters_with_their_shapes(size):
    """wte (V, E), wpe (block_size, E), n_layer Blocks in `blocks`, ln_f: no other parameter."""
    n_embd = size["n_head"] * size["head_dim"]
    fw.manual_seed(0)
    model = nn.GPT(size["vocab_size"], size["block_size"], size["n_layer"], size["n_head"], n_embd)
    got = {name: tuple(p.shape) for name, p in model.named_parameters()}
    want = gpt2_shapes(size["vocab_size"], size["block_size"], size["n_layer"], n_embd)
    missing, extra = sorted(want.keys() - got.keys()), sorted(got.keys() - want.keys())
    wrong = {n: f"{got[n]}, expected {want[n]}" for n in want.keys() & got.keys() if got[n] != want[n]}
    assert not (missing or extra or wrong), (
        f"{describe(size)}: parameters missing {missing}, unexpected {extra} (the head is tied: "
        f"it reuses wte, no weight of its own), of the wrong shape {wrong}")


INIT_SIZE = {"vocab_size": 65, "block_size": 64, "n_layer": 3, "n_head": 4, "n_embd": 64}


@check("7.6")
@given(seed=seeds)
@example(seed=0)
def test_weights_start_as_gpt2s(seed):
    """N(0, 0.02) weights, N(0, 0.02/√(2·n_layer)) for out_proj and fc2, biases 0, LayerNorms 1, 0."""
    fw.manual_seed(seed)
    model = nn.GPT(**INIT_SIZE)
    residual_std = 0.02 / math.sqrt(2 * INIT_SIZE["n_layer"])
    for name, param in model.named_parameters():
        values = np.asarray(param.data, dtype=np.float64)
        if ".ln_" in f".{name}":
            expected = 1.0 if name.endswith("weight") else 0.0
            assert np.all(values == expected), f"{name} starts at {values[:3]}…, expected all {expected}"
        elif name.endswith("bias"):
            assert np.all(values == 0), f"{name} starts at {values[:3]}…, expected zeros"
        else:
            std = residual_std if name.endswith(("out_proj.weight", "fc2.weight")) else 0.02
            spread = values.std() / std
            # 6 standard errors of the estimates: a correct draw fails once in 10⁸
            assert abs(spread - 1) < 6 / math.sqrt(2 * values.size), (
                f"GPT({INIT_SIZE}): {name} starts with standard deviation {values.std():.5f}, "
                f"expected {std:.5f}" + (" (0.02/√(2·n_layer): it adds to the stream)"
                                          if std == residual_std else ""))
            assert abs(values.mean()) < 6 * std / math.sqrt(values.size), (
                f"{name} starts with mean {values.mean():.5f}, expected about 0")


@check("7.6")
@given(seed=seeds)
def test_the_weights_come_from_the_shared_generator(seed):
    """manual_seed(s) before two constructions gives the same weights; another seed, others."""
    def weights(s):
        fw.manual_seed(s)
        return [p.data.copy() for p in nn.GPT(7, 4, n_layer=1, n_head=2, n_embd=4).parameters()]
    first, again, other = weights(seed), weights(seed), weights(seed + 1)
    assert all(np.array_equal(a, b) for a, b in zip(first, again)), (
        f"manual_seed({seed}) twice gave two different models: draw from default_generator()")
    assert not all(np.array_equal(a, b) for a, b in zip(first, other)), (
        f"seeds {seed} and {seed + 1} gave the same model: the weights must be drawn, not fixed")


@check("7.6")
@given(size=sizes, seed=seeds, data=st.data())
@example(size=SMALL, seed=0, data=None)
def test_gpt_logits_are_embeddings_blocks_final_norm_and_tied_head(size, seed, data):
    """logits = LN_f(blocks(wte[ids] + wpe[0..T-1])) wteᵀ, for every T up to block_size."""
    model = model_of(size, seed)
    length = (size["block_size"] if data is None
              else data.draw(st.integers(1, size["block_size"]), label="length"))
    ids = ids_of(size, length, seed)
    assert_close(model(ids).data, gpt_logits(ids, model), f"{describe(size)}: logits of ids "
                 f"{ids.tolist()}", 1e-9, 1e-10)


@check("7.6")
@given(size=sizes, seed=seeds)
@example(size=SMALL, seed=1)
def test_loss_is_the_mean_cross_entropy_in_nats(size, seed):
    """loss(idx, targets) = mean over N·T of -log softmax(logits)[target], a scalar Tensor."""
    model = model_of(size, seed)
    ids = ids_of(size, size["block_size"], seed)
    targets = ids_of(size, size["block_size"], seed + 1)
    loss = model.loss(ids, targets)
    assert_close(loss.data, cross_entropy(gpt_logits(ids, model), targets),
                 f"{describe(size)}: loss", 1e-9, 1e-10)


@check("7.6")
@given(nats=st.floats(0, 10))
@example(nats=math.log(65))
def test_bits_per_char_divides_by_ln_2(nats):
    """bits = nats / ln 2: a uniform guess among 65 characters is log₂ 65 ≈ 6.02 bits."""
    assert_close(gpt.bits_per_char(nats), nats / math.log(2), f"bits_per_char({nats})", 1e-12, 0)


@check("7.6")
@given(size=gradient_sizes, seed=seeds)
def test_loss_gradients_reach_every_weight_the_tied_head_too(size, seed):
    """∂loss for every parameter (wte from the embedding and the head), float64 differences."""
    model = model_of(size, seed)
    ids, targets = ids_of(size, size["block_size"], seed), ids_of(size, size["block_size"], seed + 1)
    check_gradients(lambda: model.loss(ids, targets), list(model.parameters()), seed,
                    f"{describe(size)}: the loss", rtol=1e-4, atol=1e-6, directional=True)
    weights = model.wte.weight
    check_gradients(lambda: model.loss(ids, targets), [weights], seed,
                    f"{describe(size)}: the loss, wte alone", rtol=1e-4, atol=1e-6)


@check("7.6")
def test_a_fresh_model_guesses_uniformly_and_refuses_a_long_input():
    """At GPT-2's small init the loss is about ln V; T = block_size works, T = block_size + 1 raises."""
    fw.manual_seed(0)
    model = nn.GPT(65, 8, n_layer=2, n_head=2, n_embd=16)
    ids = np.random.default_rng(0).integers(0, 65, (4, 8))
    loss = model.loss(ids, np.roll(ids, -1, axis=1)).item()
    assert abs(loss - math.log(65)) < 0.1, f"initial loss {loss:.3f}, expected about ln 65 = 4.174"
    try:
        model(np.zeros((1, 9), dtype=np.int64))
    except ValueError:
        pass
    else:
        raise AssertionError("9 ids for block_size=8 raised nothing: there is no position 8")
