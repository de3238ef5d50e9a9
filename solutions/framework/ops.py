"""Chapter 2's ops, each a `Function` with its own backward rule: elementwise arithmetic
and functions (exercises 2.3 and 2.4), reductions (2.5 and 2.6), matrix products (2.8),
and `Clamp` (provided). Reshaping and indexing are in `shape_ops.py`.
"""

from __future__ import annotations

import numpy as np

from .function import Function, Shape, _broadcasting, _shape, broadcast_failure, unbroadcast

Axis = int | tuple[int, ...] | None


# -- exercise 2.3: binary elementwise ops ------------------------------------------------------


class Add(Function):
    """c = a + b; ∂c/∂a = 1, ∂c/∂b = 1, each summed back over broadcast axes."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = _shape(a), _shape(b)
        return _broadcasting("add", np.add, a, b)

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.3
        a_shape, b_shape = ctx.shapes
        return unbroadcast(grad, a_shape), unbroadcast(grad, b_shape)
        ### END SOLUTION


class Sub(Function):
    """c = a - b; ∂c/∂a = 1, ∂c/∂b = -1."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = _shape(a), _shape(b)
        return _broadcasting("sub", np.subtract, a, b)

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        return unbroadcast(grad, a_shape), unbroadcast(-grad, b_shape)


class Mul(Function):
    """c = a · b; ∂c/∂a = b, ∂c/∂b = a."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _broadcasting("mul", np.multiply, a, b)

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.3
        a, b = ctx.saved_tensors
        grad_a = unbroadcast(grad * b, _shape(a)) if ctx.needs_input_grad[0] else None
        grad_b = unbroadcast(grad * a, _shape(b)) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b
        ### END SOLUTION


class Div(Function):
    """c = a / b; ∂c/∂a = 1/b, ∂c/∂b = -a/b²."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _broadcasting("div", np.divide, a, b)

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.3
        a, b = ctx.saved_tensors
        grad_a = unbroadcast(grad / b, _shape(a)) if ctx.needs_input_grad[0] else None
        grad_b = unbroadcast(-grad * a / (b * b), _shape(b)) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b
        ### END SOLUTION


class Pow(Function):
    """c = aᵇ; ∂c/∂a = b · aᵇ⁻¹, ∂c/∂b = aᵇ · ln a (needs a > 0)."""

    @staticmethod
    def forward(ctx, a, b):
        out = _broadcasting("pow", np.power, a, b)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.3
        a, b, out = ctx.saved_tensors
        grad_a = unbroadcast(grad * b * a ** (b - 1), _shape(a)) if ctx.needs_input_grad[0] else None
        grad_b = unbroadcast(grad * out * np.log(a), _shape(b)) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b
        ### END SOLUTION


class Neg(Function):
    """c = -a; ∂c/∂a = -1."""

    @staticmethod
    def forward(ctx, a):
        return np.negative(a)

    @staticmethod
    def backward(ctx, grad):
        return (-grad,)


# -- exercise 2.4: unary elementwise ops --------------------------------------------------------


class Exp(Function):
    """c = eᵃ; ∂c/∂a = c."""

    @staticmethod
    def forward(ctx, a):
        out = np.exp(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.4
        (out,) = ctx.saved_tensors
        return (grad * out,)
        ### END SOLUTION


class Log(Function):
    """c = ln a; ∂c/∂a = 1/a."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log(a)

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.4
        (a,) = ctx.saved_tensors
        return (grad / a,)
        ### END SOLUTION


class Tanh(Function):
    """c = tanh a; ∂c/∂a = 1 - c²."""

    @staticmethod
    def forward(ctx, a):
        out = np.tanh(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.4
        (out,) = ctx.saved_tensors
        return (grad * (1 - out * out),)
        ### END SOLUTION


class ReLU(Function):
    """c = max(a, 0); ∂c/∂a = 1 where a > 0, else 0."""

    @staticmethod
    def forward(ctx, a):
        out = np.maximum(a, 0)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.4
        (out,) = ctx.saved_tensors
        # the mask written as 1.0 and 0.0 in grad's dtype, then scaled in place: a product
        # with a bool mask (grad * (out > 0)) casts it chunk by chunk and takes 1.5× as long
        passed = np.greater(out, 0, out=np.empty_like(grad))
        passed *= grad
        return (passed,)
        ### END SOLUTION


def stable_sigmoid(a: np.ndarray) -> np.ndarray:
    """1 / (1 + e⁻ᵃ) that never exponentiates a large positive number."""
    z = np.exp(-np.abs(a))
    return np.where(a >= 0, 1 / (1 + z), z / (1 + z))


class Sigmoid(Function):
    """c = 1 / (1 + e⁻ᵃ); ∂c/∂a = c(1 - c)."""

    @staticmethod
    def forward(ctx, a):
        out = stable_sigmoid(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.4
        (out,) = ctx.saved_tensors
        return (grad * out * (1 - out),)
        ### END SOLUTION


class Sqrt(Function):
    """c = √a; ∂c/∂a = 1 / (2c)."""

    @staticmethod
    def forward(ctx, a):
        out = np.sqrt(a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return (grad / (2 * out),)


class Abs(Function):
    """c = |a|; ∂c/∂a = sign(a)."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.abs(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return (grad * np.sign(a),)


class Maximum(Function):
    """c = max(a, b) elementwise; the gradient goes to the larger, split equally at ties."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _broadcasting("maximum", np.maximum, a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        share_a = ((a > b) + 0.5 * (a == b)).astype(grad.dtype)  # bools would make float64
        return unbroadcast(grad * share_a, _shape(a)), unbroadcast(grad * (1 - share_a), _shape(b))


class Where(Function):
    """c = a where condition else b; the gradient follows the branch taken."""

    @staticmethod
    def forward(ctx, condition, a, b):
        ctx.condition = condition = np.asarray(condition, dtype=bool)
        ctx.shapes = _shape(a), _shape(b)
        failure = broadcast_failure("where", condition.shape, *ctx.shapes)
        if failure:
            raise ValueError(failure)
        return np.where(condition, a, b)

    @staticmethod
    def backward(ctx, grad):
        a_shape, b_shape = ctx.shapes
        zero = np.zeros((), dtype=grad.dtype)
        return (
            None,
            unbroadcast(np.where(ctx.condition, grad, zero), a_shape),
            unbroadcast(np.where(ctx.condition, zero, grad), b_shape),
        )


# -- exercise 2.5 and 2.6: reductions ------------------------------------------------------------


def normalize_axes(axis: Axis, ndim: int, op: str = "reduction") -> tuple[int, ...]:
    """Axis None, an int (negative counts from the end) or a tuple, as sorted positive axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    for a in axes:
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"{op}: axis {a} is out of range for a tensor with {ndim} axes")
    return tuple(sorted(a % max(ndim, 1) for a in axes))


def expand_reduced(grad: np.ndarray, shape: Shape, axes: tuple[int, ...], keepdims: bool):
    """Put the reduced axes back (size 1) so grad broadcasts against the input."""
    return grad if keepdims else np.expand_dims(grad, axes)


class Sum(Function):
    """c = Σ a over axes; ∂c/∂a = 1: every input element gets the gradient of its sum."""

    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        ctx.shape = a.shape
        ctx.axes = normalize_axes(axis, a.ndim, "sum")
        ctx.keepdims = keepdims
        return np.sum(a, axis=ctx.axes, keepdims=keepdims)

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.5
        grad = expand_reduced(grad, ctx.shape, ctx.axes, ctx.keepdims)
        return (np.broadcast_to(grad, ctx.shape),)
        ### END SOLUTION


class Mean(Function):
    """c = (1/n) Σ a over axes, n the number of elements reduced; ∂c/∂a = 1/n."""

    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        ctx.shape = a.shape
        ctx.axes = normalize_axes(axis, a.ndim, "mean")
        ctx.keepdims = keepdims
        return np.mean(a, axis=ctx.axes, keepdims=keepdims)

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.5
        count = int(np.prod([ctx.shape[a] for a in ctx.axes]))
        grad = expand_reduced(grad, ctx.shape, ctx.axes, ctx.keepdims)
        return (np.broadcast_to(grad / count, ctx.shape),)
        ### END SOLUTION


class Max(Function):
    """c = max of a over axes; the gradient goes to the maximum, split equally among ties."""

    @staticmethod
    def forward(ctx, a, axis=None, keepdims=False):
        ctx.axes = normalize_axes(axis, a.ndim, "max")
        if a.size == 0:
            raise ValueError(f"max: the tensor of shape {a.shape} is empty")
        out = np.max(a, axis=ctx.axes, keepdims=True)
        ctx.save_for_backward(a, out)
        return out if keepdims else np.squeeze(out, axis=ctx.axes)

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.6
        a, out = ctx.saved_tensors
        winners = a == out
        share = winners / winners.sum(axis=ctx.axes, keepdims=True, dtype=a.dtype)
        return (share * grad.reshape(out.shape),)
        ### END SOLUTION


# -- exercise 2.8: matrix products -----------------------------------------------------------------


class MatMul(Function):
    """C = A @ B with NumPy's rules; ∂A = G Bᵀ, ∂B = Aᵀ G, summed over broadcast batch axes.

    A 1-D A is a row (1, k) and a 1-D B a column (k, 1) while differentiating.
    """

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim == 0 or b.ndim == 0:
            raise ValueError("matmul: both operands need at least one axis; use * for scalars")
        if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
            raise ValueError(
                f"matmul: shapes {a.shape} and {b.shape}: the inner dimensions differ "
                f"({a.shape[-1]} vs {b.shape[-2 if b.ndim > 1 else 0]}); "
                "A's last axis must match B's second-to-last"
            )
        ctx.save_for_backward(a, b)
        return np.matmul(a, b)

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 2.8
        a, b = ctx.saved_tensors
        a2 = a[np.newaxis, :] if a.ndim == 1 else a
        b2 = b[:, np.newaxis] if b.ndim == 1 else b
        if b.ndim == 1:
            grad = np.expand_dims(grad, -1)
        if a.ndim == 1:
            grad = np.expand_dims(grad, -2)
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = unbroadcast(grad @ np.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)
        if ctx.needs_input_grad[1]:
            grad_b = unbroadcast(np.swapaxes(a2, -1, -2) @ grad, b2.shape).reshape(b.shape)
        return grad_a, grad_b
        ### END SOLUTION


# -- provided: clamp ------------------------------------------------------------------------------


class Clamp(Function):
    """c = a limited to [low, high] (either may be None); ∂c/∂a = 1 inside, 0 outside."""

    @staticmethod
    def forward(ctx, a, low, high):
        ctx.save_for_backward(a)
        ctx.low, ctx.high = low, high
        return np.clip(a, low, high).astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        inside = np.ones(a.shape, dtype=bool)
        if ctx.low is not None:
            inside &= a >= ctx.low
        if ctx.high is not None:
            inside &= a <= ctx.high
        return (grad * inside,)
