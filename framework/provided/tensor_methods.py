"""Provided: PyTorch's everyday methods of `Tensor`, which inherits them from `TensorMethods`:
`size`, `numel`, `view`, `t`, the casts (`float()`, `long()`, ...), `clone`, `gather`,
`triu`/`tril`, `clamp`, `softmax`, the named arithmetic (`add`, `mul`, ...) and the in-place
updates (`zero_`, `add_`, `relu_`, `x[i] = v`, `x -= y`, ...), recorded as PyTorch records them
(`in_place.py`). Chapter 2 does not write these; they make ordinary PyTorch code run unchanged.
"""

from __future__ import annotations

import numpy as np

from ..function import unwrap
from ..ops import Clamp, Neg, ReLU, normalize_axes
from ..shape_ops import Clone, Gather, Triangle, _plain_index
from .device import check_device, device
from .elementwise import ElementwiseMethods
from .in_place import SetItem, change_in_place, numpy_setitem
from .indexing import IndexingMethods
from .logic import LogicMethods
from .loud import LoudMethods
from .math_ops import MathMethods
from .printing import Size
from .random_ops import RandomMethods
from .selection import SelectionMethods


def _is_dtype(value) -> bool:
    try:
        return isinstance(value, (type, np.dtype)) and np.dtype(value) is not None
    except TypeError:
        return False


class TensorMethods(MathMethods, ElementwiseMethods, LogicMethods, SelectionMethods,
                    IndexingMethods, RandomMethods, LoudMethods):
    """The methods of `Tensor` that only repeat its own ops under PyTorch's names."""

    __slots__ = ()

    def size(self, dim: int | None = None) -> Size | int:
        """The shape (a `Size`, as PyTorch's torch.Size a tuple), or the length of axis `dim`."""
        if dim is None:
            return Size(self.data.shape)
        if self.ndim == 0:
            raise IndexError(f"size: dim {dim} asked of a tensor with no axes (shape ())")
        return self.data.shape[normalize_axes(dim, self.ndim, "size")[0]]

    def numel(self) -> int:
        """The number of elements."""
        return int(self.data.size)

    def dim(self) -> int:
        """The number of axes (also `ndim`)."""
        return self.data.ndim

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def device(self):
        return device("cpu")

    def view(self, *shape) -> TensorMethods:
        """`reshape` (-1 allowed), as PyTorch's view of a contiguous tensor."""
        if len(shape) == 1 and _is_dtype(shape[0]):
            raise TypeError(
                "view(dtype): reinterpreting the bytes as another dtype is not supported; "
                "to convert the values, use .to(dtype)"
            )
        return self.reshape(*shape)

    def contiguous(self) -> TensorMethods:
        return self

    def cpu(self) -> TensorMethods:
        return self

    def cuda(self, *args, **kwargs) -> TensorMethods:
        check_device("cuda", "cuda")

    def t(self) -> TensorMethods:
        """The transpose of a matrix (a tensor with 0, 1 or 2 axes), as PyTorch's t()."""
        if self.ndim > 2:
            raise ValueError(
                f"t: expects at most 2 axes, got shape {tuple(self.shape)}; "
                "use transpose(dim0, dim1) or permute"
            )
        return self.T

    def float(self) -> TensorMethods:
        return self.to(np.float32)

    def double(self) -> TensorMethods:
        return self.to(np.float64)

    def half(self) -> TensorMethods:
        return self.to(np.float16)

    def long(self) -> TensorMethods:
        return self.to(np.int64)

    def int(self) -> TensorMethods:
        return self.to(np.int32)

    def bool(self) -> TensorMethods:
        return self.to(np.bool_)

    def type_as(self, other: TensorMethods) -> TensorMethods:
        return self.to(other.dtype)

    def clone(self) -> TensorMethods:
        """A copy with its own memory; gradients flow back to self."""
        return Clone.apply(self)

    def __format__(self, spec: str) -> str:
        """A tensor of no axes formats as its number (`f"{loss:.4f}"`), as PyTorch's."""
        return format(self.item(), spec) if self.ndim == 0 else format(repr(self), spec)

    def __index__(self) -> int:
        """A one-element integer tensor as an index (`data[i:i + 8]` for i in a tensor of ids)."""
        if self.data.size != 1 or not np.issubdtype(self.data.dtype, np.integer):
            raise TypeError(f"__index__: only a one-element integer tensor is an index; got shape "
                            f"{tuple(self.shape)} of {self.data.dtype}")
        return int(self.data.reshape(()))

    def tolist(self):
        return self.data.tolist()

    def gather(self, dim: int, index) -> TensorMethods:
        """out[i][j] = self[i][index[i][j]] for dim=1 (PyTorch's gather)."""
        index = unwrap(index)
        return Gather.apply(self, normalize_axes(dim, self.ndim, "gather")[0], index)

    def triu(self, diagonal: int = 0) -> TensorMethods:
        return Triangle.apply(self, True, diagonal)

    def tril(self, diagonal: int = 0) -> TensorMethods:
        return Triangle.apply(self, False, diagonal)

    def clamp(self, min=None, max=None) -> TensorMethods:  # noqa: A002 (PyTorch's names)
        if min is None and max is None:
            raise ValueError("clamp: give at least one of min and max")
        return Clamp.apply(self, min, max)

    clip = clamp

    def softmax(self, dim: int) -> TensorMethods:
        """eˣ / Σ eˣ along `dim`, from this chapter's ops: the maximum is subtracted first (as a
        constant: softmax does not change under a shift), so no eˣ overflows. Chapter 3's
        `nn.functional.softmax` computes the same as one op with its own rule; this file comes
        before chapter 3's, so it does not call it."""
        e = (self - self.amax(dim, keepdims=True).detach()).exp()
        return e / e.sum(dim, keepdims=True)

    def log_softmax(self, dim: int) -> TensorMethods:
        """x - log Σ eˣ along `dim`, shifted by the maximum as `softmax` is, so the log never
        sees an underflowed 0 (chapter 3's `nn.functional.log_softmax` is the one-op form)."""
        shifted = self - self.amax(dim, keepdims=True).detach()
        return shifted - shifted.exp().sum(dim, keepdims=True).log()

    def add(self, other) -> TensorMethods:
        return self + other

    def sub(self, other) -> TensorMethods:
        return self - other

    def mul(self, other) -> TensorMethods:
        return self * other

    def div(self, other) -> TensorMethods:
        return self / other

    def pow(self, exponent) -> TensorMethods:
        return self**exponent

    def neg(self) -> TensorMethods:
        return Neg.apply(self)

    # In-place changes: each bumps the version counter (`_version`); inside a graph the
    # tensor's history is rebased onto the op, as in PyTorch (`in_place.py` says how).

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor's memory has had (PyTorch's `x._version`)."""
        return self._counter.value

    def __setitem__(self, index, value) -> None:
        index = _plain_index(index)
        change_in_place(self, "setitem", (value,), numpy_setitem(index, value),
                        lambda t: SetItem.apply(t, value, index))

    def zero_(self) -> TensorMethods:
        return change_in_place(self, "zero_", (), numpy_setitem(..., 0),
                               lambda t: SetItem.apply(t, 0, ...))

    def fill_(self, value) -> TensorMethods:
        return change_in_place(self, "fill_", (value,), numpy_setitem(..., value),
                               lambda t: SetItem.apply(t, value, ...))

    def copy_(self, source) -> TensorMethods:
        return change_in_place(self, "copy_", (source,), numpy_setitem(..., source),
                               lambda t: SetItem.apply(t, source, ...))

    def masked_fill_(self, mask, value) -> TensorMethods:
        mask = unwrap(mask)
        return change_in_place(self, "masked_fill_", (), lambda a: np.copyto(a, value, where=mask),
                               lambda t: t.masked_fill(mask, value))

    def add_(self, other) -> TensorMethods:
        return change_in_place(self, "add_", (other,), lambda a: np.add(a, unwrap(other), out=a),
                               lambda t: t + other)

    def sub_(self, other) -> TensorMethods:
        return change_in_place(self, "sub_", (other,),
                               lambda a: np.subtract(a, unwrap(other), out=a), lambda t: t - other)

    def mul_(self, other) -> TensorMethods:
        return change_in_place(self, "mul_", (other,),
                               lambda a: np.multiply(a, unwrap(other), out=a), lambda t: t * other)

    def div_(self, other) -> TensorMethods:
        return change_in_place(self, "div_", (other,),
                               lambda a: np.divide(a, unwrap(other), out=a), lambda t: t / other)

    def relu_(self) -> TensorMethods:
        return change_in_place(self, "relu_", (), lambda a: np.maximum(a, 0, out=a), ReLU.apply)

    def clamp_(self, min=None, max=None) -> TensorMethods:  # noqa: A002 (PyTorch's names)
        if min is None and max is None:
            raise ValueError("clamp_: give at least one of min and max")
        return change_in_place(self, "clamp_", (), lambda a: np.clip(a, min, max, out=a),
                               lambda t: Clamp.apply(t, min, max))

    clip_ = clamp_

    # x += y changes x in place, as in PyTorch (`with no_grad(): w -= lr * w.grad`)
    __iadd__, __isub__, __imul__, __itruediv__ = add_, sub_, mul_, div_
