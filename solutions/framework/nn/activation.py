"""Provided: more of PyTorch's activation layers (torch/nn/modules/activation.py) and
`Identity`, each a thin module over its function; the module forms of
`functional_activation.py`'s functions (`nn.ELU` for `F.elu`) are made by one helper."""

from __future__ import annotations

from ..tensor import Tensor
from . import functional as F
from .modules import Module


class LeakyReLU(Module):
    """x where x > 0, negative_slope · x elsewhere."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: Tensor) -> Tensor:
        return F.leaky_relu(x, self.negative_slope)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}"


class SiLU(Module):
    def forward(self, x: Tensor) -> Tensor:
        return F.silu(x)


class Softmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return F.softmax(x, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, x: Tensor) -> Tensor:
        return F.log_softmax(x, self.dim)


class Identity(Module):
    """Its input, unchanged (a placeholder, as PyTorch's; arguments are accepted and ignored)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, x):
        return x


def _module_form(name: str, function: str, **defaults) -> type:
    """A module whose forward is `F.<function>(x, **its options)`, the options (with their
    defaults, in PyTorch's order) given to __init__ and shown in its repr."""
    def __init__(self, *args, **kwargs) -> None:
        Module.__init__(self)
        options = dict(defaults)
        options.update(zip(defaults, args))
        unknown = set(kwargs) - set(defaults) - {"inplace"}
        if unknown or len(args) > len(defaults):
            raise TypeError(f"{name}: takes {list(defaults)}, got {args} and {sorted(kwargs)}")
        options.update({k: v for k, v in kwargs.items() if k != "inplace"})
        self.__dict__.update(options)

    def forward(self, *inputs: Tensor) -> Tensor:
        return getattr(F, function)(*inputs, **{k: getattr(self, k) for k in defaults})

    def extra_repr(self) -> str:
        return ", ".join(f"{k}={getattr(self, k)}" for k in defaults)

    return type(name, (Module,), {"__init__": __init__, "forward": forward, "extra_repr": extra_repr,
                                  "__doc__": f"The module form of `F.{function}`.",
                                  "__module__": __name__})


ELU = _module_form("ELU", "elu", alpha=1.0)
SELU = _module_form("SELU", "selu")
CELU = _module_form("CELU", "celu", alpha=1.0)
Hardtanh = _module_form("Hardtanh", "hardtanh", min_val=-1.0, max_val=1.0)
ReLU6 = _module_form("ReLU6", "relu6")
Hardsigmoid = _module_form("Hardsigmoid", "hardsigmoid")
Hardswish = _module_form("Hardswish", "hardswish")
Softsign = _module_form("Softsign", "softsign")
Tanhshrink = _module_form("Tanhshrink", "tanhshrink")
Softshrink = _module_form("Softshrink", "softshrink", lambd=0.5)
Hardshrink = _module_form("Hardshrink", "hardshrink", lambd=0.5)
Threshold = _module_form("Threshold", "threshold", threshold=0.0, value=0.0)
GLU = _module_form("GLU", "glu", dim=-1)
Softmin = _module_form("Softmin", "softmin", dim=None)
CosineSimilarity = _module_form("CosineSimilarity", "cosine_similarity", dim=1, eps=1e-8)
PairwiseDistance = _module_form("PairwiseDistance", "pairwise_distance", p=2.0, eps=1e-6,
                                keepdim=False)
MODULE_FORMS = ("ELU", "SELU", "CELU", "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish", "Softsign",
                "Tanhshrink", "Softshrink", "Hardshrink", "Threshold", "GLU", "Softmin",
                "CosineSimilarity", "PairwiseDistance")


def _softplus_form(name: str) -> type:
    """A module refused when made: its function is softplus, bonus exercise 3.8's answer."""
    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            f"nn.{name} is not provided: its function is softplus, chapter 3's bonus exercise "
            "3.8; once written, wrap framework.bonus.chapter3_primitives.softplus in a Module")

    return type(name, (Module,), {"__init__": __init__, "__module__": __name__,
                                  "__doc__": "Not provided: softplus is bonus exercise 3.8's."})


Softplus, LogSigmoid, Mish = (_softplus_form(n) for n in ("Softplus", "LogSigmoid", "Mish"))
