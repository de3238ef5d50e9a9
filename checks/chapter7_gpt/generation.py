"""Chapter 7, exercises 7.7–7.8: sampling, and the key-value cache."""

from __future__ import annotations

import numpy as np
from hypothesis import assume, example, given
from hypothesis import strategies as st

from checks.chapter7_gpt.common import (
    EXACT,
    ONE,
    SMALL,
    describe,
    fw,
    gpt,
    gpt_logits,
    ids_of,
    model_of,
    nn,
    seeds,
    sizes,
    softmax,
)
from checks.harness import assert_close, check, probe

# -- 7.7 sampling -------------------------------------------------------------------------------


@probe("7.7")
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
    keep = np.full(probs.shape, False)
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


@check("7.7")
@given(seed=seeds, vocab=st.integers(2, 8), temperature=temperatures)
@example(seed=0, vocab=4, temperature=0.5)
def test_temperature_divides_the_logits_before_the_softmax(seed, vocab, temperature):
    """probabilities = softmax(logits / temperature): below 1 sharper, above 1 flatter."""
    logits = distinct_logits(seed, 3, vocab)
    got = gpt.next_token_probabilities(logits, temperature)
    assert_close(got, softmax(logits / temperature), f"temperature {temperature}", 1e-9, 1e-12)


@check("7.7")
def test_temperature_zero_is_greedy_first_maximum_on_ties():
    """temperature 0: all the mass on the largest logit, the first one when two tie."""
    logits = np.array([[0.5, 2.0, -1.0, 2.0], [3.0, 1.0, 3.0, 0.0]])
    got = gpt.next_token_probabilities(logits, 0.0)
    assert_close(got, [[0, 1, 0, 0], [1, 0, 0, 0]], "temperature 0", 0, 0)
    ids = gpt.sample_next(logits, 0.0, generator=np.random.default_rng(0))
    assert np.asarray(ids).tolist() == [1, 0], f"sample_next at temperature 0: {ids}, expected [1, 0]"


@check("7.7")
@given(seed=seeds, vocab=st.integers(2, 8), temperature=temperatures, data=st.data())
@example(seed=0, vocab=5, temperature=1.0, data=None)
def test_top_k_keeps_exactly_the_k_most_likely(seed, vocab, temperature, data):
    """top_k: the k most likely ids keep their (temperature) softmax, renormalised; others get 0."""
    k = 2 if data is None else data.draw(st.integers(1, vocab), label="k")
    logits = distinct_logits(seed, 3, vocab)
    probs = softmax(logits / temperature)
    keep = probs >= np.sort(probs, axis=-1)[:, -k, None]
    got = gpt.next_token_probabilities(logits, temperature, top_k=k)
    assert_close(got, renormalised(probs, keep), f"top_k={k} of {vocab}, temperature "
                 f"{temperature}", 1e-9, 1e-12)


@check("7.7")
def test_top_k_keeps_every_id_tied_with_the_kth():
    """top_k=2 of logits [3, 1, 1, 0]: the two ids tied at the 2nd largest are both kept."""
    logits = np.array([[3.0, 1.0, 1.0, 0.0], [0.0, 2.0, 2.0, 2.0]])
    probs = softmax(logits)
    keep = np.array([[True, True, True, False], [False, True, True, True]])
    got = gpt.next_token_probabilities(logits, 1.0, top_k=2)
    assert_close(got, renormalised(probs, keep), "top_k=2 of [[3, 1, 1, 0], [0, 2, 2, 2]]: an id "
                 "tied with the k-th largest logit is kept too (k counts values, not ids)",
                 1e-9, 1e-12)


@check("7.7")
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


@check("7.7")
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


@check("7.7")
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


# -- 7.8 the key-value cache ---------------------------------------------------------------------


@probe("7.8")
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


@check("7.8")
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


@check("7.8")
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


@check("7.8")
@given(size=sizes, seed=seeds, data=st.data())
@example(size=SMALL, seed=0, data=None)
def test_generate_feeds_the_prompt_once_then_one_id_per_step(size, seed, data):
    """With the cache: the first call reads the prompt, every later call one id, at its position."""
    model = model_of(size, seed)
    prompt = 2 if data is None else data.draw(st.integers(1, size["block_size"]), label="prompt")
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


@check("7.8")
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


@check("7.8")
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
