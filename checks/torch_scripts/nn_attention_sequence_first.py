"""nn.MultiheadAttention's default layout, sequence first: (L, N, E), as PyTorch's batch_first=False;
need_weights=True by default; the per-head weights; a causal attn_mask (True = blocked).
"""

import numpy as np
import torch
import torch.nn as nn

E, HEADS, N, L, S = 6, 3, 2, 4, 5


def run():
    rng = np.random.default_rng(6)
    attention = nn.MultiheadAttention(E, HEADS)
    attention.load_state_dict({
        "in_proj_weight": torch.tensor((0.5 * rng.standard_normal((3 * E, E))).astype(np.float32)),
        "in_proj_bias": torch.tensor((0.5 * rng.standard_normal(3 * E)).astype(np.float32)),
        "out_proj.weight": torch.tensor((0.5 * rng.standard_normal((E, E))).astype(np.float32)),
        "out_proj.bias": torch.tensor((0.5 * rng.standard_normal(E)).astype(np.float32)),
    })
    query = torch.tensor(rng.standard_normal((L, N, E)).astype(np.float32))
    memory = torch.tensor(rng.standard_normal((S, N, E)).astype(np.float32))
    out, weights = attention(query, memory, memory)
    assert tuple(out.shape) == (L, N, E) and tuple(weights.shape) == (N, L, S)
    _, per_head = attention(query, memory, memory, average_attn_weights=False)
    assert tuple(per_head.shape) == (N, HEADS, L, S)
    causal = torch.tensor(np.triu(np.ones((L, L), dtype=bool), 1))
    self_out, self_weights = attention(query, query, query, attn_mask=causal)
    assert not np.triu(self_weights.detach().numpy()[0], 1).any()
    only, none = attention(query, memory, memory, need_weights=False)
    assert none is None and np.allclose(only.detach().numpy(), out.detach().numpy(), atol=1e-6)
    return {"out": out.detach().numpy().tolist(), "weights": weights.detach().numpy().tolist(),
            "per_head": per_head.detach().numpy().tolist(), "causal_out": self_out.detach().numpy().tolist()}
