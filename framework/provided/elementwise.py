"""Provided: PyTorch's elementwise math family, from one table each for unary and binary ops.

Each row names NumPy's computation and the derivative, and becomes a `Function` (so every op
has PyTorch's gradient), a method of `Tensor`, a function of `framework` (`torch.atan2(y, x)`)
and an in-place method (`x.tan_()`, recorded as `in_place.py` records one). The inverse
trigonometric names have PyTorch's NumPy-style aliases (`arcsin` is `asin`).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from ..function import Function, _broadcasting, _shape, unbroadcast, unwrap
from ..ops import Maximum
from .in_place import change_in_place

MantissaExponent = namedtuple("MantissaExponent", ["mantissa", "exponent"])

LN2, LN10 = math.log(2.0), math.log(10.0)  # Python floats: a float32 input stays float32
_erf = np.vectorize(math.erf, otypes=[np.float64])  # NumPy has no erf; math.erf, one by one


def _sinc_derivative(a, c):
    safe = np.where(a == 0, 1, a)
    return np.where(a == 0, 0, (np.cos(math.pi * a) - c) / safe)


def _zero(a, c):
    return np.zeros_like(a)


def _one(a, c):
    return np.ones_like(a)


#: name → (c = forward(a), ∂c/∂a as a function of a and c)
UNARY = {
    "tan": (np.tan, lambda a, c: 1 + c * c),
    "asin": (np.arcsin, lambda a, c: 1 / np.sqrt(1 - a * a)),
    "acos": (np.arccos, lambda a, c: -1 / np.sqrt(1 - a * a)),
    "atan": (np.arctan, lambda a, c: 1 / (1 + a * a)),
    "sinh": (np.sinh, lambda a, c: np.cosh(a)),
    "cosh": (np.cosh, lambda a, c: np.sinh(a)),
    "asinh": (np.arcsinh, lambda a, c: 1 / np.sqrt(a * a + 1)),
    "acosh": (np.arccosh, lambda a, c: 1 / np.sqrt(a * a - 1)),
    "atanh": (np.arctanh, lambda a, c: 1 / (1 - a * a)),
    "exp2": (np.exp2, lambda a, c: c * LN2),
    "log2": (np.log2, lambda a, c: 1 / (a * LN2)),
    "log10": (np.log10, lambda a, c: 1 / (a * LN10)),
    "reciprocal": (np.reciprocal, lambda a, c: -c * c),
    "sinc": (np.sinc, _sinc_derivative),
    "deg2rad": (np.deg2rad, lambda a, c: np.full_like(a, math.pi / 180)),
    "rad2deg": (np.rad2deg, lambda a, c: np.full_like(a, 180 / math.pi)),
    "logit": (lambda a: np.log(a / (1 - a)), lambda a, c: 1 / (a * (1 - a))),
    "erf": (lambda a: _erf(a).astype(a.dtype), lambda a, c: 2 / math.sqrt(math.pi) * np.exp(-a * a)),
    "erfc": (lambda a: (1 - _erf(a)).astype(a.dtype),
             lambda a, c: -2 / math.sqrt(math.pi) * np.exp(-a * a)),
    "frac": (lambda a: a - np.trunc(a), _one),
    "positive": (np.positive, _one),
    # piecewise constant: a zero gradient, as PyTorch's
    "floor": (np.floor, _zero), "ceil": (np.ceil, _zero), "trunc": (np.trunc, _zero),
    "fix": (np.trunc, _zero), "sign": (np.sign, _zero), "sgn": (np.sign, _zero),
}

#: name → (c = forward(a, b), (∂c/∂a, ∂c/∂b) as a function of a, b and c)
BINARY = {
    "atan2": (np.arctan2, lambda a, b, c: (b / (a * a + b * b), -a / (a * a + b * b))),
    "hypot": (np.hypot, lambda a, b, c: (a / c, b / c)),
    "fmod": (np.fmod, lambda a, b, c: (np.ones_like(c), -np.trunc(a / b))),
    "remainder": (np.remainder, lambda a, b, c: (np.ones_like(c), -np.floor(a / b))),
    "logaddexp": (np.logaddexp, lambda a, b, c: (np.exp(a - c), np.exp(b - c))),
    "logaddexp2": (np.logaddexp2, lambda a, b, c: (np.exp2(a - c), np.exp2(b - c))),
    "xlogy": (lambda a, b: np.where(a == 0, 0, a * np.log(b)).astype(np.result_type(a, b)),
              lambda a, b, c: (np.log(b), a / b)),
    "fmax": (np.fmax, lambda a, b, c: ((a >= b).astype(c.dtype), (a < b).astype(c.dtype))),
    "fmin": (np.fmin, lambda a, b, c: ((a <= b).astype(c.dtype), (a > b).astype(c.dtype))),
    "copysign": (np.copysign, lambda a, b, c: (np.sign(a) * np.sign(c), np.zeros_like(c))),
}

ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
           "arccosh": "acosh", "arctanh": "atanh", "arctan2": "atan2", "absolute": "abs",
           "negative": "neg", "multiply": "mul", "subtract": "sub", "divide": "div",
           "true_divide": "div"}


def _unary_function(name: str) -> type:
    forward, derivative = UNARY[name]

    def fwd(ctx, a):
        out = forward(a)
        ctx.save_for_backward(a, out)
        return out

    def bwd(ctx, grad):
        a, out = ctx.saved_tensors
        return (grad * derivative(a, out).astype(grad.dtype),)

    return type(name.capitalize(), (Function,), {
        "forward": staticmethod(fwd), "backward": staticmethod(bwd),
        "__doc__": f"c = {name}(a), elementwise, with its derivative (elementwise.UNARY)."})


def _binary_function(name: str) -> type:
    forward, derivatives = BINARY[name]

    def fwd(ctx, a, b):
        out = _broadcasting(name, forward, a, b)
        ctx.save_for_backward(a, b, out)
        return out

    def bwd(ctx, grad):
        a, b, out = ctx.saved_tensors
        da, db = derivatives(np.asarray(a), np.asarray(b), out)
        return (unbroadcast(grad * da.astype(grad.dtype), _shape(a)),
                unbroadcast(grad * db.astype(grad.dtype), _shape(b)))

    return type(name.capitalize(), (Function,), {
        "forward": staticmethod(fwd), "backward": staticmethod(bwd),
        "__doc__": f"c = {name}(a, b), elementwise and broadcast (elementwise.BINARY)."})


FUNCTIONS = {name: _unary_function(name) for name in UNARY}
FUNCTIONS |= {name: _binary_function(name) for name in BINARY}


def _method(name: str):
    function = FUNCTIONS[name]
    if name in UNARY:
        def method(self):
            return function.apply(self)
    else:
        def method(self, other):
            return function.apply(self, other)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = function.__doc__
    return method


def in_place(name: str):
    """`x.name_(...)`: x changed to `x.name(...)`, in its own memory (PyTorch's in-place form)."""
    def method(self, *args, **kwargs):
        def out_of_place(t):
            return getattr(t, name)(*args, **kwargs)

        def in_numpy(array):
            np.copyto(array, unwrap(out_of_place(self._make(array))), casting="unsafe")

        return change_in_place(self, f"{name}_", args, in_numpy, out_of_place)

    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"In place: x becomes x.{name}(...)."
    return method


#: the out-of-place ops that get an in-place form `name_` (those of chapter 2 and of math_ops too)
IN_PLACE = (*(n for n in UNARY if n != "positive"), *BINARY, "exp", "log", "sqrt", "abs", "neg",
            "sigmoid", "tanh", "sin", "cos", "log1p", "expm1", "rsqrt", "square", "pow",
            "clamp_min", "clamp_max", "nan_to_num", "lerp", "round", "arcsin", "arccos", "arctan",
            "arcsinh", "arccosh", "arctanh", "arctan2", "absolute", "negative", "multiply",
            "subtract", "divide", "true_divide", "addcmul", "addcdiv", "ldexp")


class ElementwiseMethods:
    """The elementwise methods of `Tensor` this file gives it (a base of `TensorMethods`)."""

    __slots__ = ()

    def clamp_min(self, min):  # noqa: A002 (PyTorch's names)
        return self.clamp(min=min)

    def clamp_max(self, max):  # noqa: A002
        return self.clamp(max=max)

    def round(self, decimals: int = 0):
        """Rounded to `decimals` places, halves to even (as PyTorch's); a zero gradient."""
        if not decimals:
            return RoundToEven.apply(self)
        return RoundToEven.apply(self * 10.0**decimals) / 10.0**decimals

    def nan_to_num(self, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None):
        """NaN, +inf and -inf replaced (by 0 and the dtype's extremes by default); the
        gradient passes where the input was finite."""
        finite = np.isfinite(self.data)
        fixed = np.nan_to_num(self.data, nan=nan, posinf=posinf, neginf=neginf)
        return self.masked_fill(~finite, 0.0) + self._make(np.where(finite, 0, fixed))

    def lerp(self, end, weight):
        """self + weight · (end - self)."""
        return self + weight * (end - self)

    def float_power(self, exponent):
        """self ** exponent in float64, as PyTorch's float_power."""
        return self.double() ** (exponent.double() if hasattr(exponent, "double") else exponent)

    def addcmul(self, tensor1, tensor2, *, value: float = 1.0):
        return self + value * tensor1 * tensor2

    def addcdiv(self, tensor1, tensor2, *, value: float = 1.0):
        return self + value * tensor1 / tensor2

    def rsub(self, other, *, alpha: float = 1.0):
        return other - alpha * self

    def ldexp(self, other):
        """self · 2^other."""
        return self * 2.0**other

    def float_power_(self, exponent):
        """In place: only a float64 tensor holds float_power's float64 result, as in PyTorch."""
        if self.dtype != np.float64:
            raise RuntimeError(f"float_power_: the result is float64, which this {self.dtype} "
                               "tensor cannot hold in place; use x = x.float_power(e)")
        return in_place("float_power")(self, exponent)

    def frexp(self):
        """(mantissa, exponent) with self = mantissa · 2^exponent, |mantissa| in [0.5, 1)."""
        mantissa, exponent = np.frexp(self.data)
        return MantissaExponent(self._make(mantissa), self._make(exponent.astype(np.int32)))

    def maximum(self, other):
        return Maximum.apply(self, other)

    def minimum(self, other):
        return -Maximum.apply(-self, -other)


class RoundToEven(Function):
    """c = a rounded to the nearest integer, halves to even; ∂c/∂a = 0."""

    @staticmethod
    def forward(ctx, a):
        return np.rint(a)

    @staticmethod
    def backward(ctx, grad):
        return (np.zeros_like(grad),)


def alias(name: str, target: str):
    """A method `name` that is `target` under another of PyTorch's names."""
    def method(self, *args, **kwargs):
        return getattr(self, target)(*args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"`x.{name}(...)` is `x.{target}(...)`."
    return method


for _name in (*UNARY, *BINARY):
    setattr(ElementwiseMethods, _name, _method(_name))
for _name, _target in ALIASES.items():
    setattr(ElementwiseMethods, _name, alias(_name, _target))
for _name in IN_PLACE:
    setattr(ElementwiseMethods, f"{_name}_", in_place(_name))
