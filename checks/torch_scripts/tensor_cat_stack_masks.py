"""cat and stack along a dim, triu/tril masks, and a causal mask with masked_fill and softmax."""

import numpy as np
import torch
import torch.nn.functional as F


def run() -> dict:
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    x = torch.tensor(a, requires_grad=True)
    y = torch.tensor(b, requires_grad=True)
    joined = torch.cat([x, y, x], dim=1)
    assert joined.shape == (2, 9) and np.allclose(joined.detach().numpy(), np.concatenate([a, b, a], 1))
    assert torch.cat((x, y)).shape == (4, 3) and torch.cat([x, y], dim=-2).shape == (4, 3)
    stacked = torch.stack([x, y], dim=1)
    assert stacked.shape == (2, 2, 3) and np.allclose(stacked.detach().numpy(), np.stack([a, b], 1))
    weights = torch.tensor(np.arange(9.0), dtype=torch.float64)
    ((joined * weights).sum() + (stacked ** 2).sum()).backward()
    # x appears twice in `joined` (columns 0-2 and 6-8) and once, squared, in `stacked`
    expected_x = np.tile(np.arange(3.0) + np.arange(6.0, 9.0), (2, 1)) + 2 * a
    assert np.allclose(x.grad, expected_x)
    assert np.allclose(y.grad, np.tile(np.arange(3.0, 6.0), (2, 1)) + 2 * b)

    m = torch.tensor(rng.standard_normal((4, 4)), requires_grad=True)
    upper, lower = torch.triu(m), m.tril(diagonal=-1)
    assert np.allclose((upper + lower).detach().numpy(), m.detach().numpy())
    assert torch.triu(torch.ones(3, 3), diagonal=1).tolist() == np.triu(np.ones((3, 3)), 1).tolist()
    (upper * 2 + lower * 5).sum().backward()
    assert np.allclose(m.grad, 2 * np.triu(np.ones((4, 4))) + 5 * np.tril(np.ones((4, 4)), -1))

    T = 4
    scores = torch.tensor(rng.standard_normal((T, T)))
    causal = torch.triu(torch.ones(T, T), diagonal=1).bool()
    weights = F.softmax(scores.masked_fill(causal, float("-inf")), dim=-1)
    expected = np.where(np.triu(np.ones((T, T)), 1) > 0, -np.inf, scores.numpy())
    expected = np.exp(expected - expected.max(-1, keepdims=True))
    expected /= expected.sum(-1, keepdims=True)
    assert np.allclose(weights.numpy(), expected) and weights[0, 1:].sum().item() == 0.0
    return {"joined": joined.tolist(), "x.grad": x.grad.tolist(), "m.grad": m.grad.tolist(),
            "weights": weights.tolist()}
