"""max(dim) and min(dim) return (values, indices); max() is one element; argmax(dim, keepdim)."""

import numpy as np
import torch


def run() -> dict:
    a = np.array([[0.5, 2.0, -1.0, 2.5], [1.5, -0.5, 3.0, 0.0], [4.0, 1.0, 2.0, -2.0]])
    x = torch.tensor(a, requires_grad=True)
    values, indices = x.max(dim=1)
    assert values.tolist() == a.max(axis=1).tolist()
    assert indices.tolist() == a.argmax(axis=1).tolist() and indices.dtype == torch.int64
    result = x.min(dim=0)
    assert result.values.tolist() == a.min(axis=0).tolist()
    assert result.indices.tolist() == a.argmin(axis=0).tolist()
    kept = x.max(dim=1, keepdim=True)
    assert kept.values.shape == (3, 1) and kept.indices.shape == (3, 1)
    assert x.max().item() == 4.0 and x.max().dim() == 0 and torch.max(x, 1)[1].tolist() == [3, 2, 0]
    assert x.argmax().item() == int(a.argmax())
    assert x.argmax(dim=1).tolist() == [3, 2, 0]
    assert x.argmin(dim=0, keepdim=True).shape == (1, 4)
    # the gradient of max(dim) goes to the index it returns
    weights = torch.tensor([1.0, 10.0, 100.0], dtype=torch.float64)
    (values * weights).sum().backward()
    expected = np.zeros_like(a)
    expected[np.arange(3), a.argmax(axis=1)] = [1.0, 10.0, 100.0]
    assert np.allclose(x.grad, expected)
    both = torch.max(torch.tensor([1.0, 5.0]), torch.tensor([3.0, 2.0]))  # elementwise
    assert both.tolist() == [3.0, 5.0]
    return {"values": values.tolist(), "indices": indices.tolist(), "grad": x.grad.tolist(),
            "min values": result.values.tolist(), "elementwise": both.tolist()}
