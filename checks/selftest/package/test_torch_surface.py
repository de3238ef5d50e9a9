"""PyTorch's everyday tensor surface (provided): methods, dim/keepdim, factories, autograd.Function."""

import subprocess
import sys

import numpy as np
import pytest

from checks.loader import load_framework
from checks.tools.student import stubbed_package

fw = load_framework("solutions")
Tensor = fw.Tensor
F = fw.nn.functional


def spaced(*shape, low=-2.0, high=2.0):
    """Distinct values, shuffled, no two closer than the finite-difference step could notice."""
    size = int(np.prod(shape))
    return np.random.default_rng(size).permutation(np.linspace(low, high, size)).reshape(shape)


# -- gradients of the differentiable methods (float64, random cotangent, central differences) --

GRADCHECKED = {
    "view(-1, 2)": (lambda a: a.view(-1, 2), [spaced(2, 3)]),
    "view((3, 2))": (lambda a: a.view((3, 2)), [spaced(2, 3)]),
    "t()": (lambda a: a.t(), [spaced(2, 3)]),
    "clone()": (lambda a: a.clone() * a, [spaced(2, 3)]),
    "triu()": (lambda a: a.triu(), [spaced(3, 4)]),
    "triu(1), batched": (lambda a: fw.triu(a, 1), [spaced(2, 3, 3)]),
    "tril(-1)": (lambda a: fw.tril(a, diagonal=-1), [spaced(4, 3)]),
    "cat(dim=1)": (lambda a, b: fw.cat([a, b, a], dim=1), [spaced(2, 3), spaced(2, 1)]),
    "stack(dim=-1)": (lambda a, b: fw.stack([a, b], dim=-1), [spaced(2, 3), spaced(2, 3)]),
    "gather(1, index)": (lambda a: a.gather(1, np.array([[0, 0], [2, 1]])), [spaced(2, 3)]),
    "clamp(-0.5, 0.7)": (lambda a: a.clamp(-0.5, 0.7), [spaced(3, 4, low=-1.93, high=1.87)]),
    "clamp(min=0)": (lambda a: fw.clamp(a, min=0.05), [spaced(3, 4, low=-1.93, high=1.87)]),
    "max(dim=1).values": (lambda a: a.max(dim=1).values, [spaced(3, 4)]),
    "min(0, keepdim=True).values": (lambda a: a.min(0, keepdim=True)[0], [spaced(3, 4)]),
    "amax(dim=(0, 2))": (lambda a: a.amax(dim=(0, 2)), [spaced(2, 3, 2)]),
    "expand(3, -1)": (lambda a: a.expand(3, -1), [spaced(1, 4)]),
    "flatten(0, 1)": (lambda a: a.flatten(0, 1), [spaced(2, 3, 2)]),
    "transpose(dim0=0, dim1=2)": (lambda a: a.transpose(dim0=0, dim1=2), [spaced(2, 3, 4)]),
    "softmax(dim=0)": (lambda a: a.softmax(dim=0), [spaced(3, 2)]),
    "log_softmax(dim=1)": (lambda a: a.log_softmax(dim=1), [spaced(3, 2)]),
    "sum(dim=1, keepdim=True)": (lambda a: a.sum(dim=1, keepdim=True), [spaced(2, 3)]),
    "mean(dim=-1)": (lambda a: fw.mean(a, dim=-1), [spaced(2, 3)]),
    "squeeze(dim=1)": (lambda a: a.squeeze(dim=1), [spaced(2, 1, 3)]),
    "unsqueeze(dim=-1)": (lambda a: a.unsqueeze(dim=-1), [spaced(2, 3)]),
}


@pytest.mark.parametrize("name", sorted(GRADCHECKED))
def test_surface_gradients(name):
    fn, inputs = GRADCHECKED[name]
    assert fw.gradcheck(fn, *inputs, seed=len(name))


# -- size, shape and conversions -------------------------------------------------------------------


def test_size_is_a_method_returning_the_shape_or_one_length():
    x = Tensor(np.zeros((2, 3, 4), dtype=np.float32))
    assert x.size() == (2, 3, 4) and isinstance(x.size(), tuple)
    assert (x.size(0), x.size(-1), x.size(dim=1)) == (2, 4, 3)
    assert x.numel() == 24 and isinstance(x.numel(), int) and x.dim() == 3 == x.ndim


def test_size_of_a_missing_axis_names_it():
    with pytest.raises(ValueError, match=r"size: axis 3 is out of range for a tensor with 2 axes"):
        Tensor(np.zeros((2, 3))).size(3)
    with pytest.raises(IndexError, match=r"size: dim 0 asked of a tensor with no axes"):
        Tensor(1.0).size(0)


def test_view_is_reshape_and_refuses_a_dtype():
    a = spaced(2, 3)
    assert np.array_equal(Tensor(a).view(-1, 2).data, a.reshape(-1, 2))
    with pytest.raises(TypeError, match=r"view\(dtype\): reinterpreting the bytes.*\.to\(dtype\)"):
        Tensor(a).view(np.int32)


def test_t_refuses_more_than_two_axes():
    assert Tensor(spaced(3)).t().shape == (3,)
    with pytest.raises(ValueError, match=r"t: expects at most 2 axes, got shape \(2, 3, 4\)"):
        Tensor(spaced(2, 3, 4)).t()


@pytest.mark.parametrize("method, dtype", [("float", np.float32), ("double", np.float64),
                                           ("half", np.float16), ("long", np.int64),
                                           ("int", np.int32), ("bool", np.bool_)])
def test_casts_give_pytorchs_dtypes_and_values(method, dtype):
    a = np.array([[1.7, -2.2], [0.0, 3.0]], dtype=np.float32)
    got = getattr(Tensor(a), method)()
    assert got.dtype == dtype and np.array_equal(got.data, a.astype(dtype))


def test_an_integer_cast_has_no_gradient_a_floating_one_does():
    x = Tensor(np.array([1.5, 2.5]), requires_grad=True)
    assert not x.long().requires_grad and x.float().requires_grad
    x.to(np.float32).sum().backward()
    assert x.grad.dtype == np.float64 and np.array_equal(x.grad, [1.0, 1.0])


def test_to_accepts_a_tensor_a_device_and_copy():
    x = Tensor(np.ones(2, dtype=np.float64))
    assert x.to(Tensor(np.ones(1, dtype=np.float32))).dtype == np.float32
    assert x.to("cpu") is x and x.to(fw.device("cpu"), np.float32).dtype == np.float32
    copied = x.to(np.float64, copy=True)
    assert copied is not x and not np.shares_memory(copied.data, x.data)
    with pytest.raises(RuntimeError, match=r"to: device 'cuda'.*CPU only"):
        x.to("cuda")
    assert x.device == fw.device("cpu") and not fw.cuda.is_available()


def test_clone_copies_memory_and_passes_the_gradient():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = x.clone()
    assert not np.shares_memory(x.data, y.data)
    (y * 3.0).sum().backward()
    assert np.array_equal(x.grad, [3.0, 3.0])


def test_tolist_and_item_give_python_numbers():
    assert Tensor(np.array([[1, 2]])).tolist() == [[1, 2]]
    assert Tensor(np.array([2.5])).item() == 2.5


def test_squeeze_leaves_an_axis_of_another_size_alone_as_pytorch():
    x = Tensor(np.ones((2, 1, 3)))
    assert x.squeeze(0).shape == (2, 1, 3) and x.squeeze(1).shape == (2, 3)


# -- dim/keepdim, PyTorch's spelling of axis/keepdims -------------------------------------------------


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "argmax", "argmin"])
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_take_dim_and_keepdim_as_axis_and_keepdims(name, axis, keepdims):
    a = spaced(3, 4)
    torch_style = getattr(Tensor(a), name)(dim=axis, keepdim=keepdims)
    numpy_style = getattr(Tensor(a), name)(axis=axis, keepdims=keepdims)
    expected = getattr(np, {"amin": "min", "amax": "max"}.get(name, name))(
        a, axis=axis, keepdims=keepdims)
    assert torch_style.shape == expected.shape and np.allclose(torch_style.data, expected)
    assert np.array_equal(torch_style.data, numpy_style.data)


@pytest.mark.parametrize("call", [
    lambda x: x.sum(dim=0, axis=0),
    lambda x: x.mean(keepdim=True, keepdims=True),
    lambda x: fw.cat([x, x], dim=0, axis=0),
    lambda x: F.softmax(x, dim=0, axis=0),
])
def test_both_spellings_of_one_argument_are_an_error(call):
    with pytest.raises(TypeError, match=r"got both (dim|keepdim)= \(PyTorch's name\) and "
                       r"(axis|keepdims)= \(NumPy's name\)"):
        call(Tensor(spaced(2, 3)))


def test_softmax_and_log_softmax_take_dim():
    a = spaced(2, 3)
    assert np.allclose(F.softmax(Tensor(a), dim=0).data, F.softmax(Tensor(a), axis=0).data)
    assert np.allclose(F.log_softmax(Tensor(a), dim=0).data, Tensor(a).log_softmax(0).data)
    assert np.allclose(F.softmax(Tensor(a)).data.sum(axis=-1), 1.0)  # PyTorch's implicit dim 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_tensor_methods_agree_with_the_functional_ops_also_for_large_inputs(dtype):
    """Tensor.softmax and log_softmax are built from chapter 2's ops; F's are chapter 3's ops."""
    a = (spaced(3, 4) * 400.0).astype(dtype)  # e^400 overflows: the maximum must come off first
    tolerance = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    for dim in (0, 1, -1):
        soft, log_soft = Tensor(a).softmax(dim), Tensor(a).log_softmax(dim)
        assert soft.dtype == log_soft.dtype == dtype
        np.testing.assert_allclose(soft.data, F.softmax(Tensor(a), dim=dim).data, **tolerance)
        np.testing.assert_allclose(log_soft.data, F.log_softmax(Tensor(a), dim=dim).data, **tolerance)


def test_softmax_without_dim_beyond_two_axes_is_refused():
    with pytest.raises(TypeError, match=r"softmax: no dim given for an input of 3 axes"):
        F.softmax(Tensor(spaced(2, 3, 4)))


# -- max and min with a dim: (values, indices) ---------------------------------------------------------


def test_max_with_a_dim_returns_values_and_indices():
    a = spaced(3, 4)
    values, indices = Tensor(a).max(dim=1)
    assert np.array_equal(values.data, a.max(axis=1))
    assert np.array_equal(indices.data, a.argmax(axis=1)) and indices.dtype == np.int64
    kept = Tensor(a).min(0, keepdim=True)
    assert kept.values.shape == (1, 4) and np.array_equal(kept.indices.data, a.argmin(0)[None])


def test_max_with_a_dim_sends_the_gradient_to_the_first_tied_index():
    x = Tensor(np.array([[3.0, 3.0, 1.0]]), requires_grad=True)
    x.max(dim=1).values.sum().backward()
    assert np.array_equal(x.grad, [[1.0, 0.0, 0.0]])


def test_max_without_a_dim_is_one_element_sharing_ties():
    x = Tensor(np.array([[3.0, 3.0, 1.0]]), requires_grad=True)
    out = x.max()
    assert out.shape == () and out.item() == 3.0
    out.backward()
    assert np.array_equal(x.grad, [[0.5, 0.5, 0.0]])


def test_max_of_another_tensor_is_elementwise():
    got = Tensor(np.array([1.0, 5.0])).max(Tensor(np.array([3.0, 2.0])))
    assert np.array_equal(got.data, [3.0, 5.0])


def test_max_over_several_dims_points_to_amax():
    with pytest.raises(TypeError, match=r"max: dim=\(0, 1\).*write amax\(dim=\(0, 1\)\)"):
        Tensor(spaced(2, 3)).max(dim=(0, 1))


# -- factories and dtypes ----------------------------------------------------------------------------------


def test_factories_follow_pytorchs_dtypes():
    assert fw.arange(5).dtype == np.int64 and fw.arange(0, 1, 0.25).dtype == np.float32
    assert np.array_equal(fw.arange(2, 8, 2).data, [2, 4, 6])
    assert fw.full((2,), 7).dtype == np.int64 and fw.full((2,), 1.5).dtype == np.float32
    assert fw.full((2,), True).dtype == np.bool_
    assert np.array_equal(fw.eye(2, 3).data, np.eye(2, 3)) and fw.eye(2).dtype == np.float32
    assert np.allclose(fw.linspace(0, 1, 5).data, np.linspace(0, 1, 5))
    x = Tensor(np.ones((2, 3), dtype=np.float64))
    for like in (fw.zeros_like(x), fw.ones_like(x), fw.full_like(x, 2.0), fw.rand_like(x)):
        assert like.shape == (2, 3) and like.dtype == np.float64
    assert fw.zeros_like(x, dtype=np.int64).dtype == np.int64
    assert fw.float32 == np.float32 and fw.long == np.int64 and x.dtype == fw.float64


def test_random_factories_draw_from_the_seeded_generator():
    fw.manual_seed(4)
    first = (fw.rand(3).data, fw.randint(0, 5, (4,)).data, fw.randint(7, (2,)).data)
    fw.manual_seed(4)
    again = (fw.rand(3).data, fw.randint(0, 5, (4,)).data, fw.randint(7, (2,)).data)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert first[0].dtype == np.float32 and np.all((0 <= first[0]) & (first[0] < 1))
    assert first[1].dtype == np.int64 and np.all((0 <= first[1]) & (first[1] < 5))


def test_from_numpy_shares_memory_and_tensor_copies():
    array = np.zeros(3)
    shared, copied = fw.from_numpy(array), fw.tensor(array)
    array[0] = 1.0
    assert shared.data[0] == 1.0 and copied.data[0] == 0.0 and shared.dtype == np.float64


def test_top_level_functions_call_the_methods():
    a = spaced(2, 3)
    assert np.allclose(fw.sum(Tensor(a), dim=1).data, a.sum(axis=1))
    assert fw.max(Tensor(a), 1).indices.tolist() == a.argmax(axis=1).tolist()
    assert np.allclose(fw.exp(Tensor(a)).data, np.exp(a))
    with pytest.raises(TypeError, match=r"sum: expected a Tensor, got list"):
        fw.sum([1.0, 2.0])


# -- in-place changes ---------------------------------------------------------------------------------------


def test_in_place_changes_outside_a_graph_change_the_tensor():
    x = Tensor(np.ones((2, 3), dtype=np.float32))
    x[:, 1] = 0.0
    x += 1.0
    x.mul_(2.0)
    assert np.array_equal(x.data, [[4.0, 2.0, 4.0]] * 2)
    assert np.array_equal(x.zero_().data, np.zeros((2, 3)))


def test_a_leaf_changes_in_place_inside_no_grad():
    w = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    data = w.data
    with fw.no_grad():
        w -= Tensor(np.array([0.5, 0.5]))
    assert np.array_equal(w.data, [0.5, 1.5]) and w.data is data and w.is_leaf


@pytest.mark.parametrize("change", [lambda y: y.__setitem__(0, 1.0), lambda y: y.add_(1.0),
                                    lambda y: y.fill_(0.0)])
def test_in_place_changes_of_a_leaf_that_requires_grad_are_refused_in_a_graph(change):
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"a leaf Variable that requires grad is being used in "
                                           r"an in-place operation"):
        change(x)
    change(x * 2)  # an op's result: recorded (checks/selftest/package/test_version_counters.py)


# -- grad modes --------------------------------------------------------------------------------------------


def test_enable_grad_inside_no_grad_records_again():
    x = Tensor(np.ones(2), requires_grad=True)
    with fw.no_grad():
        with fw.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad
    assert fw.is_grad_enabled()


def test_set_grad_enabled_works_at_once_and_as_a_block():
    x = Tensor(np.ones(2), requires_grad=True)
    with fw.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert fw.is_grad_enabled()
    fw.set_grad_enabled(False)
    try:
        assert not (x * 2).requires_grad
    finally:
        fw.set_grad_enabled(True)
    assert (x * 2).requires_grad


# -- autograd.Function in PyTorch's style --------------------------------------------------------------------


class Exp(fw.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


class Scale(fw.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, factor):
        ctx.save_for_backward(x, w)
        ctx.factor = factor
        ctx.seen = ctx.needs_input_grad
        return x * w * factor

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return grad * w * ctx.factor, grad * x * ctx.factor, None


def test_a_torch_style_function_has_the_right_gradient():
    assert fw.gradcheck(Exp.apply, spaced(2, 3))
    assert fw.gradcheck(lambda x, w: Scale.apply(x, w, 0.5), spaced(2, 3), spaced(3))


def test_the_function_sees_tensors_and_needs_input_grad():
    x, w = Tensor(np.ones(2), requires_grad=True), Tensor(np.ones(2))
    out = Scale.apply(x, w, 2.0)
    assert out.requires_grad and out.grad_fn.ctx.seen == (True, False, False)
    assert all(isinstance(t, Tensor) for t in out.grad_fn.ctx.saved_tensors)


def test_the_forward_records_no_graph_of_its_own():
    seen = []

    class Probe(fw.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            seen.append(y.requires_grad)
            return y

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    Probe.apply(Tensor(np.ones(2), requires_grad=True)).sum().backward()
    assert seen == [False]


def test_no_grad_gives_a_plain_result():
    with fw.no_grad():
        assert not Exp.apply(Tensor(np.ones(2), requires_grad=True)).requires_grad


def test_a_wrong_number_of_gradients_is_named():
    class Short(fw.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, grad):
            return grad

    out = Short.apply(Tensor(np.ones(2), requires_grad=True), Tensor(np.ones(2)))
    with pytest.raises(ValueError, match=r"Short.backward returned 1 gradients for 2 inputs"):
        out.sum().backward()


def test_a_tuple_output_is_a_named_difference():
    class Two(fw.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x, x

    with pytest.raises(TypeError, match=r"Two.forward returned tuple.*exactly one output"):
        Two.apply(Tensor(np.ones(2), requires_grad=True))


def test_autograd_grad_returns_gradients_and_leaves_dot_grad_alone():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    unused = Tensor(np.array([1.0]), requires_grad=True)
    hidden = x * x
    (gx, gh) = fw.autograd.grad((hidden * 3.0).sum(), [x, hidden], retain_graph=True)
    assert np.array_equal(gx.data, [6.0, 12.0]) and np.array_equal(gh.data, [3.0, 3.0])
    assert x.grad is None
    with pytest.raises(RuntimeError, match=r"grad: inputs \[1\] were not used"):
        fw.autograd.grad(hidden.sum(), [x, unused], retain_graph=True)
    assert fw.autograd.grad(hidden.sum(), [x, unused], allow_unused=True)[1] is None


def test_double_backward_is_refused_by_name():
    x = Tensor(np.array([1.0]), requires_grad=True)
    with pytest.raises(NotImplementedError, match=r"no double backward"):
        fw.autograd.grad((x * x).sum(), x, create_graph=True)
    with pytest.raises(NotImplementedError, match=r"no double backward"):
        (x * x).sum().backward(create_graph=True)


# -- result dtypes: PyTorch's promotion where NumPy's differs ------------------------------------------

F32, I64 = np.array([1.0, 2.0], np.float32), np.array([1, 2], np.int64)


@pytest.mark.parametrize("name, make, dtype", [
    ("float32 + int64 tensor", lambda: Tensor(F32) + Tensor(I64), np.float32),
    ("int64 tensor * float32", lambda: Tensor(I64) * Tensor(F32), np.float32),
    ("float32 - int64 array", lambda: Tensor(F32) - I64, np.float32),
    ("int64 array / float32", lambda: I64 / Tensor(F32), np.float32),
    ("float32 * bool", lambda: Tensor(F32) * Tensor(np.array([True, False])), np.float32),
    ("int64 + 1.5", lambda: Tensor(I64) + 1.5, np.float32),
    ("int64 / int64", lambda: Tensor(I64) / Tensor(I64), np.float32),
    ("2 / int64", lambda: 2 / Tensor(I64), np.float32),
    ("int64 + 1", lambda: Tensor(I64) + 1, np.int64),
    ("float32 * np.float64 scalar", lambda: Tensor(F32) * np.float64(0.5), np.float32),
    ("float64 + int64", lambda: Tensor(F32.astype(np.float64)) + Tensor(I64), np.float64),
    ("float32 ** int64", lambda: Tensor(F32) ** Tensor(I64), np.float32),
    ("float32 * 0-d float64", lambda: Tensor(F32) * Tensor(np.array(2.0)), np.float32),
    ("0-d float64 + float32", lambda: Tensor(np.array(2.0)) + Tensor(F32), np.float32),
    ("int32 * 0-d int64", lambda: Tensor(I64.astype(np.int32)) * Tensor(np.array(2)), np.int32),
    ("uint8 - 0-d int64", lambda: Tensor(I64.astype(np.uint8)) - Tensor(np.array(1)), np.uint8),
    ("bool * 0-d int64", lambda: Tensor(np.array([True, False])) * Tensor(np.array(2)), np.int64),
    ("int32 * 0-d float64", lambda: Tensor(I64.astype(np.int32)) * Tensor(np.array(2.5)), np.float64),
    ("0-d float32 * 0-d float64", lambda: Tensor(np.float32(2)) * Tensor(np.array(3.0)), np.float64),
])
def test_mixed_arithmetic_gives_pytorchs_dtype(name, make, dtype):
    assert make().dtype == dtype, name


def test_a_float32_gradient_stays_float32_against_an_integer_operand():
    w = Tensor(F32, requires_grad=True)
    (w * Tensor(I64)).sum().backward()
    assert w.grad.dtype == np.float32 and np.array_equal(w.grad, [1.0, 2.0])


def test_a_0d_float64_operand_of_a_float32_product_gets_a_float64_gradient():
    """PyTorch computes in float32 and hands the 0-d operand its gradient in its own dtype."""
    scale = Tensor(np.array(2.0), requires_grad=True)
    w = Tensor(F32, requires_grad=True)
    out = w * scale
    out.sum().backward()
    assert out.dtype == np.float32 and w.grad.dtype == np.float32
    assert scale.grad.dtype == np.float64 and scale.grad == 3.0
    np.testing.assert_array_equal(w.grad, [2.0, 2.0])


def test_the_arithmetic_methods_promote_as_the_operators():
    f, i = Tensor(F32), Tensor(I64)
    for got in (f.add(i), f.sub(i), f.mul(i), f.div(i), f.pow(i), fw.add(f, i), fw.mul(i, f)):
        assert got.dtype == np.float32
    assert np.array_equal(fw.sub(f, i).data, F32 - I64)


def test_autograd_grad_walks_outputs_that_share_nodes():
    """grad([y1, y2], x) sums both outputs' gradients, as PyTorch, though they share h = x·x."""
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    h = x * x
    (g,) = fw.autograd.grad([h.sum(), (3 * h).sum()], x)
    np.testing.assert_allclose(g.data, 8 * x.data)


@pytest.mark.parametrize("retain_graph, kept", [(None, [True, True, False]), (True, [True] * 3)])
def test_autograd_grad_walks_with_backpropagate_and_only_its_last_walk_frees(
        monkeypatch, retain_graph, kept):
    """Each output is walked by exercise 1.7's `backpropagate`, on stand-ins of the nodes."""
    walks = []

    def recording(root, gradient, retain_graph=True):
        walks.append((root, retain_graph))
        return fw.autodiff.backpropagate(root, gradient, retain_graph)

    monkeypatch.setattr(fw.autograd, "backpropagate", recording)
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    h = x * x
    outputs = [h.sum(), (2 * h).sum(), h.exp().sum()]
    (g,) = fw.autograd.grad(outputs, x, retain_graph=retain_graph)
    np.testing.assert_allclose(g.data, 2 * x.data * (3 + np.exp(x.data ** 2)))
    assert [kept for _, kept in walks] == kept
    assert all(not isinstance(root, Tensor) for root, _ in walks) and x.grad is None


def test_autograd_grad_frees_the_graph_unless_retained():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = (x * x).sum()
    first = fw.autograd.grad(y, x, retain_graph=True)[0]
    assert np.array_equal(fw.autograd.grad(y, x)[0].data, first.data)
    with pytest.raises(RuntimeError, match="already freed"):
        fw.autograd.grad(y, x)


def test_autograd_grad_on_the_learners_stubs_asks_for_exercise_1_7(tmp_path):
    """Before the walk is written, grad names the exercise that writes it."""
    for path, text in stubbed_package().items():
        (tmp_path / "framework" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "framework" / path).write_text(text)
    code = (
        "import numpy as np\n"
        "from framework import Tensor, autograd\n"
        "class Twice(autograd.Function):\n"
        "    forward = staticmethod(lambda ctx, x: Tensor(2 * x.data))\n"
        "    backward = staticmethod(lambda ctx, grad: 2 * grad)\n"
        "x = Tensor(np.ones(2), requires_grad=True)\n"
        "autograd.grad(Twice.apply(x), x, grad_outputs=Tensor(np.ones(2)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True)
    assert "NotImplementedError: Exercise 1.7: " in done.stderr, done.stderr


def test_a_device_prints_as_its_type():
    assert str(fw.device("cpu")) == "cpu" and str(Tensor(np.zeros(2)).device) == "cpu"


@pytest.mark.parametrize("factory", ["zeros", "ones", "randn"])
def test_floating_factories_are_float32_when_dtype_is_none(factory):
    assert getattr(fw, factory)(2, 3, dtype=None).dtype == np.float32
    assert getattr(fw, factory)((2, 3), dtype=np.float64).dtype == np.float64


# -- functions whose inputs may all be plain: a tensor out, as PyTorch's ----------------------

PLAIN_INPUTS = {
    "where with number branches": lambda: fw.where(Tensor(np.array([True, False])), 0.0, 1.0),
    "maximum of arrays": lambda: fw.maximum(np.ones(2), np.zeros(2)),
    "minimum of arrays": lambda: fw.minimum(np.ones(2), np.zeros(2)),
    "cat of arrays": lambda: fw.cat([np.ones(2), np.zeros(2)]),
    "stack of arrays": lambda: fw.stack([np.ones(2), np.zeros(2)]),
    "matmul of arrays": lambda: fw.matmul(np.ones((2, 3)), np.ones((3, 2))),
}


@pytest.mark.parametrize("call", PLAIN_INPUTS.values(), ids=PLAIN_INPUTS.keys())
def test_a_function_of_plain_inputs_returns_a_tensor(call):
    """Function.apply gives forward's array when no input is a tensor; the PyTorch-named
    functions still return a tensor, as before and as PyTorch's do."""
    assert type(call()) is Tensor


# -- grad_fn.next_functions: PyTorch's view of the graph, built when asked --------------------


def test_next_functions_pair_each_input_of_the_op_with_where_its_gradient_goes():
    x = Tensor(np.ones((2, 3)), requires_grad=True)
    h = (x * 2.0).relu()
    out = h * Tensor(np.ones((2, 3)))  # the second input needs no gradient
    (relu, index), (nothing, second) = out.grad_fn.next_functions
    assert relu is h.grad_fn and index == 0 and nothing is None and second == 0


def test_a_leaf_that_requires_grad_ends_in_an_accumulate_grad_node():
    x = Tensor(np.ones(3), requires_grad=True)
    ((sink, _),) = x.exp().grad_fn.next_functions
    assert type(sink).__name__ == "AccumulateGrad" and repr(sink) == "<AccumulateGrad>"
    assert sink.variable is x and sink.next_functions == ()


def test_the_nodes_of_autograd_functions_and_checkpoints_have_next_functions_too():
    x = Tensor(np.ones(3), requires_grad=True)
    scaled = Scale.apply(x, Tensor(np.ones(3)), 2.0)
    assert [node is None for node, _ in scaled.grad_fn.next_functions] == [False, True, True]
    checkpointed = fw.utils.checkpoint.checkpoint(lambda a: a.exp(), scaled, use_reentrant=False)
    assert checkpointed.grad_fn.next_functions == ((scaled.grad_fn, 0),)
