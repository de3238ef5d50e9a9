"""An autograd.Function with two outputs: PyTorch allows a tuple of tensors.

The engine gives each tensor one grad_fn, so the framework's Function has one output.
"""

import torch

DIFFERENCE = r"forward returned tuple.*exactly one output"


class SplitHalves(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x[:2].clone(), x[2:].clone()

    @staticmethod
    def backward(ctx, grad_first, grad_second):
        return torch.cat([grad_first, grad_second])


def run() -> dict:
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    first, second = SplitHalves.apply(x)
    (first.sum() * 2 + second.sum() * 3).backward()
    assert x.grad.tolist() == [2.0, 2.0, 3.0, 3.0]
    return {"grad": x.grad.tolist()}
