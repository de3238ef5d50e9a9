"""Chapter 2's gradient checks: `numerical_gradient` (exercise 2.1), central differences for
a function of an array, and `gradcheck` (provided), which compares an op's backward with it
through a random cotangent, in float64.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .tensor import Tensor

# -- exercise 2.1: the learner's own checker, for arrays ------------------------------------


def numerical_gradient(f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6):
    """∂f/∂x for a scalar function of an array, one central difference per element.

    Works on a float64 copy of x, so the caller's array is never changed.
    """
    ### BEGIN SOLUTION 2.1
    raise NotImplementedError("Exercise 2.1: Numerical gradient for arrays — see chapters/02_tensor.ipynb, '2.1 Checking gradients of arrays'")
    ### END SOLUTION


def gradcheck(
    fn: Callable[..., Tensor], *inputs: np.ndarray, eps: float = 1e-6,
    rtol: float = 1e-5, atol: float = 1e-6, seed: int = 0,
) -> bool:
    """Compare `backward` with `numerical_gradient` through a random cotangent, in float64.

    Returns True, or raises AssertionError naming the input and the largest error.
    """
    arrays = [np.array(x, dtype=np.float64) for x in inputs]
    leaves = [Tensor(x, requires_grad=True) for x in arrays]
    out = fn(*leaves)
    cotangent = np.random.default_rng(seed).standard_normal(out.shape)
    out.backward(cotangent)

    def probe(i: int) -> Callable[[np.ndarray], float]:
        def f(x: np.ndarray) -> float:
            values = [Tensor(x if j == i else a) for j, a in enumerate(arrays)]
            return float(np.sum(fn(*values).data * cotangent))

        return f

    for i, (x, leaf) in enumerate(zip(arrays, leaves)):
        expected = numerical_gradient(probe(i), x, eps)
        got = np.zeros_like(x) if leaf.grad is None else leaf.grad
        if not np.allclose(got, expected, rtol=rtol, atol=atol):
            error = np.max(np.abs(got - expected))
            raise AssertionError(
                f"gradcheck: input {i} (shape {x.shape}): backward and central differences "
                f"differ by up to {error:.3g}\n backward:  {got}\n numerical: {expected}"
            )
    return True
