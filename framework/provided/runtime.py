"""How a training run uses the machine, and what it says while it runs (provided).

`set_blas_threads(n)` sets how many threads NumPy's BLAS (the OpenBLAS that NumPy's wheels
ship) may use, at run time, as `threadpoolctl` would, without that extra dependency. The
framework calls BLAS in short bursts between Python code; on a machine with other load the
BLAS threads fall asleep between calls and wait to be scheduled again, and a Chapter 5 step
was measured 15 times slower with 2 threads than with 1. The notebooks' training cells use 1.

OpenBLAS gives a product every thread it may use once the product has 262,144 multiply-adds
or more; PyTorch parallelises only work large enough to pay for waking a thread. Measured on
the 2-core machine the course is benchmarked on, load average 1.8 (other jobs running), the
median of 40 products each way: (1024, 64)·(64, 64) took 0.09 ms on one thread and 10.3 ms on
two; (768, 128)·(128, 512), the largest product of chapter 7's GPT, 1.1 ms and 13.9 ms; only a
(2048, 512)·(512, 512) product (537 million multiply-adds) was faster on two (39 ms against
47). No product in the course is that large, so `SMALL_WORK_THREADS` is 1, and
`memory.tune()` sets it (`use_small_work_threads()`): an explicit call, as its other settings.
Switching per product instead, PyTorch's way (all cores for a product of 8 million
multiply-adds or more, one for the rest, by a call on each side of the product: about 9 µs
each), made chapter 5's step slower, not faster: 80 to 150 ms against 28 ms on one thread
(load average 1.8), since the threads woken for a product are asleep again by the next.

`Progress` prints plain lines, which every way of running a notebook keeps (a progress bar
may not show under nbconvert or nbval): after the first steps, the measured ms/step and the
projected total time; then the loss every so often; then the total.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os
import platform
import time

import numpy as np

_SET = ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
        "openblas_set_num_threads")
_GET = ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
        "openblas_get_num_threads")


@functools.cache
def _openblas_function(names: tuple[str, ...]):
    """The first of `names` in the OpenBLAS library of NumPy's wheel, or None (looked up once)."""
    folder = os.path.dirname(np.__file__)
    patterns = (folder + ".libs/*openblas*", folder + "/.dylibs/*openblas*",
                folder + "/_core/*openblas*")
    for path in sorted(p for pattern in patterns for p in glob.glob(pattern)):
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for name in names:
            function = getattr(library, name, None)
            if function is not None:
                return function
    return None


def blas_threads() -> int | None:
    """The number of threads NumPy's BLAS uses, or None where it cannot be asked."""
    get = _openblas_function(_GET)
    if get is None:
        return None
    get.restype = ctypes.c_int
    return int(get())


def set_blas_threads(count: int) -> int | None:
    """Let NumPy's BLAS use `count` threads from now on; returns the count now in effect.

    None where NumPy's BLAS is not OpenBLAS (e.g. a NumPy built on Apple's Accelerate or
    MKL): there, set OPENBLAS_NUM_THREADS / MKL_NUM_THREADS before starting Python.
    """
    if count < 1:
        raise ValueError(f"set_blas_threads: count must be at least 1, got {count}")
    set_threads = _openblas_function(_SET)
    if set_threads is None:
        return None
    set_threads.argtypes = [ctypes.c_int]
    set_threads(count)
    return blas_threads()


SMALL_WORK_THREADS = 1  # BLAS threads for the course's products (see the module's docstring)


def use_small_work_threads() -> int | None:
    """Let NumPy's BLAS use SMALL_WORK_THREADS threads from now on: the count that never
    crawls on a busy machine for products of the course's sizes. Returns the count now in
    effect (None where NumPy's BLAS is not OpenBLAS, as for `set_blas_threads`).
    """
    return set_blas_threads(SMALL_WORK_THREADS)


def machine() -> str:
    """This machine in a few words: system, processor, cores, BLAS threads."""
    threads = blas_threads()
    blas = "BLAS threads unknown" if threads is None else f"{threads} BLAS thread" + "s" * (threads > 1)
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, {blas}"


class Progress:
    """Lines about a run of `steps` steps: call `step(loss)` after each, `done()` at the end.

    After `measure` steps it prints the measured ms/step and the projected total; then the
    mean loss of the last steps about `lines` times; `done()` prints the total and returns
    the measured ms/step.
    """

    def __init__(self, steps: int, label: str = "training", measure: int = 10,
                 lines: int = 8) -> None:
        self.steps, self.label, self.measure = steps, label, min(measure, steps)
        self.every = max(steps // lines, 1)
        self.losses: list[float] = []
        self.start = time.perf_counter()

    def step(self, loss: float) -> None:
        self.losses.append(float(loss))
        count, seconds = len(self.losses), time.perf_counter() - self.start
        if count == self.measure:
            ms = 1000 * seconds / count
            print(f"{self.label}: {ms:.3g} ms/step over the first {count} steps, measured on "
                  f"this machine ({machine()}): {self.steps:,} steps should take about "
                  f"{_duration(ms * self.steps / 1000)}", flush=True)
        elif count % self.every == 0 and count < self.steps:
            recent = np.mean(self.losses[-self.every:])
            print(f"{self.label}: step {count:,}/{self.steps:,}, loss {recent:.4f}, "
                  f"{_duration(seconds)} so far", flush=True)

    def done(self) -> float:
        seconds = time.perf_counter() - self.start
        ms = 1000 * seconds / max(len(self.losses), 1)
        print(f"{self.label}: {len(self.losses):,} steps in {_duration(seconds)}, {ms:.3g} ms/step",
              flush=True)
        return ms


def _duration(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 90 else f"{seconds / 60:.1f} min"
