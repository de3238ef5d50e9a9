"""Chapter 5, written a second way: different, textbook-style code that must score 100.

The position table from an integer power per column and np.where; LayerNorm with np.var
and the classic (N ĝ - Σ ĝ - x̂ Σ ĝx̂) / (N σ) backward; attention from one boolean
"allowed" matrix and np.where, returning every gradient; heads split and merged with
permute; shift_right into a preallocated array. (The padding-mask code of 5.4–5.8 is left
as it is.)
"""

import textwrap

from checks.mutants import WHOLE_REGION, Mutant

TR, F = "nn/transformer.py", "nn/functional.py"


def code(text: str, indent: int = 8) -> str:
    """A block of source, dedented, then indented to a method body's depth."""
    return textwrap.indent(textwrap.dedent(text).lstrip("\n"), " " * indent)


ALTERNATIVES = [
    Mutant("5.1", "one rate per column, sin or cos chosen by np.where", code("""
        position = np.arange(length, dtype=np.float64)[:, None]
        frequency = np.exp(-math.log(10000.0) * np.arange(0, d_model, 2) / d_model)
        angles = position * frequency  # (length, ⌈d_model/2⌉)
        table = np.zeros((length, d_model))
        table[:, 0::2] = np.sin(angles)
        table[:, 1::2] = np.cos(angles[:, : d_model // 2])
        return table.astype(np.float32)
        """, 4), code("""
        column = np.arange(d_model)
        rates = 1.0 / np.power(10000.0, 2 * (column // 2) / d_model)
        angles = np.arange(length)[:, None] * rates[None, :]
        return np.where(column % 2 == 0, np.sin(angles), np.cos(angles)).astype(np.float32)
        """, 4)),
    Mutant("5.2", "LayerNorm forward with np.var", code("""
        x2 = x.reshape(-1, size)
        # a row's mean as its product with a column of 1/size: one BLAS call, where NumPy's mean
        # along W3's rows of 64 numbers took 7 times as long
        average = np.full(size, 1 / size, np.result_type(x2, 1.0))
        centred = x2 - (x2 @ average)[:, None]
        variance = np.square(centred) @ average  # biased: divided by size
        inv_std = 1 / np.sqrt(variance + eps)[:, None]
        x_hat = centred
        x_hat *= inv_std
        # a copy without weight: backward reads x_hat, so the output must not be the same array
        out = x_hat.copy() if weight is None else x_hat * weight.reshape(-1)
        if bias is not None:
            out = out + bias.reshape(-1)
        """), code("""
        rows = x.reshape(-1, size)
        inv_std = 1.0 / np.sqrt(np.var(rows, axis=-1, keepdims=True) + eps)
        x_hat = (rows - np.mean(rows, axis=-1, keepdims=True)) * inv_std
        out = x_hat
        if weight is not None:
            out = out * weight.reshape(-1)
        if bias is not None:
            out = out + bias.reshape(-1)
        """)),
    Mutant("5.2", "LayerNorm backward as (N ĝ - Σ ĝ - x̂ Σ ĝx̂) / (N σ)", code("""
        g2 = grad.reshape(x_hat.shape)
        g_x_hat = g2 * x_hat
        ones = np.ones(len(g2), g2.dtype)  # the sums over rows as products too
        grad_w = (ones @ g_x_hat).reshape(weight_shape) if ctx.needs_input_grad[1] else None
        grad_b = (ones @ g2).reshape(bias_shape) if ctx.needs_input_grad[2] else None
        grad_x = None
        if ctx.needs_input_grad[0]:
            size = x_hat.shape[1]
            # ĝ = g · w, so the row means of ĝ and of ĝ x̂ are g and g x̂ times w / size:
            # two products with one vector, and ĝ formed once, as ∂x's own buffer
            w = np.ones(size, g2.dtype) if weight is None else weight.reshape(-1)
            w_mean = w / size
            mean_g_hat = (g2 @ w_mean)[:, None]
            mean_g_hat_x_hat = (g_x_hat @ w_mean)[:, None]
            grad_x = g2 * w
            grad_x -= mean_g_hat
            grad_x -= np.multiply(x_hat, mean_g_hat_x_hat, out=g_x_hat)
            grad_x *= inv_std
            grad_x = grad_x.reshape(x_shape)
        """), code("""
        n = x_hat.shape[1]
        g = grad.reshape(x_hat.shape)
        g_hat = g * weight.reshape(-1) if weight is not None else g
        total = np.sum(g_hat, axis=1, keepdims=True)
        projected = np.sum(g_hat * x_hat, axis=1, keepdims=True)
        grad_x = (inv_std / n * (n * g_hat - total - x_hat * projected)).reshape(x_shape)
        grad_w = np.sum(g * x_hat, axis=0).reshape(weight_shape) if weight is not None else None
        grad_b = np.sum(g, axis=0).reshape(bias_shape) if ctx.needs_input_grad[2] else None
        """)),
    Mutant("5.3", "attention from one boolean 'allowed' matrix and np.where", code("""
        scale = 1 / math.sqrt(query.shape[-1])
        scores = query @ np.swapaxes(key, -1, -2)
        scores *= scale  # in place from here on: the scores are this op's own new array
        length, source = scores.shape[-2:]
        if is_causal:  # query i may look at keys j <= i: -∞ strictly above the diagonal
            scores += np.triu(np.full((length, source), -np.inf, scores.dtype), 1)
        if attn_mask is not None and attn_mask.dtype == bool:  # its batch axes may be more
            scores = scores + np.where(attn_mask, 0, -np.inf).astype(scores.dtype)
        elif attn_mask is not None:
            scores = scores + attn_mask.astype(scores.dtype, copy=False)
        top = row_max(scores)  # scores.max(axis=-1, keepdims=True), 9× faster on short rows
        top[np.isneginf(top)] = 0  # a fully masked row: exp(-∞ - 0) = 0, never -∞ + ∞
        scores -= top
        weights = np.exp(scores, out=scores)
        # the row sums as a product with a column of ones: one BLAS call a matrix, where NumPy's
        # sum along W3's rows of 12 took ten times as long
        ones = np.ones(source, weights.dtype)
        total = (weights @ ones)[..., None]
        total[total == 0] = 1  # a fully masked row stays 0
        weights /= total
        ctx.save_for_backward(query, key, value, weights)
        ctx.scale = scale
        return weights @ value
        """), code("""
        d = query.shape[-1]
        scores = np.matmul(query, np.swapaxes(key, -1, -2)) / math.sqrt(d)
        allowed = np.ones(scores.shape[-2:], dtype=bool)
        if is_causal:
            allowed = np.tril(allowed)
        if attn_mask is not None and attn_mask.dtype == bool:
            allowed = allowed & attn_mask
        elif attn_mask is not None:
            scores = scores + attn_mask.astype(scores.dtype)
        scores = np.where(allowed, scores, -np.inf)
        top = np.max(scores, axis=-1, keepdims=True)
        e = np.exp(scores - np.where(np.isfinite(top), top, 0))
        denominator = np.sum(e, axis=-1, keepdims=True)
        weights = e / np.where(denominator == 0, 1, denominator)
        ctx.save_for_backward(query, key, value, weights)
        ctx.scale = 1 / math.sqrt(d)
        return np.matmul(weights, value)
        """)),
    Mutant("5.3", "attention backward returning all three gradients", code("""
        query, key, value, weights = ctx.saved_tensors
        grad_v = None
        if ctx.needs_input_grad[2]:
            grad_v = unbroadcast(np.swapaxes(weights, -1, -2) @ grad, value.shape)
        grad_p = grad @ np.swapaxes(value, -1, -2)
        # ∂S = P ⊙ (∂P - Σ ∂P ⊙ P), the softmax rule, then the scale of the scores; in place,
        # as ∂P is this op's own new array, and the sum as a product with ones, as forward's
        grad_p -= ((grad_p * weights) @ np.ones(weights.shape[-1], weights.dtype))[..., None]
        grad_p *= weights
        grad_s = grad_p
        grad_s *= ctx.scale
        grad_q = unbroadcast(grad_s @ key, query.shape) if ctx.needs_input_grad[0] else None
        grad_k = None
        if ctx.needs_input_grad[1]:
            grad_k = unbroadcast(np.swapaxes(grad_s, -1, -2) @ query, key.shape)
        """), code("""
        query, key, value, weights = ctx.saved_tensors
        grad_weights = np.matmul(grad, np.swapaxes(value, -1, -2))
        dot = np.sum(grad_weights * weights, axis=-1, keepdims=True)
        grad_scores = weights * (grad_weights - dot) * ctx.scale
        grad_q = unbroadcast(np.matmul(grad_scores, key), query.shape)
        grad_k = unbroadcast(np.matmul(np.swapaxes(grad_scores, -1, -2), query), key.shape)
        grad_v = unbroadcast(np.matmul(np.swapaxes(weights, -1, -2), grad), value.shape)
        """)),
    Mutant("5.4", "heads split with one reshape and a permute", code("""
        n, t, _ = x.shape
        x = x.reshape(n, t, self.num_heads, self.head_dim)
        return x.transpose(1, 2)  # swap the T and head axes
        """), code("""
        batch, length, _ = x.shape
        return x.reshape(batch, length, self.num_heads, self.head_dim).permute(0, 2, 1, 3)
        """)),
    Mutant("5.4", "heads merged with a permute and one reshape", code("""
        n, _, t, _ = x.shape
        x = x.transpose(1, 2)  # (N, T, H, head_dim): each position's heads side by side
        return x.reshape(n, t, self.embed_dim)
        """), code("""
        batch, _, length, _ = x.shape
        return x.permute(0, 2, 1, 3).reshape(batch, length, self.num_heads * self.head_dim)
        """)),
    Mutant("5.8", "shift_right into a preallocated array", code("""
        tgt_out = np.asarray(tgt_out.data if isinstance(tgt_out, Tensor) else tgt_out)
        bos = np.full((len(tgt_out), 1), bos_id, dtype=tgt_out.dtype)
        return np.concatenate([bos, tgt_out[:, :-1]], axis=1)
        """, 4), code("""
        tokens = np.asarray(getattr(tgt_out, "data", tgt_out))
        shifted = np.empty_like(tokens)
        shifted[:, 0] = bos_id
        shifted[:, 1:] = tokens[:, :-1]
        return shifted
        """, 4)),
    Mutant(
        "5.9", "beam search by sorting (score, beam, token) tuples",
        WHOLE_REGION,
        "candidates = sorted((-(scores[b] + log_probs[b, v]), b, v)\n"
        "                    for b in range(log_probs.shape[0]) for v in range(log_probs.shape[1]))\n"
        "kept = candidates[:beam_size]\n"
        "return (np.array([-c[0] for c in kept], dtype=float), np.array([c[1] for c in kept], dtype=int),\n"
        "        np.array([c[2] for c in kept], dtype=int))\n",
    ),
    Mutant(
        "5.10", "RMSNorm forward by the root mean square itself",
        WHOLE_REGION,
        "rms = np.sqrt((x ** 2).mean(axis=-1, keepdims=True) + eps)\n"
        "ctx.save_for_backward(x, rms, weight)\n"
        "return x / rms * weight\n",
        within="RMSNormFunction.forward",
    ),
    Mutant(
        "5.10", "RMSNorm backward through the chain rule of x / rms",
        WHOLE_REGION,
        "x, rms, weight = ctx.saved_tensors\n"
        "g_hat = grad * weight\n"
        "d = x.shape[-1]\n"
        "grad_x = g_hat / rms - x * np.sum(g_hat * x, axis=-1, keepdims=True) / (d * rms ** 3)\n"
        "grad_w = (grad * x / rms).reshape(-1, d).sum(axis=0)\n"
        "return grad_x, grad_w\n",
        within="RMSNormFunction.backward",
    ),
]
