"""PyTorch for the benchmarks, when it is there: the optional `compare` extra, never required."""

from __future__ import annotations

import importlib.util
import os


def torch_available() -> bool:
    """Whether PyTorch is installed, without importing it; BENCH_NO_TORCH=1 hides it."""
    return os.environ.get("BENCH_NO_TORCH") != "1" and importlib.util.find_spec("torch") is not None


def torch_side():
    """checks.benchmarks.torch_side when PyTorch is importable, else None."""
    if not torch_available():
        return None
    import checks.benchmarks.torch_side as side

    return side
