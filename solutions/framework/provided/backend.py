"""Which code runs under F.layer_norm, F.softmax and F.gelu: NumPy (chapters 3 and 5) or
chapter 8's fused kernels.

    import framework
    framework.set_backend("kernels")   # LayerNorm, softmax and GELU by the fused kernels
    framework.get_backend()            # "kernels"
    framework.set_backend("numpy")     # back to the NumPy ops of chapters 3 and 5

Provided, not an exercise. Under "kernels", `F.layer_norm` (and `nn.LayerNorm`), `F.softmax`
over the last axis and `F.gelu` (and `nn.GELU`) are `provided/launch.py`'s FusedLayerNorm,
FusedSoftmax and FusedGELU: forward and backward each one call of a kernel of
`framework/kernels.py` (yours: the backend runs whatever 8.5 holds), spread over Numba's
threads (`framework.provided.jit.set_num_threads`). Everything else is unchanged. The matrix
products stay NumPy's BLAS: 8.4's tiled kernel teaches what a cache-aware product is, and
BLAS, with its packed panels and hand-written vector code, is several times faster.

Where a fused kernel does not apply, the NumPy op runs, with the same result: softmax over
another axis, LayerNorm over several trailing axes or without weight and bias, a weight of
another dtype than the input, inputs other than float32 or float64, an empty input, or one
holding nan or inf (which the launchers refuse). Chapter 8's speed is measured by `make bench`
(W6: each fused op against the NumPy op it replaces, at one and two threads).

Importing this module imports nothing of chapter 8: only set_backend("kernels") imports
Numba, so chapters 1 to 7 work where Numba is not installed.
"""

from __future__ import annotations

BACKENDS = ("numpy", "kernels")
FLOATS = ("float32", "float64")

_current = "numpy"
_launch = None  # provided/launch.py while the kernels backend is on


def set_backend(name: str) -> None:
    """Run F.layer_norm, F.softmax and F.gelu by the NumPy ops ("numpy", the default) or by
    chapter 8's fused kernels ("kernels", which needs Numba)."""
    global _current, _launch
    if name not in BACKENDS:
        raise ValueError(f"set_backend: unknown backend {name!r}; the backends are "
                         f"{', '.join(repr(b) for b in BACKENDS)}")
    if name == "kernels":
        try:
            from . import launch
        except ImportError as error:
            raise ImportError(f"set_backend('kernels') needs chapter 8's Numba: {error}") from error
        _launch = launch
    else:
        _launch = None
    _current = name


def get_backend() -> str:
    """The backend in use: "numpy" or "kernels"."""
    return _current


def _array(x):
    return getattr(x, "data", x)  # a tensor's array, or the array itself


def _fits(*arrays) -> bool:
    """One float dtype for all, and something in the first."""
    dtype = getattr(arrays[0], "dtype", None)
    return (dtype is not None and dtype.name in FLOATS and arrays[0].size > 0
            and all(getattr(a, "dtype", None) == dtype for a in arrays[1:]))


def _fused(op, *args):
    """op(*args), or None where a launcher refuses the input (nan or inf): the NumPy op then
    runs and gives nan where it should."""
    try:
        return op(*args)
    except ValueError:
        return None


def layer_norm(x, weight, bias, size: int, eps: float, numpy_op):
    """The fused LayerNorm of x over its last axis, or numpy_op's where it does not apply."""
    fused = None
    if _launch is not None and weight is not None and bias is not None:
        a, w, b = _array(x), _array(weight), _array(bias)
        if _fits(a, w, b) and a.ndim and a.shape[-1] == size and w.shape == b.shape == (size,):
            fused = _fused(_launch.layer_norm, x, weight, bias, eps)
    return numpy_op(x, weight, bias, size, eps=eps) if fused is None else fused


def softmax(x, axis: int, numpy_op):
    """The fused softmax of x along `axis`, or numpy_op's where it does not apply (another
    axis)."""
    fused = None
    if _launch is not None:
        a = _array(x)
        if _fits(a) and a.ndim and axis in (-1, a.ndim - 1):
            fused = _fused(_launch.softmax, x)
    return numpy_op(x, axis=axis) if fused is None else fused


def gelu(x, numpy_op):
    """The fused GELU of x, or numpy_op's where it does not apply."""
    fused = _fused(_launch.gelu, x) if _launch is not None and _fits(_array(x)) else None
    return numpy_op(x) if fused is None else fused


__all__ = ["BACKENDS", "get_backend", "set_backend"]
