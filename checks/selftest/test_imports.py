"""The package's imports: no module takes names from a package that is still initialising.

A cycle such as nn/__init__.py importing nn/transformer.py, which imports names back from
nn/__init__.py, works only while the names it takes happen to be defined above the import
line; so each module imports its neighbours (`from .modules import Linear`), never the
package. Each module is imported first, in a fresh interpreter, with `__import__` watched: a
`from package import name` where the package is still running its `__init__` and `name`
is not a submodule is such a cycle.
"""

import subprocess
import sys

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
assert framework.save is framework.nn.modules.save
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
