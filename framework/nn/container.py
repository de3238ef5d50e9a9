"""Provided: `ModuleDict`, a dict of modules registered under their keys (PyTorch's
torch/nn/modules/container.py; `Sequential` and `ModuleList` are chapter 3's, in modules.py)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from .modules import Module


class ModuleDict(Module):
    """Modules by name, registered (so their parameters are the dict's); no forward of its own."""

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        self.update(modules or {})

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        setattr(self, key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def update(self, modules) -> None:
        pairs = modules.items() if isinstance(modules, Mapping) else modules
        for key, module in pairs:
            self[key] = module
