"""Version counters and in-place changes, as PyTorch's: every in-place change bumps the tensor's
`_version`; a backward whose forward saved a tensor changed since raises PyTorch's error; an
in-place change inside a graph that no backward minds is recorded, with the right gradient."""

import numpy as np
import pytest

from checks.loader import load_framework

fw = load_framework("solutions")
Tensor = fw.Tensor
nn = fw.nn
MODIFIED = r"modified by an inplace operation"


def spaced(*shape, low=-2.0, high=2.0):
    """Distinct values away from 0 (ReLU's kink), shuffled, in float64."""
    size = int(np.prod(shape))
    values = np.linspace(low, high, size) + 0.05
    return np.random.default_rng(size).permutation(values).reshape(shape)


def numerical_gradient(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of the scalar f at x (float64)."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += eps
        minus[index] -= eps
        grad[index] = (f(plus) - f(minus)) / (2 * eps)
    return grad


# -- the counter ------------------------------------------------------------------------------------


def test_every_in_place_change_bumps_the_version():
    x = Tensor(np.zeros((2, 3), dtype=np.float32))
    assert x._version == 0
    x.add_(1.0)
    x.mul_(2.0)
    x[0, 1] = 5.0
    x -= 1.0
    x.zero_()
    assert x._version == 5


def test_a_view_and_a_detached_tensor_share_the_version_of_their_memory():
    x = Tensor(np.zeros((2, 3), dtype=np.float32))
    view, detached = x.reshape(6), x.detach()
    view.add_(1.0)
    detached.add_(1.0)
    assert x._version == view._version == detached._version == 2
    assert (x * 1)._version == 0  # an op's result has memory, and a counter, of its own


def test_an_optimizer_step_bumps_each_parameter_it_changes():
    w = nn.Parameter(np.ones(3, dtype=np.float32))
    optimizer = fw.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    optimizer.step()
    assert w._version == 1


# -- a saved tensor changed before backward -----------------------------------------------------------


def test_changing_a_saved_input_raises_at_backward_naming_op_and_versions():
    w = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    x = Tensor(np.arange(3, dtype=np.float32))
    y = (w * x).sum()
    x.add_(1.0)
    with pytest.raises(RuntimeError, match=MODIFIED + r": \[float32 \[3\]\] is at version 1; "
                                           r"expected version 0 instead\. Hint: the backward of "
                                           r"MulBackward"):
        y.backward()


def test_changing_a_saved_output_raises_naming_the_op_that_changed_it():
    a = Tensor(spaced(2, 2), requires_grad=True)
    e = a.exp()  # exp saves its output
    e.mul_(2.0)
    with pytest.raises(RuntimeError, match=MODIFIED + r": \[float64 \[2, 2\]\], which is output "
                                           r"0 of MulBackward, is at version 1; expected "
                                           r"version 0 instead\. Hint: the backward of ExpBackward"):
        e.sum().backward()


def test_changing_an_in_place_results_saved_value_again_raises():
    a = Tensor(spaced(4), requires_grad=True)
    h = a * 1.0
    h.relu_()  # relu_ saves its result, h itself at version 1
    h.add_(1.0)
    with pytest.raises(RuntimeError, match=r"output 0 of AddBackward, is at version 2; "
                                           r"expected version 1 instead"):
        h.sum().backward()


def test_a_change_after_backward_is_fine():
    w = Tensor(np.ones(3), requires_grad=True)
    x = Tensor(np.arange(3.0))
    (w * x).sum().backward()
    x.add_(1.0)
    assert np.array_equal(w.grad, [0.0, 1.0, 2.0])


# -- a tensor saved by autograd.Function (PyTorch's style) -------------------------------------------


class Product(fw.autograd.Function):
    """a · b, saving both inputs with ctx.save_for_backward."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a


class Exp(fw.autograd.Function):
    """exp, saving its output."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


def test_a_saved_input_changed_in_place_raises_naming_both_versions():
    w = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    x = Tensor(np.arange(3, dtype=np.float32))
    y = Product.apply(w, x).sum()
    x.add_(1.0)
    with pytest.raises(RuntimeError, match=MODIFIED + r": \[float32 \[3\]\] is at version 1; "
                                           r"expected version 0 instead\. Hint: the backward of "
                                           r"ProductBackward"):
        y.backward()


def test_saved_tensors_left_unchanged_give_the_gradients():
    w = Tensor(np.ones(3), requires_grad=True)
    x = Tensor(np.arange(3.0), requires_grad=True)
    Product.apply(w, x).sum().backward()
    assert np.array_equal(w.grad, [0.0, 1.0, 2.0]) and np.array_equal(x.grad, [1.0, 1.0, 1.0])


def test_a_saved_output_changed_in_place_raises_naming_the_op_that_changed_it():
    a = Tensor(spaced(2, 2), requires_grad=True)
    e = Exp.apply(a)
    e.mul_(2.0)
    with pytest.raises(RuntimeError, match=MODIFIED + r": \[float64 \[2, 2\]\], which is output "
                                           r"0 of MulBackward, is at version 1; expected "
                                           r"version 0 instead\. Hint: the backward of ExpBackward"):
        e.sum().backward()


def test_changing_a_tensor_that_no_backward_saved_is_fine():
    w = Tensor(np.ones(3), requires_grad=True)
    x, z = Tensor(np.arange(3.0)), Tensor(np.zeros(3))
    y = (Product.apply(w, x) + z).sum()  # Product saved w and x; the sum keeps no input
    z.add_(1.0)
    y.backward()
    assert z._version == 1 and np.array_equal(w.grad, [0.0, 1.0, 2.0])


# -- in-place changes recorded in the graph ----------------------------------------------------------


@pytest.mark.parametrize("name, change", [
    ("relu_", lambda h, c: h.relu_()),
    ("add_", lambda h, c: h.add_(c)),
    ("sub_", lambda h, c: h.sub_(c)),
    ("mul_", lambda h, c: h.mul_(c)),
    ("div_", lambda h, c: h.div_(c)),
    ("clamp_", lambda h, c: h.clamp_(-0.5, 0.7)),
    ("setitem", lambda h, c: h.__setitem__((slice(None), 1), c[:, 0])),
    ("masked_fill_", lambda h, c: h.masked_fill_(h.data > 0.5, 0.25)),
    ("copy_", lambda h, c: h.copy_(c)),
])
def test_an_in_place_change_of_an_intermediate_has_the_finite_difference_gradient(name, change):
    x0, c0 = spaced(3, 4), spaced(3, 4, low=0.5, high=1.5)

    def loss(x: np.ndarray, c: np.ndarray, grad: bool = False):
        x_t, c_t = Tensor(x, requires_grad=grad), Tensor(c, requires_grad=grad)
        h = x_t * 1.5 - 0.2  # an op's result, whose old value no backward needs
        change(h, c_t)
        out = (h * h * Tensor(spaced(3, 4))).sum()
        return (out, x_t, c_t) if grad else out.item()

    out, x, c = loss(x0, c0, grad=True)
    out.backward()
    assert x.grad.dtype == np.float64
    np.testing.assert_allclose(x.grad, numerical_gradient(lambda v: loss(v, c0), x0),
                               rtol=1e-6, atol=1e-8, err_msg=name)
    expected_c = numerical_gradient(lambda v: loss(x0, v), c0)
    np.testing.assert_allclose(0 if c.grad is None else c.grad, expected_c, rtol=1e-6,
                               atol=1e-8, err_msg=name)


def test_an_in_place_change_keeps_the_tensor_and_its_memory():
    x = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    h = x * 2.0
    memory = h.data
    assert h.add_(1.0) is h and h.data is memory and h.dtype == np.float32
    assert h.grad_fn is not None and not h.is_leaf


def test_relu_inplace_gives_relus_gradients():
    def gradients(inplace: bool):
        fw.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(inplace=inplace), nn.Linear(8, 2))
        model(Tensor(spaced(5, 4).astype(np.float32))).sum().backward()
        return [p.grad for p in model.parameters()]

    for in_place, plain in zip(gradients(True), gradients(False)):
        assert in_place.dtype == np.float32
        np.testing.assert_array_equal(in_place, plain)
    assert repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)"


def test_functional_relu_inplace_changes_its_input():
    x = Tensor(np.array([-1.0, 2.0], dtype=np.float32))
    assert nn.functional.relu(x, inplace=True) is x and x.tolist() == [0.0, 2.0]


# -- what stays refused ----------------------------------------------------------------------------------


def test_a_leaf_that_requires_grad_is_refused_in_a_graph_with_pytorchs_words():
    w = nn.Parameter(np.ones(3, dtype=np.float32))
    with pytest.raises(RuntimeError, match=r"add_: a leaf Variable that requires grad is being "
                                           r"used in an in-place operation"):
        w.add_(1.0)
    assert w._version == 0 and np.array_equal(w.data, np.ones(3))


def test_a_leaf_changes_in_place_under_no_grad_and_stays_float32():
    w = nn.Parameter(np.ones(3, dtype=np.float32))
    with fw.no_grad():
        w -= 0.5 * Tensor(np.ones(3, dtype=np.float32))
        w.mul_(2.0)
    assert w.is_leaf and w.requires_grad and w.dtype == np.float32
    assert np.array_equal(w.data, [1.0, 1.0, 1.0]) and w._version == 2


def test_a_view_in_a_graph_is_refused_naming_the_reason():
    x = Tensor(np.ones((2, 3)), requires_grad=True)
    h = x * 2.0
    view = h.reshape(6)
    with pytest.raises(RuntimeError, match=r"relu_: in-place change, inside a graph, of a tensor "
                                           r"of shape \(6,\) that shares its memory"):
        view.relu_()


def test_a_result_that_cannot_keep_the_shape_is_refused():
    h = Tensor(np.ones(3), requires_grad=True) * 2.0
    with pytest.raises(RuntimeError, match=r"add_: the result has shape \(2, 3\)"):
        h.add_(Tensor(np.ones((2, 3))))
