"""Chapter 8 grader: positions and views, kernels on every core, the tiled matrix product,
fused kernels, kernels for a GPU (in Numba's simulator where no GPU is visible), and
activation checkpointing.
"""

import os

# a GPU kernel's checks run in the simulator unless a GPU is visible (set before Numba loads)
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

# The parts register their checks as they are imported: in the order of the exercises.
# isort: off
from checks.chapter8_kernels import (  # noqa: E402, F401
    positions,
    views,
    cpu,
    fused,
    gpu,
)
# isort: on
