"""Measure the workloads of checks/benchmarks/README.md: ms/step, floors, PyTorch side by side.

    python -m checks.tools.bench            # the full measurement (a few minutes)
    python -m checks.tools.bench --quick    # a couple of untimed steps, so it cannot rot
    python -m checks.tools.bench --only W3  # some workloads only (bench-results.json untouched)

`IMPL` picks the framework (default: yours; the README's figures use IMPL=solutions).
Runs every workload once with one thread given and once with the machine's cores (`--threads`
picks others), prints a table for each and one side by side, and writes bench-results.json.
PyTorch is optional (`pip install -e '.[compare]'`); without it (or with BENCH_NO_TORCH=1) its
columns stay empty. Quick mode runs neither PyTorch nor W3's 200-step memory run.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time

from checks.benchmarks.floors import blas_threads, give_threads
from checks.benchmarks.with_torch import torch_available
from checks.loader import ROOT, load_framework

WORKLOADS = [
    ("W1", "checks.benchmarks.w1_scalar", 1),
    ("W2", "checks.benchmarks.w2_mlp", 3),
    ("W3", "checks.benchmarks.w3_transformer", 5),
    ("W4", "checks.benchmarks.w4_cnn", 6),
    ("W5", "checks.benchmarks.w5_gpt", 7),
    ("W6", "checks.benchmarks.w6_fused", 8),
]

TARGETS = {"W1": "≤ 80 ms (micrograd's design: 638)", "W2": "≤ 1.5× floor (PyTorch eager: 1.52×)",
           "W3": "≤ 3.2× floor (PyTorch eager: 3.2×)", "W4": "≤ 1.5× floor, ≤ PyTorch eager",
           "W5": "≤ 3.2× floor, ≤ PyTorch eager; cache ≥ 5×",
           "W6": "floor = NumPy's ops; fused ≥ 3× (LN, softmax), ≥ 1.5× (GELU)"}


def available() -> list[tuple[str, object, int]]:
    found = []
    for name, module_name, chapter in WORKLOADS:
        try:
            found.append((name, importlib.import_module(module_name), chapter))
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
    return found


def figure(value, unit: str = "") -> str:
    return "—" if value is None else f"{value:.2f}{unit}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--threads", type=int, nargs="+", default=None,
                        help="thread counts to give, one pass each (default: 1 and the cores)")
    parser.add_argument("--only", nargs="+", choices=[name for name, _, _ in WORKLOADS],
                        help="measure these workloads only; bench-results.json is left as it is")
    args = parser.parse_args(argv)
    fw = load_framework()
    steps, warmup = (2, 0) if args.quick else (max(args.steps, 20), 3)
    counts = args.threads or ([1] if args.quick else sorted({1, os.cpu_count() or 1}))
    # asked without importing PyTorch: only the workloads that compare with it load it
    torch = "not run" if args.quick else "installed" if torch_available() else "not installed"
    print(f"framework: {fw.__file__}; PyTorch: {torch}; load average "
          f"{', '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    passes = {}
    for count in counts:
        give_threads(count)
        fw.memory.tune()  # the figures are measured with the framework's opt-in tuning
        print(f"\n{count} thread{'s' * (count > 1)} given: PyTorch's; NumPy's BLAS after "
              f"memory.tune(): {blas_threads()}", flush=True)
        passes[count] = measure(fw, steps, warmup, args.only)
        table(passes[count])
    if len(passes) > 1:
        side_by_side(passes)
    print(f"load average at the end: {', '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if args.quick or args.only:
        print("\n(quick mode: untimed smoke run)" if args.quick else "\n(some workloads only)")
        return 0
    with open(ROOT / "bench-results.json", "w") as file:
        json.dump({f"{count} threads": results for count, results in passes.items()}, file,
                  indent=1, default=float)
    print(f"\nwritten to {ROOT / 'bench-results.json'}")
    return 0


def measure(fw, steps: int, warmup: int, only: list[str] | None = None) -> dict[str, dict]:
    """Every available workload's result (or those named in `only`) at the threads given now."""
    results = {}
    for name, module, chapter in available():
        if only and name not in only:
            continue
        start = time.perf_counter()
        try:
            result = module.run(fw, steps=steps, warmup=warmup)
        except NotImplementedError as error:
            results[name] = {"notes": [f"not implemented yet (chapter {chapter}): {error}"]}
            continue
        except ModuleNotFoundError as error:
            if not (error.name or "").startswith(fw.__name__ + "."):
                raise
            results[name] = {"notes": [f"not in this framework yet (chapter {chapter}): {error}"]}
            continue
        if "skipped" in result:  # W6 without Numba
            results[name] = {"notes": [f"not run: {result['skipped']}"]}
            continue
        result["seconds"] = time.perf_counter() - start
        results[name] = result
        if result.get("no_loss"):  # W6 times ops, not a training step; it checks its results
            continue
        losses = result.get("losses", [])
        assert losses and all(loss == loss for loss in losses), f"{name}: the loss is NaN"
    return results


def ratio(r: dict, key: str) -> float | None:
    ms, other = r.get("ms_per_step"), r.get(key)
    return ms / other if ms and other else None


def table(results: dict[str, dict]) -> None:
    print(f"\n{'workload':<10}{'ms/step':>10}{'floor ms':>10}{'× floor':>9}"
          f"{'torch ms':>10}{'× torch':>9}{'peak MB':>9}  target")
    for name, r in results.items():
        print(f"{name:<10}{figure(r.get('ms_per_step')):>10}{figure(r.get('floor_ms')):>10}"
              f"{figure(ratio(r, 'floor_ms'), '×'):>9}{figure(r.get('torch_ms')):>10}"
              f"{figure(ratio(r, 'torch_ms'), '×'):>9}"
              f"{figure(r.get('peak_mb')):>9}  {TARGETS[name]}")
        for note in r.get("notes", []):
            print(f"          {note}")


def side_by_side(passes: dict[int, dict[str, dict]]) -> None:
    """One row per workload: ms/step, × floor and × PyTorch at each thread count given."""
    print("\nside by side (ms/step, × floor, × PyTorch; W1: × faster than micrograd's design):")
    print(f"{'workload':<10}" + "".join(f"{f'{count} thread(s)':>28}" for count in passes))
    for name in next(iter(passes.values())):
        cells = []
        for results in passes.values():
            r = results.get(name, {})
            if "closure_ms" in r:  # W1: how many times faster than micrograd's design
                cells.append(f"{figure(r.get('ms_per_step'))} ({r['closure_ms'] / r['ms_per_step']:.1f}× "
                             "faster)")
                continue
            cells.append(f"{figure(r.get('ms_per_step'))} {figure(ratio(r, 'floor_ms'), '×')} "
                         f"{figure(ratio(r, 'torch_ms'), '×')}")
        print(f"{name:<10}" + "".join(f"{cell:>28}" for cell in cells))


if __name__ == "__main__":
    sys.exit(main())
