"""Provided: `torch.nn.utils`'s gradient clipping and parameter vectors.

`clip_grad_norm_` is chapter 4's exercise 4.5 (`optim.clip_grad_norm_`), returning the total
norm as a 0-d Tensor where PyTorch does; `clip_grad_value_` clamps each element instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .. import optim
from ..function import unwrap
from ..provided.surface import concatenate
from ..tensor import Tensor


def _listed(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale all gradients by one factor so their global norm is at most max_norm (in place);
    returns the norm before clipping, a 0-d Tensor in the gradients' dtype (as PyTorch).

    error_if_nonfinite: raise if that norm is nan or infinite instead of scaling by nan.
    `foreach` only picks PyTorch's implementation; every choice gives the same numbers here.
    """
    params = _listed(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if error_if_nonfinite and grads:
        total = float(np.linalg.norm([np.linalg.norm(g.ravel(), norm_type) for g in grads], norm_type))
        if not math.isfinite(total):
            raise RuntimeError(
                f"clip_grad_norm_: the total norm of order {norm_type} of the gradients is {total}; "
                "find the nan or inf in a gradient, or pass error_if_nonfinite=False"
            )
    total = optim.clip_grad_norm_(params, max_norm, norm_type)
    dtype = grads[0].dtype if grads else np.float32
    return Tensor(np.asarray(total, dtype=dtype))


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient element into [-clip_value, clip_value], in place."""
    if not clip_value >= 0.0:
        raise ValueError(f"clip_grad_value_: clip_value={clip_value} must be >= 0")
    for p in _listed(parameters):
        if p.grad is not None:
            np.clip(p.grad, -clip_value, clip_value, out=p.grad)


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Every parameter flattened and joined, in order, into one vector (differentiable)."""
    return concatenate([p.reshape(-1) for p in parameters], axis=0)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of `vec` into the parameters (the inverse of parameters_to_vector)."""
    data = np.asarray(unwrap(vec))
    params = list(parameters)
    needed = sum(p.data.size for p in params)
    if data.ndim != 1 or data.size != needed:
        raise ValueError(f"vector_to_parameters: vec of shape {data.shape} for parameters holding "
                         f"{needed} numbers; pass a vector of exactly that many")
    start = 0
    for p in params:
        p.data[...] = data[start:start + p.data.size].reshape(p.data.shape)
        start += p.data.size
