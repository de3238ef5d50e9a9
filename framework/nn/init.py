"""Chapter 3: initialisers, as in `torch.nn.init`. Each fills a tensor in place and returns it.

They draw from the shared generator, so `framework.manual_seed` makes them repeatable.
"""

from __future__ import annotations

import math

import numpy as np

from ..provided.generator import default_generator
from ..tensor import Tensor

_GAINS = {"linear": 1.0, "sigmoid": 1.0, "tanh": 5 / 3, "relu": math.sqrt(2.0)}


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor that keeps activations' variance steady through this nonlinearity (PyTorch's)."""
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity not in _GAINS:
        raise ValueError(f"calculate_gain: unknown nonlinearity {nonlinearity!r}; "
                         f"known: {sorted(_GAINS) + ['leaky_relu']}")
    return _GAINS[nonlinearity]


def fan_in_and_fan_out(shape: tuple[int, ...]) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight (out, in, *kernel): in·k and out·k, k = the kernel's size."""
    if len(shape) < 2:
        raise ValueError(f"fan_in_and_fan_out: a weight needs at least 2 axes, got shape {tuple(shape)}")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _fill(tensor: Tensor, values: np.ndarray) -> Tensor:
    tensor.data[...] = values
    return tensor


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    """Fill with U(a, b)."""
    return _fill(tensor, default_generator().uniform(a, b, tensor.shape))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    """Fill with N(mean, std²)."""
    return _fill(tensor, default_generator().normal(mean, std, tensor.shape))


def zeros_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 0)


def ones_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 1)


# -- exercise 3.6 ------------------------------------------------------------------------------


def xavier_uniform_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    """Fill with U(-a, a), a = gain · √(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010):
    the variance a²/3 = 2 gain² / (fan_in + fan_out) balances forward and backward signals.
    """
    ### BEGIN SOLUTION 3.6
    raise NotImplementedError("Exercise 3.6: Initialisation — see chapters/03_primitives.ipynb, '3.6 Initialisation'")
    ### END SOLUTION


def kaiming_uniform_(
    tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    """Fill with U(-b, b), b = gain · √(3 / fan), fan = fan_in (or fan_out with mode="fan_out"),
    gain = calculate_gain(nonlinearity, a) (He et al., 2015): variance gain² / fan.
    """
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"kaiming_uniform_: mode must be 'fan_in' or 'fan_out', got {mode!r}")
    ### BEGIN SOLUTION 3.6
    raise NotImplementedError("Exercise 3.6: Initialisation — see chapters/03_primitives.ipynb, '3.6 Initialisation'")
    ### END SOLUTION
