"""Provided PyTorch surface of `framework.nn` (the reference): the loss modules and the losses
they add to `functional` (nll_loss, l1_loss, binary_cross_entropy), the deprecated
size_average= and reduce= every loss takes, `nn.utils`, and the
arguments of `torch.load` that `framework.load` takes.
"""

import importlib
import inspect
import math
import os
import tempfile

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.loader import load_framework

fw = load_framework("solutions")
nn = importlib.import_module("framework.nn")
F = importlib.import_module("framework.nn.functional")
utils = importlib.import_module("framework.nn.utils")

finite = st.floats(-3, 3, allow_nan=False, width=64)


def log_softmax(x):
    shifted = x - x.max(1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(1, keepdims=True))


# -- the loss modules: PyTorch's defaults, the functional forms' values ----------------------------


def test_loss_modules_default_to_the_mean_as_pytorch():
    for cls in (nn.CrossEntropyLoss, nn.NLLLoss, nn.MSELoss, nn.L1Loss, nn.BCELoss, nn.BCEWithLogitsLoss):
        assert cls().reduction == "mean", cls.__name__
    assert nn.CrossEntropyLoss().ignore_index == -100 and nn.CrossEntropyLoss().label_smoothing == 0.0
    assert nn.NLLLoss().ignore_index == -100


def test_cross_entropy_loss_is_the_functional_form_with_its_options():
    logits = fw.Tensor(np.linspace(-2, 2, 12).reshape(4, 3))
    targets = np.array([0, 2, -1, 1])
    module = nn.CrossEntropyLoss(ignore_index=-1, reduction="none", label_smoothing=0.1)
    expected = F.cross_entropy(logits, targets, ignore_index=-1, reduction="none", label_smoothing=0.1)
    np.testing.assert_array_equal(module(logits, targets).data, expected.data)
    assert module(logits, targets).data[2] == 0


@pytest.mark.parametrize("cls, argument", [
    (nn.CrossEntropyLoss, "weight"), (nn.NLLLoss, "weight"), (nn.BCELoss, "weight"),
    (nn.BCEWithLogitsLoss, "pos_weight"),
])
def test_unsupported_pytorch_arguments_raise_naming_them(cls, argument):
    message = rf"{cls.__name__}: the argument {argument}= is not supported"
    with pytest.raises(NotImplementedError, match=message):
        cls(**{argument: np.ones(3)})


# -- PyTorch's deprecated size_average= and reduce=, mapped to a reduction as PyTorch maps them ------

LOSS_MODULES = (nn.CrossEntropyLoss, nn.NLLLoss, nn.MSELoss, nn.L1Loss, nn.BCELoss, nn.BCEWithLogitsLoss)
LOSS_FUNCTIONS = ("cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy",
                  "binary_cross_entropy_with_logits", "smooth_l1_loss")
LEGACY = [  # (size_average, reduce) → reduction: reduce=False wins, then size_average=False
    ((False, None), "sum"), ((None, False), "none"), ((True, False), "none"), ((False, False), "none"),
    ((True, None), "mean"), ((None, True), "mean"), ((True, True), "mean"), ((False, True), "sum"),
]


@pytest.mark.parametrize("legacy, reduction", LEGACY)
def test_loss_modules_map_size_average_and_reduce_to_pytorchs_reduction(legacy, reduction):
    size_average, reduce = legacy
    for cls in LOSS_MODULES:
        with pytest.warns(UserWarning):
            assert cls(size_average=size_average, reduce=reduce).reduction == reduction, cls.__name__


@pytest.mark.parametrize("legacy, reduction", LEGACY)
def test_loss_functions_map_size_average_and_reduce_to_pytorchs_reduction(legacy, reduction):
    size_average, reduce = legacy
    x = fw.Tensor(np.linspace(-1, 1, 6).reshape(2, 3))
    with pytest.warns(UserWarning):
        got = F.mse_loss(x, np.zeros((2, 3)), size_average=size_average, reduce=reduce)
    np.testing.assert_array_equal(got.data, F.mse_loss(x, np.zeros((2, 3)), reduction=reduction).data)


def test_the_legacy_arguments_warn_naming_the_loss_and_the_reduction_to_pass():
    p, y = fw.Tensor(np.array([0.25, 0.5])), np.array([0.0, 1.0])
    with pytest.warns(UserWarning, match=r"binary_cross_entropy: size_average= and reduce= are "
                                         r"deprecated .*reduction='sum': pass that instead"):
        F.binary_cross_entropy(p, y, size_average=False)
    with pytest.warns(UserWarning, match=r"L1Loss: size_average= and reduce= .*reduction='none'"):
        nn.L1Loss(reduce=False)


def test_without_the_legacy_arguments_nothing_warns(recwarn):
    nn.MSELoss(reduction="sum")(fw.Tensor(np.ones(3)), np.zeros(3))
    F.l1_loss(fw.Tensor(np.ones(3)), np.zeros(3), reduction="none")
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("name", LOSS_FUNCTIONS)
def test_every_loss_function_shows_the_legacy_arguments_in_its_signature(name):
    parameters = inspect.signature(getattr(F, name)).parameters
    assert parameters["size_average"].default is None and parameters["reduce"].default is None
    assert "reduction" in parameters


def test_a_bad_reduction_is_an_error_at_construction():
    with pytest.raises(ValueError, match=r"MSELoss: reduction must be one of"):
        nn.MSELoss(reduction="average")


@given(x=arrays(np.float64, (3, 4), elements=finite), reduction=st.sampled_from(["mean", "sum", "none"]))
def test_nll_loss_picks_minus_the_target_entry(x, reduction):
    targets = np.array([1, -100, 3])
    got = nn.NLLLoss(reduction=reduction)(fw.Tensor(x), targets).data
    losses = np.array([-x[0, 1], 0.0, -x[2, 3]])
    expected = {"mean": losses.sum() / 2, "sum": losses.sum(), "none": losses}[reduction]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert fw.gradcheck(lambda t: F.nll_loss(t, targets, reduction=reduction), x)


@given(x=arrays(np.float64, (5, 3), elements=finite))
def test_cross_entropy_is_nll_of_log_softmax(x):
    targets = np.array([0, 1, 2, 1, 0])
    np.testing.assert_allclose(F.nll_loss(F.log_softmax(fw.Tensor(x), axis=1), targets).data,
                               F.cross_entropy(fw.Tensor(x), targets).data, rtol=1e-10)


def test_nll_loss_of_only_ignored_rows_is_nan_as_pytorch():
    assert math.isnan(F.nll_loss(fw.Tensor(np.zeros((2, 3))), np.array([-100, -100])).item())


def test_nll_loss_names_itself_in_target_errors():
    with pytest.raises(ValueError, match=r"nll_loss: targets must be integer class indices"):
        F.nll_loss(fw.Tensor(np.zeros((2, 3))), np.array([0.5, 1.0]))
    with pytest.raises(IndexError, match=r"nll_loss: target 3 is not a class of 0..2"):
        F.nll_loss(fw.Tensor(np.zeros((2, 3))), np.array([0, 3]))


@given(a=arrays(np.float64, (2, 3), elements=finite), b=arrays(np.float64, (2, 3), elements=finite),
       reduction=st.sampled_from(["mean", "sum", "none"]))
def test_l1_loss_values_and_gradient(a, b, reduction):
    diff = np.abs(a - b)
    expected = {"mean": diff.mean(), "sum": diff.sum(), "none": diff}[reduction]
    np.testing.assert_allclose(nn.L1Loss(reduction=reduction)(fw.Tensor(a), fw.Tensor(b)).data, expected)
    if np.all(np.abs(a - b) > 1e-3):  # |x| has no derivative at 0
        assert fw.gradcheck(lambda x: F.l1_loss(x, fw.Tensor(b), reduction=reduction), a)


@given(p=arrays(np.float64, (6,), elements=st.floats(0.01, 0.99)),
       y=arrays(np.float64, (6,), elements=st.floats(0, 1)))
def test_binary_cross_entropy_values_and_gradient(p, y):
    expected = -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
    np.testing.assert_allclose(nn.BCELoss()(fw.Tensor(p), fw.Tensor(y)).item(), expected, rtol=1e-10)
    assert fw.gradcheck(lambda t: F.binary_cross_entropy(t, fw.Tensor(y)), p)


def test_binary_cross_entropy_clamps_its_logs_at_minus_100_as_pytorch():
    losses = F.binary_cross_entropy(fw.Tensor(np.array([0.0, 1.0, 1.0])), np.array([1.0, 0.0, 1.0]),
                                    reduction="none")
    np.testing.assert_array_equal(losses.data, [100.0, 100.0, 0.0])


def test_binary_cross_entropy_rejects_values_outside_0_1():
    with pytest.raises(ValueError, match=r"binary_cross_entropy: input values must be probabilities"):
        nn.BCELoss()(fw.Tensor(np.array([0.5, 1.5])), np.array([0.0, 1.0]))


def test_bce_with_logits_loss_matches_bce_of_the_sigmoid():
    x = np.linspace(-4, 4, 7)
    y = (np.arange(7) % 2).astype(np.float64)
    np.testing.assert_allclose(nn.BCEWithLogitsLoss(reduction="sum")(fw.Tensor(x), y).item(),
                               nn.BCELoss(reduction="sum")(fw.Tensor(x).sigmoid(), y).item(), rtol=1e-10)


def test_loss_modules_keep_float32():
    x = fw.Tensor(np.zeros((2, 3), np.float32), requires_grad=True)
    for loss in (nn.CrossEntropyLoss()(x, np.array([0, 1])), nn.NLLLoss()(x, np.array([0, 1])),
                 nn.MSELoss()(x, np.ones((2, 3), np.float32)), nn.L1Loss()(x, np.ones((2, 3), np.float32))):
        assert loss.data.dtype == np.float32


# -- nn.utils -----------------------------------------------------------------------------------------


def with_grads(*grads):
    params = [fw.Tensor(np.zeros_like(g), requires_grad=True) for g in grads]
    for p, g in zip(params, grads):
        p.grad = np.array(g)
    return params


def test_clip_grad_norm_returns_the_total_norm_as_a_tensor_in_the_grads_dtype():
    params = with_grads(np.array([3.0, 0.0], np.float32), np.array([[4.0]], np.float32))
    total = utils.clip_grad_norm_(params, max_norm=1.0)
    assert isinstance(total, fw.Tensor) and total.data.dtype == np.float32 and total.item() == 5.0
    np.testing.assert_allclose(params[0].grad, [0.6, 0.0], rtol=1e-5)
    np.testing.assert_allclose(params[1].grad, [[0.8]], rtol=1e-5)


def test_clip_grad_norm_error_if_nonfinite():
    params = with_grads(np.array([np.inf, 1.0]))
    with pytest.raises(RuntimeError, match=r"clip_grad_norm_: the total norm of order 2.0 .* is inf"):
        utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)


def test_clip_grad_value_clamps_each_element_in_place():
    params = with_grads(np.array([-3.0, 0.5, 2.0]))
    grad = params[0].grad
    assert utils.clip_grad_value_(params, 1.0) is None
    assert params[0].grad is grad
    np.testing.assert_array_equal(grad, [-1.0, 0.5, 1.0])
    with pytest.raises(ValueError, match=r"clip_value=-1 must be >= 0"):
        utils.clip_grad_value_(params, -1)


def test_parameters_to_vector_and_back():
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    vec = utils.parameters_to_vector(model.parameters())
    assert vec.shape == (2 * 3 + 3 + 3 + 1,)
    vec.sum().backward()
    assert all(np.all(p.grad == 1) for p in model.parameters())
    utils.vector_to_parameters(np.arange(13.0), model.parameters())
    np.testing.assert_array_equal(model[0].weight.data, np.arange(6.0).reshape(3, 2))
    np.testing.assert_array_equal(model[1].bias.data, [12.0])
    with pytest.raises(ValueError, match=r"vec of shape \(12,\) for parameters holding 13 numbers"):
        utils.vector_to_parameters(np.zeros(12), model.parameters())


# -- torch.load's arguments ----------------------------------------------------------------------------


def test_load_takes_pytorchs_map_location_and_weights_only():
    model = nn.Linear(2, 3)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.pt")
        fw.save(model.state_dict(), path)
        state = fw.load(path, map_location="cpu", weights_only=True)
        with pytest.raises(ValueError, match=r"load: map_location='cuda:0'; the framework runs on the CPU"):
            fw.load(path, map_location="cuda:0")
    np.testing.assert_array_equal(state["weight"], model.weight.data)


def test_binary_cross_entropy_gradient_is_finite_at_probabilities_0_and_1():
    """PyTorch's rule, (p - y) / max(p(1 - p), 1e-12) per element: no 0/0 where p is 0 or 1."""
    p = fw.Tensor(np.array([0.0, 0.5, 1.0]), requires_grad=True)
    y = np.array([1.0, 1.0, 0.0])
    loss = nn.functional.binary_cross_entropy(p, y)
    loss.backward()
    assert math.isclose(loss.item(), (100 + math.log(2) + 100) / 3, rel_tol=1e-12)
    np.testing.assert_allclose(p.grad, (p.data - y) / np.maximum(p.data * (1 - p.data), 1e-12) / 3)


@given(p=arrays(np.float64, 5, elements=st.floats(0.05, 0.95)),
       y=arrays(np.float64, 5, elements=st.floats(0.0, 1.0)), seed=st.integers(0, 2**16))
def test_binary_cross_entropy_gradients_match_central_differences(p, y, seed):
    assert fw.gradcheck(lambda a, b: nn.functional.binary_cross_entropy(a, b, reduction="none"),
                        p, y, seed=seed)
