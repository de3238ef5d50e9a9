"""The workloads specified in README.md beside this file, each `run(fw, steps, warmup) -> dict`."""
