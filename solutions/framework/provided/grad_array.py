"""Provided: what reading `x.grad` gives, a NumPy array that also answers as a PyTorch tensor.

The contract (chapter 2): a tensor's gradient is stored as a NumPy array of its shape and
dtype; your code (2.10's `receive_grad`, chapter 4's optimisers) writes and reads plain
arrays, and NumPy arithmetic on it means what it always meant. Reading `x.grad` gives that
same memory seen as a `GradArray`, so PyTorch code that treats a gradient as a tensor
(`p.grad.zero_()`, `p.grad.data`, `p.grad.norm()`, `p.grad.size()`, `print(p.grad)`) runs:

- a method NumPy lacks is the tensor method, run on a tensor that shares the memory (so
  `zero_()`, `add_()`, `clamp_()`, ... change the gradient in place, as in PyTorch);
- a method both have (`sum`, `max`, `std`, `view`, `transpose`, ...) is NumPy's when called as
  NumPy calls it (NumPy's keywords, `np.sum(g)`) and PyTorch's when the call can only be
  PyTorch's (`dim=`, `keepdim=`, `g.max(0)`, `g.std()`, `g.view(-1)`, `g.transpose(0, 1)`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: Keywords only PyTorch's reductions and shape methods take.
TORCH_KEYWORDS = frozenset({"dim", "keepdim", "descending", "unbiased", "correction",
                            "start_dim", "end_dim", "as_tuple"})
#: Keywords only NumPy's methods take (NumPy's own functions always pass some of them).
NUMPY_KEYWORDS = frozenset({"axis", "out", "dtype", "keepdims", "ddof", "where", "kind",
                            "order", "initial", "mean"})


def _torch_keyword(args: tuple, kwargs: dict) -> bool:
    return not kwargs.keys().isdisjoint(TORCH_KEYWORDS)


def _any_argument(args: tuple, kwargs: dict) -> bool:
    """`g.max(0)` is PyTorch's (values, indices); NumPy's own `np.max(g)` passes axis=."""
    return bool(args) or _torch_keyword(args, kwargs)


def _no_numpy_keyword(args: tuple, kwargs: dict) -> bool:
    """`g.std()` is PyTorch's unbiased estimate; NumPy's `np.std(g)` passes ddof= and axis=."""
    return kwargs.keys().isdisjoint(NUMPY_KEYWORDS)


def _two_dims(args: tuple, kwargs: dict) -> bool:
    """`g.transpose(0, 1)` swaps two axes (PyTorch); NumPy's is a permutation of all of them."""
    two_ints = len(args) == 2 and all(isinstance(a, (int, np.integer)) for a in args)
    return two_ints or _torch_keyword(args, kwargs)


def _a_shape(args: tuple, kwargs: dict) -> bool:
    """`g.view(-1)` reshapes (PyTorch); NumPy's `view(dtype)` reinterprets the bytes."""
    shape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    return bool(shape) and all(isinstance(s, (int, np.integer)) for s in shape)


def _no_axis(args: tuple, kwargs: dict) -> bool:
    """`g.repeat(2, 1)` tiles (PyTorch); NumPy's `np.repeat(g, n)` passes axis=."""
    return "axis" not in kwargs


#: Methods of both ndarray and Tensor: when a call is PyTorch's rather than NumPy's.
PYTORCH_CALL: dict[str, Callable[[tuple, dict], bool]] = {
    **dict.fromkeys(("sum", "mean", "prod", "all", "any", "argmax", "argmin", "cumsum",
                     "cumprod", "squeeze", "argsort", "nonzero"), _torch_keyword),
    **dict.fromkeys(("max", "min", "flatten"), _any_argument),
    **dict.fromkeys(("std", "var", "sort"), _no_numpy_keyword),
    "transpose": _two_dims,
    "view": _a_shape,
    "repeat": _no_axis,
}


def _either(name: str, is_pytorch_call: Callable[[tuple, dict], bool]):
    numpy_method = getattr(np.ndarray, name)

    def method(self, *args, **kwargs):
        if is_pytorch_call(args, kwargs):
            return getattr(self.tensor(), name)(*args, **kwargs)
        return numpy_method(self, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"NumPy's `{name}`, or PyTorch's when called as only PyTorch calls it."
    return method


class _Count(int):
    """`g.size` is NumPy's element count (an int) and, called, PyTorch's `size()`."""

    def __new__(cls, count: int, array: GradArray) -> _Count:
        self = super().__new__(cls, count)
        self.array = array
        return self

    def __call__(self, dim: int | None = None):
        return self.array.tensor().size(dim)


class GradArray(np.ndarray):
    """A gradient: NumPy's array of the tensor's shape, with PyTorch's tensor methods too."""

    #: chapter 2's `Tensor`, which sets it: tensor.py imports this module, not the reverse
    tensor_type: type | None = None

    def tensor(self):
        """A tensor (no graph) over the same memory: what PyTorch's `p.grad` is."""
        return self.tensor_type(self.view(np.ndarray))

    @property
    def data(self) -> GradArray:
        """PyTorch's `p.grad.data`: the gradient itself (NumPy's buffer is `memoryview(g)`)."""
        return self

    @property
    def size(self) -> _Count:
        return _Count(np.ndarray.size.__get__(self), self)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """NumPy's arithmetic on a gradient gives plain arrays (an optimiser's state stays
        NumPy's); only the gradient itself, as `.grad` holds it, is a GradArray."""
        array = array.view(np.ndarray)
        return array[()] if return_scalar else array

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.tensor(), name)

    def __repr__(self) -> str:
        return repr(self.tensor())

    __str__ = __repr__


for _name, _rule in PYTORCH_CALL.items():
    setattr(GradArray, _name, _either(_name, _rule))


def as_grad(value) -> GradArray | None:
    """What `x.grad = value` stores: an array (or a tensor's array) seen as a GradArray."""
    if value is None or isinstance(value, GradArray):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value).view(GradArray)
    data = getattr(value, "data", None)
    if isinstance(data, np.ndarray):
        return data.view(GradArray)
    raise TypeError(f"Tensor.grad: assigned a {type(value).__name__}; assign a NumPy array, a "
                    "tensor of the same shape, or None")
