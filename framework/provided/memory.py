"""Keep freed memory in the process, let the cycle collector rest, keep BLAS on one thread.

Nothing here runs at import: call `tune()` (all three settings) where training speed matters,
as chapter 5's training and the appendix do. All change the whole process, so a
library should not make them for its users unasked. The third, BLAS threads, is explained in
`runtime` (`use_small_work_threads`): a second BLAS thread made the course's products up to a
hundred times slower on a busy machine. `peak_bytes(step)` measures, with tracemalloc, the
most memory a step holds at once (chapter 8's activation checkpointing lowers it).

A training step allocates the same large arrays every time: activations, gradients,
optimizer temporaries. glibc's malloc serves any block above 128 KiB with a fresh
`mmap` and returns it to the operating system on `free`, so every step faults in
new zeroed pages for each of those arrays, which for large arrays can cost more than
the arithmetic. Raising malloc's thresholds keeps freed blocks in the heap
for the next step, as PyTorch's caching allocator does for its tensors.

This changes the whole process's malloc settings, only on glibc (Linux); elsewhere
(macOS, Windows, musl) it does nothing: their allocators cache differently and
nothing breaks without it.

Python's cycle collector, for its part, scans the young objects each time 700 more
have been allocated than freed. The scalar graph of chapter 1's last training step holds
hundreds of thousands of objects, none of them in a cycle (reference counting frees every
graph of this framework), so
while a step builds its graph the collector scans it hundreds of times and finds
nothing: half of the step and more. Any threshold below the size of a graph still
scans each of its objects once or more; `collect_cycles_less_often` sets one above
it, so a step's graph comes and goes unscanned. Real cycles (micrograd's closures,
a closed matplotlib figure) are still collected, after at most a million new objects
(a hundred MB or so) instead of 700.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys
import tracemalloc
from collections.abc import Callable

from . import runtime

# mallopt's parameter numbers, from glibc's <malloc.h>
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3

MMAP_THRESHOLD = 256 * 2**20  # blocks below this come from the reusable heap
TRIM_THRESHOLD = 1 * 2**30  # free memory kept at the heap's top before returning any
TOP_PAD = 64 * 2**20  # grow the heap in large steps, not one block at a time


def keep_freed_memory() -> bool:
    """Raise glibc malloc's thresholds for the process; True if they were set."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc: nothing to tune
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    settings = ((M_MMAP_THRESHOLD, MMAP_THRESHOLD), (M_TRIM_THRESHOLD, TRIM_THRESHOLD),
                (M_TOP_PAD, TOP_PAD))
    return all(mallopt(parameter, value) == 1 for parameter, value in settings)


YOUNG_THRESHOLD = 1_000_000  # net allocations between two scans of the youngest generation


def collect_cycles_less_often() -> None:
    """Scan for cycles every YOUNG_THRESHOLD allocations instead of Python's 700 (never lowered)."""
    young, *older = gc.get_threshold()
    if 0 < young < YOUNG_THRESHOLD:  # 0 means the collector is off: leave it off
        gc.set_threshold(YOUNG_THRESHOLD, *older)


def tune() -> bool:
    """The three settings for this process: `keep_freed_memory()`, `collect_cycles_less_often()`,
    then `runtime.use_small_work_threads()` (one BLAS thread).

    Returns whether malloc's thresholds were set (False off glibc, where only the collector
    and the threads change). Call it once, before training; the settings last until the
    process ends or, for the threads, until `runtime.set_blas_threads` is called.
    """
    kept = keep_freed_memory()
    collect_cycles_less_often()
    runtime.use_small_work_threads()
    return kept


def peak_bytes(step: Callable[[], object]) -> int:
    """The most memory `step()` held at once beyond what was held before it, in bytes: Python's
    and NumPy's allocations, which tracemalloc traces both (freed blocks are not counted, so a
    training step's peak is its activations, gradients and temporaries at their fullest).
    Tracing slows every allocation down: measure with it, do not train with it."""
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        step()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        if started:
            tracemalloc.stop()
