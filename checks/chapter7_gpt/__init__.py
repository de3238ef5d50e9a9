"""Chapter 7 grader: characters as ids, training windows, the decoder block, the GPT and its
loss, sampling, and the key-value cache.

Every model here is built in float64 with every weight redrawn at a visible scale, and
compared with the definitions written here in NumPy: LayerNorm, the tanh GELU, attention
written position by position (query i reads keys 0..i), the GPT as their composition.
Sampling's distributions are compared exactly with the rules (temperature before the
softmax, then top-k, then top-p with the id that crosses p kept), and its draws by seed and
by frequency. The cache is proved, not trusted: hypothesis draws model sizes, prompt lengths
and chunks of new ids up to the full context, and the logits of every cached step must
equal the uncached forward's at the same positions to 1e-10; one id past the context must be
refused with the cache unchanged.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
from hypothesis import assume, example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.harness import assert_close, check, check_gradients, framework, probe, read_only

fw = framework()
nn = importlib.import_module(f"{fw.__name__}.nn")
gpt = importlib.import_module(f"{fw.__name__}.nn.gpt")

seeds = st.integers(0, 2**32 - 1)
EXACT = {"rtol": 1e-10, "atol": 1e-10}  # cached against uncached: the same sums, in float64


# -- the definitions, in NumPy --------------------------------------------------------------------


def layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(x, p, n_head):
    """Causal self-attention of x (N, T, E), one query position at a time: query i reads 0..i."""
    n, t, e = x.shape
    hd = e // n_head
    q, k, v = (x @ p[f"{w}_proj.weight"].T + p[f"{w}_proj.bias"] for w in "qkv")
    out = np.zeros_like(x)
    for i in range(t):
        for h in range(n_head):
            cols = slice(h * hd, (h + 1) * hd)
            scores = np.einsum("nd,nsd->ns", q[:, i, cols], k[:, : i + 1, cols]) / math.sqrt(hd)
            out[:, i, cols] = np.einsum("ns,nsd->nd", softmax(scores), v[:, : i + 1, cols])
    return out @ p["out_proj.weight"].T + p["out_proj.bias"]


def block(x, p, n_head):
    """x + attn(LN₁ x), then x + fc2(gelu(fc1(LN₂ x)))."""
    sub = {name.removeprefix("attn."): value for name, value in p.items()}
    x = x + attention(layer_norm(x, p["ln_1.weight"], p["ln_1.bias"]), sub, n_head)
    h = gelu(layer_norm(x, p["ln_2.weight"], p["ln_2.bias"]) @ p["fc1.weight"].T + p["fc1.bias"])
    return x + h @ p["fc2.weight"].T + p["fc2.bias"]


def state(module) -> dict[str, np.ndarray]:
    return {name: param.data for name, param in module.named_parameters()}


def prefixed(p: dict, prefix: str) -> dict:
    return {name[len(prefix):]: value for name, value in p.items() if name.startswith(prefix)}


def gpt_logits(ids, model) -> np.ndarray:
    """Token + position embeddings, the blocks, the final LayerNorm, the tied head."""
    p = state(model)
    x = p["wte.weight"][ids] + p["wpe.weight"][np.arange(ids.shape[1])]
    for i in range(model.n_layer):
        x = block(x, prefixed(p, f"blocks.{i}."), model.n_head)
    return layer_norm(x, p["ln_f.weight"], p["ln_f.bias"]) @ p["wte.weight"].T


def cross_entropy(logits, targets) -> float:
    z = logits.reshape(-1, logits.shape[-1])
    top = z.max(axis=-1)
    log_total = top + np.log(np.exp(z - top[:, None]).sum(axis=-1))
    return float(np.mean(log_total - z[np.arange(len(z)), targets.reshape(-1)]))


def redraw(module, seed: int, scale: float = 0.5):
    """Every weight drawn afresh at `scale` in float64, so that every path shows in the output."""
    module.to(np.float64)
    rng = np.random.default_rng(seed)
    for _, param in module.named_parameters():
        param.data = rng.normal(0.0, scale, param.data.shape)
    return module


# -- the cases ------------------------------------------------------------------------------------

sizes = st.fixed_dictionaries({
    "vocab_size": st.integers(2, 6), "block_size": st.integers(1, 8), "n_layer": st.integers(1, 2),
    "n_head": st.integers(1, 2), "head_dim": st.integers(1, 3), "batch": st.integers(1, 2),
})

# LayerNorm over two features is near-singular where they nearly agree: a central difference
# at 1e-6 loses its fourth digit there (seen at n_embd=2), so gradients are checked on four or more.
gradient_sizes = st.builds(
    lambda size, heads: {**size, "n_head": heads[0], "head_dim": heads[1]},
    sizes, st.sampled_from([(1, 4), (2, 2), (2, 3)]),
)


def model_of(size: dict, seed: int):
    fw.manual_seed(seed)
    model = nn.GPT(size["vocab_size"], size["block_size"], size["n_layer"], size["n_head"],
                   size["n_head"] * size["head_dim"])
    return redraw(model, seed)


def ids_of(size: dict, length: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, size["vocab_size"], (size["batch"], length))


def describe(size: dict) -> str:
    return (f"GPT(vocab_size={size['vocab_size']}, block_size={size['block_size']}, n_layer="
            f"{size['n_layer']}, n_head={size['n_head']}, n_embd={size['n_head'] * size['head_dim']})"
            f", batch {size['batch']}")


SMALL = {"vocab_size": 5, "block_size": 6, "n_layer": 2, "n_head": 2, "head_dim": 2, "batch": 2}
ONE = {"vocab_size": 3, "block_size": 1, "n_layer": 1, "n_head": 1, "head_dim": 1, "batch": 1}


# -- 7.1 characters as ids ---------------------------------------------------------------------


@probe("7.1")
def probe_vocab(fw):
    vocab = gpt.CharVocab("hello world")
    return {"CharVocab('hello world').encode('hold')": lambda: vocab.encode("hold"),
            "decode([3, 2, 1])": lambda: vocab.decode([3, 2, 1])}


texts = st.text(st.sampled_from("abcXYZ \n.,;:'!?-"), min_size=1, max_size=40)


@check("7.1")
@given(text=texts)
@example(text="First Citizen:\nBefore we proceed any further, hear me speak.")
def test_vocabulary_is_the_sorted_distinct_characters(text):
    """vocab_size = the number of distinct characters; id i is the i-th of them, sorted."""
    vocab = gpt.CharVocab(text)
    chars = sorted(set(text))
    assert vocab.vocab_size == len(chars), f"vocab_size {vocab.vocab_size}, expected {len(chars)}"
    got = np.asarray(vocab.encode("".join(chars)))
    assert got.tolist() == list(range(len(chars))), (
        f"the sorted characters {''.join(chars)!r} encode as {got.tolist()}, expected 0, 1, 2, …"
    )


@check("7.1")
@given(text=texts, seed=seeds)
def test_decode_inverts_encode(text, seed):
    """encode gives int64 ids, one per character; decode(encode(s)) == s for any s of the vocabulary."""
    vocab = gpt.CharVocab(text)
    rng = np.random.default_rng(seed)
    sample = "".join(rng.choice(list(text), 25))
    ids = vocab.encode(sample)
    assert isinstance(ids, np.ndarray) and ids.dtype == np.int64 and ids.shape == (25,), (
        f"encode of 25 characters gave {type(ids).__name__} {getattr(ids, 'dtype', '')} of shape "
        f"{np.shape(ids)}; expected an int64 array of shape (25,)"
    )
    assert vocab.decode(ids) == sample, f"decode(encode({sample!r})) = {vocab.decode(ids)!r}"


@check("7.1")
def test_encode_names_an_unknown_character():
    """A character the vocabulary lacks: ValueError naming it, not a KeyError."""
    vocab = gpt.CharVocab("to be or not")
    assert vocab.decode(vocab.encode("not to be")) == "not to be"
    try:
        vocab.encode("to be, or")
    except ValueError as error:
        assert "','" in str(error) or '","' in str(error) or "," in str(error), (
            f"the message {str(error)!r} should name the unknown character ','"
        )
    else:
        raise AssertionError("encode('to be, or') with no ',' in the vocabulary raised nothing")


# -- 7.2 training windows ---------------------------------------------------------------------


@probe("7.2")
def probe_get_batch(fw):
    x, y = gpt.get_batch(np.arange(10), 2, 3, np.random.default_rng(0))
    return {"get_batch(arange(10), 2, 3, default_rng(0))": {"x": x, "y": y}}


@check("7.2")
@given(length=st.integers(2, 60), batch=st.integers(1, 5), seed=seeds, data=st.data())
def test_windows_are_contiguous_and_targets_are_the_next_ids(length, batch, seed, data):
    """x[b] = data[s : s+T] for some start s, y[b] = data[s+1 : s+T+1], both int64 (B, T)."""
    block_size = data.draw(st.integers(1, length - 1))
    text = np.random.default_rng(seed).permutation(length)  # distinct ids: a window shows its start
    x, y = gpt.get_batch(text, batch, block_size, np.random.default_rng(seed))
    for name, a in (("x", x), ("y", y)):
        a = np.asarray(a)
        assert a.shape == (batch, block_size) and a.dtype == np.int64, (
            f"get_batch(…, batch_size={batch}, block_size={block_size}): {name} of shape "
            f"{a.shape} and dtype {a.dtype}; expected int64 {(batch, block_size)}"
        )
    where = {int(v): i for i, v in enumerate(text)}
    for row_x, row_y in zip(x, y):
        start = where[int(row_x[0])]
        assert start + block_size < length, (
            f"a window starting at {start} of {length} ids leaves no next id for its last position"
        )
        assert_close(row_x, text[start:start + block_size], f"x starting at {start}", 0, 0)
        assert_close(row_y, text[start + 1:start + block_size + 1],
                     f"y for the x starting at {start}: the ids one step later", 0, 0)


@check("7.2")
@given(seed=seeds)
def test_same_generator_seed_same_batch(seed):
    """Two generators of the same seed give the same windows; the shared one is used by default."""
    text = np.arange(500)
    x1, y1 = gpt.get_batch(text, 8, 5, np.random.default_rng(seed))
    x2, y2 = gpt.get_batch(text, 8, 5, np.random.default_rng(seed))
    assert_close(x1, x2, "x from two default_rng(seed)", 0, 0)
    assert_close(y1, y2, "y from two default_rng(seed)", 0, 0)
    fw.manual_seed(seed)
    x3, _ = gpt.get_batch(text, 8, 5)
    fw.manual_seed(seed)
    x4, _ = gpt.get_batch(text, 8, 5)
    assert_close(x3, x4, "x after manual_seed(seed), twice, no generator passed", 0, 0)


@check("7.2")
def test_every_start_is_drawn_the_last_one_too():
    """Starts are uniform over 0..len-T-1: in 3,000 windows of 12 ids, T = 4, all 8 appear."""
    x, _ = gpt.get_batch(np.arange(12), 3000, 4, np.random.default_rng(0))
    counts = np.bincount(np.asarray(x)[:, 0], minlength=8)
    assert len(counts) == 8 and np.all(counts > 250), (
        f"windows per start 0..7 (the last start with a next id is 12 - 4 - 1 = 7): "
        f"{counts.tolist()}; each should be about 375"
    )
    try:
        gpt.get_batch(np.arange(4), 1, 4, np.random.default_rng(0))
    except ValueError:
        pass
    else:
        raise AssertionError("4 ids and block_size=4 leave no next id: ValueError expected")


# -- 7.3 the decoder block --------------------------------------------------------------------


@probe("7.3")
def probe_block(fw):
    return {"causal_mask(2, 4)": gpt.causal_mask(2, 4)}


@check("7.3")
@given(source=st.integers(1, 9), data=st.data())
@example(source=3, data=None)
def test_causal_mask_lets_each_query_see_itself_and_the_past(source, data):
    """causal_mask(L, S)[i, j] is True exactly when j <= S - L + i (queries are the last L)."""
    length = source if data is None else data.draw(st.integers(1, source))
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
    noise = data.draw(arrays(np.float64, shape, elements=st.floats(-0.4, 0.4)))
    return noise + np.arange(shape[-1])


@check("7.3")
@given(case=block_cases, data=st.data())
@example(case={"n_head": 2, "head_dim": 2, "batch": 2, "length": 5, "seed": 0}, data=None)
def test_block_is_pre_ln_causal_attention_then_feed_forward(case, data):
    """Block(x) = x + attn(LN₁ x), then + fc2(gelu(fc1(LN₂ ·))), attention causal, by heads."""
    layer = block_of(case["n_head"], case["head_dim"], case["seed"])
    e = case["n_head"] * case["head_dim"]
    x = block_input(case, data)
    assert_close(layer(fw.Tensor(x)).data, block(x, state(layer), case["n_head"]),
                 f"Block({e}, {case['n_head']}) on x {x.shape}", 1e-9, 1e-10)


@check("7.3")
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


@check("7.3")
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


# -- 7.4 the GPT and its loss -----------------------------------------------------------------


@probe("7.4")
def probe_gpt(fw):
    gpt.bits_per_char(1.0)  # this exercise's own code first: a model needs chapters 3 and 5
    fw.manual_seed(0)
    model = nn.GPT(5, 4, n_layer=1, n_head=1, n_embd=2)
    ids = np.array([[1, 2, 3]])
    return {"bits_per_char(1.0)": gpt.bits_per_char(1.0),
            "GPT(5, 4, 1, 1, 2) logits": lambda: model(ids).data,
            "its loss for targets [[2, 3, 4]]": lambda: model.loss(ids, np.array([[2, 3, 4]])).item()}


@check("7.4")
@given(size=sizes, seed=seeds, data=st.data())
@example(size=SMALL, seed=0, data=None)
def test_gpt_logits_are_embeddings_blocks_final_norm_and_tied_head(size, seed, data):
    """logits = LN_f(blocks(wte[ids] + wpe[0..T-1])) wteᵀ, for every T up to block_size."""
    model = model_of(size, seed)
    length = size["block_size"] if data is None else data.draw(st.integers(1, size["block_size"]))
    ids = ids_of(size, length, seed)
    assert_close(model(ids).data, gpt_logits(ids, model), f"{describe(size)}: logits of ids "
                 f"{ids.tolist()}", 1e-9, 1e-10)


@check("7.4")
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


@check("7.4")
@given(nats=st.floats(0, 10))
@example(nats=math.log(65))
def test_bits_per_char_divides_by_ln_2(nats):
    """bits = nats / ln 2: a uniform guess among 65 characters is log₂ 65 ≈ 6.02 bits."""
    assert_close(gpt.bits_per_char(nats), nats / math.log(2), f"bits_per_char({nats})", 1e-12, 0)


@check("7.4")
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


@check("7.4")
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


# -- 7.5 sampling -------------------------------------------------------------------------------


@probe("7.5")
def probe_sampling(fw):
    logits = np.array([[2.0, 1.0, 0.0, -1.0]])
    return {"next_token_probabilities([2, 1, 0, -1], temperature=0.5, top_k=3)":
            lambda: gpt.next_token_probabilities(logits, 0.5, 3),
            "sample_next(…, top_p=0.9, default_rng(0))":
            lambda: gpt.sample_next(logits, 1.0, None, 0.9, np.random.default_rng(0))}


def distinct_logits(seed: int, rows: int, vocab: int) -> np.ndarray:
    """Logits whose softmax has no ties: a permutation, spaced, with a little noise."""
    rng = np.random.default_rng(seed)
    return np.stack([rng.permutation(vocab) * 0.7 + rng.uniform(0, 0.1, vocab) for _ in range(rows)])


def kept_top_p(probs: np.ndarray, top_p: float) -> np.ndarray:
    """The fewest most likely ids whose mass reaches top_p, the one that crosses it included."""
    keep = np.zeros(probs.shape, dtype=bool)
    for row in range(len(probs)):
        total = 0.0
        for i in np.argsort(-probs[row]):
            keep[row, i] = True
            total += probs[row, i]
            if total >= top_p:
                break
    return keep


def renormalised(probs, keep):
    kept = np.where(keep, probs, 0.0)
    return kept / kept.sum(axis=-1, keepdims=True)


temperatures = st.floats(0.05, 5.0)


@check("7.5")
@given(seed=seeds, vocab=st.integers(2, 8), temperature=temperatures)
@example(seed=0, vocab=4, temperature=0.5)
def test_temperature_divides_the_logits_before_the_softmax(seed, vocab, temperature):
    """probabilities = softmax(logits / temperature): below 1 sharper, above 1 flatter."""
    logits = distinct_logits(seed, 3, vocab)
    got = gpt.next_token_probabilities(logits, temperature)
    assert_close(got, softmax(logits / temperature), f"temperature {temperature}", 1e-9, 1e-12)


@check("7.5")
def test_temperature_zero_is_greedy_first_maximum_on_ties():
    """temperature 0: all the mass on the largest logit, the first one when two tie."""
    logits = np.array([[0.5, 2.0, -1.0, 2.0], [3.0, 1.0, 3.0, 0.0]])
    got = gpt.next_token_probabilities(logits, 0.0)
    assert_close(got, [[0, 1, 0, 0], [1, 0, 0, 0]], "temperature 0", 0, 0)
    ids = gpt.sample_next(logits, 0.0, generator=np.random.default_rng(0))
    assert np.asarray(ids).tolist() == [1, 0], f"sample_next at temperature 0: {ids}, expected [1, 0]"


@check("7.5")
@given(seed=seeds, vocab=st.integers(2, 8), temperature=temperatures, data=st.data())
@example(seed=0, vocab=5, temperature=1.0, data=None)
def test_top_k_keeps_exactly_the_k_most_likely(seed, vocab, temperature, data):
    """top_k: the k most likely ids keep their (temperature) softmax, renormalised; others get 0."""
    k = 2 if data is None else data.draw(st.integers(1, vocab))
    logits = distinct_logits(seed, 3, vocab)
    probs = softmax(logits / temperature)
    keep = probs >= np.sort(probs, axis=-1)[:, -k, None]
    got = gpt.next_token_probabilities(logits, temperature, top_k=k)
    assert_close(got, renormalised(probs, keep), f"top_k={k} of {vocab}, temperature "
                 f"{temperature}", 1e-9, 1e-12)


@check("7.5")
@given(seed=seeds, vocab=st.integers(2, 8), top_p=st.floats(0.01, 1.0), temperature=temperatures)
@example(seed=0, vocab=4, top_p=0.6, temperature=1.0)
def test_top_p_keeps_the_fewest_ids_reaching_p_the_crossing_one_included(seed, vocab, top_p,
                                                                         temperature):
    """top_p: most likely first, ids are kept until their mass reaches p (that id kept too)."""
    logits = distinct_logits(seed, 3, vocab)
    probs = softmax(logits / temperature)
    sums = np.cumsum(-np.sort(-probs, axis=-1), axis=-1)
    assume(np.all(np.abs(sums - top_p) > 1e-9))  # p on a boundary: rounding decides, not the rule
    got = gpt.next_token_probabilities(logits, temperature, top_p=top_p)
    assert_close(got, renormalised(probs, kept_top_p(probs, top_p)),
                 f"top_p={top_p}, temperature {temperature}", 1e-9, 1e-12)


@check("7.5")
@given(seed=seeds, vocab=st.integers(3, 8), top_p=st.floats(0.05, 1.0))
def test_top_k_comes_before_top_p(seed, vocab, top_p):
    """Both: top-k first, its renormalised distribution then cut by top-p."""
    logits = distinct_logits(seed, 2, vocab)
    probs = softmax(logits)
    after_k = renormalised(probs, probs >= np.sort(probs, axis=-1)[:, -2, None])
    sums = np.cumsum(-np.sort(-after_k, axis=-1), axis=-1)
    assume(np.all(np.abs(sums - top_p) > 1e-9))
    got = gpt.next_token_probabilities(logits, 1.0, top_k=2, top_p=top_p)
    assert_close(got, renormalised(after_k, kept_top_p(after_k, top_p)),
                 f"top_k=2 then top_p={top_p}", 1e-9, 1e-12)


@check("7.5")
def test_sampling_is_seeded_and_follows_the_distribution():
    """The same seed draws the same ids; 10,000 draws match the probabilities; 0 is never drawn."""
    logits = np.tile(np.array([[1.0, 0.0, 2.0, -0.5, 0.5]]), (10_000, 1))
    probs = softmax(np.array([1.0, 0.0, 2.0, -0.5, 0.5]) / 0.8)
    probs = renormalised(probs[None], probs[None] >= np.sort(probs)[-4])[0]
    for seed in (0, 1):
        first = np.asarray(gpt.sample_next(logits, 0.8, 4, None, np.random.default_rng(seed)))
        again = np.asarray(gpt.sample_next(logits, 0.8, 4, None, np.random.default_rng(seed)))
        assert first.shape == (10_000,) and first.dtype == np.int64, (
            f"sample_next of (10000, 5) logits gave {first.dtype} {first.shape}; expected int64 "
            "(10000,)"
        )
        assert_close(first, again, f"two draws with default_rng({seed})", 0, 0)
        counts = np.bincount(first, minlength=5) / 10_000
        assert counts[3] == 0, f"id 3 is outside top_k=4, yet drawn {counts[3]:.2%} of the time"
        assert np.all(np.abs(counts - probs) < 0.02), (
            f"frequencies {np.round(counts, 3).tolist()}, probabilities {np.round(probs, 3).tolist()}"
        )


# -- 7.6 the key-value cache ---------------------------------------------------------------------


@probe("7.6")
def probe_cache(fw):
    cache = gpt.KVCache(1, 4)
    positions = cache.positions(2)
    fw.manual_seed(0)
    model = nn.GPT(5, 4, n_layer=1, n_head=1, n_embd=2)
    return {"KVCache(1, 4).positions(2)": positions,
            "generate([[1]], 3, temperature=0)": lambda: model.generate(np.array([[1]]), 3, 0.0)}


@st.composite
def cache_cases(draw):
    """A model, a prompt of 1..block_size ids, then chunks of 1-3 ids up to the full context."""
    size, seed = draw(sizes), draw(seeds)
    prompt = draw(st.integers(1, size["block_size"]))
    chunks, left = [], size["block_size"] - prompt
    while left:
        chunks.append(draw(st.integers(1, min(3, left))))
        left -= chunks[-1]
    one_by_one = draw(st.booleans())
    if one_by_one:
        chunks = [1] * sum(chunks)
    return size, seed, prompt, chunks


def fed(model, ids, prompt: int, chunks: list[int]):
    """The logits of ids fed to a cache: the prompt, then each chunk."""
    cache = gpt.KVCache(model.n_layer, model.block_size)
    logits, start = [model(ids[:, :prompt], cache).data], prompt
    for count in chunks:
        assert cache.length == start, f"after {start} positions the cache holds {cache.length}"
        logits.append(model(ids[:, start:start + count], cache).data)
        start += count
    return np.concatenate(logits, axis=1), cache


@check("7.6")
@given(case=cache_cases())
@example(case=(SMALL, 0, 1, [1] * 5))
@example(case=(SMALL, 1, 3, [2, 1]))
@example(case=(ONE, 2, 1, []))
def test_cached_logits_equal_the_uncached_forward_at_every_position(case):
    """Prompt, then new ids fed to the cache up to block_size: every logit as the full forward's."""
    size, seed, prompt, chunks = case
    model = model_of(size, seed)
    ids = ids_of(size, size["block_size"], seed)
    with fw.no_grad():
        cached, cache = fed(model, ids, prompt, chunks)
        full = model(ids).data
    assert cache.length == size["block_size"], (
        f"the cache holds {cache.length} positions after {size['block_size']} ids"
    )
    assert_close(cached, full, f"{describe(size)}: logits with the cache (prompt {prompt}, then "
                 f"chunks {chunks}) against the uncached forward", **EXACT)


@check("7.6")
@given(case=cache_cases())
@example(case=(SMALL, 3, 6, []))
def test_one_id_past_the_context_is_refused_and_the_cache_kept(case):
    """With block_size positions cached, one more id raises ValueError; the cache still works."""
    size, seed, prompt, chunks = case
    model = model_of(size, seed)
    ids = ids_of(size, size["block_size"], seed)
    with fw.no_grad():
        _, cache = fed(model, ids, prompt, chunks)
        try:
            model(ids[:, -1:], cache)
        except ValueError:
            pass
        else:
            raise AssertionError(f"{describe(size)}: id number {size['block_size'] + 1} fed to a "
                                 "full cache raised nothing (it has no position)")
    assert cache.length == size["block_size"], (
        f"the refused id changed the cache: it holds {cache.length} positions, not "
        f"{size['block_size']}"
    )


@check("7.6")
@given(size=sizes, seed=seeds, data=st.data())
@example(size=SMALL, seed=0, data=None)
def test_generate_feeds_the_prompt_once_then_one_id_per_step(size, seed, data):
    """With the cache: the first call reads the prompt, every later call one id, at its position."""
    model = model_of(size, seed)
    prompt = 2 if data is None else data.draw(st.integers(1, size["block_size"]))
    new = size["block_size"] - prompt + 1
    widths = []
    forward = model.forward

    def recording(idx, cache=None):
        widths.append(np.shape(getattr(idx, "data", idx))[1])
        return forward(idx, cache)

    model.forward = recording
    out = model.generate(ids_of(size, prompt, seed), new, 1.0, generator=np.random.default_rng(seed))
    assert np.shape(out) == (size["batch"], prompt + new), f"generate gave shape {np.shape(out)}"
    assert widths == [prompt] + [1] * (new - 1), (
        f"{describe(size)}: generate({prompt} prompt ids, {new} new) read {widths} ids per call; "
        f"with the cache: {[prompt] + [1] * (new - 1)}"
    )


@check("7.6")
@given(size=sizes, seed=seeds, temperature=st.sampled_from([0.0, 0.7, 1.0]))
@example(size=SMALL, seed=0, temperature=1.0)
def test_generate_with_the_cache_draws_what_without_it_draws(size, seed, temperature):
    """The same seed, up to the full context: the cached and uncached loops give the same ids."""
    model = model_of(size, seed)
    prompt = ids_of(size, 1, seed)
    runs = [model.generate(prompt, size["block_size"], temperature, top_k=3,
                           generator=np.random.default_rng(seed), use_cache=cached)
            for cached in (True, False)]
    assert_close(runs[0], runs[1], f"{describe(size)}: ids generated with and without the cache",
                 0, 0)
    assert_close(np.asarray(runs[0])[:, :1], prompt, "generate's output starts with the prompt", 0, 0)


@check("7.6")
@given(size=sizes, seed=seeds)
@example(size=SMALL, seed=0)
def test_beyond_the_context_the_cache_refuses_and_the_window_slides(size, seed):
    """Past block_size: use_cache=True raises ValueError; use_cache=False reads the last block_size."""
    model = model_of(size, seed)
    prompt, new = ids_of(size, 1, seed), size["block_size"] + 2
    try:
        model.generate(prompt, new, 0.0)
    except ValueError:
        pass
    else:
        raise AssertionError(f"{describe(size)}: {new} new ids after 1 need {new} positions; "
                             "generate with the cache raised nothing")
    out = np.asarray(model.generate(prompt, new, 0.0, use_cache=False))
    with fw.no_grad():
        for t in range(1, out.shape[1]):
            window = out[:, max(0, t - size["block_size"]):t]
            expected = gpt_logits(window, model)[:, -1].argmax(axis=-1)
            assert_close(out[:, t], expected, f"{describe(size)}: greedy id {t} from the window "
                         f"of ids {max(0, t - size['block_size'])}..{t - 1}", 0, 0)


# -- bonus track: graded apart from the 100 points ---------------------------------------------


def metrics():
    """`framework.nn.text_metrics`, the bonus file (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.nn.text_metrics")


# -- 7.7 (bonus) perplexity -----------------------------------------------------------------------


@st.composite
def predictions(draw):
    """logits (N, T, V) or (M, V), targets of the leading shape, some of them ignored (-100)."""
    leading = draw(st.sampled_from([(1,), (3,), (2, 3), (1, 4)]))
    v = draw(st.integers(1, 6))
    logits = draw(arrays(np.float64, leading + (v,), elements=st.floats(-1.0, 1.0)))
    logits = logits * draw(st.floats(0.1, 5.0))
    targets = draw(arrays(np.int64, leading, elements=st.integers(0, v - 1)))
    ignored = draw(arrays(np.bool_, leading))
    ignored.flat[0] = False  # one position at least counts
    return logits, np.where(ignored, -100, targets)


def perplexity_formula(logits, targets):
    keep = targets != -100
    rows, ids = logits[keep], targets[keep]
    log_probs = rows - rows.max(-1, keepdims=True)
    log_probs = log_probs - np.log(np.exp(log_probs).sum(-1, keepdims=True))
    return math.exp(-np.mean(log_probs[np.arange(len(ids)), ids]))


@probe("7.7")
def probe_perplexity(fw):
    return {"perplexity of even bets over 4 ids": lambda: metrics().perplexity(
        np.zeros((2, 4)), np.array([1, 3]))}


@check("7.7")
@given(case=predictions())
@example(case=(np.zeros((2, 4)), np.array([1, 3])))
def test_perplexity_is_e_to_the_mean_cross_entropy(case):
    """exp(mean −log softmax[target]) over the positions not ignored (targets -100)."""
    logits, targets = case
    got = metrics().perplexity(read_only(logits), read_only(targets))
    assert_close(got, perplexity_formula(logits, targets),
                 f"perplexity of logits {logits.shape}, targets {targets.tolist()}", rtol=1e-9)


@check("7.7")
@given(case=predictions(), offset=st.sampled_from([1e4, -1e4, 1e3]))
def test_perplexity_is_the_same_when_every_logit_of_a_row_moves_by_1e4(case, offset):
    """softmax ignores a constant added to a row: logits + 1e4 give the same perplexity, no nan."""
    logits, targets = case
    got = metrics().perplexity(logits + offset, targets)
    assert math.isfinite(got), (
        f"perplexity of logits + {offset:g} is {got}: shift each row by its max before exp")
    assert_close(got, perplexity_formula(logits, targets),
                 f"perplexity of logits {logits.shape} + {offset:g}", rtol=1e-6)


# -- 7.8 (bonus) repetition penalty ---------------------------------------------------------------


def penalty_formula(logits, previous, penalty):
    out = logits.copy()
    for n in range(out.shape[0]):
        for i in set(previous[n].tolist()):
            out[n, i] = out[n, i] / penalty if out[n, i] > 0 else out[n, i] * penalty
    return out


@st.composite
def penalty_cases(draw):
    n, v, t = draw(st.integers(1, 3)), draw(st.integers(1, 8)), draw(st.integers(1, 6))
    logits = draw(arrays(np.float64, (n, v), elements=st.floats(-3.0, 3.0)))
    previous = draw(arrays(np.int64, (n, t), elements=st.integers(0, v - 1)))
    return logits, previous, draw(st.sampled_from([1.2, 2.0]) | st.floats(0.5, 3.0))


@probe("7.8")
def probe_repetition_penalty(fw):
    return {"penalty 2 on ids 0 and 2 of [2, -1, -2, 3]": lambda: metrics().repetition_penalty(
        np.array([[2.0, -1.0, -2.0, 3.0]]), np.array([[0, 2, 0]]), 2.0)}


@check("7.8")
@given(case=penalty_cases())
@example(case=(np.array([[2.0, -1.0, -2.0, 3.0]]), np.array([[0, 2, 0]]), 2.0))
def test_repetition_penalty_divides_positive_and_multiplies_negative_logits_once(case):
    """Each id seen in a row: a positive logit ÷ penalty, another × penalty, once; others unchanged."""
    logits, previous, penalty = case
    got = metrics().repetition_penalty(read_only(logits), read_only(previous), penalty)
    assert_close(got, penalty_formula(logits, previous, penalty),
                 f"repetition_penalty(logits {logits.tolist()}, previous {previous.tolist()}, "
                 f"penalty={penalty:.4g})", rtol=1e-12, atol=1e-12)


@check("7.8")
@given(case=penalty_cases(), dtype=st.sampled_from([np.float32, np.float64]))
def test_repetition_penalty_keeps_the_dtype_and_makes_seen_ids_less_likely(case, dtype):
    """With penalty > 1 the probability of every id seen falls (or stays) and the dtype is kept."""
    logits, previous, penalty = case
    penalty = 1.0 + abs(penalty)
    got = metrics().repetition_penalty(logits.astype(dtype), previous, penalty)
    assert got.dtype == dtype, f"repetition_penalty of {np.dtype(dtype)} logits gave {got.dtype}"
    seen = np.zeros(logits.shape, dtype=bool)
    np.put_along_axis(seen, previous, True, axis=1)
    assert np.all(got[seen] <= logits.astype(dtype)[seen]), (
        f"repetition_penalty(penalty={penalty:.4g}) raised the logit of an id already seen: "
        f"{logits.tolist()} → {got.tolist()}")
