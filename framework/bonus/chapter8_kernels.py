"""Chapter 8's bonus track (optional): lazy elementwise expressions fused into one kernel
(8.8), and cross-entropy fused with its gradient (8.9).

tinygrad's idea. `a * b + c.exp()` on NumPy arrays makes three passes over memory and two
temporary arrays. A `Lazy` value computes nothing: it records the op and its inputs. When
the value is needed (`realize()`), the whole expression becomes the text of ONE Numba kernel,
`out[i] = a0[i] * a1[i] + math.exp(a2[i])`, compiled once per expression's shape of ops
(kept by its text) and run over the elements on every core: one pass, no temporaries.

A language model's last op reads the logits (M, V) three times in NumPy (the max, the sum of
exponentials, the gradient's softmax) and writes the softmax; 8.9 does each row in one
kernel that returns the losses and the gradient together.

Nothing provided calls this file: a learner who skips the bonus track loses nothing.
"""

from __future__ import annotations

import math

import numpy as np

from ..provided.jit import njit, prange

#: op → (how many inputs, the Python text of the op on its inputs' texts)
TEMPLATES = {
    "add": (2, "({} + {})"), "sub": (2, "({} - {})"), "mul": (2, "({} * {})"),
    "div": (2, "({} / {})"), "neg": (1, "(-{})"), "exp": (1, "math.exp({})"),
    "log": (1, "math.log({})"), "tanh": (1, "math.tanh({})"), "maximum": (2, "max({}, {})"),
}


class Lazy:
    """An elementwise value not computed yet: a leaf holding a 1-D array, a constant, or an op.

    `op` is "leaf", "const" or a key of TEMPLATES; `inputs` are Lazy values; `array` (leaves)
    and `value` (constants) hold the data. Every leaf of one expression has one length and dtype.
    """

    def __init__(self, op: str, inputs: tuple[Lazy, ...] = (), array: np.ndarray | None = None,
                 value: float | None = None) -> None:
        self.op, self.inputs, self.array, self.value = op, inputs, array, value

    @staticmethod
    def of(array: np.ndarray) -> Lazy:
        array = np.asarray(array)
        if array.ndim != 1 or array.dtype not in (np.float32, np.float64):
            raise TypeError(f"Lazy.of: a 1-D float32 or float64 array, not shape {array.shape} "
                            f"{array.dtype}")
        return Lazy("leaf", array=array)

    @staticmethod
    def _wrap(x) -> Lazy:
        if isinstance(x, Lazy):
            return x
        if isinstance(x, (int, float)) and math.isfinite(x):
            return Lazy("const", value=float(x))
        raise TypeError(f"Lazy: an operand must be a Lazy value or a finite number, not {x!r}")

    def _op(self, op: str, *others) -> Lazy:
        return Lazy(op, (self,) + tuple(Lazy._wrap(o) for o in others))

    def __add__(self, other): return self._op("add", other)
    def __radd__(self, other): return Lazy._wrap(other)._op("add", self)
    def __sub__(self, other): return self._op("sub", other)
    def __rsub__(self, other): return Lazy._wrap(other)._op("sub", self)
    def __mul__(self, other): return self._op("mul", other)
    def __rmul__(self, other): return Lazy._wrap(other)._op("mul", self)
    def __truediv__(self, other): return self._op("div", other)
    def __rtruediv__(self, other): return Lazy._wrap(other)._op("div", self)
    def __neg__(self): return self._op("neg")
    def exp(self): return self._op("exp")
    def log(self): return self._op("log")
    def tanh(self): return self._op("tanh")
    def maximum(self, other): return self._op("maximum", other)

    def leaves(self) -> list[np.ndarray]:
        """The distinct leaf arrays, in the order a depth-first walk (inputs left to right) meets
        them; one array used twice is one leaf."""
        found: dict[int, np.ndarray] = {}
        stack = [self]
        while stack:
            node = stack.pop()
            if node.op == "leaf":
                found.setdefault(id(node.array), node.array)
            stack.extend(reversed(node.inputs))
        return list(found.values())

    def realize(self) -> np.ndarray:
        """The value, computed by one compiled kernel: out[i] = this expression at element i."""
        leaves = self.leaves()
        if not leaves:
            raise ValueError("Lazy.realize: the expression holds no array, only constants")
        shapes = {(a.shape, a.dtype) for a in leaves}
        if len(shapes) > 1:
            raise ValueError(f"Lazy.realize: the arrays differ in shape or dtype: {sorted(map(str, shapes))}")
        positions = {id(a): k for k, a in enumerate(leaves)}
        kernel = _compiled(expression_source(self, positions), len(leaves))
        out = np.empty_like(leaves[0])
        kernel(out, *leaves)
        return out


# -- bonus exercise 8.8 ------------------------------------------------------------------------


def expression_source(node: Lazy, positions: dict[int, int]) -> str:
    """The Python text of `node` at element i: a leaf is `a{k}[i]` with k = positions[id(array)],
    a constant its repr, an op its TEMPLATES text filled with its inputs' texts, in order."""
    ### BEGIN SOLUTION 8.8
    raise NotImplementedError("Exercise 8.8: Lazy expressions fused into one kernel (bonus) — see chapters/08_kernels.ipynb, '8.8 Bonus: lazy fusion, tinygrad's idea'")
    ### END SOLUTION


_kernels: dict[str, object] = {}


def _compiled(expression: str, count: int):
    """One parallel kernel `kernel(out, a0, a1, …)` for the expression's text, compiled once."""
    if expression not in _kernels:
        names = ", ".join(f"a{k}" for k in range(count))
        source = (f"def kernel(out, {names}):\n"
                  f"    for i in prange(out.size):\n"
                  f"        out[i] = {expression}\n")
        scope = {"math": math, "prange": prange}
        exec(compile(source, f"<fused: {expression}>", "exec"), scope)
        _kernels[expression] = njit(parallel=True)(scope["kernel"])
    return _kernels[expression]


# -- bonus exercise 8.9 ------------------------------------------------------------------------


@njit(parallel=True, cache=True)
def cross_entropy_rows(logits: np.ndarray, targets: np.ndarray):
    """Per row i of logits z (M, V) with target t_i: loss_i = log Σ_j exp z_ij - z_it (the max
    subtracted first), and ∂loss_i/∂z_i = softmax(z_i) - onehot(t_i). Returns (losses (M,),
    grad (M, V)), both in the logits' dtype."""
    ### BEGIN SOLUTION 8.9
    raise NotImplementedError("Exercise 8.9: Cross-entropy fused with its gradient (bonus) — see chapters/08_kernels.ipynb, '8.9 Bonus: cross-entropy and its gradient in one pass'")
    ### END SOLUTION
