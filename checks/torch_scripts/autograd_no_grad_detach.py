"""no_grad, enable_grad, set_grad_enabled, detach, requires_grad_, and leaves."""

import numpy as np
import torch


def run() -> dict:
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    with torch.no_grad():
        frozen = w * 2
        assert not frozen.requires_grad and torch.is_grad_enabled() is False
        with torch.enable_grad():
            live = w * 2
    assert live.requires_grad and torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        assert not (w + 1).requires_grad
    assert (w + 1).requires_grad

    @torch.no_grad()
    def update(p, step):
        p -= step  # an in-place update of a leaf, outside the graph, as optimizers do

    d = (w * w).detach()
    assert not d.requires_grad and d.tolist() == [1.0, 4.0, 9.0]
    plain = torch.tensor([1.0, 2.0])
    assert not plain.requires_grad
    plain.requires_grad_()
    assert plain.requires_grad and plain.is_leaf
    (plain * torch.tensor([5.0, 7.0])).sum().backward()
    assert plain.grad.tolist() == [5.0, 7.0]

    loss = (w ** 2).sum()
    loss.backward()
    assert np.allclose(w.grad, [2.0, -4.0, 6.0])
    update(w, torch.tensor([0.5, 0.5, 0.5]))
    assert w.tolist() == [0.5, -2.5, 2.5] and w.requires_grad and w.is_leaf
    z = (w * 3).detach().requires_grad_(True)
    (z.sum() * 2).backward()
    assert z.grad.tolist() == [2.0, 2.0, 2.0] and z.is_leaf
    return {"w": w.tolist(), "plain.grad": plain.grad.tolist(), "z.grad": z.grad.tolist()}
