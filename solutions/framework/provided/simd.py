"""An `exp` for chapter 8's compiled loops that the compiler turns into SIMD code (8 float32
numbers an instruction on AVX2).

    from framework.provided.simd import exp   # in an @njit function: exp(v)

`math.exp` inside an @njit loop compiles to one call of the C library per element, and no
compiler turns a call into vector code (Numba would with Intel's SVML, which the course does not
install). Measured on the 2-core machine (AMD EPYC, AVX2), one thread, 196,608 float32 numbers:
`math.exp` in a loop 1.6 ms, NumPy's SIMD `np.exp` 0.5-1.1 ms, this `exp` in a loop 0.13-0.33
ms; `math.tanh` in a loop 12 ms, which is why the fused GELU is written with `exp`.

For float32 it is made of multiplications, additions and comparisons only: v = n·ln 2 + r with
|r| ≤ ln 2 / 2 (ln 2 in two parts, 355/512 and the small rest, so that n·355/512 is exact),
e^r by its Taylor series to r⁷ (the next term is below 6e-9 there), 2ⁿ written straight into a
float's exponent bits. Within 1.1e-7 of the true value, relatively, from -86.99 to 88.72; 0 below
(where e^v < 1.7e-38, float32's smallest normal numbers), inf above. A loop that calls it must be
compiled with `error_model="numpy"` (Numba's default checks each division for zero, a branch
that stops vectorisation). For float64 it is `math.exp`: a float32 approximation would drop
digits a float64 caller asked for. From Python it is `math.exp`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.extending import overload

F = np.float32


def exp(v):
    """e ** v; in compiled code, vectorisable for float32."""
    return math.exp(v)


def _exp32(v):
    low, high = v < F(-86.99), v > F(88.72283)
    v = min(max(v, F(-86.99)), F(88.72283))
    n = np.floor(v * F(1 / math.log(2)) + F(0.5))  # v / ln 2, rounded
    r = v - n * F(355 / 512) + n * F(355 / 512 - math.log(2))  # v - n ln 2, ln 2 in two parts
    p = F(1 / 5040)  # 1/7!, then Horner's rule down to 1/2!
    for k in (720, 120, 24, 6, 2):
        p = p * r + F(1 / k)
    p = p * r * r + r + F(1.0)  # e^r
    # 2^(n-1) as bits, then ·2: n reaches 128 just below 88.72, and 2^128 alone overflows
    scale = np.int32((np.int32(n) + np.int32(126)) << np.int32(23)).view(np.float32)
    return F(0.0) if low else F(np.inf) if high else p * scale * F(2.0)


@overload(exp, inline="always")
def _exp_overload(v):
    if v == types.float32:
        return _exp32
    return lambda v: math.exp(v)


__all__ = ["exp"]
