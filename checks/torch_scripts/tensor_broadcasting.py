"""Broadcasting arithmetic, and gradients summed back over the broadcast axes."""

import numpy as np
import torch


def run() -> dict:
    rng = np.random.default_rng(0)
    a, b, c = rng.standard_normal((3, 1)), rng.standard_normal((1, 4)), rng.standard_normal(4)
    x = torch.tensor(a, requires_grad=True)
    y = torch.tensor(b, requires_grad=True)
    z = torch.tensor(c, requires_grad=True)
    out = (x * y + z) / 2.0 - x ** 2
    expected = (a * b + c) / 2 - a**2
    assert out.shape == (3, 4) and np.allclose(out.detach().numpy(), expected)
    out.sum().backward()
    # ∂/∂x = Σ_j (y_j / 2 - 2x): 4 columns; ∂/∂y = Σ_i x_i / 2; ∂/∂z = 3 rows / 2
    assert np.allclose(x.grad, (b / 2).sum() - 2 * a * 4)
    assert np.allclose(y.grad, np.full((1, 4), a.sum() / 2))
    assert np.allclose(z.grad, np.full(4, 1.5))
    shifted = torch.ones(2, 3) + torch.arange(3.0)
    assert shifted.dtype == torch.float32 and shifted.tolist() == [[1.0, 2.0, 3.0]] * 2
    return {"out": out.tolist(), "x.grad": x.grad.tolist(), "y.grad": y.grad.tolist(),
            "z.grad": z.grad.tolist()}
