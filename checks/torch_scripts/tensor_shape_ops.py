"""permute, transpose, t, flatten, expand, unsqueeze/squeeze, clone and view, with gradients."""

import numpy as np
import torch


def run() -> dict:
    a = np.arange(24.0).reshape(2, 3, 4) / 10
    x = torch.tensor(a, requires_grad=True)
    p = x.permute(2, 0, 1)
    assert p.shape == (4, 2, 3) and np.allclose(p.detach().numpy(), a.transpose(2, 0, 1))
    tr = x.transpose(0, 2)
    assert tr.size() == (4, 3, 2) and torch.transpose(x, 1, 2).shape == (2, 4, 3)
    f = x.flatten()
    assert f.shape == (24,) and x.flatten(1).shape == (2, 12) and x.flatten(0, 1).shape == (6, 4)
    assert torch.flatten(x, start_dim=1).shape == (2, 12)
    u = x.unsqueeze(1)
    assert u.shape == (2, 1, 3, 4) and u.squeeze(1).shape == (2, 3, 4) and u.squeeze().shape == (2, 3, 4)
    assert u.squeeze(0).shape == (2, 1, 3, 4)  # an axis of size > 1 is left alone
    assert x.unsqueeze(-1).shape == (2, 3, 4, 1) and x.unsqueeze(dim=0).shape == (1, 2, 3, 4)
    e = x[:, :1, :].expand(2, 5, 4)
    assert e.shape == (2, 5, 4) and x[:1].expand(3, -1, -1).shape == (3, 3, 4)
    m = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert m.t().tolist() == [[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]] and m.T.shape == (3, 2)
    c = x.clone()
    v = c.view(6, 4)
    assert v.shape == (6, 4) and c.view(-1, 12).shape == (2, 12)
    weights = torch.tensor(np.arange(24.0).reshape(6, 4))
    loss = (v * weights).sum() + (p ** 2).sum() + f.sum() + (e * 3).sum()
    loss.backward()
    expected = np.arange(24.0).reshape(2, 3, 4) + 2 * a + 1
    expected[:, 0, :] += 3 * 5  # expanded five times along axis 1
    assert np.allclose(x.grad, expected)
    return {"permuted": p.tolist(), "x.grad": x.grad.tolist(), "t": m.t().tolist()}
