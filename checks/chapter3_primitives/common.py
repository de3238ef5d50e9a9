"""What chapter 3's parts share: the framework's modules, strategies, and a module written here."""

from __future__ import annotations

import importlib

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from checks.harness import framework

fw = framework()
nn = importlib.import_module(f"{fw.__name__}.nn")
F = importlib.import_module(f"{fw.__name__}.nn.functional")
init = importlib.import_module(f"{fw.__name__}.nn.init")

seeds = st.integers(0, 2**32 - 1)
reals = st.floats(-3.0, 3.0)
small_shapes = array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)
REDUCTIONS = ["mean", "sum", "none"]


def array_of(shape, elements=reals):
    return arrays(np.float64, shape, elements=elements)


def names(module) -> list[str]:
    return [name for name, _ in module.named_parameters()]


# -- a module written here: 3.1's modules are built of it, 3.7's Sequential holds it -----------


class Affine(nn.Module):
    """x · weight + bias, elementwise, with known starting values."""

    def __init__(self, size: int = 3, start: float = 0.0) -> None:
        super().__init__()
        self.weight = nn.Parameter(np.linspace(start + 0.5, start + 1.5, size))
        self.bias = nn.Parameter(np.linspace(start - 0.5, start + 0.5, size))
        self.label = "not a parameter"

    def forward(self, x):
        return x * self.weight + self.bias
