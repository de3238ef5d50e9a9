"""In-place changes of tensors inside a graph, which PyTorch records: `y[0] = 0` and `relu_()` on
an op's result rebase its history onto the change, so the gradient goes through it."""

import torch


def run() -> dict:
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 2
    y[0] = 0.0
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 2.0]
    setitem_grad = x.grad.tolist()

    x.grad = None
    h = x * 3
    h.add_(1)  # no backward needs h's old value: allowed
    h.relu_()
    (h * h).sum().backward()  # d/dx relu(3x + 1)² = 6 relu(3x + 1)
    assert x.grad.tolist() == [24.0, 0.0, 60.0], x.grad
    return {"setitem_grad": setitem_grad, "relu_grad": x.grad.tolist(), "version": h._version}
