"""W2 to W4 in PyTorch eager, from the same data and initial weights (floors.py).

Imported only when PyTorch is importable (`with_torch.torch_side()`): PyTorch is the
optional `compare` extra, never a requirement. Each function sets PyTorch's thread
count to the one NumPy's BLAS uses, so both sides run on the same cores.
"""

from __future__ import annotations

import warnings

import numpy as np
import torch
from torch import nn

from checks.benchmarks import floors


def version() -> str:
    return torch.__version__


def _same_threads() -> int:
    threads = floors.threads()
    torch.set_num_threads(threads)
    return threads


def _load(module: nn.Module, arrays: dict[str, np.ndarray]) -> None:
    """Copy float32 arrays into a module's parameters, every one exactly once."""
    state = module.state_dict()
    missing = sorted(set(state) - set(arrays))
    unknown = sorted(set(arrays) - set(state))
    assert not missing and not unknown, f"torch side: missing {missing}, unknown {unknown}"
    module.load_state_dict({name: torch.from_numpy(np.ascontiguousarray(a)) for name, a in arrays.items()})


def _train(step, steps: int, warmup: int, threads: int) -> dict:
    ms, losses = floors.median_ms(step, steps, warmup)
    return {"ms_per_step": ms, "losses": losses, "threads": threads, "version": version()}


def w2(steps: int, warmup: int) -> dict:
    """W2 timed on its own: ms/step and losses."""
    return _train(w2_step(), steps, warmup, floors.threads())


def w2_step():
    """W2's training step, returning the loss: the MLP 2 → 64 → 64 → 2, cross-entropy, Adam."""
    _same_threads()
    X, y = (torch.from_numpy(a) for a in floors.w2_data())
    sizes = floors.W2_SIZES
    model = nn.Sequential(nn.Linear(sizes[0], sizes[1]), nn.ReLU(), nn.Linear(sizes[1], sizes[2]),
                          nn.ReLU(), nn.Linear(sizes[2], sizes[3]))
    return _adam_step(model, (0, 2, 4), floors.w2_parameters(), X, y)


def _adam_step(model, positions, parameters, X, y):
    """A full-batch step of `model`, its layers at `positions` loaded with (weight, bias)
    `parameters`: cross-entropy, backward, Adam with W2's settings (W4 takes the same)."""
    arrays = {}
    for i, (weight, bias) in zip(positions, parameters):
        arrays[f"{i}.weight"], arrays[f"{i}.bias"] = weight, bias
    _load(model, arrays)
    optimizer = torch.optim.Adam(model.parameters(), lr=floors.W2_LR, betas=floors.W2_BETAS,
                                 eps=floors.W2_EPS)

    def step() -> float:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(X), y)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


class Reversal(nn.Module):
    """W3 as PyTorch users write it: `nn.Transformer` (pre-LN, batch first, no dropout)."""

    def __init__(self):
        super().__init__()
        d = floors.D_MODEL
        self.src_embedding = nn.Embedding(floors.VOCAB, d)
        self.tgt_embedding = nn.Embedding(floors.VOCAB, d)
        with warnings.catch_warnings():  # norm_first disables the nested-tensor fast path
            warnings.simplefilter("ignore")
            self.transformer = nn.Transformer(
                d, floors.HEADS, floors.LAYERS, floors.LAYERS, floors.FFN, dropout=0.0,
                batch_first=True, norm_first=True)
        self.output = nn.Linear(d, floors.VOCAB)
        self.register_buffer("positions", torch.from_numpy(floors.positional_encoding(floors.LENGTH, d)))
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(floors.LENGTH))

    def forward(self, src, tgt):
        hidden = self.transformer(self.src_embedding(src) + self.positions,
                                  self.tgt_embedding(tgt) + self.positions,
                                  tgt_mask=self.causal, tgt_is_causal=True)
        return self.output(hidden)


def w3_state(params: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """floors.w3_parameters() under `Reversal`'s names (q, k, v packed as PyTorch packs them)."""
    state = {"positions": floors.positional_encoding(floors.LENGTH, floors.D_MODEL),
             "causal": nn.Transformer.generate_square_subsequent_mask(floors.LENGTH).numpy()}
    renamed = {"src_embedding": "src_embedding.weight", "tgt_embedding": "tgt_embedding.weight"}
    for name, value in params.items():
        if name in renamed:
            state[renamed[name]] = value
            continue
        stack, *rest = name.split(".")
        if stack == "output":
            state[name] = value
            continue
        if rest[0] == "norm":
            state[f"transformer.{stack}.{'.'.join(rest)}"] = value
            continue
        layer, block, *tail = rest
        prefix = f"transformer.{stack}.layers.{layer}."
        block = "multihead_attn" if block == "cross_attn" else block
        if tail and tail[0] in ("q", "k", "v"):
            if tail[0] == "q":  # pack q, k, v once, on q
                parts = [params[name.replace(".q.", f".{p}.")] for p in "qkv"]
                state[f"{prefix}{block}.in_proj_{tail[1]}"] = np.concatenate(parts)
            continue
        tail = ["out_proj", tail[1]] if tail and tail[0] == "out" else tail
        state[prefix + ".".join([block, *tail])] = value
    return state


def w3_model() -> Reversal:
    model = Reversal()
    _load(model, w3_state(floors.w3_parameters()))
    return model


def w3(steps: int, warmup: int) -> dict:
    """W3 timed on its own: ms/step and losses."""
    return _train(w3_step(warmup + steps), steps, warmup, floors.threads())


def w3_step(batches: int):
    """W3's training step for `batches` steps, returning the loss: the Tiny Transformer, Adam."""
    _same_threads()
    model = w3_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=floors.W3_LR, betas=floors.W3_BETAS,
                                 eps=floors.W3_EPS)
    batches = iter([tuple(torch.from_numpy(a) for a in b) for b in floors.w3_batches(batches)])

    def step() -> float:
        src, tgt_in, tgt_out = next(batches)
        optimizer.zero_grad()
        logits = model(src, tgt_in)
        loss = nn.functional.cross_entropy(logits.reshape(-1, floors.VOCAB), tgt_out.reshape(-1))
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def w4_step():
    """W4's training step, returning the loss: chapter 6's CNN on 256 digits, Adam."""
    _same_threads()
    X, y = (torch.from_numpy(a) for a in floors.w4_data())
    (i1, o1), (i2, o2) = floors.W4_CONVS
    model = nn.Sequential(nn.Conv2d(i1, o1, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(i2, o2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(*floors.W4_LINEAR))
    return _adam_step(model, (0, 3, 7), floors.w4_parameters(), X, y)
