"""A package whose submodules and names load on first use (PEP 562's module `__getattr__`).

`import framework` runs no chapter's file: `framework.Tensor` imports tensor.py when it is
first read. So a file that does not import yet (chapter 4's optim.py half written) breaks
only what uses it, and chapter 1's `framework.Value` still works. `keep_old_paths` keeps the
module paths of files that moved (`framework.viz` is `framework.provided.viz`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType

from .loud import missing


class _Package(ModuleType):
    """A package module; a name it exports is never replaced by a submodule of that name.

    Importing a submodule sets it as an attribute of its package: importing tensor.py would
    otherwise turn `framework.tensor`, the factory function, into the module tensor.py.
    """

    _exported: frozenset[str] = frozenset()

    def __setattr__(self, name: str, value: object) -> None:
        if not (name in self._exported and isinstance(value, ModuleType)):
            super().__setattr__(name, value)


def attach(
    package: str, names: dict[str, list[str]], submodules: list[str],
    aliases: dict[str, str] | None = None, unlisted: dict[str, list[str]] | None = None,
) -> tuple[list[str], Callable[[str], object], Callable[[], list[str]]]:
    """`__all__`, `__getattr__` and `__dir__` for `package`.

    `names` maps a submodule to the names it exports, `submodules` are exported themselves,
    `aliases` maps another name to a submodule (`F` for `functional`); `unlisted` maps a
    submodule to names that are attributes but not in `__all__` (a builtin's name, which
    `import *` must not shadow). Any other submodule is still reachable as an attribute, as
    with a package that imports it.
    """
    aliases = aliases or {}
    home = {name: module for table in (names, unlisted or {})
            for module, exported in table.items() for name in exported}
    module = sys.modules[package]
    module.__class__ = _Package
    module._exported = frozenset(home)

    def __getattr__(name: str) -> object:
        if name in home:
            value = getattr(importlib.import_module(f"{package}.{home[name]}"), name)
        else:
            try:
                value = importlib.import_module(f"{package}.{aliases.get(name, name)}")
            except ModuleNotFoundError as error:
                if error.name != f"{package}.{aliases.get(name, name)}":
                    raise  # a module that the submodule imports is missing, not the submodule
                raise missing(package, name) from None
        vars(module)[name] = value  # read once: the next read finds it as a plain attribute
        return value

    public = sorted([*(n for exported in names.values() for n in exported), *submodules, *aliases])

    def __dir__() -> list[str]:
        return sorted(set(vars(module)) | set(public) | set(home))

    return public, __getattr__, __dir__


class _OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`import framework.viz` gives the module `framework.provided.viz` itself, not a copy:
    one module object, so its classes stay the same classes under both names."""

    def __init__(self, package: str, moved: dict[str, str]) -> None:
        self.package = package
        self.moved = {f"{package}.{old}": f"{package}.{new}" for old, new in moved.items()}
        self.own_specs: dict = {}

    def find_spec(self, fullname: str, path=None, target=None):
        if fullname not in self.moved:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec) -> ModuleType:
        module = importlib.import_module(self.moved[spec.name])
        self.own_specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run (`create_module` loaded the module under its own path), but the
        import system has just given it the old path's spec: give it its own back."""
        module.__spec__ = self.own_specs.pop(module.__spec__.name)


def keep_old_paths(package: str, moved: dict[str, str]) -> None:
    """Let `import package.old` (and `from package.old import x`) load `package.new`, for each
    `old: new` of `moved`. It answers for those names only; a package loaded again (the
    graders load the learner's or the reference copy) replaces its own earlier finder."""
    sys.meta_path[:] = [finder for finder in sys.meta_path
                        if getattr(finder, "package", None) != package
                        or type(finder).__name__ != _OldPaths.__name__]
    sys.meta_path.insert(0, _OldPaths(package, moved))
