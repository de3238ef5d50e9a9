"""Second derivatives (create_graph=True): PyTorch differentiates a gradient again.

The framework's backward rules compute NumPy arrays, not tensors, so a gradient has no graph
of its own; asking for one raises instead of returning a gradient that is not one.
"""

import torch

DIFFERENCE = r"create_graph=True.*no double backward"


def run() -> dict:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x ** 3).sum()
    (dy,) = torch.autograd.grad(y, x, create_graph=True)  # 3x²
    (d2y,) = torch.autograd.grad(dy.sum(), x)  # 6x
    assert d2y.tolist() == [6.0, 12.0]
    return {"d2y": d2y.tolist()}
