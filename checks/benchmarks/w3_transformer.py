"""W3: the Tiny Transformer on digit reversal, and its 200-step memory run (checks/benchmarks/README.md)."""

from __future__ import annotations

import gc
import os
import tracemalloc

from checks.benchmarks import floors, with_torch
from checks.benchmarks.w2_mlp import split_batch, submodule

MEMORY_STEPS = 200


def parameter_name(layout_name: str) -> str:
    """floors.w3_layout()'s name of a parameter → the framework's (PyTorch's nn.Transformer)."""
    if layout_name.endswith("_embedding"):
        return layout_name + ".weight"
    parts = layout_name.split(".")
    if parts[0] in ("encoder", "decoder") and parts[1].isdigit():
        parts[1:2] = ["layers", parts[1]]
    projections = {"q": "q_proj", "k": "k_proj", "v": "v_proj", "out": "out_proj"}
    if "self_attn" in parts or "cross_attn" in parts:
        parts[-2] = projections[parts[-2]]
    return ".".join(parts).replace("cross_attn", "multihead_attn")


def make_model(fw):
    """The framework's Transformer configured as W3, with floors.w3_parameters()."""
    nn = submodule(fw, "nn")
    model = nn.Transformer(floors.VOCAB, floors.VOCAB, d_model=floors.D_MODEL, nhead=floors.HEADS,
                           num_encoder_layers=floors.LAYERS, num_decoder_layers=floors.LAYERS,
                           dim_feedforward=floors.FFN, dropout=0.0, max_len=floors.LENGTH)
    model.load_state_dict({parameter_name(name): value
                           for name, value in floors.w3_parameters().items()})
    return model


def trainer(fw, steps: int, processes: int | None = None):
    """W3's training step of the framework as a closure returning the loss, for `steps` batches;
    the batch split across `processes` as `split_batch` says."""
    functional, optim = submodule(fw, "nn.functional"), submodule(fw, "optim")
    model = make_model(fw)
    forward = split_batch(fw, model, processes)
    optimizer = optim.Adam(model.parameters(), lr=floors.W3_LR, betas=floors.W3_BETAS,
                           eps=floors.W3_EPS, foreach=True)
    batches = iter(floors.w3_batches(steps))

    def step() -> float:
        src, tgt_in, tgt_out = next(batches)
        optimizer.zero_grad()
        logits = forward(fw.Tensor(src), fw.Tensor(tgt_in))
        loss = functional.cross_entropy(logits.reshape(-1, floors.VOCAB), fw.Tensor(tgt_out.ravel()))
        loss.backward()
        optimizer.step()
        return float(loss.item())

    return step


def resident_mb() -> float | None:
    """This process's resident memory now, where the platform tells it cheaply (else None)."""
    try:
        import psutil  # optional: not a dependency of the course

        return psutil.Process().memory_info().rss / 2**20
    except ImportError:
        pass
    try:
        with open("/proc/self/statm") as file:
            return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, AttributeError):
        return None


def memory_run(fw, steps: int = MEMORY_STEPS, window: int = 50) -> dict:
    """Peak memory of a `steps`-step run; what is held, and the peak, early and late in it.

    tracemalloc sees every NumPy array buffer (NumPy reports its allocations to it) and
    every Python object, on every platform; the model, its gradients and the optimizer's
    state count, since tracing starts before they are built. "No growth": the memory
    held after step `window` and after the last step, and the peaks within the first
    and the last `window` steps, are the same. Resident memory (the process as the OS
    sees it, allocator caches included) is added where the platform tells it.
    """
    resident_mb()  # its first call imports (or fails to import psutil): not the framework's memory
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        step = trainer(fw, steps, processes=1)  # tracemalloc sees this process only
        peak, held, window_peak, resident = 0, {}, {}, {}
        for i in range(1, steps + 1):
            if i == steps - window + 1:
                tracemalloc.reset_peak()
            step()
            current, step_peak = tracemalloc.get_traced_memory()
            peak = max(peak, step_peak)
            if i in (window, steps):
                held[i], window_peak[i], resident[i] = current - base, step_peak - base, resident_mb()
    finally:
        tracemalloc.stop()
    mb = 2**-20
    return {"steps": steps, "window": window, "peak_mb": (peak - base) * mb,
            "held_mb": {i: v * mb for i, v in held.items()},
            "window_peak_mb": {i: v * mb for i, v in window_peak.items()},
            "resident_mb": resident}


def memory_notes(memory: dict) -> list[str]:
    first, last, window = memory["window"], memory["steps"], memory["window"]
    held, peaks, resident = memory["held_mb"], memory["window_peak_mb"], memory["resident_mb"]
    growth = held[last] - held[first]
    verdict = "no growth" if abs(growth) < 0.01 * memory["peak_mb"] else f"GROWS by {growth:.2f} MB"
    notes = [f"memory, {last}-step run (tracemalloc: arrays and objects): peak {memory['peak_mb']:.1f} MB",
             f"  held after step {first}: {held[first]:.2f} MB, after step {last}: {held[last]:.2f} MB "
             f"({verdict}); peak in steps 1-{first}: {peaks[first]:.1f} MB, "
             f"in steps {last - window + 1}-{last}: {peaks[last]:.1f} MB"]
    if resident[first] is not None:
        notes.append(f"  resident (OS view): {resident[first]:.0f} MB after step {first}, "
                     f"{resident[last]:.0f} MB after step {last}")
    return notes


def run(fw, steps: int, warmup: int) -> dict:
    """The framework's step, the matmul floor and PyTorch, then the 200-step memory run."""
    if steps < 5:  # quick mode: a smoke run, untimed, without PyTorch or the memory run
        ms, losses = floors.median_ms(trainer(fw, warmup + steps), steps, warmup)
        return {"ms_per_step": ms, "losses": losses}
    torch_side = with_torch.torch_side()
    result, floor, torch_result = floors.timed_with_floor_and_torch(
        trainer(fw, warmup + steps), floors.w3_floor_step(),
        torch_side.w3_step(warmup + steps) if torch_side else None, steps, warmup,
        torch_version=torch_side.version() if torch_side else None)
    floor["gflop"] = floors.w3_gflop()
    floors.side_by_side(result, torch_result, floor)
    result["notes"].append(f"the floor: {floor['gflop']:.2f} GFLOP of matrix products per step")
    memory = memory_run(fw)
    result.update(peak_mb=memory["peak_mb"], memory=memory)
    result["notes"] += memory_notes(memory)
    return result
