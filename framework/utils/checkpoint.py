"""Exercise 8.7: activation checkpointing, as PyTorch's `torch.utils.checkpoint.checkpoint`.

A training step keeps, until backward, every array the forward's ops saved: for a deep
network that is most of its memory. `checkpoint(block, x)` trades compute for it: the forward
runs `block(x)` without recording a graph (nothing inside is kept but the inputs), and the
backward runs `block` again, this time recording, and back-propagates through that fresh
graph. The gradients are the ones without checkpointing, exactly: the parameters used inside
`block` receive their `.grad` from the inner backward, the inputs' gradients are returned to
the outer walk. Memory: one block's activations at a time, plus the blocks' inputs.

Randomness must replay: dropout inside `block` draws from the shared generator
(`framework.provided.generator`), so the forward keeps the generator's state and the backward
restores it for the rerun (the same masks), then puts the generator back where it was (the
rest of the program draws as if nothing had rerun). `preserve_rng_state=False` skips that.

A function may return a tuple (or list) of tensors, as in PyTorch: the provided code around
the exercise packs its floating outputs into one flat tensor, the node's output, and reads each
output back out of it (so the exercise sees one output, and the block reruns once); other
outputs pass through as they are.

Differences from PyTorch, loud or stated: `use_reentrant` is accepted and ignored: the one
variant gives the parameters their gradients as PyTorch's `use_reentrant=False` does, also when
no input requires grad, and its floating results require grad whenever grad mode is on.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..autodiff import enable_grad, is_grad_enabled, no_grad
from ..function import BackwardNode, Context, Function
from ..provided.generator import default_generator
from ..provided.surface import cat
from ..tensor import Tensor

__all__ = ["checkpoint"]


class Checkpoint(Function):
    """The node of a checkpointed block: its backward reruns the block and back-propagates."""

    @staticmethod
    def backward(ctx, grad):
        """Rerun `ctx.function` on detached copies of the inputs (requires_grad kept), with the
        generator as the forward left it, and back-propagate `grad` through the new graph:
        the parameters inside receive their .grad; return one gradient per input."""
        ### BEGIN SOLUTION 8.7
        raise NotImplementedError("Exercise 8.7: Activation checkpointing — see chapters/08_kernels.ipynb, '8.7 Memory: activation checkpointing'")
        ### END SOLUTION


def _check_arguments(function, args: tuple, kwargs: dict, use_reentrant) -> None:
    if not callable(function):
        raise TypeError(f"checkpoint: the first argument must be the function to run, got a "
                        f"{type(function).__name__}")
    if not any(isinstance(a, Tensor) for a in args):
        raise ValueError(
            f"checkpoint: {getattr(function, '__name__', type(function).__name__)} was given no "
            "tensor among its positional inputs; pass the tensors it reads positionally, "
            "checkpoint(block, x)"
        )
    for name, value in kwargs.items():
        if isinstance(value, Tensor) and value.requires_grad:
            raise ValueError(
                f"checkpoint: the keyword argument {name}= is a tensor that requires grad; its "
                "gradient would be lost: pass it positionally"
            )
    if use_reentrant not in (None, True, False):
        raise TypeError(f"checkpoint: use_reentrant must be True, False or None, got "
                        f"{use_reentrant!r}")


def checkpoint(function: Callable, *args, use_reentrant: bool | None = None,
               preserve_rng_state: bool = True, **kwargs) -> Tensor:
    """`function(*args, **kwargs)`, without keeping its activations for backward: the
    backward recomputes them (see the module's docstring). As PyTorch's
    `torch.utils.checkpoint.checkpoint`; `use_reentrant` is accepted and ignored."""
    _check_arguments(function, args, kwargs, use_reentrant)
    ### BEGIN SOLUTION 8.7
    raise NotImplementedError("Exercise 8.7: Activation checkpointing — see chapters/08_kernels.ipynb, '8.7 Memory: activation checkpointing'")
    ### END SOLUTION
    return _recorded(out, function, args, kwargs, rng_state)


def _recorded(out, function: Callable, args: tuple, kwargs: dict, rng_state):
    """The forward's result as a node of the outer graph, whose backward is Checkpoint's; what
    the backward replays (the function, its inputs, the generator's state) kept on its context,
    with the inputs' versions (an input changed in place before backward is refused)."""
    if isinstance(out, (tuple, list)):
        return _unpacked(out, function, args, kwargs, rng_state)
    if not isinstance(out, Tensor):
        raise TypeError(
            f"checkpoint: the function returned a {type(out).__name__}; checkpoint takes a "
            "function that returns a tensor, or a tuple or list of tensors: return those"
        )
    if not is_grad_enabled():
        return out
    ctx = Context()
    ctx.function, ctx.inputs, ctx.kwargs, ctx.rng_state = function, args, kwargs, rng_state
    ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
    positions = tuple(i for i, need in enumerate(ctx.needs_input_grad) if need)
    parents = tuple(args[i] for i in positions)
    node = BackwardNode(Checkpoint, ctx, positions, parents)
    node.versions = tuple((a._counter, a._counter.value, a.data, a.grad_fn)
                          for a in args if isinstance(a, Tensor))
    result = Tensor._make(out.data, parents, node, "checkpoint")
    result.requires_grad = True  # parameters inside may need the gradient, inputs or not
    return result


def _floating(outs) -> list[int]:
    """Where the floating tensors are among a function's outputs: those that have gradients."""
    return [i for i, t in enumerate(outs)
            if isinstance(t, Tensor) and np.issubdtype(t.dtype, np.floating)]


def _packed(outs, floating: list[int], dtype) -> Tensor:
    """The floating outputs, flattened, cast to one dtype and joined: one tensor."""
    return cat([outs[i].reshape(-1).to(dtype) for i in floating])


def _packing(function: Callable, outs, floating: list[int], dtype) -> Callable:
    """`function`, returning its floating outputs packed as the forward's were: what
    Checkpoint's backward reruns, so that it sees one output."""
    layout = [(tuple(t.shape), t.dtype) if isinstance(t, Tensor) else None for t in outs]

    def packed(*args, **kwargs) -> Tensor:
        again = function(*args, **kwargs)
        now = [(tuple(t.shape), t.dtype) if isinstance(t, Tensor) else None for t in again]
        if now != layout:
            raise RuntimeError(
                f"checkpoint: the rerun of the function returned tensors of (shape, dtype) "
                f"{now}, the forward {layout}: the function must compute the same outputs "
                "both times")
        return _packed(again, floating, dtype)
    return packed


def _unpacked(outs, function: Callable, args: tuple, kwargs: dict, rng_state):
    """A tuple (or list) of outputs through one Checkpoint node: its output is the floating
    outputs packed into one tensor, each read back out of it (a copy of its own, in its dtype);
    other outputs pass through as they are."""
    floating = _floating(outs)
    if not floating or not is_grad_enabled():
        return outs
    dtype = np.result_type(*[outs[i].dtype for i in floating])
    node = _recorded(_packed(outs, floating, dtype), _packing(function, outs, floating, dtype),
                     args, kwargs, rng_state)
    results, start = list(outs), 0
    for i in floating:
        stop = start + outs[i].data.size
        results[i] = node[start:stop].reshape(outs[i].shape).to(outs[i].dtype, copy=True)
        start = stop
    return results if isinstance(outs, list) else tuple(results)
