"""Chapter 1: the graph engine and a scalar `Value`.

The engine knows nothing about scalars: it walks any `Node` (the protocol below:
`parents`, `grad_fn`, `receive_grad`, `release`). `topological_order` and
`backpropagate`, the one reverse walk, use only these, so Chapter 2's `Tensor`
runs on the same engine: `Value.backward` and `Tensor.backward` both call
`backpropagate`. No rule ever captures the node it belongs to: a node points to
its parents, never back to itself, so a graph is freed by reference counting
alone, without waiting for the garbage collector.

What is kept, one rule for both node types. The walk frees the graph only when
told, `retain_graph=False`: then it calls `release()` on each non-leaf right after
its rule has run, and a later walk through that node raises `RuntimeError`.
`Tensor.backward` frees by default, as PyTorch's does (a tensor graph holds large
arrays); `Value.backward` and `backpropagate` keep it by default (a `Value` graph
is small, and Chapter 1 draws it and walks it twice). Both take `retain_graph` to
choose otherwise. What a node keeps of its gradient is its `receive_grad`'s to
say: a leaf of either type accumulates into `.grad` across walks, as in PyTorch;
an intermediate `Value` keeps this walk's gradient (so a drawn graph shows it),
an intermediate `Tensor` keeps none (PyTorch keeps one only after `retain_grad()`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Real
from typing import Any, Protocol, runtime_checkable

# the grad mode (`no_grad`, ...) is provided; it is exported here, where PyTorch users look
from .provided.grad_mode import (  # noqa: F401
    _grad_state,
    enable_grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)


@runtime_checkable
class Node(Protocol):
    """What the walk needs of a node, and what each part may change.

    `Value` and `Tensor` implement it; so may any class, e.g. a test's recording node.
    """

    parents: tuple
    """The nodes this one was computed from, () for a leaf. Read by the walk; only
    `release` changes it."""

    grad_fn: Callable[[Any], tuple] | None
    """The rule: maps this node's gradient to one share per parent, in `parents`' order
    (None for a parent that needs no gradient); None for a leaf. It may read what it
    saved in the forward pass but must change nothing, so a kept graph can be walked
    again."""

    def receive_grad(self, grad: Any) -> None:
        """Take this node's finished gradient from the walk: changes only the node's own
        record of it (`.grad`), never `grad`, which the walk may share with other nodes."""
        ...

    def release(self) -> None:
        """Called by a walk with `retain_graph=False` on a non-leaf once its rule has run:
        drop the rule and the parents (and what the rule saved), so a later walk through
        this node raises `RuntimeError` instead of computing a wrong gradient."""
        ...


def _freed(grad: Any) -> tuple:
    """The rule of a released node: a walk through it again is an error."""
    raise RuntimeError(
        "backward: this graph was already freed by an earlier backward(); pass "
        "retain_graph=True to the first backward() to walk a graph twice, or rebuild it"
    )


def numerical_derivative(f: Callable[[float], float], x: float, eps: float = 1e-6) -> float:
    """Central difference: f'(x) ≈ (f(x + eps) - f(x - eps)) / (2 eps), error O(eps²)."""
    ### BEGIN SOLUTION 1.1
    raise NotImplementedError("Exercise 1.1: Numerical derivative — see chapters/01_autodiff.ipynb, '1.1 Derivatives as slopes'")
    ### END SOLUTION


def topological_order(root: Node) -> list[Node]:
    """Every node `root` depends on, each once, parents before children; `root` last.

    Iterative depth-first search, so a chain of 100,000 nodes does not hit Python's
    recursion limit, and linear time: each node is expanded once and each edge
    looked at once.
    """
    ### BEGIN SOLUTION 1.6
    raise NotImplementedError("Exercise 1.6: Topological order — see chapters/01_autodiff.ipynb, '1.6 Walking the graph in order'")
    ### END SOLUTION


def backpropagate(root: Node, gradient: Any, retain_graph: bool = True) -> None:
    """Reverse-mode autodiff: give every node `root` depends on its gradient d(root)/d(node).

    `gradient` is root's own (1 for a scalar loss). A node's gradient is the sum of
    the shares its children's rules send it (the chain rule, summed over paths); in
    reversed topological order every child comes first, so it is finished when the
    node is reached, and goes to `node.receive_grad`. A share of None (an input that
    needs no gradient) is skipped. Unless `retain_graph`, each non-leaf node is
    `release()`d once its rule has run. Works on any `Node`.
    """
    ### BEGIN SOLUTION 1.7
    raise NotImplementedError("Exercise 1.7: Backward: the one reverse walk — see chapters/01_autodiff.ipynb, '1.7 Backward: the reverse walk'")
    ### END SOLUTION


def _check_number(op: str, other: object) -> None:
    # float and int first: they are the common case, and the check against the abstract
    # Real is slow (a Python-level __instancecheck__)
    if isinstance(other, bool) or not isinstance(other, (float, int, Value, Real)):
        raise TypeError(
            f"{op}: cannot combine a Value with {type(other).__name__} {other!r}; "
            "use a Value, an int or a float"
        )


def _as_value(op: str, other: float) -> Value:
    """A leaf for a plain number. Ops call it only for non-Values: a check is cheaper than a call."""
    _check_number(op, other)
    return Value(float(other))


class Value:
    """A scalar that remembers how it was computed, so it can be differentiated.

    >>> a, b = Value(2.0), Value(3.0)
    >>> c = a * b + a
    >>> c.backward()
    >>> a.grad, b.grad
    (4.0, 2.0)
    """

    __slots__ = ("data", "grad", "parents", "grad_fn", "op", "label", "__weakref__")

    def __init__(
        self,
        data: float,
        parents: tuple[Value, ...] = (),
        grad_fn: Callable[[float], tuple[float, ...]] | None = None,
        op: str = "",
        label: str = "",
    ) -> None:
        self.data = data
        self.grad = 0.0
        if _grad_state.enabled:
            self.parents = parents
            self.grad_fn = grad_fn
        else:
            self.parents = ()
            self.grad_fn = None
        self.op = op
        self.label = label

    def __repr__(self) -> str:
        return f"Value(data={self.data:.4g}, grad={self.grad:.4g})"

    # -- exercise 1.2: the two ops everything else is built from ------------

    def __add__(self, other: Value | float) -> Value:
        """c = a + b; dc/da = 1, dc/db = 1."""
        if not isinstance(other, Value):
            other = _as_value("add", other)
        ### BEGIN SOLUTION 1.2
        raise NotImplementedError("Exercise 1.2: Add and multiply — see chapters/01_autodiff.ipynb, '1.2 The first two ops: add and multiply'")
        ### END SOLUTION

    def __mul__(self, other: Value | float) -> Value:
        """c = a · b; dc/da = b, dc/db = a."""
        if not isinstance(other, Value):
            other = _as_value("mul", other)
        ### BEGIN SOLUTION 1.2
        raise NotImplementedError("Exercise 1.2: Add and multiply — see chapters/01_autodiff.ipynb, '1.2 The first two ops: add and multiply'")
        ### END SOLUTION

    # -- exercise 1.3: power, and two ops derived from the ones above ----------

    def __pow__(self, n: float) -> Value:
        """c = aⁿ for a number n; dc/da = n · aⁿ⁻¹."""
        if isinstance(n, Value):
            raise TypeError(
                "pow: the exponent must be a number, not a Value; "
                "for a Value exponent write (n * a.log()).exp()"
            )
        _check_number("pow", n)
        ### BEGIN SOLUTION 1.3
        raise NotImplementedError("Exercise 1.3: Power, subtraction and division — see chapters/01_autodiff.ipynb, '1.3 Power, and ops for free'")
        ### END SOLUTION

    def __sub__(self, other: Value | float) -> Value:
        """a - b = a + (-1)·b: no new derivative needed."""
        if not isinstance(other, Value):
            other = _as_value("sub", other)
        ### BEGIN SOLUTION 1.3
        raise NotImplementedError("Exercise 1.3: Power, subtraction and division — see chapters/01_autodiff.ipynb, '1.3 Power, and ops for free'")
        ### END SOLUTION

    def __truediv__(self, other: Value | float) -> Value:
        """a / b = a · b⁻¹: no new derivative needed."""
        if not isinstance(other, Value):
            other = _as_value("div", other)
        ### BEGIN SOLUTION 1.3
        raise NotImplementedError("Exercise 1.3: Power, subtraction and division — see chapters/01_autodiff.ipynb, '1.3 Power, and ops for free'")
        ### END SOLUTION

    def __neg__(self) -> Value:
        return self * -1.0

    def __radd__(self, other: float) -> Value:
        return _as_value("add", other) + self

    def __rsub__(self, other: float) -> Value:
        return _as_value("sub", other) - self

    def __rmul__(self, other: float) -> Value:
        return _as_value("mul", other) * self

    def __rtruediv__(self, other: float) -> Value:
        return _as_value("div", other) / self

    # -- exercise 1.4 ----------------------------------------------------------

    def exp(self) -> Value:
        """c = eᵃ; dc/da = eᵃ = c."""
        ### BEGIN SOLUTION 1.4
        raise NotImplementedError("Exercise 1.4: Exp and log — see chapters/01_autodiff.ipynb, '1.4 Exp and log'")
        ### END SOLUTION

    def log(self) -> Value:
        """c = ln a for a > 0; dc/da = 1/a."""
        if self.data <= 0:
            raise ValueError(
                f"log: the input must be positive, got {self.data!r}; "
                "clamp it first, or add a small epsilon"
            )
        ### BEGIN SOLUTION 1.4
        raise NotImplementedError("Exercise 1.4: Exp and log — see chapters/01_autodiff.ipynb, '1.4 Exp and log'")
        ### END SOLUTION

    # -- exercise 1.5 ----------------------------------------------------------

    def tanh(self) -> Value:
        """c = tanh a; dc/da = 1 - c²."""
        ### BEGIN SOLUTION 1.5
        raise NotImplementedError("Exercise 1.5: Tanh, ReLU and sigmoid — see chapters/01_autodiff.ipynb, '1.5 Activations: tanh, ReLU, sigmoid'")
        ### END SOLUTION

    def relu(self) -> Value:
        """c = max(a, 0); dc/da = 1 if a > 0 else 0."""
        ### BEGIN SOLUTION 1.5
        raise NotImplementedError("Exercise 1.5: Tanh, ReLU and sigmoid — see chapters/01_autodiff.ipynb, '1.5 Activations: tanh, ReLU, sigmoid'")
        ### END SOLUTION

    def sigmoid(self) -> Value:
        """c = 1 / (1 + e⁻ᵃ), never exponentiating a large positive number; dc/da = c(1 - c)."""
        ### BEGIN SOLUTION 1.5
        raise NotImplementedError("Exercise 1.5: Tanh, ReLU and sigmoid — see chapters/01_autodiff.ipynb, '1.5 Activations: tanh, ReLU, sigmoid'")
        ### END SOLUTION

    # -- exercise 1.7: how a Value takes its gradient from the walk ----------

    def receive_grad(self, grad: float) -> None:
        """The walk's hook: a leaf does .grad ← .grad + grad (accumulating across calls, as in
        PyTorch; zero it between steps); an intermediate node keeps this call's grad."""
        ### BEGIN SOLUTION 1.7
        raise NotImplementedError("Exercise 1.7: Backward: the one reverse walk — see chapters/01_autodiff.ipynb, '1.7 Backward: the reverse walk'")
        ### END SOLUTION

    def release(self) -> None:
        """The walk's other hook (retain_graph=False): drop the rule and the parents; a later
        walk through this node raises RuntimeError."""
        self.grad_fn = _freed
        self.parents = ()

    def backward(self, retain_graph: bool = True) -> None:
        """Fill `.grad` of every node this one depends on with d(self)/d(node).

        Leaves accumulate (+=) across calls, as in PyTorch; zero them between steps.
        The graph is kept unless `retain_graph=False` (the module's docstring says why
        this default differs from `Tensor.backward`'s), so backward() may run on it again.
        """
        backpropagate(self, 1.0, retain_graph)
