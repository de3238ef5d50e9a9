"""Provided parts of chapter 1: error messages, no_grad, repr (the reference)."""

import pytest

from checks.loader import load_framework

fw = load_framework("solutions")


def test_a_non_number_operand_names_the_op_and_the_type():
    with pytest.raises(TypeError, match=r"mul: cannot combine a Value with str 'a'"):
        fw.Value(1.0) * "a"


def test_a_bool_operand_is_refused():
    with pytest.raises(TypeError, match="add: cannot combine a Value with bool"):
        fw.Value(1.0) + True


def test_log_of_a_non_positive_value_says_what_to_do():
    with pytest.raises(ValueError, match=r"log: the input must be positive, got -2.0; clamp"):
        fw.Value(-2.0).log()


def test_a_value_exponent_is_refused_with_the_workaround():
    with pytest.raises(TypeError, match=r"pow: the exponent must be a number, not a Value"):
        fw.Value(2.0) ** fw.Value(3.0)


def test_no_grad_records_no_parents():
    a = fw.Value(2.0)
    with fw.no_grad():
        out = a * a + 1.0
    assert out.parents == () and out.grad_fn is None and fw.is_grad_enabled()


def test_no_grad_works_as_a_decorator():
    @fw.no_grad()
    def double(x):
        return x * 2.0

    assert double(fw.Value(1.0)).parents == ()
    assert fw.is_grad_enabled()


def test_repr_shows_data_and_grad():
    assert repr(fw.Value(2.5)) == "Value(data=2.5, grad=0)"


def test_negation_and_reflected_ops_compose():
    a = fw.Value(3.0)
    out = 1.0 - a / 2.0 + (-a) * 2.0
    out.backward()
    assert out.data == pytest.approx(-6.5) and a.grad == pytest.approx(-2.5)
