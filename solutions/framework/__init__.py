"""A deep learning framework built from scratch, one chapter at a time.

Chapter 1 `autodiff` (the graph engine, `Value`), chapter 2 `tensor` (`Tensor`,
`Function`), chapter 3 `nn`, chapter 4 `optim`, chapter 5 `nn.transformer`, chapter 6
`nn.conv`, chapter 7 `nn.gpt`; `data`, `viz`, `memory` and `runtime` are provided.

Importing the package changes nothing outside it. `memory.tune()` is the explicit opt-in
that makes training steps faster for the whole process: freed memory kept for reuse (a
malloc setting, on Linux only) and a cycle collector that scans less often (the
framework's graphs hold no cycles).
"""

from . import data, memory, nn, optim, runtime, viz
from .autodiff import (
    Value,
    backpropagate,
    is_grad_enabled,
    no_grad,
    numerical_derivative,
    topological_order,
)
from .generator import default_generator, manual_seed
from .nn import load, save
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

__all__ = [
    "Context",
    "Function",
    "Tensor",
    "Value",
    "backpropagate",
    "concatenate",
    "data",
    "default_generator",
    "gradcheck",
    "load",
    "is_grad_enabled",
    "manual_seed",
    "matmul",
    "memory",
    "maximum",
    "minimum",
    "nn",
    "no_grad",
    "numerical_derivative",
    "numerical_gradient",
    "ones",
    "optim",
    "randn",
    "runtime",
    "save",
    "stack",
    "tensor",
    "topological_order",
    "unbroadcast",
    "viz",
    "where",
    "zeros",
]
