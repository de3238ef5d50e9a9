"""Chapter 3: layers. `Parameter`, `Module` and the first modules, as in `torch.nn.modules`;
chapter 6 adds its image layers at the end (`Conv2d`, exercise 6.7, and the pooling layers).

A `Module` holds `Parameter`s and other modules as attributes; assigning one
registers it, so `parameters()` can find every weight of a network by walking
the tree. Layers compute with the fused ops of `nn.functional`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import numpy as np

from ..function import unwrap
from ..provided.device import check_device
from ..provided.generator import default_generator
from ..provided.printing import module_repr
from ..provided.tensor_methods import _is_dtype
from ..tensor import Tensor
from . import functional as F
from . import init


class Parameter(Tensor):
    """A tensor that is a learnable weight: it requires grad, and a Module registers it."""

    __slots__ = ()

    def __init__(self, data, requires_grad: bool = True) -> None:
        super().__init__(data)
        if not np.issubdtype(self.data.dtype, np.floating):
            raise TypeError(
                f"Parameter: a parameter must be floating, this one is {self.data.dtype}; "
                "pass float data (e.g. np.float32)"
            )
        self.requires_grad = requires_grad

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class IncompatibleKeys(NamedTuple):
    missing_keys: list[str]
    unexpected_keys: list[str]


class Module:
    """Base class of every layer and network: subclass, call `super().__init__()`, define forward.

    >>> class Affine(Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.scale = Parameter(np.ones(3, dtype=np.float32))
    ...     def forward(self, x):
    ...         return x * self.scale
    >>> [name for name, _ in Affine().named_parameters()]
    ['scale']
    """

    def __init__(self) -> None:
        # object.__setattr__: these dicts must exist before our __setattr__ can use them
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "training", True)

    # -- exercise 3.1: registration -----------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        """`self.name = value`; a Parameter goes into `_parameters`, a Module into `_modules`.

        Reassigning a name to something else unregisters what it held before.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}: cannot assign {name!r} before Module.__init__(); "
                "call super().__init__() first in your __init__"
            )
        ### BEGIN SOLUTION 3.1
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        ### END SOLUTION
        object.__setattr__(self, name, value)

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, Parameter]]:
        """(dotted name, parameter) for this module's parameters, then its submodules', in order
        of assignment: "weight", "0.bias", "encoder.layers.1.weight". A parameter shared by
        two modules comes once, under its first name.
        """
        ### BEGIN SOLUTION 3.1
        seen: set[int] = set()

        def walk(module: Module, path: str) -> Iterator[tuple[str, Parameter]]:
            for name, parameter in module._parameters.items():
                if id(parameter) not in seen:
                    seen.add(id(parameter))
                    yield path + name, parameter
            for name, child in module._modules.items():
                yield from walk(child, f"{path}{name}.")

        yield from walk(self, f"{prefix}." if prefix else "")
        ### END SOLUTION

    def parameters(self) -> Iterator[Parameter]:
        """Every parameter of the tree, each once: what an optimizer updates."""
        ### BEGIN SOLUTION 3.1
        for _, parameter in self.named_parameters():
            yield parameter
        ### END SOLUTION

    # -- the rest of the tree (provided) --------------------------------------------------------

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._modules, self._buffers):
            table.pop(name, None)
        object.__delattr__(self, name)

    def register_buffer(self, name: str, value: np.ndarray | None) -> None:
        """A state array that is not learned (a running mean, a mask): saved, cast by `to`."""
        self._buffers[name] = None if value is None else np.asarray(value)
        object.__setattr__(self, name, self._buffers[name])

    def named_buffers(self, prefix: str = "") -> Iterator[tuple[str, np.ndarray]]:
        for path, module in self.named_modules(prefix):
            for name, buffer in module._buffers.items():
                if buffer is not None:
                    yield (f"{path}.{name}" if path else name), buffer

    def buffers(self) -> Iterator[np.ndarray]:
        return (buffer for _, buffer in self.named_buffers())

    def named_children(self) -> Iterator[tuple[str, Module]]:
        return iter(self._modules.items())

    def children(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        """(dotted name, module) for this module ("" or prefix) and every descendant."""
        yield prefix, self
        for name, child in self._modules.items():
            yield from child.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator[Module]:
        return (module for _, module in self.named_modules())

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call fn on every submodule, then on self (as PyTorch: e.g. a custom init)."""
        for child in self._modules.values():
            child.apply(fn)
        fn(self)
        return self

    # -- using a module ---------------------------------------------------------------------------

    def forward(self, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} has no forward(); a Module subclass defines one")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients of every parameter (they accumulate across backward calls):
        None, or zeros with `set_to_none=False`, as PyTorch's."""
        for parameter in self.parameters():
            if not set_to_none and parameter.grad is not None:
                parameter.grad = np.zeros_like(parameter.grad)
                continue
            parameter.grad = None

    def train(self, mode: bool = True) -> Module:
        """Set `training` on this module and all its descendants (dropout, batch norm read it)."""
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def to(self, *args, dtype=None, device=None, non_blocking: bool = False) -> Module:
        """Cast every parameter (and floating buffer) to a floating dtype, in place; returns self.

        As PyTorch's: `to(dtype)`, `to(device)`, `to(device, dtype)`, `to(tensor)`; the only
        device is the CPU, where everything already is.
        """
        for arg in args:
            if isinstance(arg, Tensor):
                dtype = arg.dtype
            elif _is_dtype(arg):
                dtype = arg
            else:
                device = arg
        if device is not None:
            check_device("Module.to", device)
        if dtype is None:
            return self
        if not np.issubdtype(dtype, np.floating):
            raise TypeError(f"Module.to: parameters must stay floating, got {np.dtype(dtype)}; "
                            "pass float32 or float64")
        for parameter in self.parameters():
            parameter.data = parameter.data.astype(dtype, copy=False)
            if parameter.grad is not None:
                parameter.grad = parameter.grad.astype(dtype, copy=False)
        for module in self.modules():
            for name, buffer in module._buffers.items():
                if buffer is not None and np.issubdtype(buffer.dtype, np.floating):
                    module.register_buffer(name, buffer.astype(dtype, copy=False))
        return self

    def cpu(self) -> Module:
        """The module itself: it is on the CPU, the framework's only device."""
        return self

    def cuda(self, device=None) -> Module:
        check_device("Module.cuda", "cuda")
        return self

    # -- saving and loading ---------------------------------------------------------------------

    def state_dict(self) -> dict[str, np.ndarray]:
        """Dotted name → a copy of every parameter's and buffer's array."""
        state = {name: p.data.copy() for name, p in self.named_parameters()}
        state.update((name, b.copy()) for name, b in self.named_buffers())
        return state

    def load_state_dict(self, state: dict, strict: bool = True) -> IncompatibleKeys:
        """Copy arrays into the parameters and buffers in place (keeping each one's dtype).

        strict: a key missing from the state, or one the model lacks, is an error. A shape
        mismatch, or an array that is not real numbers castable to its target's dtype
        (strings, objects, complex, floats into an integer buffer), is always an error.
        Everything is checked before anything is copied: a failed load changes nothing.
        A module whose names differ from PyTorch's translates PyTorch's (`translate_state`).
        """
        for path, module in self.named_modules():
            state = module.translate_state(f"{path}." if path else "", state)
        targets = {name: p.data for name, p in self.named_parameters()}
        targets.update(self.named_buffers())
        missing = [name for name in targets if name not in state]
        unexpected = [name for name in state if name not in targets]
        problems = []
        if strict and missing:
            problems.append(f"missing keys {missing}")
        if strict and unexpected:
            problems.append(f"unexpected keys {unexpected}")
        arrays = {name: np.asarray(unwrap(state[name])) for name in targets if name in state}
        for name, array in arrays.items():  # in the model's order
            problems += _load_problems(name, array, targets[name])
        if problems:
            raise RuntimeError(
                f"load_state_dict into {type(self).__name__}: " + "; ".join(problems)
                + "; nothing was loaded (compare model.state_dict() with the saved names, "
                "shapes and dtypes)"
            )
        for name, array in arrays.items():
            targets[name][...] = array
        return IncompatibleKeys(missing, unexpected)

    def translate_state(self, prefix: str, state: dict) -> dict:
        """The state with PyTorch's names for this module's entries (under `prefix`) turned into
        this module's own; as it is here, where the names are the same.
        """
        return state

    # -- printing -----------------------------------------------------------------------------------

    def extra_repr(self) -> str:
        """The arguments shown between the parentheses of this module's repr."""
        return ""

    def __repr__(self) -> str:
        return module_repr(type(self).__name__, self.extra_repr(), self._modules.items())


def _load_problems(name: str, array: np.ndarray, target: np.ndarray) -> list[str]:
    """What keeps `array` from being copied into `target`, in words (empty if nothing)."""
    if array.dtype.kind not in "biuf":  # bool, signed, unsigned, floating
        return [f"{name!r} holds {array.dtype} values, not real numbers"]
    problems = []
    if array.shape != target.shape:
        problems.append(f"{name!r} has shape {array.shape} in the state dict but "
                        f"{target.shape} in the model")
    if not np.can_cast(array.dtype, target.dtype, casting="same_kind"):
        problems.append(f"{name!r} is {array.dtype} in the state dict but {target.dtype} in "
                        "the model, and cannot be cast to it")
    return problems


# -- containers -----------------------------------------------------------------------------------


class ModuleList(Module):
    """A list of modules, registered as "0", "1", …; it has no forward of its own."""

    def __init__(self, modules: Iterable[Module] = ()) -> None:
        super().__init__()
        self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        setattr(self, str(len(self._modules)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        for module in modules:
            self.append(module)
        return self

    def __getitem__(self, index: int | slice):
        items = list(self._modules.values())
        if isinstance(index, slice):
            return ModuleList(items[index])
        return items[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())


class Sequential(Module):
    """Modules applied one after the other: Sequential(a, b, c)(x) = c(b(a(x)))."""

    def __init__(self, *modules: Module) -> None:
        super().__init__()
        ### BEGIN SOLUTION 3.7
        for index, module in enumerate(modules):
            setattr(self, str(index), module)
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION 3.7
        for module in self._modules.values():
            x = module(x)
        return x
        ### END SOLUTION

    def __getitem__(self, index: int | slice):
        items = list(self._modules.values())
        return Sequential(*items[index]) if isinstance(index, slice) else items[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())


# -- layers -----------------------------------------------------------------------------------------


class Linear(Module):
    """y = x Wᵀ + b, for x of shape (..., in_features); W is (out_features, in_features).

    Weight and bias start as U(-1/√in, 1/√in), PyTorch's default.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 dtype=np.float32) -> None:
        super().__init__()
        ### BEGIN SOLUTION 3.2
        bound = 1 / math.sqrt(in_features)
        rng = default_generator()
        weight = rng.uniform(-bound, bound, (out_features, in_features))
        self.weight = Parameter(weight.astype(dtype))
        self.bias = Parameter(rng.uniform(-bound, bound, out_features).astype(dtype)) if bias else None
        ### END SOLUTION
        self.in_features, self.out_features = in_features, out_features

    def forward(self, x: Tensor) -> Tensor:
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class ReLU(Module):
    """max(x, 0), elementwise; `inplace=True` writes it into x (x.relu_()), as PyTorch's."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, x: Tensor) -> Tensor:
        return F.relu(x, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """1 / (1 + e⁻ˣ), elementwise."""

    def forward(self, x: Tensor) -> Tensor:
        return F.sigmoid(x)


class Tanh(Module):
    """tanh x, elementwise."""

    def forward(self, x: Tensor) -> Tensor:
        return F.tanh(x)


class GELU(Module):
    """x · Φ(x) in its tanh form (GPT-2's), elementwise."""

    def forward(self, x: Tensor) -> Tensor:
        return F.gelu(x)


# -- chapter 6: images ----------------------------------------------------------------------------


class Conv2d(Module):
    """y = conv2d(x, W, b) for x (N, in_channels, H, W); W is (out_channels, in_channels, kH, kW).

    Weight and bias start as U(-1/√fan_in, 1/√fan_in), fan_in = in_channels · kH · kW:
    PyTorch's default, kaiming_uniform_ with a = √5.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 bias: bool = True, dtype=np.float32) -> None:
        super().__init__()
        from .conv import pair  # here, not at the top: chapter 3's layers do not need conv.py

        kernel = pair(kernel_size, "kernel_size", "Conv2d")
        ### BEGIN SOLUTION 6.7
        weight = Parameter(np.zeros((out_channels, in_channels) + kernel, dtype=dtype))
        self.weight = init.kaiming_uniform_(weight, a=math.sqrt(5))
        bound = 1 / math.sqrt(in_channels * kernel[0] * kernel[1])
        self.bias = (Parameter(default_generator().uniform(-bound, bound, out_channels).astype(dtype))
                     if bias else None)
        ### END SOLUTION
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel
        self.stride, self.padding = pair(stride, "stride", "Conv2d"), pair(padding, "padding", "Conv2d")

    def forward(self, x: Tensor) -> Tensor:
        ### BEGIN SOLUTION 6.7
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding)
        ### END SOLUTION

    def extra_repr(self) -> str:
        """As PyTorch's: padding and bias shown only where they differ from the defaults."""
        padding = f", padding={self.padding}" if any(self.padding) else ""
        bias = ", bias=False" if self.bias is None else ""
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}{padding}{bias}")


class _Pool2d(Module):
    """What the pooling layers share: a kernel_size window, windows `stride` apart (default:
    side by side), and no parameters; each subclass says what it takes of a window."""

    def __init__(self, kernel_size, stride=None) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride

    def extra_repr(self) -> str:  # PyTorch's, with the only padding supported here
        return f"kernel_size={self.kernel_size}, stride={self.stride or self.kernel_size}, padding=0"


class MaxPool2d(_Pool2d):
    """The maximum of each kernel_size window, windows `stride` apart (default: side by side)."""

    def forward(self, x: Tensor) -> Tensor:
        return F.max_pool2d(x, self.kernel_size, self.stride)

    def extra_repr(self) -> str:
        return super().extra_repr() + ", dilation=1, ceil_mode=False"


class AvgPool2d(_Pool2d):
    """The mean of each kernel_size window, windows `stride` apart (default: side by side)."""

    def forward(self, x: Tensor) -> Tensor:
        return F.avg_pool2d(x, self.kernel_size, self.stride)


class Flatten(Module):
    """(N, d1, d2, ...) → (N, d1·d2·...): axes start_dim to end_dim folded into one."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Tensor) -> Tensor:
        start, end = self.start_dim % x.ndim, self.end_dim % x.ndim
        return x.reshape(x.shape[:start] + (-1,) + x.shape[end + 1:])

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
