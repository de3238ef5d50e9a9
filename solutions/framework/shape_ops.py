"""Chapter 2's ops that move elements rather than compute new ones, each a `Function`:
reshaping (exercise 2.7), indexing and joining (2.9), and the provided casts, copies and
selections of PyTorch's surface (`Cast`, `Clone`, `Gather`, `Triangle`).
"""

from __future__ import annotations

import numpy as np

from .function import Function, broadcast_failure, unbroadcast, unwrap

# -- exercise 2.7: reshaping -----------------------------------------------------------------------


class Reshape(Function):
    """c = a with a new shape, same elements in the same order; ∂ is the reshape back."""

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        try:
            return np.reshape(a, shape)
        except ValueError:
            raise ValueError(
                f"reshape: cannot reshape {a.shape} ({a.size} elements) into {tuple(shape)}"
            ) from None

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.7
        return (grad.reshape(ctx.shape),)
        ### END SOLUTION


class Permute(Function):
    """c = a with its axes reordered: c.shape[i] = a.shape[axes[i]]; ∂ applies the inverse order."""

    @staticmethod
    def forward(ctx, a, axes):
        if sorted(axes) != list(range(a.ndim)):
            raise ValueError(
                f"permute: {tuple(axes)} is not an order of the {a.ndim} axes of shape {a.shape}"
            )
        ctx.axes = axes
        return np.transpose(a, axes)

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.7
        return (np.transpose(grad, np.argsort(ctx.axes)),)
        ### END SOLUTION


class Expand(Function):
    """c = a broadcast to a larger shape; ∂ sums the copies back (unbroadcast)."""

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        failure = broadcast_failure("expand", a.shape, tuple(shape))
        if failure or np.broadcast_shapes(a.shape, tuple(shape)) != tuple(shape):
            raise ValueError(failure or f"expand: cannot expand {a.shape} to {tuple(shape)}")
        return np.broadcast_to(a, shape)

    @staticmethod
    def backward(ctx, grad):
        return (unbroadcast(grad, ctx.shape),)


# -- exercise 2.9: indexing ------------------------------------------------------------------------


def _plain_index(index):
    """Tensors inside an index become their arrays."""
    if isinstance(index, tuple):
        return tuple(unwrap(i) for i in index)
    return unwrap(index)


class GetItem(Function):
    """c = a[index]; ∂a is zero except at the picked places, which receive (+=) their gradient."""

    @staticmethod
    def forward(ctx, a, index):
        ctx.shape, ctx.index = a.shape, index
        try:
            return a[index]
        except IndexError as error:
            raise IndexError(f"getitem: index {index!r} on shape {a.shape}: {error}") from None

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.9
        grad_a = np.zeros(ctx.shape, dtype=grad.dtype)
        np.add.at(grad_a, ctx.index, grad)
        return (grad_a,)
        ### END SOLUTION


class Concatenate(Function):
    """c = the inputs joined along an existing axis; ∂ splits the gradient back."""

    @staticmethod
    def forward(ctx, *arrays, axis=0):
        try:
            out = np.concatenate(arrays, axis=axis)
        except ValueError:
            shapes = ", ".join(str(np.shape(a)) for a in arrays)
            raise ValueError(
                f"concatenate: shapes {shapes} must agree on every axis but axis {axis}"
            ) from None
        ctx.axis = axis
        ctx.splits = np.cumsum([np.shape(a)[axis] for a in arrays])[:-1]
        return out

    @staticmethod
    def backward(ctx, grad):
        return tuple(np.split(grad, ctx.splits, axis=ctx.axis))


class Stack(Function):
    """c = the inputs stacked along a new axis; ∂ unstacks the gradient."""

    @staticmethod
    def forward(ctx, *arrays, axis=0):
        try:
            out = np.stack(arrays, axis=axis)
        except ValueError:
            shapes = ", ".join(str(np.shape(a)) for a in arrays)
            raise ValueError(f"stack: all shapes must be equal, got {shapes}") from None
        ctx.axis = axis
        return out

    @staticmethod
    def backward(ctx, grad):
        return tuple(np.moveaxis(grad, ctx.axis, 0))


class Cast(Function):
    """c = a converted to another dtype; the gradient is converted back."""

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.dtype = a.dtype
        return a.astype(dtype)

    @staticmethod
    def backward(ctx, grad):
        return (grad.astype(ctx.dtype),)


# -- provided ops for PyTorch's everyday surface -------------------------------------------------


class Clone(Function):
    """c = a copy of a (its own memory); ∂c/∂a = 1."""

    @staticmethod
    def forward(ctx, a):
        return a.copy()

    @staticmethod
    def backward(ctx, grad):
        return (grad,)


class Gather(Function):
    """c[..., i, ...] = a[..., index[..., i, ...], ...] along `axis` (PyTorch's gather);
    ∂a receives (+=) each gradient at the place it was picked from: GetItem's rule (2.9)."""

    @staticmethod
    def forward(ctx, a, axis, index):
        index = np.asarray(index)
        if index.ndim != a.ndim or not np.issubdtype(index.dtype, np.integer):
            raise ValueError(
                f"gather: the index (shape {index.shape}, {index.dtype}) must be an integer "
                f"tensor with as many axes as the input (shape {a.shape})"
            )
        places = list(np.indices(index.shape, sparse=True))
        places[axis] = index
        ctx.shape, ctx.index = a.shape, tuple(places)
        return a[ctx.index]

    @staticmethod
    def backward(ctx, grad):
        # gather is indexing with one integer array per axis, so its gradient is indexing's:
        # GetItem's backward (exercise 2.9) reads the same ctx.shape and ctx.index
        return GetItem.backward(ctx, grad)


class Triangle(Function):
    """c = the upper (triu) or lower (tril) triangle of the last two axes, zeros elsewhere;
    ∂ keeps the same triangle of the gradient."""

    @staticmethod
    def forward(ctx, a, upper, diagonal):
        if a.ndim < 2:
            name = "triu" if upper else "tril"
            raise ValueError(f"{name}: needs at least 2 axes, got shape {a.shape}")
        ctx.cut = (lambda g: np.triu(g, diagonal)) if upper else (lambda g: np.tril(g, diagonal))
        return ctx.cut(a)

    @staticmethod
    def backward(ctx, grad):
        return (ctx.cut(grad),)
