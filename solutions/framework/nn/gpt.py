"""Chapter 7: a character-level GPT, as nanoGPT's, with a key-value cache proved exact.

Text becomes ids (`CharVocab`), ids become training windows (`get_batch`), a `Bigram` table
sets the baseline to beat, attention starts as an average of the past (`causal_average`,
`causal_softmax`), and a decoder-only Transformer (`GPT`: token and position embeddings, pre-LN
`Block`s of causal self-attention and a feed-forward network, a final LayerNorm, a head tied to
the token embedding) learns to predict each next character. `next_token_probabilities` and
`sample_next` (sampling.py) turn its logits into text; a `KVCache` keeps every layer's keys and
values, so `GPT.generate` feeds one new token per step instead of the whole text again; `train`
and `estimate_loss` are the loop that trains any of these models.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..autodiff import no_grad
from ..function import unwrap
from ..optim import AdamW, WarmupCosineLR, clip_grad_norm_
from ..provided.generator import default_generator
from ..tensor import Tensor
from . import functional as F
from .attention import MultiheadAttention
from .modules import Linear, Module, ModuleList
from .normalization import LayerNorm
from .sampling import _check_settings, next_token_probabilities, sample_next
from .sparse import Embedding
from .transformer import _modes, _restore_modes

__all__ = [
    "GPT", "Bigram", "Block", "CausalSelfAttention", "CharVocab", "KVCache", "average_weights",
    "bits_per_char", "causal_average", "causal_mask", "causal_softmax", "estimate_loss",
    "get_batch", "next_token_probabilities", "sample_next", "train",
]


# -- exercise 7.1: characters as ids --------------------------------------------------------------


class CharVocab:
    """The distinct characters of a text, sorted: id i is the i-th of them (nanoGPT's order)."""

    def __init__(self, text: str) -> None:
        ### BEGIN SOLUTION 7.1
        self.chars = sorted(set(text))
        self.stoi = {ch: i for i, ch in enumerate(self.chars)}
        ### END SOLUTION

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> np.ndarray:
        """The ids of text's characters, int64 (len(text),); ValueError for a character
        outside the vocabulary, naming it."""
        ### BEGIN SOLUTION 7.1
        unknown = set(text) - self.stoi.keys()
        if unknown:
            raise ValueError(f"CharVocab.encode: {sorted(unknown)!r} not in the vocabulary of "
                             f"{self.vocab_size} characters; build it from a text holding them")
        return np.array([self.stoi[ch] for ch in text], dtype=np.int64)
        ### END SOLUTION

    def decode(self, ids) -> str:
        """The text of a sequence of ids: decode(encode(s)) == s. The provided start refuses an
        id outside 0..vocab_size-1 (ValueError, naming them) and ids that are not integers."""
        given = np.asarray(unwrap(ids))
        if given.size and not np.issubdtype(given.dtype, np.integer):
            raise TypeError(f"CharVocab.decode: ids must be integers, got {given.dtype} "
                            f"{given.ravel()[:5].tolist()}; pass the int ids encode or a model gives")
        outside = np.unique(given[(given < 0) | (given >= self.vocab_size)])
        if outside.size:
            named = ", ".join(str(i) for i in outside[:10]) + (", …" if outside.size > 10 else "")
            raise ValueError(f"CharVocab.decode: ids [{named}] not in the vocabulary of "
                             f"{self.vocab_size} characters, ids 0..{self.vocab_size - 1}; decode "
                             f"ids this vocabulary gave (encode's, or a GPT's of vocab_size="
                             f"{self.vocab_size})")
        ### BEGIN SOLUTION 7.1
        return "".join(self.chars[i] for i in np.asarray(ids, dtype=np.int64).ravel())
        ### END SOLUTION


# -- exercise 7.2: training windows ---------------------------------------------------------------


def get_batch(data: np.ndarray, batch_size: int, block_size: int,
              generator: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """batch_size windows of block_size consecutive ids, each starting at a position drawn
    uniformly from every start that leaves room for one more id, from `generator` (the shared
    one by default). Returns x and y, int64 (batch_size, block_size): y[b, t] = the id after
    x[b, t], so that y is x moved one step along the text.
    """
    if len(data) <= block_size:
        raise ValueError(f"get_batch: {len(data)} ids leave no window of block_size={block_size} "
                         "plus its next id; use a longer text or a smaller block_size")
    ### BEGIN SOLUTION 7.2
    rng = default_generator() if generator is None else generator
    starts = rng.integers(0, len(data) - block_size, batch_size)  # the last start: len - T - 1
    offsets = starts[:, None] + np.arange(block_size)
    data = np.asarray(data, dtype=np.int64)
    return data[offsets], data[offsets + 1]
    ### END SOLUTION


# -- exercise 7.3: the bigram baseline ----------------------------------------------------------


class Bigram(Module):
    """The baseline: the next id's logits read from a (V, V) table at the current id alone,
    logits[n, t] = table[idx[n, t]]. V² parameters, all zero at the start: the loss is ln V."""

    def __init__(self, vocab_size: int) -> None:
        super().__init__()
        ### BEGIN SOLUTION 7.3
        self.table = Embedding(vocab_size, vocab_size)
        self.table.weight.data[...] = 0  # every id equally likely: the loss starts at ln V
        ### END SOLUTION
        self.vocab_size = vocab_size

    def forward(self, idx) -> Tensor:
        """ids (N, T) → logits (N, T, vocab_size)."""
        idx = np.asarray(unwrap(idx))
        if idx.ndim != 2:
            raise ValueError(f"Bigram: ids of shape {idx.shape}; expected a batch (N, T) of rows "
                             "of ids: idx[None] for one sequence")
        ### BEGIN SOLUTION 7.3
        return self.table(idx)
        ### END SOLUTION

    def loss(self, idx, targets) -> Tensor:
        """The mean cross-entropy, in nats per character, of predicting targets (N, T) from idx."""
        targets = unwrap(targets)  # ids from a DataLoader come as tensors
        ### BEGIN SOLUTION 7.3
        rows = self(idx).reshape(-1, self.vocab_size)  # (N·T, V): one row per position
        return F.cross_entropy(rows, np.asarray(targets).reshape(-1))
        ### END SOLUTION


# -- exercise 7.4: attention as an average of the past ---------------------------------------------


def average_weights(length: int) -> np.ndarray:
    """(T, T) float64 weights of the running mean: W[t, j] = 1/(t+1) for j <= t, else 0, so
    that (W @ x)[t] is the mean of x[0 … t]."""
    ### BEGIN SOLUTION 7.4
    lower = np.tri(length)
    return lower / lower.sum(axis=1, keepdims=True)
    ### END SOLUTION


def causal_average(x: Tensor) -> Tensor:
    """x (..., T, C) → (..., T, C), x's dtype: position t the mean of x at positions 0 … t,
    as one product average_weights(T) @ x."""
    ### BEGIN SOLUTION 7.4
    weights = average_weights(x.shape[-2]).astype(x.dtype)
    return Tensor(weights) @ x
    ### END SOLUTION


def causal_softmax(scores: Tensor) -> Tensor:
    """scores (..., T, T) → weights (..., T, T): row t the softmax of scores[t, 0 … t], 0 for
    the keys after t. Equal scores give average_weights(T): attention is a weighted average."""
    ### BEGIN SOLUTION 7.4
    future = ~np.tri(scores.shape[-1], dtype=bool)
    return F.softmax(scores.masked_fill(future, -math.inf), axis=-1)
    ### END SOLUTION


# -- exercise 7.5: the decoder block ----------------------------------------------------------------


def causal_mask(length: int, source: int) -> np.ndarray:
    """(length, source) boolean, True where query i MAY attend to key j (scaled_dot_product_
    attention's convention). The queries are the last `length` of `source` positions: query i
    sits at position source - length + i and sees keys j <= source - length + i.
    """
    ### BEGIN SOLUTION 7.5
    return np.tri(length, source, source - length, dtype=bool)
    ### END SOLUTION


class CausalSelfAttention(MultiheadAttention):
    """Chapter 5's multi-head attention, each position reading itself and the ones before.

    x (N, T, E) → (N, T, E). With a cache, x holds only the new positions: their keys and
    values join the cached ones (`KVCache.update`), and the queries read all of them.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True) -> None:
        # batch first, always: a GPT's activations are (N, T, E), and chapter 5's forward,
        # which a subclass may call, reads its inputs in the layout it was built with
        super().__init__(embed_dim, num_heads, dropout=dropout, bias=bias, batch_first=True)

    def forward(self, x: Tensor, cache: KVCache | None = None, layer: int = 0) -> Tensor:
        ### BEGIN SOLUTION 7.5
        q, k, v = (self.split_heads(proj(x)) for proj in (self.q_proj, self.k_proj, self.v_proj))
        if cache is not None:
            k, v = cache.update(layer, k, v)
        mask = causal_mask(q.shape[-2], k.shape[-2])
        heads = F.scaled_dot_product_attention(q, k, v, mask)
        return self.out_proj(self.merge_heads(heads))
        ### END SOLUTION


class Block(Module):
    """Pre-LN decoder block: x + attn(ln_1 x), then x + mlp(ln_2 x), mlp(h) = fc2(gelu(fc1 h))
    with a hidden width of 4·n_embd (GPT-2's)."""

    def __init__(self, n_embd: int, n_head: int) -> None:
        super().__init__()
        self.ln_1 = LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.ln_2 = LayerNorm(n_embd)
        self.fc1, self.fc2 = Linear(n_embd, 4 * n_embd), Linear(4 * n_embd, n_embd)

    def forward(self, x: Tensor, cache: KVCache | None = None, layer: int = 0) -> Tensor:
        ### BEGIN SOLUTION 7.5
        x = x + self.attn(self.ln_1(x), cache, layer)
        return x + self.fc2(F.gelu(self.fc1(self.ln_2(x))))
        ### END SOLUTION


# -- exercise 7.6: the GPT and its loss ------------------------------------------------------------


class GPT(Module):
    """ids (N, T) → logits (N, T, vocab_size), T <= block_size: rows of `wte` (V, E) plus `wpe`
    (block_size, E), `blocks` (a ModuleList of n_layer Blocks), `ln_f`, and `wte` again as the
    head (tied: logits = h Wₜₑᵀ). Weights start as GPT-2's, from the shared generator: N(0, 0.02),
    the layers' output projections N(0, 0.02/√(2·n_layer)), biases 0, LayerNorms 1 and 0."""

    def __init__(self, vocab_size: int, block_size: int = 64, n_layer: int = 4, n_head: int = 4,
                 n_embd: int = 128) -> None:
        super().__init__()
        self.vocab_size, self.block_size, self.n_layer = vocab_size, block_size, n_layer
        self.n_head, self.n_embd = n_head, n_embd
        ### BEGIN SOLUTION 7.6
        self.wte, self.wpe = Embedding(vocab_size, n_embd), Embedding(block_size, n_embd)
        self.blocks = ModuleList(Block(n_embd, n_head) for _ in range(n_layer))
        self.ln_f = LayerNorm(n_embd)
        draw = default_generator().normal
        residual = ("out_proj.weight", "fc2.weight")  # added to the stream: 2·n_layer of them
        for name, param in self.named_parameters():
            if name.endswith("bias") and "ln_" not in name:
                param.data[...] = 0
            elif name.endswith("weight") and "ln_" not in name:
                std = 0.02 / math.sqrt(2 * n_layer) if name.endswith(residual) else 0.02
                param.data[...] = draw(0.0, std, param.data.shape)
        ### END SOLUTION

    def forward(self, idx, cache: KVCache | None = None) -> Tensor:
        """Logits for ids (N, T). With a cache, idx holds only the new ids: they sit at
        positions cache.positions(T) and read the cached keys and values too."""
        idx = np.asarray(unwrap(idx))
        if idx.ndim != 2:
            raise ValueError(f"GPT: ids of shape {idx.shape}; expected a batch (N, T) of rows of "
                             "ids: idx[None] for one sequence")
        if cache is None and idx.shape[1] > self.block_size:
            raise ValueError(f"GPT: ids of shape {idx.shape}; expected (N, T) with T <= "
                             f"block_size={self.block_size}: crop to the last {self.block_size}")
        if cache is not None:
            self._check_cache(cache, idx.shape[0])
        ### BEGIN SOLUTION 7.6
        positions = np.arange(idx.shape[1]) if cache is None else cache.positions(idx.shape[1])
        x = self.wte(idx) + self.wpe(positions)
        for layer, block in enumerate(self.blocks):
            x = block(x, cache, layer)
        return self.ln_f(x) @ self.wte.weight.T
        ### END SOLUTION

    def _check_cache(self, cache: KVCache, batch: int) -> None:
        """A cache built for this model (its layers, at most its context) and for this batch."""
        build = "build it as KVCache(model.n_layer, model.block_size)"
        if len(cache.keys) != self.n_layer:
            raise ValueError(f"GPT: a KVCache of {len(cache.keys)} layers for a model of n_layer="
                             f"{self.n_layer}; {build}")
        if cache.max_length > self.block_size:
            raise ValueError(
                f"GPT: a KVCache of max_length={cache.max_length} positions for a model whose "
                f"context is block_size={self.block_size} positions (0..{self.block_size - 1}): "
                f"positions from {self.block_size} on have no embedding; {build}")
        stored = [(name, layer, type(held).__name__)
                  for name, held_list in (("keys", cache.keys), ("values", cache.values))
                  for layer, held in enumerate(held_list)
                  if held is not None and not isinstance(held, np.ndarray)]
        if stored:
            name, layer, kind = stored[0]
            raise TypeError(
                f"GPT: the KVCache holds {name}[{layer}] as a {kind}, not a NumPy array: "
                f"KVCache.update (7.8) must store the arrays (k.data, v.data), which no graph "
                f"follows, and return them wrapped as new Tensors")
        held = next((keys for keys in cache.keys if keys is not None), None)
        if held is not None and held.shape[0] != batch:
            raise ValueError(
                f"GPT: a batch of {batch} sequences fed to a KVCache holding {held.shape[0]}; a "
                f"cache serves the batch it started with: for another batch start a new one, "
                f"KVCache(model.n_layer, model.block_size)")

    def loss(self, idx, targets) -> Tensor:
        """The mean cross-entropy, in nats per character, of predicting targets (N, T) from idx."""
        targets = unwrap(targets)  # ids from a DataLoader come as tensors
        ### BEGIN SOLUTION 7.6
        logits = self(idx)
        return F.cross_entropy(logits.reshape(-1, self.vocab_size), np.asarray(targets).reshape(-1))
        ### END SOLUTION

    def generate(self, idx, max_new_tokens: int, temperature: float = 1.0, top_k: int | None = None,
                 top_p: float | None = None, generator: np.random.Generator | None = None,
                 use_cache: bool = True) -> np.ndarray:
        """idx (N, T₀) followed by max_new_tokens sampled ids, int64 (N, T₀ + max_new_tokens).

        With the cache, the prompt is fed once and then one new id per step; every id must
        have a position: T₀ + max_new_tokens - 1 <= block_size, or ValueError. Without it,
        each step reads the last block_size ids again (a sliding window, for any length).
        Eval mode, no graph; draws come from `generator` (the shared one by default).
        The provided start refuses a prompt that is not (N, T₀) integer ids of the vocabulary
        with T₀ >= 1, a max_new_tokens that is not an int >= 0 (0 returns the prompt), and the
        sampling settings next_token_probabilities refuses.
        """
        prompt = np.asarray(unwrap(idx))
        if prompt.ndim != 2 or prompt.shape[1] == 0:
            hint = ("one prompt is idx[None], shape (1, T)" if prompt.ndim == 1 and prompt.size
                    else "give each row at least one id to continue (a newline's, say)")
            raise ValueError(f"GPT.generate: a prompt of shape {prompt.shape}; expected a batch "
                             f"(N, T) of T >= 1 ids per row: {hint}")
        if not np.issubdtype(prompt.dtype, np.integer):
            raise TypeError(f"GPT.generate: prompt ids must be integers, got {prompt.dtype}; "
                            "pass the int ids CharVocab.encode gives")
        if prompt.size and (prompt.min() < 0 or prompt.max() >= self.vocab_size):
            bad = prompt[(prompt < 0) | (prompt >= self.vocab_size)][0]
            raise ValueError(f"GPT.generate: prompt id {bad} is not in the vocabulary, ids "
                             f"0..{self.vocab_size - 1} (vocab_size={self.vocab_size})")
        if isinstance(max_new_tokens, (bool, np.bool_)) or not isinstance(max_new_tokens,
                                                                          (int, np.integer)):
            raise TypeError(f"GPT.generate: max_new_tokens={max_new_tokens!r} must be an int >= 0, "
                            "the number of ids to add")
        if max_new_tokens < 0:
            raise ValueError(f"GPT.generate: max_new_tokens={max_new_tokens} must be >= 0, the "
                             "number of ids to add (0 returns the prompt)")
        _check_settings("GPT.generate", temperature, top_k, top_p)
        idx = np.asarray(unwrap(idx), dtype=np.int64)
        if use_cache and idx.shape[1] + max_new_tokens - 1 > self.block_size:
            raise ValueError(
                f"GPT.generate: {idx.shape[1]} prompt ids + {max_new_tokens} new ones need "
                f"{idx.shape[1] + max_new_tokens - 1} positions, beyond block_size="
                f"{self.block_size}; pass use_cache=False to slide a window over the last "
                f"{self.block_size} ids (each step then reads them all)")
        modes = _modes(self)
        self.eval()
        try:
            with no_grad():
                ### BEGIN SOLUTION 7.8
                cache = KVCache(self.n_layer, self.block_size) if use_cache else None
                fresh = idx  # what the model has not read yet
                for _ in range(max_new_tokens):
                    logits = self(fresh if use_cache else idx[:, -self.block_size:], cache)
                    next_id = sample_next(logits.data[:, -1], temperature, top_k, top_p, generator)
                    idx = np.concatenate([idx, next_id[:, None]], axis=1)
                    fresh = next_id[:, None]
                return idx
                ### END SOLUTION
        finally:
            _restore_modes(modes)  # every module's own flag, as Transformer.generate


def bits_per_char(loss_nats: float) -> float:
    """A loss in nats (natural log) per character as bits (log₂) per character."""
    ### BEGIN SOLUTION 7.6
    return float(loss_nats) / math.log(2)
    ### END SOLUTION


# -- exercise 7.8: the key-value cache ---------------------------------------------------------------


class KVCache:
    """Every layer's keys and values (N, H, S, head_dim) for the S positions read so far, up to
    max_length (the model's block_size). No gradient flows through it: it serves generation.
    """

    def __init__(self, num_layers: int, max_length: int) -> None:
        for name, value in (("num_layers", num_layers), ("max_length", max_length)):
            if (isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))
                    or value < 1):
                raise ValueError(f"KVCache: {name}={value!r} must be an int >= 1; build the cache "
                                 "of a model as KVCache(model.n_layer, model.block_size)")
        self.max_length = max_length
        self.keys: list[np.ndarray | None] = [None] * num_layers
        self.values: list[np.ndarray | None] = [None] * num_layers

    @property
    def length(self) -> int:
        """How many positions every layer holds (between two forwards)."""
        last = self.keys[-1]
        return 0 if last is None else last.shape[-2]

    def positions(self, count: int) -> np.ndarray:
        """The positions of `count` new ids, after the ones read so far; ValueError beyond
        max_length, the cache unchanged."""
        ### BEGIN SOLUTION 7.8
        start = self.length
        if start + count > self.max_length:
            raise ValueError(
                f"KVCache: {count} new ids after {start} would reach position "
                f"{start + count - 1}, beyond the context of {self.max_length} positions "
                "(block_size); start a new cache from the last ids")
        return np.arange(start, start + count)
        ### END SOLUTION

    def update(self, layer: int, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
        """Append the new positions' keys and values (N, H, T, head_dim) to layer's and return
        all of them, (N, H, S + T, head_dim): the new queries read the old keys and their own.
        The provided start refuses a layer the cache does not have, and new keys whose batch,
        heads or head_dim differ from the ones held."""
        if not 0 <= layer < len(self.keys):
            raise IndexError(f"KVCache.update: layer {layer} of a cache of {len(self.keys)} layers "
                             f"(0..{len(self.keys) - 1}); build the cache of a model as "
                             "KVCache(model.n_layer, model.block_size)")
        held, new = self.keys[layer], np.shape(unwrap(k))
        if held is not None and held.shape[:-2] + held.shape[-1:] != new[:-2] + new[-1:]:
            raise ValueError(
                f"KVCache.update: layer {layer} holds keys of shape {held.shape} (N, H, S, "
                f"head_dim); new keys of shape {new} differ in more than the position axis: a "
                "cache serves one batch of one model; start a new KVCache for another batch")
        ### BEGIN SOLUTION 7.8
        k, v = k.data, v.data
        if self.keys[layer] is not None:
            k = np.concatenate([self.keys[layer], k], axis=-2)
            v = np.concatenate([self.values[layer], v], axis=-2)
        self.keys[layer], self.values[layer] = k, v
        return Tensor(k), Tensor(v)
        ### END SOLUTION


# -- exercise 7.9: the training loop -----------------------------------------------------------------


def estimate_loss(model: Module, ids: np.ndarray, batch_size: int, block_size: int, batches: int,
                  generator: np.random.Generator | None = None) -> float:
    """The mean of model.loss over `batches` batches drawn in turn by get_batch from `generator`,
    in eval mode with no graph; every module's mode is restored afterwards."""
    ### BEGIN SOLUTION 7.9
    modes = _modes(model)
    model.eval()
    try:
        with no_grad():
            losses = [model.loss(*get_batch(ids, batch_size, block_size, generator)).item()
                      for _ in range(batches)]
    finally:
        _restore_modes(modes)
    return float(np.mean(losses))
    ### END SOLUTION


def train(model: Module, train_ids: np.ndarray, val_ids: np.ndarray, steps: int, batch_size: int,
          block_size: int, lr: float = 1e-3, warmup: int = 100, weight_decay: float = 0.1,
          max_norm: float = 1.0, eval_every: int | None = None, eval_batches: int = 8,
          generator: np.random.Generator | None = None,
          on_step: Callable[[int, float], None] | None = None) -> list[tuple[int, float]]:
    """`steps` updates of model on get_batch windows of train_ids; returns [(step, val loss)].

    Each step: the loss of a batch, its own gradient clipped to a global norm of max_norm, an
    AdamW step (betas 0.9, 0.99; weight decay on the parameters of 2 axes or more only) and a
    WarmupCosineLR step (to lr / 10 at `steps`); on_step(step, loss) if given. After every
    eval_every steps (steps // 8, at least 1, by default) and the last: estimate_loss of
    eval_batches batches of val_ids, the same windows each time (default_rng(1234)).
    The provided start refuses a steps or a warmup that is not an int with 0 <= warmup < steps.
    """
    if not (isinstance(steps, int) and isinstance(warmup, int) and 0 <= warmup < steps):
        raise ValueError(f"train: steps={steps!r} and warmup={warmup!r} must be ints with 0 <= "
                         "warmup < steps (the warm-up is part of the steps)")
    every = eval_every or max(1, steps // 8)
    ### BEGIN SOLUTION 7.9
    rng = default_generator() if generator is None else generator
    params = list(model.parameters())
    groups = [{"params": [p for p in params if p.ndim >= 2], "weight_decay": weight_decay},
              {"params": [p for p in params if p.ndim < 2], "weight_decay": 0.0}]
    optimizer = AdamW([g for g in groups if g["params"]], lr=lr, betas=(0.9, 0.99))
    scheduler = WarmupCosineLR(optimizer, warmup_steps=warmup, total_steps=steps, min_lr=lr / 10)
    model.train()
    history = []
    for step in range(1, steps + 1):
        loss = model.loss(*get_batch(train_ids, batch_size, block_size, rng))
        optimizer.zero_grad()
        loss.backward()
        clip_grad_norm_(params, max_norm)
        optimizer.step()
        scheduler.step()
        if on_step is not None:
            on_step(step, loss.item())
        if step % every == 0 or step == steps:
            windows = np.random.default_rng(1234)  # the same windows at every evaluation
            history.append((step, estimate_loss(model, val_ids, batch_size, block_size,
                                                eval_batches, windows)))
    return history
    ### END SOLUTION
