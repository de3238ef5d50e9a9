"""Chapter 8's CUDA kernels on a real GPU: compiled, checked against NumPy, timed.

    python -m checks.tools.gpu_check      # make gpu-check; IMPL picks the framework (default: yours)

Where a GPU is visible (`framework.provided.jit.gpu_visible()`, and Numba not in its simulator),
it runs `provided/launch.py`'s `gpu_zip` (an addition), `gpu_sum` and `gpu_matmul` (tile 16) on
2^24 float32 numbers and 2048×2048 float32 matrices, checks each against NumPy, and prints one
table: the GPU kernel alone (inputs already on the device, `cuda.synchronize()` after each
launch), the GPU with the copies to and from the device, chapter 8's CPU kernels (Numba, on
every core) and NumPy; the median of a few runs after a warm-up that compiles. Well under five
minutes. Exits 1 if a kernel gives a wrong answer.

Where none is visible it says so in one line and exits 0: the simulator is the gate there
(`make check-chapter8` grades the kernels in it), so `make test` never depends on a GPU.
`--small` runs the same script on small sizes in whatever Numba gives (the simulator here),
to try the script itself.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

NO_GPU = "no GPU visible: the simulator is the gate; make check-chapter8 grades the kernels"
SIZES = {"full": (2**24, 2048, 7), "small": (2**10, 32, 2)}  # vector, matrix side, repeats


def median_ms(run, repeats: int, sync=lambda: None) -> float:
    run()  # warm-up: compiles, and moves nothing twice
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        sync()
        times.append(time.perf_counter() - start)
    return 1000 * float(np.median(times))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    from checks.loader import load_framework

    fw = load_framework()
    try:
        from importlib import import_module

        jit = import_module(f"{fw.__name__}.provided.jit")
    except ImportError as error:
        print(f"Numba is not installed, so no GPU check ({error})")
        return 0
    if not args.small and (jit.simulating or not jit.gpu_visible()):
        print(NO_GPU)
        return 0
    launch = import_module(f"{fw.__name__}.provided.launch")
    kernels = import_module(f"{fw.__name__}.kernels")
    cuda = jit.cuda
    n, side, repeats = SIZES["small" if args.small else "full"]
    where = "the simulator (--small)" if jit.simulating else _device_name(cuda)
    print(f"{where}; {n:,} float32 numbers, {side}×{side} float32 matrices; median of {repeats} "
          f"runs after a warm-up; Numba on {jit.get_num_threads()} CPU threads")
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    m1 = rng.standard_normal((side, side), dtype=np.float32)
    m2 = rng.standard_normal((side, side), dtype=np.float32)

    @cuda.jit(device=True)
    def add_gpu(x, y):
        return x + y

    @jit.njit
    def add_cpu(x, y):
        return x + y

    try:
        rows, wrong = _measure(launch, kernels, cuda, jit, add_gpu, add_cpu, a, b, m1, m2, repeats)
    except NotImplementedError as error:
        print(f"not implemented yet (exercise 8.6 or 8.3/8.4): {error}")
        return 1
    print(f"\n{'op':<28}{'GPU kernel':>12}{'GPU + copies':>14}{'CPU kernels':>13}{'NumPy':>10}  "
          "(ms)")
    for name, times in rows:
        print(f"{name:<28}" + "".join(f"{t:>{w}.3f}" for t, w in zip(times, (12, 14, 13, 10))))
    for line in wrong:
        print("✗ " + line)
    print("all three agree with NumPy" if not wrong else f"{len(wrong)} wrong")
    return 1 if wrong else 0


def _device_name(cuda) -> str:
    device = cuda.get_current_device()
    name = device.name.decode() if isinstance(device.name, bytes) else device.name
    return f"GPU {name}"


def _measure(launch, kernels, cuda, jit, add_gpu, add_cpu, a, b, m1, m2, repeats):
    """Each op's four times, and what disagreed with NumPy."""
    sync, threads, tile = cuda.synchronize, 128, 16
    wrong, rows = [], []
    strided = kernels.StridedArray
    blocks = -(-a.size // threads)
    device_a, device_b = cuda.to_device(a), cuda.to_device(b)
    device_m1, device_m2 = cuda.to_device(m1), cuda.to_device(m2)

    # zip: out = a + b
    zip_kernel = launch._kernel(kernels.cuda_zip, add_gpu)
    device_out = cuda.device_array_like(a)
    on_gpu = median_ms(lambda: zip_kernel[blocks, threads](device_out, device_a, device_b), repeats, sync)
    with_copies = median_ms(lambda: launch.gpu_zip(add_gpu, a, b, threads), repeats, sync)
    sa, sb = strided.from_numpy(a), strided.from_numpy(b)
    cpu = median_ms(lambda: launch.strided_zip(add_cpu, sa, sb), repeats)
    rows.append((f"zip a + b ({a.size:,})", (on_gpu, with_copies, cpu, median_ms(lambda: a + b, repeats))))
    if not np.array_equal(device_out.copy_to_host(), a + b) or not np.array_equal(
            launch.gpu_zip(add_gpu, a, b, threads), a + b):
        wrong.append("gpu_zip: a + b differs from NumPy's")

    # sum: one partial sum a block on the GPU, the partials added on the host
    sum_kernel = launch._kernel(kernels.cuda_block_sum, threads, a.dtype.str)
    partials = cuda.device_array(blocks, a.dtype)
    on_gpu = median_ms(lambda: sum_kernel[blocks, threads](partials, device_a), repeats, sync)
    with_copies = median_ms(lambda: launch.gpu_sum(a, threads), repeats, sync)

    @jit.njit
    def plus(x, y):
        return x + y

    cpu = median_ms(lambda: launch.strided_reduce(plus, sa, 0, 0.0), repeats)
    rows.append((f"sum ({a.size:,})", (on_gpu, with_copies, cpu, median_ms(a.sum, repeats))))
    exact = float(a.astype(np.float64).sum())
    for label, got in (("gpu_sum", launch.gpu_sum(a, threads)),
                       ("block sums", float(partials.copy_to_host().astype(np.float64).sum()))):
        if abs(got - exact) > 1e-3 * np.abs(a).sum() ** 0.5 + 1e-2:
            wrong.append(f"{label}: {got} against NumPy's {exact}")

    # matmul, tile 16
    matmul_kernel = launch._kernel(kernels.cuda_matmul, tile, m1.dtype.str)
    product = cuda.device_array((m1.shape[0], m2.shape[1]), m1.dtype)
    grid = (-(-m2.shape[1] // tile), -(-m1.shape[0] // tile))
    on_gpu = median_ms(lambda: matmul_kernel[grid, (tile, tile)](product, device_m1, device_m2),
                       repeats, sync)
    with_copies = median_ms(lambda: launch.gpu_matmul(m1, m2, tile), repeats, sync)
    cpu = median_ms(lambda: launch.matmul(m1, m2), max(1, repeats // 3))
    rows.append((f"matmul {m1.shape[0]}×{m1.shape[1]}, tile {tile}",
                 (on_gpu, with_copies, cpu, median_ms(lambda: m1 @ m2, repeats))))
    expected = m1.astype(np.float64) @ m2.astype(np.float64)
    for label, got in (("gpu_matmul", launch.gpu_matmul(m1, m2, tile)),
                       ("the matmul kernel", product.copy_to_host())):
        if not np.allclose(got, expected, rtol=1e-3, atol=1e-3 * m1.shape[1] ** 0.5):
            wrong.append(f"{label}: largest difference {np.abs(got - expected).max():.3g}")
    return rows, wrong


if __name__ == "__main__":
    sys.exit(main())
