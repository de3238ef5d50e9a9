"""Provided parts of chapter 2 (the reference): the ops learners do not write, dtypes, messages."""

import importlib
import re

import numpy as np
import pytest

from checks.loader import impl_folder, load_framework

fw = load_framework("solutions")
Tensor = fw.Tensor


def spaced(*shape, low=-2.0, high=2.0, shift=0.0):
    """Distinct values, shuffled, no two closer than the finite-difference step could notice."""
    size = int(np.prod(shape))
    values = np.linspace(low, high, size) + shift
    return np.random.default_rng(size).permutation(values).reshape(shape)


# -- provided ops, gradient-checked (float64, random cotangent, central differences) ------

GRADCHECKED = {
    "sub, broadcast": (lambda a, b: a - b, [spaced(3, 1), spaced(1, 4)]),
    "sub, a number on the left": (lambda a: 2.0 - a, [spaced(2, 3)]),
    "neg": (lambda a: -a, [spaced(2, 3)]),
    "sqrt": (lambda a: a.sqrt(), [spaced(2, 3, low=0.5, high=3.0)]),
    "abs": (lambda a: a.abs(), [spaced(2, 3, shift=0.05)]),
    "maximum, broadcast": (fw.maximum, [spaced(3, 1), spaced(1, 4, shift=0.1)]),
    "minimum, broadcast": (fw.minimum, [spaced(3, 1), spaced(1, 4, shift=0.1)]),
    "where, broadcast": (
        lambda a, b: fw.where(np.array([[True], [False], [True]]), a, b),
        [spaced(1, 4), spaced(3, 4)],
    ),
    "masked_fill": (lambda a: a.masked_fill(np.array([True, False, False, True]), -1.0),
                    [spaced(3, 4)]),
    "expand": (lambda a: a.expand(2, 3, 4), [spaced(3, 1)]),
    "broadcast_to": (lambda a: a.broadcast_to((2, 3)), [spaced(3)]),
    "squeeze(1)": (lambda a: a.squeeze(1), [spaced(2, 1, 3)]),
    "squeeze()": (lambda a: a.squeeze(), [spaced(1, 3, 1)]),
    "unsqueeze(0)": (lambda a: a.unsqueeze(0), [spaced(2, 3)]),
    "unsqueeze(-1)": (lambda a: a.unsqueeze(-1), [spaced(2, 3)]),
    "flatten()": (lambda a: a.flatten(), [spaced(2, 3, 2)]),
    "flatten(1)": (lambda a: a.flatten(1), [spaced(2, 3, 2)]),
    "transpose(0, 2)": (lambda a: a.transpose(0, 2), [spaced(2, 3, 4)]),
    ".T": (lambda a: a.T, [spaced(2, 3, 4)]),
    "concatenate, axis 0": (lambda a, b: fw.concatenate([a, b]), [spaced(2, 3), spaced(1, 3)]),
    "concatenate, axis -1": (lambda a, b, c: fw.concatenate([a, b, c], axis=-1),
                             [spaced(2, 1), spaced(2, 3), spaced(2, 2)]),
    "stack, axis 0": (lambda a, b: fw.stack([a, b]), [spaced(2, 3), spaced(2, 3, shift=0.1)]),
    "stack, axis 1": (lambda a, b: fw.stack([a, b], axis=1), [spaced(2, 3), spaced(2, 3)]),
    "amin, axis 1": (lambda a: a.amin(axis=1), [spaced(3, 4)]),
    "min, all": (lambda a: a.min(), [spaced(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKED))
def test_provided_op_gradients(name):
    fn, inputs = GRADCHECKED[name]
    assert fw.gradcheck(fn, *inputs, seed=len(name))


def test_provided_op_values_match_numpy():
    a, b = spaced(3, 1), spaced(1, 4, shift=0.1)
    cases = [
        (Tensor(a) - Tensor(b), a - b),
        (fw.maximum(Tensor(a), Tensor(b)), np.maximum(a, b)),
        (fw.minimum(Tensor(a), Tensor(b)), np.minimum(a, b)),
        (Tensor(spaced(2, 3)).abs(), np.abs(spaced(2, 3))),
        (fw.where(np.array([True, False, True, False]), Tensor(a), Tensor(b)),
         np.where([True, False, True, False], a, b)),
        (Tensor(spaced(3, 4)).amin(axis=0), spaced(3, 4).min(axis=0)),
        (fw.stack([Tensor(a), Tensor(a)], axis=-1), np.stack([a, a], axis=-1)),
        (Tensor(spaced(2, 1, 3)).squeeze(), spaced(2, 1, 3).squeeze()),
    ]
    for got, expected in cases:
        assert got.shape == expected.shape and np.allclose(got.data, expected)


def test_maximum_and_minimum_split_ties_equally():
    a = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = Tensor([1.0, 5.0, 3.0], requires_grad=True)
    fw.maximum(a, b).backward(np.array([2.0, 2.0, 4.0]))
    assert np.allclose(a.grad, [1.0, 0.0, 2.0]) and np.allclose(b.grad, [1.0, 2.0, 2.0])
    c = Tensor([1.0, 2.0], requires_grad=True)
    fw.minimum(c, Tensor([1.0, 0.0])).backward(np.array([1.0, 1.0]))
    assert np.allclose(c.grad, [0.5, 0.0])


def test_amin_splits_ties_equally():
    x = Tensor([[2.0, 1.0, 1.0], [0.0, 3.0, 0.0]], requires_grad=True)
    x.amin(axis=1).backward(np.array([1.0, 4.0]))
    assert np.allclose(x.grad, [[0.0, 0.5, 0.5], [2.0, 0.0, 2.0]])


def test_cast_converts_the_gradient_back():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = x.to(np.float32)
    assert y.dtype == np.float32 and x.to(np.float64) is x
    (y * 3.0).backward(np.ones(2, dtype=np.float32))
    assert x.grad.dtype == np.float64 and np.allclose(x.grad, [3.0, 3.0])


def test_comparisons_give_bool_tensors_without_gradient():
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = Tensor([3.0, 2.0, 1.0])
    results = {
        "<": (x < y, [True, False, False]), "<=": (x <= 2.0, [True, True, False]),
        ">": (x > y, [False, False, True]), ">=": (x >= y, [False, True, True]),
        "==": (x == y, [False, True, False]), "!=": (x != 2.0, [True, False, True]),
    }
    for name, (got, expected) in results.items():
        assert got.dtype == np.bool_ and not got.requires_grad and got.parents == (), name
        assert got.data.tolist() == expected, name


def test_argmax_and_argmin_give_indices_without_gradient():
    x = Tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], requires_grad=True)
    assert x.argmax().item() == 3 and x.argmin().item() == 4
    assert x.argmax(axis=1).data.tolist() == [1, 0] and x.argmin(axis=0).data.tolist() == [0, 1, 0]
    assert x.argmax(axis=1).dtype == np.int64 and not x.argmax(axis=1).requires_grad


def test_an_array_on_the_left_gives_a_tensor():
    x = Tensor([1.0, 2.0], requires_grad=True)
    for out in (np.array([1.0, 1.0]) + x, np.array([2.0, 2.0]) * x, np.ones((3, 2)) @ x):
        assert isinstance(out, Tensor) and out.requires_grad


# -- dtypes --------------------------------------------------------------------------------


def test_python_numbers_become_float32_int64_and_bool():
    assert Tensor(1.5).dtype == np.float32 and Tensor([1.0, 2.5]).dtype == np.float32
    assert Tensor([1, 2.5]).dtype == np.float32
    assert Tensor(3).dtype == np.int64 and Tensor([1, 2]).dtype == np.int64
    assert Tensor(True).dtype == np.bool_ and Tensor([True, False]).dtype == np.bool_


def test_numpy_arrays_keep_their_dtype():
    for dtype in (np.float64, np.float32, np.float16, np.int32, np.int64, np.bool_):
        assert Tensor(np.zeros(2, dtype=dtype)).dtype == dtype
    assert Tensor(np.float64(2.0)).dtype == np.float64
    assert Tensor([1, 2], dtype=np.float64).dtype == np.float64


def test_float32_in_float32_out():
    x = Tensor(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    out = ((x * 2.0 + 1.0) / 3.0 - x**2).exp().sum(axis=0).mean()
    assert out.dtype == np.float32
    out.backward()
    assert x.grad.dtype == np.float32


def test_factories_make_float32():
    assert fw.zeros(2, 3).dtype == np.float32 and fw.ones((2,)).shape == (2,)
    fw.manual_seed(0)
    first = fw.randn(3)
    fw.manual_seed(0)
    assert first.dtype == np.float32 and np.array_equal(fw.randn(3).data, first.data)


def test_an_int_tensor_cannot_require_grad():
    with pytest.raises(TypeError, match=r"Tensor: only floating tensors can require grad, this one "
                       r"is int64; create it with dtype=np.float32"):
        Tensor([1, 2], requires_grad=True)
    with pytest.raises(TypeError, match=r"requires_grad_: a int64 tensor cannot require grad"):
        Tensor([1, 2]).requires_grad_()


# -- error messages ------------------------------------------------------------------------


def test_shapes_that_do_not_broadcast_name_the_op_and_the_axis():
    with pytest.raises(ValueError, match=r"add: shapes \(3, 4\) and \(4, 3\) do not broadcast: "
                       r"axis -1 has 4 vs 3"):
        Tensor(np.ones((3, 4))) + Tensor(np.ones((4, 3)))
    with pytest.raises(ValueError, match=r"mul: shapes \(2, 3\) and \(2,\) do not broadcast: "
                       r"axis -1 has 3 vs 2"):
        Tensor(np.ones((2, 3))) * Tensor(np.ones(2))
    with pytest.raises(ValueError, match=r"expand: shapes \(2, 3\) and \(3, 3\) do not broadcast: "
                       r"axis -2 has 2 vs 3"):
        Tensor(np.ones((2, 3))).expand(3, 3)


def test_a_matmul_inner_dimension_mismatch_names_both_dimensions():
    with pytest.raises(ValueError, match=r"matmul: shapes \(2, 3\) and \(4, 2\): the inner "
                       r"dimensions differ \(3 vs 4\)"):
        Tensor(np.ones((2, 3))) @ Tensor(np.ones((4, 2)))
    with pytest.raises(ValueError, match=r"matmul: both operands need at least one axis"):
        Tensor(np.ones(3)) @ Tensor(2.0)


def test_reshape_and_permute_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"reshape: cannot reshape \(2, 3\) \(6 elements\) "
                       r"into \(4, 2\)"):
        Tensor(np.ones((2, 3))).reshape(4, 2)
    with pytest.raises(ValueError, match=r"permute: \(0, 0\) is not an order of the 2 axes"):
        Tensor(np.ones((2, 3))).permute(0, 0)


def test_other_shape_errors_say_what_is_wrong():
    cases = [
        (lambda: Tensor(np.ones((2, 3))).amax(axis=2),
         r"max: axis 2 is out of range for a tensor with 2 axes"),
        (lambda: fw.concatenate([Tensor(np.ones((2, 3))), Tensor(np.ones((3, 2)))]),
         r"concatenate: shapes \(2, 3\), \(3, 2\) must agree on every axis but axis 0"),
        (lambda: fw.stack([Tensor(np.ones(2)), Tensor(np.ones(3))]),
         r"stack: all shapes must be equal, got \(2,\), \(3,\)"),
        (lambda: Tensor(np.ones((2, 3))).item(), r"item: the tensor has 6 elements, not one"),
    ]
    for make, message in cases:
        with pytest.raises(ValueError, match=message):
            make()
    with pytest.raises(IndexError, match=r"getitem: index 5 on shape \(3,\)"):
        Tensor(np.ones(3))[5]


def test_backward_without_gradient_on_a_non_scalar_says_what_to_do():
    x = Tensor(np.ones((2, 3)), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"backward: the tensor has shape \(3,\); without a "
                       r"gradient argument backward works on a one-element tensor only"):
        x.sum(axis=0).backward()
    with pytest.raises(ValueError, match=r"backward: gradient shape \(2,\) ≠ tensor shape \(3,\)"):
        x.sum(axis=0).backward(np.ones(2))
    with pytest.raises(RuntimeError, match=r"backward: this tensor does not require grad"):
        Tensor(np.ones(3)).sum().backward()


def test_a_second_backward_through_a_freed_graph_says_retain_graph():
    x = Tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match=r"backward: this graph was already freed by an earlier "
                       r"backward\(\); pass retain_graph=True"):
        loss.backward()


def test_a_backward_returning_the_wrong_shape_is_named():
    class Broken(fw.Function):
        @staticmethod
        def forward(ctx, a):
            return a.sum(axis=0)

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = Tensor(np.ones((2, 3)), requires_grad=True)
    with pytest.raises(ValueError, match=r"Broken.backward returned a gradient of shape \(3,\) for "
                       r"an input of shape \(2, 3\)"):
        Broken.apply(x).backward(np.ones(3))


# -- repr and gradcheck --------------------------------------------------------------------


def test_repr_shows_data_dtype_and_graph():
    assert repr(Tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(Tensor([1, 2])) == "tensor([1, 2])"
    assert repr(Tensor(2.0, requires_grad=True)) == "tensor(2., requires_grad=True)"
    x = Tensor([1.0, 2.0], requires_grad=True)
    assert repr(x * x) == "tensor([1., 4.], grad_fn=<MulBackward>)"
    assert repr(Tensor(np.array([0.5]))) == "tensor([0.5000], dtype=torch.float64)"


class Cube(fw.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a**3

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return 3 * a**2 * grad


class WrongCube(Cube):
    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return 3 * a * grad


def test_gradcheck_passes_a_correct_function_and_names_a_wrong_one():
    x = spaced(2, 3)
    assert fw.gradcheck(Cube.apply, x)
    with pytest.raises(AssertionError, match=r"gradcheck: input 0 \(shape \(2, 3\)\): backward and "
                       r"central differences differ"):
        fw.gradcheck(WrongCube.apply, x)


@pytest.mark.parametrize("name", ["sum", "mean", "amax"])
@pytest.mark.parametrize("negative, positive", [(-1, 2), (-3, 0), ((0, -1), (0, 2)), ((-2,), (1,))])
def test_reductions_read_negative_axes_from_the_end_forward_and_backward(name, negative, positive):
    """The provided forward normalises the axis, so every backward sees positive axes only."""
    x = np.random.default_rng(0).permutation(24).reshape(2, 3, 4).astype(np.float64)
    results = []
    for axis in (negative, positive):
        leaf = Tensor(x, requires_grad=True)
        out = getattr(leaf, name)(axis=axis)
        out.backward(np.arange(out.data.size, dtype=np.float64).reshape(out.data.shape))
        results.append((out.data, leaf.grad))
    np.testing.assert_array_equal(results[0][0], getattr(np, name)(x, axis=negative))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


# -- unwrap: the one way to take the array out of a tensor or an array ------------------------------


def test_unwrap_gives_a_tensors_array_and_anything_else_as_it_is():
    unwrap = importlib.import_module("framework.function").unwrap
    array, values = np.arange(3.0), [1, 2]
    assert unwrap(Tensor(array)) is array
    assert unwrap(array) is array and unwrap(values) is values


def test_the_package_unwraps_only_through_unwrap_outside_the_exercises():
    """`x.data if isinstance(x, Tensor) else x` is written once, in unwrap; a solution region
    (the learner's own code) may write it as it likes."""
    written = re.compile(r"(\w+)\.data if isinstance\(\1, (Differentiable|Tensor)\) else")
    found = []
    for path in sorted((impl_folder("solutions") / "framework").rglob("*.py")):
        text = re.sub(r"### BEGIN SOLUTION.*?### END SOLUTION", "", path.read_text(), flags=re.S)
        found += [f"{path.name}: {m.group(0)}" for m in written.finditer(text)]
    assert found == ["function.py: x.data if isinstance(x, Differentiable) else"], found
