"""Chapter 2: `Tensor`, NumPy arrays on Chapter 1's engine, with broadcasting.

Every op is a `Function`: `forward(ctx, *arrays)` computes the result with NumPy
and saves what the gradient needs on `ctx`; `backward(ctx, grad)` returns one
gradient per positional input (None for inputs that are not tensors). The
output tensor's `parents` are its inputs that require grad and its `grad_fn`
maps its gradient to theirs: the `autodiff.Node` protocol Chapter 1's walk
(`autodiff.backpropagate`) follows; `Tensor.receive_grad` is how a tensor takes
its gradient from it. Forward code is provided; the backward rules and that hook
are the exercises.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Sequence

import numpy as np

from . import autodiff
from ._device import check_device, device
from ._dims import accepts_dim
from .autodiff import _freed, backpropagate

Shape = tuple[int, ...]
Axis = int | tuple[int, ...] | None


# -- exercise 2.1: the learner's own checker, for arrays ------------------------------------


def numerical_gradient(f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6):
    """∂f/∂x for a scalar function of an array, one central difference per element.

    Works on a float64 copy of x, so the caller's array is never changed.
    """
    ### BEGIN SOLUTION 2.1
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        original = x[index]
        x[index] = original + eps
        plus = f(x)
        x[index] = original - eps
        minus = f(x)
        x[index] = original
        grad[index] = (plus - minus) / (2 * eps)
    return grad
    ### END SOLUTION


# -- broadcasting ---------------------------------------------------------------------------


def broadcast_failure(op: str, *shapes: Shape) -> str | None:
    """None if the shapes broadcast; else a sentence naming the op, shapes and the axis."""
    ndim = max(len(s) for s in shapes)
    for axis in range(-1, -ndim - 1, -1):
        sizes = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        if len(sizes) > 1:
            listed = " and ".join(str(tuple(s)) for s in shapes)
            vs = " vs ".join(str(s[axis]) if len(s) >= -axis else "-" for s in shapes)
            return (
                f"{op}: shapes {listed} do not broadcast: axis {axis} has {vs}; "
                "sizes must be equal or 1 (framework.viz.show_broadcast shows the alignment)"
            )
    return None


def unbroadcast(grad: np.ndarray, shape: Shape) -> np.ndarray:
    """Sum `grad` back to `shape`: the adjoint of broadcasting `shape` up to grad.shape.

    Broadcasting copies a value along new leading axes and along axes of size 1;
    a copied value's gradient is the sum of its copies' gradients.
    """
    ### BEGIN SOLUTION 2.2
    if grad.shape == tuple(shape):
        return grad
    leading = grad.ndim - len(shape)
    if leading:
        grad = grad.sum(axis=tuple(range(leading)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad
    ### END SOLUTION


# -- Function: one op with its own analytic backward ------------------------------------------


class Context:
    """What a forward leaves for its backward; set any attribute you need."""

    def save_for_backward(self, *arrays: np.ndarray) -> None:
        self.saved_tensors = arrays


def _unbroadcast_hint(grad_shape: Shape, shape: Shape) -> str:
    """The hint for a gradient of the wrong shape, where the input was broadcast to it."""
    try:
        broadcast = np.broadcast_shapes(shape, grad_shape) == grad_shape
    except ValueError:  # the shapes do not broadcast: the cause lies elsewhere
        broadcast = False
    return " (did you forget unbroadcast?)" if broadcast else ""


def unwrap(x):
    """`x.data` for a Tensor, anything else as it is: for code that takes a tensor or an array."""
    return x.data if isinstance(x, Tensor) else x


class BackwardNode:
    """A tensor's `grad_fn`: calls its Function's backward, keeps the parents' gradients."""

    __slots__ = ("function", "ctx", "positions", "shapes")

    def __init__(self, function: type, ctx: Context, positions: tuple[int, ...], shapes):
        self.function, self.ctx, self.positions, self.shapes = function, ctx, positions, shapes

    def __call__(self, grad: np.ndarray) -> tuple:
        grads = self.function.backward(self.ctx, grad)
        if not isinstance(grads, tuple):
            grads = (grads,)
        picked = []
        for i, shape in zip(self.positions, self.shapes):
            g = grads[i]
            if g is not None:
                g = np.asarray(g)  # a NumPy op on 0-d arrays returns a scalar; a gradient is an array
                if g.shape != shape:
                    raise ValueError(
                        f"{self.function.__name__}.backward returned a gradient of shape "
                        f"{g.shape} for an input of shape {shape}; a gradient has its "
                        "input's shape" + _unbroadcast_hint(g.shape, shape)
                    )
            picked.append(g)
        return tuple(picked)

    def __repr__(self) -> str:
        return f"<{self.function.__name__}Backward>"


class Function:
    """Subclass with `forward(ctx, *args)` and `backward(ctx, grad)`, then call `apply`.

    As in PyTorch (`torch.autograd.Function`), except that forward receives NumPy
    arrays (tensors unwrapped) and returns a NumPy array.
    """

    @staticmethod
    def forward(ctx: Context, *args, **kwargs) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> tuple:
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs) -> Tensor:
        ctx = Context()
        out = cls.forward(ctx, *[unwrap(a) for a in args], **kwargs)
        needs = [isinstance(a, Tensor) and a.requires_grad for a in args]
        if True not in needs or not autodiff.is_grad_enabled():
            return Tensor._make(out)
        ctx.needs_input_grad = tuple(needs)
        # list comprehensions, not generators: apply runs for every op of every step
        positions = tuple([i for i, need in enumerate(needs) if need])
        parents = tuple([args[i] for i in positions])
        shapes = tuple([p.data.shape for p in parents])
        node = BackwardNode(cls, ctx, positions, shapes)
        return Tensor._make(out, parents, node, cls.__name__.lower())


def _shape(x) -> Shape:
    return np.shape(x)


def _broadcasting(op: str, compute: Callable, a, b) -> np.ndarray:
    try:
        return compute(a, b)
    except ValueError:
        failure = broadcast_failure(op, _shape(a), _shape(b))
        if failure:
            raise ValueError(failure) from None
        raise


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
        return (grad * (out > 0),)
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
    ∂a receives (+=) each gradient at the place it was picked from."""

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
        ctx.shape, ctx.places = a.shape, tuple(places)
        return a[ctx.places]

    @staticmethod
    def backward(ctx, grad):
        routed = np.zeros(ctx.shape, dtype=grad.dtype)
        np.add.at(routed, ctx.places, grad)
        return (routed,)


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


def _kind(x) -> str | None:
    """"f" (floating), "b"/"i"/"u" (bool, integers) for arrays and tensors; "float" for a Python
    float; None for a Python int or bool, which NumPy already treats as PyTorch does."""
    if isinstance(x, (Tensor, np.ndarray)):
        return x.dtype.kind
    return "float" if isinstance(x, float) else None


def _cast(x, dtype):
    return Tensor._make(x.data.astype(dtype)) if isinstance(x, Tensor) else x.astype(dtype)


def _promoted(a, b, divide: bool = False) -> tuple:
    """The operands of a binary op, cast where NumPy's result dtype differs from PyTorch's:
    an integer or bool operand of a floating one takes its dtype (NumPy: float32 with int64 is
    float64), an integer one with a Python float becomes float32 (NumPy: float64), and so do
    both integer operands of a division. A NumPy scalar counts as a Python number, as in
    PyTorch."""
    a = a.item() if isinstance(a, np.generic) else a
    b = b.item() if isinstance(b, np.generic) else b
    ka, kb = _kind(a), _kind(b)
    whole = ("b", "i", "u")
    if ka == "f" and kb in whole:
        return a, _cast(b, a.dtype)
    if kb == "f" and ka in whole:
        return _cast(a, b.dtype), b
    if ka in whole and (kb == "float" or divide and kb in (*whole, None)):
        a = _cast(a, np.float32)
    if kb in whole and (ka == "float" or divide and ka in (*whole, None)):
        b = _cast(b, np.float32)
    return a, b


#: What `max(dim)` and `min(dim)` return, as PyTorch's: the values and where they are.
ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])


def _shape_args(shape: tuple) -> tuple:
    """`f(2, 3)` and `f((2, 3))` both mean shape (2, 3), as in PyTorch."""
    return tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape


def _is_dtype(value) -> bool:
    try:
        return isinstance(value, (type, np.dtype)) and np.dtype(value) is not None
    except TypeError:
        return False


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


class Tensor:
    """An n-dimensional array that remembers how it was computed.

    >>> x = Tensor([[1.0, 2.0]], requires_grad=True)
    >>> (x * x).sum().backward()
    >>> x.grad
    array([[2., 4.]], dtype=float32)
    """

    __slots__ = ("data", "grad", "requires_grad", "parents", "grad_fn", "op", "label",
                 "__weakref__")
    __array_priority__ = 100  # so ndarray + Tensor calls Tensor.__radd__

    def __init__(self, data, requires_grad: bool = False, dtype=None) -> None:
        self.data = _as_array(data, dtype)
        if requires_grad and not np.issubdtype(self.data.dtype, np.floating):
            raise TypeError(
                f"Tensor: only floating tensors can require grad, this one is {self.data.dtype}; "
                "create it with dtype=np.float32 or convert it with .to(np.float32)"
            )
        self.grad = None
        self.requires_grad = requires_grad
        self.parents = ()
        self.grad_fn = None
        self.op = ""
        self.label = ""

    @classmethod
    def _make(cls, data: np.ndarray, parents: tuple = (), grad_fn=None, op: str = "") -> Tensor:
        """A result of an op, built without the checks of __init__ (the hot path)."""
        out = cls.__new__(cls)
        out.data = data if isinstance(data, np.ndarray) else np.asarray(data)
        out.grad = None
        out.requires_grad = grad_fn is not None
        out.parents = parents
        out.grad_fn = grad_fn
        out.op = op
        out.label = ""
        return out

    # -- what a PyTorch user expects --------------------------------------------------------

    shape = property(lambda self: self.data.shape)
    ndim = property(lambda self: self.data.ndim)
    dtype = property(lambda self: self.data.dtype)

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        body = np.array2string(self.data, precision=4, separator=", ", prefix="Tensor(")
        extra = f", grad_fn={self.grad_fn!r}" if self.grad_fn is not None else (
            ", requires_grad=True" if self.requires_grad else "")
        dtype = "" if self.data.dtype == np.float32 else f", dtype={self.data.dtype}"
        return f"Tensor({body}{dtype}{extra})"

    def item(self) -> float | int | bool:
        if self.data.size != 1:
            raise ValueError(f"item: the tensor has {self.data.size} elements, not one")
        return self.data.item()

    def numpy(self) -> np.ndarray:
        return self.data

    def detach(self) -> Tensor:
        """The same data, cut from the graph."""
        return Tensor._make(self.data)

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
        if self.grad_fn is None:
            self.grad = grad.copy() if self.grad is None else self.grad + grad
        ### END SOLUTION

    def release(self) -> None:
        """The walk's other hook (retain_graph=False): once this node's rule has run, drop the
        rule (with the arrays its ctx saved) and the parents, so memory is returned as the walk
        goes; a later backward through the node calls `_freed`, which says so."""
        ### BEGIN SOLUTION 2.10
        self.grad_fn = _freed
        self.parents = ()
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
                    f"backward: the tensor has shape {self.shape}; without a gradient "
                    "argument backward works on a one-element tensor only (call .sum() first, "
                    "or pass gradient= of the same shape)"
                )
            gradient = np.ones_like(self.data)
        gradient = _as_array(gradient, self.data.dtype)
        if gradient.shape != self.shape:
            raise ValueError(f"backward: gradient shape {gradient.shape} ≠ tensor shape {self.shape}")
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
                f"bool: the truth value of a tensor of shape {self.shape} ({self.data.size} "
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
            return maximum(self, axis)
        if axis is None:
            return self.amax(keepdims=keepdims)
        return self._pick("max", np.argmax, axis, keepdims)

    @accepts_dim
    def min(self, axis: int | None = None, keepdims: bool = False):
        """As `max`, for the minimum."""
        if isinstance(axis, Tensor):
            return minimum(self, axis)
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

    # -- PyTorch's everyday methods (provided) ------------------------------------------------

    def size(self, dim: int | None = None) -> Shape | int:
        """The shape (PyTorch's torch.Size is a tuple), or the length of axis `dim`."""
        if dim is None:
            return self.data.shape
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

    def view(self, *shape) -> Tensor:
        """`reshape` (-1 allowed), as PyTorch's view of a contiguous tensor."""
        if len(shape) == 1 and _is_dtype(shape[0]):
            raise TypeError(
                "view(dtype): reinterpreting the bytes as another dtype is not supported; "
                "to convert the values, use .to(dtype)"
            )
        return self.reshape(*shape)

    def contiguous(self) -> Tensor:
        return self

    def cpu(self) -> Tensor:
        return self

    def cuda(self, *args, **kwargs) -> Tensor:
        check_device("cuda", "cuda")

    def t(self) -> Tensor:
        """The transpose of a matrix (a tensor with 0, 1 or 2 axes), as PyTorch's t()."""
        if self.ndim > 2:
            raise ValueError(
                f"t: expects at most 2 axes, got shape {self.shape}; "
                "use transpose(dim0, dim1) or permute"
            )
        return self.T

    def float(self) -> Tensor:
        return self.to(np.float32)

    def double(self) -> Tensor:
        return self.to(np.float64)

    def half(self) -> Tensor:
        return self.to(np.float16)

    def long(self) -> Tensor:
        return self.to(np.int64)

    def int(self) -> Tensor:
        return self.to(np.int32)

    def bool(self) -> Tensor:
        return self.to(np.bool_)

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other.dtype)

    def clone(self) -> Tensor:
        """A copy with its own memory; gradients flow back to self."""
        return Clone.apply(self)

    def tolist(self):
        return self.data.tolist()

    def gather(self, dim: int, index) -> Tensor:
        """out[i][j] = self[i][index[i][j]] for dim=1 (PyTorch's gather)."""
        index = unwrap(index)
        return Gather.apply(self, normalize_axes(dim, self.ndim, "gather")[0], index)

    def triu(self, diagonal: int = 0) -> Tensor:
        return Triangle.apply(self, True, diagonal)

    def tril(self, diagonal: int = 0) -> Tensor:
        return Triangle.apply(self, False, diagonal)

    def clamp(self, min=None, max=None) -> Tensor:  # noqa: A002 (PyTorch's names)
        if min is None and max is None:
            raise ValueError("clamp: give at least one of min and max")
        return Clamp.apply(self, min, max)

    clip = clamp

    def softmax(self, dim: int) -> Tensor:
        """eˣ / Σ eˣ along `dim`, from this chapter's ops: the maximum is subtracted first (as a
        constant: softmax does not change under a shift), so no eˣ overflows. Chapter 3's
        `nn.functional.softmax` computes the same as one op with its own rule; this file comes
        before chapter 3's, so it does not call it."""
        e = (self - self.amax(dim, keepdims=True).detach()).exp()
        return e / e.sum(dim, keepdims=True)

    def log_softmax(self, dim: int) -> Tensor:
        """x - log Σ eˣ along `dim`, shifted by the maximum as `softmax` is, so the log never
        sees an underflowed 0 (chapter 3's `nn.functional.log_softmax` is the one-op form)."""
        shifted = self - self.amax(dim, keepdims=True).detach()
        return shifted - shifted.exp().sum(dim, keepdims=True).log()

    def add(self, other) -> Tensor:
        return self + other

    def sub(self, other) -> Tensor:
        return self - other

    def mul(self, other) -> Tensor:
        return self * other

    def div(self, other) -> Tensor:
        return self / other

    def pow(self, exponent) -> Tensor:
        return self**exponent

    def neg(self) -> Tensor:
        return Neg.apply(self)

    # In-place changes are refused on a tensor that requires grad or was computed by an op:
    # the framework records no in-place op. It keeps no version counter either, so a change to
    # a tensor that needs no gradient but that an op saved for its backward (x in y = w * x)
    # goes unnoticed, where PyTorch raises at backward: change such a tensor only after it.

    def _check_in_place(self, op: str) -> None:
        if self.grad_fn is not None:
            raise RuntimeError(
                f"{op}: in-place change of a tensor computed by an op (it has a grad_fn); the "
                "framework records no in-place ops (PyTorch does): build a new tensor "
                "(x = x + y, where, masked_fill), or change the leaf it came from"
            )
        if self.requires_grad and autodiff.is_grad_enabled():
            raise RuntimeError(
                f"{op}: in-place change of a leaf that requires grad; the framework records "
                "no in-place ops (PyTorch does), so do it inside framework.no_grad(), or build "
                "a new tensor (x = x + y, where, masked_fill)"
            )

    def __setitem__(self, index, value) -> None:
        self._check_in_place("setitem")
        self.data[_plain_index(index)] = unwrap(value)

    def zero_(self) -> Tensor:
        self._check_in_place("zero_")
        self.data[...] = 0
        return self

    def fill_(self, value) -> Tensor:
        self._check_in_place("fill_")
        self.data[...] = value
        return self

    def add_(self, other) -> Tensor:
        self._check_in_place("add_")
        self.data += unwrap(other)
        return self

    def mul_(self, other) -> Tensor:
        self._check_in_place("mul_")
        self.data *= unwrap(other)
        return self

    def copy_(self, source) -> Tensor:
        self._check_in_place("copy_")
        self.data[...] = unwrap(source)
        return self

    def sub_(self, other) -> Tensor:
        self._check_in_place("sub_")
        self.data -= unwrap(other)
        return self

    def div_(self, other) -> Tensor:
        self._check_in_place("div_")
        self.data /= unwrap(other)
        return self

    # x += y changes x in place, as in PyTorch (`with no_grad(): w -= lr * w.grad`)
    __iadd__, __isub__, __imul__, __itruediv__ = add_, sub_, mul_, div_


# -- functions and factories ---------------------------------------------------------------------


def tensor(data, requires_grad: bool = False, dtype=None) -> Tensor:
    """A new tensor holding a copy of `data` (as `torch.tensor`; `from_numpy` shares memory)."""
    data = unwrap(data)
    if isinstance(data, np.ndarray):
        data = data.copy()
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)


def maximum(a, b) -> Tensor:
    return Maximum.apply(a, b)


def minimum(a, b) -> Tensor:
    return -Maximum.apply(-a, -b)


def where(condition, a, b) -> Tensor:
    condition = unwrap(condition)
    return Where.apply(condition, a, b)


@accepts_dim
def concatenate(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """The tensors joined along an existing axis (PyTorch's `cat`)."""
    return Concatenate.apply(*tensors, axis=axis)


cat = concatenate


@accepts_dim
def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    return Stack.apply(*tensors, axis=axis)


def matmul(a, b) -> Tensor:
    return MatMul.apply(a, b)


def zeros(*shape, dtype=None, requires_grad: bool = False) -> Tensor:
    """Zeros of `shape` (`zeros(2, 3)` or `zeros((2, 3))`), float32 unless `dtype` says otherwise."""
    return Tensor(np.zeros(_shape_args(shape), dtype=_float32_default(dtype)), requires_grad=requires_grad)


def ones(*shape, dtype=None, requires_grad: bool = False) -> Tensor:
    """Ones of `shape`, float32 unless `dtype` says otherwise."""
    return Tensor(np.ones(_shape_args(shape), dtype=_float32_default(dtype)), requires_grad=requires_grad)


def randn(*shape, dtype=None, requires_grad: bool = False) -> Tensor:
    """Standard normal values from the shared generator (`framework.manual_seed`), float32
    unless `dtype` says otherwise."""
    from .generator import default_generator

    values = default_generator().standard_normal(_shape_args(shape)).astype(_float32_default(dtype))
    return Tensor(values, requires_grad=requires_grad)


def _float32_default(dtype):
    """PyTorch's default dtype for floating factories: float32 when none (or None) is given."""
    return np.float32 if dtype is None else dtype


def gradcheck(
    fn: Callable[..., Tensor], *inputs: np.ndarray, eps: float = 1e-6,
    rtol: float = 1e-5, atol: float = 1e-6, seed: int = 0,
) -> bool:
    """Compare `backward` with `numerical_gradient` through a random cotangent, in float64.

    Returns True, or raises AssertionError naming the input and the largest error.
    """
    arrays = [np.array(x, dtype=np.float64) for x in inputs]
    leaves = [Tensor(x, requires_grad=True) for x in arrays]
    out = fn(*leaves)
    cotangent = np.random.default_rng(seed).standard_normal(out.shape)
    out.backward(cotangent)

    def probe(i: int) -> Callable[[np.ndarray], float]:
        def f(x: np.ndarray) -> float:
            values = [Tensor(x if j == i else a) for j, a in enumerate(arrays)]
            return float(np.sum(fn(*values).data * cotangent))

        return f

    for i, (x, leaf) in enumerate(zip(arrays, leaves)):
        expected = numerical_gradient(probe(i), x, eps)
        got = np.zeros_like(x) if leaf.grad is None else leaf.grad
        if not np.allclose(got, expected, rtol=rtol, atol=atol):
            error = np.max(np.abs(got - expected))
            raise AssertionError(
                f"gradcheck: input {i} (shape {x.shape}): backward and central differences "
                f"differ by up to {error:.3g}\n backward:  {got}\n numerical: {expected}"
            )
    return True
