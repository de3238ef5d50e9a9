"""Reductions with PyTorch's dim/keepdim (and NumPy's axis/keepdims, which PyTorch also takes)."""

import numpy as np
import torch


def run() -> dict:
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7
    x = torch.tensor(a, dtype=torch.float64)
    cases = {
        "sum dim 0": (x.sum(dim=0), a.sum(axis=0)),
        "sum dim -1 keepdim": (x.sum(dim=-1, keepdim=True), a.sum(axis=-1, keepdims=True)),
        "sum dims (0, 2)": (x.sum(dim=(0, 2)), a.sum(axis=(0, 2))),
        "mean dim 1 keepdim": (x.mean(dim=1, keepdim=True), a.mean(axis=1, keepdims=True)),
        "mean axis 1 (NumPy's name)": (x.mean(axis=1), a.mean(axis=1)),
        "sum axis 2 keepdims": (x.sum(axis=2, keepdims=True), a.sum(axis=2, keepdims=True)),
        "torch.sum dim 1": (torch.sum(x, dim=1), a.sum(axis=1)),
        "torch.mean": (torch.mean(x), a.mean()),
        "amax dim (0, 1)": (x.amax(dim=(0, 1)), a.max(axis=(0, 1))),
        "amin dim 2": (torch.amin(x, dim=2), a.min(axis=2)),
    }
    out = {}
    for name, (got, expected) in cases.items():
        assert tuple(got.shape) == expected.shape, (name, got.shape, expected.shape)
        assert np.allclose(got.detach().numpy(), expected, rtol=1e-12), name
        out[name] = got.tolist()
    # the gradient of a mean over dim 1 is 1/3 everywhere
    leaf = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    leaf.mean(dim=1).sum().backward()
    assert np.allclose(leaf.grad, np.full(a.shape, 1 / 3))
    out["mean grad"] = leaf.grad.tolist()
    return out
