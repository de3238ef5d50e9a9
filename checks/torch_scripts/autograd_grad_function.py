"""torch.autograd.grad: gradients returned, not accumulated into .grad."""

import numpy as np
import torch


def run() -> dict:
    v = np.array([0.5, -1.0, 2.0])
    x = torch.tensor(v, requires_grad=True)
    w = torch.tensor([2.0, 3.0, 4.0], dtype=torch.float64, requires_grad=True)
    hidden = x * w
    y = (hidden.tanh() * hidden).sum()
    gx, gw = torch.autograd.grad(y, [x, w])
    h = v * np.array([2.0, 3.0, 4.0])
    dh = np.tanh(h) + h * (1 - np.tanh(h) ** 2)
    assert np.allclose(gx.numpy(), dh * [2.0, 3.0, 4.0]) and np.allclose(gw.numpy(), dh * v)
    assert x.grad is None and w.grad is None  # nothing accumulated
    z = x * 2
    (gz,) = torch.autograd.grad(z, x, grad_outputs=torch.ones_like(z))
    assert gz.tolist() == [2.0, 2.0, 2.0]
    return {"gx": gx.tolist(), "gw": gw.tolist()}
