"""A package whose submodules and names load on first use (PEP 562's module `__getattr__`).

`import framework` runs no chapter's file: `framework.Tensor` imports tensor.py when it is
first read. So a file that does not import yet (chapter 4's optim.py half written) breaks
only what uses it, and chapter 1's `framework.Value` still works.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from types import ModuleType


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
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        vars(module)[name] = value  # read once: the next read finds it as a plain attribute
        return value

    public = sorted([*(n for exported in names.values() for n in exported), *submodules, *aliases])

    def __dir__() -> list[str]:
        return sorted(set(vars(module)) | set(public) | set(home))

    return public, __getattr__, __dir__
