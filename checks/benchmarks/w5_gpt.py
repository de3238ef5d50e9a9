"""W5: chapter 7's GPT, one training step and generation with and without the cache
(checks/benchmarks/README.md).

The step: the notebook's model (4 layers, 4 heads, 128 wide, context 64, Shakespeare's 76
characters) on batches of 12 windows, AdamW and clipping, against the matrix-product floor
(W3's kind: the step's forward and backward products alone) and PyTorch eager from the same
weights on the same batches. Generation: 256 new ids from one, on a model of the same width
with a context of 256, with the cache (one position per step) and without it (every
position every step).
"""

from __future__ import annotations

import time

import numpy as np

from checks.benchmarks import floors, with_torch
from checks.benchmarks.w2_mlp import split_batch, submodule

BATCH, CONTEXT, LAYERS, HEADS, WIDTH = 12, 64, 4, 4, 128
GENERATED = 256
LR, BETAS, WEIGHT_DECAY = 1e-3, (0.9, 0.99), 0.1


def w5_batches(fw, steps: int) -> tuple[int, list[tuple[np.ndarray, np.ndarray]]]:
    """The vocabulary size and `steps` batches of the training text, from default_rng(0)."""
    gpt = submodule(fw, "nn.gpt")
    train, validation = fw.data.load_shakespeare()
    vocab = gpt.CharVocab(train + validation)
    ids, rng = vocab.encode(train), np.random.default_rng(0)
    return vocab.vocab_size, [gpt.get_batch(ids, BATCH, CONTEXT, rng) for _ in range(steps)]


def make_model(fw, vocab_size: int, context: int = CONTEXT):
    fw.manual_seed(0)
    return submodule(fw, "nn").GPT(vocab_size, context, LAYERS, HEADS, WIDTH)


def trainer(fw, model, batches):
    """One step of the framework as a closure returning the loss: `model.loss`, or with the
    batch split (`split_batch`) the same cross-entropy of the split model's logits."""
    optim, functional = submodule(fw, "optim"), submodule(fw, "nn.functional")
    optimizer = optim.AdamW(model.parameters(), lr=LR, betas=BETAS, weight_decay=WEIGHT_DECAY)
    batches = iter(batches)
    forward = split_batch(fw, model)

    def loss_of(x, y):
        if forward is model:
            return model.loss(x, y)
        return functional.cross_entropy(forward(x).reshape(-1, model.vocab_size),
                                        np.asarray(y).reshape(-1))

    def step() -> float:
        x, y = next(batches)
        optimizer.zero_grad()
        loss = loss_of(x, y)
        loss.backward()
        optim.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return float(loss.item())

    return step


def w5_products(vocab_size: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The step's matrix products, forward and backward (W3's rules: two per forward product)."""
    rows, bh, head = BATCH * CONTEXT, BATCH * HEADS, WIDTH // HEADS
    linear = [((rows, WIDTH), (WIDTH, WIDTH))] * 4 + [((rows, WIDTH), (WIDTH, 4 * WIDTH)),
                                                      ((rows, 4 * WIDTH), (4 * WIDTH, WIDTH))]
    linear = linear * LAYERS + [((rows, WIDTH), (WIDTH, vocab_size))]
    products = []
    for (n, k), (_, m) in linear:
        products += [((n, k), (k, m)), ((n, m), (m, k)), ((k, n), (n, m))]
    square, tall, wide = (bh, CONTEXT, CONTEXT), (bh, CONTEXT, head), (bh, head, CONTEXT)
    scores = [(tall, wide), (square, tall), (square, tall)]  # Q·Kᵀ, then dS·K and dSᵀ·Q
    mixing = [(square, tall), (tall, wide), (square, tall)]  # P·V, then dO·Vᵀ and Pᵀ·dO
    return products + (scores + mixing) * LAYERS


def floor_step(vocab_size: int):
    rng = np.random.default_rng(0)
    operands = [(rng.standard_normal(a, dtype=np.float32), rng.standard_normal(b, dtype=np.float32),
                 np.empty(a[:-1] + b[-1:], np.float32)) for a, b in w5_products(vocab_size)]

    def step() -> None:
        for left, right, out in operands:
            np.matmul(left, right, out=out)

    return step


def torch_step(model, batches):
    """The same model in PyTorch eager from the same weights, the same batches and optimiser."""
    import torch
    from torch import nn

    torch.set_num_threads(floors.threads())
    state = {name: torch.from_numpy(p.data.copy()) for name, p in model.named_parameters()}

    def linear(prefix):
        return state[prefix + ".weight"], state[prefix + ".bias"]

    params = [p.requires_grad_() for p in state.values()]
    optimizer = torch.optim.AdamW(params, lr=LR, betas=BETAS, weight_decay=WEIGHT_DECAY)
    F, batches = nn.functional, iter(batches)

    def forward(idx):
        n, t = idx.shape
        x = state["wte.weight"][idx] + state["wpe.weight"][:t]
        for i in range(LAYERS):
            p = f"blocks.{i}."
            h = F.layer_norm(x, (WIDTH,), *linear(p + "ln_1"))
            q, k, v = (F.linear(h, *linear(p + f"attn.{w}_proj")).view(n, t, HEADS, -1).transpose(1, 2)
                       for w in "qkv")
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(n, t, -1)
            x = x + F.linear(y, *linear(p + "attn.out_proj"))
            h = F.gelu(F.linear(F.layer_norm(x, (WIDTH,), *linear(p + "ln_2")), *linear(p + "fc1")),
                       approximate="tanh")
            x = x + F.linear(h, *linear(p + "fc2"))
        return F.layer_norm(x, (WIDTH,), *linear("ln_f")) @ state["wte.weight"].T

    def step() -> float:
        x, y = (torch.from_numpy(a) for a in next(batches))
        optimizer.zero_grad()
        logits = forward(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        return float(loss.item())

    return step


def generation(fw, vocab_size: int, length: int, repeats: int) -> dict:
    """Best-of-`repeats` seconds of generating `length` ids from one, with and without the cache,
    with one BLAS thread as chapter 7 generates (with two, on a busy machine, the uncached loop's
    many mid-sized products crawled: 54 s against 2.7 s)."""
    model = make_model(fw, vocab_size, context=length)
    start = np.zeros((1, 1), dtype=np.int64)
    runtime = submodule(fw, "runtime")
    threads = runtime.blas_threads()
    runtime.set_blas_threads(1)
    best = {}
    try:
        for cached in (True, False):
            times = []
            for _ in range(repeats):
                began = time.perf_counter()
                model.generate(start, length, 1.0, generator=np.random.default_rng(0), use_cache=cached)
                times.append(time.perf_counter() - began)
            best[cached] = min(times)
    finally:
        if threads:
            runtime.set_blas_threads(threads)
    return {"cached_ms": 1000 * best[True], "uncached_ms": 1000 * best[False],
            "speedup": best[False] / best[True], "generation_threads": 1}


def run(fw, steps: int, warmup: int) -> dict:
    """The step against the floor and PyTorch, then generation with and without the cache."""
    quick = steps < 5
    if not quick:
        steps = max(steps, 40)
    vocab_size, batches = w5_batches(fw, 2 * (steps + warmup) + 10)
    model = make_model(fw, vocab_size)
    torch_side = with_torch.torch_side()
    torch = torch_step(model, batches) if torch_side and not quick else None
    ours = trainer(fw, model, batches)
    if quick:  # a smoke run, untimed, without the floor or PyTorch
        ms, losses = floors.median_ms(ours, steps, warmup)
        result = {"ms_per_step": ms, "losses": losses}
        result.update(generation(fw, vocab_size, 8, 1))
        return result
    result, floor, torch_result = floors.timed_with_floor_and_torch(
        ours, floor_step(vocab_size), torch, steps, warmup,
        torch_version=torch_side.version() if torch_side else None)
    floors.side_by_side(result, torch_result, floor)
    result.update(generation(fw, vocab_size, GENERATED, 3))
    result["notes"].append(
        f"generation of {GENERATED} ids: {result['cached_ms']:.0f} ms with the cache, "
        f"{result['uncached_ms']:.0f} ms without: {result['speedup']:.1f}× (1 BLAS thread; target ≥ 5×)")
    return result
