"""PyTorch's names for axis arguments, accepted wherever NumPy's are (provided).

The course writes NumPy: `axis=`, `keepdims=`. PyTorch writes `dim=`, `keepdim=` (and
accepts NumPy's spelling too). `accepts_dim` lets a function written with NumPy's names
take either spelling, so learners keep writing NumPy inside their exercises while a
PyTorch script runs unchanged. Giving both spellings of one argument is an error.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

#: PyTorch's keyword -> NumPy's, the one the framework's functions are written with.
ALIASES = {"dim": "axis", "keepdim": "keepdims"}


def rename_dims(op: str, kwargs: dict) -> dict:
    """`kwargs` with PyTorch's names replaced by NumPy's; both spellings at once is an error."""
    for torch_name, numpy_name in ALIASES.items():
        if torch_name in kwargs:
            if numpy_name in kwargs:
                raise TypeError(
                    f"{op}: got both {torch_name}= (PyTorch's name) and {numpy_name}= (NumPy's "
                    f"name) for the same argument; pass one of them"
                )
            kwargs[numpy_name] = kwargs.pop(torch_name)
    return kwargs


def accepts_dim(function: Callable) -> Callable:
    """Decorate a function written with `axis`/`keepdims` so it also takes `dim`/`keepdim`."""
    op = function.__name__

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **rename_dims(op, kwargs)) if kwargs else function(*args)

    return wrapper
