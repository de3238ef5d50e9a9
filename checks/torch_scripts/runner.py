"""Run a plain PyTorch script on the framework or on PyTorch, unchanged.

A script in this folder is written as PyTorch code (`import torch`, `import torch.nn as nn`,
`from torch.utils.data import DataLoader`, ...) and defines `run() -> dict`: the numbers it
computed, which the parity tests compare between the two backends. It asserts what it can
know on its own (closed forms, float64 NumPy) inside `run()`, on either backend.

A script named `loud_*.py` shows a remaining difference: it also defines `DIFFERENCE`, a
regular expression. On PyTorch its `run()` succeeds; on the framework it must raise an
error whose message matches `DIFFERENCE`.

On the framework backend, `torch` and its submodules are the framework's modules of the
same names, installed in `sys.modules` only while the script runs.

    python -m checks.torch_scripts.runner                # every script on the reference
    python -m checks.torch_scripts.runner --backend torch
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import re
import runpy
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from checks.loader import load_framework

FOLDER = Path(__file__).resolve().parent

#: torch's module name -> the framework's, relative to the package.
MODULES = {
    "torch": "",
    "torch.nn": ".nn",
    "torch.nn.functional": ".nn.functional",
    "torch.nn.init": ".nn.init",
    "torch.nn.utils": ".nn.utils",
    "torch.optim": ".optim",
    "torch.optim.lr_scheduler": ".optim.lr_scheduler",
    "torch.autograd": ".autograd",
    "torch.utils": ".utils",
    "torch.utils.data": ".utils.data",
}


def scripts() -> list[Path]:
    """Every script of the suite, in name order."""
    return sorted(p for p in FOLDER.glob("*.py") if p.name not in ("__init__.py", "runner.py"))


def difference(path: Path) -> str | None:
    """The DIFFERENCE pattern of a loud_*.py script (read without running it), else None."""
    if not path.name.startswith("loud_"):
        return None
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["DIFFERENCE"]:
            return ast.literal_eval(node.value)
    raise ValueError(f"{path.name}: a loud_*.py script defines DIFFERENCE, the error it expects")


@contextlib.contextmanager
def framework_as_torch(impl: str = "solutions") -> Iterator[ModuleType]:
    """`import torch` (and its submodules) gives the framework's modules inside the block."""
    framework = load_framework(impl)
    saved = {name: sys.modules.get(name) for name in MODULES}
    try:
        for torch_name, relative in MODULES.items():
            try:
                module = importlib.import_module(f"framework{relative}") if relative else framework
            except ImportError:
                sys.modules.pop(torch_name, None)  # the script's import then fails, loudly
                continue
            sys.modules[torch_name] = module
        yield framework
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def run_script(path: Path, backend: str = "framework", impl: str = "solutions") -> dict:
    """Execute `path` on `backend` ("framework" or "torch") and return what its `run()` returns."""
    if backend == "torch":
        return runpy.run_path(str(path))["run"]()
    with framework_as_torch(impl):
        return runpy.run_path(str(path))["run"]()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("framework", "torch"), default="framework")
    args = parser.parse_args(argv)
    failed = 0
    for path in scripts():
        expected = difference(path) if args.backend == "framework" else None
        try:
            run_script(path, args.backend)
            if expected:
                failed += 1
                print(f"✗ {path.name}: ran, but should fail with {expected!r}")
            else:
                print(f"✓ {path.name}")
        except Exception as error:  # a report of every script, not the first failure
            if expected and re.search(expected, str(error)):
                print(f"✓ {path.name} (fails as it should: {type(error).__name__})")
                continue
            failed += 1
            print(f"✗ {path.name}: {type(error).__name__}: {error}")
    print(f"{len(scripts()) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
