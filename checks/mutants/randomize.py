"""Plausible wrong output: random values of the right shape and dtype.

The automatic mutant wraps every value an exercise's region returns or assigns
in `randomized`, so each exercise's checks are proven to look at the values.
"""

from __future__ import annotations

import types

import numpy as np

_rng = np.random.default_rng(20261202)


def randomized(value):
    if isinstance(value, str) and len(set(value)) > 1:
        # a text (decoded characters, a kernel's source): the same characters, shuffled
        return "".join(_rng.permutation(list(value)))
    if isinstance(value, (bool, int, str, bytes, type(None), set, frozenset)):
        return value
    if isinstance(value, float):
        return float(_rng.normal())
    if isinstance(value, np.ndarray):
        if np.issubdtype(value.dtype, np.floating):
            return _rng.standard_normal(value.shape).astype(value.dtype)
        if np.issubdtype(value.dtype, np.integer) and value.ndim:
            # ids and indices: the same values in a random order (still valid indices)
            return _rng.permutation(value.ravel()).reshape(value.shape)
        return value
    if isinstance(value, np.floating):
        return value.dtype.type(_rng.normal())
    if isinstance(value, tuple):
        return tuple(randomized(v) for v in value)
    if isinstance(value, list):
        return [randomized(v) for v in reversed(value)]
    if isinstance(value, dict):
        return {k: randomized(v) for k, v in value.items()}
    if _is_rule(value):
        return lambda *args, **kwargs: randomized(value(*args, **kwargs))
    return _randomize_node(value)


def _is_rule(value) -> bool:
    """A function, or a callable object such as a backward node, but no class or Tensor."""
    if isinstance(value, (types.FunctionType, types.MethodType)):
        return True
    return callable(value) and not isinstance(value, type) and not hasattr(value, "data")


def _randomize_node(value):
    """A Value, Tensor or Parameter: its data made random in place, its rule too."""
    data = getattr(value, "data", None)
    if isinstance(data, (float, np.ndarray)):
        try:
            value.data = randomized(data)
            if getattr(value, "grad_fn", None) is not None:
                value.grad_fn = randomized(value.grad_fn)
        except (AttributeError, TypeError):
            pass
    return value
