"""Chapter 4: optimizers, gradient clipping and learning-rate schedules, as in `torch.optim`.

An optimizer holds the parameters in groups (each group a dict of the parameters and
their hyperparameters) and one state dict per parameter. `step()` walks the groups and
calls `update(param, grad, state, group)` for every parameter whose `.grad` is set;
`update` changes the parameter's array in place, with vectorised NumPy, and sees each
parameter's own arrays, in its own shape. Every rule here treats each element on its
own, so with `foreach=True` (PyTorch's name for the same choice) `step()` instead runs
it once on all of a group's parameters joined end to end where it can (provided, in
`framework/provided/joined_step.py`): the same numbers in far fewer NumPy calls, but `update` then
sees flat vectors. The update rules are exactly PyTorch's, so a model trained
here follows the same trajectory as the same model in PyTorch. The rules and
`clip_grad_norm_` are the exercises here; the bookkeeping around them (`Optimizer`, in
`provided/optimizer.py`) is provided, and the schedules are in `lr_scheduler.py` (exercise 4.6).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable

import numpy as np

from . import lr_scheduler
from .lr_scheduler import LRScheduler, StepLR, WarmupCosineLR
from .provided.more_optimizers import Adadelta
from .provided.optimizer import Optimizer, ParamsArgument, check_non_negative
from .tensor import Tensor

__all__ = ["SGD", "Adadelta", "Adam", "AdamW", "LRScheduler", "Optimizer", "StepLR",
           "WarmupCosineLR", "clip_grad_norm_", "lr_scheduler"]

# `import framework.optim.lr_scheduler` finds lr_scheduler.py under PyTorch's module path
# (this module is one file, not a package, so the name is registered, as `os.path` is)
sys.modules[f"{__name__}.lr_scheduler"] = lr_scheduler


# -- exercises 4.1 and 4.2: stochastic gradient descent ------------------------------------------


class SGD(Optimizer):
    """Gradient descent, with momentum, Nesterov momentum and weight decay, as `torch.optim.SGD`.

    g ← ∇θ + λθ (weight decay, added to the gradient); with momentum μ the direction is
    the buffer b ← μb + (1 − τ)g (b = g at the first step), or g + μb for Nesterov;
    then θ ← θ − lr · direction. `foreach=True` joins each group's parameters for one
    `update` call (the same numbers; None or False, the default: one call per parameter).
    """

    elementwise = True

    def __init__(
        self, params: ParamsArgument, lr: float, momentum: float = 0.0, dampening: float = 0.0,
        nesterov: bool = False, weight_decay: float = 0.0, *, foreach: bool | None = None,
    ) -> None:
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, nesterov=nesterov,
                        weight_decay=weight_decay, foreach=foreach)
        super().__init__(params, defaults)

    def check_hyperparameters(self, group: dict) -> None:
        super().check_hyperparameters(group)
        check_non_negative("SGD", "momentum", group["momentum"])
        check_non_negative("SGD", "weight_decay", group["weight_decay"])
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError(
                f"SGD: nesterov=True needs momentum > 0 and dampening = 0, got "
                f"momentum={group['momentum']}, dampening={group['dampening']}"
            )

    def update(self, param: np.ndarray, grad: np.ndarray, state: dict, group: dict) -> None:
        """θ ← θ − lr · d, where g = ∇θ + λθ and d = g (or the momentum direction of g).

        `param` is the parameter's array, changed in place; `grad` is its `.grad`, which
        belongs to the caller and must stay as it is.
        """
        ### BEGIN SOLUTION 4.1
        weight_decay = group["weight_decay"]
        if weight_decay != 0:
            grad = grad + weight_decay * param
        if group["momentum"] != 0:
            grad = self.momentum_direction(grad, state, group)
        param -= group["lr"] * grad
        ### END SOLUTION

    @staticmethod
    def momentum_direction(grad: np.ndarray, state: dict, group: dict) -> np.ndarray:
        """The direction of a momentum step, keeping the buffer b in state["momentum_buffer"].

        b ← g at the first step, then b ← μb + (1 − τ)g (μ momentum, τ dampening); the
        direction is b, or g + μb with Nesterov. The buffer is the optimizer's own array.
        """
        ### BEGIN SOLUTION 4.2
        momentum = group["momentum"]
        buffer = state.get("momentum_buffer")
        if buffer is None:
            # np.array copies, and keeps a 0-d gradient an array (g + λθ of 0-d arrays is a scalar)
            buffer = state["momentum_buffer"] = np.array(grad, copy=True)
        else:
            buffer *= momentum
            buffer += (1.0 - group["dampening"]) * grad
        if group["nesterov"]:
            return grad + momentum * buffer
        return buffer
        ### END SOLUTION


# -- exercises 4.3 and 4.4: Adam and AdamW -----------------------------------------------------------


class Adam(Optimizer):
    """Adam (Kingma & Ba), as `torch.optim.Adam`; weight decay is L2, added to the gradient.

    m ← β₁m + (1 − β₁)g, v ← β₂v + (1 − β₂)g², θ ← θ − lr · m̂ / (√v̂ + ε), where
    m̂ = m / (1 − β₁ᵗ) and v̂ = v / (1 − β₂ᵗ) undo the zero start of the averages.
    `foreach=True` joins each group's parameters for one `update` call, as in `SGD`.
    """

    elementwise = True

    def __init__(
        self, params: ParamsArgument, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0.0, *, foreach: bool | None = None,
    ) -> None:
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        foreach=foreach)
        super().__init__(params, defaults)

    def check_hyperparameters(self, group: dict) -> None:
        super().check_hyperparameters(group)
        name = type(self).__name__
        betas = tuple(group["betas"])
        if len(betas) != 2:
            raise ValueError(f"{name}: betas={betas} must be a pair (beta1, beta2)")
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(
                    f"{name}: betas[{i}]={beta} is outside [0, 1); it is the decay of a running "
                    "average (0.9 and 0.999 are usual)"
                )
        group["betas"] = betas
        check_non_negative(name, "eps", group["eps"])
        check_non_negative(name, "weight_decay", group["weight_decay"])

    def update(self, param: np.ndarray, grad: np.ndarray, state: dict, group: dict) -> None:
        """g ← ∇θ + λθ (coupled weight decay, as PyTorch's Adam), then the Adam step."""
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param
        self.adam_step(param, grad, state, group)

    @staticmethod
    def adam_step(param: np.ndarray, grad: np.ndarray, state: dict, group: dict) -> None:
        """One Adam step of `param`, in place; state holds "step", "exp_avg" m, "exp_avg_sq" v.

        t ← t + 1, m ← β₁m + (1 − β₁)g, v ← β₂v + (1 − β₂)g²,
        θ ← θ − lr · (m / (1 − β₁ᵗ)) / (√(v / (1 − β₂ᵗ)) + ε)   (ε outside the root).
        """
        ### BEGIN SOLUTION 4.3
        beta1, beta2 = group["betas"]
        if not state:
            state["step"] = 0
            state["exp_avg"] = np.zeros_like(param)
            state["exp_avg_sq"] = np.zeros_like(param)
        state["step"] += 1
        t = state["step"]
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m *= beta1
        m += (1.0 - beta1) * grad
        v *= beta2
        v += (1.0 - beta2) * np.square(grad)
        m_hat = m / (1.0 - beta1**t)
        v_hat = v / (1.0 - beta2**t)
        param -= group["lr"] * m_hat / (np.sqrt(v_hat) + group["eps"])
        ### END SOLUTION


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter), as `torch.optim.AdamW`.

    θ ← θ − lr · λ · θ first, then the Adam step on the plain gradient: the decay is
    not divided by √v̂, so every weight shrinks at the same rate.
    """

    def __init__(
        self, params: ParamsArgument, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 1e-2, *, foreach: bool | None = None,
    ) -> None:
        super().__init__(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                         foreach=foreach)

    def update(self, param: np.ndarray, grad: np.ndarray, state: dict, group: dict) -> None:
        """θ ← (1 − lr · λ) θ, then Adam's step (`adam_step`) on the gradient as given: the
        decay shrinks θ directly and never enters m or v."""
        ### BEGIN SOLUTION 4.4
        decay = group["lr"] * group["weight_decay"]
        if decay != 0:
            param *= 1.0 - decay
        self.adam_step(param, grad, state, group)
        ### END SOLUTION


# -- exercise 4.5: gradient clipping ------------------------------------------------------------------


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0
) -> float:
    """Scale all gradients together so their global norm is at most `max_norm`; in place.

    total = ‖(‖g₁‖, ‖g₂‖, …)‖ (the norm of all gradients as one vector; `norm_type` p, or
    math.inf for the largest |g|); each g ← g · min(1, max_norm / (total + 1e-6)).
    Returns the total norm before clipping, as a float (PyTorch returns a tensor).
    Parameters whose `.grad` is None are skipped.
    """
    if not max_norm >= 0.0:
        raise ValueError(f"clip_grad_norm_: max_norm={max_norm} is invalid; it must be >= 0")
    if not (norm_type >= 1.0 or norm_type == math.inf):
        raise ValueError(f"clip_grad_norm_: norm_type={norm_type} must be >= 1 or math.inf")
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return 0.0
    ### BEGIN SOLUTION 4.5
    norms = [np.linalg.norm(g.ravel(), norm_type) for g in grads]
    total = float(np.linalg.norm(np.array(norms, dtype=np.float64), norm_type))
    scale = max_norm / (total + 1e-6)
    if scale < 1.0:
        for g in grads:
            g *= scale
    return total
    ### END SOLUTION


def __getattr__(name: str):
    if name == "RMSprop":  # not provided: it is an exercise's answer
        raise AttributeError(
            "framework.optim has no RMSprop: it is chapter 4's bonus exercise 4.7; once written, "
            "use framework.bonus.chapter4_optimizers.RMSprop (lr, alpha, eps, weight_decay)"
        )
    raise AttributeError(f"module 'framework.optim' has no attribute {name!r}")
