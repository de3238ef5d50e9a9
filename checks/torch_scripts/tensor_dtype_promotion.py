"""Result dtypes of mixed arithmetic follow PyTorch's promotion (not NumPy's, which widens)."""

import numpy as np
import torch


def run() -> dict:
    f = torch.tensor([1.0, 2.0, 4.0])  # float32
    i = torch.tensor([1, 2, 3])  # int64
    b = torch.tensor([True, False, True])
    cases = {
        "float32 + int64": (f + i, torch.float32, [2.0, 4.0, 7.0]),
        "int64 * float32": (i * f, torch.float32, [1.0, 4.0, 12.0]),
        "float32 * bool": (f * b, torch.float32, [1.0, 0.0, 4.0]),
        "int64 + 1.5": (i + 1.5, torch.float32, [2.5, 3.5, 4.5]),
        "int64 / int64": (i / torch.tensor([2, 4, 6]), torch.float32, [0.5, 0.5, 0.5]),
        "int64 / 2": (i / 2, torch.float32, [0.5, 1.0, 1.5]),
        "int64 + 1": (i + 1, torch.int64, [2, 3, 4]),
        "float32 * NumPy float64 scalar": (f * np.float64(0.5), torch.float32, [0.5, 1.0, 2.0]),
        "float64 + int64": (f.double() + i, torch.float64, [2.0, 4.0, 7.0]),
        "float32 ** int64": (f ** i, torch.float32, [1.0, 4.0, 64.0]),
    }
    out = {}
    for name, (got, dtype, expected) in cases.items():
        assert got.dtype == dtype, (name, got.dtype)
        assert np.allclose(got.tolist(), expected), name
        out[name] = got.tolist()
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * torch.tensor([3, 4])).sum().backward()
    assert str(w.grad.dtype).endswith("float32") and w.grad.tolist() == [3.0, 4.0]
    out["w.grad"] = w.grad.tolist()
    return out
