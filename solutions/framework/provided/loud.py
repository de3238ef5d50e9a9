"""Provided: a name the framework does not have is an error in our words, not Python's bare one.

`framework.lstsq`, `framework.nn.LSTM`, `F.ctc_loss`, `x.lstsq()`: each raises an
AttributeError that says the framework has no such name, that a name of PyTorch's is one it
does not support yet (the README's coverage table lists them), and how to write it from the
framework's ops. The packages' module `__getattr__` raises it for any name, so the sentence
is true of a typo too; a tensor raises it for PyTorch's tensor names (`tensor_names.py`),
and a typo gets Python's own error with its "Did you mean". Private and dunder names keep
Python's short error: copy, pickle and `hasattr` ask for those and expect it.
"""

from __future__ import annotations

from .tensor_names import TENSOR_NAMES

COMPLEX = ("complex numbers are not supported: the framework's tensors hold real numbers (NumPy "
           "float, int or bool); keep the real and imaginary parts as two real tensors")
GAMMA = ("NumPy has no {what} (scipy.special has it); write it as a framework.autograd.Function "
         "with its forward from scipy.special and its backward from its derivative")

#: PyTorch's names of the families that the framework refuses by name: name → why, what to do
REFUSED = {
    **dict.fromkeys(("angle", "conj", "conj_physical", "imag", "real", "polar", "complex",
                     "view_as_real", "view_as_complex", "resolve_conj"), COMPLEX),
    "lgamma": GAMMA.format(what="log-gamma function"),
    "digamma": GAMMA.format(what="digamma function"),
    "polygamma": GAMMA.format(what="polygamma function"),
    "mvlgamma": GAMMA.format(what="multivariate log-gamma function"),
    "erfinv": GAMMA.format(what="inverse error function"),
    "i0": GAMMA.format(what="derivative of the Bessel function i0 (i1)"),
    "igamma": GAMMA.format(what="regularized incomplete gamma function's derivative"),
    "igammac": GAMMA.format(what="regularized incomplete gamma function's derivative"),
}

#: the in-place forms PyTorch has of REFUSED's names, refused alike
IN_PLACE_REFUSED = ("conj_physical_", "lgamma_", "digamma_", "polygamma_", "mvlgamma_", "erfinv_",
                    "i0_", "igamma_", "igammac_")


def refusal(name: str):
    """A method (and function) `name` that raises NotImplementedError with REFUSED's reason."""
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"{name}: {REFUSED[name.removesuffix('_')]}")

    refuse.__name__ = refuse.__qualname__ = name
    refuse.__doc__ = f"Not supported: {REFUSED[name.removesuffix('_')]}."
    return refuse


def missing(owner: str, name: str, pytorchs: bool = False) -> AttributeError:
    """The error for `owner.name` (owner as the user wrote it: "framework.nn", "Tensor");
    `pytorchs` when `name` is known to be one of PyTorch's."""
    if name.startswith("_"):
        return AttributeError(f"{owner!r} has no attribute {name!r}")
    which = (f"PyTorch's {owner}.{name} is not supported yet" if pytorchs else
             f"the framework has no such name. If {name!r} is PyTorch's, it is not supported yet")
    return AttributeError(
        f"{owner} has no attribute {name!r}: {which} (the README's coverage table counts what "
        "is); check the spelling, or write it from the framework's ops: a function of tensors, "
        "an nn.Module, or framework.autograd.Function with its own backward"
    )


class NotYet:
    """One of PyTorch's names that `Tensor` lacks: reading it raises `missing` (an
    AttributeError, so `hasattr` is False). A descriptor, not a class `__getattr__`: with one,
    CPython reads every attribute of every tensor (`x.data`) on its slow path, about 20 ns more."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        raise missing((owner or type(obj)).__name__, self.name, pytorchs=True)


class LoudMethods:
    """The last base of `Tensor`: PyTorch's tensor names that nothing before it defines are
    `NotYet`s, and REFUSED's names refusals."""

    __slots__ = ()


for _name in TENSOR_NAMES:
    setattr(LoudMethods, _name, NotYet(_name))
for _name in (*REFUSED, *IN_PLACE_REFUSED):
    setattr(LoudMethods, _name, refusal(_name))
