"""Provided: PyTorch's sampling family: `bernoulli`, and the in-place fills `uniform_`,
`normal_`, `bernoulli_`, `exponential_`, `geometric_`, `cauchy_`, `log_normal_`, `random_`,
each drawn from the shared generator (`framework.manual_seed`) or the `generator=` given.
NumPy draws the numbers, so the same seed gives others than PyTorch's. No gradient flows
through a draw (the fills are `copy_`s of new values).
"""

from __future__ import annotations

import numpy as np

from .generator import numpy_generator


class RandomMethods:
    """The sampling methods of `Tensor` this file gives it."""

    __slots__ = ()

    def _fill_drawn(self, draw, generator):
        """Fill with `draw(rng, shape)`, in place."""
        return self.copy_(draw(numpy_generator(generator), self.shape).astype(self.dtype))

    def bernoulli(self, p=None, *, generator=None):
        """1 with probability self (or p), else 0, elementwise: a new tensor of self's dtype."""
        probs = self.data if p is None else np.broadcast_to(p, self.shape)
        if np.any((probs < 0) | (probs > 1)):
            raise ValueError("bernoulli: probabilities must lie in [0, 1]")
        return self._make((numpy_generator(generator).random(self.shape) < probs).astype(self.dtype))

    def bernoulli_(self, p: float = 0.5, *, generator=None):
        return self._fill_drawn(lambda rng, shape: rng.random(shape) < p, generator)

    def uniform_(self, a: float = 0.0, b: float = 1.0, *, generator=None):
        return self._fill_drawn(lambda rng, shape: rng.uniform(a, b, shape), generator)

    def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator=None):
        return self._fill_drawn(lambda rng, shape: rng.normal(mean, std, shape), generator)

    def exponential_(self, lambd: float = 1.0, *, generator=None):
        return self._fill_drawn(lambda rng, shape: rng.exponential(1 / lambd, shape), generator)

    def geometric_(self, p: float, *, generator=None):
        return self._fill_drawn(lambda rng, shape: rng.geometric(p, shape), generator)

    def cauchy_(self, median: float = 0.0, sigma: float = 1.0, *, generator=None):
        return self._fill_drawn(lambda rng, shape: median + sigma * rng.standard_cauchy(shape),
                                generator)

    def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator=None):
        return self._fill_drawn(lambda rng, shape: rng.lognormal(mean, std, shape), generator)

    def random_(self, start: int = 0, to: int | None = None, *, generator=None):
        """Integers in [start, to) (to defaults to 2^24, the integers float32 holds exactly)."""
        if to is None:
            start, to = 0, start or 2**24
        return self._fill_drawn(lambda rng, shape: rng.integers(start, to, shape), generator)
