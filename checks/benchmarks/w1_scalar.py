"""W1: a scalar MLP on two moons, one `Value` per number (checks/benchmarks/README.md)."""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from checks.benchmarks import floors
from checks.benchmarks.closure_engine import ClosureValue
from checks.loader import ROOT, load_framework

SIZES = (2, 16, 16, 1)
MICROGRAD_MS, CLEAN_ENGINE_MS = 638, 80  # the spec's anchors, on its reference machine
PYTHON_DEFAULT_THRESHOLDS = (700, 10, 10)
PROCESSES = 3  # per contender: one process's speed is partly luck


def make_parameters(fw):
    """U(-1/√n_in, 1/√n_in) weights per layer from default_rng(1); biases 0."""
    rng = np.random.default_rng(1)
    layers = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(n_in)
        weights = rng.uniform(-bound, bound, size=(n_out, n_in))
        layers.append([([fw.Value(float(w)) for w in row], fw.Value(0.0)) for row in weights])
    return layers


def forward(layers, x):
    for depth, layer in enumerate(layers):
        outputs = []
        for weights, bias in layer:
            total = bias
            for w, xi in zip(weights, x):
                total = total + w * xi
            outputs.append(total.tanh() if depth < len(layers) - 1 else total)
        x = outputs
    return x[0]


def trainer(fw) -> Callable[[], float]:
    """One W1 training step of `fw.Value` as a closure returning the loss."""
    X, y = fw.data.make_moons(100, 0.1, seed=0, dtype=np.float64)
    points = X.tolist()
    labels = [2.0 * label - 1.0 for label in y.tolist()]
    layers = make_parameters(fw)
    parameters = [p for layer in layers for ws, b in layer for p in (*ws, b)]
    assert len(parameters) == 337

    def step() -> float:
        for p in parameters:
            p.grad = 0.0
        scores = [forward(layers, x) for x in points]
        loss = sum((1.0 - label * s).relu() for label, s in zip(labels, scores)) / len(points)
        loss.backward()
        for p in parameters:
            p.data -= 0.1 * p.grad
        return loss.data  # the graph goes with `loss` and `scores`: freeing it is timed too

    return step


def train(fw, steps: int, warmup: int) -> dict:
    ms, losses = floors.median_ms(trainer(fw), steps, warmup)
    return {"ms_per_step": ms, "losses": losses}


def with_collector(step: Callable[[], float], thresholds: tuple[int, ...] | None):
    """`step` run under the collector's `thresholds` (None: collector off), restored after."""
    def run() -> float:
        saved, enabled = gc.get_threshold(), gc.isenabled()
        if thresholds is None:
            gc.disable()
        else:
            gc.set_threshold(*thresholds)
        try:
            return step()
        finally:
            gc.set_threshold(*saved)
            if enabled:
                gc.enable()

    return run


def contender(fw, name: str) -> Callable[[], float]:
    """W1's step for one contender: the framework, micrograd's closure design under Python's
    own collector settings (its 638 ms were measured with them), or the framework with the
    collector off."""
    if name == "framework":
        return trainer(fw)
    if name == "closure":
        closure_design = SimpleNamespace(Value=ClosureValue, data=fw.data)
        return with_collector(trainer(closure_design), PYTHON_DEFAULT_THRESHOLDS)
    if name == "off":
        return with_collector(trainer(fw), None)
    raise ValueError(f"W1: no contender {name!r}; there are framework, closure and off")


def schedule(names: list[str], steps: int, rounds: int,
             processes: int) -> list[tuple[str, int, int]]:
    """The turns, in order: (contender, which of its processes, block of steps). The order of
    the contenders rotates from round to round; each contender's blocks go to its processes
    in turn. (When the counts of contenders and processes share a factor, a process keeps
    its place in the order: with two of each, process 0 always goes first or last.)"""
    turns = []
    for round_index, block in enumerate(floors.blocks(steps, rounds)):
        turns += [(name, round_index % processes, block)
                  for name in floors.rotated(names, round_index)]
    return turns


def in_own_processes(fw, names: list[str], steps: int, warmup: int,
                     rounds: int = 2 * PROCESSES, processes: int = PROCESSES) -> dict[str, float]:
    """Each contender's median ms/step over `processes` processes of its own, the processes
    taking turns in `rounds` blocks, so all meet a drifting machine alike.

    Own processes, because one contender's heap slows the next: the closure design hands
    the collector over a million objects a step, and the heap it leaves behind made a
    framework step about a sixth slower in the same process than in one of its own.
    Several processes each, because processes of the same code, taking turns, differed by
    up to a fifth in speed: over three, the median of the steps is about the middle one's
    speed, whatever one process's luck. Blocks, not single steps, because a step that
    follows another process's step finds the caches full of that process's objects: with
    turns of one step, the framework's lead on the closure design fell from 7.4–8.4× to
    6.7–7.3×. Each turn also begins with one untimed step, to fill the caches again.
    """
    env = {**os.environ, "IMPL": str(Path(fw.__file__).resolve().parent.parent)}
    keys = [(name, index) for name in names for index in range(processes)]
    # errors go to files: a pipe nobody reads until the end could fill up and stall a worker
    errors = {key: tempfile.TemporaryFile() for key in keys}
    workers = {key: subprocess.Popen([sys.executable, "-m", __name__, key[0], str(warmup)],
                                     cwd=ROOT, env=env, text=True, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=errors[key])
               for key in keys}

    def answer(key: tuple[str, int]) -> str:
        line = workers[key].stdout.readline()
        if not line:  # the worker ended: say why
            workers[key].wait()
            errors[key].seek(0)
            raise RuntimeError(f"W1 {key[0]}: the timing process failed:\n"
                               f"{errors[key].read().decode()}")
        return line

    try:
        for key in keys:
            answer(key)  # "ready", once its warm-up steps are done
        times: dict[str, list[float]] = {name: [] for name in names}
        for name, index, block in schedule(names, steps, rounds, processes):
            workers[name, index].stdin.write(f"{block}\n")
            workers[name, index].stdin.flush()
            times[name] += json.loads(answer((name, index)))
    finally:
        for key, worker in workers.items():
            worker.stdin.close()
            worker.wait()
            errors[key].close()
    return {name: floors.median_of(times[name]) for name in names}


def run(fw, steps: int, warmup: int) -> dict:
    """The framework, the closure design and the collector off, each in processes of its own."""
    if steps < 5:
        return train(fw, steps, warmup)
    losses = [trainer(fw)()]  # in this process first: an unfinished exercise says so here
    timed = in_own_processes(fw, ["framework", "closure", "off"], steps, warmup)
    ms, closure_ms, no_gc_ms = timed["framework"], timed["closure"], timed["off"]
    # the two anchors were measured on one machine: their ratio carries over to this one
    clean_engine_here = closure_ms * CLEAN_ENGINE_MS / MICROGRAD_MS
    notes = [
        f"closure-over-result design (micrograd's), Python's collector settings: "
        f"{closure_ms:.0f} ms/step, {closure_ms / ms:.1f}× slower",
        f"the anchors scaled to this machine ({MICROGRAD_MS} → {closure_ms:.0f} ms): "
        f"the clean engine's {CLEAN_ENGINE_MS} ms would be {clean_engine_here:.0f} ms here",
        f"with the cycle collector off: {no_gc_ms:.0f} ms/step",
        f"each contender in {PROCESSES} processes of its own, all taking turns in blocks",
    ]
    return {"ms_per_step": ms, "losses": losses, "notes": notes, "closure_ms": closure_ms,
            "no_gc_ms": no_gc_ms, "clean_engine_ms_here": clean_engine_here}


def main(argv: list[str] | None = None) -> None:
    """A contender's worker: its warm-up steps, then "ready"; then, for every number n it
    reads, one untimed step and n timed ones, whose seconds it answers as a JSON list."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("contender")
    parser.add_argument("warmup", type=int)
    args = parser.parse_args(argv)
    fw = load_framework()
    fw.memory.tune()  # as in the parent (checks/tools/bench.py); "closure" and "off" override gc
    step = contender(fw, args.contender)
    for _ in range(args.warmup):
        step()
    print("ready", flush=True)
    for line in sys.stdin:
        step()
        seconds = floors.take_turns({"step": step}, int(line), {"step": []})["step"]
        print(json.dumps(seconds), flush=True)


if __name__ == "__main__":
    main()
