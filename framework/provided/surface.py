"""PyTorch's top-level names for tensors: dtypes, factories, a device, functions (provided).

So that `import framework as torch` runs the lines of PyTorch's tutorials: `torch.arange`,
`torch.full`, `torch.zeros_like`, `torch.rand`, `torch.from_numpy`, `torch.triu`,
`torch.float32`, `torch.sum(x, dim=1)`, ... Each builds on `Tensor` and its ops
(chapter 2); nothing here is an exercise. Defaults follow PyTorch: floating results are
float32, integer ones int64. The framework runs on NumPy, on the CPU only: asking for
another device raises an error that says so.
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Sequence

import numpy as np

from ..function import unwrap
from ..ops import MatMul, Maximum, Where
from ..shape_ops import Concatenate, Stack
from ..tensor import Tensor, _shape_args
from .device import check_device, device
from .dims import accepts_dim
from .generator import default_generator

# -- dtypes: NumPy's, under PyTorch's names (x.dtype == torch.float32 holds) -----------------

float16 = half = np.float16
float32 = float = np.float32  # noqa: A001 (PyTorch's name)
float64 = double = np.float64
int8, uint8, int16 = np.int8, np.uint8, np.int16
int32 = int = np.int32  # noqa: A001
int64 = long = np.int64
bool = np.bool_  # noqa: A001


def _default_dtype(value):
    """PyTorch's dtype for a Python number: bool, int64, or float32."""
    if isinstance(value, (builtins.bool, np.bool_)):
        return np.bool_
    if isinstance(value, (builtins.int, np.integer)):
        return np.int64
    return np.float32


def _new(values: np.ndarray, dtype, requires_grad: builtins.bool) -> Tensor:
    return Tensor(values if dtype is None else values.astype(dtype), requires_grad=requires_grad)


def _on_the_cpu(factory):
    """`factory` accepting PyTorch's `device=` (and `pin_memory=`, which changes nothing here):
    the CPU is accepted, any other device is an error that names the factory."""
    @functools.wraps(factory)
    def with_device(*args, device=None, pin_memory: builtins.bool = False, **kwargs):
        if device is not None:
            check_device(factory.__name__, device)
        return factory(*args, **kwargs)

    return with_device


# -- tensors from data or from nothing, and the ops as functions --------------------------------


@_on_the_cpu
def tensor(data, requires_grad: bool = False, dtype=None) -> Tensor:
    """A new tensor holding a copy of `data` (as `torch.tensor`; `from_numpy` shares memory)."""
    data = unwrap(data)
    if isinstance(data, np.ndarray):
        data = data.copy()
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)


def _tensor_result(out) -> Tensor:
    """An op's result as a tensor: `Function.apply` returns forward's array when no input is a
    tensor (`torch.where(mask, 0.0, 1.0)`: the mask is unwrapped), where PyTorch's function
    still returns a tensor."""
    return out if isinstance(out, Tensor) else Tensor._make(out)


def maximum(a, b) -> Tensor:
    return _tensor_result(Maximum.apply(a, b))


def minimum(a, b) -> Tensor:
    return _tensor_result(-Maximum.apply(-a, -b))


def where(condition, a, b) -> Tensor:
    condition = unwrap(condition)
    return _tensor_result(Where.apply(condition, a, b))


@accepts_dim
def concatenate(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """The tensors joined along an existing axis (PyTorch's `cat`)."""
    return _tensor_result(Concatenate.apply(*tensors, axis=axis))


cat = concatenate


@accepts_dim
def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    return _tensor_result(Stack.apply(*tensors, axis=axis))


def matmul(input, other) -> Tensor:  # noqa: A002 (PyTorch's names)
    return _tensor_result(MatMul.apply(input, other))


@_on_the_cpu
def zeros(*shape, dtype=None, requires_grad: bool = False) -> Tensor:
    """Zeros of `shape` (`zeros(2, 3)` or `zeros((2, 3))`), float32 unless `dtype` says otherwise."""
    return Tensor(np.zeros(_shape_args(shape), dtype=_float32_default(dtype)), requires_grad=requires_grad)


@_on_the_cpu
def ones(*shape, dtype=None, requires_grad: bool = False) -> Tensor:
    """Ones of `shape`, float32 unless `dtype` says otherwise."""
    return Tensor(np.ones(_shape_args(shape), dtype=_float32_default(dtype)), requires_grad=requires_grad)


@_on_the_cpu
def randn(*shape, dtype=None, requires_grad: bool = False) -> Tensor:
    """Standard normal values from the shared generator (`framework.manual_seed`), float32
    unless `dtype` says otherwise."""
    values = default_generator().standard_normal(_shape_args(shape)).astype(_float32_default(dtype))
    return Tensor(values, requires_grad=requires_grad)


def _float32_default(dtype):
    """PyTorch's default dtype for floating factories: float32 when none (or None) is given."""
    return np.float32 if dtype is None else dtype


# -- the device: the CPU only ------------------------------------------------------------------


class cuda:
    """`torch.cuda.is_available()` is False: there is no GPU backend."""

    @staticmethod
    def is_available() -> builtins.bool:
        return False

    @staticmethod
    def device_count() -> builtins.int:
        return 0

    @staticmethod
    def manual_seed(seed: builtins.int) -> None:
        """Nothing to seed: no GPU (PyTorch's does nothing without one either)."""

    manual_seed_all = manual_seed


class accelerator:
    """`torch.accelerator`: none is available, as PyTorch answers on a machine without one."""

    @staticmethod
    def is_available() -> builtins.bool:
        return False

    @staticmethod
    def current_accelerator(check_available: builtins.bool = False) -> None:
        return None

    @staticmethod
    def device_count() -> builtins.int:
        return 0


class _Unavailable:
    """A GPU backend of `torch.backends` that is not there: `is_available()` is False."""

    def __init__(self) -> None:
        self.enabled, self.benchmark, self.deterministic = False, False, False

    @staticmethod
    def is_available() -> builtins.bool:
        return False

    @staticmethod
    def is_built() -> builtins.bool:
        return False


class backends:
    """`torch.backends.mps.is_available()`, `torch.backends.cudnn.benchmark = True`, ...: no
    GPU backend is available, and its settings change nothing."""

    mps, cuda, cudnn = _Unavailable(), _Unavailable(), _Unavailable()


def set_default_device(device) -> None:  # noqa: A002 (PyTorch's name)
    """Only the CPU, the framework's one device, can be the default."""
    check_device("set_default_device", device)


def get_default_device() -> device:
    return device("cpu")


def get_default_dtype():
    return np.float32


def set_default_dtype(dtype) -> None:
    """float32 is the default of every floating factory here; another one is not supported."""
    if np.dtype(dtype) != np.float32:
        raise NotImplementedError(f"set_default_dtype: {np.dtype(dtype)} is not supported; the "
                                  "default stays float32: pass dtype= to each factory instead")


def _legacy(name: str, dtype):
    """`torch.FloatTensor(2, 3)` (zeros of a shape) or `torch.LongTensor([1, 2])` (the data)."""
    def constructor(*args) -> Tensor:
        if all(isinstance(a, (builtins.int, np.integer)) for a in args):
            return Tensor(np.zeros(args, dtype=dtype))
        if len(args) != 1:
            raise TypeError(f"{name}: give a shape (ints) or one sequence of data, got {args!r}")
        return Tensor(np.array(unwrap(args[0]), dtype=dtype))

    constructor.__name__ = constructor.__qualname__ = name
    return constructor


FloatTensor, DoubleTensor = _legacy("FloatTensor", np.float32), _legacy("DoubleTensor", np.float64)
LongTensor, IntTensor = _legacy("LongTensor", np.int64), _legacy("IntTensor", np.int32)
BoolTensor = _legacy("BoolTensor", np.bool_)


def multinomial(input: Tensor, num_samples: builtins.int, replacement: builtins.bool = False,  # noqa: A002
                *, generator=None) -> Tensor:
    return input.multinomial(num_samples, replacement, generator=generator)


def mm(input: Tensor, mat2) -> Tensor:  # noqa: A002
    return input.mm(mat2)


def split(tensor: Tensor, split_size_or_sections, dim: builtins.int = 0) -> tuple:
    return tensor.split(split_size_or_sections, dim)


# -- factories -----------------------------------------------------------------------------------


@_on_the_cpu
def arange(start, end=None, step=1, *, dtype=None, requires_grad: builtins.bool = False) -> Tensor:
    """start, start + step, ... below end; int64 if all are integers, else float32."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        whole = all(np.issubdtype(_default_dtype(v), np.integer) for v in (start, end, step))
        dtype = np.int64 if whole else np.float32
    return _new(np.arange(start, end, step), dtype, requires_grad)


@_on_the_cpu
def linspace(start, end, steps: builtins.int, *, dtype=None,
             requires_grad: builtins.bool = False) -> Tensor:
    """`steps` evenly spaced values from start to end, both included (float32)."""
    return _new(np.linspace(start, end, steps), dtype or np.float32, requires_grad)


@_on_the_cpu
def full(size, fill_value, *, dtype=None, requires_grad: builtins.bool = False) -> Tensor:
    """A tensor of shape `size` filled with `fill_value` (dtype from the value, as PyTorch)."""
    dtype = dtype or _default_dtype(fill_value)
    return _new(np.full(tuple(size), fill_value), dtype, requires_grad)


@_on_the_cpu
def eye(n: builtins.int, m: builtins.int | None = None, *, dtype=None,
        requires_grad: builtins.bool = False) -> Tensor:
    return _new(np.eye(n, m), dtype or np.float32, requires_grad)


@_on_the_cpu
def empty(*size, dtype=None, requires_grad: builtins.bool = False) -> Tensor:
    """Zeros: PyTorch leaves the memory uninitialised, which no correct program reads."""
    return _new(np.zeros(_shape_args(size)), dtype or np.float32, requires_grad)


@_on_the_cpu
def zeros_like(input: Tensor, *, dtype=None, requires_grad: builtins.bool = False) -> Tensor:  # noqa: A002
    return _new(np.zeros(np.shape(_data(input))), dtype or _data(input).dtype, requires_grad)


@_on_the_cpu
def ones_like(input: Tensor, *, dtype=None, requires_grad: builtins.bool = False) -> Tensor:  # noqa: A002
    return _new(np.ones(np.shape(_data(input))), dtype or _data(input).dtype, requires_grad)


@_on_the_cpu
def full_like(input: Tensor, fill_value, *, dtype=None,  # noqa: A002
              requires_grad: builtins.bool = False) -> Tensor:
    values = np.full(np.shape(_data(input)), fill_value)
    return _new(values, dtype or _data(input).dtype, requires_grad)


@_on_the_cpu
def rand(*size, dtype=None, requires_grad: builtins.bool = False) -> Tensor:
    """Uniform on [0, 1), from the shared generator (`manual_seed`)."""
    values = default_generator().random(_shape_args(size))
    return _new(values, dtype or np.float32, requires_grad)


@_on_the_cpu
def rand_like(input: Tensor, *, dtype=None, requires_grad: builtins.bool = False) -> Tensor:  # noqa: A002
    return rand(*np.shape(_data(input)), dtype=dtype or _data(input).dtype,
                requires_grad=requires_grad)


@_on_the_cpu
def randn_like(input: Tensor, *, dtype=None, requires_grad: builtins.bool = False) -> Tensor:  # noqa: A002
    values = default_generator().standard_normal(np.shape(_data(input)))
    return _new(values, dtype or _data(input).dtype, requires_grad)


@_on_the_cpu
def randint(low, high=None, size=None, *, dtype=None) -> Tensor:
    """Integers in [low, high) (int64): randint(high, size) or randint(low, high, size)."""
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    return _new(default_generator().integers(low, high, tuple(size)), dtype or np.int64, False)


@_on_the_cpu
def randperm(n: builtins.int, *, dtype=None) -> Tensor:
    return _new(default_generator().permutation(n), dtype or np.int64, False)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing `array`'s memory and dtype (a change to one shows in the other)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected a NumPy array, got {type(array).__name__}")
    return Tensor(array)


def is_tensor(obj) -> builtins.bool:
    return isinstance(obj, Tensor)


def _data(x) -> np.ndarray:
    return np.asarray(unwrap(x))


# -- functions: torch.f(x, ...) is x.f(...) ---------------------------------------------------------


def _method(name: str):
    def function(input: Tensor, *args, **kwargs):  # noqa: A002 (PyTorch's name)
        if isinstance(input, np.ndarray):  # `torch.max(outputs.data, 1)`: `.data` is an array here
            input = Tensor(input)  # noqa: A001
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}: expected a Tensor, got {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"`torch.{name}(x, ...)` is `x.{name}(...)`: see `Tensor.{name}`."
    return function


_METHODS = (
    "sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "exp", "log", "sqrt",
    "tanh", "sigmoid", "relu", "abs", "clamp", "clip", "reshape", "flatten", "squeeze",
    "unsqueeze", "permute", "transpose", "t", "numel", "clone", "masked_fill", "gather",
    "triu", "tril", "softmax", "log_softmax", "neg", "pow", "add", "sub", "mul", "div",
    "sin", "cos", "log1p", "expm1", "rsqrt", "square", "eq", "ne", "gt", "ge", "lt", "le",
    "logical_and", "logical_or", "logical_not", "isnan", "isfinite", "var", "std", "norm",
    "prod", "cumsum", "sort", "argsort", "topk", "chunk",
)
globals().update({name: _method(name) for name in _METHODS})

__all__ = [
    "BoolTensor", "DoubleTensor", "FloatTensor", "IntTensor", "LongTensor", "accelerator",
    "arange", "backends", "bool", "cat", "concatenate", "check_device", "cuda", "device",
    "double", "empty", "eye", "float", "float16", "float32", "float64", "from_numpy", "full",
    "full_like", "get_default_device", "get_default_dtype", "half", "int", "int8", "int16",
    "int32", "int64", "is_tensor", "linspace", "long", "mm", "multinomial", "ones_like", "rand",
    "rand_like", "randint", "randn_like", "randperm", "set_default_device", "set_default_dtype",
    "split", "stack", "uint8", "zeros_like", *_METHODS,
]
cat = concatenate
