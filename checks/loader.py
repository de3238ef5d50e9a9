"""Choose the implementation that graders and tools test.

`IMPL` selects it: `framework` (the learner's package, the default), `solutions`
(the reference), or a path to a folder holding a `framework/` package (the mutant
runner's temporary copies).
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def impl_folder(impl: str | None = None) -> Path:
    """The folder that holds the chosen `framework/` package."""
    impl = impl or os.environ.get("IMPL", "framework")
    if impl == "framework":
        return ROOT
    if impl == "solutions":
        return ROOT / "solutions"
    path = Path(impl).resolve()
    if path.name == "framework" and (path / "__init__.py").exists():
        path = path.parent
    if not (path / "framework" / "__init__.py").exists():
        raise SystemExit(
            f"IMPL={impl!r}: no framework/ package in {path}; "
            "use IMPL=framework, IMPL=solutions or a folder holding framework/"
        )
    return path


def load_framework(impl: str | None = None) -> ModuleType:
    """Import `framework` from the chosen folder, first on `sys.path`."""
    folder = str(impl_folder(impl))
    loaded = sys.modules.get("framework")
    if loaded is not None:
        if Path(loaded.__file__).resolve().parent.parent == Path(folder):
            return loaded
        for name in [m for m in sys.modules if m == "framework" or m.startswith("framework.")]:
            del sys.modules[name]
    sys.path.insert(0, folder)
    try:
        return importlib.import_module("framework")
    finally:
        sys.path.remove(folder)
