"""Chapter 7's bug zoo: the mistakes learners make in a character-level GPT and its cache."""

from checks.mutants import Mutant

GPT = "nn/gpt.py"

MUTANTS = [
    # -- 7.1 characters as ids
    Mutant(
        "7.1", "characters in order of first appearance, not sorted",
        "self.chars = sorted(set(text))",
        "self.chars = list(dict.fromkeys(text))",
    ),
    Mutant(
        "7.1", "ids counted from 1 (decode shifted too)",
        "self.stoi = {ch: i for i, ch in enumerate(self.chars)}",
        "self.stoi = {ch: i + 1 for i, ch in enumerate(self.chars)}",
    ),
    # -- 7.2 training windows
    Mutant(
        "7.2", "targets not shifted (y = x)",
        "return data[offsets], data[offsets + 1]",
        "return data[offsets], data[offsets]",
    ),
    Mutant(
        "7.2", "the last window never drawn (one start too few)",
        "starts = rng.integers(0, len(data) - block_size, batch_size)",
        "starts = rng.integers(0, len(data) - block_size - 1, batch_size)",
    ),
    Mutant(
        "7.2", "a fresh unseeded generator instead of the one given",
        "rng = default_generator() if generator is None else generator\n"
        "    starts = rng.integers(",
        "rng = np.random.default_rng()\n"
        "    starts = rng.integers(",
    ),
    # -- 7.3 the bigram baseline
    Mutant(
        "7.3", "the table left at Embedding's N(0, 1) start: the loss starts far above ln V",
        "        self.table.weight.data[...] = 0  # every id equally likely: the loss starts at ln V\n",
        "",
    ),
    Mutant(
        "7.3", "one row for every id (a unigram): the current id is never read",
        "return self.table(idx)",
        "return self.table(np.zeros_like(idx))",
    ),
    Mutant(
        "7.3", "the loss summed over the positions, not averaged",
        "return F.cross_entropy(rows, np.asarray(targets).reshape(-1))",
        "return F.cross_entropy(rows, np.asarray(targets).reshape(-1), reduction=\"sum\")",
    ),
    Mutant(
        "7.3", "the loss scored against the input ids, not the targets",
        "return F.cross_entropy(rows, np.asarray(targets).reshape(-1))",
        "return F.cross_entropy(rows, np.asarray(idx).reshape(-1))",
    ),
    # -- 7.4 attention as an average of the past
    Mutant(
        "7.4", "a running sum: the triangle not divided by its row's count",
        "return lower / lower.sum(axis=1, keepdims=True)",
        "return lower",
    ),
    Mutant(
        "7.4", "every row divided by T, not by its own t + 1",
        "return lower / lower.sum(axis=1, keepdims=True)",
        "return lower / length",
    ),
    Mutant(
        "7.4", "the triangle transposed: each position averages the future",
        "return Tensor(weights) @ x",
        "return Tensor(weights.T) @ x",
    ),
    Mutant(
        "7.4", "the weights left in float64 whatever x's dtype",
        "weights = average_weights(x.shape[-2]).astype(x.dtype)",
        "weights = average_weights(x.shape[-2])",
    ),
    Mutant(
        "7.4", "the future's scores set to 0, not -inf: it keeps some weight",
        "return F.softmax(scores.masked_fill(future, -math.inf), axis=-1)",
        "return F.softmax(scores.masked_fill(future, 0.0), axis=-1)",
    ),
    Mutant(
        "7.4", "masked after the softmax: the rows no longer sum to 1",
        "return F.softmax(scores.masked_fill(future, -math.inf), axis=-1)",
        "return F.softmax(scores, axis=-1).masked_fill(future, 0.0)",
    ),
    Mutant(
        "7.4", "the softmax over the queries' axis, not the keys'",
        "return F.softmax(scores.masked_fill(future, -math.inf), axis=-1)",
        "return F.softmax(scores.masked_fill(future, -math.inf), axis=-2)",
    ),
    # -- 7.5 the decoder block
    Mutant(
        "7.5", "causal mask shifted by one: each query sees the next position",
        "return np.tri(length, source, source - length, dtype=bool)",
        "return np.tri(length, source, source - length + 1, dtype=bool)",
    ),
    Mutant(
        "7.5", "causal mask shifted the other way: a query does not see itself",
        "return np.tri(length, source, source - length, dtype=bool)",
        "return np.tri(length, source, source - length - 1, dtype=bool)",
    ),
    Mutant(
        "7.5", "mask aligned to the first positions, not the last (np.tri(L, S))",
        "return np.tri(length, source, source - length, dtype=bool)",
        "return np.tri(length, source, 0, dtype=bool)",
    ),
    Mutant(
        "7.5", "is_causal=True (chapter 5's habit): a square mask, wrong for L < S queries",
        """        mask = causal_mask(q.shape[-2], k.shape[-2])
        heads = F.scaled_dot_product_attention(q, k, v, mask)""",
        """        heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)""",
    ),
    Mutant(
        "7.5", "post-LN: the norm after the residual sum, not before the branch",
        "x = x + self.attn(self.ln_1(x), cache, layer)",
        "x = self.ln_1(x + self.attn(x, cache, layer))",
    ),
    Mutant(
        "7.5", "feed-forward without its residual",
        "return x + self.fc2(F.gelu(self.fc1(self.ln_2(x))))",
        "return self.fc2(F.gelu(self.fc1(self.ln_2(x))))",
    ),
    # -- 7.6 the GPT and its loss
    Mutant(
        "7.6", "output projections at 0.02 too, not 0.02/√(2·n_layer)",
        "std = 0.02 / math.sqrt(2 * n_layer) if name.endswith(residual) else 0.02",
        "std = 0.02",
    ),
    Mutant(
        "7.6", "output projections scaled by 1/√n_layer, not 1/√(2·n_layer)",
        "std = 0.02 / math.sqrt(2 * n_layer) if name.endswith(residual) else 0.02",
        "std = 0.02 / math.sqrt(n_layer) if name.endswith(residual) else 0.02",
    ),
    Mutant(
        "7.6", "biases left at Linear's own initialisation",
        """            if name.endswith("bias") and "ln_" not in name:
                param.data[...] = 0
            elif name.endswith("weight") and "ln_" not in name:""",
        """            if name.endswith("weight") and "ln_" not in name:""",
    ),
    Mutant(
        "7.6", "LayerNorm weights drawn like the others",
        """            elif name.endswith("weight") and "ln_" not in name:""",
        """            elif name.endswith("weight"):""",
    ),
    Mutant(
        "7.6", "position table of vocab_size rows",
        "Embedding(block_size, n_embd)",
        "Embedding(vocab_size, n_embd)",
    ),
    Mutant(
        "7.6", "an untied head of its own",
        "        self.ln_f = LayerNorm(n_embd)\n",
        "        self.ln_f = LayerNorm(n_embd)\n        self.head = Linear(n_embd, vocab_size)\n",
    ),
    Mutant(
        "7.6", "weights drawn from a generator of their own, not the shared one",
        "        draw = default_generator().normal",
        "        draw = np.random.default_rng().normal",
    ),
    Mutant(
        "7.6", "no position embeddings",
        "x = self.wte(idx) + self.wpe(positions)",
        "x = self.wte(idx)",
    ),
    Mutant(
        "7.6", "no final LayerNorm",
        "return self.ln_f(x) @ self.wte.weight.T",
        "return x @ self.wte.weight.T",
    ),
    Mutant(
        "7.6", "bits per character as nats · ln 2",
        "return float(loss_nats) / math.log(2)",
        "return float(loss_nats) * math.log(2)",
    ),
    Mutant(
        "7.6", "loss summed over positions, not averaged",
        "return F.cross_entropy(logits.reshape(-1, self.vocab_size), np.asarray(targets).reshape(-1))",
        "return F.cross_entropy(logits.reshape(-1, self.vocab_size), np.asarray(targets).reshape(-1), "
        "reduction=\"sum\")",
    ),
    # -- 7.7 sampling
    Mutant(
        "7.7", "temperature applied after the softmax (and renormalised away)",
        """    scaled = logits / temperature
    if top_k""",
        """    scaled = logits
    if top_k""",
    ),
    Mutant(
        "7.7", "top-k keeps k + 1",
        "kth = np.sort(scaled, axis=-1)[..., -top_k, None]",
        "kth = np.sort(scaled, axis=-1)[..., max(-top_k - 1, -scaled.shape[-1]), None]",
    ),
    Mutant(
        "7.7", "top-k keeps exactly k ids, dropping those tied with the k-th",
        """        kth = np.sort(scaled, axis=-1)[..., -top_k, None]  # the k-th largest
        scaled = np.where(scaled < kth, -np.inf, scaled)""",
        """        dropped = np.argsort(scaled, axis=-1, kind="stable")[..., :-top_k]
        scaled = scaled.copy()
        np.put_along_axis(scaled, dropped, -np.inf, axis=-1)""",
    ),
    Mutant(
        "7.7", "top-p excludes the id that crosses p",
        "np.put_along_axis(keep, order, before < top_p, axis=-1)",
        "np.put_along_axis(keep, order, (before + sorted_probs < top_p) | (before == 0), axis=-1)",
    ),
    Mutant(
        "7.7", "temperature 0 takes the last maximum on ties",
        "np.put_along_axis(greedy, logits.argmax(axis=-1)[..., None], 1.0, axis=-1)",
        "last = logits.shape[-1] - 1 - logits[..., ::-1].argmax(axis=-1)\n"
        "        np.put_along_axis(greedy, last[..., None], 1.0, axis=-1)",
    ),
    Mutant(
        "7.7", "one uniform number shared by every row",
        "u = rng.random((probs.shape[0], 1)) * cumulative[:, -1:]",
        "u = rng.random() * cumulative[:, -1:]",
    ),
    # -- 7.8 the key-value cache
    Mutant(
        "7.8", "positions restart at 0 in every cached step",
        "return np.arange(start, start + count)",
        "return np.arange(count)",
    ),
    Mutant(
        "7.8", "the new keys appended after attending: a new id does not see itself",
        "        self.keys[layer], self.values[layer] = k, v\n        return Tensor(k), Tensor(v)",
        "        old = (self.keys[layer], self.values[layer])\n"
        "        self.keys[layer], self.values[layer] = k, v\n"
        "        if old[0] is not None:\n"
        "            k, v = old\n"
        "        return Tensor(k), Tensor(v)",
    ),
    Mutant(
        "7.8", "the cache holds the Tensors, not their arrays",
        "        k, v = k.data, v.data\n        if self.keys[layer] is not None:",
        "        if self.keys[layer] is not None:",
    ),
    Mutant(
        "7.8", "the cache never stored: each step reads only its own ids",
        "        self.keys[layer], self.values[layer] = k, v\n        return Tensor(k), Tensor(v)",
        "        if self.keys[layer] is None:\n"
        "            self.keys[layer], self.values[layer] = k, v\n"
        "        return Tensor(k), Tensor(v)",
    ),
    Mutant(
        "7.8", "the last position of the context refused (>= instead of >)",
        "if start + count > self.max_length:",
        "if start + count >= self.max_length:",
    ),
    Mutant(
        "7.8", "no context check: past block_size the cache reads a position that is not there",
        "if start + count > self.max_length:",
        "if False:",
    ),
    Mutant(
        "7.8", "generate with the cache feeds the whole text every step",
        "fresh = next_id[:, None]",
        "fresh = idx",
    ),
    # -- 7.9 the training loop
    Mutant(
        "7.9", "the optimiser never steps: the weights stay where they started",
        "        optimizer.step()\n        scheduler.step()",
        "        scheduler.step()",
    ),
    Mutant(
        "7.9", "zero_grad forgotten: each step follows the sum of every gradient so far",
        "        optimizer.zero_grad()\n        loss.backward()",
        "        loss.backward()",
    ),
    Mutant(
        "7.9", "the evaluation builds a graph (no no_grad)",
        "        with no_grad():\n            losses = [",
        "        if True:\n            losses = [",
    ),
    Mutant(
        "7.9", "the evaluation in training mode",
        "    modes = _modes(model)\n    model.eval()\n    try:\n        with no_grad():",
        "    modes = _modes(model)\n    try:\n        with no_grad():",
    ),
    Mutant(
        "7.9", "the modes not restored: the model left in eval mode",
        "    finally:\n        _restore_modes(modes)\n    return float(np.mean(losses))",
        "    finally:\n        pass\n    return float(np.mean(losses))",
    ),
    Mutant(
        "7.9", "no evaluation after the last step",
        "        if step % every == 0 or step == steps:",
        "        if step % every == 0:",
    ),
    # -- 7.10 (bonus) perplexity
    Mutant(
        "7.10", "ignored positions counted",
        "    keep = ids != ignore_index\n    rows, ids = rows[keep], ids[keep]\n",
        "    ids = np.where(ids == ignore_index, 0, ids)\n",
    ),
    Mutant(
        "7.10", "no shift by the max: nan at 1e4",
        "    shifted = rows - rows.max(axis=1, keepdims=True)\n",
        "    shifted = rows\n",
    ),
    Mutant(
        "7.10", "the mean cross-entropy, not its exponential",
        "return float(np.exp(-log_probs[np.arange(len(ids)), ids].mean()))",
        "return float(-log_probs[np.arange(len(ids)), ids].mean())",
    ),
    Mutant(
        "7.10", "the exponential taken per position, then averaged",
        "return float(np.exp(-log_probs[np.arange(len(ids)), ids].mean()))",
        "return float(np.exp(-log_probs[np.arange(len(ids)), ids]).mean())",
    ),
    # -- 7.11 (bonus) repetition penalty
    Mutant(
        "7.11", "every logit divided, negative ones made more likely",
        "penalised = np.where(out > 0, out / penalty, out * penalty)",
        "penalised = out / penalty",
    ),
    Mutant(
        "7.11", "penalised once per occurrence",
        "    np.put_along_axis(seen, np.asarray(previous), True, axis=1)\n"
        "    penalised = np.where(out > 0, out / penalty, out * penalty)\n"
        "    return np.where(seen, penalised, out).astype(out.dtype)\n",
        "    for n, row in enumerate(np.asarray(previous)):\n"
        "        for i in row:\n"
        "            out[n, i] = out[n, i] / penalty if out[n, i] > 0 else out[n, i] * penalty\n"
        "    return out\n",
    ),
    Mutant(
        "7.11", "the logits given changed in place",
        "    out = np.array(logits, copy=True)\n"
        "    seen = np.zeros(out.shape, dtype=bool)\n"
        "    np.put_along_axis(seen, np.asarray(previous), True, axis=1)\n"
        "    penalised = np.where(out > 0, out / penalty, out * penalty)\n"
        "    return np.where(seen, penalised, out).astype(out.dtype)\n",
        "    for n, row in enumerate(np.asarray(previous)):\n"
        "        for i in set(row.tolist()):\n"
        "            logits[n, i] = logits[n, i] / penalty if logits[n, i] > 0 else logits[n, i] * penalty\n"
        "    return logits\n",
    ),
]
