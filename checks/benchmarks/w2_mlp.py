"""W2: a tensor MLP 2 → 64 → 64 → 2 on two moons, full batch, Adam (checks/benchmarks/README.md)."""

from __future__ import annotations

import importlib

from checks.benchmarks import floors, with_torch


def submodule(fw, name: str):
    """`fw.<name>` (e.g. "nn.functional"), imported if the package does not import it itself."""
    return importlib.import_module(f"{fw.__name__}.{name}")


def load_weights(parameters, arrays) -> None:
    """Copy arrays into the framework's parameters in place (their buffers may be shared)."""
    parameters, arrays = list(parameters), list(arrays)
    assert len(parameters) == len(arrays), f"{len(parameters)} parameters for {len(arrays)} arrays"
    for parameter, array in zip(parameters, arrays):
        assert parameter.data.shape == array.shape, (parameter.data.shape, array.shape)
        parameter.data[...] = array


def make_model(fw):
    """The framework's Sequential of Linear and ReLU layers, with floors.w2_parameters()."""
    nn = submodule(fw, "nn")
    sizes = floors.W2_SIZES
    model = nn.Sequential(nn.Linear(sizes[0], sizes[1]), nn.ReLU(), nn.Linear(sizes[1], sizes[2]),
                          nn.ReLU(), nn.Linear(sizes[2], sizes[3]))
    layers = [m for m in model if isinstance(m, nn.Linear)]
    load_weights([p for layer in layers for p in (layer.weight, layer.bias)],
                 [a for pair in floors.w2_parameters() for a in pair])
    return model


def trainer(fw):
    """One W2 training step of the framework as a closure returning the loss."""
    return adam_trainer(fw, make_model(fw), *floors.w2_data())


def split_batch(fw, model, processes: int | None = None):
    """`model` in `DataParallel` (checks/benchmarks/data_parallel.py) on `processes` processes,
    by default one per thread given (each of the framework's ops uses one core); the model
    itself for one. W2 does not use it:
    its step is too small to pay for the round trips."""
    processes = floors.threads() if processes is None else processes
    if processes == 1:
        return model
    from checks.benchmarks.data_parallel import DataParallel  # on the framework `fw` loaded

    return DataParallel(model, processes)


def adam_trainer(fw, model, X, y):
    """A full-batch step of `model` on (X, y): cross-entropy, backward, Adam with W2's settings
    (W4 takes the same), as a closure returning the loss."""
    functional, optim = submodule(fw, "nn.functional"), submodule(fw, "optim")
    inputs, targets = fw.Tensor(X), fw.Tensor(y)
    optimizer = optim.Adam(model.parameters(), lr=floors.W2_LR, betas=floors.W2_BETAS,
                           eps=floors.W2_EPS, foreach=True)

    def step() -> float:
        optimizer.zero_grad()
        loss = functional.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return float(loss.item())

    return step


NEW_ARRAYS = "floor, new arrays"  # the name W2Floor(new_arrays=True) is timed under


def run(fw, steps: int, warmup: int) -> dict:
    """The framework's step, the NumPy floor and PyTorch, taking turns in one run."""
    if steps < 5:  # quick mode: a smoke run, untimed, without the floor or PyTorch
        ms, losses = floors.median_ms(trainer(fw), steps, warmup)
        return {"ms_per_step": ms, "losses": losses}
    # at least 200 steps each: a step is about a millisecond, and a short run is mostly noise
    steps = max(steps, 200)
    torch_side = with_torch.torch_side()
    result, floor, torch_result = floors.timed_with_floor_and_torch(
        trainer(fw), floors.w2_floor_step(), torch_side.w2_step() if torch_side else None,
        steps, warmup, torch_version=torch_side.version() if torch_side else None,
        variants={NEW_ARRAYS: floors.w2_floor_step(new_arrays=True)})
    floors.side_by_side(result, torch_result, floor)
    result["notes"].append(memory_note(floor["ms_per_step"], floor["variants"][NEW_ARRAYS]))
    return result


def memory_note(floor_ms: float, new_arrays_ms: float) -> str:
    """How far the floor moves when it keeps its memory as the framework does (see W2Floor)."""
    return (f"the floor writing every result into a new array and keeping the pre-activations, "
            f"as the framework's graph does: {new_arrays_ms:.2f} ms, "
            f"{new_arrays_ms / floor_ms:.2f}× the floor (memory, without the framework's Python)")
