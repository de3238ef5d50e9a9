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


def test_value_and_tensor_implement_the_node_protocol():
    value = fw.Value(2.0) * fw.Value(3.0)
    tensor = fw.tensor([1.0, 2.0], requires_grad=True) * 2.0
    assert isinstance(value, fw.autodiff.Node) and isinstance(tensor, fw.autodiff.Node)


def test_backpropagate_frees_a_value_graph_without_retain_graph():
    x = fw.Value(2.0)
    y = x * x
    fw.backpropagate(y, 1.0, retain_graph=False)
    assert x.grad == 4.0 and y.parents == ()
    with pytest.raises(RuntimeError, match="already freed.*retain_graph=True"):
        y.backward()


def test_value_backward_keeps_its_graph_unless_told_not_to():
    x = fw.Value(1.5)
    y = x * x
    y.backward()
    y.backward()
    assert x.grad == 2 * 3.0
    y.backward(retain_graph=False)
    with pytest.raises(RuntimeError, match="already freed"):
        y.backward()


def test_backpropagate_walks_any_node_that_implements_the_protocol():
    class Scalar:
        def __init__(self, parents=(), grad_fn=None):
            self.parents, self.grad_fn, self.grad, self.released = parents, grad_fn, 0.0, False

        def receive_grad(self, grad):
            self.grad += grad

        def release(self):
            self.released = True

    leaf = Scalar()
    root = Scalar((leaf,), lambda g: (3.0 * g,))
    assert isinstance(root, fw.autodiff.Node)
    fw.backpropagate(root, 2.0, retain_graph=False)
    assert leaf.grad == 6.0 and root.released and not leaf.released
