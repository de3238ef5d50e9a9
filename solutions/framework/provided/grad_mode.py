"""Provided: the grad mode, whether ops record graphs (`no_grad`, `enable_grad`, ...).

As in PyTorch: one setting per thread, switched by context managers that are also decorators.
Chapter 1's `Value` and chapter 2's `Function.apply` read it through `is_grad_enabled`;
`framework.no_grad` and `framework.autodiff.no_grad` are these.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable


class _GradState(threading.local):
    """Whether ops record graphs: one setting per thread, as in PyTorch, so `no_grad` in
    one thread (say, one that evaluates) leaves another recording, and a new thread starts
    recording."""

    enabled = True


_grad_state = _GradState()


class _GradMode:
    """Record graphs (`mode` True) or not inside a `with` block or a decorated function.

    Leaving it restores the setting found on entering, also after an exception and when
    the same instance is entered again inside itself.
    """

    mode: bool

    def __init__(self) -> None:
        self._previous: list[bool] = []  # a stack: one entry per entry not yet left

    def __enter__(self) -> None:
        self._previous.append(_grad_state.enabled)
        _grad_state.enabled = self.mode

    def __exit__(self, *exc_info: object) -> None:
        _grad_state.enabled = self._previous.pop()

    def __call__(self, function: Callable) -> Callable:
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with type(self)():  # a fresh stack per call: threads may call it at once
                return function(*args, **kwargs)

        return wrapper


class no_grad(_GradMode):
    """Context manager (and decorator) in which operations record no graph, as in PyTorch."""

    mode = False


class enable_grad(_GradMode):
    """Context manager (and decorator) in which operations record a graph again."""

    mode = True


class set_grad_enabled(_GradMode):
    """Record graphs (True) or not (False): at once when called, and undone on leaving a
    `with` block, as PyTorch's `set_grad_enabled`."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self.mode = bool(mode)
        super().__enter__()  # at once: `set_grad_enabled(False)` alone is a switch

    def __enter__(self) -> None:
        """Already switched by the call; leaving the block restores the setting before it."""

    def __call__(self, function: Callable) -> Callable:
        raise TypeError("set_grad_enabled: use it as `with set_grad_enabled(mode):` or a call")


def is_grad_enabled() -> bool:
    """True unless inside `no_grad()` (or after `set_grad_enabled(False)`)."""
    return _grad_state.enabled
