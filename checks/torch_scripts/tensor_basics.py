"""Tensors from lists and arrays, indexing, and the shape methods: size(), numel(), dim(), view."""

import numpy as np
import torch


def run() -> dict:
    data = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    x = torch.tensor(data)
    assert x.dtype == torch.float32 and torch.tensor([1, 2]).dtype == torch.int64
    assert x.shape == (2, 3) and x.size() == (2, 3) and tuple(x.size()) == (2, 3)
    assert x.size(0) == 2 and x.size(1) == 3 and x.size(-1) == 3 and x.size(dim=-2) == 2
    assert x.numel() == 6 and x.dim() == 2 and x.ndim == 2 and len(x) == 2
    expected = np.array(data, dtype=np.float64)
    assert x[1].tolist() == expected[1].tolist()
    assert x[:, 0].tolist() == expected[:, 0].tolist()
    assert x[..., -1].tolist() == expected[..., -1].tolist()
    assert x[1, 2].item() == 6.0
    v = x.view(3, 2)
    assert v.size() == (3, 2) and x.view(-1).size() == (6,) and x.view(-1, 2).shape == (3, 2)
    assert v.tolist() == expected.reshape(3, 2).tolist()
    assert x.reshape(6).tolist() == expected.ravel().tolist()
    r = torch.ones(4, 4)
    r[:, 1] = 0  # in-place assignment into a tensor outside any graph
    assert r.sum().item() == 12.0 and r[0].tolist() == [1.0, 0.0, 1.0, 1.0]
    picked = x[torch.tensor([1, 0, 1])]
    assert picked.shape == (3, 3) and picked[0].tolist() == expected[1].tolist()
    return {"view": v.tolist(), "column": x[:, 1].tolist(), "picked": picked.tolist(),
            "size": list(x.size()), "numel": x.numel(), "r": r.tolist()}
