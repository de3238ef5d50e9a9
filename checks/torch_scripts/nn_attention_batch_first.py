"""An attention block with nn.MultiheadAttention(batch_first=True): weights set under PyTorch's
names (in_proj_weight packed), the output and averaged weights, a key padding mask, training.
"""

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

E, HEADS, N, T = 8, 2, 3, 5


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(E, HEADS, batch_first=True)
        self.norm = nn.LayerNorm(E)
        self.head = nn.Linear(E, 4)

    def forward(self, x, padding):
        h = self.norm(x)
        attended, weights = self.attn(h, h, h, key_padding_mask=padding)
        return self.head(x + attended), weights


def run():
    rng = np.random.default_rng(5)
    block = Block()
    shapes = {"attn.in_proj_weight": (3 * E, E), "attn.in_proj_bias": (3 * E,),
              "attn.out_proj.weight": (E, E), "attn.out_proj.bias": (E,), "norm.weight": (E,),
              "norm.bias": (E,), "head.weight": (4, E), "head.bias": (4,)}
    block.load_state_dict({name: torch.tensor((0.4 * rng.standard_normal(shape)).astype(np.float32))
                           for name, shape in shapes.items()})
    count = sum(int(np.prod(p.shape)) for p in block.parameters())
    assert count == sum(int(np.prod(s)) for s in shapes.values())
    x = torch.tensor(rng.standard_normal((N, T, E)).astype(np.float32))
    padding = torch.tensor(np.array([[False] * T, [False] * 3 + [True] * 2, [False] * 4 + [True]]))
    targets = torch.tensor(rng.integers(0, 4, N * T).astype(np.int64))
    out, weights = block(x, padding)
    assert tuple(out.shape) == (N, T, 4) and tuple(weights.shape) == (N, T, T)
    w = weights.detach().numpy()
    assert np.allclose(w.sum(-1), 1, atol=1e-5) and not w[1, :, 3:].any()
    optimizer = optim.Adam(block.parameters(), lr=0.01)
    losses = []
    for _ in range(5):
        optimizer.zero_grad()
        logits, _ = block(x, padding)
        loss = nn.functional.cross_entropy(logits.reshape(N * T, 4), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0], losses
    return {"out": out.detach().numpy().tolist(), "weights": w.tolist(), "losses": losses}
