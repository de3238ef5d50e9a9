"""Chapter 4's bonus track (optional): two optimizers from their papers, and a property test.

4.7 RMSprop (Hinton's lecture 6e, as `torch.optim.RMSprop` without momentum) and 4.8 Lion
(Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms", Algorithm 2) subclass
chapter 4's `Optimizer` (provided) and write only `update`: a half-written optim.py blocks
neither.

4.9 `check_warmup_cosine(lr_at)` is a test of a schedule, not a schedule: it receives a function
`lr_at(base_lr, step, warmup_steps, total_steps, min_lr) -> float` and must raise
AssertionError when that function is not 4.6's warm-up + cosine schedule, and return quietly
when it is. The grader runs your test on correct schedules (it must pass every one) and on
chapter 4's bug zoo for 4.6, the mistakes `checks/mutants/chapter4.py` lists (it must catch at
least 80% of them): what the course's own graders have to do. Nothing provided uses any of them.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ..provided.optimizer import Optimizer, ParamsArgument, check_non_negative

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
        check_non_negative("RMSprop", "eps", group["eps"])
        check_non_negative("RMSprop", "weight_decay", group["weight_decay"])

    def update(self, param: np.ndarray, grad: np.ndarray, state: dict, group: dict) -> None:
        ### BEGIN SOLUTION 4.7
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param
        if not state:
            state["step"] = 0
            state["square_avg"] = np.zeros_like(param)
        state["step"] += 1
        v = state["square_avg"]
        v *= group["alpha"]
        v += (1.0 - group["alpha"]) * np.square(grad)
        param -= group["lr"] * grad / (np.sqrt(v) + group["eps"])
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
        check_non_negative("Lion", "weight_decay", group["weight_decay"])

    def update(self, param: np.ndarray, grad: np.ndarray, state: dict, group: dict) -> None:
        ### BEGIN SOLUTION 4.8
        beta1, beta2 = group["betas"]
        if not state:
            state["exp_avg"] = np.zeros_like(param)
        m = state["exp_avg"]
        direction = np.sign(beta1 * m + (1.0 - beta1) * grad)
        param *= 1.0 - group["lr"] * group["weight_decay"]
        param -= group["lr"] * direction
        m *= beta2
        m += (1.0 - beta2) * grad
        ### END SOLUTION


# -- bonus exercise 4.9 ------------------------------------------------------------------------

Schedule = Callable[[float, int, int, int, float], float]


def check_warmup_cosine(lr_at: Schedule) -> None:
    """Raise AssertionError unless lr_at(base_lr, step, warmup_steps, total_steps, min_lr) is
    base_lr · t / W during warm-up (t < W), then min_lr + (base_lr − min_lr) · ½(1 + cos(π p))
    with p = (t − W) / (T − W) up to T, and min_lr from T on; for 0 ≤ W < T, 0 ≤ min_lr ≤ base_lr.
    """
    ### BEGIN SOLUTION 4.9
    @given(warmup=st.integers(0, 10), length=st.integers(1, 20), base=st.floats(0.01, 1.0),
           share=st.floats(0.0, 0.9))
    def schedule_properties(warmup, length, base, share):
        total, min_lr = warmup + length, share * base
        lrs = [lr_at(base, t, warmup, total, min_lr) for t in range(total + 3)]
        for t in range(warmup + 1):  # a straight line from 0 to base
            assert math.isclose(lrs[t], base * t / warmup if warmup else base, abs_tol=1e-12)
        for k in range(length + 1):  # the cosine is symmetric about its midpoint
            assert math.isclose(lrs[warmup + k] + lrs[total - k], base + min_lr, abs_tol=1e-9)
        assert all(later <= earlier + 1e-12 for earlier, later in zip(lrs[warmup:], lrs[warmup + 1:]))
        for k in range(1, (length + 1) // 2):  # a cosine, not a line: above the chord, first half
            chord = base - (base - min_lr) * k / length
            assert lrs[warmup + k] > chord or math.isclose(base, min_lr, rel_tol=1e-9)
        assert all(math.isclose(lr, min_lr, abs_tol=1e-12) for lr in lrs[total:])

    schedule_properties()
    ### END SOLUTION
