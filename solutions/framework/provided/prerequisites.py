"""Starting at any chapter: each notebook's first cell checks the earlier chapters it needs.

    >>> from framework.prerequisites import require
    >>> require(6)        # chapters 1–4 must be in place; silent when they are

A chapter's code runs on the earlier chapters' (Tensor on chapter 1's walk, the layers on
Tensor, the training loops on the optimizers). `require(n)` calls each exercise of those
chapters once, on tiny inputs: probes, not grading (`make check-chapterN` grades). An
exercise still holding its stub raises `NotImplementedError("Exercise 1.7: ...")`; the
exercises named that way, and any probe that raises something else, end the cell with one
line saying what to do.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from .generator import default_generator

# chapter → the last earlier chapter it needs (it needs every chapter from 1 to that one)
NEEDS = {2: 1, 3: 2, 4: 3, 5: 4, 6: 4, 7: 5, 8: 4}
_STUB = re.compile(r"Exercise (\d+\.\d+): ")
SHOWN = 6  # the gaps named in the line; the rest are counted


class MissingChapters(Exception):
    """The earlier chapters a notebook needs are not in place; shown as its one line."""

    def _render_traceback_(self) -> list[str]:
        # IPython's hook: the message alone, not a traceback into this file
        return [str(self)]


def _tensor(*values, **kwargs):
    from ..tensor import Tensor

    return Tensor(np.array(values, dtype=np.float64), **kwargs)


def _chapter1() -> dict[str, Callable[[], object]]:
    from ..autodiff import Value, numerical_derivative, topological_order

    a, b = Value(2.0), Value(3.0)

    def product() -> Value:  # a * b with its rule written here: the walk's probes need no op
        x, y = Value(2.0), Value(3.0)
        return Value(6.0, (x, y), lambda g: (g * 3.0, g * 2.0), "*")

    return {
        "1.1": lambda: numerical_derivative(lambda x: x * x, 1.0),
        "1.2": lambda: ((a + b).grad_fn(1.0), (a * b).grad_fn(1.0)),
        "1.3": lambda: ((a**2).grad_fn(1.0), (a - b).data, (a / b).data),
        "1.4": lambda: (a.exp().grad_fn(1.0), a.log().grad_fn(1.0)),
        "1.5": lambda: [getattr(a, op)().grad_fn(1.0) for op in ("tanh", "relu", "sigmoid")],
        "1.6": lambda: topological_order(product()),
        "1.7": lambda: product().backward(),
    }


def _chapter2() -> dict[str, Callable[[], object]]:
    from ..function import unbroadcast
    from ..gradcheck import numerical_gradient
    from ..tensor import Tensor

    x = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    row, column = _tensor(1.0, 2.0, 3.0, requires_grad=True), _tensor([2.0], [4.0])
    g = np.ones((2, 3))
    return {
        "2.1": lambda: numerical_gradient(lambda v: float(np.sum(v * v)), np.array([1.0, 2.0])),
        "2.2": lambda: unbroadcast(g, (3,)),
        "2.3": lambda: [op(row, column).grad_fn(g) for op in (Tensor.__add__, Tensor.__mul__)],
        "2.4": lambda: [getattr(x, op)().grad_fn(g) for op in ("exp", "tanh", "relu", "sigmoid")],
        "2.5": lambda: (x.sum(axis=1).grad_fn(g[:, 0]), x.mean(axis=1).grad_fn(g[:, 0])),
        "2.6": lambda: x.amax(axis=1).grad_fn(g[:, 0]),
        "2.7": lambda: (x.reshape(3, 2).grad_fn(g.reshape(3, 2)),
                        x.permute(1, 0).grad_fn(g.T)),
        "2.8": lambda: (x @ row).grad_fn(g[:, 0]),
        "2.9": lambda: row[np.array([0, 0, 2])].grad_fn(g[0]),
        "2.10": lambda: (row.receive_grad(g[0]), row.release()),
    }


def _chapter3() -> dict[str, Callable[[], object]]:
    from ..nn import functional as F
    from ..nn import init
    from ..nn.modules import Linear, Module, Parameter, ReLU, Sequential

    class Scale(Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = Parameter(np.ones(2))

    logits = _tensor([2.0, 0.0, -1.0], [0.0, 1.0, 0.0], requires_grad=True)
    x, y = _tensor(0.5, -1.0, 2.0), _tensor(1.0, 0.0, 1.0)
    return {
        "3.1": lambda: list(Scale().named_parameters()),
        "3.2": lambda: Linear(3, 2)(_tensor(1.0, 2.0, 3.0)).sum().backward(),
        "3.3": lambda: (F.softmax(x, -1).data, F.log_softmax(x, -1).data),
        "3.4": lambda: F.cross_entropy(logits, np.array([0, 2])).backward(),
        "3.5": lambda: (F.mse_loss(x, y).item(), F.binary_cross_entropy_with_logits(x, y).item()),
        "3.6": lambda: init.kaiming_uniform_(Parameter(np.zeros((2, 3)))),
        "3.7": lambda: Sequential(ReLU(), ReLU())(x),
    }


def _chapter4() -> dict[str, Callable[[], object]]:
    from .. import optim

    def stepped(make: Callable, steps: int = 2) -> None:
        w = _tensor(1.0, -2.0, requires_grad=True)
        optimizer = make([w])
        for _ in range(steps):
            w.grad = np.array([0.5, -4.0])
            optimizer.step()

    def clipped() -> float:
        w = _tensor(3.0, 4.0, requires_grad=True)
        w.grad = np.array([3.0, 4.0])
        return optim.clip_grad_norm_([w], max_norm=1.0)

    def scheduled() -> None:
        scheduler = optim.WarmupCosineLR(optim.SGD([_tensor(0.0, requires_grad=True)], lr=1.0),
                                         2, 6)
        for _ in range(3):
            scheduler.step()

    return {
        "4.1": lambda: stepped(lambda p: optim.SGD(p, lr=0.1, weight_decay=0.5)),
        "4.2": lambda: stepped(lambda p: optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True)),
        "4.3": lambda: stepped(lambda p: optim.Adam(p, lr=0.1)),
        "4.4": lambda: stepped(lambda p: optim.AdamW(p, lr=0.1, weight_decay=0.5)),
        "4.5": clipped,
        "4.6": scheduled,
    }


def _chapter5() -> dict[str, Callable[[], object]]:
    """Only what chapter 7's GPT builds on: LayerNorm, attention and its heads (5.2–5.4)."""
    from ..nn import functional as F
    from ..nn.attention import MultiheadAttention

    x = _tensor(*np.linspace(-1.0, 1.0, 8)).reshape(1, 2, 4)
    return {
        "5.2": lambda: F.layer_norm(x, (4,)),
        "5.3": lambda: F.scaled_dot_product_attention(x, x, x, is_causal=True),
        "5.4": lambda: MultiheadAttention(4, 2, batch_first=True)(x, x, x),
    }


PROBES = {1: _chapter1, 2: _chapter2, 3: _chapter3, 4: _chapter4, 5: _chapter5}


def missing(chapters: range) -> list[str]:
    """What is not in place in these chapters: exercise ids, or 'X.Y raises E' for a probe that fails.

    The shared random generator is left as it was: the probes' layers draw from it.
    """
    generator = default_generator().bit_generator
    state = generator.state
    try:
        return _missing(chapters)
    finally:
        generator.state = state


def _missing(chapters: range) -> list[str]:
    found: dict[str, None] = {}
    for number in chapters:
        try:
            probes = PROBES[number]()
        except Exception as error:  # a file of that chapter that does not import
            found[f"chapter {number}'s code raises {type(error).__name__} on import"] = None
            continue
        for exercise_id, call in probes.items():
            try:
                call()
            except NotImplementedError as error:
                stub = _STUB.match(str(error))
                found[stub[1] if stub else f"{exercise_id} raises NotImplementedError"] = None
            except Exception as error:
                found[f"{exercise_id} raises {type(error).__name__}"] = None
    return list(found)


def require(chapter: int) -> None:
    """Raise one line naming what chapter `chapter` needs from earlier chapters, if anything."""
    last = NEEDS.get(chapter)
    if last is None:
        return
    gaps = missing(range(1, last + 1))
    if gaps:
        span = "chapter 1" if last == 1 else f"chapters 1–{last}"
        command = "1" if last == 1 else f"1-{last}"
        listed = ", ".join(gaps[:SHOWN]) + (f" and {len(gaps) - SHOWN} more" if len(gaps) > SHOWN else "")
        raise MissingChapters(
            f"chapter {chapter} needs your {span} (not done yet: {listed}): do them, "
            f"or `make use-reference CHAPTER={command}`"
        )
