"""Provided: PyTorch's tensor methods that chapter 2 does not write, so that ordinary PyTorch
code runs unchanged: elementwise math (`sin`, `cos`, `log1p`, `expm1`, `square`, `rsqrt`),
comparisons and logic by name (`eq`, `gt`, `logical_and`, `isnan`, ...), reductions and scans
(`var`, `std`, `norm`, `prod`; `cumsum` is bonus exercise 2.11's), ordering (`sort`,
`argsort`, `topk`), splitting (`split`, `chunk`), `mm`, and drawing ids from probabilities
(`multinomial`). Each new op is a
`Function` with PyTorch's gradient; the rest are built from ops that have theirs.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..function import Function, unwrap
from ..ops import normalize_axes
from .generator import numpy_generator

#: What `sort` and `topk` return, as PyTorch's: the values and where they came from.
ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])


class Sin(Function):
    """c = sin a; ∂c/∂a = cos a."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.sin(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * np.cos(a),)


class Cos(Function):
    """c = cos a; ∂c/∂a = -sin a."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.cos(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (-grad * np.sin(a),)


class Log1p(Function):
    """c = ln(1 + a), exact for small a; ∂c/∂a = 1/(1 + a)."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log1p(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad / (1 + a),)


class Expm1(Function):
    """c = eᵃ - 1, exact for small a; ∂c/∂a = c + 1."""

    @staticmethod
    def forward(ctx, a):
        out = np.expm1(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return (grad * (out + 1),)


class Rsqrt(Function):
    """c = 1/√a; ∂c/∂a = -c³/2."""

    @staticmethod
    def forward(ctx, a):
        out = 1 / np.sqrt(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return (grad * -0.5 * out**3,)


def sample_multinomial(probs: np.ndarray, num_samples: int, replacement: bool,
                       rng: np.random.Generator) -> np.ndarray:
    """`num_samples` ids drawn from each row of (rows, k) non-negative weights, one row after
    the other by NumPy's `Generator.choice` (the weights normalised to probabilities)."""
    probs = np.asarray(probs, dtype=np.float64)
    return np.stack([rng.choice(probs.shape[1], size=num_samples, replace=replacement, p=row / row.sum())
                     for row in probs]).astype(np.int64)


class MathMethods:
    """The methods of `Tensor` this file gives it (a base of `TensorMethods`)."""

    __slots__ = ()

    # -- elementwise ------------------------------------------------------------------------------

    def sin(self):
        return Sin.apply(self)

    def cos(self):
        return Cos.apply(self)

    def log1p(self):
        return Log1p.apply(self)

    def expm1(self):
        return Expm1.apply(self)

    def rsqrt(self):
        return Rsqrt.apply(self)

    def square(self):
        return self * self

    # -- comparisons and logic by name: bool results, no gradient (as the operators) ----------------

    def eq(self, other):
        return self == other

    def ne(self, other):
        return self != other

    def gt(self, other):
        return self > other

    def ge(self, other):
        return self >= other

    def lt(self, other):
        return self < other

    def le(self, other):
        return self <= other

    def logical_and(self, other):
        return self._make(np.logical_and(self.data, unwrap(other)))

    def logical_or(self, other):
        return self._make(np.logical_or(self.data, unwrap(other)))

    def logical_not(self):
        return self._make(np.logical_not(self.data))

    def isnan(self):
        return self._make(np.isnan(self.data))

    def isfinite(self):
        return self._make(np.isfinite(self.data))

    # -- reductions and scans ---------------------------------------------------------------------

    def var(self, dim=None, *, correction: int = 1, keepdim: bool = False):
        """Σ (x - mean)² / (n - correction) over `dim` (all axes if None); unbiased by default."""
        axes = normalize_axes(dim, self.ndim, "var")
        n = int(np.prod([self.shape[a] for a in axes]))
        if n - correction <= 0:
            raise ValueError(f"var: {n} element(s) along dim={dim} with correction={correction}; "
                             "need more elements than the correction")
        centred = self - self.mean(axes, keepdims=True)
        return (centred * centred).sum(axes, keepdims=keepdim) / (n - correction)

    def std(self, dim=None, *, correction: int = 1, keepdim: bool = False):
        """The square root of `var`."""
        return self.var(dim, correction=correction, keepdim=keepdim).sqrt()

    def norm(self, p=2, dim=None, keepdim: bool = False):
        """The p-norm over `dim` (all elements if None): p = 2 (Euclidean) or 1."""
        if p == 2:
            return (self * self).sum(dim, keepdims=keepdim).sqrt()
        if p == 1:
            return self.abs().sum(dim, keepdims=keepdim)
        raise NotImplementedError(f"norm: p={p!r} is not supported; use p=2 or p=1")

    def prod(self, dim=None, keepdim: bool = False):
        """The product over `dim` (all elements if None), as exp Σ log |x| with the sign kept
        (so zeros in the input are not supported)."""
        if np.any(self.data == 0):
            raise ValueError("prod: the input holds zeros, which this product does not support; "
                             "compute it with a loop of multiplications")
        sign = np.prod(np.sign(self.data), axis=dim, keepdims=keepdim)
        return self.abs().log().sum(dim, keepdims=keepdim).exp() * sign

    def cumsum(self, dim: int):
        """Not provided: the running sum and its gradient are chapter 2's bonus exercise 2.11."""
        raise NotImplementedError(
            "cumsum is not provided: it is chapter 2's bonus exercise 2.11; once written, use "
            "framework.bonus.chapter2_tensor.cumsum(x, dim)"
        )

    # -- ordering ---------------------------------------------------------------------------------

    def argsort(self, dim: int = -1, descending: bool = False):
        """The indices that sort along `dim` (ties keep their order: a stable sort)."""
        axis = normalize_axes(dim, self.ndim, "argsort")[0]
        keys = -self.data if descending else self.data
        return self._make(np.argsort(keys, axis=axis, kind="stable").astype(np.int64))

    def sort(self, dim: int = -1, descending: bool = False):
        """(values, indices) sorted along `dim`; the gradient goes back to where each came from."""
        indices = self.argsort(dim, descending)
        return ValuesIndices(self.gather(dim, indices), indices)

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
        """(values, indices) of the k largest (or smallest) along `dim`, largest first."""
        axis = normalize_axes(dim, self.ndim, "topk")[0]
        if not 0 <= k <= self.shape[axis]:
            raise ValueError(f"topk: k={k} is out of range for dim {dim} of size {self.shape[axis]}")
        order = self.argsort(axis, descending=largest)
        indices = self._make(np.take(order.data, np.arange(k), axis=axis))
        return ValuesIndices(self.gather(axis, indices), indices)

    # -- splitting --------------------------------------------------------------------------------

    def split(self, split_size_or_sections, dim: int = 0) -> tuple:
        """Pieces along `dim`: each of `split_size` (the last may be smaller), or of the sizes listed."""
        axis = normalize_axes(dim, self.ndim, "split")[0]
        length = self.shape[axis]
        if isinstance(split_size_or_sections, int):
            sizes = [split_size_or_sections] * (length // split_size_or_sections)
            sizes += [length % split_size_or_sections] if length % split_size_or_sections else []
        else:
            sizes = list(split_size_or_sections)
            if sum(sizes) != length:
                raise ValueError(f"split: sizes {sizes} sum to {sum(sizes)}, but dim {dim} has "
                                 f"size {length}")
        starts = np.cumsum([0, *sizes])
        before = (slice(None),) * axis
        return tuple(self[(*before, slice(a, b))] for a, b in zip(starts[:-1], starts[1:]))

    def chunk(self, chunks: int, dim: int = 0) -> tuple:
        """At most `chunks` pieces of equal size along `dim` (the last may be smaller)."""
        length = self.shape[normalize_axes(dim, self.ndim, "chunk")[0]]
        return self.split(max(1, -(-length // chunks)), dim)

    # -- shapes of another tensor ------------------------------------------------------------------

    def view_as(self, other):
        return self.reshape(*other.shape)

    def reshape_as(self, other):
        return self.reshape(*other.shape)

    def expand_as(self, other):
        return self.expand(*other.shape)

    # -- products and draws -----------------------------------------------------------------------

    def mm(self, mat2):
        """The product of two matrices (2-D only, as PyTorch's mm; matmul broadcasts)."""
        if self.ndim != 2 or np.ndim(unwrap(mat2)) != 2:
            raise ValueError(f"mm: expects two matrices, got shapes {tuple(self.shape)} and "
                             f"{np.shape(unwrap(mat2))}; use matmul for other shapes")
        return self @ mat2

    def multinomial(self, num_samples: int, replacement: bool = False, *, generator=None):
        """Ids drawn from each row of non-negative weights (1-D or 2-D), as torch.multinomial."""
        probs = np.asarray(self.data, dtype=np.float64)
        rows = probs.reshape(-1, probs.shape[-1]) if probs.ndim else probs
        if probs.ndim not in (1, 2) or np.any(rows < 0) or np.any(~np.isfinite(rows)) \
                or np.any(rows.sum(axis=1) <= 0):
            raise ValueError(f"multinomial: expects 1-D or 2-D weights, non-negative, finite, each "
                             f"row summing above 0; got shape {tuple(self.shape)}")
        if not replacement and num_samples > probs.shape[-1]:
            raise ValueError(f"multinomial: {num_samples} samples without replacement from "
                             f"{probs.shape[-1]} categories; pass replacement=True")
        picks = sample_multinomial(rows, num_samples, replacement, numpy_generator(generator))
        return self._make(picks.reshape(*probs.shape[:-1], num_samples))
