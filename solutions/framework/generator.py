"""The one random generator that initialisers, dropout and data shuffling draw from."""

from __future__ import annotations

import numpy as np

_generator = np.random.default_rng(0)


def manual_seed(seed: int) -> np.random.Generator:
    """Reset the shared generator, so a run can be repeated exactly (as `torch.manual_seed`)."""
    global _generator
    _generator = np.random.default_rng(seed)
    return _generator


def default_generator() -> np.random.Generator:
    """The shared generator; draw from it instead of creating your own."""
    return _generator
