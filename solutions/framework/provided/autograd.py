"""`framework.autograd`: PyTorch's `torch.autograd.Function` on chapter 2's engine (provided).

Chapter 2's `function.Function` is the course's op: its forward and backward work on NumPy
arrays. PyTorch's `autograd.Function` works on tensors:

    class Exp(autograd.Function):
        @staticmethod
        def forward(ctx, x):            # x is a Tensor; runs without recording a graph
            y = x.exp()
            ctx.save_for_backward(y)
            return y
        @staticmethod
        def backward(ctx, grad):        # grad is a Tensor; one gradient (or None) per input
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)

`Function.apply` here runs the user's forward on tensors, then attaches one chapter-2
`BackwardNode` to the result, whose rule wraps the incoming gradient in a tensor, calls the
user's backward and unwraps what it returns. Everything else (the walk, `.grad`, freeing
the graph) is chapter 1 and 2's. One difference is loud: a forward returns one tensor
(the engine gives each tensor one `grad_fn`), and gradients are arrays, not graphs, so
there is no double backward (`create_graph=True`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..autodiff import backpropagate, enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ..function import BackwardNode, Context, modified, unbroadcast, unwrap
from ..tensor import Tensor

__all__ = [
    "Function", "FunctionCtx", "enable_grad", "grad", "is_grad_enabled", "no_grad",
    "set_grad_enabled",
]


class FunctionCtx(Context):
    """What a forward leaves for its backward: `save_for_backward(*tensors)`,
    `saved_tensors`, `needs_input_grad` (one bool per input), and any attribute you set.

    As in PyTorch, reading `saved_tensors` checks that none of them was changed in place
    since the forward: `apply` notes each one's version, and a changed one is an error."""

    _saved: tuple = ()
    # (counter, version, array, maker) per saved tensor, and the backward that reads them:
    # what function.modified needs to name them; set by apply
    _versions: tuple = ()
    _reader = ""

    def save_for_backward(self, *tensors) -> None:
        self._saved = tensors

    @property
    def saved_tensors(self) -> tuple:
        for counter, version, array, maker in self._versions:
            if counter.value != version:
                raise RuntimeError(modified(self._reader, counter, version, array, maker))
        return self._saved

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Accepted for PyTorch's sake; a tensor's gradient there is simply unused."""

    def set_materialize_grads(self, value: bool) -> None:
        """Accepted: the gradient a backward receives is always a tensor, never None."""


def _array(grad, shape, op: str, i: int):
    """A gradient a user's backward returned, as the engine's NumPy array (or None); one of a
    broadcast shape is summed back to its input's, as PyTorch does."""
    if grad is None:
        return None
    if not isinstance(grad, (Tensor, np.ndarray)):
        raise TypeError(
            f"{op}.backward: gradient {i} is a {type(grad).__name__}, not a Tensor or None")
    grad = unwrap(grad)
    if shape is None or grad.shape == shape:
        return grad
    try:
        broadcast = np.broadcast_shapes(grad.shape, shape) == grad.shape
    except ValueError:  # not a broadcast: the engine names the wrong shape
        broadcast = False
    return unbroadcast(grad, shape) if broadcast else grad


class _Rule:
    """What the engine's `BackwardNode` calls: the user's backward, on tensors, in no_grad."""

    def __init__(self, function: type) -> None:
        self.function, self.__name__ = function, function.__name__

    def backward(self, ctx: FunctionCtx, grad: np.ndarray) -> tuple:
        with no_grad():
            grads = self.function.backward(ctx, Tensor._make(grad))
        grads = grads if isinstance(grads, tuple) else (grads,)
        if len(grads) != len(ctx.needs_input_grad):
            raise ValueError(
                f"{self.__name__}.backward returned {len(grads)} gradients for "
                f"{len(ctx.needs_input_grad)} inputs of forward; return one per input "
                "(None for an input that needs none)"
            )
        shapes = ctx.input_shapes
        return tuple(_array(g, shapes[i], self.__name__, i) for i, g in enumerate(grads))


class Function:
    """Subclass with `@staticmethod forward(ctx, *args)` and `@staticmethod backward(ctx,
    *grads)`, working on tensors, then call `MyFunction.apply(*args)`, as in PyTorch."""

    @staticmethod
    def forward(ctx: FunctionCtx, *args, **kwargs) -> Tensor:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Tensor):
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs) -> Tensor:
        ctx = FunctionCtx()
        needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx.needs_input_grad = needs  # set before forward, as PyTorch does
        ctx.input_shapes = tuple(a.shape if isinstance(a, Tensor) else None for a in args)
        with no_grad():  # PyTorch records no graph inside forward: the node below is its graph
            out = cls.forward(ctx, *args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(
                f"{cls.__name__}.forward returned {type(out).__name__}: the framework's "
                "autograd.Function has exactly one output, a Tensor (PyTorch also allows a "
                "tuple of tensors); return one tensor, e.g. stack them, or write one Function "
                "per output"
            )
        if True not in needs or not is_grad_enabled():
            return Tensor._make(out.data)
        positions = tuple(i for i, need in enumerate(needs) if need)
        parents = tuple(args[i] for i in positions)
        node = BackwardNode(_Rule(cls), ctx, positions, parents)
        result = Tensor._make(out.data, parents, node, cls.__name__.lower())
        result._counter = out._counter  # out's memory: a change of either is a change of both
        ctx._reader = repr(node).strip("<>")
        ctx._versions = tuple(
            (t._counter, t._counter.value, t.data, cls if t is out else t.grad_fn)
            for t in ctx._saved if isinstance(t, Tensor))
        return result


def grad(
    outputs: Tensor | Sequence[Tensor], inputs: Tensor | Sequence[Tensor], grad_outputs=None,
    retain_graph: bool | None = None, create_graph: bool = False, allow_unused: bool = False,
) -> tuple[Tensor | None, ...]:
    """Σ over outputs of d(output)/d(input) · grad_output, for each input, as tensors; no
    `.grad` is touched.

    Each output is walked by `backpropagate` (exercise 1.7) on proxies of its graph's nodes,
    which keep the gradients reaching `inputs` instead of handing them to `receive_grad`.
    """
    if create_graph:
        raise NotImplementedError(
            "grad(create_graph=True): the framework's backward rules compute NumPy arrays, "
            "not tensors, so a gradient has no graph of its own: no double backward"
        )
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if grad_outputs is None or isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs] * len(outputs)
    found: dict[int, np.ndarray] = {}
    wanted = {id(x) for x in inputs}
    for i, (out, cotangent) in enumerate(zip(outputs, grad_outputs)):
        if cotangent is None and out.numel() != 1:
            raise RuntimeError(
                f"grad: an output of shape {tuple(out.shape)} needs grad_outputs of the same shape"
            )
        seed = np.ones_like(out.data) if cotangent is None else np.asarray(
            unwrap(cotangent), dtype=out.dtype)
        # outputs may share nodes: only the last walk may free them
        retain = bool(retain_graph) or i < len(outputs) - 1
        backpropagate(_Walk(wanted, found).proxy(out), seed, retain)
    grads = tuple(Tensor._make(found[id(x)]) if id(x) in found else None for x in inputs)
    unused = [i for i, g in enumerate(grads) if g is None]
    if unused and not allow_unused:
        raise RuntimeError(
            f"grad: inputs {unused} were not used to compute the outputs; pass allow_unused=True"
        )
    return grads


class _Walk:
    """What the proxies of one walk share: the gradients found so far, by input, and one
    proxy per node, made when the walk first reaches it."""

    def __init__(self, wanted: set[int], found: dict[int, np.ndarray]) -> None:
        self.wanted, self.found = wanted, found
        # one per node, so the walk's visited set and its sums of shares, which go by
        # identity, see a node reached along two paths as one node
        self.proxies: dict[int, _Proxy] = {}

    def proxy(self, node: Tensor) -> _Proxy:
        proxy = self.proxies.get(id(node))  # the proxy holds the node: its id stays its own
        if proxy is None:
            proxy = self.proxies[id(node)] = _Proxy(node, self)
        return proxy


class _Proxy:
    """A node of the graph as `backpropagate` sees it (`autodiff.Node`): the real node's rule,
    its parents' proxies, and a `receive_grad` that keeps an input's gradient for `grad`."""

    __slots__ = ("node", "walk", "_parents")

    def __init__(self, node: Tensor, walk: _Walk) -> None:
        self.node, self.walk = node, walk
        self._parents: tuple | None = None  # made when the walk first asks for them

    @property
    def parents(self) -> tuple:
        if self._parents is None:
            self._parents = tuple(self.walk.proxy(parent) for parent in self.node.parents)
        return self._parents

    @property
    def grad_fn(self):
        return self.node.grad_fn

    def receive_grad(self, grad: np.ndarray) -> None:
        """found[input] ← found[input] + grad, a new array: the walk may share `grad`."""
        key = id(self.node)
        if key in self.walk.wanted:
            earlier = self.walk.found.get(key)
            self.walk.found[key] = grad if earlier is None else earlier + grad

    def release(self) -> None:
        """Free the real node (the walk's retain_graph=False), and the proxy's parents."""
        self.node.release()
        self._parents = ()
