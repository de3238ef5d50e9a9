"""`checkpoint` of a function with several outputs (provided code around exercise 8.7): a tuple
or list of tensors, as PyTorch's, through one node, with the gradients of the plain function."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from checks.loader import load_framework

fw = load_framework("solutions")
nn = fw.nn
checkpoint = fw.utils.checkpoint.checkpoint


def two_outputs(widths, seed: int):
    """A block of Linear and tanh, and f(x, y) = (block(x) · y, exp(Σ rows of block(x)))."""
    fw.manual_seed(seed)
    block = nn.Sequential(nn.Linear(widths[0], widths[1]), nn.Tanh(),
                          nn.Linear(widths[1], widths[2])).to(np.float64)

    def f(x, y):
        h = block(x).tanh()
        return h * y, (0.3 * h.sum(1)).exp()
    return block, f


def step(block, f, x: np.ndarray, y: np.ndarray, weights, run) -> list[np.ndarray]:
    """The gradients of x, y and the block's parameters for Σ weights[i] · Σ output_i²."""
    for p in block.parameters():
        p.grad = None
    x, y = fw.Tensor(x, requires_grad=True), fw.Tensor(y, requires_grad=True)
    outputs = run(f, x, y)
    loss = sum(w * (out * out).sum() for w, out in zip(weights, outputs))
    loss.backward()
    return [x.grad, y.grad] + [p.grad for p in block.parameters()]


@st.composite
def cases(draw):
    widths = draw(st.lists(st.integers(1, 5), min_size=3, max_size=3))
    batch, seed = draw(st.integers(1, 4)), draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal((batch, widths[0])), rng.standard_normal((batch, widths[2]))
    weights = draw(st.sampled_from([(1.0, 0.0), (0.0, 1.0), (0.5, -2.0)]))
    return widths, seed, x, y, weights


@given(case=cases())
def test_a_tuple_of_outputs_gets_the_plain_functions_gradients(case):
    widths, seed, x, y, weights = case
    block, f = two_outputs(widths, seed)
    plain = step(block, f, x, y, weights, lambda f, *args: f(*args))
    checked = step(block, f, x, y, weights, checkpoint)
    for got, expected in zip(checked, plain):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@given(case=cases())
def test_a_tuple_of_outputs_has_the_finite_difference_gradient(case):
    widths, seed, x, y, weights = case
    block, f = two_outputs(widths, seed)

    def loss(x_values: np.ndarray) -> float:
        outputs = f(fw.Tensor(x_values), fw.Tensor(y))
        return sum(w * float((out.data ** 2).sum()) for w, out in zip(weights, outputs))

    numerical = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        delta = np.zeros_like(x)
        delta[index] = 1e-6
        numerical[index] = (loss(x + delta) - loss(x - delta)) / 2e-6
    grad_x = step(block, f, x, y, weights, checkpoint)[0]
    np.testing.assert_allclose(grad_x, numerical, rtol=1e-5, atol=1e-7)


def test_a_list_stays_a_list_and_other_outputs_pass_through():
    x = fw.Tensor(np.array([1.0, 2.0]), requires_grad=True)
    counts = fw.Tensor(np.array([3, 4]))
    out = checkpoint(lambda t: [t * t, 7, counts], x)
    assert isinstance(out, list) and out[1] == 7 and out[2] is counts
    assert out[0].requires_grad and not out[2].requires_grad


def test_outputs_keep_their_dtypes_and_the_function_reruns_once():
    calls = []

    def f(t):
        calls.append(1)
        return t.to(np.float32) * 2.0, (t * t).sum()

    x = fw.Tensor(np.array([1.0, -2.0, 3.0]), requires_grad=True)
    single, total = checkpoint(f, x)
    assert (single.dtype, total.dtype) == (np.float32, np.float64)
    (single.sum() + total).backward()
    assert len(calls) == 2
    np.testing.assert_allclose(x.grad, 2.0 + 2 * x.data)


def test_outputs_in_no_grad_are_the_functions_own():
    x = fw.Tensor(np.ones(2), requires_grad=True)
    with fw.no_grad():
        first, second = checkpoint(lambda t: (t + 1.0, t * 2.0), x)
    assert not first.requires_grad and np.array_equal(second.data, [2.0, 2.0])


def test_a_rerun_with_other_outputs_is_refused_naming_both():
    shapes = iter([(2,), (3,)])
    x = fw.Tensor(np.ones(3), requires_grad=True)
    first, _ = checkpoint(lambda t: (t.sum(), t[: next(shapes)[0]] * 1.0), x)
    with pytest.raises(RuntimeError, match=r"checkpoint: the rerun of the function returned "
                                           r"tensors of \(shape, dtype\) .*\(3,\).*the forward "
                                           r".*\(2,\).*must compute the same outputs"):
        first.backward()


def test_an_output_that_is_no_tensor_nor_sequence_is_refused_saying_what_to_return():
    x = fw.Tensor(np.ones(2), requires_grad=True)
    with pytest.raises(TypeError, match=r"checkpoint: the function returned a dict; checkpoint "
                                        r"takes a function that returns a tensor, or a tuple "
                                        r"or list of tensors"):
        checkpoint(lambda t: {"out": t * 2.0}, x)
