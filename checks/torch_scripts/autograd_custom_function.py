"""torch.autograd.Function: a hand-written exp, and a clamp with a straight-through gradient."""

import numpy as np
import torch


class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


class StraightThroughClamp(torch.autograd.Function):
    """Forward clamps to [low, high]; backward passes the gradient through unchanged."""

    @staticmethod
    def forward(ctx, x, low, high):
        ctx.low, ctx.high = low, high
        return x.clamp(min=low, max=high)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None


class ScaledProduct(torch.autograd.Function):
    """c = s · a · b for two tensors and a number; uses needs_input_grad."""

    @staticmethod
    def forward(ctx, a, b, s):
        ctx.save_for_backward(a, b)
        ctx.s = s
        return s * a * b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        grad_a = grad_output * b * ctx.s if ctx.needs_input_grad[0] else None
        grad_b = grad_output * a * ctx.s if ctx.needs_input_grad[1] else None
        return grad_a, grad_b, None


def run() -> dict:
    v = np.array([-1.0, 0.0, 0.5, 2.0])
    x = torch.tensor(v, requires_grad=True)
    y = MyExp.apply(x)
    assert y.requires_grad and np.allclose(y.detach().numpy(), np.exp(v))
    (y * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)).sum().backward()
    assert np.allclose(x.grad, np.exp(v) * [1, 2, 3, 4])

    u = torch.tensor(v, requires_grad=True)
    clamped = StraightThroughClamp.apply(u, -0.5, 1.0)
    assert clamped.tolist() == [-0.5, 0.0, 0.5, 1.0]
    (clamped * 3).sum().backward()
    assert u.grad.tolist() == [3.0, 3.0, 3.0, 3.0]  # straight through, even where clamped

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0])
    c = ScaledProduct.apply(a, b, 0.5)
    c.sum().backward()
    assert a.grad.tolist() == [1.5, 2.0] and b.grad is None
    with torch.no_grad():
        assert not MyExp.apply(x).requires_grad
    return {"exp": y.tolist(), "x.grad": x.grad.tolist(), "clamped": clamped.tolist(),
            "u.grad": u.grad.tolist(), "a.grad": a.grad.tolist()}
