"""Provided: the loss modules of `torch.nn`, each a thin Module over its function in `functional`.

`criterion = nn.CrossEntropyLoss(); loss = criterion(logits, targets)` is
`F.cross_entropy(logits, targets)`: the module only keeps the options (`reduction`,
`ignore_index`, `label_smoothing`), with PyTorch's defaults; the deprecated `size_average`
and `reduce` map to a reduction as PyTorch maps them (nn/_reduction.py), with a UserWarning.
An argument PyTorch takes that these do not support (per-class `weight`, `pos_weight`) raises
an error naming it, never a silently different loss.
"""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from ._reduction import check_reduction, legacy_reduction
from .modules import Module


def _unsupported(loss: str, **arguments) -> None:
    """Raise naming the first PyTorch argument given that this loss does not support."""
    advice = {
        "weight": "weight the rows yourself: reduction='none', multiply, then sum or mean",
        "pos_weight": "weight the rows yourself: reduction='none', multiply, then sum or mean",
    }
    for name, value in arguments.items():
        if value is not None:
            raise NotImplementedError(f"{loss}: the argument {name}= is not supported here; {advice[name]}")


class _Loss(Module):
    """The reduction every loss takes: "mean" (PyTorch's default), "sum" or "none", or what
    the deprecated size_average= and reduce= stand for when either is given."""

    def __init__(self, reduction: str = "mean", size_average=None, reduce=None) -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = legacy_reduction(type(self).__name__, size_average, reduce, stacklevel=4)
        check_reduction(type(self).__name__, reduction)
        self.reduction = reduction


class CrossEntropyLoss(_Loss):
    """F.cross_entropy: logits (N, C) and class indices (N,) → -log softmax(logits)[target]."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0) -> None:
        _unsupported("CrossEntropyLoss", weight=weight)
        super().__init__(reduction, size_average, reduce)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target) -> Tensor:
        return F.cross_entropy(input, target, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_Loss):
    """F.nll_loss: log-probabilities (N, C) and class indices (N,) → -input[target]."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean") -> None:
        _unsupported("NLLLoss", weight=weight)
        super().__init__(reduction, size_average, reduce)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target) -> Tensor:
        return F.nll_loss(input, target, ignore_index=self.ignore_index, reduction=self.reduction)


class MSELoss(_Loss):
    """F.mse_loss: (input - target)² elementwise, then reduced."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(reduction, size_average, reduce)

    def forward(self, input: Tensor, target) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """F.l1_loss: |input - target| elementwise, then reduced."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean") -> None:
        super().__init__(reduction, size_average, reduce)

    def forward(self, input: Tensor, target) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """F.binary_cross_entropy_with_logits: binary cross-entropy of σ(input), stable for any logit."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean",
                 pos_weight=None) -> None:
        _unsupported("BCEWithLogitsLoss", weight=weight, pos_weight=pos_weight)
        super().__init__(reduction, size_average, reduce)

    def forward(self, input: Tensor, target) -> Tensor:
        return F.binary_cross_entropy_with_logits(input, target, reduction=self.reduction)


class BCELoss(_Loss):
    """F.binary_cross_entropy: binary cross-entropy of probabilities in [0, 1]."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean") -> None:
        _unsupported("BCELoss", weight=weight)
        super().__init__(reduction, size_average, reduce)

    def forward(self, input: Tensor, target) -> Tensor:
        return F.binary_cross_entropy(input, target, reduction=self.reduction)


def _loss_form(name: str, function: str, inputs: int, **options) -> type:
    """The module form of `F.<function>` (a loss of `inputs` tensors and a target): PyTorch's
    options by keyword, with its defaults, and `reduction`."""
    def __init__(self, *, size_average=None, reduce=None, reduction: str = "mean", **given) -> None:
        unknown = set(given) - set(options)
        if unknown:
            raise TypeError(f"{name}: takes {sorted(options)} and reduction, got {sorted(unknown)}")
        if reduction == "batchmean" and function == "kl_div":
            Module.__init__(self)
            self.reduction = reduction
        else:
            _Loss.__init__(self, reduction, size_average, reduce)
        self.__dict__.update({**options, **given})

    def forward(self, *tensors: Tensor) -> Tensor:
        extra = {k: getattr(self, k) for k in options}
        return getattr(F, function)(*tensors, reduction=self.reduction, **extra)

    return type(name, (_Loss,), {"__init__": __init__, "forward": forward, "__module__": __name__,
                                 "__doc__": f"The module form of `F.{function}`."})


KLDivLoss = _loss_form("KLDivLoss", "kl_div", 1, log_target=False)
MarginRankingLoss = _loss_form("MarginRankingLoss", "margin_ranking_loss", 2, margin=0.0)
HingeEmbeddingLoss = _loss_form("HingeEmbeddingLoss", "hinge_embedding_loss", 1, margin=1.0)
CosineEmbeddingLoss = _loss_form("CosineEmbeddingLoss", "cosine_embedding_loss", 2, margin=0.0)
PoissonNLLLoss = _loss_form("PoissonNLLLoss", "poisson_nll_loss", 1, log_input=True, full=False,
                            eps=1e-8)
GaussianNLLLoss = _loss_form("GaussianNLLLoss", "gaussian_nll_loss", 1, full=False, eps=1e-6)
TripletMarginLoss = _loss_form("TripletMarginLoss", "triplet_margin_loss", 3, margin=1.0, p=2.0,
                               eps=1e-6, swap=False)
LOSS_FORMS = ("KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss",
              "CosineEmbeddingLoss", "PoissonNLLLoss", "GaussianNLLLoss", "TripletMarginLoss")


class SoftMarginLoss(_Loss):
    """Not provided: its loss is softplus of the margin, chapter 3's bonus exercise 3.8."""

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            "nn.SoftMarginLoss is not provided: its loss is softplus(-target * input), and "
            "softplus is chapter 3's bonus exercise 3.8; once written, reduce "
            "framework.bonus.chapter3_primitives.softplus(-target * input)")


class HuberLoss(_Loss):
    """Not provided: Huber's loss is chapter 3's bonus exercise 3.9."""

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            "nn.HuberLoss is not provided: it is chapter 3's bonus exercise 3.9; once written, "
            "call framework.bonus.chapter3_primitives.huber_loss(input, target, reduction, delta)")


class SmoothL1Loss(_Loss):
    """Not provided: it is Huber's loss divided by β, chapter 3's bonus exercise 3.9."""

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            "nn.SmoothL1Loss is not provided: it is Huber's loss divided by beta, chapter 3's "
            "bonus exercise 3.9; once written, call framework.bonus.chapter3_primitives."
            "huber_loss(input, target, reduction, delta=beta) / beta")
