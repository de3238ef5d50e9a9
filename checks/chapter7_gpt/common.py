"""What chapter 7's parts share: the definitions in NumPy, and the drawn models and inputs."""

from __future__ import annotations

import importlib
import math

import numpy as np
from hypothesis import strategies as st

from checks.harness import framework

fw = framework()
nn = importlib.import_module(f"{fw.__name__}.nn")
gpt = importlib.import_module(f"{fw.__name__}.nn.gpt")

seeds = st.integers(0, 2**32 - 1)
EXACT = {"rtol": 1e-10, "atol": 1e-10}  # cached against uncached: the same sums, in float64


# -- the definitions, in NumPy --------------------------------------------------------------------


def layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention(x, p, n_head):
    """Causal self-attention of x (N, T, E), one query position at a time: query i reads 0..i."""
    n, t, e = x.shape
    hd = e // n_head
    q, k, v = (x @ p[f"{w}_proj.weight"].T + p[f"{w}_proj.bias"] for w in "qkv")
    out = np.zeros_like(x)
    for i in range(t):
        for h in range(n_head):
            cols = slice(h * hd, (h + 1) * hd)
            scores = np.einsum("nd,nsd->ns", q[:, i, cols], k[:, : i + 1, cols]) / math.sqrt(hd)
            out[:, i, cols] = np.einsum("ns,nsd->nd", softmax(scores), v[:, : i + 1, cols])
    return out @ p["out_proj.weight"].T + p["out_proj.bias"]


def block(x, p, n_head):
    """x + attn(LN₁ x), then x + fc2(gelu(fc1(LN₂ x)))."""
    sub = {name.removeprefix("attn."): value for name, value in p.items()}
    x = x + attention(layer_norm(x, p["ln_1.weight"], p["ln_1.bias"]), sub, n_head)
    h = gelu(layer_norm(x, p["ln_2.weight"], p["ln_2.bias"]) @ p["fc1.weight"].T + p["fc1.bias"])
    return x + h @ p["fc2.weight"].T + p["fc2.bias"]


def state(module) -> dict[str, np.ndarray]:
    return {name: param.data for name, param in module.named_parameters()}


def prefixed(p: dict, prefix: str) -> dict:
    return {name[len(prefix):]: value for name, value in p.items() if name.startswith(prefix)}


def gpt_logits(ids, model) -> np.ndarray:
    """Token + position embeddings, the blocks, the final LayerNorm, the tied head."""
    p = state(model)
    x = p["wte.weight"][ids] + p["wpe.weight"][np.arange(ids.shape[1])]
    for i in range(model.n_layer):
        x = block(x, prefixed(p, f"blocks.{i}."), model.n_head)
    return layer_norm(x, p["ln_f.weight"], p["ln_f.bias"]) @ p["wte.weight"].T


def cross_entropy(logits, targets) -> float:
    z = logits.reshape(-1, logits.shape[-1])
    top = z.max(axis=-1)
    log_total = top + np.log(np.exp(z - top[:, None]).sum(axis=-1))
    return float(np.mean(log_total - z[np.arange(len(z)), targets.reshape(-1)]))


def redraw(module, seed: int, scale: float = 0.5):
    """Every weight drawn afresh at `scale` in float64, so that every path shows in the output."""
    module.to(np.float64)
    rng = np.random.default_rng(seed)
    for _, param in module.named_parameters():
        param.data = rng.normal(0.0, scale, param.data.shape)
    return module


# -- the cases ------------------------------------------------------------------------------------

sizes = st.fixed_dictionaries({
    "vocab_size": st.integers(2, 6), "block_size": st.integers(1, 8), "n_layer": st.integers(1, 2),
    "n_head": st.integers(1, 2), "head_dim": st.integers(1, 3), "batch": st.integers(1, 2),
})

# LayerNorm over two features is near-singular where they nearly agree: a central difference
# at 1e-6 loses its fourth digit there (seen at n_embd=2), so gradients are checked on four or more.
gradient_sizes = st.builds(
    lambda size, heads: {**size, "n_head": heads[0], "head_dim": heads[1]},
    sizes, st.sampled_from([(1, 4), (2, 2), (2, 3)]),
)


def model_of(size: dict, seed: int):
    fw.manual_seed(seed)
    model = nn.GPT(size["vocab_size"], size["block_size"], size["n_layer"], size["n_head"],
                   size["n_head"] * size["head_dim"])
    return redraw(model, seed)


def ids_of(size: dict, length: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, size["vocab_size"], (size["batch"], length))


def describe(size: dict) -> str:
    return (f"GPT(vocab_size={size['vocab_size']}, block_size={size['block_size']}, n_layer="
            f"{size['n_layer']}, n_head={size['n_head']}, n_embd={size['n_head'] * size['head_dim']})"
            f", batch {size['batch']}")


SMALL = {"vocab_size": 5, "block_size": 6, "n_layer": 2, "n_head": 2, "head_dim": 2, "batch": 2}
ONE = {"vocab_size": 3, "block_size": 1, "n_layer": 1, "n_head": 1, "head_dim": 1, "batch": 1}
