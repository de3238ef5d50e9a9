"""Provided: PyTorch's joining, splitting, indexing and scattering family beyond chapter 2's:
`unbind`, `tensor_split`, `hsplit`/`vsplit`/`dsplit`, `index_select`, `narrow`, `select`,
`masked_select`, `take`, `take_along_dim`, `nonzero`, `argwhere`, `scatter`, `scatter_add`,
`index_add`, `index_copy`, `index_fill`, `index_put`, `put`, `masked_scatter`, `where`, and their in-place
forms (`scatter_`). Each is indexing (chapter 2's `GetItem`, whose gradient adds back
to the places read) or one `Function` here; the stacking functions are in `functions.py`.
"""

from __future__ import annotations

import numpy as np

from ..function import Function, unwrap
from ..ops import Where, normalize_axes
from .elementwise import in_place


def _axis(tensor, dim, op: str) -> int:
    return normalize_axes(dim, tensor.ndim, op)[0]


def _integer_index(index, op: str) -> np.ndarray:
    index = np.asarray(unwrap(index))
    if not np.issubdtype(index.dtype, np.integer):
        raise TypeError(f"{op}: the index must be an integer tensor, got {index.dtype}")
    return index


class Scatter(Function):
    """c = a with src written (or, `add`, added) at index along `axis` (PyTorch's scatter);
    ∂a is the gradient but where overwritten, ∂src is the gradient read back at index."""

    @staticmethod
    def forward(ctx, a, src, axis, index, add):
        index = _integer_index(index, "scatter")
        if index.ndim != a.ndim:
            raise ValueError(f"scatter: the index (shape {index.shape}) needs as many axes as the "
                             f"input (shape {a.shape})")
        places = list(np.indices(index.shape, sparse=True))
        places[axis] = index
        ctx.places, ctx.add, ctx.src_shape = tuple(places), add, np.shape(src)
        values = np.broadcast_to(src, index.shape) if np.ndim(src) == 0 else \
            np.asarray(src)[tuple(slice(0, n) for n in index.shape)]
        out = np.array(a, copy=True)
        if add:
            np.add.at(out, ctx.places, values)
        else:
            out[ctx.places] = values
        return out

    @staticmethod
    def backward(ctx, grad):
        grad_a = grad.copy()
        if not ctx.add:
            grad_a[ctx.places] = 0
        if ctx.src_shape == ():
            return grad_a, None
        grad_src = np.zeros(ctx.src_shape, dtype=grad.dtype)
        grad_src[tuple(slice(0, n) for n in grad[ctx.places].shape)] = grad[ctx.places]
        return grad_a, grad_src


class IndexingMethods:
    """The joining, splitting and indexing methods of `Tensor` this file gives it."""

    __slots__ = ()

    # -- splitting --------------------------------------------------------------------------------

    def unbind(self, dim: int = 0) -> tuple:
        """The slices along `dim`, that axis removed."""
        axis = _axis(self, dim, "unbind")
        return tuple(self.select(axis, i) for i in range(self.shape[axis]))

    def tensor_split(self, indices_or_sections, dim: int = 0) -> tuple:
        """`sections` pieces as equal as NumPy's array_split makes them, or pieces cut at
        the listed indices."""
        axis = _axis(self, dim, "tensor_split")
        length = self.shape[axis]
        if isinstance(indices_or_sections, (int, np.integer)):
            sizes = [len(p) for p in np.array_split(np.arange(length), indices_or_sections)]
        else:
            cuts = [min(max(int(i), 0), length) for i in indices_or_sections]
            sizes = list(np.diff([0, *cuts, length]).clip(0))
        return self.split(sizes, axis)

    def hsplit(self, sections) -> tuple:
        return self.tensor_split(sections, 0 if self.ndim == 1 else 1)

    def vsplit(self, sections) -> tuple:
        return self.tensor_split(sections, 0)

    def dsplit(self, sections) -> tuple:
        return self.tensor_split(sections, 2)

    # -- indexing ---------------------------------------------------------------------------------

    def index_select(self, dim: int, index):
        """The slices at `index` (1-D integers) along `dim`."""
        index = _integer_index(index, "index_select").reshape(-1)
        return self[(slice(None),) * _axis(self, dim, "index_select") + (index,)]

    def narrow(self, dim: int, start: int, length: int):
        """`length` slices along `dim` from `start`."""
        return self[(slice(None),) * _axis(self, dim, "narrow") + (slice(start, start + length),)]

    def select(self, dim: int, index: int):
        """The slice at `index` along `dim`, that axis removed."""
        return self[(slice(None),) * _axis(self, dim, "select") + (int(index),)]

    def masked_select(self, mask):
        """The elements where `mask` (broadcast to the shape) is True, as a 1-D tensor."""
        mask = np.broadcast_to(np.asarray(unwrap(mask), dtype=bool), self.shape)
        return self[mask]

    def take(self, index):
        """The elements at `index` of the flattened tensor, in the index's shape."""
        return self.reshape(-1)[_integer_index(index, "take")]

    def take_along_dim(self, indices, dim=None):
        """NumPy's take_along_axis: `gather` with an index that broadcasts."""
        if dim is None:
            return self.reshape(-1).take_along_dim(np.asarray(unwrap(indices)).reshape(-1), 0)
        axis = _axis(self, dim, "take_along_dim")
        index = _integer_index(indices, "take_along_dim")
        shape = np.broadcast_shapes(self.shape[:axis] + (1,) + self.shape[axis + 1:],
                                    index.shape[:axis] + (1,) + index.shape[axis + 1:])
        expanded = shape[:axis] + (index.shape[axis],) + shape[axis + 1:]
        return self.expand(*shape[:axis], self.shape[axis], *shape[axis + 1:]).gather(
            axis, np.broadcast_to(index, expanded))

    def nonzero(self, *, as_tuple: bool = False):
        """The indices of the elements that are not zero: (n, ndim) int64, or one per axis."""
        found = np.nonzero(self.data)
        if as_tuple:
            return tuple(self._make(i.astype(np.int64)) for i in found)
        return self._make(np.stack(found, axis=-1).astype(np.int64).reshape(-1, self.ndim))

    def argwhere(self):
        return self.nonzero()

    # -- scattering -------------------------------------------------------------------------------

    def scatter(self, dim: int, index, src=None, *, value=None, reduce=None):
        """A copy with src's elements (or `value`) written at `index` along `dim`."""
        if reduce is not None:
            raise NotImplementedError(f"scatter: reduce={reduce!r} is not supported; use "
                                      "scatter_add for 'add'")
        source = value if src is None else src
        return Scatter.apply(self, source, _axis(self, dim, "scatter"), index, False)

    def scatter_add(self, dim: int, index, src):
        """A copy with src's elements added at `index` along `dim` (repeats add up)."""
        return Scatter.apply(self, src, _axis(self, dim, "scatter_add"), index, True)

    def index_add(self, dim: int, index, source, *, alpha: float = 1.0):
        """A copy with the slices of `source` added at `index` along `dim`."""
        full = self._slices_at(dim, index, source, "index_add")
        return self.scatter_add(dim, full, source * alpha if alpha != 1 else source)

    def index_copy(self, dim: int, index, source):
        """A copy with the slices at `index` along `dim` replaced by those of `source`."""
        return self.scatter(dim, self._slices_at(dim, index, source, "index_copy"), source)

    def put(self, index, source, accumulate: bool = False):
        """A copy with source's elements written (or added) at `index` of the flattened tensor."""
        flat = self.reshape(-1)
        index = _integer_index(index, "put").reshape(-1)
        source = source.reshape(-1) if np.ndim(unwrap(source)) else source
        done = flat.scatter_add(0, index, source) if accumulate else flat.scatter(0, index, source)
        return done.reshape(*self.shape)

    def index_put(self, indices: tuple, values, accumulate: bool = False):
        """A copy with `values` written (or added) at self[indices]."""
        places = np.arange(self.data.size).reshape(self.shape)[tuple(map(unwrap, indices))]
        if np.ndim(unwrap(values)) == 0:
            return self.put(places, values, accumulate)
        if not hasattr(values, "broadcast_to"):
            values = np.broadcast_to(values, places.shape)
        return self.put(places, values.broadcast_to(places.shape), accumulate)

    def masked_scatter(self, mask, source):
        """A copy with the places where `mask` is True filled, in order, from `source`."""
        mask = np.broadcast_to(np.asarray(unwrap(mask), dtype=bool), self.shape).reshape(-1)
        places = np.flatnonzero(mask)
        return self.put(places, source.reshape(-1)[: len(places)])

    def scatter_reduce(self, dim: int, index, src, reduce: str, *, include_self: bool = True):
        """scatter with reduce="sum" (scatter_add); the other reductions are not supported."""
        if reduce != "sum" or not include_self:
            raise NotImplementedError(f"scatter_reduce: reduce={reduce!r}, include_self="
                                      f"{include_self} is not supported; only reduce='sum' with "
                                      "include_self=True (scatter_add)")
        return self.scatter_add(dim, index, src)

    def where(self, condition, y):
        """self where `condition`, y elsewhere (torch.where(condition, self, y))."""
        return Where.apply(unwrap(condition), self, y)

    def _slices_at(self, dim: int, index, source, op: str) -> np.ndarray:
        """`index` (1-D) repeated over source's shape along `dim`: scatter's index for slices."""
        axis = _axis(self, dim, op)
        index = _integer_index(index, op).reshape(-1)
        shape = [1] * self.ndim
        shape[axis] = len(index)
        return np.broadcast_to(index.reshape(shape), np.shape(unwrap(source)))

    def index_fill(self, dim: int, index, value):
        """A copy with the slices at `index` along `dim` set to `value`."""
        mask = np.zeros(self.shape, dtype=bool)
        mask[(slice(None),) * _axis(self, dim, "index_fill") + (_integer_index(index, "index_fill"),)] = True
        return self.masked_fill(mask, value)


for _name in ("scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill",
              "index_put", "put", "masked_scatter"):
    setattr(IndexingMethods, f"{_name}_", in_place(_name))
