"""Chapter 8 grader, exercise 8.7: activation checkpointing (`framework.utils.checkpoint`).

Every check compares a checkpointed block with the same block run plainly, on the same
weights and the same seed: the output, the inputs' gradients and every parameter's `.grad`
must agree (float64, to rounding), for blocks drawn by hypothesis (batch, widths, depth),
with dropout inside (the random state replayed), nested, with a non-tensor argument, and in
float32 (dtypes kept). Two more: the forward runs the block without recording a graph, and
after backward the shared generator continues as if nothing had been rerun.
"""

from __future__ import annotations

import importlib

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from checks.harness import assert_close, check, check_gradients, framework, probe

fw = framework()
nn = importlib.import_module(f"{fw.__name__}.nn")
generator = importlib.import_module(f"{fw.__name__}.provided.generator")


def checkpoint(*args, **kwargs):
    """The implementation under test (its module loaded at the call: a stub fails only here)."""
    return importlib.import_module(f"{fw.__name__}.utils.checkpoint").checkpoint(*args, **kwargs)


seeds = st.integers(0, 2**32 - 1)
sizes = st.integers(1, 6)


def mlp(widths, seed: int, dropout: float = 0.0, dtype=np.float64):
    """Linear, tanh, [dropout], ... Linear, with weights drawn from `seed`, in `dtype`."""
    fw.manual_seed(seed)
    layers = []
    for i, (n_in, n_out) in enumerate(zip(widths, widths[1:])):
        layers.append(nn.Linear(n_in, n_out))
        if i < len(widths) - 2:
            layers += [nn.Tanh()] + ([nn.Dropout(dropout)] if dropout else [])
    block = nn.Sequential(*layers)
    for p in block.parameters():
        p.data = p.data.astype(dtype)
    return block


def step(block, x: np.ndarray, seed: int, checkpointed: bool, after=None, run=checkpoint):
    """One forward and backward of `before · block · after`: a leaf `w` scales x before the
    block (so the block's input h is an op's result, which a term Σ h² also reads: the graph
    before the block is walked once, by the outer backward), `after` follows it; the block
    runs plainly or as `run(block, h)`. Returns the output, x's and w's gradients, the block's
    parameters' gradients, and the generator's next draw after backward."""
    for p in block.parameters():
        p.grad = None
    generator.manual_seed(seed)
    x = fw.Tensor(x, requires_grad=True)
    w = fw.Tensor(np.full(x.shape[1:], 1.5, dtype=x.dtype), requires_grad=True)
    h = x * w
    out = run(block, h) if checkpointed else block(h)
    final = (after(out) if after else out) + 0.1 * (h * h).sum()
    cotangent = np.linspace(-1, 1, final.data.size).reshape(final.shape).astype(final.dtype)
    final.backward(cotangent)
    grads = [x.grad, w.grad] + [p.grad for p in block.parameters()]
    return out.data, grads, generator.default_generator().random()


def same_step(block, x, seed, what: str, after=None, run=checkpoint, rtol=1e-12,
              atol=1e-12) -> None:
    """The checkpointed step equals the plain one: output, every gradient, the next draw."""
    plain_out, plain_grads, plain_draw = step(block, x, seed, False, after)
    out, grads, draw = step(block, x, seed, True, after, run)
    assert_close(out, plain_out, f"{what}: the output", rtol, atol)
    names = ["x (before the block)", "w (before the block)"] + [
        f"parameter {name} {tuple(p.shape)}" for name, p in block.named_parameters()]
    for name, got, expected in zip(names, grads, plain_grads):
        assert got is not None, f"{what}: {name} received no gradient (.grad is None)"
        assert_close(got, expected, f"{what}: the gradient of {name}", rtol, atol)
    assert draw == plain_draw, (
        f"{what}: after backward the shared generator draws {draw}, {plain_draw} without "
        "checkpointing: put it back where it was after the rerun")


@st.composite
def blocks(draw):
    widths = draw(st.lists(sizes, min_size=2, max_size=4))
    x = np.random.default_rng(draw(seeds)).standard_normal((draw(sizes), widths[0]))
    return widths, x, draw(seeds)


@probe("8.7")
def probe_checkpoint(fw):
    x = fw.Tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    out = checkpoint(lambda t: (t * t).sum(), x)
    out.backward()
    return {"checkpoint(t ↦ Σ t², x = [1, 2, 3]): value": out.data, "x.grad": lambda: x.grad}


@check("8.7")
@given(case=blocks())
def test_a_checkpointed_mlp_gives_the_plain_output_and_gradients(case):
    """checkpoint(block, h) returns block(h), and backward gives h's inputs and every parameter
    of the block the gradients they get without checkpointing."""
    widths, x, seed = case
    same_step(mlp(widths, seed), x, seed, f"an MLP {widths} on x {x.shape}")


@check("8.7")
@given(case=blocks(), p=st.sampled_from([0.2, 0.5]))
def test_dropout_inside_draws_the_same_masks_in_the_rerun(case, p):
    """With dropout in the block, the rerun replays the forward's random state: the same masks,
    so the same gradients; the generator then continues where it was."""
    widths, x, seed = case
    widths = [widths[0], 8, widths[-1]]  # a hidden layer, so the block has a dropout
    same_step(mlp(widths, seed, dropout=p), x, seed, f"an MLP {widths} with dropout p={p}")


@check("8.7")
@given(case=blocks())
def test_the_generator_continues_as_if_nothing_had_rerun(case):
    """A dropout after the block draws between forward and backward; after backward the shared
    generator is where it was before the rerun, not where the rerun left it."""
    widths, x, seed = case
    widths = [widths[0], 8, widths[-1]]
    same_step(mlp(widths, seed, dropout=0.5), x, seed, f"an MLP {widths} followed by dropout",
              after=lambda out: nn.functional.dropout(out, 0.5, True))


@check("8.7")
def test_the_forward_records_no_graph():
    """The function's first run (the forward) happens with grad mode off: nothing it computes
    is kept for backward; the second run (in backward) records."""
    modes = []

    def block(h):
        modes.append(fw.is_grad_enabled())
        return (h * h).tanh()

    x = fw.Tensor(np.array([0.5, -1.0]), requires_grad=True)
    out = checkpoint(block, x * 2)
    assert modes == [False], (
        f"checkpoint: during the forward, the function ran with grad mode {modes}; run it "
        "inside no_grad(), so that it keeps no activations")
    assert out.requires_grad, "checkpoint: the output of a block on an input that requires " \
                              "grad must require grad"
    out.sum().backward()
    assert modes == [False, True], (
        f"checkpoint: grad modes of the function's runs {modes}, expected [False, True]: the "
        "backward reruns it inside enable_grad()")


@check("8.7")
@given(case=blocks())
def test_the_input_gradient_matches_finite_differences(case):
    """The gradient of the block's input, through checkpoint, matches central differences."""
    widths, x, seed = case
    block = mlp(widths, seed)
    leaf = fw.Tensor(x, requires_grad=True)
    check_gradients(lambda: checkpoint(block, leaf), [leaf], seed,
                    f"checkpoint of an MLP {widths} on x {x.shape}")


@check("8.7")
@given(case=blocks())
def test_nested_checkpoints_give_the_plain_gradients(case):
    """checkpoint(lambda h: checkpoint(second, first(h)), x): the inner one records only in the
    outer one's rerun, and the gradients are still the plain ones."""
    widths, x, seed = case
    first, second = mlp(widths, seed), mlp(widths[-1:] + widths[1:], seed + 1)

    def nested(h):
        return checkpoint(second, first(h))

    same_step(nn.Sequential(first, second), x, seed, f"nested checkpoints of MLPs {widths} and "
              f"{widths[-1:] + widths[1:]}", run=lambda block, h: checkpoint(nested, h))


@check("8.7")
def test_float32_stays_float32_and_non_tensor_arguments_pass_through():
    """A float32 block gives a float32 output and float32 gradients; a number among the
    arguments is passed to the function as it is."""
    block = mlp([3, 5, 2], 0, dtype=np.float32)
    x = fw.Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3), requires_grad=True)
    out = checkpoint(lambda h, scale: block(h) * scale, x, 2.0)
    expected = block(fw.Tensor(x.data)) * 2.0
    assert out.dtype == np.float32, f"checkpoint of a float32 block: a {out.dtype} output"
    assert_close(out.data, expected.data, "checkpoint(block(h) * scale, x, 2.0): the output")
    out.sum().backward()
    for name, grad in [("x", x.grad)] + [(n, p.grad) for n, p in block.named_parameters()]:
        assert grad is not None and grad.dtype == np.float32, (
            f"checkpoint of a float32 block: the gradient of {name} is "
            f"{None if grad is None else grad.dtype}, expected float32")
