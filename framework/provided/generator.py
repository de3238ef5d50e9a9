"""The one random generator that initialisers, dropout and data shuffling draw from, and
`Generator`, one of your own (as `torch.Generator`) for a `DataLoader` or `random_split`.
"""

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


class Generator:
    """A generator of its own, as `torch.Generator`: `Generator().manual_seed(0)`.

    It draws with NumPy (`.rng`, a `np.random.Generator`), so the same seed gives other
    numbers than PyTorch's: the same kind of shuffle, not the same order.
    """

    DEFAULT_SEED = 67280421310721  # PyTorch's, for a Generator never seeded

    def __init__(self, device: str = "cpu") -> None:
        if str(device) != "cpu":
            raise ValueError(f"Generator: device={device!r}; the framework runs on the CPU only")
        self.manual_seed(self.DEFAULT_SEED)

    def manual_seed(self, seed: int) -> Generator:
        """Restart from `seed`; returns the generator itself (as PyTorch)."""
        self._seed = int(seed)
        self.rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self) -> int:
        return self._seed


def numpy_generator(generator: Generator | np.random.Generator | None) -> np.random.Generator:
    """The NumPy generator to draw from: a Generator's, a NumPy one as it is, or the shared one."""
    if generator is None:
        return default_generator()
    return generator.rng if isinstance(generator, Generator) else generator
