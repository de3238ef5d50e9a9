"""Chapter 5's bug zoo: the mistakes learners make in positions, LayerNorm, attention and the model."""

from checks.mutants import Mutant

TR, F = "nn/transformer.py", "nn/functional.py"

# the attention's softmax, from the float mask to the normalised weights (exercise 5.3's text)
BOOLEAN_MASK = "            scores = scores + np.where(attn_mask, 0, -np.inf).astype(scores.dtype)\n"
SOFTMAX_ROWS = (
    "        elif attn_mask is not None:\n"
    "            scores = scores + attn_mask.astype(scores.dtype, copy=False)\n"
    "        top = row_max(scores)  # scores.max(axis=-1, keepdims=True), 9× faster on short rows\n"
    "        top[np.isneginf(top)] = 0  # a fully masked row: exp(-∞ - 0) = 0, never -∞ + ∞\n"
    "        scores -= top\n"
    "        weights = np.exp(scores, out=scores)\n"
    "        # the row sums as a product with a column of ones: one BLAS call a matrix, where NumPy's\n"
    "        # sum along W3's rows of 12 took ten times as long\n"
    "        ones = np.ones(source, weights.dtype)\n"
    "        total = (weights @ ones)[..., None]\n"
    "        total[total == 0] = 1  # a fully masked row stays 0\n"
    "        weights /= total\n"
)

MUTANTS = [
    # -- 5.1 sinusoidal positions
    Mutant(
        "5.1", "sin and cos swapped",
        "    table[:, 0::2] = np.sin(angles)\n    table[:, 1::2] = np.cos(angles[:, : d_model // 2])",
        "    table[:, 0::2] = np.cos(angles)\n    table[:, 1::2] = np.sin(angles[:, : d_model // 2])",
    ),
    Mutant(
        "5.1", "frequencies 10000^(-i/d), not 10000^(-2i/d)",
        "np.arange(0, d_model, 2) / d_model",
        "np.arange((d_model + 1) // 2) / d_model",
    ),
    Mutant(
        "5.1", "positions counted from 1",
        "position = np.arange(length, dtype=np.float64)[:, None]",
        "position = np.arange(1, length + 1, dtype=np.float64)[:, None]",
    ),
    Mutant(
        "5.1", "assumes an even width (as many cosines as sines)",
        "table[:, 1::2] = np.cos(angles[:, : d_model // 2])",
        "table[:, 1::2] = np.cos(angles)",
    ),
    Mutant(
        "5.1", "a float64 table",
        "    return table.astype(np.float32)\n",
        "    return table\n",
    ),
    # -- 5.2 LayerNorm
    Mutant(
        "5.2", "unbiased variance (÷ n - 1)",
        "variance = np.square(centred) @ average",
        "variance = np.square(centred).sum(axis=1) / max(size - 1, 1)",
    ),
    Mutant(
        "5.2", "mean over the wrong axis (the batch)",
        "centred = x2 - (x2 @ average)[:, None]",
        "centred = x2 - x2.mean(axis=0, keepdims=True)",
    ),
    Mutant(
        "5.2", "eps added outside the square root",
        "inv_std = 1 / np.sqrt(variance + eps)[:, None]",
        "inv_std = 1 / (np.sqrt(variance) + eps)[:, None]",
    ),
    Mutant(
        "5.2", "backward without the mean of ĝ",
        "            grad_x -= mean_g_hat\n",
        "",
    ),
    Mutant(
        "5.2", "backward forgets the weight in ∂x",
        "            grad_x = g2 * w\n",
        "            grad_x = g2.copy()\n",
    ),
    Mutant(
        "5.2", "bias gradient of the first row only",
        "grad_b = (ones @ g2).reshape(bias_shape)",
        "grad_b = g2[0].reshape(bias_shape)",
    ),
    # -- 5.3 scaled dot-product attention
    Mutant(
        "5.3", "scale missing",
        "        scores *= scale  # in place from here on: the scores are this op's own new array\n",
        "",
    ),
    Mutant(
        "5.3", "scale 1/E instead of 1/√E",
        "scale = 1 / math.sqrt(query.shape[-1])",
        "scale = 1 / query.shape[-1]",
    ),
    Mutant(
        "5.3", "causal mask off by one (a query cannot see itself)",
        "np.triu(np.full((length, source), -np.inf, scores.dtype), 1)",
        "np.triu(np.full((length, source), -np.inf, scores.dtype), 0)",
    ),
    Mutant(
        "5.3", "causal mask off by one (one future key visible)",
        "np.triu(np.full((length, source), -np.inf, scores.dtype), 1)",
        "np.triu(np.full((length, source), -np.inf, scores.dtype), 2)",
    ),
    Mutant(
        "5.3", "boolean mask applied after the softmax",
        BOOLEAN_MASK + SOFTMAX_ROWS,
        "            pass\n" + SOFTMAX_ROWS
        + "        if attn_mask is not None and attn_mask.dtype == bool:\n"
        "            weights = weights * attn_mask\n",
    ),
    Mutant(
        "5.3", "boolean mask read as True = blocked",
        "np.where(attn_mask, 0, -np.inf)",
        "np.where(attn_mask, -np.inf, 0)",
    ),
    Mutant(
        "5.3", "fully masked rows give NaN (-∞ - -∞)",
        "        top[np.isneginf(top)] = 0",
        "        top[np.isneginf(top)] = -np.inf",
    ),
    Mutant(
        "5.3", "float mask ignored",
        "            scores = scores + attn_mask.astype(scores.dtype, copy=False)\n",
        "            pass\n",
    ),
    Mutant(
        "5.3", "backward without the Σ ∂P ⊙ P term",
        "        grad_p -= ((grad_p * weights) @ np.ones(weights.shape[-1], weights.dtype))[..., None]\n",
        "",
    ),
    Mutant(
        "5.3", "backward forgets the scale",
        "        grad_s *= ctx.scale\n",
        "",
    ),
    # -- 5.4 multi-head attention
    Mutant(
        "5.4", "heads merged in the wrong order (features interleaved)",
        "        x = x.transpose(1, 2)  # (N, T, H, head_dim): each position's heads side by side\n",
        "        x = x.permute(0, 2, 3, 1)  # (N, T, head_dim, H)\n",
    ),
    Mutant(
        "5.4", "heads split by a reshape alone (no transpose)",
        "        x = x.reshape(n, t, self.num_heads, self.head_dim)\n"
        "        return x.transpose(1, 2)  # swap the T and head axes\n",
        "        return x.reshape(n, self.num_heads, t, self.head_dim)\n",
    ),
    Mutant(
        "5.4", "padding mask on queries instead of keys",
        '_boolean(key_padding_mask, "key_padding_mask")[:, None, None, :]',
        '_boolean(key_padding_mask, "key_padding_mask")[:, None, :, None]',
    ),
    Mutant(
        "5.4", "attn_mask not negated (read as True = may attend)",
        "return attn_mask if attn_mask is None or attn_mask.dtype != bool else ~attn_mask",
        "return attn_mask",
    ),
    Mutant(
        "5.4", "per-head attn_mask read head-major",
        "attn_mask = attn_mask.reshape(n, self.num_heads, length, source)",
        "attn_mask = attn_mask.reshape(self.num_heads, n, length, source).transpose(1, 0, 2, 3)",
    ),
    Mutant(
        "5.4", "output projection missing",
        "out = self.out_proj(self.merge_heads(heads))",
        "out = self.merge_heads(heads)",
    ),
    Mutant(
        "5.4", "keys projected from the query",
        "k = self.split_heads(self.k_proj(key))",
        "k = self.split_heads(self.k_proj(query))",
    ),
    # -- 5.5 the encoder layer
    Mutant(
        "5.5", "attention residual missing",
        "x = x + self.dropout1(attended)",
        "x = self.dropout1(attended)",
    ),
    Mutant(
        "5.5", "feed-forward residual missing",
        "return x + self.dropout2(self.linear2(hidden))",
        "return self.dropout2(self.linear2(hidden))",
    ),
    Mutant(
        "5.5", "norm1 used for the feed-forward",
        "self.linear1(self.norm2(x))",
        "self.linear1(self.norm1(x))",
    ),
    Mutant(
        "5.5", "post-LN: the residual stream normalised",
        "        x = src\n        h = self.norm1(x)\n",
        "        x = self.norm1(src)\n        h = x\n",
    ),
    Mutant(
        "5.5", "src_key_padding_mask not passed on",
        "self.self_attn(h, h, h, key_padding_mask=src_key_padding_mask,",
        "self.self_attn(h, h, h, key_padding_mask=None,",
    ),
    # -- 5.6 the decoder layer
    Mutant(
        "5.6", "cross-attention reads the decoder, not the encoder",
        "self.multihead_attn(self.norm2(y), memory, memory,",
        "self.multihead_attn(self.norm2(y), self.norm2(y), self.norm2(y),",
    ),
    Mutant(
        "5.6", "self-attention not causal",
        "attn_mask=tgt_mask, is_causal=tgt_is_causal)",
        "attn_mask=tgt_mask, is_causal=False)",
    ),
    Mutant(
        "5.6", "cross-attention residual missing",
        "y = y + self.dropout2(read)",
        "y = self.dropout2(read)",
    ),
    Mutant(
        "5.6", "cross-attention query not normalised",
        "self.multihead_attn(self.norm2(y), memory, memory,",
        "self.multihead_attn(y, memory, memory,",
    ),
    Mutant(
        "5.6", "memory_key_padding_mask not passed on",
        "key_padding_mask=memory_key_padding_mask,\n"
        "                                      attn_mask=memory_mask)",
        "key_padding_mask=None,\n"
        "                                      attn_mask=memory_mask)",
    ),
    # -- 5.7 the Transformer and greedy decoding
    Mutant(
        "5.7", "no positions added to the source",
        "        x = self.positional(x)  # added, not scaled\n",
        "",
    ),
    Mutant(
        "5.7", "target read with the source embedding",
        "        y = self.positional(self.tgt_embedding(tgt))\n        y = self.decoder(",
        "        y = self.positional(self.src_embedding(tgt))\n        y = self.decoder(",
    ),
    Mutant(
        "5.7", "memory_key_padding_mask not defaulted to the source's",
        "            memory_key_padding_mask = src_key_padding_mask\n",
        "            pass\n",
    ),
    Mutant(
        "5.7", "generate: a finished row keeps producing tokens",
        "next_token = np.where(done, eos_id, logits.data[:, -1].argmax(axis=-1))",
        "next_token = logits.data[:, -1].argmax(axis=-1)",
    ),
    Mutant(
        "5.7", "generate returns BOS too",
        "                return tokens[:, 1:]\n",
        "                return tokens\n",
    ),
    Mutant(
        "5.7", "generate reads the first position's logits",
        "logits.data[:, -1].argmax(axis=-1)",
        "logits.data[:, 0].argmax(axis=-1)",
    ),
    Mutant(
        "5.7", "generate never stops early",
        "                    if done.all():\n                        break\n",
        "",
    ),
    Mutant(
        "5.7", "generate without the source padding mask in decode",
        "logits = self.decode(tokens, memory, memory_key_padding_mask=src_key_padding_mask)",
        "logits = self.decode(tokens, memory)",
    ),
    Mutant(
        "5.7", "generate encodes without the source padding mask",
        "memory = self.encode(src, src_key_padding_mask)  # the encoder runs once",
        "memory = self.encode(src)  # the encoder runs once",
    ),
    # -- 5.8 the training step
    Mutant(
        "5.8", "decoder input not shifted",
        "tgt_in = shift_right(tgt_out, bos_id)",
        "tgt_in = tgt_out",
    ),
    Mutant(
        "5.8", "shift_right drops the first token, not the last",
        "return np.concatenate([bos, tgt_out[:, :-1]], axis=1)",
        "return np.concatenate([bos, tgt_out[:, 1:]], axis=1)",
    ),
    Mutant(
        "5.8", "padding counted in the loss",
        "ignore_index=pad_id, label_smoothing=label_smoothing)",
        "label_smoothing=label_smoothing)",
    ),
    Mutant(
        "5.8", "source padding not masked",
        "        src_key_padding_mask = src == pad_id\n",
        "        pass\n",
    ),
    Mutant(
        "5.8", "an explicit all-False source mask left out (the model's default replaces it)",
        "src_key_padding_mask=src_mask,",
        "src_key_padding_mask=src_mask if src_mask.any() else None,",
    ),
    Mutant(
        "5.8", "label smoothing dropped",
        "ignore_index=pad_id, label_smoothing=label_smoothing)",
        "ignore_index=pad_id)",
    ),
    # -- 5.9 (bonus) one step of beam search
    Mutant(
        "5.9", "the beams' scores forgotten: tokens ranked alone",
        "total = (scores[:, None] + log_probs).ravel()",
        "total = log_probs.ravel()",
    ),
    Mutant(
        "5.9", "worst first",
        "best = np.argsort(-total, kind=\"stable\")[:beam_size]",
        "best = np.argsort(total, kind=\"stable\")[:beam_size]",
    ),
    Mutant(
        "5.9", "ties to the higher index",
        "best = np.argsort(-total, kind=\"stable\")[:beam_size]",
        "best = (total.size - 1 - np.argsort(-total[::-1], kind=\"stable\"))[:beam_size]",
    ),
    Mutant(
        "5.9", "beam and token swapped",
        "    return total[best], beams, tokens\n",
        "    return total[best], tokens, beams\n",
    ),
    # -- 5.10 (bonus) RMSNorm
    Mutant(
        "5.10", "LayerNorm's mean subtracted",
        "        r = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)\n"
        "        x_hat = x * r\n",
        "        x = x - np.mean(x, axis=-1, keepdims=True)\n"
        "        r = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)\n"
        "        x_hat = x * r\n",
    ),
    Mutant(
        "5.10", "eps outside the square root",
        "r = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)",
        "r = 1.0 / (np.sqrt(np.mean(x * x, axis=-1, keepdims=True)) + eps)",
    ),
    Mutant(
        "5.10", "the input gradient without the normalisation term",
        "grad_x = r * (g_hat - x_hat * np.mean(g_hat * x_hat, axis=-1, keepdims=True))",
        "grad_x = r * g_hat",
    ),
    Mutant(
        "5.10", "the weight gradient summed over the wrong axis",
        "grad_w = np.sum(grad * x_hat, axis=tuple(range(grad.ndim - 1)))",
        "grad_w = np.sum(grad * x_hat, axis=-1)",
    ),
]
