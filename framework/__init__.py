"""A deep learning framework built from scratch, one chapter at a time.

Chapter 1 `autodiff` (the graph engine, `Value`), chapter 2 `tensor` (`Tensor`,
`Function`), chapter 3 `nn`, chapter 4 `optim`, chapter 5 `nn.transformer`;
`data` and `viz` are provided.
"""

from . import data, viz
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

__all__ = [
    "Context",
    "Function",
    "Tensor",
    "Value",
    "concatenate",
    "data",
    "default_generator",
    "gradcheck",
    "is_grad_enabled",
    "manual_seed",
    "matmul",
    "maximum",
    "minimum",
    "no_grad",
    "numerical_derivative",
    "numerical_gradient",
    "ones",
    "randn",
    "stack",
    "tensor",
    "topological_order",
    "unbroadcast",
    "viz",
    "where",
    "zeros",
]
