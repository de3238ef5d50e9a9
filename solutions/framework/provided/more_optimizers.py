"""Provided: `Adadelta`, as in `torch.optim`, on chapter 4's `Optimizer` (its rule is
elementwise, so `foreach=True` applies). Chapter 4 writes SGD, Adam and AdamW; RMSprop is its
bonus exercise 4.7 (`framework.bonus.chapter4_optimizers.RMSprop`).
"""

from __future__ import annotations

import numpy as np

from .optimizer import Optimizer, ParamsArgument, check_non_negative


class Adadelta(Optimizer):
    """g ← ∇θ + λθ; v ← ρv + (1 − ρ)g²; Δ = √(u + ε)/√(v + ε) · g; u ← ρu + (1 − ρ)Δ²;
    θ ← θ − lr · Δ (v, u start at 0), as `torch.optim.Adadelta`."""

    elementwise = True

    def __init__(self, params: ParamsArgument, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0.0, *, foreach: bool | None = None) -> None:
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, foreach=foreach))

    def check_hyperparameters(self, group: dict) -> None:
        super().check_hyperparameters(group)
        check_non_negative("Adadelta", "weight_decay", group["weight_decay"])
        if not 0.0 <= group["rho"] <= 1.0:
            raise ValueError(f"Adadelta: rho={group['rho']} must be in [0, 1]")

    def update(self, param: np.ndarray, grad: np.ndarray, state: dict, group: dict) -> None:
        rho, eps = group["rho"], group["eps"]
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param
        square_avg = state.setdefault("square_avg", np.zeros_like(param))
        acc_delta = state.setdefault("acc_delta", np.zeros_like(param))
        square_avg *= rho
        square_avg += (1 - rho) * grad * grad
        delta = np.sqrt(acc_delta + eps) / np.sqrt(square_avg + eps) * grad
        acc_delta *= rho
        acc_delta += (1 - rho) * delta * delta
        param -= group["lr"] * delta
