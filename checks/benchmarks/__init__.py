"""The workloads of ../shared/BENCHMARKS.md, each `run(fw, steps, warmup) -> dict`."""
