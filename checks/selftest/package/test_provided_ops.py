"""Provided code tested as hard as the exercises (the reference): every public op's dtypes for
float32 inputs, float64 gradient checks on drawn inputs, the shape ops against NumPy on 3-D and
larger inputs with negative and non-zero axes, no_grad's state, train/eval state, and where
dropout sits inside attention.
"""

from __future__ import annotations

import importlib
import inspect
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from checks.loader import load_framework

fw = load_framework("solutions")
Tensor = fw.Tensor
F = importlib.import_module("framework.nn.functional")
nn = importlib.import_module("framework.nn")
autodiff = importlib.import_module("framework.autodiff")


# -- (a) float32 in, float32 out, float32 gradients: every public op --------------------------------

def leaf(*shape, low=-2.0, high=2.0):
    """A float32 leaf of distinct values (no ties for max, no kinks at 0 for abs)."""
    size = int(np.prod(shape))
    values = np.random.default_rng(size).permutation(np.linspace(low, high, size) + 0.013)
    return Tensor(values.reshape(shape).astype(np.float32), requires_grad=True)


def positive(*shape):
    return leaf(*shape, low=0.5, high=3.0)


def image(*shape):
    return leaf(*shape)


# name → (inputs, op): op(*inputs) must be float32, and so must every input's gradient
FLOAT32_OPS = {
    # Tensor's arithmetic, with tensors and with Python numbers on either side
    "__add__": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: a + b),
    "__radd__": (lambda: [leaf(2, 3)], lambda a: 2.5 + a),
    "__sub__": (lambda: [leaf(2, 3), leaf(2, 1)], lambda a, b: a - b),
    "__rsub__": (lambda: [leaf(2, 3)], lambda a: 2.5 - a),
    "__mul__": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: a * b),
    "__rmul__": (lambda: [leaf(2, 3)], lambda a: 2.5 * a),
    "__truediv__": (lambda: [leaf(2, 3), positive(3)], lambda a, b: a / b),
    "__rtruediv__": (lambda: [positive(2, 3)], lambda a: 2.5 / a),
    "__pow__": (lambda: [positive(2, 3), leaf(3)], lambda a, b: a**b),
    "__pow__ number": (lambda: [positive(2, 3)], lambda a: a**2.5),
    "__rpow__": (lambda: [leaf(2, 3)], lambda a: 2.5**a),
    "__neg__": (lambda: [leaf(2, 3)], lambda a: -a),
    "__matmul__": (lambda: [leaf(2, 3), leaf(3, 4)], lambda a, b: a @ b),
    "__rmatmul__": (lambda: [leaf(3, 4)], lambda b: np.ones((2, 3), np.float32) @ b),
    "__getitem__": (lambda: [leaf(3, 4)], lambda a: a[1:, [0, 2]]),
    "matmul": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: a.matmul(b)),
    # elementwise
    "exp": (lambda: [leaf(2, 3)], lambda a: a.exp()),
    "log": (lambda: [positive(2, 3)], lambda a: a.log()),
    "sqrt": (lambda: [positive(2, 3)], lambda a: a.sqrt()),
    "tanh": (lambda: [leaf(2, 3)], lambda a: a.tanh()),
    "relu": (lambda: [leaf(2, 3)], lambda a: a.relu()),
    "sigmoid": (lambda: [leaf(2, 3)], lambda a: a.sigmoid()),
    "abs": (lambda: [leaf(2, 3)], lambda a: a.abs()),
    "masked_fill": (lambda: [leaf(2, 3)], lambda a: a.masked_fill(np.array([True, False, True]), -1.5)),
    "clamp": (lambda: [leaf(2, 3)], lambda a: a.clamp(-1.0, 1.0)),
    "clip": (lambda: [leaf(2, 3)], lambda a: a.clip(min=-0.5)),
    "softmax": (lambda: [leaf(2, 3, 4)], lambda a: a.softmax(1)),
    "log_softmax": (lambda: [leaf(2, 3, 4)], lambda a: a.log_softmax(dim=-1)),
    # PyTorch's named arithmetic
    "add": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: a.add(b)),
    "sub": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: a.sub(b)),
    "mul": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: a.mul(b)),
    "div": (lambda: [leaf(2, 3), positive(3)], lambda a, b: a.div(b)),
    "pow": (lambda: [positive(2, 3)], lambda a: a.pow(1.5)),
    "neg": (lambda: [leaf(2, 3)], lambda a: a.neg()),
    # reductions
    "sum": (lambda: [leaf(2, 3, 4)], lambda a: a.sum(axis=-1)),
    "mean": (lambda: [leaf(2, 3, 4)], lambda a: a.mean(axis=(0, 2))),
    "max": (lambda: [leaf(2, 3, 4)], lambda a: a.max()),  # max(dim) is (values, indices) in PyTorch
    "min": (lambda: [leaf(2, 3, 4)], lambda a: a.min()),
    "amax": (lambda: [leaf(2, 3, 4)], lambda a: a.amax(axis=(0, -1))),
    "amin": (lambda: [leaf(2, 3, 4)], lambda a: a.amin(dim=1, keepdim=True)),
    # shapes
    "reshape": (lambda: [leaf(2, 3, 4)], lambda a: a.reshape(4, -1)),
    "permute": (lambda: [leaf(2, 3, 4)], lambda a: a.permute(2, 0, 1)),
    "transpose": (lambda: [leaf(2, 3, 4)], lambda a: a.transpose(0, -1)),
    "T": (lambda: [leaf(2, 3, 4)], lambda a: a.T),
    "expand": (lambda: [leaf(3, 1)], lambda a: a.expand(2, 3, 4)),
    "broadcast_to": (lambda: [leaf(3)], lambda a: a.broadcast_to((2, 3))),
    "squeeze": (lambda: [leaf(2, 1, 3)], lambda a: a.squeeze(1)),
    "unsqueeze": (lambda: [leaf(2, 3)], lambda a: a.unsqueeze(-1)),
    "flatten": (lambda: [leaf(2, 3, 4)], lambda a: a.flatten(1)),
    "to": (lambda: [leaf(2, 3)], lambda a: a.to(np.float64).to(np.float32)),
    "view": (lambda: [leaf(2, 3, 4)], lambda a: a.view(4, -1)),
    "t": (lambda: [leaf(2, 3)], lambda a: a.t()),
    "tril": (lambda: [leaf(3, 4)], lambda a: a.tril()),
    "triu": (lambda: [leaf(3, 4)], lambda a: a.triu(1)),
    "gather": (lambda: [leaf(2, 3)], lambda a: a.gather(1, fw.tensor(np.array([[0, 2], [1, 1]])))),
    "clone": (lambda: [leaf(2, 3)], lambda a: a.clone()),
    "contiguous": (lambda: [leaf(2, 3)], lambda a: a.T.contiguous()),
    "cpu": (lambda: [leaf(2, 3)], lambda a: (a * 2).cpu()),
    # casts: a round trip through another float dtype comes back float32, gradient too
    "float": (lambda: [leaf(2, 3)], lambda a: a.float()),
    "double": (lambda: [leaf(2, 3)], lambda a: a.double().float()),
    "half": (lambda: [leaf(2, 3)], lambda a: a.half().float()),
    "type_as": (lambda: [leaf(2, 3)], lambda a: a.double().type_as(a)),
    "detach": (lambda: [leaf(2, 3)], lambda a: a * a.detach()),
    # framework's functions
    "maximum": (lambda: [leaf(2, 3), leaf(3)], fw.maximum),
    "minimum": (lambda: [leaf(2, 3), leaf(3)], fw.minimum),
    "where": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: fw.where(np.array([True, False, True]), a, b)),
    "concatenate": (lambda: [leaf(2, 3), leaf(2, 2)], lambda a, b: fw.concatenate([a, b], axis=-1)),
    "stack": (lambda: [leaf(2, 3), leaf(2, 3)], lambda a, b: fw.stack([a, b], axis=1)),
    "fw.matmul": (lambda: [leaf(2, 2, 3), leaf(3, 4)], fw.matmul),
    # nn.functional
    "F.relu": (lambda: [leaf(2, 3)], F.relu),
    "F.sigmoid": (lambda: [leaf(2, 3)], F.sigmoid),
    "F.tanh": (lambda: [leaf(2, 3)], F.tanh),
    "F.gelu": (lambda: [leaf(2, 3)], F.gelu),
    "F.linear": (lambda: [leaf(2, 5, 3), leaf(4, 3), leaf(4)], F.linear),
    "F.softmax": (lambda: [leaf(2, 3, 4)], lambda x: F.softmax(x, axis=1)),
    "F.log_softmax": (lambda: [leaf(2, 3, 4)], lambda x: F.log_softmax(x, axis=-1)),
    "F.cross_entropy": (lambda: [leaf(4, 3)], lambda x: F.cross_entropy(
        x, np.array([0, 2, -100, 1]), label_smoothing=0.1)),
    "F.mse_loss": (lambda: [leaf(2, 3), leaf(2, 3)], F.mse_loss),
    "F.l1_loss": (lambda: [leaf(2, 3), leaf(2, 3)], F.l1_loss),
    "F.nll_loss": (lambda: [leaf(4, 3)], lambda x: F.nll_loss(x, np.array([0, 2, 1, 1]))),
    "F.binary_cross_entropy": (
        lambda: [leaf(2, 3, low=0.1, high=0.9), leaf(2, 3, low=0.0, high=1.0)],
        F.binary_cross_entropy),
    "F.binary_cross_entropy_with_logits": (
        lambda: [leaf(2, 3), leaf(2, 3, low=0.0, high=1.0)], F.binary_cross_entropy_with_logits),
    "F.layer_norm": (lambda: [leaf(2, 3, 4), leaf(4), leaf(4)],
                     lambda x, w, b: F.layer_norm(x, 4, w, b)),
    "F.scaled_dot_product_attention": (
        lambda: [leaf(2, 3, 4), leaf(2, 5, 4), leaf(2, 5, 2)],
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, np.tri(3, 5, 1, dtype=bool))),
    "F.scaled_dot_product_attention float mask": (
        lambda: [leaf(2, 3, 4), leaf(2, 5, 4), leaf(2, 5, 2)],
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, np.zeros((3, 5)), is_causal=True)),
    "F.dropout": (lambda: [leaf(4, 5)], lambda x: F.dropout(x, 0.3)),
    "F.conv2d": (lambda: [image(2, 3, 5, 5), leaf(4, 3, 3, 3), leaf(4)],
                 lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1)),
    "F.max_pool2d": (lambda: [image(2, 3, 4, 4)], lambda x: F.max_pool2d(x, 2)),
    "F.avg_pool2d": (lambda: [image(2, 3, 4, 4)], lambda x: F.avg_pool2d(x, 2, 1)),
    # in-place ops on an op's result (x * 1), recorded in the graph (test_version_counters.py)
    "add_": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: (a * 1).add_(b)),
    "sub_": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: (a * 1).sub_(b)),
    "mul_": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: (a * 1).mul_(b)),
    "div_": (lambda: [leaf(2, 3), positive(3)], lambda a, b: (a * 1).div_(b)),
    "relu_": (lambda: [leaf(2, 3)], lambda a: (a * 1).relu_()),
    "clamp_": (lambda: [leaf(2, 3)], lambda a: (a * 1).clamp_(-0.5, 0.5)),
    "clip_": (lambda: [leaf(2, 3)], lambda a: (a * 1).clip_(max=0.5)),
    "masked_fill_": (lambda: [leaf(2, 3)], lambda a: (a * 1).masked_fill_(a.data > 0, 0.5)),
    "fill_": (lambda: [leaf(2, 3)], lambda a: (a * 1).fill_(0.5)),
    "zero_": (lambda: [leaf(2, 3)], lambda a: (a * 1).zero_()),
    "copy_": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: (a * 1).copy_(b)),
}

# public names that are not ops on float tensors, each with the test that covers it instead
NOT_FLOAT_OPS = {
    # comparisons, truth values and indices: bool or int64 results, no gradient (test below)
    "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__bool__", "any", "all",
    "argmax", "argmin",
    # casts to integer and bool dtypes: no gradient, as PyTorch (test_torch_surface.py)
    "bool", "int", "long",
    # the tensor's own state and protocol (test_tensor.py, test_autodiff.py)
    "data", "grad", "requires_grad", "parents", "grad_fn", "op", "label", "shape", "ndim", "size",
    "dtype", "item", "numpy", "requires_grad_", "receive_grad", "release", "backward",
    "dim", "numel", "is_leaf", "tolist", "device", "cuda",
    # functions of framework.nn.functional that are no op of their own: helpers and re-exports
    "F.stable_sigmoid", "F.unwrap", "F.accepts_dim",
}
TENSOR_DUNDER_OPS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                     "__truediv__", "__rtruediv__", "__pow__", "__rpow__", "__neg__",
                     "__matmul__", "__rmatmul__", "__getitem__", "__lt__", "__le__", "__gt__",
                     "__ge__", "__eq__", "__ne__", "__bool__")
FRAMEWORK_OPS = ("maximum", "minimum", "where", "concatenate", "stack", "matmul")


def public_ops() -> set[str]:
    """Every public op of Tensor, of framework's functions on tensors and of nn.functional."""
    names = {n for n in dir(Tensor) if not n.startswith("_")} | set(TENSOR_DUNDER_OPS)
    names |= {n if n != "matmul" else "fw.matmul" for n in FRAMEWORK_OPS}
    names |= {f"F.{n}" for n, f in vars(F).items()
              if inspect.isfunction(f) and not n.startswith("_")}
    return names


# PyTorch's extras (provided/math_ops.py, nn/functional_extra.py): test_pytorch_extras.py holds
# each to a float32 entry and a gradient check
EXTRAS = {n for n in vars(importlib.import_module("framework.provided.math_ops").MathMethods)
          if not n.startswith("_")}
EXTRAS |= {f"F.{n}" for n in ("leaky_relu", "silu", "dropout2d")}
EXTRAS |= {"F.smooth_l1_loss"}  # refused in our words: bonus 3.9's answer (test_pytorch_extras.py)
# PyTorch's families (provided/elementwise.py, logic.py, ...): test_op_families.py holds each to a
# float32 entry and a gradient check; loud.py's refusals are tested in test_loud.py
EXTRAS |= {n for module, mixin in (("elementwise", "ElementwiseMethods"), ("logic", "LogicMethods"),
                                   ("selection", "SelectionMethods"), ("indexing", "IndexingMethods"),
                                   ("random_ops", "RandomMethods"), ("loud", "LoudMethods"))
           for n in vars(getattr(importlib.import_module(f"framework.provided.{module}"), mixin))
           if not n.startswith("_")}
EXTRAS |= {f"F.{n}" for module in ("functional_activation", "functional_loss_extra")
           for n in importlib.import_module(f"framework.nn.{module}").NAMES}


def test_every_public_op_has_a_dtype_entry():
    """A new op without an entry in FLOAT32_OPS (or a reason in NOT_FLOAT_OPS) fails here."""
    covered = {name.split(" ")[0] for name in FLOAT32_OPS} | NOT_FLOAT_OPS | EXTRAS
    assert not public_ops() - covered, f"ops without a dtype entry: {sorted(public_ops() - covered)}"
    unknown = NOT_FLOAT_OPS - public_ops()
    assert not unknown, f"NOT_FLOAT_OPS names that are no public op (any more): {sorted(unknown)}"


@pytest.mark.parametrize("name", sorted(FLOAT32_OPS))
def test_float32_inputs_give_float32_outputs_and_gradients(name):
    make_inputs, op = FLOAT32_OPS[name]
    fw.manual_seed(0)
    inputs = make_inputs()
    out = op(*inputs)
    assert out.dtype == np.float32, f"{name}: float32 inputs gave a {out.dtype} output"
    out.backward(np.linspace(-1, 1, out.data.size, dtype=np.float32).reshape(out.shape))
    for i, x in enumerate(inputs):
        assert x.grad is not None, f"{name}: input {i} got no gradient"
        assert x.grad.dtype == np.float32, f"{name}: input {i}'s gradient is {x.grad.dtype}"


def test_the_embedding_weight_gets_a_float32_gradient():
    embedding = nn.Embedding(5, 3, padding_idx=0)
    out = embedding(np.array([[0, 4, 4]]))
    out.backward(np.ones(out.shape, dtype=np.float32))
    assert out.dtype == np.float32 and embedding.weight.grad.dtype == np.float32


def test_comparisons_truth_values_and_indices_have_their_own_dtypes():
    x, y = leaf(2, 3), leaf(2, 3)
    for out in (x < y, x <= 0.5, x > y, x >= y, x == y, x != 0.5, (x > 0).any(), (x > 0).all()):
        assert out.dtype == np.bool_ and not out.requires_grad
    for out in (x.argmax(), x.argmin(axis=1)):
        assert out.dtype == np.int64 and not out.requires_grad


# -- truth values, as in PyTorch ------------------------------------------------------------------


def test_the_truth_value_of_a_one_element_tensor_is_its_element():
    assert not Tensor([0.0]) and not Tensor(0.0) and Tensor([[2.0]]) and not Tensor([False])
    assert bool(Tensor(np.array([-1.0])))


def test_the_truth_value_of_a_tensor_of_several_elements_is_an_error_suggesting_any_or_all():
    with pytest.raises(RuntimeError, match=r"bool: the truth value of a tensor of shape \(2, 3\) "
                       r"\(6 elements\) is ambiguous; use \.any\(\) or \.all\(\)"):
        bool(Tensor(np.ones((2, 3))))
    with pytest.raises(RuntimeError, match=r"shape \(0,\) \(0 elements\)"):
        bool(Tensor(np.ones(0)))
    assert (Tensor([0.0, 1.0]) > 0.5).any() and not (Tensor([0.0, 1.0]) > 0.5).all()


# -- clamp at its bounds: the gradient passes, as in PyTorch ------------------------------------------
# PyTorch's clamp_backward keeps the gradient where min <= x <= max (the subgradient 1 at a
# bound), and the drawn inputs of the gradient checks never sit on a bound; these do.

ops = importlib.import_module("framework.ops")
AT_BOUNDS = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])  # below, at -0.5, between, at 0.5, above
COTANGENT = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
# name → (min, max, forward of AT_BOUNDS, gradient of AT_BOUNDS for COTANGENT)
CLAMP_BOUNDS = {
    "min and max": (-0.5, 0.5, [-0.5, -0.5, 0.0, 0.5, 0.5], [0.0, 2.0, 3.0, 4.0, 0.0]),
    "min only": (-0.5, None, [-0.5, -0.5, 0.0, 0.5, 1.0], [0.0, 2.0, 3.0, 4.0, 5.0]),
    "max only": (None, 0.5, [-1.0, -0.5, 0.0, 0.5, 0.5], [1.0, 2.0, 3.0, 4.0, 0.0]),
    "min == max": (0.5, 0.5, [0.5, 0.5, 0.5, 0.5, 0.5], [0.0, 0.0, 0.0, 4.0, 0.0]),
}
# every public way to clamp: each must be Clamp, so each gets its gradient at the bounds
CLAMP_CALLS = {
    "Tensor.clamp": lambda x, low, high: x.clamp(low, high),
    "Tensor.clip": lambda x, low, high: x.clip(min=low, max=high),
    "framework.clamp": lambda x, low, high: fw.clamp(x, min=low, max=high),
    "framework.clip": lambda x, low, high: fw.clip(x, low, high),
}


def assert_gradient_passes_at_the_bounds(call: str, bounds: str, dtype=np.float64) -> None:
    low, high, forward, gradient = CLAMP_BOUNDS[bounds]
    x = Tensor(AT_BOUNDS.astype(dtype), requires_grad=True)
    out = CLAMP_CALLS[call](x, low, high)
    out.backward(COTANGENT.astype(dtype))
    what = f"{call}(x, min={low}, max={high}) of x = {AT_BOUNDS.tolist()} ({np.dtype(dtype)})"
    np.testing.assert_array_equal(out.data, np.array(forward, dtype=dtype), err_msg=what)
    np.testing.assert_array_equal(
        x.grad, np.array(gradient, dtype=dtype),
        err_msg=f"{what}, cotangent {COTANGENT.tolist()}: clamp's gradient at its bounds (x == "
                "min or x == max) is the cotangent, as PyTorch's, and 0 only strictly outside")


@pytest.mark.parametrize("bounds", sorted(CLAMP_BOUNDS))
@pytest.mark.parametrize("call", sorted(CLAMP_CALLS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_clamp_passes_the_gradient_where_the_input_equals_a_bound(call, bounds, dtype):
    assert_gradient_passes_at_the_bounds(call, bounds, dtype)


def test_clamp_compares_a_float32_input_with_its_bounds_in_float32():
    """float32(0.1) is 0.1 for a float32 tensor, as in PyTorch (bounds take the tensor's dtype):
    the gradient passes at min=0.1 and at max=0.1, though 0.1 has no exact binary value."""
    for low, high, expected in ((0.1, None, [0.0, 3.0]), (None, 0.1, [2.0, 3.0]),
                                (-0.1, 0.1, [2.0, 3.0])):
        x = Tensor(np.array([-0.1, 0.1], dtype=np.float32), requires_grad=True)
        x.clamp(low, high).backward(np.array([2.0, 3.0], dtype=np.float32))
        np.testing.assert_array_equal(x.grad, np.array(expected, dtype=np.float32),
                                      err_msg=f"clamp(min={low}, max={high}) of float32 [-0.1, 0.1]")


def strict_backward(ctx, grad):
    """The planted bug: Clamp's backward with strict inequalities, 0 at the bounds."""
    (a,) = ctx.saved_tensors
    inside = np.ones(a.shape, dtype=bool)
    if ctx.low is not None:
        inside &= a > ctx.low
    if ctx.high is not None:
        inside &= a < ctx.high
    return (grad * inside,)


@pytest.mark.parametrize("bounds", sorted(CLAMP_BOUNDS))
@pytest.mark.parametrize("call", sorted(CLAMP_CALLS))
def test_the_bound_tests_fail_a_clamp_whose_gradient_stops_at_the_bounds(call, bounds, monkeypatch):
    """With strict inequalities planted in Clamp.backward, every way to clamp (so each goes
    through Clamp) fails the tests above, for every choice of bounds, both dtypes."""
    monkeypatch.setattr(ops.Clamp, "backward", staticmethod(strict_backward))
    for dtype in (np.float64, np.float32):
        with pytest.raises(AssertionError, match="gradient at its bounds"):
            assert_gradient_passes_at_the_bounds(call, bounds, dtype)


def test_the_float32_bound_test_fails_a_clamp_whose_gradient_stops_at_the_bounds(monkeypatch):
    monkeypatch.setattr(ops.Clamp, "backward", staticmethod(strict_backward))
    with pytest.raises(AssertionError, match=r"clamp\(min=0.1, max=None\) of float32"):
        test_clamp_compares_a_float32_input_with_its_bounds_in_float32()


# -- (b) float64 gradient checks on drawn inputs, every provided op ---------------------------------

small_shapes = array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)


def drawn(data, shape, low=-2.0, high=2.0, offset=0.001):
    """A float64 array of the shape: distinct values on a grid of 0.01 shifted by `offset`, so no
    two tie and none sits on a kink at 0 (the central differences step 1e-6)."""
    grid = st.integers(int(low * 100), int(high * 100) - 1).map(lambda k: k / 100 + offset)
    return data.draw(arrays(np.float64, shape, elements=grid, unique=True))


# name → a function of the drawn data giving (op, inputs)
GRADIENT_CASES = {
    "sub, broadcast": lambda d: (lambda a, b: a - b, [drawn(d, (3, 1)), drawn(d, (2, 1, 4))]),
    "neg": lambda d: (lambda a: -a, [drawn(d, d.draw(small_shapes))]),
    "sqrt": lambda d: (lambda a: a.sqrt(), [drawn(d, d.draw(small_shapes), 0.3, 3.0)]),
    "abs": lambda d: (lambda a: a.abs(), [drawn(d, d.draw(small_shapes), offset=0.005)]),
    "maximum, broadcast": lambda d: (fw.maximum, pair_apart(d)),
    "minimum, broadcast": lambda d: (fw.minimum, pair_apart(d)),
    "where, broadcast": lambda d: (lambda a, b: fw.where(np.array([[True], [False], [True]]), a, b),
                                   [drawn(d, (1, 4)), drawn(d, (3, 4))]),
    "masked_fill": lambda d: (lambda a: a.masked_fill(np.array([True, False, False, True]), -1.0),
                              [drawn(d, (2, 3, 4))]),
    "expand": lambda d: (lambda a: a.expand(2, 3, 4), [drawn(d, (3, 1))]),
    "broadcast_to": lambda d: (lambda a: a.broadcast_to((2, 2, 3)), [drawn(d, (1, 3))]),
    "min, all": lambda d: (lambda a: a.min(), [drawn(d, d.draw(small_shapes))]),
    "gelu": lambda d: (F.gelu, [drawn(d, d.draw(small_shapes))]),
    "dropout (one draw of the mask)": lambda d: (seeded_dropout(d.draw(st.integers(0, 99))),
                                                 [drawn(d, (3, 4))]),
    "embedding": lambda d: (embedding_of(d.draw(arrays(np.int64, (2, 3), elements=st.integers(0, 4)))),
                            [drawn(d, (5, 2))]),
    "attention weights path (need_weights)": lambda d: (attention_of(training=False),
                                                        [drawn(d, (2, 3, 4))]),
    "attention with dropout on its weights": lambda d: (attention_of(training=True),
                                                        [drawn(d, (2, 3, 4))]),
    "concatenate, negative axis": lambda d: (lambda a, b: fw.concatenate([a, b], axis=-2),
                                             [drawn(d, (2, 1, 3)), drawn(d, (2, 2, 3))]),
    "stack, negative axis": lambda d: (lambda a, b: fw.stack([a, b], axis=-2),
                                       [drawn(d, (2, 3, 2)), drawn(d, (2, 3, 2))]),
}


def pair_apart(data):
    """Two arrays on grids 0.005 apart: maximum and minimum never see a tie."""
    return [drawn(data, (3, 1)), drawn(data, (2, 1, 4), offset=0.006)]


def seeded_dropout(seed):
    def op(x):
        fw.manual_seed(seed)  # the same mask for every evaluation of the central differences
        return F.dropout(x, 0.4)

    return op


def embedding_of(ids):
    def op(weight):
        return nn.sparse.EmbeddingFunction.apply(weight, ids)

    return op


def attention_of(training: bool):
    """Self-attention through MultiheadAttention.attend's provided path: the weights computed
    as attention to one-hot values, then (training) dropout on them, then times V."""
    fw.manual_seed(3)
    attention = nn.MultiheadAttention(4, 2, dropout=0.3).to(np.float64).train(training)

    def op(x):
        fw.manual_seed(7)  # the same dropout mask for every evaluation
        return attention(x, x, x, need_weights=not training)[0]

    return op


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_provided_op_gradients_match_central_differences(name, data, seed):
    op, inputs = GRADIENT_CASES[name](data)
    assert fw.gradcheck(op, *inputs, seed=seed)


@given(data=st.data(), seed=st.integers(0, 2**16), block=st.integers(1, 5))
def test_gelu_block_by_block_matches_central_differences(data, seed, block):
    """GELU works through blocks of GELU_BLOCK elements; blocks of 1 to 5 (a short last one
    included) give the gradients central differences give."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(F, "GELU_BLOCK", block)
        assert fw.gradcheck(F.gelu, drawn(data, data.draw(small_shapes)), seed=seed)


def test_gelu_block_by_block_computes_the_whole_arrays_numbers():
    x = leaf(4, 7)
    whole = F.gelu(x)
    whole.backward(np.linspace(-1, 1, 28, dtype=np.float32).reshape(4, 7))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(F, "GELU_BLOCK", 5)
        x_blocks = Tensor(x.data.copy(), requires_grad=True)
        blocks = F.gelu(x_blocks)
        blocks.backward(np.linspace(-1, 1, 28, dtype=np.float32).reshape(4, 7))
    assert np.array_equal(blocks.data, whole.data) and np.array_equal(x_blocks.grad, x.grad)


# -- (c) every public shape op against NumPy, on 3-D and larger inputs, any axis ---------------------

big_shapes = array_shapes(min_dims=3, max_dims=5, min_side=1, max_side=3)


def numbered(shape):
    """float64 values 0, 1, 2, … in the shape: every element distinguishable."""
    return np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)


def same_as_numpy(got: Tensor, expected: np.ndarray, x: Tensor, what: str):
    """Forward equal to NumPy's; backward of a shape op sends every element's gradient home."""
    np.testing.assert_array_equal(got.data, expected, err_msg=what)
    cotangent = numbered(expected.shape) + 0.5
    got.backward(cotangent)
    return x.grad


@given(shape=big_shapes, data=st.data())
def test_stack_matches_numpy_along_any_axis(shape, data):
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    arrays_ = [numbered(shape) + 100 * i for i in range(3)]
    tensors = [Tensor(a, requires_grad=True) for a in arrays_]
    out = fw.stack(tensors, axis=axis)
    np.testing.assert_array_equal(out.data, np.stack(arrays_, axis=axis))
    cotangent = numbered(out.shape)
    out.backward(cotangent)
    for i, t in enumerate(tensors):
        np.testing.assert_array_equal(t.grad, np.take(cotangent, i, axis=axis))


@given(shapes=big_shapes.flatmap(lambda s: st.tuples(st.just(s), st.integers(1, 3))), data=st.data())
def test_concatenate_matches_numpy_along_any_axis(shapes, data):
    shape, extra = shapes
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    other = list(shape)
    other[axis] = extra
    a, b = numbered(shape), numbered(tuple(other)) + 1000
    ta, tb = Tensor(a, requires_grad=True), Tensor(b, requires_grad=True)
    out = fw.concatenate([ta, tb], axis=axis)
    np.testing.assert_array_equal(out.data, np.concatenate([a, b], axis=axis))
    cotangent = numbered(out.shape)
    out.backward(cotangent)
    first, second = np.split(cotangent, [shape[axis]], axis=axis)
    np.testing.assert_array_equal(ta.grad, first)
    np.testing.assert_array_equal(tb.grad, second)


@given(shape=big_shapes, data=st.data())
def test_unsqueeze_matches_numpy_expand_dims_at_any_axis(shape, data):
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    x = Tensor(numbered(shape), requires_grad=True)
    expected = np.expand_dims(x.data, axis)
    grad = same_as_numpy(x.unsqueeze(axis), expected, x, f"unsqueeze({axis}) of {shape}")
    np.testing.assert_array_equal(grad, (numbered(expected.shape) + 0.5).reshape(shape))


@given(shape=big_shapes, data=st.data())
def test_squeeze_matches_numpy_at_any_axis_of_size_one(shape, data):
    ones = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=2, unique=True))
    shape = tuple(1 if i in ones else n for i, n in enumerate(shape))
    axis = data.draw(st.sampled_from([a - len(shape) for a in ones] + ones))
    x = Tensor(numbered(shape), requires_grad=True)
    expected = np.squeeze(x.data, axis)
    grad = same_as_numpy(x.squeeze(axis), expected, x, f"squeeze({axis}) of {shape}")
    np.testing.assert_array_equal(grad, (numbered(expected.shape) + 0.5).reshape(shape))
    np.testing.assert_array_equal(x.squeeze().data, np.squeeze(x.data))


@given(shape=big_shapes, data=st.data())
def test_transpose_matches_numpy_swapaxes_for_any_pair_of_axes(shape, data):
    n = len(shape)
    axis0, axis1 = data.draw(st.integers(-n, n - 1)), data.draw(st.integers(-n, n - 1))
    x = Tensor(numbered(shape), requires_grad=True)
    expected = np.swapaxes(x.data, axis0, axis1)
    grad = same_as_numpy(x.transpose(axis0, axis1), expected, x, f"transpose({axis0}, {axis1})")
    np.testing.assert_array_equal(grad, np.swapaxes(numbered(expected.shape) + 0.5, axis0, axis1))


@given(shape=big_shapes, data=st.data())
def test_permute_matches_numpy_transpose_with_negative_axes(shape, data):
    n = len(shape)
    order = data.draw(st.permutations(range(n)))
    written = [a - n if data.draw(st.booleans()) else a for a in order]
    x = Tensor(numbered(shape), requires_grad=True)
    expected = np.transpose(x.data, order)
    grad = same_as_numpy(x.permute(*written), expected, x, f"permute{tuple(written)}")
    np.testing.assert_array_equal(grad, np.transpose(numbered(expected.shape) + 0.5,
                                                     np.argsort(order)))
    np.testing.assert_array_equal(x.T.data, x.data.T)


@given(shape=big_shapes, data=st.data())
def test_reshape_and_flatten_match_numpy(shape, data):
    x = Tensor(numbered(shape), requires_grad=True)
    split = data.draw(st.integers(0, len(shape)))
    target = (int(np.prod(shape[:split])), -1)
    grad = same_as_numpy(x.reshape(target), x.data.reshape(target), x, f"reshape{target}")
    np.testing.assert_array_equal(grad, (numbered(x.data.reshape(target).shape) + 0.5).reshape(shape))
    start = data.draw(st.integers(-len(shape), len(shape) - 1))
    np.testing.assert_array_equal(x.flatten(start).data,
                                  x.data.reshape(shape[:start % len(shape)] + (-1,)))


@given(shape=big_shapes, data=st.data())
def test_expand_and_broadcast_to_match_numpy_broadcast_to(shape, data):
    ones = data.draw(st.lists(st.integers(0, len(shape) - 1), max_size=len(shape), unique=True))
    small = tuple(1 if i in ones else n for i, n in enumerate(shape))
    target = (2,) + shape
    x = Tensor(numbered(small), requires_grad=True)
    out = x.expand(*target) if data.draw(st.booleans()) else x.broadcast_to(target)
    np.testing.assert_array_equal(out.data, np.broadcast_to(x.data, target))
    cotangent = numbered(target)
    out.backward(cotangent)
    summed = cotangent.sum(axis=(0, *[i + 1 for i in ones]), keepdims=True)[0]
    np.testing.assert_array_equal(x.grad, summed)


@given(shape=big_shapes, data=st.data())
def test_sum_mean_and_indexing_along_negative_axes_match_numpy(shape, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = Tensor(numbered(shape))
    for name in ("sum", "mean"):
        np.testing.assert_array_equal(getattr(x, name)(axis=axis).data,
                                      getattr(x.data, name)(axis=axis), err_msg=name)
    index = (Ellipsis, data.draw(st.integers(-shape[-1], shape[-1] - 1)))
    np.testing.assert_array_equal(x[index].data, x.data[index])


# -- (d) state: no_grad, train/eval, dropout inside attention --------------------------------------


@pytest.fixture(autouse=True)
def grad_enabled_again():
    """A no_grad bug fails its own test only: each test ends with recording switched back on."""
    yield
    autodiff._grad_state.enabled = True


def grad_recorded() -> bool:
    return (Tensor([1.0], requires_grad=True) * 2.0).requires_grad


def test_no_grad_inside_no_grad_restores_the_outer_setting_at_each_exit():
    with fw.no_grad():
        with fw.no_grad():
            assert not fw.is_grad_enabled() and not grad_recorded()
        assert not fw.is_grad_enabled() and not grad_recorded()
    assert fw.is_grad_enabled() and grad_recorded()


def test_one_no_grad_instance_entered_inside_itself_restores_grad_at_the_end():
    context = fw.no_grad()
    with context:
        with context:
            pass
        assert not fw.is_grad_enabled()
    assert fw.is_grad_enabled()


def test_no_grad_restores_the_setting_after_an_exception():
    with pytest.raises(ZeroDivisionError):
        with fw.no_grad():
            with fw.no_grad():
                raise ZeroDivisionError("inside")
    assert fw.is_grad_enabled() and grad_recorded()


def test_no_grad_as_a_decorator_restores_the_setting_and_keeps_the_function_name():
    @fw.no_grad()
    def double(x):
        """Twice x."""
        assert not fw.is_grad_enabled()
        return x * 2.0

    @fw.no_grad()
    def fail():
        raise KeyError("inside")

    assert not double(Tensor([1.0], requires_grad=True)).requires_grad
    assert double.__name__ == "double" and double.__doc__ == "Twice x."
    with pytest.raises(KeyError):
        fail()
    assert fw.is_grad_enabled()
    with fw.no_grad():
        double(Tensor([1.0]))
        assert not fw.is_grad_enabled()
    assert fw.is_grad_enabled()


def in_a_thread(function):
    """function() run in a new thread; what it returned (or raised, raised here)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(function).result()


def test_no_grad_in_one_thread_leaves_another_thread_recording():
    with fw.no_grad():
        assert in_a_thread(lambda: fw.is_grad_enabled() and grad_recorded())
        assert not grad_recorded()


def test_no_grad_in_another_thread_leaves_this_thread_recording():
    def evaluate():
        with fw.no_grad():
            time.sleep(0.05)  # this thread checks while the other is still inside
            return not grad_recorded()

    with ThreadPoolExecutor(1) as pool:
        inside = pool.submit(evaluate)
        time.sleep(0.01)
        assert fw.is_grad_enabled() and grad_recorded()
        assert inside.result()


def test_a_no_grad_function_left_by_two_threads_in_either_order_restores_each_setting():
    """Each call of a decorated function restores its own thread's setting, not the last
    entry's: thread 1 (recording) enters, thread 2 (not recording) enters, thread 1 leaves."""
    entered, left_first = threading.Barrier(2), threading.Event()

    @fw.no_grad()
    def inside(leave_first: bool):
        entered.wait(timeout=5)
        if not leave_first:
            left_first.wait(timeout=5)

    def first():
        inside(True)
        left_first.set()
        return fw.is_grad_enabled()

    def second():
        with fw.set_grad_enabled(False):
            inside(False)
            return fw.is_grad_enabled()

    with ThreadPoolExecutor(2) as pool:
        recording, second_setting = pool.submit(first), pool.submit(second)
        assert recording.result() is True and second_setting.result() is False


def small_transformer(dropout=0.0):
    fw.manual_seed(0)
    return nn.Transformer(6, 6, d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                          dim_feedforward=16, dropout=dropout, padding_idx=0)


SRC = np.array([[3, 4, 5, 0], [2, 3, 0, 0]])


@pytest.mark.parametrize("method", ["generate", "cross_attention_weights"])
@pytest.mark.parametrize("mode", ["train", "eval", "mixed"])
def test_a_method_that_switches_to_eval_restores_every_modules_mode(method, mode):
    model = small_transformer(dropout=0.3)
    model.train(mode == "train")
    if mode == "mixed":
        model.encoder.eval()
        model.decoder.layers[0].dropout.eval()
    before = [(name, m.training) for name, m in model.named_modules()]
    if method == "generate":
        model.generate(SRC, bos_id=1, eos_id=2, max_len=3)
    else:
        model.cross_attention_weights(SRC, np.array([[1, 3], [1, 4]]))
    assert [(name, m.training) for name, m in model.named_modules()] == before
    assert fw.is_grad_enabled()


def test_generate_restores_the_mode_after_an_error():
    model = small_transformer(dropout=0.3).train()
    with pytest.raises(IndexError):
        model.generate(np.array([[9, 9]]), bos_id=1, eos_id=2, max_len=3)  # 9 is no source token
    assert all(m.training for m in model.modules()) and fw.is_grad_enabled()


@pytest.mark.parametrize("max_len", [-3, 2.5, None, True])
def test_generate_refuses_a_max_len_that_is_not_a_count_of_tokens(max_len):
    with pytest.raises(ValueError, match=rf"generate: max_len={max_len!r} must be a number of "
                       r"tokens, an int >= 0"):
        small_transformer().generate(SRC, bos_id=1, eos_id=2, max_len=max_len)


def test_generate_with_max_len_0_gives_no_tokens():
    assert small_transformer().generate(SRC, bos_id=1, eos_id=2, max_len=0).shape == (2, 0)


def test_seq2seq_loss_uses_an_explicit_all_false_source_mask():
    """All False = attend to every source position, padding id included: not the default mask."""
    model = small_transformer()
    tgt_out = np.array([[3, 4, 2], [5, 2, 0]])
    loss = nn.transformer.seq2seq_loss
    explicit = loss(model, SRC, tgt_out, bos_id=1, pad_id=0,
                    src_key_padding_mask=np.zeros(SRC.shape, dtype=bool)).item()
    default = loss(model, SRC, tgt_out, bos_id=1, pad_id=0).item()
    tgt_in = nn.transformer.shift_right(tgt_out, 1)
    logits = model(SRC, tgt_in, src_key_padding_mask=np.zeros(SRC.shape, dtype=bool),
                   tgt_key_padding_mask=tgt_in == 0)
    unmasked = F.cross_entropy(logits.reshape(-1, 6), tgt_out.reshape(-1), ignore_index=0).item()
    assert explicit == pytest.approx(unmasked, rel=1e-6) and explicit != pytest.approx(default)


def test_seq2seq_loss_of_a_target_of_padding_only_is_nan_as_in_pytorch():
    """No token to average over: PyTorch's mean cross-entropy over zero targets is NaN too."""
    loss = nn.transformer.seq2seq_loss(small_transformer(), SRC, np.zeros((2, 3), dtype=np.int64),
                                       bos_id=1, pad_id=0)
    assert np.isnan(loss.item())


def test_attention_dropout_zeroes_attention_weights_after_the_softmax():
    """With V = [I | 1] and identity projections, the output row is [dropout(P) | Σ dropout(P)]:
    each weight kept (scaled by 1/(1-p)) or zeroed, and the last column their sum."""
    p, keys = 0.5, 3
    fw.manual_seed(1)
    attention = nn.MultiheadAttention(keys + 1, 1, dropout=p, batch_first=True)
    for proj in (attention.v_proj, attention.out_proj):
        proj.weight.data[...] = np.eye(keys + 1)
        proj.bias.data[...] = 0.0
    query = Tensor(np.random.default_rng(0).standard_normal((8, 5, keys + 1)).astype(np.float32))
    key = Tensor(np.random.default_rng(1).standard_normal((8, keys, keys + 1)).astype(np.float32))
    value = Tensor(np.broadcast_to(np.hstack([np.eye(keys), np.ones((keys, 1))]),
                                   (8, keys, keys + 1)).astype(np.float32))
    _, weights = attention.eval()(query, key, value, need_weights=True)
    out, _ = attention.train()(query, key, value)
    kept, summed = out.data[..., :keys], out.data[..., keys]
    scaled = weights.data / (1 - p)
    assert np.all(np.isclose(kept, 0) | np.isclose(kept, scaled, rtol=1e-5)), (
        "each attention weight is either dropped or scaled by 1/(1-p), after the softmax")
    np.testing.assert_allclose(summed, kept.sum(axis=-1), rtol=1e-5, atol=1e-6)
    assert np.isclose(kept, 0).mean() == pytest.approx(p, abs=0.15)


# -- row_max: NumPy's max along the last axis, by another road for short rows ----------------------

row_max = importlib.import_module("framework.provided.reductions").row_max


@given(x=arrays(st.sampled_from([np.float32, np.float64]),
                array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=70),
                elements=st.floats(-1e4, 1e4, width=32) | st.sampled_from([np.inf, -np.inf])))
def test_row_max_equals_numpys_max_along_the_last_axis(x):
    """The same numbers, shape (keepdims) and dtype as x.max(axis=-1, keepdims=True), for rows
    shorter and longer than SHORT_ROW, infinities included."""
    expected = x.max(axis=-1, keepdims=True)
    got = row_max(x)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_row_max_propagates_nan_as_numpy_does():
    x = np.array([[1.0, np.nan, 2.0], [np.inf, -np.inf, 0.0]])
    np.testing.assert_array_equal(row_max(x), x.max(axis=-1, keepdims=True))
