"""Chapter 8: the machine underneath. Strides, kernels on every core, a tiled matrix product,
fused kernels, and kernels for a GPU.

NumPy hides four things this chapter makes you write. An array is a flat buffer read through
a shape, strides and an offset, so a transpose, a broadcast or a slice is new strides over the
same memory (8.1, 8.2). An elementwise op is a loop over positions that a compiler can spread
over every core (8.3; Numba's `@njit(parallel=True)`, `prange`). A matrix product is fast when
it reuses what sits in the cache, tile by tile (8.4). And a chain of small passes (LayerNorm's
mean, variance, scale, shift) costs memory traffic that one fused pass per row avoids (8.5).
8.6 writes kernels for a GPU with `numba.cuda`: grid, blocks, threads, shared memory and
barriers; without a GPU they run in Numba's simulator (`provided/jit.py`). The kernels work on
NumPy arrays; `provided/launch.py` checks their inputs and allocates their outputs.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .provided.jit import FUSED, cuda, from_dtype, njit, prange
from .provided.simd import exp
from .provided.strided import StridedBase, axis_keys

Shape = tuple[int, ...]


# -- 8.1 Positions: an index and where it lives -----------------------------------------------


def contiguous_strides(shape: Shape) -> Shape:
    """Row-major strides in elements: strides[-1] = 1, strides[i] = strides[i + 1] · shape[i + 1]."""
    ### BEGIN SOLUTION 8.1
    raise NotImplementedError("Exercise 8.1: Positions: strides and offsets — see chapters/08_kernels.ipynb, '8.1 An array is a buffer, a shape and strides'")
    ### END SOLUTION


@njit(cache=True)
def index_to_position(index: np.ndarray, strides: np.ndarray, offset: int) -> int:
    """The element at `index` lives at storage[offset + Σ_i index[i] · strides[i]]."""
    ### BEGIN SOLUTION 8.1
    raise NotImplementedError("Exercise 8.1: Positions: strides and offsets — see chapters/08_kernels.ipynb, '8.1 An array is a buffer, a shape and strides'")
    ### END SOLUTION


@njit(cache=True)
def position_to_index(ordinal: int, shape: np.ndarray, out_index: np.ndarray) -> None:
    """The index of the `ordinal`-th element counted in row-major order, written into out_index:
    the last axis is the ordinal modulo its size, the rest is the ordinal divided by it, and so on."""
    ### BEGIN SOLUTION 8.1
    raise NotImplementedError("Exercise 8.1: Positions: strides and offsets — see chapters/08_kernels.ipynb, '8.1 An array is a buffer, a shape and strides'")
    ### END SOLUTION


# -- 8.2 Views: new strides over the same storage ---------------------------------------------


class StridedArray(StridedBase):
    """Element `index` of this array is storage[offset + Σ index[i] · strides[i]].

    `storage` is a 1-D NumPy array; `shape`, `strides` (in elements, any sign, 0 for a
    broadcast axis; row-major when not given) and `offset` are ints. Views share the storage:
    writing through one is seen through every other. What it checks and shows (the bounds,
    `numpy()`, `size`, `transpose`, ...) is provided, in `provided/strided.py`.
    """

    def __init__(self, storage: np.ndarray, shape: Shape, strides: Shape | None = None,
                 offset: int = 0) -> None:
        shape = tuple(operator.index(n) for n in shape)
        super().__init__(storage, shape, contiguous_strides(shape) if strides is None else strides,
                         offset)

    @classmethod
    def from_numpy(cls, array: np.ndarray) -> StridedArray:
        """A contiguous copy of `array` in a storage of its own."""
        array = np.asarray(array)
        return cls(np.ascontiguousarray(array).reshape(-1).copy(), array.shape)

    def is_contiguous(self) -> bool:
        """Row-major and gapless: the strides contiguous_strides gives (size-1 axes are free)."""
        return all(n == 1 or s == c for n, s, c in
                   zip(self.shape, self.strides, contiguous_strides(self.shape)))

    def permute(self, *order: int) -> StridedArray:
        """Axis i of the result is axis order[i] of this array: the same storage, no copy."""
        if sorted(order) != list(range(self.ndim)):
            raise ValueError(f"permute: {order} is not an order of the {self.ndim} axes of an "
                             f"array of shape {self.shape}; give each of 0 … {self.ndim - 1} once")
        ### BEGIN SOLUTION 8.2
        raise NotImplementedError("Exercise 8.2: Views without copies — see chapters/08_kernels.ipynb, '8.2 Views: new strides over the same memory'")
        ### END SOLUTION

    def expand(self, *shape: int) -> StridedArray:
        """This array broadcast to `shape`, no copy: new leading axes and stretched size-1 axes
        read the same element again and again, which is a stride of 0."""
        try:
            fits = np.broadcast_shapes(self.shape, shape) == shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"expand: an array of shape {self.shape} does not broadcast to "
                             f"{shape}; each axis must be equal or 1, counted from the right")
        ### BEGIN SOLUTION 8.2
        raise NotImplementedError("Exercise 8.2: Views without copies — see chapters/08_kernels.ipynb, '8.2 Views: new strides over the same memory'")
        ### END SOLUTION

    def __getitem__(self, key) -> StridedArray:
        """Ints and slices (any step, negative too), one per leading axis, as NumPy reads them:
        an int drops its axis, a slice keeps it; the result shares the storage."""
        key = axis_keys(key, self.shape)
        ### BEGIN SOLUTION 8.2
        raise NotImplementedError("Exercise 8.2: Views without copies — see chapters/08_kernels.ipynb, '8.2 Views: new strides over the same memory'")
        ### END SOLUTION

    def contiguous(self) -> StridedArray:
        """The same values in a new row-major storage of exactly `size` elements; this array
        itself when it is contiguous already (as PyTorch's `contiguous()`)."""
        ### BEGIN SOLUTION 8.2
        raise NotImplementedError("Exercise 8.2: Views without copies — see chapters/08_kernels.ipynb, '8.2 Views: new strides over the same memory'")
        ### END SOLUTION


# -- 8.3 Kernels on every core: map, zip, reduce ------------------------------------------------


@njit(cache=True)
def _element_count(shape: np.ndarray) -> int:
    count = 1
    for size in shape:
        count *= size
    return count


def tensor_map(fn):
    """A compiled kernel out[i] = fn(a[i]) for every index i of `out_shape`, in parallel.

    kernel(out, out_shape, out_strides, out_offset, a, a_strides, a_offset): storages are 1-D
    arrays, shapes and strides int64 arrays; `a` has out's shape (broadcasting is a view of
    stride 0, done before), and any strides; `fn` is an @njit function of one number.
    """

    @njit(parallel=True)
    def kernel(out, out_shape, out_strides, out_offset, a, a_strides, a_offset):
        ### BEGIN SOLUTION 8.3
        raise NotImplementedError("Exercise 8.3: Kernels on every core: map, zip, reduce — see chapters/08_kernels.ipynb, '8.3 Kernels on every core: map, zip, reduce'")
        ### END SOLUTION

    return kernel


def tensor_zip(fn):
    """A compiled kernel out[i] = fn(a[i], b[i]) for every index i of `out_shape`, in parallel.

    kernel(out, out_shape, out_strides, out_offset, a, a_strides, a_offset, b, b_strides,
    b_offset): as tensor_map's, with a second input of out's shape.
    """

    @njit(parallel=True)
    def kernel(out, out_shape, out_strides, out_offset, a, a_strides, a_offset, b, b_strides,
               b_offset):
        ### BEGIN SOLUTION 8.3
        raise NotImplementedError("Exercise 8.3: Kernels on every core: map, zip, reduce — see chapters/08_kernels.ipynb, '8.3 Kernels on every core: map, zip, reduce'")
        ### END SOLUTION

    return kernel


def tensor_reduce(fn):
    """A compiled kernel folding `a` along one axis: out[i] = fn(…fn(fn(start, a[i₀]), a[i₁])…).

    kernel(out, out_shape, out_strides, out_offset, a, a_strides, a_offset, axis, length,
    start): out_shape is a's shape with axis `axis` of size 1; `length` is a's size along that
    axis, i_k is i with k on that axis, in order k = 0, 1, …; `fn` is an @njit function of two
    numbers. Each output element is one thread's work.
    """

    @njit(parallel=True)
    def kernel(out, out_shape, out_strides, out_offset, a, a_strides, a_offset, axis, length,
               start):
        ### BEGIN SOLUTION 8.3
        raise NotImplementedError("Exercise 8.3: Kernels on every core: map, zip, reduce — see chapters/08_kernels.ipynb, '8.3 Kernels on every core: map, zip, reduce'")
        ### END SOLUTION

    return kernel


# -- 8.4 A tiled matrix product ------------------------------------------------------------------

#: The side of a tile: three 64×64 float32 tiles (48 KiB) fit a core's L2 cache.
TILE = 64


@njit(parallel=True, cache=True)
def matmul_kernel(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """out = a @ b for C-contiguous a (N, K), b (K, M), out (N, M) of one float dtype; out arrives
    holding anything (np.empty). Rows of tiles go to the cores; within one, the tiles of b are
    walked so that what was loaded into the cache is used TILE times before it leaves."""
    ### BEGIN SOLUTION 8.4
    raise NotImplementedError("Exercise 8.4: A tiled matrix product — see chapters/08_kernels.ipynb, '8.4 A tiled matrix product'")
    ### END SOLUTION


# -- 8.5 Fused kernels: one pass per row ---------------------------------------------------------

# FUSED (provided/jit.py) lets loops vectorise; constants in x's dtype keep float32 float32.

@njit(**FUSED)
def layer_norm_forward(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float):
    """Per row of x (M, D): μ, σ² (biased), r = 1/√(σ² + ε), y = (x - μ) · r · w + b.
    Returns (y (M, D) in x's dtype, mean (M,), rstd (M,)): what the backward needs."""
    ### BEGIN SOLUTION 8.5
    raise NotImplementedError("Exercise 8.5: Fused kernels: LayerNorm, softmax, GELU — see chapters/08_kernels.ipynb, '8.5 Fusion: one pass per row'")
    ### END SOLUTION


@njit(**FUSED)
def layer_norm_backward(grad: np.ndarray, x: np.ndarray, weight: np.ndarray, mean: np.ndarray,
                        rstd: np.ndarray):
    """With x̂ = (x - μ) · r and ĝ = g · w, per row: ∂x = r · (ĝ - mean(ĝ) - x̂ · mean(ĝ · x̂));
    over the rows: ∂w = Σ g · x̂, ∂b = Σ g. Returns (∂x (M, D), ∂w (D,), ∂b (D,))."""
    ### BEGIN SOLUTION 8.5
    raise NotImplementedError("Exercise 8.5: Fused kernels: LayerNorm, softmax, GELU — see chapters/08_kernels.ipynb, '8.5 Fusion: one pass per row'")
    ### END SOLUTION


@njit(**FUSED)
def softmax_forward(x: np.ndarray) -> np.ndarray:
    """y = exp(x - max) / Σ exp(x - max) per row of x (M, D), in x's dtype."""
    ### BEGIN SOLUTION 8.5
    raise NotImplementedError("Exercise 8.5: Fused kernels: LayerNorm, softmax, GELU — see chapters/08_kernels.ipynb, '8.5 Fusion: one pass per row'")
    ### END SOLUTION


@njit(**FUSED)
def softmax_backward(grad: np.ndarray, y: np.ndarray) -> np.ndarray:
    """∂x = y · (g - Σ_j g_j y_j) per row, from the forward's output y (M, D)."""
    ### BEGIN SOLUTION 8.5
    raise NotImplementedError("Exercise 8.5: Fused kernels: LayerNorm, softmax, GELU — see chapters/08_kernels.ipynb, '8.5 Fusion: one pass per row'")
    ### END SOLUTION


GELU_C = math.sqrt(2 / math.pi)


@njit(**FUSED)
def gelu_forward(x: np.ndarray) -> np.ndarray:
    """GELU's tanh form on a 1-D x: y = x/2 · (1 + tanh u), u = √(2/π) · (x + 0.044715 x³)."""
    ### BEGIN SOLUTION 8.5
    raise NotImplementedError("Exercise 8.5: Fused kernels: LayerNorm, softmax, GELU — see chapters/08_kernels.ipynb, '8.5 Fusion: one pass per row'")
    ### END SOLUTION


@njit(**FUSED)
def gelu_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """∂x = g · ((1 + tanh u)/2 + x/2 · (1 - tanh² u) · √(2/π) · (1 + 3 · 0.044715 x²)), 1-D."""
    ### BEGIN SOLUTION 8.5
    raise NotImplementedError("Exercise 8.5: Fused kernels: LayerNorm, softmax, GELU — see chapters/08_kernels.ipynb, '8.5 Fusion: one pass per row'")
    ### END SOLUTION


# -- 8.6 Kernels for a GPU -------------------------------------------------------------------------


def cuda_zip(fn):
    """A CUDA kernel out[i] = fn(a[i], b[i]) over 1-D arrays of one length, one thread an element.

    Launched as kernel[blocks, threads](out, a, b) with blocks · threads ≥ len(out): the
    threads past the end must do nothing. `fn` is a `cuda.jit(device=True)` function.
    """

    @cuda.jit
    def kernel(out, a, b):
        ### BEGIN SOLUTION 8.6
        raise NotImplementedError("Exercise 8.6: Kernels for a GPU — see chapters/08_kernels.ipynb, '8.6 A GPU kernel: grid, blocks, threads, shared memory'")
        ### END SOLUTION

    return kernel


def cuda_block_sum(threads: int, dtype=np.float32):
    """A CUDA kernel that writes, for block k, the sum of a[k·threads : (k + 1)·threads] to
    out[k]; `threads` (a power of two) is the block's size, and elements past len(a) count 0.

    Each thread loads one element into the block's shared memory, then the block adds in
    halves (threads/2 pairs, then threads/4, …) with a barrier between the steps. `a` and `out`
    hold `dtype`: a shared array's type and size are fixed when the kernel compiles.
    """
    element = from_dtype(np.dtype(dtype))

    @cuda.jit
    def kernel(out, a):
        ### BEGIN SOLUTION 8.6
        raise NotImplementedError("Exercise 8.6: Kernels for a GPU — see chapters/08_kernels.ipynb, '8.6 A GPU kernel: grid, blocks, threads, shared memory'")
        ### END SOLUTION

    return kernel


def cuda_matmul(tile: int, dtype=np.float32):
    """A CUDA kernel out = a @ b (a (N, K), b (K, M), out (N, M), of `dtype`), tile × tile blocks:
    thread (ty, tx) of block (by, bx) computes out[by·tile + ty, bx·tile + tx], walking K a tile
    at a time: each thread loads one element of a's tile and one of b's into shared memory (0
    past the edges), the block waits, every thread adds its row times column of the two tiles,
    and the block waits again before the next load."""
    element = from_dtype(np.dtype(dtype))

    @cuda.jit
    def kernel(out, a, b):
        ### BEGIN SOLUTION 8.6
        raise NotImplementedError("Exercise 8.6: Kernels for a GPU — see chapters/08_kernels.ipynb, '8.6 A GPU kernel: grid, blocks, threads, shared memory'")
        ### END SOLUTION

    return kernel
