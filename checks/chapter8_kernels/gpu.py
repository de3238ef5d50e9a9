"""Chapter 8, exercise 8.6: CUDA kernels (an elementwise zip, a block sum in shared memory, a
tiled matmul in shared memory), run in Numba's CUDA simulator.

The simulator runs every GPU thread as a Python thread, started one after another, each running
until it finishes or waits at a barrier: a missing `cuda.syncthreads()` reads a tile or a
partial sum that other threads have not written yet, and a thread past the end of an array
raises IndexError. The simulator finds a block's shared array by the line that asks for it, and
the first thread there makes it: two threads could each make one (a check-then-set between
threads), so here that step holds a lock; nothing else of the simulator is changed. The shapes
are small (a launch is a few hundred threads at most), never a
multiple of the block where it matters, and each case runs on fresh random values.
"""

from __future__ import annotations

import re
import sys
import threading

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from numba import cuda
from numba.cuda.simulator import kernelapi

from checks.chapter8_kernels.common import built, kernels, seeds
from checks.harness import assert_close, check, probe

_shared_lock = threading.Lock()


def _shared_array(self, shape, dtype):
    """FakeCUDAShared.array of numba-cuda's simulator, with its check-then-set under a lock."""
    if shape == 0:  # dynamic shared memory: one buffer, as the simulator has it
        return _simulators_shared_array(self, shape, dtype)
    if isinstance(dtype, kernelapi.types.Type):
        dtype = kernelapi.numpy_support.as_dtype(dtype)
    caller = sys._getframe(1)
    key = (caller.f_code.co_filename, caller.f_lineno)
    with _shared_lock:
        if key not in self._allocations:
            self._allocations[key] = np.empty(shape, dtype)
        return self._allocations[key]


_simulators_shared_array = kernelapi.FakeCUDAShared.array
kernelapi.FakeCUDAShared.array = _shared_array

WHERE = re.compile(r"^(tid=\[[^\]]*\]) (ctaid=\[[^\]]*\]):? ?")


@cuda.jit(device=True)
def combine(x, y):
    return x - 2.0 * y




def launch(compiled, grid, block, *args) -> None:
    """compiled[grid, block](*args); an error raised in a simulated thread keeps its own message
    (the simulator puts the thread's and block's coordinates in front, moved here to the end).

    The simulator's threads hand the interpreter to each other every 0.1 ms instead of 5: a
    barrier's waiting threads resume sooner (the launches run about three times faster)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        compiled[grid, block](*args)
    except Exception as error:
        where = WHERE.match(str(error))
        if where is None:
            raise
        message = str(error)[where.end():]
        if not isinstance(error, NotImplementedError):
            message = (f"{message} (in the thread of threadIdx {where[1][4:]}, blockIdx "
                       f"{where[2][6:]}; grid {grid}, block {block})")
        try:
            cleaned = type(error)(message)
        except Exception:
            raise error from None
        raise cleaned.with_traceback(error.__traceback__) from None
    finally:
        sys.setswitchinterval(interval)


def blocks(length: int, threads: int) -> int:
    return max(1, -(-length // threads))


# -- zip -------------------------------------------------------------------------------------------


@probe("8.6")
def probe_gpu(fw):
    def zipped():
        out = np.zeros(5)
        launch(built(kernels.cuda_zip, combine), 2, 4, out, np.arange(5.0), np.ones(5))
        return out

    def summed():
        out = np.zeros(2, np.float32)
        launch(built(kernels.cuda_block_sum, 4, np.float32), 2, 4, out,
               np.arange(6, dtype=np.float32))
        return out

    def product():
        out = np.zeros((3, 2), np.float32)
        launch(built(kernels.cuda_matmul, 2, np.float32), (1, 2), (2, 2), out,
               np.arange(9, dtype=np.float32).reshape(3, 3),
               np.arange(6, dtype=np.float32).reshape(3, 2))
        return out

    return {"zip x - 2y of arange(5), ones(5) on 2 blocks of 4": zipped,
            "block sums of arange(6) on 2 blocks of 4": summed,
            "matmul of arange(9) as 3×3, arange(6) as 3×2, tile 2": product}


@check("8.6")
@given(length=st.integers(1, 24), threads=st.sampled_from([4, 8, 16]),
       dtype=st.sampled_from([np.float32, np.float64]), seed=seeds)
@example(length=5, threads=4, dtype=np.float64, seed=0)
@example(length=17, threads=16, dtype=np.float32, seed=1)
@example(length=8, threads=8, dtype=np.float64, seed=2)
def test_cuda_zip_writes_each_element_once_and_nothing_past_the_end(length, threads, dtype, seed):
    """cuda_zip(fn) on ⌈n/threads⌉ blocks: out[i] = fn(a[i], b[i]); threads past n do nothing."""
    rng = np.random.default_rng(seed)
    a, b = (rng.standard_normal(length).astype(dtype) for _ in range(2))
    out = np.full(length, np.nan, dtype)
    launch(built(kernels.cuda_zip, combine), blocks(length, threads), threads, out, a, b)
    assert_close(out, a - 2 * b, f"cuda_zip(x - 2y) of {length} elements on "
                 f"{blocks(length, threads)} blocks of {threads} threads ({np.dtype(dtype).name})",
                 rtol=1e-6, atol=1e-6)


# -- block sums ------------------------------------------------------------------------------------


@check("8.6")
@given(length=st.integers(1, 24), threads=st.sampled_from([4, 8, 16]),
       dtype=st.sampled_from([np.float32, np.float64]), seed=seeds)
@example(length=6, threads=4, dtype=np.float32, seed=0)
@example(length=16, threads=16, dtype=np.float64, seed=1)
@example(length=21, threads=8, dtype=np.float32, seed=2)
def test_cuda_block_sum_gives_each_blocks_sum(length, threads, dtype, seed):
    """out[k] = Σ a[k·threads : (k + 1)·threads] for each block k; past the end counts 0."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(length).astype(dtype)
    count = blocks(length, threads)
    out = np.full(count, np.nan, dtype)
    launch(built(kernels.cuda_block_sum, threads, dtype), count, threads, out, a)
    padded = np.concatenate([a.astype(np.float64), np.zeros(count * threads - length)])
    assert_close(out, padded.reshape(count, threads).sum(axis=1),
                 f"cuda_block_sum of {length} elements on {count} blocks of {threads} threads "
                 f"({np.dtype(dtype).name}): one sum per block", rtol=1e-5, atol=1e-5)


# -- tiled matmul ----------------------------------------------------------------------------------


def check_cuda_matmul(n: int, k: int, m: int, tile: int, dtype, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, k)).astype(dtype)
    b = rng.standard_normal((k, m)).astype(dtype)
    out = np.full((n, m), np.nan, dtype)
    grid = (blocks(m, tile), blocks(n, tile))
    launch(built(kernels.cuda_matmul, tile, dtype), grid, (tile, tile), out, a, b)
    assert_close(out, a.astype(np.float64) @ b.astype(np.float64),
                 f"cuda_matmul of a ({n}, {k}) and b ({k}, {m}) ({np.dtype(dtype).name}), tiles "
                 f"{tile}×{tile}, grid {grid}", rtol=1e-5, atol=1e-5)


@check("8.6")
@given(n=st.integers(1, 6), k=st.integers(1, 7), m=st.integers(1, 6),
       tile=st.sampled_from([2, 4]), dtype=st.sampled_from([np.float32, np.float64]), seed=seeds)
@example(n=5, k=3, m=7, tile=2, dtype=np.float32, seed=0)
@example(n=4, k=8, m=4, tile=4, dtype=np.float64, seed=1)
@example(n=6, k=9, m=5, tile=4, dtype=np.float32, seed=2)
@example(n=1, k=1, m=1, tile=2, dtype=np.float64, seed=3)
def test_cuda_matmul_is_a_times_b_at_any_size(n, k, m, tile, dtype, seed):
    """cuda_matmul(tile) = a @ b for shapes that are not multiples of the tile (zeros past edges)."""
    check_cuda_matmul(n, k, m, tile, dtype, seed)


@check("8.6")
def test_cuda_matmul_waits_for_every_tile():
    """Several tiles along K, several blocks: a tile read before all its threads loaded it fails."""
    for seed, (n, k, m, tile) in enumerate([(5, 9, 6, 2), (8, 12, 8, 4), (3, 7, 9, 2)]):
        check_cuda_matmul(n, k, m, tile, np.float64, seed)
