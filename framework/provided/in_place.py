"""Provided: in-place changes of a tensor (`x.add_(1)`, `x[0] = 0`, `h.relu_()`), as PyTorch
records them.

Every in-place change adds 1 to the tensor's version counter (`x._version`, a
`function.Version`); a backward checks it for each array its forward saved, so a saved
tensor changed before `backward()` is an error, not a wrong gradient.

Outside a graph (in no_grad, or when no tensor involved requires grad) the change is NumPy's,
in the tensor's own memory. Inside one, the tensor's history is rebased onto the op, as
PyTorch does: the op runs out of place on a stand-in that takes over the tensor's old
history, its result is written into the tensor's memory, and the tensor takes the op's node as
its `grad_fn`; so `h = lin(x); h.relu_()` back-propagates through the ReLU, then the Linear.
An array the op saved that was the tensor's old value is copied first (the write would
overwrite it); one that was its result is the tensor's memory, at the new version.

Refused as in PyTorch: a leaf that requires grad, outside no_grad. Refused in our words: a
tensor in a graph that shares its memory with another (a view, or the base of one): PyTorch
rewrites the history of every view of that memory; the framework rewrites one tensor's only.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import autodiff
from ..function import Differentiable, Function, unbroadcast, unwrap


class SetItem(Function):
    """c = a with c[index] = value (value broadcast to a[index]); ∂a is grad with zeros at
    index (those places no longer come from a); ∂value is grad[index], summed back to value's
    shape. `fill_`, `zero_` and `copy_` are SetItem at index `...`."""

    @staticmethod
    def forward(ctx, a, value, index):
        out = a.copy()
        try:
            out[index] = value
        except (IndexError, ValueError) as error:
            raise type(error)(
                f"setitem: cannot write a value of shape {np.shape(value)} at index {index!r} "
                f"of a tensor of shape {a.shape}: {error}"
            ) from None
        ctx.index, ctx.value_shape = index, np.shape(value)
        return out

    @staticmethod
    def backward(ctx, grad):
        grad_a = grad.copy()
        grad_a[ctx.index] = 0
        return grad_a, unbroadcast(np.asarray(grad[ctx.index]), ctx.value_shape)


def _recording(target: Differentiable, others: tuple) -> bool:
    """Whether the change joins a graph: grad mode on, and the tensor or another input
    requires grad."""
    if not autodiff.is_grad_enabled():
        return False
    return target.requires_grad or any(
        isinstance(o, Differentiable) and o.requires_grad for o in others)


def change_in_place(target, name: str, others: tuple, in_numpy: Callable, op: Callable):
    """Change `target` in place and bump its version: with `in_numpy(array)` (which changes
    the array itself) outside a graph; inside one with `op(stand_in)`, the same change out of
    place, whose result is written into target's memory and whose node becomes its grad_fn."""
    if not target.data.flags.writeable:
        raise RuntimeError(
            f"{name}: this tensor is a read-only view of {target.data.shape} (expand or "
            "broadcast_to repeats one element in several places): change a copy, x = x.clone()"
        )
    counter = target._counter
    if not _recording(target, others):
        in_numpy(target.data)
        counter.value += 1
        return target
    if target.grad_fn is None and target.requires_grad:
        raise RuntimeError(
            f"{name}: a leaf Variable that requires grad is being used in an in-place "
            "operation (PyTorch's words): the change would have no gradient to pass on; change "
            "it inside framework.no_grad() (as an optimizer step does), or change a copy "
            "(x.clone())"
        )
    if counter.viewed:
        raise RuntimeError(
            f"{name}: in-place change, inside a graph, of a tensor of shape {tuple(target.shape)} that "
            "shares its memory with another (a view: reshape, view, transpose, slicing, or the "
            "base of one); PyTorch rewrites the history of every view of that memory, the "
            "framework only this tensor's; change a copy (x = x.clone() first) or use the "
            "out-of-place op (x = x + y, x.relu(), torch.where, masked_fill)"
        )
    stand_in = target._make(target.data, target.parents, target.grad_fn, target.op)
    stand_in.requires_grad, stand_in._counter = target.requires_grad, counter
    result = op(stand_in)
    if result.shape != target.shape or not np.can_cast(result.dtype, target.dtype, "same_kind"):
        raise RuntimeError(
            f"{name}: the result has shape {tuple(result.shape)} and dtype {result.dtype}; an in-place "
            f"change keeps the tensor's shape {tuple(target.shape)} and dtype {target.dtype} (the other "
            "operand may not broadcast it up, nor promote it, as in PyTorch): use x = x op y"
        )
    node = result.grad_fn
    saved = node.ctx.saved_tensors
    if saved:  # before the write: an old value it saved must survive it
        kept = tuple(a for a in node.versions if a[0] is not counter and a[0] is not result._counter)
        node.ctx.saved_tensors = tuple(
            target.data if array is result.data else
            array.copy() if isinstance(array, np.ndarray) and np.may_share_memory(array, target.data)
            else array for array in saved)
        if any(array is target.data for array in node.ctx.saved_tensors):
            kept += ((counter, counter.value + 1, target.data, None),)
        node.versions = kept
    np.copyto(target.data, result.data, casting="same_kind")
    counter.value += 1
    counter.changed_by = repr(node).strip("<>")
    target.grad_fn, target.parents, target.op = node, result.parents, result.op
    target.requires_grad = True
    return target


def numpy_setitem(index, value) -> Callable:
    """The NumPy change `array[index] = value`, for `change_in_place`."""
    def write(array: np.ndarray) -> None:
        array[index] = unwrap(value)
    return write
