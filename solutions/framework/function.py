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
    if grad.shape == tuple(shape):
        return grad
    leading = grad.ndim - len(shape)
    if leading:
        grad = grad.sum(axis=tuple(range(leading)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad
    ### END SOLUTION


# -- Function: one op with its own analytic backward ------------------------------------------


class Context:
    """What a forward leaves for its backward; set any attribute you need."""

    saved_tensors: tuple = ()

    def save_for_backward(self, *arrays: np.ndarray) -> None:
        self.saved_tensors = arrays


def _unbroadcast_hint(grad_shape: Shape, shape: Shape) -> str:
    """The hint for a gradient of the wrong shape, where the input was broadcast to it."""
    try:
        broadcast = np.broadcast_shapes(shape, grad_shape) == grad_shape
    except ValueError:  # the shapes do not broadcast: the cause lies elsewhere
        broadcast = False
    return " (did you forget unbroadcast?)" if broadcast else ""


class Version:
    """A tensor's version counter (PyTorch's `x._version`): every in-place change of the
    tensor's memory adds 1. Tensors that share memory (a view, `detach()`) share the counter,
    and `viewed` says some do. A backward rule that reads an array its forward saved first
    checks that the count is still the one seen at save time: else the array has changed.
    `changed_by` names the last recorded in-place op, for that error."""

    __slots__ = ("value", "viewed", "changed_by")

    def __init__(self) -> None:
        self.value, self.viewed, self.changed_by = 0, False, ""


class Differentiable:
    """What `Function.apply` needs of a tensor; chapter 2's `Tensor` is one.

    `data`, its NumPy array; `_counter`, its `Version`; `requires_grad`; and
    `_make(data, parents, grad_fn, op)`, which builds an op's result (for chapter 2's tensors a
    plain `Tensor`, also when the input is a `Parameter`). `apply` builds each result with its
    first tensor input's `_make`, so this file needs no tensor class of its own: `Tensor`
    (tensor.py) is written after the ops and imports them, never the other way round.
    """

    __slots__ = ()
    data: np.ndarray
    _counter: Version
    requires_grad: bool

    def _make(self, data: np.ndarray, parents: tuple = (), grad_fn=None, op: str = ""):
        raise NotImplementedError


def unwrap(x):
    """`x.data` for a tensor, anything else as it is: for code that takes a tensor or an array."""
    return x.data if isinstance(x, Differentiable) else x


def modified(reader: str, counter: Version, version: int, array: np.ndarray, maker) -> str:
    """PyTorch's words for a saved array changed in place since its forward saved it: `reader`
    names the backward that reads it (`MulBackward`); `maker`, what made the array: None for a
    leaf, a Function class for that op's own output, a grad_fn for an input made by an op."""
    if counter.changed_by or maker is None:  # an in-place op's, or a leaf's (no maker)
        made_by = counter.changed_by
    elif isinstance(maker, type):  # the saving op's own output
        made_by = f"{maker.__name__}Backward"
    else:  # an input's grad_fn
        made_by = repr(maker).strip("<>")
    which = f", which is output 0 of {made_by}," if made_by else ""
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{array.dtype} {list(array.shape)}]{which} is at version "
        f"{counter.value}; expected version {version} instead. Hint: the backward of {reader} "
        "reads that tensor as its forward saw it; change it in place only after backward(), or "
        "change a copy (x = x + 1 instead of x.add_(1), or x.clone())"
    )


class BackwardNode:
    """A tensor's `grad_fn`: calls its Function's backward, keeps the parents' gradients
    (the inputs at `positions`, those that require grad)."""

    __slots__ = ("function", "ctx", "positions", "parents", "shapes", "versions")

    def __init__(self, function: type, ctx: Context, positions: tuple[int, ...], parents: tuple):
        self.function, self.ctx, self.positions, self.parents = function, ctx, positions, parents
        self.shapes = tuple([p.data.shape for p in parents])
        self.versions = ()  # (counter, version, array, maker): what `saved_versions` found

    @property
    def next_functions(self) -> tuple:
        """PyTorch's view of the graph, built when asked: per positional input of the op,
        (where its gradient goes, 0): its grad_fn, an `AccumulateGrad` for a leaf, or None for
        an input that needs no gradient."""
        following = dict(zip(self.positions, self.parents))
        inputs = len(self.ctx.needs_input_grad)
        return tuple((_gradient_sink(following[i]) if i in following else None, 0)
                     for i in range(inputs))

    def __call__(self, grad: np.ndarray) -> tuple:
        for counter, version, array, maker in self.versions:
            if counter.value != version:
                raise RuntimeError(modified(repr(self).strip("<>"), counter, version, array, maker))
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


class AccumulateGrad:
    """Where a leaf's gradient ends (PyTorch's node of that name): into `variable.grad`."""

    __slots__ = ("variable",)
    next_functions: tuple = ()

    def __init__(self, variable: Differentiable) -> None:
        self.variable = variable

    def __repr__(self) -> str:
        return "<AccumulateGrad>"


def _gradient_sink(tensor: Differentiable):
    return tensor.grad_fn if tensor.grad_fn is not None else AccumulateGrad(tensor)


def shared_version(out: np.ndarray, args: tuple) -> Version | None:
    """The counter of the tensor input whose memory `out` views (reshape, transpose, a[1:]),
    marked `viewed`; None when `out` has memory of its own (then `out.base` is None, or is no
    input's: the bounds test `may_share_memory` is O(1))."""
    for a in args:
        if isinstance(a, Differentiable) and np.may_share_memory(out, a.data):
            a._counter.viewed = True
            return a._counter
    return None


def saved_versions(saved: tuple, args: tuple, result: Differentiable, function: type) -> tuple:
    """For each array a forward saved that is a tensor's memory (an input's, the output's, or
    a view of one), that tensor's counter and version now, so backward can tell if it changed."""
    records = []
    for array in saved:
        if not isinstance(array, np.ndarray):
            continue
        view = array.base is not None
        for a in args:
            if isinstance(a, Differentiable) and (
                    array is a.data or view and np.may_share_memory(array, a.data)):
                records.append((a._counter, a._counter.value, array, a.grad_fn))
                break
        else:
            if array is result.data or view and np.may_share_memory(array, result.data):
                records.append((result._counter, result._counter.value, array, function))
    return tuple(records)


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
            result = first._make(out)
        else:
            ctx.needs_input_grad = tuple(needs)
            # list comprehensions, not generators: apply runs for every op of every step
            positions = tuple([i for i, need in enumerate(needs) if need])
            parents = tuple([args[i] for i in positions])
            node = BackwardNode(cls, ctx, positions, parents)
            result = first._make(out, parents, node, cls.__name__.lower())
            if ctx.saved_tensors:
                node.versions = saved_versions(ctx.saved_tensors, args, result, cls)
        # a result that views an input's memory shares its version counter, as in PyTorch
        if getattr(out, "base", None) is not None:
            result._counter = shared_version(out, args) or result._counter
        return result


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
