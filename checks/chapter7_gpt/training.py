"""Chapter 7, exercise 7.9: the training loop, graded by what it does to a model.

The model trained here is the graders' own: a table of logits (a bigram) written with the
framework's Embedding and cross-entropy, which records every forward: its ids, whether a
graph was being built and whether it was in training mode. The loop is graded by the
validation loss it reaches (measured here, from the logits) and by those records.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from checks.chapter7_gpt.baseline import shakespeare, validation_loss
from checks.chapter7_gpt.common import cross_entropy, fw, gpt, nn, seeds
from checks.harness import assert_close, check, probe

F = nn.functional
BAR, STEPS, BATCH, WINDOW, LR = 2.7, 200, 32, 32, 0.2  # the reference: 2.64 (forgetting zero_grad: 2.84)


class Table(nn.Module):
    """A bigram that records its forwards: (ids, a graph being built, training mode)."""

    def __init__(self, vocab_size: int) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.table = nn.Embedding(vocab_size, vocab_size)
        self.table.weight.data[...] = 0
        self.calls: list[tuple[np.ndarray, bool, bool]] = []

    def forward(self, idx):
        ids = np.asarray(getattr(idx, "data", idx))
        self.calls.append((ids.copy(), fw.is_grad_enabled(), self.training))
        return self.table(ids)

    def loss(self, idx, targets):
        logits = self(idx).reshape(-1, self.vocab_size)
        return F.cross_entropy(logits, np.asarray(getattr(targets, "data", targets)).reshape(-1))


def table_of(vocab_size: int, seed: int) -> Table:
    fw.manual_seed(seed)
    model = Table(vocab_size)
    model.table.weight.data = np.random.default_rng(seed).normal(
        0.0, 1.0, model.table.weight.data.shape).astype(model.table.weight.data.dtype)
    return model


class Uniform:
    """A model of no parameters, equally sure of 4 ids, that is no Module: on the stubs, 7.9's
    probe reaches its own code before chapter 3's registration."""

    training = True

    def modules(self):
        return iter([self])

    def train(self, mode: bool = True):
        self.training = mode
        return self

    def eval(self):
        return self.train(False)

    def loss(self, idx, targets):
        return fw.Tensor(np.log(4.0))


@probe("7.9")
def probe_training(fw):
    ids = np.arange(40) % 4
    return {"estimate_loss of a uniform model on 0, 1, 2, 3, 0, …": lambda: gpt.estimate_loss(
                Uniform(), ids, 2, 3, 2, np.random.default_rng(0)),
            "train 4 steps, eval_every=2": lambda: gpt.train(
                table_of(4, 0), ids, ids, 4, 2, 3, lr=0.1, warmup=1, eval_every=2, eval_batches=1,
                generator=np.random.default_rng(0))}


@check("7.9")
@given(seed=seeds, training=st.booleans(), batches=st.integers(1, 4))
def test_estimate_loss_is_the_mean_loss_of_windows_drawn_in_turn_without_a_graph(
        seed, training, batches):
    """The mean of the losses of `batches` get_batch windows, in eval mode, no graph; mode restored."""
    model = table_of(6, seed)
    ids = np.random.default_rng(seed).integers(0, 6, 50)
    model.train(training)
    got = gpt.estimate_loss(model, ids, 3, 4, batches, np.random.default_rng(seed))
    windows = np.random.default_rng(seed)
    weights = model.table.weight.data.astype(np.float64)
    expected = np.mean([cross_entropy(weights[x], y)
                        for x, y in (gpt.get_batch(ids, 3, 4, windows) for _ in range(batches))])
    assert_close(got, expected, f"estimate_loss over {batches} batches of (3, 4) windows", 1e-5, 1e-6)
    assert isinstance(got, float), f"estimate_loss returned a {type(got).__name__}; a float"
    graphs = sum(grad for _, grad, _ in model.calls)
    modes = sum(mode for _, _, mode in model.calls)
    assert graphs == 0 and modes == 0, (
        f"estimate_loss ran {len(model.calls)} forwards, {graphs} of them building a graph and "
        f"{modes} in training mode; evaluate in eval mode under no_grad (nothing is learned)")
    assert model.training == training, (
        f"after estimate_loss the model's training flag is {model.training}, it was {training}: "
        "restore the mode it had")


@check("7.9")
def test_the_loop_takes_its_steps_in_training_mode_and_evaluates_without_a_graph():
    """`steps` batches of (B, T) with a graph in train mode; validation after every eval_every and
    after the last step, in eval mode without one; the history [(step, loss)]."""
    rng = np.random.default_rng(0)
    train_ids, val_ids = rng.integers(0, 8, 400), rng.integers(8, 16, 400)  # told apart by id
    model = table_of(16, 0)
    history = gpt.train(model, train_ids, val_ids, 24, 4, 5, lr=0.01, warmup=2, eval_every=10,
                        eval_batches=2, generator=np.random.default_rng(1))
    steps = [(ids.shape, grad, mode) for ids, grad, mode in model.calls if ids.max() < 8]
    checks = [(grad, mode) for ids, grad, mode in model.calls if ids.min() >= 8]
    assert steps == [((4, 5), True, True)] * 24, (
        f"train(steps=24, batch_size=4, block_size=5) ran {len(steps)} forwards on the training "
        f"ids: {sorted(set(steps), key=str)} as (shape, graph, training); expected 24 of ((4, 5), "
        "True, True)")
    assert checks and not any(grad or mode for grad, mode in checks), (
        f"{sum(g for g, _ in checks)} of the {len(checks)} forwards on the validation ids built a "
        f"graph and {sum(m for _, m in checks)} ran in training mode: evaluate with estimate_loss")
    assert [step for step, _ in history] == [10, 20, 24], (
        f"train(steps=24, eval_every=10) returned the steps {[s for s, _ in history]}; expected "
        "[10, 20, 24]: every eval_every steps and after the last")
    assert all(isinstance(loss, float) for _, loss in history), "each validation loss a float"


@check("7.9")
def test_the_loop_trains_a_bigram_on_shakespeare_to_the_bar():
    """200 steps, batches (32, 32), lr 0.2: the graders' bigram's validation loss at most 2.7."""
    train_ids, val_ids, vocab_size = shakespeare()
    model = Table(vocab_size)
    start = validation_loss(model, val_ids)
    gpt.train(model, train_ids, val_ids, STEPS, BATCH, WINDOW, lr=LR, warmup=20, eval_batches=2,
              generator=np.random.default_rng(0))
    final = validation_loss(model, val_ids)
    assert final <= BAR, (
        f"train({STEPS} steps, batches ({BATCH}, {WINDOW}), lr {LR}) took a bigram's validation "
        f"loss from {start:.3f} to {final:.3f} nats, above the bar {BAR} (a working loop: 2.64); "
        "is each step's gradient its own (zero_grad), and does the optimizer step?")
