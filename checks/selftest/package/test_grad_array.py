"""`x.grad` (provided/grad_array.py): a NumPy array, stored as the learner's code writes it,
that also answers PyTorch's tensor methods, so code that treats a gradient as a tensor runs."""

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from checks.loader import load_framework

fw = load_framework("solutions")
from framework.provided.grad_array import GradArray  # noqa: E402  (the package chosen above)

Tensor = fw.Tensor
finite = st.floats(-10, 10, width=32)


def with_grad(values) -> Tensor:
    """A float32 leaf whose gradient is `values` (d(sum(x * values))/dx)."""
    values = np.asarray(values, dtype=np.float32)
    x = Tensor(np.ones_like(values), requires_grad=True)
    (x * Tensor(values)).sum().backward()
    return x


def test_grad_reads_as_a_grad_array_over_the_stored_memory():
    x = with_grad([[1.0, -2.0], [3.0, 4.0]])
    assert isinstance(x.grad, GradArray) and isinstance(x.grad, np.ndarray)
    assert x.grad is x.grad
    assert x.grad.dtype == np.float32 and x.grad.shape == (2, 2)


def test_a_plain_array_assigned_is_stored_without_a_copy():
    x = Tensor(np.zeros(3, dtype=np.float32), requires_grad=True)
    stored = np.arange(3, dtype=np.float32)
    x.grad = stored
    assert np.shares_memory(x.grad, stored)


def test_a_tensor_assigned_is_stored_as_its_array():
    x = Tensor(np.zeros(3, dtype=np.float32), requires_grad=True)
    x.grad = fw.ones(3)
    assert isinstance(x.grad, GradArray) and x.grad.tolist() == [1.0, 1.0, 1.0]


def test_none_clears_the_gradient():
    x = with_grad([1.0])
    x.grad = None
    assert x.grad is None


def test_assigning_something_else_names_grad_and_what_to_assign():
    x = Tensor(np.zeros(2, dtype=np.float32), requires_grad=True)
    with pytest.raises(TypeError, match=r"Tensor.grad: assigned a list; assign a NumPy array"):
        x.grad = [1.0, 2.0]


@given(arrays(np.float32, array_shapes(max_dims=3), elements=finite))
def test_numpy_arithmetic_on_a_gradient_gives_plain_arrays(values):
    g = with_grad(values).grad
    for result in (g * 2, g + g, np.sqrt(np.abs(g)), 0.9 * np.zeros_like(values) + 0.1 * g):
        assert type(result) is np.ndarray
    assert not isinstance(np.sum(g), np.ndarray)


def test_zero_changes_the_gradient_in_place():
    x = with_grad([1.0, 2.0])
    g = x.grad
    x.grad.zero_()
    assert x.grad.tolist() == [0.0, 0.0] and g.tolist() == [0.0, 0.0]


def test_data_is_the_gradient_itself():
    x = with_grad([1.0, 2.0])
    x.grad.data.mul_(3.0)
    assert x.grad.data is x.grad and x.grad.tolist() == [3.0, 6.0]


def test_in_place_tensor_methods_change_the_gradient():
    x = with_grad([-3.0, 0.5, 2.0])
    x.grad.clamp_(-1.0, 1.0).add_(1.0)
    assert x.grad.tolist() == [0.0, 1.5, 2.0]


@given(arrays(np.float32, array_shapes(min_dims=1, max_dims=3), elements=finite))
def test_norm_is_a_tensor_of_the_two_norm(values):
    norm = with_grad(values).grad.norm()
    assert isinstance(norm, Tensor)
    np.testing.assert_allclose(norm.item(), np.linalg.norm(values.astype(np.float64)), rtol=1e-5,
                               atol=1e-6)


def test_size_is_numpys_count_and_called_pytorchs_shape():
    g = with_grad(np.ones((2, 3))).grad
    assert g.size == 6 and np.size(g) == 6
    assert g.size() == (2, 3) and g.size(1) == 3


def test_numpys_calls_mean_what_they_mean_in_numpy():
    values = np.array([[1.0, 5.0], [3.0, 2.0]], dtype=np.float32)
    g = with_grad(values).grad
    assert np.std(g) == np.std(values) and np.max(g, axis=0).tolist() == [3.0, 5.0]
    assert g.sum() == 11.0 and g.transpose().tolist() == values.T.tolist()
    assert np.repeat(g, 2).tolist() == np.repeat(values, 2).tolist()
    assert g.view(np.ndarray).dtype == np.float32 and type(g.view(np.ndarray)) is np.ndarray


def test_calls_only_pytorch_makes_mean_what_they_mean_in_pytorch():
    values = np.array([[1.0, 5.0], [3.0, 2.0]], dtype=np.float32)
    g = with_grad(values).grad
    assert g.sum(dim=0).tolist() == [4.0, 7.0]
    assert g.max(0).indices.tolist() == [1, 0]
    np.testing.assert_allclose(g.std().item(), np.std(values, ddof=1), rtol=1e-6)
    assert g.view(-1).tolist() == [1.0, 5.0, 3.0, 2.0]
    assert g.transpose(0, 1).tolist() == values.T.tolist()
    assert g.nonzero(as_tuple=True)[0].tolist() == [0, 0, 1, 1]


def test_a_gradient_prints_as_the_tensor_of_its_values():
    x = with_grad([1.0, 2.0])
    assert repr(x.grad) == repr(Tensor(np.array([1.0, 2.0], dtype=np.float32)))
    assert str(x.grad) == repr(x.grad)


def test_an_optimisers_state_stays_plain_numpy():
    w = Tensor(np.ones((2, 2), dtype=np.float32), requires_grad=True)
    opt = fw.optim.Adam([w], lr=0.1)
    for _ in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    arrays_in_state = [v for state in opt.state.values() for v in state.values()
                       if isinstance(v, np.ndarray)]
    assert arrays_in_state and all(type(v) is np.ndarray for v in arrays_in_state)


def test_a_leaf_with_its_gradient_copies_and_pickles():
    x = with_grad([1.0, 2.0])
    for twin in (copy.deepcopy(x), pickle.loads(pickle.dumps(x))):
        assert isinstance(twin.grad, GradArray) and twin.grad.tolist() == [1.0, 2.0]
        assert not np.shares_memory(twin.grad, x.grad)
