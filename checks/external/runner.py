"""Run the corpus of PyTorch programs written outside this project, unchanged.

Each program under `programs/` is a public PyTorch script kept verbatim below a header that
gives its source, commit and licence, and what data stands in for a download. It runs as
`__main__` in a fresh folder holding that data, with its printed output captured:

- on the framework, `torch` and its submodules are the framework's (as for checks/torch_scripts);
- on PyTorch, PyTorch's random draws are replaced by the ones the framework makes from the same
  NumPy stream (initial weights, `randn`, dropout masks, shuffles), so both start from the
  same numbers and their printed values can be compared.

`EXPECTED` (expected.json) records, for each program, that it runs to the end on the framework
or the error it stops with; `make test` holds the framework to it, so a program that starts
to run, or stops elsewhere, is seen.

    python -m checks.external.runner                   # every program on the framework
    python -m checks.external.runner --backend torch
    python -m checks.external.runner --compare         # both, printed values compared
    python -m checks.external.runner --compare --write-expected
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import math
import os
import random
import re
import runpy
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from checks.loader import load_framework
from checks.torch_scripts.runner import framework_as_torch

FOLDER = Path(__file__).resolve().parent
PROGRAMS = FOLDER / "programs"
STANDINS = FOLDER / "standins"
EXPECTED_FILE = FOLDER / "expected.json"
SHAKESPEARE = FOLDER.parent.parent / "solutions" / "framework" / "provided" / "datasets" / "shakespeare.txt"
TIME_LIMIT_S = 120
#: Printed numbers agree when within these (float32 arithmetic, a few thousand steps apart).
RTOL, ATOL = 2e-3, 1e-4
#: A graph node: ours name our ops and group as they do (`LinearFunctionBackward`, input
#: first), PyTorch's its kernels (`AddmmBackward0`, bias first); the README lists this
#: difference, and the runner compares a printed node only as a node.
NODE = re.compile(r"\w*Backward\d*|AccumulateGrad")
ADDRESS = re.compile(r" object at 0x[0-9a-fA-F]+")  # PyTorch's graph nodes print their address
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|nan|inf")


@dataclass
class Outcome:
    """What one program did on one backend: its output, and the error it stopped with, if any."""

    output: str
    error: str | None
    where: str | None
    seconds: float  # of CPU time

    @property
    def ran(self) -> bool:
        return self.error is None


def programs() -> list[Path]:
    """Each program's main file, in name order (a folder's program is its main.py)."""
    found = [p for p in PROGRAMS.glob("*.py")] + [p for p in PROGRAMS.glob("*/main.py")]
    return sorted(found, key=name)


def name(path: Path) -> str:
    return path.parent.name if path.name == "main.py" else path.stem


def expected() -> dict[str, str | None]:
    """program -> None (runs to the end on the framework) or the start of the error it stops with."""
    return json.loads(EXPECTED_FILE.read_text()) if EXPECTED_FILE.exists() else {}


def _prepare_folder(folder: Path) -> None:
    """The data the programs read instead of downloads (see each program's header)."""
    shutil.copy(SHAKESPEARE, folder / "input.txt")
    (folder / "data").mkdir()
    words = SHAKESPEARE.read_text().split()[:3000]
    lines = [" ".join(words[i:i + 12]) for i in range(0, len(words), 12)]
    (folder / "data" / "train.txt").write_text("\n".join(lines) + "\n")


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    """Stop a program after `seconds` of this process's CPU time (not wall time: a busy
    machine slows a program without making it loop)."""
    def stop(signum, frame):
        raise TimeoutError(f"ran past {seconds} s of CPU time")
    previous = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@contextlib.contextmanager
def _one_blas_thread() -> Iterator[None]:
    """NumPy's BLAS on one thread while a program runs, as PyTorch's is (`torch.set_num_threads(1)`
    below): on a shared machine OpenBLAS's waiting threads made the language model 4× slower."""
    runtime = importlib.import_module("framework.provided.runtime")
    before = runtime.blas_threads()
    runtime.set_blas_threads(1)
    try:
        yield
    finally:
        if before:
            runtime.set_blas_threads(before)


@contextlib.contextmanager
def _isolated(path: Path) -> Iterator[None]:
    """A fresh working folder with the data, the program's folder and the stand-ins importable,
    and whatever they import forgotten afterwards (it was bound to one backend's torch)."""
    before = set(sys.modules)
    cwd, saved_path, saved_argv = os.getcwd(), list(sys.path), sys.argv
    sys.argv = [str(path)]  # the program's own defaults, not the runner's arguments
    with tempfile.TemporaryDirectory() as folder:
        _prepare_folder(Path(folder))
        os.chdir(folder)
        sys.path[:0] = [str(path.parent), str(STANDINS)]
        try:
            yield
        finally:
            os.chdir(cwd)
            sys.path[:] = saved_path
            sys.argv = saved_argv
            for module in set(sys.modules) - before:
                if module.split(".")[0] in ("torchvision", "data_utils"):
                    del sys.modules[module]


def _where(error: BaseException, path: Path) -> str | None:
    """`line N: source` of the program's last frame in the traceback."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename) == path]
    return f"line {frames[-1].lineno - header_lines(path)}: {frames[-1].line}" if frames else None


def header_lines(path: Path) -> int:
    """Lines of the header above the verbatim program (so line numbers are the original's)."""
    lines = path.read_text().splitlines()
    return next(i + 1 for i, line in enumerate(lines) if line.startswith("# ---- the program"))


def run_program(path: Path, backend: str = "framework", impl: str = "solutions") -> Outcome:
    """Run one program as `__main__` on `backend` ("framework" or "torch")."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    binding = framework_as_torch(impl) if backend == "framework" else _torch_draws_as_framework()
    out, error, where = io.StringIO(), None, None
    start = time.process_time()
    with (_isolated(path), binding as bound, _one_blas_thread(), contextlib.redirect_stdout(out),
          _time_limit(TIME_LIMIT_S)):
        random.seed(0)
        bound.manual_seed(0)
        try:
            runpy.run_path(str(path), run_name="__main__")
        except Exception as caught:  # the outcome is the report, whatever stopped it
            error = f"{type(caught).__name__}: {caught}".splitlines()[0][:300]
            where = _where(caught, path)
    return Outcome(out.getvalue(), error, where, time.process_time() - start)


# -- PyTorch with the framework's random draws -------------------------------------------------


@contextlib.contextmanager
def _torch_draws_as_framework() -> Iterator:
    """PyTorch, its random functions drawing what the framework draws, from one NumPy stream
    seeded as `framework.manual_seed` seeds it (`torch.manual_seed` restarts it)."""
    import torch
    import torch.nn.functional as F
    import torch.utils.data as data

    load_framework("solutions")
    sample_multinomial = importlib.import_module("framework.provided.math_ops").sample_multinomial

    stream = {"rng": np.random.default_rng(0)}
    torch.set_num_threads(1)  # the framework's NumPy runs on one thread too; the machine is shared

    def rng() -> np.random.Generator:
        return stream["rng"]

    def like(out, values):
        """`values` in the tensor PyTorch's own call made (its shape, dtype, requires_grad)."""
        new = torch.from_numpy(np.asarray(values)).to(out.dtype).reshape(out.shape)
        return new.requires_grad_(out.requires_grad)

    def manual_seed(seed):
        stream["rng"] = np.random.default_rng(int(seed))
        return originals["manual_seed"](seed)

    def drawn(original, draw):
        def function(*args, **kwargs):
            out = original(*args, **kwargs)
            return like(out, draw(tuple(out.shape), args, kwargs))
        return function

    def randint_values(shape, args, kwargs):
        low, high = (0, args[0]) if len(args) < 3 and "high" not in kwargs else (args[0], args[1])
        return rng().integers(low, kwargs.get("high", high), shape)

    def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):  # noqa: A002
        probs = input.detach().double().numpy()
        rows = probs.reshape(-1, probs.shape[-1])
        picks = sample_multinomial(rows, num_samples, replacement, rng())
        return torch.from_numpy(picks.reshape(*probs.shape[:-1], num_samples))

    def uniform_(self, a=0.0, b=1.0, *, generator=None):
        with torch.no_grad():
            return self.copy_(torch.from_numpy(rng().uniform(a, b, tuple(self.shape))))

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        with torch.no_grad():
            return self.copy_(torch.from_numpy(rng().normal(mean, std, tuple(self.shape))))

    def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
        if not training or p == 0:
            return input
        keep = torch.from_numpy(rng().random(tuple(input.shape)) >= p)
        return input * keep / (1 - p)

    def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002
        if not training or p == 0:
            return input
        shape = tuple(input.shape) if input.ndim == 2 else tuple(input.shape[:-2]) + (1, 1)
        return input * torch.from_numpy(rng().random(shape) >= p) / (1 - p)

    def sampler_iter(self):
        yield from rng().permutation(len(self.data_source)).tolist()

    originals = {"manual_seed": torch.manual_seed}
    patches = [
        (torch, "manual_seed", manual_seed),
        (torch, "randn", drawn(torch.randn, lambda s, a, k: rng().standard_normal(s))),
        (torch, "randn_like", drawn(torch.randn_like, lambda s, a, k: rng().standard_normal(s))),
        (torch, "rand", drawn(torch.rand, lambda s, a, k: rng().random(s))),
        (torch, "rand_like", drawn(torch.rand_like, lambda s, a, k: rng().random(s))),
        (torch, "randint", drawn(torch.randint, randint_values)),
        (torch, "randperm", drawn(torch.randperm, lambda s, a, k: rng().permutation(s[0]))),
        (torch, "multinomial", multinomial),
        (torch.Tensor, "uniform_", uniform_),
        (torch.Tensor, "normal_", normal_),
        (F, "dropout", dropout),
        (F, "dropout2d", dropout2d),
        (data.RandomSampler, "__iter__", sampler_iter),
    ]
    saved = [(owner, attr, getattr(owner, attr)) for owner, attr, _ in patches]
    try:
        for owner, attr, value in patches:
            setattr(owner, attr, value)
        yield torch
    finally:
        for owner, attr, value in saved:
            setattr(owner, attr, value)


# -- comparing printed output ------------------------------------------------------------------


def differences(ours: str, theirs: str) -> list[str]:
    """Where the framework's printed output differs from PyTorch's: text other than numbers
    (a graph node, compared only as a node: `grad_fn=<LinearFunctionBackward>` for
    `<AddmmBackward0 object at 0x7f…>`), or a number outside float32 tolerances (RTOL, ATOL).
    Empty when they match."""
    found = []
    a, b = (ADDRESS.sub("", NODE.sub("node", text)).splitlines() for text in (ours, theirs))
    if len(a) != len(b):
        found.append(f"{len(a)} lines printed, PyTorch {len(b)}")
    for i, (x, y) in enumerate(zip(a, b), 1):
        if NUMBER.sub("#", x) != NUMBER.sub("#", y):
            found.append(f"line {i}: {x!r}, PyTorch {y!r}")
            continue
        for u, v in zip(NUMBER.findall(x), NUMBER.findall(y)):
            if not _close(float(u), float(v)):
                found.append(f"line {i}: {u}, PyTorch {v}")
                break
    return found


def _close(p: float, q: float) -> bool:
    return math.isclose(p, q, rel_tol=RTOL, abs_tol=ATOL) or (math.isnan(p) and math.isnan(q))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("framework", "torch"), default="framework")
    parser.add_argument("--compare", action="store_true", help="run on both, compare printed values")
    parser.add_argument("--write-expected", action="store_true", help="record the framework's outcomes")
    parser.add_argument("only", nargs="*", help="program names (default: all)")
    args = parser.parse_args(argv)
    chosen = [p for p in programs() if not args.only or name(p) in args.only]
    ran = matched = 0
    record = expected()
    for path in chosen:
        backend = "framework" if args.compare else args.backend
        outcome = run_program(path, backend)
        ran += outcome.ran
        line = f"{name(path):42} {outcome.seconds:6.1f} s CPU  "
        if not outcome.ran:
            line += f"✗ {outcome.error} ({outcome.where})"
        elif args.compare:
            theirs = run_program(path, "torch")
            found = ([f"PyTorch: {theirs.error}"] if theirs.error
                     else differences(outcome.output, theirs.output))
            matched += not found
            line += "✓ matches PyTorch" if not found else f"✓ ran; differs: {found[0]}"
        else:
            line += "✓ ran to the end"
        print(line, flush=True)
        record[name(path)] = None if outcome.ran else outcome.error[:80]
    print(f"ran to the end: {ran}/{len(chosen)}" + (f"; matched PyTorch: {matched}/{len(chosen)}"
                                                     if args.compare else ""))
    if args.write_expected:
        EXPECTED_FILE.write_text(json.dumps(dict(sorted(record.items())), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
