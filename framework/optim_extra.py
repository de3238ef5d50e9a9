"""Chapter 4's bonus track (optional): two optimizers written from their papers.

RMSprop (Hinton's lecture 6e, as `torch.optim.RMSprop` without momentum) and Lion (Chen et
al. 2023, "Symbolic Discovery of Optimization Algorithms", Algorithm 2). Both subclass
chapter 4's `Optimizer` and write only `update`. Nothing provided uses them.
"""

from __future__ import annotations

import numpy as np

from .optim import _check_non_negative
from .optimizer import Optimizer, ParamsArgument

# -- bonus exercise 4.7 ------------------------------------------------------------------------


class RMSprop(Optimizer):
    """v ← αv + (1 − α)g², θ ← θ − lr · g / (√v + ε), with g ← ∇θ + λθ (L2 weight decay).

    v starts at zero; state holds "step" and "square_avg" (v), as PyTorch names them.
    """

    elementwise = True

    def __init__(self, params: ParamsArgument, lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0.0) -> None:
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay))

    def check_hyperparameters(self, group: dict) -> None:
        super().check_hyperparameters(group)
        if not 0.0 <= group["alpha"] < 1.0:
            raise ValueError(f"RMSprop: alpha={group['alpha']} must be in [0, 1)")
        _check_non_negative("RMSprop", "eps", group["eps"])
        _check_non_negative("RMSprop", "weight_decay", group["weight_decay"])

    def update(self, param: np.ndarray, grad: np.ndarray, state: dict, group: dict) -> None:
        ### BEGIN SOLUTION 4.7
        raise NotImplementedError("Exercise 4.7: RMSprop (bonus) — see chapters/04_optimizers.ipynb, '4.7 Bonus: RMSprop'")
        ### END SOLUTION


# -- bonus exercise 4.8 ------------------------------------------------------------------------


class Lion(Optimizer):
    """Lion: c ← β₁m + (1 − β₁)g, θ ← θ − lr · (sign(c) + λθ), then m ← β₂m + (1 − β₂)g.

    Every coordinate moves by exactly lr (plus the decay): the sign of an interpolation of
    the momentum and the gradient. m starts at zero; state holds "exp_avg" (m).
    """

    elementwise = True

    def __init__(self, params: ParamsArgument, lr: float = 1e-4,
                 betas: tuple[float, float] = (0.9, 0.99), weight_decay: float = 0.0) -> None:
        super().__init__(params, dict(lr=lr, betas=tuple(betas), weight_decay=weight_decay))

    def check_hyperparameters(self, group: dict) -> None:
        super().check_hyperparameters(group)
        betas = tuple(group["betas"])
        if len(betas) != 2 or not all(0.0 <= beta <= 1.0 for beta in betas):
            raise ValueError(f"Lion: betas={betas} must be a pair in [0, 1]")
        group["betas"] = betas
        _check_non_negative("Lion", "weight_decay", group["weight_decay"])

    def update(self, param: np.ndarray, grad: np.ndarray, state: dict, group: dict) -> None:
        ### BEGIN SOLUTION 4.8
        raise NotImplementedError("Exercise 4.8: Lion (bonus) — see chapters/04_optimizers.ipynb, '4.8 Bonus: Lion'")
        ### END SOLUTION
