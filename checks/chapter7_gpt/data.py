"""Chapter 7, exercises 7.1–7.2: characters as ids, and training windows."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from checks.chapter7_gpt.common import fw, gpt, seeds
from checks.harness import assert_close, check, probe

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
    block_size = data.draw(st.integers(1, length - 1), label="block_size")
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
