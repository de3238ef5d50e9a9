"""Provided: more of `torch.nn.functional`, built from the ops that have their gradients:
`leaky_relu`, `silu` and `dropout2d` (`smooth_l1_loss` is refused: bonus 3.9's answer).
`F.leaky_relu` and the others are read from here when first used (functional.py's
`__getattr__`), and so are `functional_activation.py`'s (`F.elu`, ...) and
`functional_loss_extra.py`'s (`F.kl_div`, ...); a name none has is the error that says so
(`provided/loud.py`).
"""

from __future__ import annotations

from ..provided.generator import default_generator
from ..provided.loud import missing
from ..tensor import Tensor
from ._reduction import legacy_arguments


def __getattr__(name: str):
    from . import functional_activation, functional_loss_extra

    for home in (functional_activation, functional_loss_extra):
        if name in home.NAMES:
            return getattr(home, name)
    raise missing(f"{__package__}.functional", name)


def leaky_relu(x: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x where x > 0, negative_slope · x elsewhere."""
    return x.relu() - negative_slope * (-x).relu()


def silu(x: Tensor, inplace: bool = False) -> Tensor:
    """x · σ(x) (also called swish)."""
    return x * x.sigmoid()


@legacy_arguments
def smooth_l1_loss(input: Tensor, target, reduction: str = "mean", beta: float = 1.0) -> Tensor:  # noqa: A002
    """Not provided: it is Huber's loss (chapter 3's bonus exercise 3.9) divided by β."""
    raise NotImplementedError(
        "F.smooth_l1_loss is not provided: it is Huber's loss divided by beta, chapter 3's bonus "
        "exercise 3.9; once written, use framework.bonus.chapter3_primitives.huber_loss(input, "
        "target, reduction, delta=beta) / beta"
    )


def dropout2d(x: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes whole channels (axis 1 of (N, C, H, W)) with probability p while training, scaling
    the rest by 1/(1-p); draws one number per channel from the shared generator."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout2d: p={p} must be a probability in [0, 1]")
    if not training or p == 0.0:
        return x
    if x.ndim not in (2, 3, 4):
        raise ValueError(f"dropout2d: expects (N, C, H, W) or (C, H, W), got shape {tuple(x.shape)}")
    # a 2-D input has no channels: PyTorch drops single elements then (and warns), so do we
    channels = x.shape if x.ndim == 2 else x.shape[:-2] + (1, 1)
    keep = default_generator().random(channels) >= p
    return x * (keep / (1 - p)).astype(x.dtype)
