"""Autograd on a small graph with closed-form gradients (PyTorch's "Autograd" tutorial)."""

import numpy as np
import torch
import torch.nn.functional as F


def run() -> dict:
    rng = np.random.default_rng(0)  # the same numbers on both backends (their randn differ)
    x = torch.ones(5)
    y = torch.zeros(3)
    w = torch.tensor(rng.standard_normal((5, 3)), dtype=torch.float32, requires_grad=True)
    b = torch.tensor(rng.standard_normal(3), dtype=torch.float32, requires_grad=True)
    z = torch.matmul(x, w) + b
    loss = F.binary_cross_entropy_with_logits(z, y)
    assert z.grad_fn is not None and w.is_leaf and not z.is_leaf
    loss.backward()
    zn = z.detach().numpy().astype(np.float64)
    sig = 1 / (1 + np.exp(-zn))
    assert np.isclose(loss.item(), np.mean(np.log1p(np.exp(zn))), rtol=1e-5)
    # ∂loss/∂z = σ(z)/3 (targets 0); ∂/∂w = x ⊗ that; ∂/∂b = that
    assert np.allclose(b.grad, sig / 3, rtol=1e-5)
    assert np.allclose(w.grad, np.outer(np.ones(5), sig / 3), rtol=1e-5)

    inp = torch.eye(4, 5, requires_grad=True)
    out = (inp + 1).pow(2).t()
    out.backward(torch.ones_like(out), retain_graph=True)
    first = np.asarray(inp.grad, dtype=np.float64).copy()
    assert np.allclose(first, 2 * (np.eye(4, 5) + 1))  # d/dx (x+1)² = 2(x+1)
    out.backward(torch.ones_like(out))
    assert np.allclose(inp.grad, 2 * first)  # gradients accumulate
    q = torch.tensor([2.0, 3.0], requires_grad=True)
    r = (q[0] ** 3 * q[1] + q.exp().sum() + q.log().sum() + q.tanh().sum())
    r.backward()
    qa = np.array([2.0, 3.0])
    dq0 = 3 * qa[0] ** 2 * qa[1] + np.exp(qa[0]) + 1 / qa[0] + 1 - np.tanh(qa[0]) ** 2
    dq1 = qa[0] ** 3 + np.exp(qa[1]) + 1 / qa[1] + 1 - np.tanh(qa[1]) ** 2
    assert np.allclose(q.grad, [dq0, dq1], rtol=1e-5)
    return {"loss": loss.item(), "b.grad": b.grad.tolist(), "inp.grad": inp.grad.tolist(),
            "q.grad": q.grad.tolist()}
