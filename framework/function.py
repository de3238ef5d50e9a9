"""Chapter 2's machinery (provided, but for `unbroadcast`): `Function`, how an op is written.

Every op is a `Function`: `forward(ctx, *arrays)` computes the result with NumPy and saves
what the gradient needs on `ctx`; `backward(ctx, grad)` returns one gradient per positional
input (None for inputs that are not tensors). `Function.apply` runs forward and, when an
input requires grad, gives the output tensor its `parents` (those inputs) and its `grad_fn`
(a `BackwardNode`, which calls backward and checks each gradient's shape): the
`autodiff.Node` protocol Chapter 1's walk follows. Broadcasting's adjoint, `unbroadcast`,
is exercise 2.2. The ops themselves are in `ops.py` and `shape_ops.py`; `Tensor`, in
`tensor.py`, builds on them and on this file: `apply` makes each result with its first tensor
input's `_make` (the `Differentiable` contract), so nothing here imports `Tensor`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import autodiff

Shape = tuple[int, ...]


# -- broadcasting ---------------------------------------------------------------------------


def broadcast_failure(op: str, *shapes: Shape) -> str | None:
    """None if the shapes broadcast; else a sentence naming the op, shapes and the axis."""
    ndim = max(len(s) for s in shapes)
    for axis in range(-1, -ndim - 1, -1):
        sizes = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        if len(sizes) > 1:
            listed = " and ".join(str(tuple(s)) for s in shapes)
            vs = " vs ".join(str(s[axis]) if len(s) >= -axis else "-" for s in shapes)
            return (
                f"{op}: shapes {listed} do not broadcast: axis {axis} has {vs}; "
                "sizes must be equal or 1 (framework.viz.show_broadcast shows the alignment)"
            )
    return None


def unbroadcast(grad: np.ndarray, shape: Shape) -> np.ndarray:
    """Sum `grad` back to `shape`: the adjoint of broadcasting `shape` up to grad.shape.

    Broadcasting copies a value along new leading axes and along axes of size 1;
    a copied value's gradient is the sum of its copies' gradients.
    """
    ### BEGIN SOLUTION 2.2
    raise NotImplementedError("Exercise 2.2: Unbroadcast — see chapters/02_tensor.ipynb, '2.2 The gradient of a broadcast is a sum'")
    ### END SOLUTION


# -- Function: one op with its own analytic backward ------------------------------------------


class Context:
    """What a forward leaves for its backward; set any attribute you need."""

    def save_for_backward(self, *arrays: np.ndarray) -> None:
        self.saved_tensors = arrays


def _unbroadcast_hint(grad_shape: Shape, shape: Shape) -> str:
    """The hint for a gradient of the wrong shape, where the input was broadcast to it."""
    try:
        broadcast = np.broadcast_shapes(shape, grad_shape) == grad_shape
    except ValueError:  # the shapes do not broadcast: the cause lies elsewhere
        broadcast = False
    return " (did you forget unbroadcast?)" if broadcast else ""


class Differentiable:
    """What `Function.apply` needs of a tensor; chapter 2's `Tensor` is one.

    `data`, its NumPy array; `requires_grad`; and `_make(data, parents, grad_fn, op)`, which
    builds an op's result (for chapter 2's tensors a plain `Tensor`, also when the input is a
    `Parameter`). `apply` builds each result with its first tensor input's `_make`, so this
    file needs no tensor class of its own: `Tensor` (tensor.py) is written after the ops and
    imports them, never the other way round.
    """

    __slots__ = ()
    data: np.ndarray
    requires_grad: bool

    def _make(self, data: np.ndarray, parents: tuple = (), grad_fn=None, op: str = ""):
        raise NotImplementedError


def unwrap(x):
    """`x.data` for a tensor, anything else as it is: for code that takes a tensor or an array."""
    return x.data if isinstance(x, Differentiable) else x


class BackwardNode:
    """A tensor's `grad_fn`: calls its Function's backward, keeps the parents' gradients."""

    __slots__ = ("function", "ctx", "positions", "shapes")

    def __init__(self, function: type, ctx: Context, positions: tuple[int, ...], shapes):
        self.function, self.ctx, self.positions, self.shapes = function, ctx, positions, shapes

    def __call__(self, grad: np.ndarray) -> tuple:
        grads = self.function.backward(self.ctx, grad)
        if not isinstance(grads, tuple):
            grads = (grads,)
        picked = []
        for i, shape in zip(self.positions, self.shapes):
            g = grads[i]
            if g is not None:
                g = np.asarray(g)  # a NumPy op on 0-d arrays returns a scalar; a gradient is an array
                if g.shape != shape:
                    raise ValueError(
                        f"{self.function.__name__}.backward returned a gradient of shape "
                        f"{g.shape} for an input of shape {shape}; a gradient has its "
                        "input's shape" + _unbroadcast_hint(g.shape, shape)
                    )
            picked.append(g)
        return tuple(picked)

    def __repr__(self) -> str:
        return f"<{self.function.__name__}Backward>"


class Function:
    """Subclass with `forward(ctx, *args)` and `backward(ctx, grad)`, then call `apply`.

    As in PyTorch (`torch.autograd.Function`), except that forward receives NumPy
    arrays (tensors unwrapped) and returns a NumPy array.
    """

    @staticmethod
    def forward(ctx: Context, *args, **kwargs) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple:
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        """forward on the inputs' arrays; the result is made by the first tensor input's
        `_make`, recorded in the graph when an input requires grad (and grad mode is on). With
        no tensor among the inputs there is no graph to join: the result is forward's array."""
        first = None
        for a in args:
            if isinstance(a, Differentiable):
                first = a
                break
        ctx = Context()
        out = cls.forward(ctx, *[unwrap(a) for a in args], **kwargs)
        if first is None:
            return out
        needs = [isinstance(a, Differentiable) and a.requires_grad for a in args]
        if True not in needs or not autodiff.is_grad_enabled():
            return first._make(out)
        ctx.needs_input_grad = tuple(needs)
        # list comprehensions, not generators: apply runs for every op of every step
        positions = tuple([i for i, need in enumerate(needs) if need])
        parents = tuple([args[i] for i in positions])
        shapes = tuple([p.data.shape for p in parents])
        node = BackwardNode(cls, ctx, positions, shapes)
        return first._make(out, parents, node, cls.__name__.lower())


def _shape(x) -> Shape:
    return np.shape(x)


def _broadcasting(op: str, compute: Callable, a, b) -> np.ndarray:
    try:
        return compute(a, b)
    except ValueError:
        failure = broadcast_failure(op, _shape(a), _shape(b))
        if failure:
            raise ValueError(failure) from None
        raise
