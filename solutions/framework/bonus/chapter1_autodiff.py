"""Chapter 1's bonus track (optional): two more ops on `Value`, and gradient descent with them.

Nothing provided calls these functions: a learner who skips the bonus track loses nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..autodiff import Value

# -- bonus exercise 1.8 ------------------------------------------------------------------------


def value_abs(a: Value) -> Value:
    """c = |a|; dc/da = sign(a): 1 for a > 0, -1 for a < 0 and 0 at a = 0 (PyTorch's choice)."""
    ### BEGIN SOLUTION 1.8
    sign = (a.data > 0) - (a.data < 0)
    return Value(abs(a.data), (a,), lambda g, sign=sign: (g * sign,), "abs")
    ### END SOLUTION


def softplus(a: Value) -> Value:
    """c = ln(1 + eᵃ), finite for every finite a (softplus(1000) is 1000); dc/da = σ(a)."""
    ### BEGIN SOLUTION 1.8
    x = a.data
    c = max(x, 0.0) + math.log1p(math.exp(-abs(x)))
    s = 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))
    return Value(c, (a,), lambda g, s=s: (g * s,), "softplus")
    ### END SOLUTION


# -- bonus exercise 1.9 ------------------------------------------------------------------------


def gradient_descent(f: Callable[[Value], Value], x0: float, lr: float, steps: int) -> list[float]:
    """Minimise f from x0 by x ← x − lr · f′(x), f′(x) found by `backward()`.

    Returns the path [x₀, x₁, …, x_steps] as floats (steps + 1 of them).
    """
    ### BEGIN SOLUTION 1.9
    path = [float(x0)]
    for _ in range(steps):
        x = Value(path[-1])
        f(x).backward()
        path.append(path[-1] - lr * x.grad)
    return path
    ### END SOLUTION
