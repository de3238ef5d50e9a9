"""W1: a scalar MLP on two moons, one `Value` per number (BENCHMARKS.md)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from types import SimpleNamespace

import numpy as np

from checks.benchmarks import floors
from checks.benchmarks.closure_engine import ClosureValue

SIZES = (2, 16, 16, 1)
MICROGRAD_MS, CLEAN_ENGINE_MS = 638, 80  # BENCHMARKS.md's anchors, on its reference machine
PYTHON_DEFAULT_THRESHOLDS = (700, 10, 10)


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


def run(fw, steps: int, warmup: int) -> dict:
    """The framework's `Value`, the closure design and the collector off, taking turns."""
    if steps < 5:
        return train(fw, steps, warmup)
    # micrograd's 638 ms were measured with Python's own collector settings: so is its design here
    closure_design = SimpleNamespace(Value=ClosureValue, data=fw.data)
    timed = floors.interleaved_ms({
        "framework": trainer(fw),
        "closure": with_collector(trainer(closure_design), PYTHON_DEFAULT_THRESHOLDS),
        "off": with_collector(trainer(fw), None),
    }, steps, warmup)
    (ms, losses), (closure_ms, _), (no_gc_ms, _) = timed["framework"], timed["closure"], timed["off"]
    # the two anchors were measured on one machine: their ratio carries over to this one
    clean_engine_here = closure_ms * CLEAN_ENGINE_MS / MICROGRAD_MS
    notes = [
        f"closure-over-result design (micrograd's), Python's collector settings: "
        f"{closure_ms:.0f} ms/step, {closure_ms / ms:.1f}× slower",
        f"the anchors scaled to this machine ({MICROGRAD_MS} → {closure_ms:.0f} ms): "
        f"the clean engine's {CLEAN_ENGINE_MS} ms would be {clean_engine_here:.0f} ms here",
        f"with the cycle collector off: {no_gc_ms:.0f} ms/step",
    ]
    return {"ms_per_step": ms, "losses": losses, "notes": notes, "closure_ms": closure_ms,
            "no_gc_ms": no_gc_ms, "clean_engine_ms_here": clean_engine_here}
