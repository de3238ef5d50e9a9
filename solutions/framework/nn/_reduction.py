"""Provided: the `reduction` every loss takes, and PyTorch's deprecated `size_average=` and
`reduce=`, which every loss of `functional` and of `nn` also takes and maps to a reduction as
PyTorch does, with a UserWarning as PyTorch's (PyTorch keeps this in torch/nn/_reduction.py):
`reduce=False` means "none", else `size_average=False` "sum", else "mean".
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable

REDUCTIONS = ("mean", "sum", "none")


def check_reduction(op: str, reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"{op}: reduction must be one of {REDUCTIONS}, got {reduction!r}")


def legacy_reduction(op: str, size_average: bool | None, reduce: bool | None,
                     stacklevel: int = 3) -> str:
    """The reduction the deprecated arguments stand for (each None counts as True), with a warning."""
    if reduce is not None and not reduce:
        reduction = "none"
    else:
        reduction = "sum" if size_average is not None and not size_average else "mean"
    warnings.warn(f"{op}: size_average= and reduce= are deprecated (in PyTorch too); these mean "
                  f"reduction={reduction!r}: pass that instead", UserWarning, stacklevel=stacklevel)
    return reduction


def legacy_arguments(loss: Callable) -> Callable:
    """The loss function `loss`, also taking size_average= and reduce= (keyword-only here)."""

    @functools.wraps(loss)
    def with_legacy(*args, size_average=None, reduce=None, **kwargs):
        if size_average is not None or reduce is not None:
            kwargs["reduction"] = legacy_reduction(loss.__name__, size_average, reduce)
        return loss(*args, **kwargs)

    signature = inspect.signature(loss)
    legacy = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None)
              for name in ("size_average", "reduce")]
    with_legacy.__signature__ = signature.replace(parameters=[*signature.parameters.values(), *legacy])
    return with_legacy
