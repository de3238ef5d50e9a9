"""A tensor that an autograd.Function saved with ctx.save_for_backward, then changed in place:
reading ctx.saved_tensors in backward raises naming the versions, as for a built-in op. A
backward that reads no saved tensor, or a change of a tensor nobody saved, is fine."""

import torch


class Product(torch.autograd.Function):
    """a · b, saving both inputs."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a


class Exp(torch.autograd.Function):
    """exp, saving its output."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y


def backward_error(loss) -> str:
    """The message backward raises with (the script fails if it raises none)."""
    try:
        loss.backward()
    except RuntimeError as error:
        return str(error)
    raise AssertionError("backward read a saved tensor that was changed in place")


def run() -> dict:
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = torch.tensor([4.0, 5.0, 6.0])
    y = Product.apply(w, x).sum()
    x.add_(1)  # x was saved at version 0
    message = backward_error(y)
    assert "modified by an inplace operation" in message, message
    assert "is at version 1; expected version 0 instead" in message, message

    e = Exp.apply(w)
    e.mul_(2)  # the saved output itself
    message = backward_error(e.sum())
    assert "is at version 1; expected version 0 instead" in message, message

    unsaved = torch.tensor([1.0, 1.0, 1.0])
    y = Product.apply(w, x).sum()
    unsaved.add_(1)  # no backward reads it
    y.backward()
    x.add_(1)  # after backward: the graph is gone
    return {"grad": w.grad.tolist(), "versions": [x._version, unsaved._version]}
