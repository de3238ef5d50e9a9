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
    raise NotImplementedError("Exercise 1.8: Abs and softplus on Value (bonus) — see chapters/01_autodiff.ipynb, '1.8 Bonus: abs and softplus'")
    ### END SOLUTION


def softplus(a: Value) -> Value:
    """c = ln(1 + eᵃ), finite for every finite a (softplus(1000) is 1000); dc/da = σ(a)."""
    ### BEGIN SOLUTION 1.8
    raise NotImplementedError("Exercise 1.8: Abs and softplus on Value (bonus) — see chapters/01_autodiff.ipynb, '1.8 Bonus: abs and softplus'")
    ### END SOLUTION


# -- bonus exercise 1.9 ------------------------------------------------------------------------


def gradient_descent(f: Callable[[Value], Value], x0: float, lr: float, steps: int) -> list[float]:
    """Minimise f from x0 by x ← x − lr · f′(x), f′(x) found by `backward()`.

    Returns the path [x₀, x₁, …, x_steps] as floats (steps + 1 of them).
    """
    ### BEGIN SOLUTION 1.9
    raise NotImplementedError("Exercise 1.9: Gradient descent with backward() (bonus) — see chapters/01_autodiff.ipynb, '1.9 Bonus: gradient descent'")
    ### END SOLUTION
