"""W6: chapter 8's fused kernels against the NumPy ops they replace (checks/benchmarks/README.md).

LayerNorm, softmax and GELU, forward then backward, on chapter 7's shapes (W5's GPT: 12 windows
of 64 positions, 128 wide, 4 heads): each op's `Function` called directly, the framework's NumPy
one (`LayerNormFunction`, `Softmax`, `GELU`: several passes over memory) and
`provided/launch.py`'s fused one (one kernel call each way, its input checks included), taking
turns step by step. The fused ops run on Numba's threads: one, and with two threads or more
given, the count given too, in the same run, so each kernel's speed-up from the second core is
measured against itself. Medians, as every workload, and each side's best time too: on a
machine busy with other jobs a step that was paused for another process inflates the median,
and the best is the op's own time. NumPy's BLAS (LayerNorm's NumPy forward takes its row means as
products) keeps the one thread `memory.tune()` gives it, as in every workload.

Then, with more steps, the training steps of W3 and W5 with `framework.set_backend("kernels")`
against the same step with NumPy's ops, in one process (no DataParallel), taking turns. W3's
Transformer has LayerNorm only (its feed-forward is ReLU and its attention's softmax is inside
`F.scaled_dot_product_attention`), W5's GPT LayerNorm and GELU; W1, W2 and W4 use none of the
three ops: the backend changes nothing there, so they have no row.
"""

from __future__ import annotations

import importlib

import numpy as np

from checks.benchmarks import floors
from checks.benchmarks.w2_mlp import submodule

ROWS, WIDTH, HEADS, CONTEXT = 12 * 64, 128, 4, 64
SHAPES = {"LayerNorm": (ROWS, WIDTH), "softmax": (12 * HEADS * CONTEXT, CONTEXT),
          "GELU": (ROWS, 4 * WIDTH)}
TARGETS = {"LayerNorm": 3.0, "softmax": 3.0, "GELU": 1.5}  # × faster than NumPy at one thread
SCALING = 1.7  # each kernel at two threads against its own one-thread time, on a quiet machine


def operands(op: str) -> tuple[tuple, np.ndarray]:
    """The forward's inputs and the backward's incoming gradient, float32, from default_rng(0)."""
    rng = np.random.default_rng(0)
    shape = SHAPES[op]
    x = rng.standard_normal(shape, dtype=np.float32)
    grad = rng.standard_normal(shape, dtype=np.float32)
    if op == "LayerNorm":
        weight = 1 + 0.1 * rng.standard_normal(shape[1], dtype=np.float32)
        return (x, weight, 0.1 * rng.standard_normal(shape[1], dtype=np.float32)), grad
    return (2 * x,), grad


def pass_of(function, args: tuple, grad: np.ndarray, needs: int, **kwargs):
    """Forward then backward of a Function on arrays, as `Function.apply` and the graph would."""
    context = importlib.import_module(function.__module__.split(".")[0] + ".function").Context

    def run():
        ctx = context()
        ctx.needs_input_grad = (True,) * needs
        out = function.forward(ctx, *args, **kwargs)
        grads = function.backward(ctx, grad)
        return out, grads if isinstance(grads, tuple) else (grads,)

    return run


def contenders(fw, op: str) -> tuple:
    """(the NumPy op's pass, the fused op's pass) for `op`."""
    functional = submodule(fw, "nn.functional")
    transformer = submodule(fw, "nn.functional_transformer")
    launch = submodule(fw, "provided.launch")
    args, grad = operands(op)
    if op == "LayerNorm":
        x, weight, bias = args
        return (pass_of(transformer.LayerNormFunction, (x, weight, bias, WIDTH), grad, 3, eps=1e-5),
                pass_of(launch.FusedLayerNorm, (x, weight, bias, 1e-5), grad, 3))
    if op == "softmax":
        return (pass_of(functional.Softmax, args, grad, 1, axis=-1),
                pass_of(launch.FusedSoftmax, args, grad, 1))
    return pass_of(functional.GELU, args, grad, 1), pass_of(launch.FusedGELU, args, grad, 1)


def largest_difference(a, b) -> float:
    """The largest |a - b| over every array of two results (nested tuples of arrays or None)."""
    if isinstance(a, (tuple, list)):
        return max(largest_difference(p, q) for p, q in zip(a, b))
    if a is None or b is None:
        return 0.0
    return float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))


def at_threads(jit, count: int, run):
    def step():
        jit.set_num_threads(count)
        return run()

    return step


def ops_table(fw, steps: int, warmup: int, counts: list[int]) -> dict[str, dict]:
    """For each op: NumPy's ms and the fused op's at each Numba thread count, taking turns."""
    jit = submodule(fw, "provided.jit")
    table = {}
    for op in SHAPES:
        numpy_pass, fused_pass = contenders(fw, op)
        runs = {"numpy": at_threads(jit, 1, numpy_pass)}
        runs.update({f"fused {n}": at_threads(jit, n, fused_pass) for n in counts})
        results = {name: [run() for _ in range(warmup)] for name, run in runs.items()}
        seconds = floors.take_turns(runs, steps, results)
        difference = largest_difference(results["numpy"][-1], results[f"fused {counts[0]}"][-1])
        table[op] = {"difference": difference}
        for name, key in [("numpy", "numpy")] + [(f"fused {n}", f"fused_{n}") for n in counts]:
            table[op][key + "_ms"] = floors.median_of(seconds[name])
            table[op][key + "_best_ms"] = 1000 * min(seconds[name])
    jit.set_num_threads(counts[-1])
    return table


def backend_steps(fw, steps: int, warmup: int) -> dict[str, tuple[float, float]]:
    """W3's and W5's training steps, NumPy's ops against the kernels backend, in one process."""
    from checks.benchmarks import w3_transformer, w5_gpt

    optim = submodule(fw, "optim")
    w3 = {name: w3_transformer.trainer(fw, warmup + steps, processes=1) for name in ("numpy", "kernels")}
    vocab_size, batches = w5_gpt.w5_batches(fw, warmup + steps)
    w5 = {}
    for name in ("numpy", "kernels"):
        model = w5_gpt.make_model(fw, vocab_size)
        optimizer = optim.AdamW(model.parameters(), lr=w5_gpt.LR, betas=w5_gpt.BETAS,
                                weight_decay=w5_gpt.WEIGHT_DECAY)
        w5[name] = gpt_step(optim, model, optimizer, iter(batches))
    found = {}
    for workload, trainers in (("W3", w3), ("W5", w5)):
        runs = {name: with_backend(fw, name, step) for name, step in trainers.items()}
        timed = floors.interleaved_ms(runs, steps, warmup)
        np.testing.assert_allclose(timed["kernels"][1], timed["numpy"][1], rtol=1e-4)
        found[workload] = (timed["numpy"][0], timed["kernels"][0])
    fw.set_backend("numpy")
    return found


def gpt_step(optim, model, optimizer, batches):
    def step() -> float:
        x, y = next(batches)
        optimizer.zero_grad()
        loss = model.loss(x, y)
        loss.backward()
        optim.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return float(loss.item())

    return step


def with_backend(fw, name: str, step):
    def run():
        fw.set_backend(name)
        try:
            return step()
        finally:
            fw.set_backend("numpy")

    return run


def run(fw, steps: int, warmup: int) -> dict:
    """The three ops at one thread and at the threads given; then W3's and W5's steps."""
    try:
        importlib.import_module("numba")
    except ImportError:
        return {"skipped": "Numba is not installed (chapter 8's `kernels` extra: make setup)"}
    quick = steps < 5
    given = floors.threads()
    counts = sorted({1, given})
    table = ops_table(fw, steps if quick else max(steps, 200), warmup if quick else 20, counts)
    top = f"fused_{given}_ms"
    result = {"ms_per_step": sum(r[top] for r in table.values()),
              "floor_ms": sum(r["numpy_ms"] for r in table.values()),
              "ops": table, "threads": counts, "no_loss": True, "notes": []}
    for op, r in table.items():
        if r["difference"] > 1e-4:
            raise AssertionError(f"W6: the fused {op} differs from NumPy's by {r['difference']:.2g}")
        line = (f"{op} {SHAPES[op]} forward+backward: NumPy {r['numpy_ms']:.3f} ms, fused 1 thread "
                f"{r['fused_1_ms']:.3f} ms ({r['numpy_ms'] / r['fused_1_ms']:.2f}× faster; target "
                f"≥ {TARGETS[op]}×)")
        if given > 1:
            line += (f", {given} threads {r[top]:.3f} ms ({r['fused_1_ms'] / r[top]:.2f}× its one "
                     f"thread; target ≥ {SCALING}× on a quiet machine)")
        best = (f"best of each: NumPy {r['numpy_best_ms']:.3f}, fused "
                + ", ".join(f"{r[f'fused_{n}_best_ms']:.3f} ms at {n}" for n in counts))
        result["notes"].append(line + f"; {best}; largest difference {r['difference']:.1e}")
    if quick:
        return result
    for workload, (numpy_ms, kernels_ms) in backend_steps(fw, max(steps, 20), 3).items():
        result[f"{workload}_backend"] = {"numpy_ms": numpy_ms, "kernels_ms": kernels_ms}
        result["notes"].append(
            f"{workload} step, one process, Numba on {given} thread{'s' * (given > 1)}: NumPy's ops "
            f"{numpy_ms:.1f} ms, set_backend('kernels') {kernels_ms:.1f} ms "
            f"({numpy_ms / kernels_ms:.2f}×)")
    return result
