"""Chapter 2: `Tensor`, NumPy arrays on Chapter 1's engine, with broadcasting.

A `Tensor` holds a NumPy array; each op on it is a `Function` (`function.py`) whose result
remembers its inputs: the `autodiff.Node` protocol Chapter 1's walk
(`autodiff.backpropagate`) follows. `Tensor.receive_grad` and `release`, how a tensor
takes its gradient from that walk and frees its graph, are exercise 2.10; the ops' backward
rules are in `ops.py` and `shape_ops.py`; PyTorch's everyday methods (`view`, casts,
in-place updates, ...) are provided in `provided/tensor_methods.py`, which `Tensor` inherits.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence

import numpy as np

from .autodiff import _freed, backpropagate
from .function import Differentiable, Version, unwrap
from .ops import (
    Abs,
    Add,
    Div,
    Exp,
    Log,
    MatMul,
    Max,
    Maximum,
    Mean,
    Mul,
    Neg,
    Pow,
    ReLU,
    Sigmoid,
    Sqrt,
    Sub,
    Sum,
    Tanh,
    Where,
    normalize_axes,
)
from .provided.device import check_device
from .provided.dims import accepts_dim
from .provided.grad_array import GradArray, as_grad
from .provided.printing import Size, tensor_repr
from .provided.promotion import _promoted
from .provided.tensor_methods import TensorMethods, _is_dtype
from .shape_ops import Cast, Clone, Expand, Gather, GetItem, Permute, Reshape, _plain_index

Axis = int | tuple[int, ...] | None


#: What `max(dim)` and `min(dim)` return, as PyTorch's: the values and where they are.
ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])


def _shape_args(shape: tuple) -> tuple:
    """`f(2, 3)` and `f((2, 3))` both mean shape (2, 3), as in PyTorch."""
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape


# -- Tensor ------------------------------------------------------------------------------------------


def _as_array(data, dtype=None) -> np.ndarray:
    """Python floats become float32, ints int64, bools bool; NumPy arrays keep their dtype."""
    if isinstance(data, Tensor):
        data = data.data
    if isinstance(data, (np.ndarray, np.generic)):
        array = np.asarray(data)
    else:
        array = np.asarray(data)
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif np.issubdtype(array.dtype, np.integer):
            array = array.astype(np.int64)
    return array if dtype is None else array.astype(dtype)


class Tensor(TensorMethods, Differentiable):
    """An n-dimensional array that remembers how it was computed.

    >>> x = Tensor([[1.0, 2.0]], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    array([[2., 4.]], dtype=float32)
    """

    __slots__ = ("data", "_grad", "requires_grad", "parents", "grad_fn", "op", "label",
                 "_counter", "__weakref__")
    __array_priority__ = 100  # so ndarray + Tensor calls Tensor.__radd__

    def __init__(self, data, requires_grad: bool = False, dtype=None) -> None:
        self.data = _as_array(data, dtype)
        if requires_grad and not np.issubdtype(self.data.dtype, np.floating):
            raise TypeError(
                f"Tensor: only floating tensors can require grad, this one is {self.data.dtype}; "
                "create it with dtype=np.float32 or convert it with .to(np.float32)"
            )
        self._grad = None
        self.requires_grad = requires_grad
        self.parents = ()
        self.grad_fn = None
        self.op = ""
        self.label = ""
        self._counter = Version()

    @staticmethod
    def _make(data: np.ndarray, parents: tuple = (), grad_fn=None, op: str = "") -> Tensor:
        """A result of an op, built without the checks of __init__ (the hot path): always a
        plain `Tensor`, also when `Function.apply` calls it on a `Parameter` input."""
        out = Tensor.__new__(Tensor)
        out.data = data if isinstance(data, np.ndarray) else np.asarray(data)
        out._grad = None
        out.requires_grad = grad_fn is not None
        out.parents = parents
        out.grad_fn = grad_fn
        out.op = op
        out.label = ""
        out._counter = Version()
        return out

    # -- what a PyTorch user expects --------------------------------------------------------

    shape = property(lambda self: Size(self.data.shape))
    ndim = property(lambda self: self.data.ndim)
    dtype = property(lambda self: self.data.dtype)

    @property
    def grad(self) -> GradArray | None:
        """The gradient: stored as a NumPy array, read as one that is also a tensor
        (`provided/grad_array.py`), so `p.grad.zero_()` runs as in PyTorch."""
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        self._grad = as_grad(value)

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        """What PyTorch prints, `tensor([1., 2.], grad_fn=<MulBackward>)` (`provided/printing`)."""
        node = None if self.grad_fn is None else repr(self.grad_fn)
        if self.grad_fn is _freed:  # released by backward(): PyTorch still names the op
            node = f"<{self.op.capitalize()}Backward>"
        return tensor_repr(self.data, node, self.requires_grad)

    def item(self) -> float | int | bool:
        if self.data.size != 1:
            raise ValueError(f"item: the tensor has {self.data.size} elements, not one")
        return self.data.item()

    def numpy(self) -> np.ndarray:
        return self.data

    def detach(self) -> Tensor:
        """The same data, cut from the graph (and the same version counter, as in PyTorch)."""
        out = Tensor._make(self.data)
        out._counter = self._counter
        return out

    def to(self, *args, dtype=None, device=None, copy: bool = False, non_blocking=False) -> Tensor:
        """This tensor as `dtype` (differentiable between floating dtypes), as PyTorch's `to`:
        `to(dtype)`, `to(other_tensor)`, `to("cpu")`, `to(device, dtype)`; `copy=True` copies."""
        for arg in args:
            if isinstance(arg, Tensor):
                dtype = arg.dtype
            elif _is_dtype(arg):
                dtype = arg
            else:
                device = arg
        if device is not None:
            check_device("to", device)
        if dtype is None or self.data.dtype == dtype:
            return Clone.apply(self) if copy else self
        if not np.issubdtype(np.dtype(dtype), np.floating):  # no gradient, as in PyTorch
            return Tensor._make(self.data.astype(dtype))
        return Cast.apply(self, np.dtype(dtype))

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if requires_grad and not np.issubdtype(self.data.dtype, np.floating):
            raise TypeError(f"requires_grad_: a {self.data.dtype} tensor cannot require grad")
        self.requires_grad = requires_grad
        return self

    # -- exercise 2.10: the tensor's hooks, how it takes its gradient and frees its graph -------

    def receive_grad(self, grad: np.ndarray) -> None:
        """The walk's hook: a leaf does .grad ← .grad + grad (a copy of grad the first time: the
        walk's array may be shared with another node); an intermediate result keeps nothing."""
        ### BEGIN SOLUTION 2.10
        raise NotImplementedError("Exercise 2.10: Tensor.receive_grad and release — see chapters/02_tensor.ipynb, '2.10 Backward for tensors'")
        ### END SOLUTION

    def release(self) -> None:
        """The walk's other hook (retain_graph=False): once this node's rule has run, drop the
        rule (with the arrays its ctx saved) and the parents, so memory is returned as the walk
        goes; a later backward through the node calls `_freed`, which says so."""
        ### BEGIN SOLUTION 2.10
        raise NotImplementedError("Exercise 2.10: Tensor.receive_grad and release — see chapters/02_tensor.ipynb, '2.10 Backward for tensors'")
        ### END SOLUTION

    def backward(self, gradient=None, retain_graph: bool = False, create_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) · gradient into `.grad` of every leaf that requires grad.

        `gradient` (the cotangent) may be omitted only for a one-element tensor. The
        graph is freed on the way unless `retain_graph=True`, as in PyTorch (`autodiff`'s
        docstring states what is kept where). `create_graph=True` (PyTorch's
        double backward) is refused: the rules compute arrays, which have no graph.
        """
        if create_graph:
            raise NotImplementedError(
                "backward(create_graph=True): the framework's backward rules compute NumPy "
                "arrays, not tensors, so a gradient has no graph of its own: no double backward"
            )
        if not self.requires_grad:
            raise RuntimeError(
                "backward: this tensor does not require grad; create a leaf with "
                "requires_grad=True, and do not compute it inside no_grad()"
            )
        if gradient is None:
            if self.data.size != 1:
                raise RuntimeError(
                    f"backward: the tensor has shape {tuple(self.shape)}; without a gradient "
                    "argument backward works on a one-element tensor only (call .sum() first, "
                    "or pass gradient= of the same shape)"
                )
            gradient = np.ones_like(self.data)
        gradient = _as_array(gradient, self.data.dtype)
        if gradient.shape != self.shape:
            raise ValueError(f"backward: gradient shape {gradient.shape} ≠ tensor shape {tuple(self.shape)}")
        backpropagate(self, gradient, retain_graph)

    # -- arithmetic -----------------------------------------------------------------------------

    def __add__(self, other):
        return Add.apply(*_promoted(self, other))

    def __radd__(self, other):
        return Add.apply(*_promoted(other, self))

    def __sub__(self, other):
        return Sub.apply(*_promoted(self, other))

    def __rsub__(self, other):
        return Sub.apply(*_promoted(other, self))

    def __mul__(self, other):
        return Mul.apply(*_promoted(self, other))

    def __rmul__(self, other):
        return Mul.apply(*_promoted(other, self))

    def __truediv__(self, other):
        return Div.apply(*_promoted(self, other, divide=True))

    def __rtruediv__(self, other):
        return Div.apply(*_promoted(other, self, divide=True))

    def __pow__(self, other):
        return Pow.apply(*_promoted(self, other))

    def __rpow__(self, other):
        if isinstance(other, (int, float)) and self.data.dtype.kind == "f":
            other = np.asarray(other, dtype=self.data.dtype)  # so backward's log(other) keeps it
        return Pow.apply(*_promoted(other, self))

    def __neg__(self):
        return Neg.apply(self)

    def __matmul__(self, other):
        return MatMul.apply(self, other)

    def __rmatmul__(self, other):
        return MatMul.apply(other, self)

    def __getitem__(self, index):
        return GetItem.apply(self, _plain_index(index))

    # -- comparisons: no gradient --------------------------------------------------------------

    def _compare(self, other, compare) -> Tensor:
        other = unwrap(other)
        return Tensor._make(compare(self.data, other))

    def __lt__(self, other):
        return self._compare(other, np.less)

    def __le__(self, other):
        return self._compare(other, np.less_equal)

    def __gt__(self, other):
        return self._compare(other, np.greater)

    def __ge__(self, other):
        return self._compare(other, np.greater_equal)

    def __eq__(self, other):
        return self._compare(other, np.equal)

    def __ne__(self, other):
        return self._compare(other, np.not_equal)

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        """A one-element tensor's truth value, as in PyTorch; more elements are ambiguous."""
        if self.data.size != 1:
            raise RuntimeError(
                f"bool: the truth value of a tensor of shape {tuple(self.shape)} ({self.data.size} "
                "elements) is ambiguous; use .any() or .all() (e.g. `if (x > 0).any():`)"
            )
        return bool(self.data)

    def any(self) -> Tensor:
        """True if any element is nonzero (a bool tensor, no gradient)."""
        return Tensor._make(np.any(self.data))

    def all(self) -> Tensor:
        """True if every element is nonzero (a bool tensor, no gradient)."""
        return Tensor._make(np.all(self.data))

    # -- elementwise functions -----------------------------------------------------------------

    def exp(self):
        return Exp.apply(self)

    def log(self):
        return Log.apply(self)

    def sqrt(self):
        return Sqrt.apply(self)

    def tanh(self):
        return Tanh.apply(self)

    def relu(self):
        return ReLU.apply(self)

    def sigmoid(self):
        return Sigmoid.apply(self)

    def abs(self):
        return Abs.apply(self)

    def masked_fill(self, mask, value: float) -> Tensor:
        """`value` where mask is True, self elsewhere (mask broadcasts, as in PyTorch)."""
        mask = unwrap(mask)
        return Where.apply(mask, np.asarray(value, dtype=self.dtype), self)

    # -- reductions ------------------------------------------------------------------------------

    # Every reduction also takes PyTorch's dim=/keepdim= (`accepts_dim`).

    @accepts_dim
    def sum(self, axis: Axis = None, keepdims: bool = False):
        return Sum.apply(self, axis=axis, keepdims=keepdims)

    @accepts_dim
    def mean(self, axis: Axis = None, keepdims: bool = False):
        return Mean.apply(self, axis=axis, keepdims=keepdims)

    @accepts_dim
    def amax(self, axis: Axis = None, keepdims: bool = False):
        """The maximum over `axis` (all, an int or a tuple); ties share the gradient equally."""
        return Max.apply(self, axis=axis, keepdims=keepdims)

    @accepts_dim
    def amin(self, axis: Axis = None, keepdims: bool = False):
        return -((-self).amax(axis=axis, keepdims=keepdims))

    @accepts_dim
    def max(self, axis: int | None = None, keepdims: bool = False):
        """As PyTorch: `max()` is the largest element (ties share the gradient); `max(dim)` is
        `(values, indices)` along one axis, the gradient going to the index; `max(other)`
        is the elementwise `maximum`."""
        if isinstance(axis, Tensor):
            return Maximum.apply(self, axis)
        if axis is None:
            return self.amax(keepdims=keepdims)
        return self._pick("max", np.argmax, axis, keepdims)

    @accepts_dim
    def min(self, axis: int | None = None, keepdims: bool = False):
        """As `max`, for the minimum."""
        if isinstance(axis, Tensor):
            return -Maximum.apply(-self, -axis)
        if axis is None:
            return self.amin(keepdims=keepdims)
        return self._pick("min", np.argmin, axis, keepdims)

    def _pick(self, op: str, arg, axis, keepdims: bool) -> ValuesIndices:
        if not isinstance(axis, (int, np.integer)):
            raise TypeError(
                f"{op}: dim={axis!r}: PyTorch's {op}(dim) takes one axis and returns (values, "
                f"indices); for several axes write a{op}(dim={axis!r})"
            )
        axis = normalize_axes(axis, self.ndim, op)[0]
        indices = Tensor._make(np.expand_dims(arg(self.data, axis=axis), axis))
        values = Gather.apply(self, axis, indices.data)
        if keepdims:
            return ValuesIndices(values, indices)
        return ValuesIndices(values.squeeze(axis), indices.squeeze(axis))

    @accepts_dim
    def argmax(self, axis: int | None = None, keepdims: bool = False) -> Tensor:
        return Tensor._make(np.argmax(self.data, axis=axis, keepdims=keepdims))

    @accepts_dim
    def argmin(self, axis: int | None = None, keepdims: bool = False) -> Tensor:
        return Tensor._make(np.argmin(self.data, axis=axis, keepdims=keepdims))

    # -- shapes ------------------------------------------------------------------------------------

    def reshape(self, *shape) -> Tensor:
        return Reshape.apply(self, tuple(_shape_args(shape)))

    def permute(self, *axes) -> Tensor:
        axes = _shape_args(axes)
        return Permute.apply(self, tuple(a % self.ndim for a in axes))

    def transpose(self, dim0: int = -2, dim1: int = -1) -> Tensor:
        """Swap two axes, as PyTorch's transpose (default: the last two)."""
        axes = list(range(self.ndim))
        axes[dim0], axes[dim1] = axes[dim1], axes[dim0]
        return Permute.apply(self, tuple(axes))

    @property
    def T(self) -> Tensor:
        return Permute.apply(self, tuple(reversed(range(self.ndim))))

    def expand(self, *shape) -> Tensor:
        """Broadcast to `shape`; -1 keeps an axis's size, as in PyTorch."""
        shape = _shape_args(shape)
        kept = (None,) * (len(shape) - self.ndim) + self.shape
        shape = tuple(k if n == -1 and k is not None else n for n, k in zip(shape, kept))
        return Expand.apply(self, shape)

    def broadcast_to(self, shape: Sequence[int]) -> Tensor:
        return Expand.apply(self, tuple(shape))

    @accepts_dim
    def squeeze(self, axis: Axis = None) -> Tensor:
        """Drop the given axes (all, if None) that have size 1; as in PyTorch, an axis of
        another size is left alone."""
        axes = normalize_axes(axis, self.ndim, "squeeze")
        return self.reshape(tuple(n for i, n in enumerate(self.shape) if i not in axes or n != 1))

    @accepts_dim
    def unsqueeze(self, axis: int) -> Tensor:
        return self.reshape(np.expand_dims(self.data, axis).shape)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
        """Axes start_dim..end_dim (inclusive) merged into one, as PyTorch's flatten."""
        if self.ndim == 0:
            return self.reshape(1)
        start, end = (normalize_axes(d, self.ndim, "flatten")[0] for d in (start_dim, end_dim))
        merged = int(np.prod(self.shape[start:end + 1]))
        return self.reshape(self.shape[:start] + (merged,) + self.shape[end + 1:])

    def matmul(self, other) -> Tensor:
        return MatMul.apply(self, other)



GradArray.tensor_type = Tensor
