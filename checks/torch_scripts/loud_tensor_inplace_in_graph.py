"""An in-place change of a tensor inside a graph: PyTorch records it (and checks versions).

The framework records no in-place op, so the gradient would silently ignore the change;
it raises instead (in-place changes outside any graph, or in no_grad, work).
"""

import torch

DIFFERENCE = r"setitem: in-place change of a tensor computed by an op"


def run() -> dict:
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y[0] = 0.0
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 2.0]
    return {"grad": x.grad.tolist()}
