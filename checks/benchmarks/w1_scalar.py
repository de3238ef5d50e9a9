"""W1: a scalar MLP on two moons, one `Value` per number (BENCHMARKS.md)."""

from __future__ import annotations

import gc
import time
from types import SimpleNamespace

import numpy as np

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


def train(fw, steps: int, warmup: int) -> dict:
    X, y = fw.data.make_moons(100, 0.1, seed=0, dtype=np.float64)
    points = X.tolist()
    labels = [2.0 * label - 1.0 for label in y.tolist()]
    layers = make_parameters(fw)
    parameters = [p for layer in layers for ws, b in layer for p in (*ws, b)]
    assert len(parameters) == 337
    times, losses = [], []
    for step in range(warmup + steps):
        start = time.perf_counter()
        for p in parameters:
            p.grad = 0.0
        scores = [forward(layers, x) for x in points]
        loss = sum((1.0 - label * s).relu() for label, s in zip(labels, scores)) / len(points)
        loss.backward()
        for p in parameters:
            p.data -= 0.1 * p.grad
        losses.append(loss.data)
        del loss, scores
        if step >= warmup:
            times.append(time.perf_counter() - start)
    return {"ms_per_step": 1000 * float(np.median(times)) if times else None, "losses": losses}


def run(fw, steps: int, warmup: int) -> dict:
    """The framework's `Value`, then the closure design on the same steps, same run."""
    result = train(fw, steps, warmup)
    if steps < 5:
        return result
    # micrograd's 638 ms were measured with Python's own collector settings: so is its design here
    framework_thresholds = gc.get_threshold()
    gc.set_threshold(*PYTHON_DEFAULT_THRESHOLDS)
    try:
        closure = train(SimpleNamespace(Value=ClosureValue, data=fw.data), steps // 2, 1)
    finally:
        gc.set_threshold(*framework_thresholds)
    gc.disable()
    try:
        without_collector = train(fw, steps // 2, 1)
    finally:
        gc.enable()
    ratio = closure["ms_per_step"] / result["ms_per_step"]
    # the two anchors were measured on one machine: their ratio carries over to this one
    clean_engine_here = closure["ms_per_step"] * CLEAN_ENGINE_MS / MICROGRAD_MS
    result["notes"] = [
        f"closure-over-result design (micrograd's), Python's collector settings: "
        f"{closure['ms_per_step']:.0f} ms/step, {ratio:.1f}× slower",
        f"the anchors scaled to this machine ({MICROGRAD_MS} → {closure['ms_per_step']:.0f} ms): "
        f"the clean engine's {CLEAN_ENGINE_MS} ms would be {clean_engine_here:.0f} ms here",
        f"with the cycle collector off: {without_collector['ms_per_step']:.0f} ms/step",
    ]
    result["clean_engine_ms_here"] = clean_engine_here
    result["closure_ms"] = closure["ms_per_step"]
    result["no_gc_ms"] = without_collector["ms_per_step"]
    return result
