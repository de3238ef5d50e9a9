"""Chapter 7, exercises 7.3–7.4: the bigram baseline, and attention as an average of the past.

The bigram is graded through its public contract only (forward's shapes, parameters(), the
loss), so any layout of its table scores: it is trained here by the graders' own Adam on the
graders' own windows of the text, and its validation loss computed here from its logits.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.chapter7_gpt.common import cross_entropy, fw, gpt, seeds, softmax
from checks.harness import assert_close, backprop, check, check_gradients, probe, read_only

# -- 7.3 the bigram baseline ------------------------------------------------------------------

BAR = 2.7  # nats per character on the validation text after STEPS steps (the reference: 2.6)
STEPS, BATCH, WINDOW, LR = 300, 32, 64, 0.1


def shakespeare() -> tuple[np.ndarray, np.ndarray, int]:
    """The bundled text's training and validation ids, by the graders' own vocabulary."""
    train, val = fw.data.load_shakespeare()
    chars = sorted(set(train + val))
    table = {ch: i for i, ch in enumerate(chars)}
    return (np.array([table[c] for c in train]), np.array([table[c] for c in val]), len(chars))


def windows(ids: np.ndarray, count: int, rng: np.random.Generator):
    starts = rng.integers(0, len(ids) - WINDOW, count)[:, None] + np.arange(WINDOW)
    return ids[starts], ids[starts + 1]


def train(model, ids: np.ndarray, steps: int, seed: int) -> None:
    """Adam (β = 0.9, 0.999) on model.parameters(), the gradients by the graders' own walk."""
    params = [*model.parameters()]
    moments = [[np.zeros(p.data.shape), np.zeros(p.data.shape)] for p in params]
    rng = np.random.default_rng(seed)
    for step in range(1, steps + 1):
        loss = model.loss(*windows(ids, BATCH, rng))
        grads = backprop(loss, np.ones(np.shape(loss.data)))
        for p, (m, v) in zip(params, moments):
            g = np.asarray(grads.get(id(p), 0.0))
            m[...] = 0.9 * m + 0.1 * g
            v[...] = 0.999 * v + 0.001 * g * g
            step_size = LR * math.sqrt(1 - 0.999**step) / (1 - 0.9**step)
            p.data = p.data - step_size * m / (np.sqrt(v) + 1e-8)


def validation_loss(model, ids: np.ndarray) -> float:
    """The graders' cross-entropy of the model's logits on fixed windows of held-out text."""
    x, y = windows(ids, 256, np.random.default_rng(1234))
    with fw.no_grad():
        return cross_entropy(np.asarray(model(x).data, dtype=np.float64), y)


@probe("7.3")
def probe_bigram(fw):
    fw.manual_seed(0)
    model = gpt.Bigram(4)
    ids = np.array([[0, 1, 2]])
    return {"Bigram(4) logits of [[0, 1, 2]]": lambda: model(ids).data,
            "its loss for targets [[1, 2, 3]]": lambda: model.loss(ids, np.array([[1, 2, 3]])).item()}


@check("7.3")
@given(vocab_size=st.integers(1, 80), seed=seeds)
@example(vocab_size=65, seed=0)
def test_a_fresh_bigram_is_a_table_of_v_squared_logits_at_loss_ln_v(vocab_size, seed):
    """V² parameters; logits (N, T, V); before training the loss is within 0.05 of ln V."""
    fw.manual_seed(seed)
    model = gpt.Bigram(vocab_size)
    count = sum(int(np.size(p.data)) for p in model.parameters())
    assert count == vocab_size**2, (
        f"Bigram({vocab_size}) has {count} parameters; a table of one row of {vocab_size} logits "
        f"per id has {vocab_size}² = {vocab_size**2}")
    ids = np.random.default_rng(seed).integers(0, vocab_size, (3, 9))
    logits = np.asarray(model(read_only(ids)).data)
    assert logits.shape == (3, 9, vocab_size), (
        f"Bigram({vocab_size}) logits of shape {logits.shape} for ids (3, 9); expected (3, 9, "
        f"{vocab_size})")
    loss = model.loss(ids, np.roll(ids, -1, axis=1)).item()
    assert abs(loss - math.log(vocab_size)) < 0.05, (
        f"Bigram({vocab_size})'s loss before training is {loss:.4f}; start every id equally "
        f"likely (logits equal, or all near 0): ln {vocab_size} = {math.log(vocab_size):.4f}")


@check("7.3")
@given(vocab_size=st.integers(2, 12), seed=seeds)
@example(vocab_size=5, seed=0)
def test_a_bigram_reads_the_current_id_only(vocab_size, seed):
    """Every weight redrawn: logits[n, t] = the logits of idx[n, t] alone, wherever it stands."""
    model = gpt.Bigram(vocab_size)
    rng = np.random.default_rng(seed)
    for p in model.parameters():
        p.data = rng.normal(0.0, 1.0, p.data.shape)
    ids = rng.integers(0, vocab_size, (2, 7))
    with fw.no_grad():
        alone = np.asarray(model(np.arange(vocab_size)[:, None]).data)[:, 0]
        got = np.asarray(model(ids).data)
    assert_close(got, alone[ids], f"Bigram({vocab_size}) logits of ids {ids.tolist()} against "
                 "each id's logits read alone (no context, no position)", 1e-6, 1e-6)


@check("7.3")
@given(vocab_size=st.integers(2, 12), seed=seeds)
def test_the_bigram_loss_is_the_mean_cross_entropy_of_its_logits(vocab_size, seed):
    """Every weight redrawn: loss(idx, targets) = mean over N·T of -log softmax(logits)[target]."""
    model = gpt.Bigram(vocab_size)
    rng = np.random.default_rng(seed)
    for p in model.parameters():
        p.data = rng.normal(0.0, 1.0, p.data.shape)
    ids, targets = rng.integers(0, vocab_size, (2, 7)), rng.integers(0, vocab_size, (2, 7))
    loss = model.loss(ids, targets)
    expected = cross_entropy(np.asarray(model(ids).data, dtype=np.float64), targets)
    assert_close(loss.data, expected, f"Bigram({vocab_size}).loss of ids {ids.tolist()}, "
                 f"targets {targets.tolist()}", 1e-5, 1e-6)


@check("7.3")
def test_trained_on_shakespeare_the_bigram_reaches_the_bar():
    """300 Adam steps (lr 0.1) on 32 windows of 64: validation loss at most 2.7 nats."""
    train_ids, val_ids, vocab_size = shakespeare()
    fw.manual_seed(0)
    model = gpt.Bigram(vocab_size)
    start = validation_loss(model, val_ids)
    train(model, train_ids, STEPS, seed=0)
    final = validation_loss(model, val_ids)
    assert final <= BAR, (
        f"Bigram({vocab_size}) trained {STEPS} steps of Adam (lr {LR}) on batches ({BATCH}, "
        f"{WINDOW}): validation loss {start:.3f} → {final:.3f} nats, above the bar {BAR}; a "
        "table row per current id, updated by the loss's gradient, gets to about 2.6")


# -- 7.4 attention as an average of the past --------------------------------------------------


def running_mean(x: np.ndarray) -> np.ndarray:
    return np.cumsum(x, axis=-2) / np.arange(1, x.shape[-2] + 1)[:, None]


def past_softmax(scores: np.ndarray) -> np.ndarray:
    """Row t: softmax over keys 0..t, zero beyond, one row at a time."""
    out = np.zeros_like(scores)
    for t in range(scores.shape[-1]):
        out[..., t, : t + 1] = softmax(scores[..., t, : t + 1])
    return out


@probe("7.4")
def probe_average(fw):
    return {"average_weights(3)": lambda: gpt.average_weights(3),
            "causal_softmax(zeros (3, 3))": lambda: gpt.causal_softmax(fw.Tensor(np.zeros((3, 3)))).data}


@check("7.4")
@given(length=st.integers(1, 12))
@example(length=3)
def test_average_weights_are_lower_triangular_rows_of_one_over_t_plus_one(length):
    """W[t, j] = 1/(t+1) for j <= t and 0 for j > t: each row averages the past and itself."""
    expected = np.tri(length) / np.arange(1, length + 1)[:, None]
    assert_close(gpt.average_weights(length), expected, f"average_weights({length})", 1e-12, 1e-15)


inputs = st.tuples(st.integers(1, 2), st.integers(1, 7), st.integers(1, 3)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=st.floats(-3.0, 3.0)))


@check("7.4")
@given(x=inputs)
@example(x=np.array([[[1.0], [3.0], [8.0]]]))
def test_causal_average_is_the_mean_of_each_position_and_the_ones_before(x):
    """causal_average(x)[:, t] = mean of x[:, 0 … t], in x's dtype, float32 too."""
    got = gpt.causal_average(fw.Tensor(read_only(x)))
    assert_close(got.data, running_mean(x), f"causal_average of x {x.tolist()}", 1e-10, 1e-12)
    single = gpt.causal_average(fw.Tensor(x.astype(np.float32)))
    assert single.data.dtype == np.float32, (
        f"causal_average of float32 x gave {single.data.dtype}; cast the weights to x's dtype")


@check("7.4")
@given(x=inputs, seed=seeds)
def test_causal_average_gradients(x, seed):
    """∂ of causal_average for every element of x, float64 central differences."""
    leaf = fw.Tensor(x, requires_grad=True)
    check_gradients(lambda: gpt.causal_average(leaf), [leaf], seed,
                    f"causal_average of x {x.shape}")


scores_of = st.tuples(st.integers(1, 2), st.integers(1, 6)).flatmap(
    lambda shape: arrays(np.float64, (shape[0], shape[1], shape[1]),
                         elements=st.floats(-4.0, 4.0)))


@check("7.4")
@given(length=st.integers(1, 9), constant=st.floats(-5.0, 5.0))
@example(length=3, constant=0.0)
def test_equal_scores_give_the_running_mean(length, constant):
    """causal_softmax of scores all equal is average_weights: the average is attention's start."""
    got = gpt.causal_softmax(fw.Tensor(np.full((length, length), constant)))
    expected = np.tri(length) / np.arange(1, length + 1)[:, None]
    assert_close(got.data, expected, f"causal_softmax of a ({length}, {length}) table of "
                 f"{constant}", 1e-10, 1e-12)


@check("7.4")
@given(scores=scores_of, seed=seeds)
@example(scores=np.array([[[0.0, 9.0], [1.0, 2.0]]]), seed=0)
def test_causal_softmax_weighs_the_past_only(scores, seed):
    """Row t is softmax(scores[t, 0 … t]) and 0 beyond; changing a future score changes nothing."""
    got = gpt.causal_softmax(fw.Tensor(read_only(scores))).data
    assert_close(got, past_softmax(scores), f"causal_softmax of scores {scores.tolist()}",
                 1e-10, 1e-12)
    future = np.triu(np.ones(scores.shape, dtype=bool), k=1)
    moved = np.where(future, np.random.default_rng(seed).normal(0, 50, scores.shape), scores)
    assert_close(gpt.causal_softmax(fw.Tensor(moved)).data, got,
                 "causal_softmax after changing the scores above the diagonal (the future)", 0, 1e-12)


@check("7.4")
@given(scores=scores_of, seed=seeds)
def test_causal_softmax_gradients(scores, seed):
    """∂ of causal_softmax for every score (zero for the future's), float64 central differences."""
    leaf = fw.Tensor(scores, requires_grad=True)
    check_gradients(lambda: gpt.causal_softmax(leaf), [leaf], seed,
                    f"causal_softmax of scores {scores.shape}")
