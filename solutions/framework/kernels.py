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
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))
    ### END SOLUTION


@njit(cache=True)
def index_to_position(index: np.ndarray, strides: np.ndarray, offset: int) -> int:
    """The element at `index` lives at storage[offset + Σ_i index[i] · strides[i]]."""
    ### BEGIN SOLUTION 8.1
    position = offset
    for i in range(len(index)):
        position += index[i] * strides[i]
    return position
    ### END SOLUTION


@njit(cache=True)
def position_to_index(ordinal: int, shape: np.ndarray, out_index: np.ndarray) -> None:
    """The index of the `ordinal`-th element counted in row-major order, written into out_index:
    the last axis is the ordinal modulo its size, the rest is the ordinal divided by it, and so on."""
    ### BEGIN SOLUTION 8.1
    for axis in range(len(shape) - 1, -1, -1):
        out_index[axis] = ordinal % shape[axis]
        ordinal //= shape[axis]
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
        return StridedArray(self.storage, tuple(self.shape[i] for i in order),
                            tuple(self.strides[i] for i in order), self.offset)
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
        leading = len(shape) - self.ndim
        strides = [0] * leading + [
            0 if size == 1 and target != 1 else stride
            for size, target, stride in zip(self.shape, shape[leading:], self.strides)]
        return StridedArray(self.storage, shape, tuple(strides), self.offset)
        ### END SOLUTION

    def __getitem__(self, key) -> StridedArray:
        """Ints and slices (any step, negative too), one per leading axis, as NumPy reads them:
        an int drops its axis, a slice keeps it; the result shares the storage."""
        key = axis_keys(key, self.shape)
        ### BEGIN SOLUTION 8.2
        offset, shape, strides = self.offset, [], []
        for item, size, stride in zip(key, self.shape, self.strides):
            if isinstance(item, slice):
                start, stop, step = item.indices(size)
                length = len(range(start, stop, step))
                if length:
                    offset += start * stride
                shape.append(length)
                strides.append(stride * step)
            else:
                offset += item * stride
        return StridedArray(self.storage, tuple(shape), tuple(strides), offset)
        ### END SOLUTION

    def contiguous(self) -> StridedArray:
        """The same values in a new row-major storage of exactly `size` elements; this array
        itself when it is contiguous already (as PyTorch's `contiguous()`)."""
        ### BEGIN SOLUTION 8.2
        if self.is_contiguous():
            return self
        storage = np.empty(self.size, self.dtype)
        shape, strides = np.array(self.shape, np.int64), np.array(self.strides, np.int64)
        index = np.empty(self.ndim, np.int64)
        for ordinal in range(self.size):
            position_to_index(ordinal, shape, index)
            storage[ordinal] = self.storage[index_to_position(index, strides, self.offset)]
        return StridedArray(storage, self.shape)
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
        for ordinal in prange(_element_count(out_shape)):
            index = np.empty(len(out_shape), np.int64)
            position_to_index(ordinal, out_shape, index)
            value = a[index_to_position(index, a_strides, a_offset)]
            out[index_to_position(index, out_strides, out_offset)] = fn(value)
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
        for ordinal in prange(_element_count(out_shape)):
            index = np.empty(len(out_shape), np.int64)
            position_to_index(ordinal, out_shape, index)
            x = a[index_to_position(index, a_strides, a_offset)]
            y = b[index_to_position(index, b_strides, b_offset)]
            out[index_to_position(index, out_strides, out_offset)] = fn(x, y)
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
        for ordinal in prange(_element_count(out_shape)):
            index = np.empty(len(out_shape), np.int64)
            position_to_index(ordinal, out_shape, index)
            position = index_to_position(index, a_strides, a_offset)
            total = start
            for k in range(length):
                total = fn(total, a[position + k * a_strides[axis]])
            out[index_to_position(index, out_strides, out_offset)] = total
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
    n, k_size = a.shape
    m = b.shape[1]
    for row_tile in prange((n + TILE - 1) // TILE):
        top = row_tile * TILE
        bottom = min(top + TILE, n)
        out[top:bottom, :] = 0
        for k0 in range(0, k_size, TILE):
            k1 = min(k0 + TILE, k_size)
            for j0 in range(0, m, TILE):
                j1 = min(j0 + TILE, m)
                for i in range(top, bottom):
                    for k in range(k0, k1):
                        a_ik = a[i, k]
                        for j in range(j0, j1):
                            out[i, j] += a_ik * b[k, j]
    ### END SOLUTION


# -- 8.5 Fused kernels: one pass per row ---------------------------------------------------------

# FUSED (provided/jit.py) lets loops vectorise; constants in x's dtype keep float32 float32.

@njit(**FUSED)
def layer_norm_forward(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float):
    """Per row of x (M, D): μ, σ² (biased), r = 1/√(σ² + ε), y = (x - μ) · r · w + b.
    Returns (y (M, D) in x's dtype, mean (M,), rstd (M,)): what the backward needs."""
    ### BEGIN SOLUTION 8.5
    rows, size = x.shape
    y = np.empty_like(x)
    mean = np.empty(rows, x.dtype)
    rstd = np.empty(rows, x.dtype)
    f = x.dtype.type  # sums and all in x's dtype: float32 runs 8 lanes at once, float64 4
    for i in prange(rows):
        total = f(0.0)
        for j in range(size):
            total += x[i, j]
        mu = total / f(size)
        squares = f(0.0)  # about the mean: no cancellation where |μ| is much larger than σ
        for j in range(size):
            d = x[i, j] - mu
            squares += d * d
        r = f(1.0) / math.sqrt(squares / f(size) + f(eps))
        for j in range(size):
            y[i, j] = (x[i, j] - mu) * r * weight[j] + bias[j]
        mean[i] = mu
        rstd[i] = r
    return y, mean, rstd
    ### END SOLUTION


@njit(**FUSED)
def layer_norm_backward(grad: np.ndarray, x: np.ndarray, weight: np.ndarray, mean: np.ndarray,
                        rstd: np.ndarray):
    """With x̂ = (x - μ) · r and ĝ = g · w, per row: ∂x = r · (ĝ - mean(ĝ) - x̂ · mean(ĝ · x̂));
    over the rows: ∂w = Σ g · x̂, ∂b = Σ g. Returns (∂x (M, D), ∂w (D,), ∂b (D,))."""
    ### BEGIN SOLUTION 8.5
    rows, size = x.shape
    dx = np.empty_like(x)
    # ∂w, ∂b: each block of rows adds into its own partial sums while its rows are in the cache
    # (one thread a block, none adds into another's), and the partials are added at the end
    block = 32
    blocks = (rows + block - 1) // block
    part_w = np.zeros((blocks, size), x.dtype)
    part_b = np.zeros((blocks, size), x.dtype)
    for b in prange(blocks):
        for i in range(b * block, min(b * block + block, rows)):
            mu, r = mean[i], rstd[i]
            sum_g, sum_gx = 0.0, 0.0
            for j in range(size):
                g = grad[i, j]
                x_hat = (x[i, j] - mu) * r
                g_hat = g * weight[j]
                sum_g += g_hat
                sum_gx += g_hat * x_hat
                part_w[b, j] += g * x_hat
                part_b[b, j] += g
            mean_g, mean_gx = x.dtype.type(sum_g / size), x.dtype.type(sum_gx / size)
            for j in range(size):
                x_hat = (x[i, j] - mu) * r
                dx[i, j] = r * (grad[i, j] * weight[j] - mean_g - x_hat * mean_gx)
    dweight = np.empty(size, x.dtype)
    dbias = np.empty(size, x.dtype)
    for j in range(size):
        sum_w, sum_b = 0.0, 0.0
        for b in range(blocks):
            sum_w += part_w[b, j]
            sum_b += part_b[b, j]
        dweight[j] = sum_w
        dbias[j] = sum_b
    return dx, dweight, dbias
    ### END SOLUTION


@njit(**FUSED)
def softmax_forward(x: np.ndarray) -> np.ndarray:
    """y = exp(x - max) / Σ exp(x - max) per row of x (M, D), in x's dtype."""
    ### BEGIN SOLUTION 8.5
    rows, size = x.shape
    y = np.empty_like(x)
    for i in prange(rows):
        largest = x[i, 0]
        for j in range(1, size):
            largest = max(largest, x[i, j])
        for j in range(size):  # provided/simd.py's exp: 8 lanes at once, math.exp 1
            y[i, j] = exp(x[i, j] - largest)
        total = 0.0  # a loop of its own: a float64 sum in the exp loop halved its lanes
        for j in range(size):
            total += y[i, j]
        scale = x.dtype.type(1.0 / total)
        for j in range(size):
            y[i, j] *= scale
    return y
    ### END SOLUTION


@njit(**FUSED)
def softmax_backward(grad: np.ndarray, y: np.ndarray) -> np.ndarray:
    """∂x = y · (g - Σ_j g_j y_j) per row, from the forward's output y (M, D)."""
    ### BEGIN SOLUTION 8.5
    rows, size = y.shape
    dx = np.empty_like(y)
    for i in prange(rows):
        total = 0.0
        for j in range(size):
            total += grad[i, j] * y[i, j]
        dot = y.dtype.type(total)
        for j in range(size):
            dx[i, j] = y[i, j] * (grad[i, j] - dot)
    return dx
    ### END SOLUTION


GELU_C = math.sqrt(2 / math.pi)


@njit(**FUSED)
def gelu_forward(x: np.ndarray) -> np.ndarray:
    """GELU's tanh form on a 1-D x: y = x/2 · (1 + tanh u), u = √(2/π) · (x + 0.044715 x³)."""
    ### BEGIN SOLUTION 8.5
    # (1 + tanh u)/2 = σ(2u) = 1/(1 + e^(-2u)): provided/simd.py's exp vectorises (math.tanh is a
    # call per element), and no 1 + tanh u cancels to a few digits where u is very negative
    y = np.empty_like(x)
    f = x.dtype.type
    k, a, one, top = f(-2 * GELU_C), f(0.044715), f(1.0), f(80.0)
    for i in prange(x.size):
        v = x[i]
        y[i] = v / (one + exp(min(k * (v + a * v * v * v), top)))  # e^80: far from overflow
    return y
    ### END SOLUTION


@njit(**FUSED)
def gelu_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """∂x = g · ((1 + tanh u)/2 + x/2 · (1 - tanh² u) · √(2/π) · (1 + 3 · 0.044715 x²)), 1-D."""
    ### BEGIN SOLUTION 8.5
    # s = σ(2u) = 1/(1 + e), e = e^(-2u): (1 + tanh u)/2 = s, (1 - tanh² u)/2 = 2s · e·s
    dx = np.empty_like(x)
    f = x.dtype.type
    k, a, one, top = f(-2 * GELU_C), f(0.044715), f(1.0), f(80.0)
    k2, a3 = f(2 * GELU_C), f(3 * 0.044715)
    for i in prange(x.size):
        v = x[i]
        e = exp(min(k * (v + a * v * v * v), top))
        s = one / (one + e)
        dx[i] = grad[i] * (s + v * s * (e * s) * k2 * (one + a3 * v * v))
    return dx
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
        i = cuda.grid(1)
        if i < out.size:
            out[i] = fn(a[i], b[i])
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
        cache = cuda.shared.array(threads, element)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        cache[t] = a[i] if i < a.size else 0
        cuda.syncthreads()
        half = threads // 2
        while half > 0:
            if t < half:
                cache[t] += cache[t + half]
            cuda.syncthreads()
            half //= 2
        if t == 0:
            out[cuda.blockIdx.x] = cache[0]
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
        a_tile = cuda.shared.array((tile, tile), element)
        b_tile = cuda.shared.array((tile, tile), element)
        ty, tx = cuda.threadIdx.y, cuda.threadIdx.x
        row = cuda.blockIdx.y * tile + ty
        col = cuda.blockIdx.x * tile + tx
        n, k_size = a.shape
        m = b.shape[1]
        total = 0.0
        for k0 in range(0, k_size, tile):
            a_tile[ty, tx] = a[row, k0 + tx] if row < n and k0 + tx < k_size else 0
            b_tile[ty, tx] = b[k0 + ty, col] if k0 + ty < k_size and col < m else 0
            cuda.syncthreads()
            for k in range(tile):
                total += a_tile[ty, k] * b_tile[k, tx]
            cuda.syncthreads()
        if row < n and col < m:
            out[row, col] = total
        ### END SOLUTION

    return kernel
