"""Provided: PyTorch's comparison and logical family beyond the operators: `isclose`,
`allclose`, `equal`, `isinf`, `signbit`, `logical_xor`, the bitwise ops on bool and integer
tensors, and the long names of the comparisons (`greater_equal` is `ge`); with them the
elementwise ops that PyTorch gives no gradient (`gcd`, `lcm`, `heaviside`, `nextafter`,
`floor_divide`). No gradient, as PyTorch's.
"""

from __future__ import annotations

import numpy as np

from ..function import unwrap
from .elementwise import alias, in_place

#: name → NumPy's elementwise function of the tensor (and the other operand, if two)
PREDICATES = {
    "isinf": np.isinf, "isposinf": np.isposinf, "isneginf": np.isneginf, "isreal": np.isreal,
    "signbit": np.signbit, "logical_xor": np.logical_xor, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor, "bitwise_not": np.invert,
    "bitwise_left_shift": np.left_shift, "bitwise_right_shift": np.right_shift,
    "gcd": np.gcd, "lcm": np.lcm, "heaviside": np.heaviside, "nextafter": np.nextafter,
    "floor_divide": np.floor_divide,
}
LONG_NAMES = {"not_equal": "ne", "greater": "gt", "greater_equal": "ge", "less": "lt",
              "less_equal": "le"}


def _predicate(name: str):
    compute = PREDICATES[name]

    def method(self, *other):
        out = np.asarray(compute(self.data, *map(unwrap, other)))
        return self._make(out.astype(self.dtype) if name == "nextafter" else out)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"NumPy's {compute.__name__}, elementwise: no gradient."
    return method


class LogicMethods:
    """The comparison and logical methods of `Tensor` this file gives it."""

    __slots__ = ()

    def isclose(self, other, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False):
        """|self - other| ≤ atol + rtol · |other|, elementwise."""
        return self._make(np.isclose(self.data, unwrap(other), rtol, atol, equal_nan))

    def allclose(self, other, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> bool:
        """Whether `isclose` holds everywhere: a Python bool, as PyTorch's."""
        return bool(np.allclose(self.data, unwrap(other), rtol, atol, equal_nan))

    def equal(self, other) -> bool:
        """Same shape and the same elements: a Python bool, as PyTorch's."""
        return bool(np.array_equal(self.data, unwrap(other)))


for _name in PREDICATES:
    setattr(LogicMethods, _name, _predicate(_name))
for _name, _target in LONG_NAMES.items():
    setattr(LogicMethods, _name, alias(_name, _target))
for _name in (*PREDICATES, *LONG_NAMES, "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
              "logical_or", "logical_not"):
    if _name not in ("isinf", "isposinf", "isneginf", "isreal", "signbit"):  # no in-place form
        setattr(LogicMethods, f"{_name}_", in_place(_name))
