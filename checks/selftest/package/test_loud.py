"""A name the framework lacks is an error of ours (provided/loud.py), and the names refused on
purpose say why and what to do: the coverage table's "loud" (issue 38). The error is the same
AttributeError Python raises, so `hasattr`, `getattr(x, name, default)`, copy and pickle work
as before. A tensor answers so for PyTorch's tensor names (tensor_names.py) by descriptors, not
a class `__getattr__`, so an attribute that exists is read as fast as before."""

from __future__ import annotations

import copy
import importlib
import json
import pickle

import numpy as np
import pytest

from checks.external import coverage
from checks.loader import load_framework

fw = load_framework("solutions")
Tensor = fw.Tensor
loud = importlib.import_module("framework.provided.loud")

MODULES = {
    "framework": lambda: fw,
    "framework.nn": lambda: importlib.import_module("framework.nn"),
    "framework.nn.functional": lambda: importlib.import_module("framework.nn.functional"),
    "framework.utils.data": lambda: importlib.import_module("framework.utils.data"),
    "framework.utils": lambda: importlib.import_module("framework.utils"),
}
TENSORS = {"Tensor": lambda: Tensor(np.ones(2)),
           "Parameter": lambda: fw.nn.Parameter(np.ones(2, np.float32))}
OWNERS = {**MODULES, **TENSORS}


@pytest.mark.parametrize("owner", MODULES)
@pytest.mark.parametrize("name", ["lstsq", "Conv3d", "lstm_cell_typo"])
def test_a_name_a_package_lacks_says_so_names_the_package_and_what_to_do(owner, name):
    with pytest.raises(AttributeError) as caught:
        getattr(MODULES[owner](), name)
    message = str(caught.value)
    assert message.startswith(f"{owner} has no attribute {name!r}: the framework has no such name")
    assert "not supported yet" in message and "coverage table" in message
    assert "autograd.Function" in message


@pytest.mark.parametrize("owner", TENSORS)
@pytest.mark.parametrize("name", ["lstsq", "addbmm", "H"])
def test_a_pytorch_tensor_name_a_tensor_lacks_is_named_as_pytorchs(owner, name):
    for where in (TENSORS[owner](), Tensor):
        with pytest.raises(AttributeError) as caught:
            getattr(where, name)
        message = str(caught.value)
        assert message.startswith(f"{type(where).__name__ if where is not Tensor else 'Tensor'} "
                                  f"has no attribute {name!r}: PyTorch's ")
        assert "not supported yet" in message and "autograd.Function" in message


def test_a_typo_on_a_tensor_gets_pythons_own_error():
    with pytest.raises(AttributeError, match=r"^'Tensor' object has no attribute 'sizee'$"):
        Tensor(np.ones(2)).sizee  # noqa: B018


def test_the_tensor_names_are_pytorchs_as_saved():
    names = json.loads(coverage.NAMES_FILE.read_text())
    expected = coverage.tensor_names_module(names["torch_version"], names["torch.Tensor"])
    assert coverage.TENSOR_NAMES_FILE.read_text() == expected, (
        "provided/tensor_names.py is not torch.Tensor's names of pytorch_names.json: "
        "python -m checks.external.coverage --save-names")


def test_a_defined_name_is_never_shadowed_by_a_not_yet_one():
    """LoudMethods is the last of Tensor's bases that define names: any class after it in the
    method resolution order would have its PyTorch-named attributes hidden by a NotYet."""
    mro = Tensor.__mro__
    after = mro[mro.index(loud.LoudMethods) + 1:]
    hidden = {f"{c.__name__}.{n}" for c in after for n in vars(c) if n in loud.TENSOR_NAMES}
    assert not hidden, f"hidden by a NotYet: {sorted(hidden)}"
    assert Tensor(np.ones(2)).sum().item() == 2.0 and not isinstance(vars(Tensor).get("sum"), loud.NotYet)


@pytest.mark.parametrize("owner", OWNERS)
def test_a_private_or_dunder_name_keeps_pythons_short_error(owner):
    for name in ("__wrapped__", "_not_here"):
        with pytest.raises(AttributeError) as caught:
            getattr(OWNERS[owner](), name)
        assert "no such name" not in str(caught.value)
        assert not hasattr(OWNERS[owner](), name)


def test_hasattr_and_getattr_with_a_default_answer_as_before():
    x = Tensor(np.ones(2))
    assert not hasattr(x, "lstsq") and getattr(x, "lstsq", 3) == 3 and hasattr(x, "sum")
    assert not hasattr(fw, "lstsq") and hasattr(fw, "tensor")


def test_a_tensor_copies_and_pickles_with_its_values():
    x = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    for twin in (copy.deepcopy(x), copy.copy(x), pickle.loads(pickle.dumps(x))):
        assert np.array_equal(twin.data, x.data) and twin.requires_grad


@pytest.mark.parametrize("name", sorted(loud.REFUSED))
def test_a_refused_name_says_why_and_what_to_do(name):
    x = Tensor(np.ones(2))
    for call in (lambda: getattr(x, name)(), lambda: getattr(fw, name)(x)):
        with pytest.raises(NotImplementedError, match=rf"^{name}: .*(complex|NumPy has no)"):
            call()


@pytest.mark.parametrize("name", loud.IN_PLACE_REFUSED)
def test_an_in_place_form_of_a_refused_name_is_refused_alike(name):
    with pytest.raises(NotImplementedError, match=rf"^{name}: "):
        getattr(Tensor(np.ones(2)), name)()


@pytest.mark.parametrize("call", [lambda x: x.cumprod(0), lambda x: fw.logcumsumexp(x, 0),
                                  lambda x: x.cumsum_(0), lambda x: x.cumprod_(0)])
def test_the_running_products_and_sums_are_bonus_2_11s_and_refused(call):
    with pytest.raises(NotImplementedError, match=r"bonus exercise 2.11"):
        call(Tensor(np.ones(3)))



@pytest.mark.parametrize("call", [lambda x: x.logsumexp(0), lambda x: fw.logsumexp(x, 0)])
def test_logsumexp_is_bonus_2_12s_and_refused(call):
    with pytest.raises(NotImplementedError, match=r"bonus exercise 2.12"):
        call(Tensor(np.ones(3)))


@pytest.mark.parametrize("name", ["softplus", "logsigmoid", "mish", "soft_margin_loss"])
def test_softplus_under_any_of_its_names_is_bonus_3_8s_and_refused(name):
    F = importlib.import_module("framework.nn.functional")
    with pytest.raises(NotImplementedError, match=rf"^F.{name} is not provided: .*bonus exercise 3.8"):
        getattr(F, name)(Tensor(np.ones(3)), Tensor(np.ones(3)))


@pytest.mark.parametrize("name, exercise", [("Softplus", "3.8"), ("LogSigmoid", "3.8"), ("Mish", "3.8"),
                                            ("SoftMarginLoss", "3.8"), ("HuberLoss", "3.9"),
                                            ("SmoothL1Loss", "3.9")])
def test_the_module_forms_of_bonus_answers_are_refused_when_made(name, exercise):
    with pytest.raises(NotImplementedError, match=rf"^nn.{name} is not provided: .*{exercise}"):
        getattr(fw.nn, name)()


def test_huber_loss_is_bonus_3_9s_and_refused():
    F = importlib.import_module("framework.nn.functional")
    with pytest.raises(NotImplementedError, match=r"^F.huber_loss is not provided: .*3.9"):
        F.huber_loss(Tensor(np.ones(2)), np.ones(2))
