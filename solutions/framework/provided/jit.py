"""Chapter 8's compilers: Numba for the CPU, and Numba's CUDA, on a GPU or in its simulator.

    from framework.provided.jit import njit, prange, cuda, simulating

Importing this module is the only place the course imports Numba: chapters 1 to 7 never do,
so they work where Numba fails to install. Where no NVIDIA GPU is visible, `cuda` is Numba's
CUDA *simulator*: every GPU thread runs as a Python thread on the CPU, so a kernel's
correctness (indices, bounds, shared memory, synchronisation) can be checked on any laptop,
slowly, on small shapes. `NUMBA_ENABLE_CUDASIM=0` or `1`, set before the import, chooses
either way; `simulating` says which one this process got.
"""

from __future__ import annotations

import os
import shutil
import sys
import warnings
from pathlib import Path


def gpu_visible() -> bool:
    """An NVIDIA driver's device file or tool is present (the check does not load CUDA)."""
    return Path("/dev/nvidia0").exists() or shutil.which("nvidia-smi") is not None


os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "0" if gpu_visible() else "1")

try:
    import numba

    if "numba.cuda" not in sys.modules:  # Numba imported earlier read its settings before ours
        numba.config.reload_config()
    from numba import cuda, from_dtype, njit, prange
except ImportError as error:  # pragma: no cover - depends on the machine
    raise ImportError(
        "chapter 8 needs Numba and numba-cuda, which `make setup` installs (about 280 MB with "
        "llvmlite and cuda-bindings); install them with `.venv/bin/python -m pip install numba "
        f"numba-cuda`, or see the README's section on chapter 8. ({error})"
    ) from error

simulating: bool = bool(numba.config.ENABLE_CUDASIM)

#: Chapter 8's fused kernels' options. error_model="numpy": x/0 is inf, not a check per
#: division (a branch that stops vectorising); fastmath "reassoc": sums in any order, 4-8 lanes
#: at once; "contract": fused multiply-adds.
FUSED = dict(parallel=True, cache=True, error_model="numpy", fastmath={"reassoc", "contract"})


def require_cuda(op: str) -> None:
    """Refuse, in words, a GPU launch that has neither a GPU nor the simulator."""
    if not simulating and not gpu_visible():
        raise RuntimeError(
            f"{op}: no GPU is visible and Numba's CUDA simulator is off: numba.cuda was imported "
            "before framework.provided.jit, without NUMBA_ENABLE_CUDASIM=1. Import "
            "framework.provided.jit (or framework.kernels) first, or set NUMBA_ENABLE_CUDASIM=1 "
            "before starting Python")

# Numba warns when `parallel=True` finds no loop to spread, which every exercise's stub
# triggers; the chapter measures its kernels at one and two threads instead.
warnings.filterwarnings("ignore", category=numba.NumbaPerformanceWarning)


def set_num_threads(count: int) -> None:
    """How many cores Numba's `prange` loops use from now on (1 to the number of cores)."""
    numba.set_num_threads(count)


def get_num_threads() -> int:
    return numba.get_num_threads()


__all__ = ["FUSED", "cuda", "from_dtype", "get_num_threads", "gpu_visible", "njit", "prange", "require_cuda",
           "set_num_threads", "simulating"]
