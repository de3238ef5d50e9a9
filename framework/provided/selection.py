"""Provided: PyTorch's reductions, scans, sorting and selection beyond chapter 2's: `nansum`,
`nanmean`, `aminmax`, `count_nonzero`, `diff`, `cummax`/`cummin`, `msort`,
`kthvalue`, `median`, `nanmedian`, `quantile`, `nanquantile`, `mode`, `unique`,
`unique_consecutive`. Values with a gradient are picked with `gather` or built
from ops that have theirs; the indices come from NumPy. (Refused: `logsumexp`, bonus exercise
2.12's answer, and `cumprod` and `logcumsumexp`, whose gradients are running sums, 2.11's.)
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..ops import normalize_axes
from ..shape_ops import Stack
from .math_ops import ValuesIndices

MinMax = namedtuple("MinMax", ["min", "max"])


def _axis(tensor, dim, op: str) -> int:
    return normalize_axes(dim, tensor.ndim, op)[0]


def _running_index(data: np.ndarray, axis: int, running: np.ufunc) -> np.ndarray:
    """Where each running extreme along `axis` was last reached (PyTorch's cummax indices)."""
    best = running.accumulate(data, axis=axis)
    shape = [1] * data.ndim
    shape[axis] = data.shape[axis]
    positions = np.arange(data.shape[axis]).reshape(shape)
    return np.maximum.accumulate(np.where(data == best, positions, 0), axis=axis).astype(np.int64)


class SelectionMethods:
    """The reduction, scan and selection methods of `Tensor` this file gives it."""

    __slots__ = ()

    # -- reductions -------------------------------------------------------------------------------

    def nansum(self, dim=None, keepdim: bool = False):
        """The sum over `dim` with NaNs counted as zero."""
        return self.masked_fill(np.isnan(self.data), 0.0).sum(dim, keepdims=keepdim)

    def nanmean(self, dim=None, keepdim: bool = False):
        """The mean over `dim` of the elements that are not NaN."""
        count = (~np.isnan(self.data)).sum(axis=dim, keepdims=keepdim)
        return self.nansum(dim, keepdim) / count.astype(self.dtype)

    def logsumexp(self, dim, keepdim: bool = False):
        """Not provided: the stable log Σ eˣ is bonus exercise 2.12's answer."""
        raise NotImplementedError(
            "logsumexp is not provided: it is chapter 2's bonus exercise 2.12; once written, use "
            "framework.bonus.chapter2_tensor.logsumexp(x, dim, keepdim)")

    def aminmax(self, *, dim=None, keepdim: bool = False):
        """(min, max) over `dim` (all elements if None)."""
        return MinMax(self.amin(dim, keepdims=keepdim), self.amax(dim, keepdims=keepdim))

    def count_nonzero(self, dim=None):
        """How many elements are not zero, over `dim` (int64)."""
        return self._make(np.asarray(np.count_nonzero(self.data, axis=dim), dtype=np.int64))

    def dist(self, other, p: float = 2):
        """The p-norm of self - other."""
        return (self - other).norm(p)

    def diff(self, n: int = 1, dim: int = -1):
        """The n-th forward difference along `dim`: x[i + 1] - x[i], n times."""
        axis, out = _axis(self, dim, "diff"), self
        before = (slice(None),) * axis
        for _ in range(n):
            out = out[(*before, slice(1, None))] - out[(*before, slice(None, -1))]
        return out

    # -- scans ------------------------------------------------------------------------------------

    def cummax(self, dim: int):
        """(values, indices): the running maximum along `dim` and where it was reached."""
        axis = _axis(self, dim, "cummax")
        indices = self._make(_running_index(self.data, axis, np.maximum))
        return ValuesIndices(self.gather(axis, indices), indices)

    def cummin(self, dim: int):
        """(values, indices): the running minimum along `dim` and where it was reached."""
        axis = _axis(self, dim, "cummin")
        indices = self._make(_running_index(self.data, axis, np.minimum))
        return ValuesIndices(self.gather(axis, indices), indices)

    # -- sorting and selection --------------------------------------------------------------------

    def msort(self):
        """Sorted along the first axis (the values of sort(dim=0))."""
        return self.sort(dim=0).values

    def kthvalue(self, k: int, dim: int = -1, keepdim: bool = False):
        """(values, indices) of the k-th smallest (k from 1) along `dim`."""
        axis = _axis(self, dim, "kthvalue")
        if not 1 <= k <= self.shape[axis]:
            raise ValueError(f"kthvalue: k={k} is out of range for dim {dim} of size "
                             f"{self.shape[axis]}; k counts from 1")
        order = np.argsort(self.data, axis=axis, kind="stable")
        indices = self._make(np.take(order, [k - 1], axis=axis).astype(np.int64))
        values = self.gather(axis, indices)
        if not keepdim:
            indices, values = indices.squeeze(axis), values.squeeze(axis)
        return ValuesIndices(values, indices)

    def median(self, dim=None, keepdim: bool = False):
        """The lower median (of an even count, the smaller middle value, as PyTorch's): a value
        over all elements, or (values, indices) along `dim`."""
        if dim is None:
            flat = self.reshape(-1)
            return flat.kthvalue((flat.shape[0] + 1) // 2, 0).values
        return self.kthvalue((self.shape[_axis(self, dim, "median")] + 1) // 2, dim, keepdim)

    def nanmedian(self, dim=None, keepdim: bool = False):
        """`median` of the elements that are not NaN (NaN where a row holds nothing else)."""
        x, axis = (self.reshape(-1), 0) if dim is None else (self, _axis(self, dim, "nanmedian"))
        valid = (~np.isnan(x.data)).sum(axis=axis, keepdims=True)
        order = np.argsort(x.data, axis=axis, kind="stable")  # NaNs last
        indices = self._make(np.take_along_axis(order, np.maximum((valid + 1) // 2 - 1, 0), axis))
        values = x.gather(axis, indices)
        if dim is None:
            return values.reshape(())
        if not keepdim:
            indices, values = indices.squeeze(axis), values.squeeze(axis)
        return ValuesIndices(values, indices)

    def quantile(self, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
        """The q-th quantiles (q a number or 1-D, in [0, 1]) over `dim` (all elements if None),
        linearly interpolated between the sorted values; NaN where a row holds a NaN."""
        return self._quantile(q, dim, keepdim, interpolation, skip_nan=False)

    def nanquantile(self, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear"):
        """`quantile` of the elements that are not NaN."""
        return self._quantile(q, dim, keepdim, interpolation, skip_nan=True)

    def _quantile(self, q, dim, keepdim: bool, interpolation: str, skip_nan: bool):
        op = "nanquantile" if skip_nan else "quantile"
        qs = np.asarray(q.data if hasattr(q, "data") else q, dtype=np.float64)
        if interpolation != "linear" or qs.ndim > 1 or np.any((qs < 0) | (qs > 1)):
            raise ValueError(f"{op}: q={qs.tolist()} with interpolation={interpolation!r}; q must "
                             "be a number or 1-D, in [0, 1], and only 'linear' is supported")
        x, axis = (self.reshape(-1), 0) if dim is None else (self, _axis(self, dim, op))
        ordered = x.sort(dim=axis).values  # NaNs last
        nan = np.isnan(x.data).sum(axis=axis, keepdims=True)
        count = x.shape[axis] - nan if skip_nan else np.full_like(nan, x.shape[axis])
        outs = []
        for one in np.atleast_1d(qs):
            place = one * np.maximum(count - 1, 0)
            low, high = np.floor(place).astype(np.int64), np.ceil(place).astype(np.int64)
            below = ordered.gather(axis, low)
            value = below + (ordered.gather(axis, high) - below) * (place - low).astype(x.dtype)
            value = value if skip_nan else value.masked_fill(nan > 0, np.nan)
            outs.append(value if keepdim and dim is not None else value.squeeze(axis))
        return outs[0] if qs.ndim == 0 else Stack.apply(*outs, axis=0)

    def mode(self, dim: int = -1, keepdim: bool = False):
        """(values, indices): the most frequent value along `dim` (the smallest of several) and
        the index of its last occurrence, as PyTorch's."""
        axis = _axis(self, dim, "mode")
        data = np.moveaxis(self.data, axis, -1)
        counts = (data[..., :, None] == data[..., None, :]).sum(axis=-1)
        best = np.where(counts == counts.max(axis=-1, keepdims=True), data, np.inf).min(axis=-1)
        positions = np.arange(data.shape[-1])
        last = np.where(data == best[..., None], positions, -1).max(axis=-1)
        indices = self._make(np.expand_dims(last, axis).astype(np.int64))
        values = self.gather(axis, indices)
        if not keepdim:
            indices, values = indices.squeeze(axis), values.squeeze(axis)
        return ValuesIndices(values, indices)

    def unique_consecutive(self, return_inverse: bool = False, return_counts: bool = False,
                           dim=None):
        """The values with each run of repeats kept once (of the flattened tensor)."""
        if dim is not None:
            raise NotImplementedError("unique_consecutive: dim= is not supported; flatten first")
        flat = self.data.reshape(-1)
        starts = np.flatnonzero(np.concatenate([[True], flat[1:] != flat[:-1]]))
        out = [self._make(flat[starts])]
        run = np.cumsum(np.isin(np.arange(flat.size), starts)) - 1
        out += [self._make(run.reshape(self.shape).astype(np.int64))] if return_inverse else []
        out += [self._make(np.diff([*starts, flat.size]).astype(np.int64))] if return_counts else []
        return out[0] if len(out) == 1 else tuple(out)

    def unique(self, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
               return_counts: bool = False, dim=None):
        """The distinct values, sorted; with the inverse (each element's place among them) and
        the counts if asked. No gradient (as PyTorch's)."""
        if dim is not None:
            raise NotImplementedError("unique: dim= is not supported; unique rows of a matrix "
                                      "are np.unique(x.numpy(), axis=dim)")
        values, inverse, counts = np.unique(self.data, return_inverse=True, return_counts=True)
        out = [self._make(values)]
        out += [self._make(inverse.reshape(self.shape).astype(np.int64))] if return_inverse else []
        out += [self._make(counts.astype(np.int64))] if return_counts else []
        return out[0] if len(out) == 1 else tuple(out)

    def cumprod(self, dim: int, **kwargs):
        """Not provided: its gradient is a running sum, bonus exercise 2.11's answer."""
        raise NotImplementedError(
            "cumprod is not provided: its gradient is a running sum, chapter 2's bonus exercise "
            "2.11 (cumsum); once written, build it from framework.bonus.chapter2_tensor.cumsum "
            "(for positive x: cumsum(x.log(), dim).exp())")

    def logcumsumexp(self, dim: int):
        """Not provided: it is a running sum, bonus exercise 2.11's answer."""
        raise NotImplementedError(
            "logcumsumexp is not provided: it is a running sum, chapter 2's bonus exercise 2.11 "
            "(cumsum); once written, use framework.bonus.chapter2_tensor.cumsum(x.exp(), dim).log()")

    def cumprod_(self, dim: int, **kwargs):
        return self.cumprod(dim)

    def cumsum_(self, dim: int, **kwargs):
        return self.cumsum(dim)
