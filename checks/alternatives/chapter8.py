"""Chapter 8's second correct implementation: every region written another textbook way.

Row-major strides as products of the later sizes; a position as a dot product; an index by
dividing by the suffix products from the first axis on; views built as lists (expand aligned
from the right), slices through `range(size)[slice]`, contiguous copies through `np.ndindex`;
kernels that turn an ordinal into positions inline, axis by axis, and walk a reduction by
adding the stride; a matmul a row per thread into a local buffer; LayerNorm's statistics by
Welford's online update and its parameter gradients in one serial pass; softmax with an online
max and rescaled sum; GELU as x·σ(2u); CUDA kernels with a grid-stride loop, an interleaved
(stride-doubling) block sum, and explicit loads with the last tile's loop shortened.
"""

from checks.mutants import WHOLE_REGION, Mutant

ALTERNATIVES = [
    # -- 8.1
    Mutant(
        "8.1", "strides as products of the later sizes", WHOLE_REGION,
        """\
        return tuple(math.prod(shape[axis + 1:]) for axis in range(len(shape)))
        """,
        within="contiguous_strides",
    ),
    Mutant(
        "8.1", "a position as a dot product", WHOLE_REGION,
        """\
        return offset + np.sum(index * strides)
        """,
        within="index_to_position",
    ),
    Mutant(
        "8.1", "an index from the first axis, by the suffix products", WHOLE_REGION,
        """\
        later = 1
        for size in shape:
            later *= size
        for axis in range(len(shape)):
            later //= shape[axis]  # the product of the sizes after this axis
            out_index[axis] = ordinal // later
            ordinal -= out_index[axis] * later
        """,
        within="position_to_index",
    ),
    # -- 8.2
    Mutant(
        "8.2", "permute as lists", WHOLE_REGION,
        """\
        shape, strides = [], []
        for axis in order:
            shape.append(self.shape[axis])
            strides.append(self.strides[axis])
        return StridedArray(self.storage, tuple(shape), tuple(strides), self.offset)
        """,
        within="StridedArray.permute",
    ),
    Mutant(
        "8.2", "expand aligned from the right, stride 0 unless the sizes agree", WHOLE_REGION,
        """\
        strides = [0] * len(shape)
        for back in range(1, self.ndim + 1):
            if self.shape[-back] == shape[-back]:
                strides[-back] = self.strides[-back]
        return StridedArray(self.storage, tuple(shape), tuple(strides), self.offset)
        """,
        within="StridedArray.expand",
    ),
    Mutant(
        "8.2", "slices through range(size)[slice]", WHOLE_REGION,
        """\
        offset, shape, strides = self.offset, [], []
        for item, size, stride in zip(key, self.shape, self.strides):
            if isinstance(item, int):
                offset += item * stride
                continue
            picked = range(size)[item]
            if len(picked):
                offset += picked[0] * stride
            shape.append(len(picked))
            strides.append(picked.step * stride)
        return StridedArray(self.storage, tuple(shape), tuple(strides), offset)
        """,
        within="StridedArray.__getitem__",
    ),
    Mutant(
        "8.2", "contiguous through np.ndindex", WHOLE_REGION,
        """\
        if self.is_contiguous():
            return self
        strides = np.array(self.strides, np.int64)
        storage = np.array([self.storage[index_to_position(np.array(index, np.int64), strides,
                                                           self.offset)]
                            for index in np.ndindex(*self.shape)], dtype=self.dtype)
        return StridedArray(storage.reshape(-1), self.shape)
        """,
        within="StridedArray.contiguous",
    ),
    # -- 8.3
    Mutant(
        "8.3", "map: positions computed inline, axis by axis", WHOLE_REGION,
        """\
        for ordinal in prange(_element_count(out_shape)):
            rest, out_at, a_at = np.int64(ordinal), out_offset, a_offset
            for d in range(len(out_shape) - 1, -1, -1):
                i = rest % out_shape[d]
                rest //= out_shape[d]
                out_at += i * out_strides[d]
                a_at += i * a_strides[d]
            out[out_at] = fn(a[a_at])
        """,
        within="tensor_map.kernel",
    ),
    Mutant(
        "8.3", "zip: positions computed inline, axis by axis", WHOLE_REGION,
        """\
        for ordinal in prange(_element_count(out_shape)):
            rest, out_at, a_at, b_at = np.int64(ordinal), out_offset, a_offset, b_offset
            for d in range(len(out_shape) - 1, -1, -1):
                i = rest % out_shape[d]
                rest //= out_shape[d]
                out_at += i * out_strides[d]
                a_at += i * a_strides[d]
                b_at += i * b_strides[d]
            out[out_at] = fn(a[a_at], b[b_at])
        """,
        within="tensor_zip.kernel",
    ),
    Mutant(
        "8.3", "reduce: inline positions, the axis walked by adding its stride", WHOLE_REGION,
        """\
        for ordinal in prange(_element_count(out_shape)):
            rest, out_at, a_at = np.int64(ordinal), out_offset, a_offset
            for d in range(len(out_shape) - 1, -1, -1):
                i = rest % out_shape[d]
                rest //= out_shape[d]
                out_at += i * out_strides[d]
                a_at += i * a_strides[d]
            total = start
            for _ in range(length):
                total = fn(total, a[a_at])
                a_at += a_strides[axis]
            out[out_at] = total
        """,
        within="tensor_reduce.kernel",
    ),
    # -- 8.4
    Mutant(
        "8.4", "a row per thread, summed in a local buffer", WHOLE_REGION,
        """\
        n, k_size = a.shape
        m = b.shape[1]
        for i in prange(n):
            row = np.zeros(m, out.dtype)
            for k in range(k_size):
                a_ik = a[i, k]
                for j in range(m):
                    row[j] += a_ik * b[k, j]
            for j in range(m):
                out[i, j] = row[j]
        """,
    ),
    # -- 8.5
    Mutant(
        "8.5", "LayerNorm's statistics by Welford's online update", WHOLE_REGION,
        """\
        rows, size = x.shape
        y = np.empty_like(x)
        mean = np.empty(rows, x.dtype)
        rstd = np.empty(rows, x.dtype)
        for i in prange(rows):
            mu, m2 = 0.0, 0.0
            for j in range(size):
                delta = x[i, j] - mu
                mu += delta / (j + 1)
                m2 += delta * (x[i, j] - mu)
            r = 1.0 / math.sqrt(m2 / size + eps)
            for j in range(size):
                y[i, j] = (x[i, j] - mu) * r * weight[j] + bias[j]
            mean[i] = mu
            rstd[i] = r
        return y, mean, rstd
        """,
        within="layer_norm_forward",
    ),
    Mutant(
        "8.5", "LayerNorm's backward from a saved x̂, ∂w and ∂b in one serial pass", WHOLE_REGION,
        """\
        rows, size = x.shape
        x_hat = np.empty_like(x)
        dx = np.empty_like(x)
        for i in prange(rows):
            sum_g, sum_gx = 0.0, 0.0
            for j in range(size):
                x_hat[i, j] = (x[i, j] - mean[i]) * rstd[i]
                sum_g += grad[i, j] * weight[j]
                sum_gx += grad[i, j] * weight[j] * x_hat[i, j]
            for j in range(size):
                dx[i, j] = rstd[i] / size * (
                    size * grad[i, j] * weight[j] - sum_g - x_hat[i, j] * sum_gx)
        dweight = np.zeros(size, x.dtype)
        dbias = np.zeros(size, x.dtype)
        for i in range(rows):  # one thread adds every row
            for j in range(size):
                dweight[j] += grad[i, j] * x_hat[i, j]
                dbias[j] += grad[i, j]
        return dx, dweight, dbias
        """,
        within="layer_norm_backward",
    ),
    Mutant(
        "8.5", "softmax with an online max and a rescaled sum", WHOLE_REGION,
        """\
        rows, size = x.shape
        y = np.empty_like(x)
        for i in prange(rows):
            largest, total = -np.inf, 0.0
            for j in range(size):
                v = x[i, j]
                if v > largest:
                    total = total * math.exp(largest - v) + 1.0
                    largest = v
                else:
                    total += math.exp(v - largest)
            for j in range(size):
                y[i, j] = math.exp(x[i, j] - largest) / total
        return y
        """,
        within="softmax_forward",
    ),
    Mutant(
        "8.5", "softmax's backward with a row's dot product by np.sum", WHOLE_REGION,
        """\
        dx = np.empty_like(y)
        for i in prange(y.shape[0]):
            dx[i] = y[i] * (grad[i] - np.sum(grad[i] * y[i]))
        return dx
        """,
        within="softmax_backward",
    ),
    Mutant(
        "8.5", "GELU as x·σ(2u)", WHOLE_REGION,
        """\
        y = np.empty_like(x)
        for i in prange(x.size):
            v = x[i]
            u = GELU_C * v * (1.0 + 0.044715 * v * v)
            y[i] = v / (1.0 + math.exp(-2.0 * u))
        return y
        """,
        within="gelu_forward",
    ),
    Mutant(
        "8.5", "GELU's derivative through σ(2u)", WHOLE_REGION,
        """\
        dx = np.empty_like(x)
        for i in prange(x.size):
            v = x[i]
            s = 1.0 / (1.0 + math.exp(-2.0 * GELU_C * v * (1.0 + 0.044715 * v * v)))
            du = GELU_C * (1.0 + 3 * 0.044715 * v * v)
            dx[i] = grad[i] * (s + 2.0 * v * s * (1.0 - s) * du)
        return dx
        """,
        within="gelu_backward",
    ),
    # -- 8.6
    Mutant(
        "8.6", "zip with a grid-stride loop", WHOLE_REGION,
        """\
        for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            out[i] = fn(a[i], b[i])
        """,
        within="cuda_zip.kernel",
    ),
    Mutant(
        "8.6", "block sum by interleaved pairs, the stride doubling", WHOLE_REGION,
        """\
        cache = cuda.shared.array(threads, element)
        t = cuda.threadIdx.x
        i = cuda.blockIdx.x * cuda.blockDim.x + t
        if i < a.size:
            cache[t] = a[i]
        else:
            cache[t] = 0
        cuda.syncthreads()
        stride = 1
        while stride < threads:
            if t % (2 * stride) == 0:
                cache[t] += cache[t + stride]
            cuda.syncthreads()
            stride *= 2
        if t == 0:
            out[cuda.blockIdx.x] = cache[0]
        """,
        within="cuda_block_sum.kernel",
    ),
    Mutant(
        "8.6", "matmul with explicit loads and the last tile's loop shortened", WHOLE_REGION,
        """\
        a_tile = cuda.shared.array((tile, tile), element)
        b_tile = cuda.shared.array((tile, tile), element)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        row = cuda.blockIdx.y * cuda.blockDim.y + ty
        col = cuda.blockIdx.x * cuda.blockDim.x + tx
        n, m, k_size = out.shape[0], out.shape[1], a.shape[1]
        total = 0.0
        for step in range((k_size + tile - 1) // tile):
            k0 = step * tile
            if row < n and k0 + tx < k_size:
                a_tile[ty, tx] = a[row, k0 + tx]
            else:
                a_tile[ty, tx] = 0
            if col < m and k0 + ty < k_size:
                b_tile[ty, tx] = b[k0 + ty, col]
            else:
                b_tile[ty, tx] = 0
            cuda.syncthreads()
            for k in range(min(tile, k_size - k0)):
                total += a_tile[ty, k] * b_tile[k, tx]
            cuda.syncthreads()
        if row < n and col < m:
            out[row, col] = total
        """,
        within="cuda_matmul.kernel",
    ),
    Mutant(
        "8.7", "the generator's state copied as a dict, the forward run under no_grad",
        WHOLE_REGION,
        """
        rng_state = None
        if preserve_rng_state:
            rng_state = dict(default_generator().bit_generator.state)
        with no_grad():
            out = function(*args, **kwargs)
        """,
        within="checkpoint",
    ),
    Mutant(
        "8.7", "the rerun on new tensors over the same data, gradients collected in a loop",
        WHOLE_REGION,
        """
        bits = default_generator().bit_generator
        saved = bits.state
        if ctx.rng_state is not None:
            bits.state = ctx.rng_state
        copies = [Tensor(a.data, requires_grad=a.requires_grad) if isinstance(a, Tensor) else a
                  for a in ctx.inputs]
        with enable_grad():
            out = ctx.function(*copies, **ctx.kwargs)
        bits.state = saved
        if out.requires_grad:
            out.backward(grad)
        grads = []
        for copy in copies:
            grads.append(copy.grad if isinstance(copy, Tensor) and copy.requires_grad else None)
        return tuple(grads)
        """,
        within="Checkpoint.backward",
    ),
    Mutant(
        "8.8", "the texts of the inputs first, then the template",
        WHOLE_REGION,
        """
        if node.op == "const":
            return f"{node.value!r}"
        if node.op == "leaf":
            return "a%d[i]" % positions[id(node.array)]
        parts = [expression_source(child, positions) for child in node.inputs]
        return TEMPLATES[node.op][1].format(*parts)
        """,
    ),
    Mutant(
        "8.9", "log-sum-exp first, the gradient as exp(z - lse)",
        WHOLE_REGION,
        """
        rows, size = logits.shape
        losses = np.empty(rows, logits.dtype)
        grad = np.empty_like(logits)
        for i in prange(rows):
            m = logits[i, 0]
            for j in range(size):
                m = max(m, logits[i, j])
            s = 0.0
            for j in range(size):
                s += math.exp(logits[i, j] - m)
            lse = m + math.log(s)
            for j in range(size):
                grad[i, j] = math.exp(logits[i, j] - lse)
            t = targets[i]
            grad[i, t] -= 1.0
            losses[i] = lse - logits[i, t]
        return losses, grad
        """,
    ),
]
