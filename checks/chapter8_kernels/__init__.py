"""Chapter 8 grader: positions and views, kernels on every core, the tiled matrix product,
fused kernels, kernels for a GPU (always in Numba's CUDA simulator: the same threads and
barriers on every machine), activation checkpointing, and the bonus track (lazy fusion,
cross-entropy fused with its gradient).
"""

import os

# GPU kernels are graded in the simulator, on a GPU machine too (set before Numba loads)
os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

# The parts register their checks as they are imported: in the order of the exercises.
# isort: off
from checks.chapter8_kernels import (  # noqa: E402, F401
    positions,
    views,
    cpu,
    fused,
    gpu,
    checkpoint,
    bonus,
)
# isort: on
