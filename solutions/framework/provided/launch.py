"""Chapter 8's launchers: what stands between a caller and your kernels (`framework/kernels.py`).

A kernel trusts its arguments: a wrong dtype, shape or layout reaching compiled code gives a
wrong answer or a crash, not an error. Each launcher here checks them first and says what is
wrong, allocates the output, unpacks a `StridedArray` into the kernel's arguments, and keeps
one compiled kernel per function (compiling costs about a second; calling, microseconds).

- CPU: `strided_map`, `strided_zip`, `strided_reduce` on StridedArrays; `matmul` on 2-D arrays;
- fused ops as autograd Functions, on Tensors: `layer_norm`, `softmax`, `gelu`;
- GPU: `gpu_zip`, `gpu_sum`, `gpu_matmul` on NumPy arrays (on a GPU, or in Numba's simulator).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .. import kernels
from ..function import Function
from ..kernels import StridedArray
from .jit import cuda, require_cuda, simulating

FLOATS = (np.float32, np.float64)
_compiled: dict[tuple, Callable] = {}


def _kernel(factory: Callable, *arguments) -> Callable:
    """factory(*arguments), compiled once per process."""
    key = (factory.__name__, *arguments)
    if key not in _compiled:
        _compiled[key] = factory(*arguments)
    return _compiled[key]


def _parts(x: StridedArray) -> tuple:
    return (x.storage, np.array(x.shape, np.int64), np.array(x.strides, np.int64), x.offset)


def _input_parts(x: StridedArray) -> tuple:
    return (x.storage, np.array(x.strides, np.int64), x.offset)


def _output(op: str, shape: tuple, dtype, out: StridedArray | None) -> StridedArray:
    """`out` when given (checked), else a new contiguous array."""
    if out is None:
        return StridedArray(np.empty(math.prod(shape), dtype), shape)
    if not isinstance(out, StridedArray) or out.shape != shape or out.dtype != dtype:
        raise ValueError(f"{op}: out must be a StridedArray of shape {shape} and dtype {dtype}, "
                         f"not {out!r}")
    if any(s == 0 and n > 1 for s, n in zip(out.strides, out.shape)):
        raise ValueError(f"{op}: out has a broadcast axis (stride 0, strides {out.strides}): "
                         "several threads would write one element; give an out of its own")
    return out


def _strided(op: str, name: str, x) -> StridedArray:
    if not isinstance(x, StridedArray):
        raise TypeError(f"{op}: {name} must be a StridedArray (StridedArray.from_numpy(array) "
                        f"makes one), not {type(x).__name__}")
    return x


def strided_map(fn: Callable, a: StridedArray, out: StridedArray | None = None) -> StridedArray:
    """fn(a) element by element, on every core; `fn` is an @njit function of one number."""
    a = _strided("strided_map", "a", a)
    out = _output("strided_map", a.shape, a.dtype, out)
    _kernel(kernels.tensor_map, fn)(*_parts(out), *_input_parts(a))
    return out


def strided_zip(fn: Callable, a: StridedArray, b: StridedArray,
        out: StridedArray | None = None) -> StridedArray:
    """fn(a, b) element by element after broadcasting both (as views) to one shape."""
    a, b = _strided("strided_zip", "a", a), _strided("strided_zip", "b", b)
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(f"strided_zip: shapes {a.shape} and {b.shape} do not broadcast") from None
    dtype = np.result_type(a.dtype, b.dtype)
    out = _output("strided_zip", shape, dtype, out)
    _kernel(kernels.tensor_zip, fn)(*_parts(out), *_input_parts(a.expand(*shape)),
                                    *_input_parts(b.expand(*shape)))
    return out


def strided_reduce(fn: Callable, a: StridedArray, axis: int, start: float) -> StridedArray:
    """a folded along `axis` with fn, from `start`; the axis stays, of size 1 (keepdims)."""
    a = _strided("strided_reduce", "a", a)
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"strided_reduce: axis {axis} for an array of shape {a.shape}")
    axis %= a.ndim
    shape = a.shape[:axis] + (1,) + a.shape[axis + 1:]
    out = _output("strided_reduce", shape, a.dtype, None)
    _kernel(kernels.tensor_reduce, fn)(*_parts(out), *_input_parts(a), axis, a.shape[axis],
                                       a.dtype.type(start))
    return out


def _float_array(op: str, name: str, x, ndim: int = 2) -> np.ndarray:
    """x, checked: an `ndim`-D float32 or float64 NumPy array, C-contiguous, finite."""
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{op}: {name} must be a NumPy array, not {type(x).__name__}")
    if x.ndim != ndim or x.dtype not in FLOATS:
        raise TypeError(f"{op}: {name} must be a {ndim}-D float32 or float64 array; it has shape "
                        f"{x.shape} and dtype {x.dtype}")
    if not x.flags.c_contiguous:
        raise ValueError(f"{op}: {name} (shape {x.shape}, strides {x.strides}) is not C-contiguous;"
                         " the kernel reads rows as runs of memory: pass np.ascontiguousarray("
                         f"{name})")
    if not np.isfinite(x).all():
        raise ValueError(f"{op}: {name} holds non-finite values (nan or inf)")
    return x


def _matrix_pair(op: str, a, b) -> np.ndarray:
    """a and b checked as the two factors of a product; returns the product's empty output."""
    a, b = _float_array(op, "a", a), _float_array(op, "b", b)
    if a.shape[1] != b.shape[0] or a.dtype != b.dtype:
        raise ValueError(f"{op}: a {a.shape} {a.dtype} and b {b.shape} {b.dtype}: a's columns "
                         "must match b's rows, and the dtypes each other")
    return np.empty((a.shape[0], b.shape[1]), a.dtype)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b by the tiled kernel, for C-contiguous float matrices of one dtype."""
    out = _matrix_pair("matmul", a, b)
    kernels.matmul_kernel(a, b, out)
    return out


# -- fused ops as autograd Functions --------------------------------------------------------------


class FusedLayerNorm(Function):
    """F.layer_norm over the last axis, forward and backward each one kernel call."""

    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        rows = np.ascontiguousarray(x.reshape(-1, x.shape[-1]))
        _float_array("layer_norm", "x", rows)
        w = weight.astype(x.dtype, copy=False)  # cast once, for the backward too
        y, mean, rstd = kernels.layer_norm_forward(rows, w, bias.astype(x.dtype, copy=False), eps)
        ctx.save_for_backward(rows, w, mean, rstd)
        ctx.weight_dtype = weight.dtype
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, grad):
        rows, w, mean, rstd = ctx.saved_tensors
        g = np.ascontiguousarray(grad.reshape(rows.shape), rows.dtype)
        dx, dweight, dbias = kernels.layer_norm_backward(g, rows, w, mean, rstd)
        return (dx.reshape(grad.shape), dweight.astype(ctx.weight_dtype, copy=False),
                dbias.astype(ctx.weight_dtype, copy=False), None)


class FusedSoftmax(Function):
    """softmax over the last axis, forward and backward each one kernel call."""

    @staticmethod
    def forward(ctx, x):
        rows = _float_array("softmax", "x", np.ascontiguousarray(x.reshape(-1, x.shape[-1])))
        y = kernels.softmax_forward(rows)
        ctx.save_for_backward(y)
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        g = np.ascontiguousarray(grad.reshape(y.shape), y.dtype)
        return kernels.softmax_backward(g, y).reshape(grad.shape)


class FusedGELU(Function):
    """GELU (tanh form), forward and backward each one kernel call."""

    @staticmethod
    def forward(ctx, x):
        flat = _float_array("gelu", "x", np.ascontiguousarray(x).reshape(-1), ndim=1)
        ctx.save_for_backward(flat)
        return kernels.gelu_forward(flat).reshape(x.shape)

    @staticmethod
    def backward(ctx, grad):
        (flat,) = ctx.saved_tensors
        g = np.ascontiguousarray(grad, flat.dtype).reshape(-1)
        return kernels.gelu_backward(g, flat).reshape(grad.shape)


def layer_norm(x, weight, bias, eps: float = 1e-5):
    """LayerNorm over the last axis by the fused kernels (weight and bias: tensors of (D,))."""
    return FusedLayerNorm.apply(x, weight, bias, eps)


def softmax(x):
    """softmax over the last axis by the fused kernels."""
    return FusedSoftmax.apply(x)


def gelu(x):
    """GELU's tanh form by the fused kernels."""
    return FusedGELU.apply(x)


# -- GPU -----------------------------------------------------------------------------------------


def gpu_zip(fn: Callable, a: np.ndarray, b: np.ndarray, threads: int = 128) -> np.ndarray:
    """fn(a, b) on the GPU, one thread an element, for 1-D float arrays of one length and dtype."""
    require_cuda("gpu_zip")
    a, b = _float_array("gpu_zip", "a", a, 1), _float_array("gpu_zip", "b", b, 1)
    if a.shape != b.shape or a.dtype != b.dtype:
        raise ValueError(f"gpu_zip: a {a.shape} {a.dtype} and b {b.shape} {b.dtype} must have one "
                         "length and one dtype")
    out = np.empty_like(a)
    blocks = max(1, -(-a.size // threads))
    _kernel(kernels.cuda_zip, fn)[blocks, threads](out, a, b)
    return out


def gpu_sum(a: np.ndarray, threads: int = 128) -> float:
    """Σ a on the GPU: one partial sum per block, then the partials (few) added here."""
    require_cuda("gpu_sum")
    a = _float_array("gpu_sum", "a", a, 1)
    if threads < 1 or threads & (threads - 1):
        raise ValueError(f"gpu_sum: threads={threads}; a block's halving needs a power of two")
    blocks = max(1, -(-a.size // threads))
    partials = np.zeros(blocks, a.dtype)
    _kernel(kernels.cuda_block_sum, threads, a.dtype.str)[blocks, threads](partials, a)
    return float(partials.sum())


def gpu_matmul(a: np.ndarray, b: np.ndarray, tile: int = 16) -> np.ndarray:
    """a @ b on the GPU by tile × tile blocks with shared memory."""
    require_cuda("gpu_matmul")
    out = _matrix_pair("gpu_matmul", a, b)
    grid = (max(1, -(-b.shape[1] // tile)), max(1, -(-a.shape[0] // tile)))
    _kernel(kernels.cuda_matmul, tile, a.dtype.str)[grid, (tile, tile)](out, a, b)
    return out


__all__ = ["FusedGELU", "FusedLayerNorm", "FusedSoftmax", "cuda", "gelu", "gpu_matmul", "gpu_sum",
           "gpu_zip", "layer_norm", "matmul", "simulating", "softmax", "strided_map",
           "strided_reduce", "strided_zip"]
