"""Chapter 7's second correct implementation: every region written another textbook way.

The vocabulary as two dictionaries; windows cut one by one with slices; the bigram's table a
bare Parameter indexed by the ids, its loss through log_softmax and a one-hot; the running
mean as slice means, the causal softmax as exponentials times a 0/1 triangle; the causal mask
by comparing position grids; attention through chapter 5's MultiheadAttention forward
when there is no cache, and a float mask of -inf with a cache; the GPT's modules
initialised by their kind and the output projections scaled afterwards; the GPT's head as a
matmul with the embedding moved to (E, V) by transpose(); the loss through log_softmax
and a one-hot; top-k by argpartition, top-p by a loop over sorted rows, draws by
Generator.choice; the cache as preallocated buffers written in place.
"""

from checks.mutants import WHOLE_REGION, Mutant

GPT = "nn/gpt.py"

ALTERNATIVES = [
    Mutant(
        "7.1", "vocabulary as two dictionaries",
        """        self.chars = sorted(set(text))
        self.stoi = {ch: i for i, ch in enumerate(self.chars)}""",
        """        self.chars = sorted({*text})
        self.stoi = dict(zip(self.chars, range(len(self.chars))))
        self.itos = {i: ch for ch, i in self.stoi.items()}""",
    ),
    Mutant(
        "7.1", "encode and decode by lookup, one character at a time",
        """        unknown = set(text) - self.stoi.keys()
        if unknown:
            raise ValueError(f"CharVocab.encode: {sorted(unknown)!r} not in the vocabulary of "
                             f"{self.vocab_size} characters; build it from a text holding them")
        return np.array([self.stoi[ch] for ch in text], dtype=np.int64)""",
        """        ids = np.empty(len(text), dtype=np.int64)
        for i, ch in enumerate(text):
            if ch not in self.stoi:
                raise ValueError(f"CharVocab.encode: character {ch!r} is not in the vocabulary")
            ids[i] = self.stoi[ch]
        return ids""",
    ),
    Mutant(
        "7.1", "decode through the reverse dictionary",
        """        return "".join(self.chars[i] for i in np.asarray(ids, dtype=np.int64).ravel())""",
        """        return "".join(self.itos[int(i)] for i in np.ravel(ids))""",
    ),
    Mutant(
        "7.2", "windows cut one by one with slices",
        """    rng = default_generator() if generator is None else generator
    starts = rng.integers(0, len(data) - block_size, batch_size)  # the last start: len - T - 1
    offsets = starts[:, None] + np.arange(block_size)
    data = np.asarray(data, dtype=np.int64)
    return data[offsets], data[offsets + 1]""",
        """    rng = generator or default_generator()
    data = np.asarray(data).astype(np.int64)
    xs, ys = [], []
    for start in rng.choice(len(data) - block_size, size=batch_size):
        xs.append(data[start:start + block_size])
        ys.append(data[start + 1:start + block_size + 1])
    return np.stack(xs), np.stack(ys)""",
    ),
    Mutant(
        "7.3", "the table a bare Parameter, drawn small, indexed by the ids",
        """        self.table = Embedding(vocab_size, vocab_size)
        self.table.weight.data[...] = 0  # every id equally likely: the loss starts at ln V""",
        """        from .modules import Parameter
        draws = default_generator().normal(0.0, 1e-3, (vocab_size, vocab_size))
        self.logits = Parameter(draws.astype(np.float32))""",
    ),
    Mutant(
        "7.3", "the forward as a row lookup by indexing",
        "        return self.table(idx)",
        "        return self.logits[idx]",
    ),
    Mutant(
        "7.3", "the loss through log_softmax and a one-hot",
        """        rows = self(idx).reshape(-1, self.vocab_size)  # (N·T, V): one row per position
        return F.cross_entropy(rows, np.asarray(targets).reshape(-1))""",
        """        log_probs = F.log_softmax(self(idx), axis=-1)
        picked = np.eye(self.vocab_size)[np.asarray(targets)]
        return -(log_probs * picked).sum() / picked[..., 0].size""",
    ),
    Mutant(
        "7.4", "the running mean's weights by comparing position grids",
        """    lower = np.tri(length)
    return lower / lower.sum(axis=1, keepdims=True)""",
        """    t, j = np.indices((length, length))
    return np.where(j <= t, 1.0 / (t + 1), 0.0)""",
    ),
    Mutant(
        "7.4", "the running mean as one slice mean per position, stacked",
        """    weights = average_weights(x.shape[-2]).astype(x.dtype)
    return Tensor(weights) @ x""",
        """    from ..provided.surface import concatenate
    means = [x[..., : t + 1, :].mean(axis=-2, keepdims=True) for t in range(x.shape[-2])]
    return concatenate(means, axis=-2)""",
    ),
    Mutant(
        "7.4", "the causal softmax as exponentials times a 0/1 triangle, normalised",
        """    future = ~np.tri(scores.shape[-1], dtype=bool)
    return F.softmax(scores.masked_fill(future, -math.inf), axis=-1)""",
        """    lower = np.tri(scores.shape[-1])
    top = np.max(np.where(lower > 0, scores.data, -np.inf), axis=-1, keepdims=True)
    weights = (scores - top).exp() * lower.astype(scores.dtype)
    return weights / weights.sum(axis=-1, keepdims=True)""",
    ),
    Mutant(
        "7.5", "causal mask by comparing position grids",
        "    return np.tri(length, source, source - length, dtype=bool)",
        """    query_positions = np.arange(source - length, source)[:, None]
    return np.arange(source)[None, :] <= query_positions""",
    ),
    Mutant(
        "7.5", "attention through chapter 5's forward without a cache, a float mask with one",
        """        q, k, v = (self.split_heads(proj(x)) for proj in (self.q_proj, self.k_proj, self.v_proj))
        if cache is not None:
            k, v = cache.update(layer, k, v)
        mask = causal_mask(q.shape[-2], k.shape[-2])
        heads = F.scaled_dot_product_attention(q, k, v, mask)
        return self.out_proj(self.merge_heads(heads))""",
        """        if cache is None:
            blocked = ~causal_mask(x.shape[1], x.shape[1])  # chapter 5's masks: True = blocked
            out, _ = super().forward(x, x, x, attn_mask=blocked)
            return out
        q = self.split_heads(self.q_proj(x))
        k, v = cache.update(layer, self.split_heads(self.k_proj(x)),
                            self.split_heads(self.v_proj(x)))
        additive = np.where(causal_mask(q.shape[-2], k.shape[-2]), 0.0, -np.inf)
        heads = F.scaled_dot_product_attention(q, k, v, additive.astype(x.dtype))
        return self.out_proj(self.merge_heads(heads))""",
    ),
    Mutant(
        "7.5", "block with named branches",
        """        x = x + self.attn(self.ln_1(x), cache, layer)
        return x + self.fc2(F.gelu(self.fc1(self.ln_2(x))))""",
        """        from .modules import GELU

        attended = self.attn(self.ln_1(x), cache=cache, layer=layer)
        h = x + attended
        hidden = GELU()(self.fc1(self.ln_2(h)))
        return h + self.fc2(hidden)""",
    ),
    Mutant(
        "7.6", "modules first, then each module initialised by its kind",
        WHOLE_REGION,
        """        self.wte = Embedding(vocab_size, n_embd)
        self.wpe = Embedding(block_size, n_embd)
        self.blocks = ModuleList([Block(n_embd, n_head) for _ in range(n_layer)])
        self.ln_f = LayerNorm(n_embd)
        generator = default_generator()
        for module in self.modules():
            if isinstance(module, (Linear, Embedding)):
                module.weight.data[...] = generator.normal(0.0, 0.02, module.weight.shape)
            if isinstance(module, Linear) and module.bias is not None:
                module.bias.data[...] = 0.0
        for block in self.blocks:
            for projection in (block.attn.out_proj, block.fc2):
                projection.weight.data[...] /= math.sqrt(2 * n_layer)
""",
        within="GPT.__init__",
    ),
    Mutant(
        "7.6", "head as a matmul with the embedding transposed",
        """        positions = np.arange(idx.shape[1]) if cache is None else cache.positions(idx.shape[1])
        x = self.wte(idx) + self.wpe(positions)
        for layer, block in enumerate(self.blocks):
            x = block(x, cache, layer)
        return self.ln_f(x) @ self.wte.weight.T""",
        """        start = 0
        if cache is not None:
            start = int(cache.positions(idx.shape[1])[0])
        tokens = self.wte(idx)
        where = self.wpe(np.arange(start, start + idx.shape[1]))
        x = tokens + where
        for i in range(len(self.blocks)):
            x = self.blocks[i](x, cache=cache, layer=i)
        x = self.ln_f(x)
        return x.matmul(self.wte.weight.transpose(0, 1))""",
    ),
    Mutant(
        "7.6", "loss through log_softmax and a one-hot",
        """        logits = self(idx)
        return F.cross_entropy(logits.reshape(-1, self.vocab_size), np.asarray(targets).reshape(-1))""",
        """        logits = self.forward(idx).reshape(-1, self.vocab_size)
        one_hot = np.eye(self.vocab_size, dtype=logits.dtype)[np.asarray(targets).ravel()]
        return -(F.log_softmax(logits, axis=-1) * one_hot).sum() / len(one_hot)""",
    ),
    Mutant(
        "7.6", "bits per character with log2",
        "    return float(loss_nats) / math.log(2)",
        "    return float(loss_nats) * math.log2(math.e)",
    ),
    Mutant(
        "7.7", "top-k by argpartition, top-p by a loop over sorted rows",
        """    if temperature == 0:
        greedy = np.zeros_like(logits)
        np.put_along_axis(greedy, logits.argmax(axis=-1)[..., None], 1.0, axis=-1)
        return greedy
    scaled = logits / temperature
    if top_k is not None and top_k < logits.shape[-1]:
        kth = np.sort(scaled, axis=-1)[..., -top_k, None]  # the k-th largest
        scaled = np.where(scaled < kth, -np.inf, scaled)
    probs = np.exp(scaled - scaled.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    if top_p is not None:
        order = np.argsort(-probs, axis=-1, kind="stable")
        sorted_probs = np.take_along_axis(probs, order, axis=-1)
        before = np.cumsum(sorted_probs, axis=-1) - sorted_probs  # the mass ahead of each id
        keep = np.zeros(probs.shape, dtype=bool)
        np.put_along_axis(keep, order, before < top_p, axis=-1)
        probs = np.where(keep, probs, 0.0)
        probs /= probs.sum(axis=-1, keepdims=True)
    return probs""",
        """    rows = logits.reshape(-1, logits.shape[-1])
    out = np.zeros_like(rows)
    for r, row in enumerate(rows):
        if temperature == 0:
            out[r, np.argmax(row)] = 1.0
            continue
        z = row / temperature
        if top_k is not None and top_k < len(z):
            cut = np.partition(z, len(z) - top_k)[len(z) - top_k]
            z = np.where(z >= cut, z, -np.inf)
        p = np.exp(z - z.max())
        p = p / p.sum()
        if top_p is not None:
            kept, mass = np.zeros(len(p)), 0.0
            for i in sorted(range(len(p)), key=lambda i: -p[i]):
                if mass >= top_p:
                    break
                kept[i], mass = p[i], mass + p[i]
            p = kept / kept.sum()
        out[r] = p
    return out.reshape(logits.shape)""",
    ),
    Mutant(
        "7.7", "draws by Generator.choice",
        """    rng = default_generator() if generator is None else generator
    cumulative = np.cumsum(probs, axis=-1)
    u = rng.random((probs.shape[0], 1)) * cumulative[:, -1:]
    # the first id whose cumulative mass passes u; an id of probability 0 is never it
    return (cumulative <= u).sum(axis=-1).astype(np.int64)""",
        """    rng = generator if generator is not None else default_generator()
    return np.array([rng.choice(len(p), p=p / p.sum()) for p in probs], dtype=np.int64)""",
    ),
    Mutant(
        "7.8", "the cache as preallocated buffers written in place",
        """        k, v = k.data, v.data
        if self.keys[layer] is not None:
            k = np.concatenate([self.keys[layer], k], axis=-2)
            v = np.concatenate([self.values[layer], v], axis=-2)
        self.keys[layer], self.values[layer] = k, v
        return Tensor(k), Tensor(v)""",
        """        old = 0 if self.keys[layer] is None else self.keys[layer].shape[-2]
        new = old + k.shape[-2]
        if old == 0:
            shape = k.shape[:2] + (self.max_length, k.shape[-1])
            self.buffers = getattr(self, "buffers", {})
            self.buffers[layer] = (np.zeros(shape, k.data.dtype), np.zeros(shape, v.data.dtype))
        keys, values = self.buffers[layer]
        keys[:, :, old:new], values[:, :, old:new] = k.data, v.data
        self.keys[layer], self.values[layer] = keys[:, :, :new], values[:, :, :new]
        return Tensor(self.keys[layer]), Tensor(self.values[layer])""",
    ),
    Mutant(
        "7.8", "positions checked after computing them",
        """        start = self.length
        if start + count > self.max_length:
            raise ValueError(
                f"KVCache: {count} new ids after {start} would reach position "
                f"{start + count - 1}, beyond the context of {self.max_length} positions "
                "(block_size); start a new cache from the last ids")
        return np.arange(start, start + count)""",
        """        positions = self.length + np.arange(count)
        if positions[-1] >= self.max_length:
            raise ValueError(f"KVCache: position {positions[-1]} is past {self.max_length}")
        return positions""",
    ),
    Mutant(
        "7.8", "generate: the prompt primed before the loop",
        """                cache = KVCache(self.n_layer, self.block_size) if use_cache else None
                fresh = idx  # what the model has not read yet
                for _ in range(max_new_tokens):
                    logits = self(fresh if use_cache else idx[:, -self.block_size:], cache)
                    next_id = sample_next(logits.data[:, -1], temperature, top_k, top_p, generator)
                    idx = np.concatenate([idx, next_id[:, None]], axis=1)
                    fresh = next_id[:, None]
                return idx""",
        """                out = [idx]
                if use_cache:
                    cache = KVCache(self.n_layer, self.block_size)
                    logits = self.forward(idx, cache).data[:, -1]
                for step in range(max_new_tokens):
                    if not use_cache:
                        window = np.concatenate(out, axis=1)[:, -self.block_size:]
                        logits = self.forward(window).data[:, -1]
                    elif step > 0:
                        logits = self.forward(out[-1], cache).data[:, -1]
                    out.append(sample_next(logits, temperature, top_k, top_p, generator)[:, None])
                return np.concatenate(out, axis=1)""",
    ),
    Mutant(
        "7.9", "the evaluation as a running sum under set_grad_enabled(False)",
        """    modes = _modes(model)
    model.eval()
    try:
        with no_grad():
            losses = [model.loss(*get_batch(ids, batch_size, block_size, generator)).item()
                      for _ in range(batches)]
    finally:
        _restore_modes(modes)
    return float(np.mean(losses))""",
        """    from ..autodiff import set_grad_enabled
    flags = [(module, module.training) for module in model.modules()]
    model.eval()
    total = 0.0
    with set_grad_enabled(False):
        for _ in range(batches):
            x, y = get_batch(ids, batch_size, block_size, generator)
            total += float(model.loss(x, y).data)
    for module, flag in flags:
        object.__setattr__(module, "training", flag)
    return total / batches""",
    ),
    Mutant(
        "7.9", "the loop: groups by name, the gradients cleared after each step",
        """    rng = default_generator() if generator is None else generator
    params = list(model.parameters())
    groups = [{"params": [p for p in params if p.ndim >= 2], "weight_decay": weight_decay},
              {"params": [p for p in params if p.ndim < 2], "weight_decay": 0.0}]
    optimizer = AdamW([g for g in groups if g["params"]], lr=lr, betas=(0.9, 0.99))""",
        """    rng = generator or default_generator()
    named = dict(model.named_parameters())
    params = list(named.values())
    decay = [name for name, p in named.items() if len(p.shape) > 1]
    groups = [{"params": [named[n] for n in decay], "weight_decay": weight_decay}]
    rest = [p for n, p in named.items() if n not in decay]
    if rest:
        groups.append({"params": rest, "weight_decay": 0.0})
    optimizer = AdamW(groups, lr=lr, betas=(0.9, 0.99))
    optimizer.zero_grad()""",
    ),
    Mutant(
        "7.9", "the step: zero_grad after the update, not before the backward",
        """        optimizer.zero_grad()
        loss.backward()
        clip_grad_norm_(params, max_norm)
        optimizer.step()
        scheduler.step()""",
        """        loss.backward()
        clip_grad_norm_(params, max_norm)
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()""",
    ),
    Mutant(
        "7.10", "perplexity by a loop over the rows, logaddexp for the normaliser",
        WHOLE_REGION,
        "total, count = 0.0, 0\n"
        "for row, target in zip(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)):\n"
        "    if target == ignore_index:\n"
        "        continue\n"
        "    total += np.logaddexp.reduce(row) - row[target]\n"
        "    count += 1\n"
        "return float(np.exp(total / count))\n",
    ),
    Mutant(
        "7.11", "the penalty by rows and a set of ids",
        WHOLE_REGION,
        "out = logits.copy()\n"
        "for n, row in enumerate(previous):\n"
        "    ids = np.array(sorted(set(row.tolist())), dtype=int)\n"
        "    values = out[n, ids]\n"
        "    out[n, ids] = np.where(values > 0, values / penalty, values * penalty)\n"
        "return out\n",
    ),
]
