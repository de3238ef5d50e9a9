"""Provided: the families' functions of `framework`, as `torch`'s: `torch.atan2(y, x)` is
`y.atan2(x)` (the names in `function_names.py`), and those that are no method: the stacking
functions (`hstack`, `vstack`, `dstack`, `column_stack`), `std_mean`/`var_mean`, the draws
`normal`, `poisson`, `randint_like`, the seeds, and `searchsorted`/`bucketize`/`isin`; and
the refusals of `loud.py` (`torch.lgamma`, `torch.complex`) as functions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..function import unwrap
from ..tensor import Tensor
from . import generator as _generator
from .function_names import BUILTIN_NAMES, METHOD_FUNCTIONS, REFUSED_FUNCTIONS
from .loud import refusal
from .surface import _method, concatenate

globals().update({name: _method(name) for name in (*METHOD_FUNCTIONS, *BUILTIN_NAMES)})
globals().update({name: refusal(name) for name in REFUSED_FUNCTIONS})
concat = concatenate


def atleast_1d(x: Tensor) -> Tensor:
    return x.reshape(1) if x.ndim == 0 else x


def atleast_2d(x: Tensor) -> Tensor:
    return x.reshape(1, -1) if x.ndim < 2 else x


def atleast_3d(x: Tensor) -> Tensor:
    """(n,) → (1, n, 1), (m, n) → (m, n, 1), as NumPy's atleast_3d."""
    if x.ndim >= 3:
        return x
    return x.reshape(1, -1, 1) if x.ndim < 2 else x.unsqueeze(-1)


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Joined along axis 1 (along axis 0 for 1-D tensors)."""
    tensors = [atleast_1d(t) for t in tensors]
    return concatenate(tensors, axis=0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Joined along axis 0, 1-D tensors as rows."""
    return concatenate([atleast_2d(t) for t in tensors], axis=0)


row_stack = vstack


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """Joined along axis 2, after atleast_3d."""
    return concatenate([atleast_3d(t) for t in tensors], axis=2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """Joined along axis 1, 0-D and 1-D tensors as columns."""
    return concatenate([t.reshape(-1, 1) if t.ndim < 2 else t for t in tensors], axis=1)


def std_mean(input: Tensor, dim=None, *, correction: int = 1, keepdim: bool = False) -> tuple:  # noqa: A002
    return input.std(dim, correction=correction, keepdim=keepdim), input.mean(dim, keepdims=keepdim)


def var_mean(input: Tensor, dim=None, *, correction: int = 1, keepdim: bool = False) -> tuple:  # noqa: A002
    return input.var(dim, correction=correction, keepdim=keepdim), input.mean(dim, keepdims=keepdim)


def normal(mean, std=1.0, size=None, *, generator=None) -> Tensor:
    """Normal draws, elementwise of mean and std (tensors or numbers; `size` for numbers)."""
    rng = _generator.numpy_generator(generator)
    mean_, std_ = np.asarray(unwrap(mean)), np.asarray(unwrap(std))
    shape = tuple(size) if size is not None else np.broadcast_shapes(mean_.shape, std_.shape)
    dtype = next((t.dtype for t in (mean, std) if isinstance(t, Tensor)), np.float32)
    return Tensor(rng.normal(mean_, std_, shape).astype(dtype))


def poisson(input: Tensor, generator=None) -> Tensor:  # noqa: A002
    """Poisson draws with the rates of `input`, in its dtype."""
    return Tensor(_generator.numpy_generator(generator).poisson(input.data).astype(input.dtype))


def randint_like(input: Tensor, low: int, high: int | None = None, *, dtype=None) -> Tensor:  # noqa: A002
    """Integers in [low, high) (or [0, low)) in the shape of `input`."""
    if high is None:
        low, high = 0, low
    values = _generator.default_generator().integers(low, high, input.shape)
    return Tensor(values.astype(dtype or input.dtype))


def seed() -> int:
    """Seed the shared generator from the operating system's entropy; returns the seed."""
    chosen = int(np.random.SeedSequence().entropy % 2**63)
    _generator.manual_seed(chosen)
    return chosen


def initial_seed() -> int:
    """Not recorded: the shared generator is a NumPy one, which keeps no seed."""
    raise NotImplementedError("initial_seed: the shared generator does not record its seed; "
                              "keep the number you give framework.manual_seed")


def searchsorted(sorted_sequence: Tensor, values, *, right: bool = False, side=None) -> Tensor:
    """Where each of `values` would go in `sorted_sequence` (1-D) to keep it sorted (int64)."""
    side = side or ("right" if right else "left")
    if np.ndim(unwrap(sorted_sequence)) != 1:
        raise NotImplementedError("searchsorted: only a 1-D sorted_sequence is supported; "
                                  "loop over the rows")
    return Tensor(np.searchsorted(unwrap(sorted_sequence), unwrap(values), side).astype(np.int64))


def bucketize(input, boundaries: Tensor, *, right: bool = False) -> Tensor:  # noqa: A002
    """The bucket of each element between the sorted `boundaries` (PyTorch's `right`)."""
    return searchsorted(boundaries, input, side="left" if not right else "right")


def isin(elements, test_elements, *, invert: bool = False) -> Tensor:
    return Tensor(np.isin(unwrap(elements), unwrap(test_elements), invert=invert))
