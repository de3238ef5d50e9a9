"""Changing, in place, a tensor that an op saved for its backward: PyTorch's version counter
notices, and backward raises naming the versions, instead of using the new values. The same
change after backward, or on a tensor that no backward needs, is fine."""

import torch


def backward_error(loss) -> str:
    """The message backward raises with (the script fails if it raises none)."""
    try:
        loss.backward()
    except RuntimeError as error:
        return str(error)
    raise AssertionError("backward used a saved tensor that was changed in place")


def run() -> dict:
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = torch.tensor([4.0, 5.0, 6.0])
    y = (w * x).sum()  # the product saves x for w's gradient
    versions = [x._version]
    x.add_(1)
    versions.append(x._version)
    message = backward_error(y)
    assert "modified by an inplace operation" in message, message
    assert "is at version 1; expected version 0 instead" in message, message

    e = w.exp()  # exp saves its output for its backward
    e.mul_(2)
    message = backward_error(e.sum())
    assert "is at version 1; expected version 0 instead" in message, message

    y = (w * x).sum()
    y.backward()
    x.add_(1)  # after backward: the graph is gone, nothing needs the old x
    assert w.grad.tolist() == [5.0, 6.0, 7.0], w.grad
    versions.append(x._version)
    return {"versions": versions, "grad": w.grad.tolist()}
