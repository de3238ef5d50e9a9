"""A deep learning framework built from scratch, one chapter at a time.

Chapter 1 `autodiff` (the graph engine, `Value`), chapter 2 `tensor` (`Tensor`,
`Function`), chapter 3 `nn`, chapter 4 `optim`, chapter 5 `nn.transformer`;
`data` and `viz` are provided.
"""

from . import data, viz
from .autodiff import Value, is_grad_enabled, no_grad, numerical_derivative, topological_order
from .generator import default_generator, manual_seed

__all__ = [
    "Value",
    "data",
    "default_generator",
    "is_grad_enabled",
    "manual_seed",
    "no_grad",
    "numerical_derivative",
    "topological_order",
    "viz",
]
