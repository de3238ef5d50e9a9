"""The package's imports: no module takes names from a package that is still initialising.

A cycle such as nn/__init__.py importing nn/transformer.py, which imports names back from
nn/__init__.py, works only while the names it takes happen to be defined above the import
line; so each module imports its neighbours (`from .modules import Linear`), never the
package. Each module is imported first, in a fresh interpreter, with `__import__` watched: a
`from package import name` where the package is still running its `__init__` and `name`
is not a submodule is such a cycle.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from checks.loader import impl_folder

FOLDER = impl_folder("solutions")
MODULES = sorted(
    ".".join(path.relative_to(FOLDER).with_suffix("").parts).removesuffix(".__init__")
    for path in (FOLDER / "framework").rglob("*.py")
)

WATCH = '''
import builtins, importlib, sys

real_import, found = builtins.__import__, []


def watched(name, globals=None, locals=None, fromlist=(), level=0):
    module = real_import(name, globals, locals, fromlist, level)
    importer = (globals or {}).get("__name__", "")
    running = getattr(getattr(module, "__spec__", None), "_initializing", False)
    if fromlist and importer.startswith("framework") and hasattr(module, "__path__") and running:
        found.extend(f"{importer}: from {module.__name__} import {item}" for item in fromlist
                     if f"{module.__name__}.{item}" not in sys.modules)
    return module


builtins.__import__ = watched
sys.path.insert(0, sys.argv[1])
importlib.import_module(sys.argv[2])
print("\\n".join(found))
'''


def names_taken_from_initialising_packages(module: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", WATCH, str(FOLDER), module],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"importing {module} first failed:\n{done.stderr}"
    return done.stdout.strip().splitlines()


def test_every_module_of_the_package_is_found():
    assert {"framework", "framework.nn", "framework.nn.transformer", "framework.optim"} <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_no_module_takes_names_from_a_package_still_initialising(module):
    cycles = names_taken_from_initialising_packages(module)
    assert not cycles, f"importing {module} first: " + "; ".join(cycles)


def test_chapter_5_layers_are_reachable_from_nn():
    """nn.Transformer is nn/transformer.py's own class, as nn.Linear is nn/modules.py's."""
    code = ("import framework.nn as nn; from framework.nn import LayerNorm; "
            "assert nn.Transformer is nn.transformer.Transformer and LayerNorm is nn.LayerNorm; "
            "assert nn.Linear is nn.modules.Linear and nn.Conv2d is nn.modules.Conv2d")
    done = subprocess.run([sys.executable, "-c", code], cwd=FOLDER, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr


def test_an_op_applied_first_in_a_fresh_interpreter_returns_a_tensor_of_its_inputs_kind():
    """A fresh kernel's first line may be `from framework.ops import Add`: function.py knows no
    tensor class (tensor.py comes after the ops and imports them), so `apply` builds its result
    with its first tensor input's `_make`; with no tensor among the inputs, forward's array."""
    code = ("import numpy as np; from framework.ops import Add; "
            "assert type(Add.apply(np.ones(2), np.ones(2))) is np.ndarray; "
            "from framework.tensor import Tensor; from framework.nn.modules import Parameter; "
            "y = Add.apply(Parameter(np.ones(2, np.float32)), Tensor(np.ones(2, np.float32))); "
            "assert type(y) is Tensor and y.requires_grad, type(y)")
    done = subprocess.run([sys.executable, "-c", code], cwd=FOLDER, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr


PACKAGE_AS_BEFORE = """
import framework
import framework.nn.modules  # loads tensor.py first, by another route than framework.tensor
assert callable(framework.tensor), "framework.tensor is the factory, not the module tensor.py"
assert framework.tensor is framework.tensor.__globals__["tensor"]
for name in framework.__all__:
    assert getattr(framework, name) is not None, name
for name in framework.nn.__all__:
    assert getattr(framework.nn, name) is not None, name
assert set(framework.__all__) <= set(dir(framework))
assert set(framework.nn.__all__) <= set(dir(framework.nn))
assert framework.nn.F is framework.nn.functional
assert framework.save is framework.nn.serialization.save
namespace = {}
exec("from framework import *; from framework.nn import *", namespace)
assert {"Tensor", "Linear", "optim", "nn"} <= set(namespace)
try:
    framework.no_such_name
except AttributeError as error:
    assert "no_such_name" in str(error)
"""


def test_every_public_name_of_the_package_is_there_as_before():
    done = subprocess.run([sys.executable, "-c", PACKAGE_AS_BEFORE], cwd=FOLDER,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


# -- no import cycles, read from the source: checks/ and the package ---------------------------------

REPOSITORY = FOLDER.parent if FOLDER.name == "solutions" else FOLDER


def source_modules() -> dict[str, tuple[Path, bool]]:
    """Every module of checks/ and of the reference package: its file, and whether a package."""
    found = {}
    for base, package in ((REPOSITORY, "checks"), (REPOSITORY / "solutions", "framework")):
        for path in (base / package).rglob("*.py"):
            parts = path.relative_to(base).with_suffix("").parts
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def imported_modules(name: str, path: Path, is_package: bool, known) -> set[str]:
    """The modules of `known` that `name` imports anywhere in its file, inside functions and
    under `if TYPE_CHECKING:` too (a name imported for annotations is still a dependency a
    reader follows): `from package import name` counts as the submodule where there is one,
    else the package."""
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                target = ".".join(parts[:len(parts) - node.level + 1] + [node.module or ""]).strip(".")
            else:
                target = node.module
            for alias in node.names:
                if f"{target}.{alias.name}" in known:
                    found.add(f"{target}.{alias.name}")
                elif target in known:
                    found.add(target)
    return found - {name}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles of `graph`, one per strongly connected set of modules (Tarjan), each as a path
    that ends where it starts."""
    index, low, stack, on_stack, cycles = {}, {}, [], set(), []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph[module]):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:  # module heads a strongly connected set: pop it
            members = set()
            while module not in members:
                members.add(stack.pop())
            on_stack.difference_update(members)
            if len(members) > 1:
                cycles.append(path_through(graph, sorted(members)[0], members))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return cycles


def path_through(graph: dict[str, set[str]], start: str, members: set[str]) -> list[str]:
    """A shortest path from `start` back to itself inside `members` (breadth first)."""
    paths = {m: [start, m] for m in graph[start] & members}
    while start not in paths:
        paths = {nxt: path + [nxt] for m, path in paths.items()
                 for nxt in sorted(graph[m] & members) if nxt not in paths}
    return paths[start]


SOURCES = source_modules()
GRAPH = {name: imported_modules(name, path, is_package, SOURCES)
         for name, (path, is_package) in SOURCES.items()}


def test_the_import_graph_covers_checks_and_the_package():
    assert {"checks.tools.proof", "checks.benchmarks.floors", "framework.tensor",
            "framework.nn.functional"} <= set(GRAPH)
    assert "framework.tensor" in GRAPH["framework.nn.functional"]
    assert "checks.tools.registered" in GRAPH["checks.tools.processes"]


def test_an_import_inside_a_function_counts(tmp_path):
    (tmp_path / "a.py").write_text("def later():\n    from .b import x\n")
    known = {"p.a": (tmp_path / "a.py", False), "p.b": (tmp_path / "b.py", False)}
    assert imported_modules("p.a", tmp_path / "a.py", False, known) == {"p.b"}


def test_an_import_for_annotations_only_counts(tmp_path):
    (tmp_path / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                   "    from .b import x\nfrom .c import y\n")
    known = {name: (tmp_path / f"{name[2:]}.py", False) for name in ("p.a", "p.b", "p.c")}
    assert imported_modules("p.a", tmp_path / "a.py", False, known) == {"p.b", "p.c"}


def test_a_cycle_is_found_and_shown_as_a_path():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert import_cycles(graph) == [["a", "b", "c", "a"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_checks_or_the_package_is_part_of_an_import_cycle():
    cycles = import_cycles(GRAPH)
    assert not cycles, "import cycles: " + "; ".join(" → ".join(cycle) for cycle in cycles)
