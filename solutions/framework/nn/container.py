"""Provided: `ModuleDict`, a dict of modules registered under their keys, and
`ParameterList`/`ParameterDict`, parameters in a list or by key (PyTorch's
torch/nn/modules/container.py; `Sequential` and `ModuleList` are chapter 3's, in modules.py)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from .modules import Module, Parameter


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


class ParameterList(Module):
    """Parameters in a list, registered under "0", "1", ... (so they are the module's)."""

    def __init__(self, values=None) -> None:
        super().__init__()
        self.extend(values or [])

    def __getitem__(self, index: int) -> Parameter:
        return list(self._parameters.values())[index]

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Parameter]:
        return iter(list(self._parameters.values()))

    def append(self, value) -> ParameterList:
        setattr(self, str(len(self)), value if isinstance(value, Parameter) else Parameter(value))
        return self

    def extend(self, values) -> ParameterList:
        for value in values:
            self.append(value)
        return self


class ParameterDict(Module):
    """Parameters by name, registered under their keys."""

    def __init__(self, parameters: Mapping | None = None) -> None:
        super().__init__()
        self.update(parameters or {})

    def __getitem__(self, key: str) -> Parameter:
        return self._parameters[key]

    def __setitem__(self, key: str, value) -> None:
        setattr(self, key, value if isinstance(value, Parameter) else Parameter(value))

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parameters)

    def __contains__(self, key: str) -> bool:
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def values(self):
        return self._parameters.values()

    def items(self):
        return self._parameters.items()

    def update(self, parameters) -> None:
        pairs = parameters.items() if isinstance(parameters, Mapping) else parameters
        for key, value in pairs:
            self[key] = value
