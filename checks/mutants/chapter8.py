"""Chapter 8's bug zoo: the mistakes learners make with strides, views, compiled kernels, tiles,
fused passes, GPU threads, the replay of a checkpoint, and the bonus track.

None of these writes outside an array in compiled code (Numba checks no bounds there: such a
mutant could crash the grader's process instead of failing a check); a few read past a
storage's end, as the learner's bug would, which gives wrong values, not a crash.
"""

from checks.mutants import Mutant

MUTANTS = [
    # -- 8.1 positions
    Mutant(
        "8.1", "stride from its own axis's size, not the next one's (off by one axis)",
        """        strides.append(step)
        step *= size""",
        """        step *= size
        strides.append(step)""",
    ),
    Mutant(
        "8.1", "strides listed from the last axis to the first (not reversed back)",
        "return tuple(reversed(strides))",
        "return tuple(strides)",
    ),
    Mutant(
        "8.1", "offset ignored",
        "position = offset",
        "position = 0",
    ),
    Mutant(
        "8.1", "position_to_index peels the first axis first",
        "for axis in range(len(shape) - 1, -1, -1):",
        "for axis in range(len(shape)):",
    ),
    # -- 8.2 views
    Mutant(
        "8.2", "permute reorders the shape, not the strides",
        "tuple(self.strides[i] for i in order)",
        "self.strides",
    ),
    Mutant(
        "8.2", "expand keeps a growing size-1 axis's stride (no stride 0)",
        "0 if size == 1 and target != 1 else stride",
        "stride",
    ),
    Mutant(
        "8.2", "expand puts the new axes last",
        """        strides = [0] * leading + [
            0 if size == 1 and target != 1 else stride
            for size, target, stride in zip(self.shape, shape[leading:], self.strides)]""",
        """        strides = [
            0 if size == 1 and target != 1 else stride
            for size, target, stride in zip(self.shape, shape[leading:], self.strides)
        ] + [0] * leading""",
    ),
    Mutant(
        "8.2", "a negative-step slice starts from its lowest index, not from start",
        "offset += start * stride",
        "offset += min(start, start + (length - 1) * step) * stride",
    ),
    Mutant(
        "8.2", "a slice's stride not multiplied by its step",
        "strides.append(stride * step)",
        "strides.append(stride)",
    ),
    Mutant(
        "8.2", "an int keeps its axis (of size 1)",
        """            else:
                offset += item * stride""",
        """            else:
                offset += item * stride
                shape.append(1)
                strides.append(stride)""",
    ),
    Mutant(
        "8.2", "contiguous copies in storage order, not in the view's row-major order",
        "storage[ordinal] = self.storage[index_to_position(index, strides, self.offset)]",
        "storage[ordinal] = self.storage[(self.offset + ordinal) % self.storage.size]",
    ),
    Mutant(
        "8.2", "contiguous copies an array that is contiguous already",
        """        if self.is_contiguous():
            return self
""",
        "",
    ),
    # -- 8.3 map, zip, reduce
    Mutant(
        "8.3", "map reads a through out's strides",
        "value = a[index_to_position(index, a_strides, a_offset)]",
        "value = a[index_to_position(index, out_strides, a_offset)]",
    ),
    Mutant(
        "8.3", "zip reads b through a's strides and offset",
        "y = b[index_to_position(index, b_strides, b_offset)]",
        "y = b[index_to_position(index, a_strides, a_offset)]",
    ),
    Mutant(
        "8.3", "zip passes its operands to fn swapped",
        "fn(x, y)",
        "fn(y, x)",
    ),
    Mutant(
        "8.3", "reduce ignores start (folds from 0)",
        "total = start",
        "total = 0.0",
    ),
    Mutant(
        "8.3", "reduce steps along axis 0's stride, whatever the axis",
        "a[position + k * a_strides[axis]]",
        "a[position + k * a_strides[0]]",
    ),
    Mutant(
        "8.3", "reduce stops one element short",
        "for k in range(length):",
        "for k in range(length - 1):",
    ),
    # -- 8.4 tiled matmul
    Mutant(
        "8.4", "out not zeroed (it arrives holding anything)",
        "        out[top:bottom, :] = 0\n",
        "",
    ),
    Mutant(
        "8.4", "out zeroed again for every tile along K",
        """        out[top:bottom, :] = 0
        for k0 in range(0, k_size, TILE):
            k1 = min(k0 + TILE, k_size)
""",
        """        for k0 in range(0, k_size, TILE):
            k1 = min(k0 + TILE, k_size)
            out[top:bottom, :] = 0
""",
    ),
    Mutant(
        "8.4", "row tiles counted by floor division: the last, shorter one dropped",
        "prange((n + TILE - 1) // TILE)",
        "prange(n // TILE)",
    ),
    Mutant(
        "8.4", "out overwritten by each product instead of summed",
        "out[i, j] += a_ik * b[k, j]",
        "out[i, j] = a_ik * b[k, j]",
    ),
    # -- 8.5 fused kernels
    Mutant(
        "8.5", "LayerNorm's variance unbiased (÷ (D - 1))",
        "r = f(1.0) / math.sqrt(squares / f(size) + f(eps))",
        "r = f(1.0) / math.sqrt(squares / f(max(size - 1, 1)) + f(eps))",
    ),
    Mutant(
        "8.5", "ε added outside the square root",
        "r = f(1.0) / math.sqrt(squares / f(size) + f(eps))",
        "r = f(1.0) / (math.sqrt(squares / f(size)) + f(eps))",
    ),
    Mutant(
        "8.5", "LayerNorm's ∂x without the mean(ĝ) term",
        "grad[i, j] * weight[j] - mean_g - x_hat * mean_gx",
        "grad[i, j] * weight[j] - x_hat * mean_gx",
    ),
    Mutant(
        "8.5", "∂w sums g·(x - μ), not g·x̂",
        "part_w[b, j] += g * x_hat",
        "part_w[b, j] += g * (x[i, j] - mu)",
    ),
    Mutant(
        "8.5", "a fused backward reusing a buffer still to be read: ∂x written into grad",
        """    rows, size = x.shape
    dx = np.empty_like(x)""",
        """    rows, size = x.shape
    dx = grad  # no new buffer: grad is read again below, for ∂w""",
    ),
    Mutant(
        "8.5", "softmax without subtracting the row's max",
        "y[i, j] = exp(x[i, j] - largest)",
        "y[i, j] = exp(x[i, j])",
    ),
    Mutant(
        "8.5", "softmax's backward sums g, not g·y",
        "total += grad[i, j] * y[i, j]",
        "total += grad[i, j]",
    ),
    Mutant(
        "8.5", "GELU with x² where the tanh form has x³",
        "y[i] = v / (one + exp(min(k * (v + a * v * v * v), top)))",
        "y[i] = v / (one + exp(min(k * (v + a * v * v), top)))",
    ),
    # -- 8.6 GPU kernels
    Mutant(
        "8.6", "zip without the guard: threads past the end write too",
        """        if i < out.size:
            out[i] = fn(a[i], b[i])""",
        "        out[i] = fn(a[i], b[i])",
    ),
    Mutant(
        "8.6", "zip indexed by threadIdx alone (every block does block 0's elements)",
        "i = cuda.grid(1)\n        if i < out.size:",
        "i = cuda.threadIdx.x\n        if i < out.size:",
    ),
    Mutant(
        "8.6", "block sum loads past the end of a (no 0 for the missing elements)",
        "cache[t] = a[i] if i < a.size else 0",
        "cache[t] = a[min(i, a.size - 1)]",
    ),
    Mutant(
        "8.6", "block sum without the barrier between halving steps",
        """                cache[t] += cache[t + half]
            cuda.syncthreads()
""",
        """                cache[t] += cache[t + half]
""",
    ),
    Mutant(
        "8.6", "matmul reads its tiles before every thread has loaded them",
        """            b_tile[ty, tx] = b[k0 + ty, col] if k0 + ty < k_size and col < m else 0
            cuda.syncthreads()
""",
        """            b_tile[ty, tx] = b[k0 + ty, col] if k0 + ty < k_size and col < m else 0
""",
    ),
    Mutant(
        "8.6", "matmul loads the next tiles while others still read these (no 2nd barrier)",
        """                total += a_tile[ty, k] * b_tile[k, tx]
            cuda.syncthreads()
""",
        """                total += a_tile[ty, k] * b_tile[k, tx]
""",
    ),
    Mutant(
        "8.6", "matmul's tile of a loaded with tx and ty swapped",
        "a_tile[ty, tx] = a[row, k0 + tx]",
        "a_tile[tx, ty] = a[row, k0 + tx]",
    ),
    # -- 8.7 activation checkpointing
    Mutant(
        "8.7", "a checkpoint that drops the random state of dropout (the rerun draws new masks)",
        """        if ctx.rng_state is not None:
            generator.state = ctx.rng_state
""",
        "",
    ),
    Mutant(
        "8.7", "the generator left where the rerun ends, not put back where it was",
        "            generator.state = now  # the rest of the program draws as if nothing had rerun",
        "            pass",
    ),
    Mutant(
        "8.7", "the forward records its graph (no no_grad): the activations are kept after all",
        """    with no_grad():
        out = function(*args, **kwargs)""",
        """    out = function(*args, **kwargs)""",
    ),
    Mutant(
        "8.7", "the inputs not detached: the rerun's backward walks on into the outer graph",
        "inputs = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a",
        "inputs = [a if isinstance(a, Tensor) else a",
    ),
    Mutant(
        "8.7", "the copies do not require grad: the inputs receive no gradient",
        "inputs = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a",
        "inputs = [a.detach() if isinstance(a, Tensor) else a",
    ),
    Mutant(
        "8.7", "the rerun inside no_grad: nothing to back-propagate through",
        """            with enable_grad():
                out = ctx.function(*inputs, **ctx.kwargs)""",
        """            with no_grad():
                out = ctx.function(*inputs, **ctx.kwargs)""",
    ),
    # -- 8.8 (bonus) lazy fusion
    Mutant(
        "8.8", "the inputs of an op taken in reverse order (b - a for a - b)",
        "template.format(*(expression_source(x, positions) for x in node.inputs[:arity]))",
        "template.format(*reversed([expression_source(x, positions) for x in node.inputs[:arity]]))",
    ),
    Mutant(
        "8.8", "a constant written as an int (2.5 becomes 2)",
        "return repr(node.value)",
        "return repr(int(node.value))",
    ),
    Mutant(
        "8.8", "every leaf read as the first array",
        'return f"a{positions[id(node.array)]}[i]"',
        'return "a0[i]"',
    ),
    # -- 8.9 (bonus) cross-entropy fused
    Mutant(
        "8.9", "no max subtracted: exp of a logit of 1e4 overflows",
        "e = math.exp(logits[i, j] - largest)",
        "e = math.exp(logits[i, j])",
    ),
    Mutant(
        "8.9", "the target's 1 not taken off the gradient",
        "grad[i, targets[i]] -= 1.0",
        "grad[i, targets[i]] -= 0.0",
    ),
    Mutant(
        "8.9", "the loss without the max added back",
        "losses[i] = math.log(total) + largest - logits[i, targets[i]]",
        "losses[i] = math.log(total) - logits[i, targets[i]]",
    ),
]
