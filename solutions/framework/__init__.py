"""A deep learning framework built from scratch, one chapter at a time.

Chapter 1 `autodiff` (the graph engine, `Value`), chapter 2 `tensor` (`Tensor`,
`Function`), chapter 3 `nn`, chapter 4 `optim`, chapter 5 `nn.transformer`;
`data`, `viz` and `memory` are provided.

Importing the package keeps freed memory for reuse (`memory.keep_freed_memory`, a
process-wide malloc setting, on Linux only) and makes Python's cycle collector scan less
often (`memory.collect_cycles_less_often`): the framework's graphs hold no cycles, and
both make every training step faster.
"""

from . import data, memory, viz
from .autodiff import Value, is_grad_enabled, no_grad, numerical_derivative, topological_order
from .generator import default_generator, manual_seed
from .tensor import (
    Context,
    Function,
    Tensor,
    concatenate,
    gradcheck,
    matmul,
    maximum,
    minimum,
    numerical_gradient,
    ones,
    randn,
    stack,
    tensor,
    unbroadcast,
    where,
    zeros,
)

memory.keep_freed_memory()
memory.collect_cycles_less_often()

from . import nn, optim  # noqa: E402  (they build on everything above)
from .nn import load, save  # noqa: E402

__all__ = [
    "Context",
    "Function",
    "Tensor",
    "Value",
    "concatenate",
    "data",
    "default_generator",
    "gradcheck",
    "load",
    "is_grad_enabled",
    "manual_seed",
    "matmul",
    "maximum",
    "minimum",
    "nn",
    "no_grad",
    "numerical_derivative",
    "numerical_gradient",
    "ones",
    "optim",
    "randn",
    "save",
    "stack",
    "tensor",
    "topological_order",
    "unbroadcast",
    "viz",
    "where",
    "zeros",
]
