"""A name the framework lacks is an error of ours (provided/loud.py), and the names refused on
purpose say why and what to do: the coverage table's "loud" (issue 38). The error is the same
AttributeError Python raises, so `hasattr`, `getattr(x, name, default)`, copy and pickle work
as before, and an attribute that exists is found without calling it."""

from __future__ import annotations

import copy
import importlib
import pickle

import numpy as np
import pytest

from checks.loader import load_framework

fw = load_framework("solutions")
Tensor = fw.Tensor
loud = importlib.import_module("framework.provided.loud")

OWNERS = {
    "framework": lambda: fw,
    "framework.nn": lambda: importlib.import_module("framework.nn"),
    "framework.nn.functional": lambda: importlib.import_module("framework.nn.functional"),
    "framework.utils.data": lambda: importlib.import_module("framework.utils.data"),
    "framework.utils": lambda: importlib.import_module("framework.utils"),
    "Tensor": lambda: Tensor(np.ones(2)),
    "Parameter": lambda: fw.nn.Parameter(np.ones(2, np.float32)),
}


@pytest.mark.parametrize("owner", OWNERS)
@pytest.mark.parametrize("name", ["lstsq", "LSTM", "lstm_cell_typo"])
def test_a_missing_name_says_so_names_the_owner_and_what_to_do(owner, name):
    with pytest.raises(AttributeError) as caught:
        getattr(OWNERS[owner](), name)
    message = str(caught.value)
    assert message.startswith(f"{owner} has no attribute {name!r}: the framework has no such name")
    assert "not supported yet" in message and "coverage table" in message
    assert "autograd.Function" in message


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


def test_an_unset_slot_or_a_failing_property_keeps_its_own_error():
    bare = Tensor.__new__(Tensor)
    with pytest.raises(AttributeError) as caught:
        bare.data  # noqa: B018
    assert "no such name" not in str(caught.value) and "data" in str(caught.value)


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

