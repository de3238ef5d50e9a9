"""The reference optimizers against PyTorch's, step by step (needs the `compare` extra).

    pip install -e '.[compare]' && python -m pytest checks/torch_parity

Not part of `make test`: PyTorch is optional, and a suite that skips is no proof.
"""

import numpy as np
import pytest
import torch

from checks.loader import load_framework

fw = load_framework("solutions")
from framework import optim  # noqa: E402  (the package chosen above)

Tensor = fw.Tensor


@pytest.mark.parametrize("name, kwargs", [
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.8, nesterov=True, weight_decay=0.2)),
    ("Adam", dict(lr=0.05, betas=(0.5, 0.9), eps=0.1, weight_decay=0.3)),
    ("AdamW", dict(lr=0.05, betas=(0.8, 0.99), eps=1e-8, weight_decay=0.3)),
])
def test_the_reference_follows_pytorch(name, kwargs):
    rng = np.random.default_rng(1)
    init = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    ours = [Tensor(a.copy(), requires_grad=True) for a in init]
    theirs = [torch.tensor(a.copy(), requires_grad=True) for a in init]
    opt, topt = getattr(optim, name)(ours, **kwargs), getattr(torch.optim, name)(theirs, **kwargs)
    for step in range(6):
        for k, (p, q) in enumerate(zip(ours, theirs)):
            if step == 2 and k == 1:  # a step without a gradient for one parameter
                p.grad, q.grad = None, None
                continue
            g = rng.standard_normal(p.data.shape)
            p.grad, q.grad = g.copy(), torch.tensor(g)
        opt.step()
        topt.step()
    for p, q in zip(ours, theirs):
        np.testing.assert_allclose(p.data, q.detach().numpy(), rtol=1e-12, atol=1e-14)
