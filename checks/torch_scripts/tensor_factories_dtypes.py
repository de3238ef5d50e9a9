"""Factories (arange, full, *_like, eye, linspace, rand, randint), dtypes and conversions."""

import numpy as np
import torch


def run() -> dict:
    assert torch.arange(5).tolist() == [0, 1, 2, 3, 4] and torch.arange(5).dtype == torch.int64
    assert torch.arange(2, 8, 2).tolist() == [2, 4, 6]
    steps = torch.arange(0, 1, 0.25)
    assert steps.dtype == torch.float32 and steps.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert torch.full((2, 3), 7).dtype == torch.int64 and torch.full((2,), 1.5).dtype == torch.float32
    assert torch.full((2, 2), 0.5).sum().item() == 2.0
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert torch.zeros_like(x).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert torch.ones_like(x).dtype == torch.float32 and torch.ones_like(x).shape == (2, 2)
    assert torch.full_like(x, 3.0).tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert torch.zeros(2, 3).shape == (2, 3) and torch.ones((4,)).dtype == torch.float32
    assert torch.eye(3).tolist() == np.eye(3).tolist()
    assert torch.eye(2, 3).shape == (2, 3)
    assert np.allclose(torch.linspace(0, 1, 5).numpy(), np.linspace(0, 1, 5))
    torch.manual_seed(3)
    u, n = torch.rand(1000), torch.randn(2, 3)
    assert u.dtype == torch.float32 and 0 <= u.min().item() and u.max().item() < 1
    assert abs(u.mean().item() - 0.5) < 0.05 and n.shape == (2, 3)
    k = torch.randint(0, 10, (50,))
    assert k.dtype == torch.int64 and 0 <= k.min().item() and k.max().item() < 10
    assert torch.rand_like(x).shape == (2, 2)

    d = x.double()
    assert d.dtype == torch.float64 and x.float().dtype == torch.float32
    assert x.long().dtype == torch.int64 and x.int().dtype == torch.int32
    assert x.to(torch.float64).dtype == torch.float64 and x.to(dtype=torch.int64).tolist() == [[1, 2], [3, 4]]
    assert (x > 2).dtype == torch.bool and (x > 2).sum().item() == 2
    assert torch.tensor([2.7, -1.5]).long().tolist() == [2, -1]  # truncation toward zero
    assert x.to("cpu").tolist() == x.tolist() and x.device == torch.device("cpu")
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    assert not w.long().requires_grad and w.double().requires_grad
    (w.double() * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0] and str(w.grad.dtype).endswith("float32")

    array = np.ones(3)
    shared = torch.from_numpy(array)
    np.add(array, 1, out=array)  # from_numpy shares memory ...
    copied = torch.tensor(array)
    array[0] = 10.0  # ... torch.tensor copies
    assert shared.tolist() == [10.0, 2.0, 2.0] and copied.tolist() == [2.0, 2.0, 2.0]
    assert shared.dtype == torch.float64 and shared.numpy() is not None
    return {"steps": steps.tolist(), "linspace": torch.linspace(0, 1, 5).tolist(),
            "shared": shared.tolist(), "copied": copied.tolist(), "w.grad": w.grad.tolist()}
