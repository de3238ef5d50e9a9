"""Chapter 4: optimizers, gradient clipping and learning-rate schedules, as in `torch.optim`.

An optimizer holds the parameters in groups (each group a dict of the parameters and
their hyperparameters) and one state dict per parameter. `step()` walks the groups and
calls `update(param, grad, state, group)` for every parameter whose `.grad` is set;
`update` changes the parameter's array in place, with vectorised NumPy, and sees each
parameter's own arrays, in its own shape. Every rule here treats each element on its
own, so with `foreach=True` (PyTorch's name for the same choice) `step()` instead runs
it once on all of a group's parameters joined end to end where it can (provided, in
`framework/_joined.py`): the same numbers in far fewer NumPy calls, but `update` then
sees flat vectors. The update rules are exactly PyTorch's, so a model trained
here follows the same trajectory as the same model in PyTorch. The rules,
`clip_grad_norm_` and the warm-up + cosine schedule are the exercises; the bookkeeping
around them is provided.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable

import numpy as np

from ._joined import JoinedSteps
from .tensor import Tensor

ParamsArgument = Iterable[Tensor] | Iterable[dict]


# -- the optimizer base: groups, state, zero_grad, step, state_dict ------------------------------


class Optimizer:
    """Base class: `param_groups` (a list of dicts), `state` ({parameter: dict}), `step()`.

    `params` is an iterable of tensors, or of dicts `{"params": [...], "lr": ...}` whose
    hyperparameters override `defaults` for that group (as `torch.optim.Optimizer`).
    """

    #: True when `update` treats every element on its own, as all of this chapter's rules
    #: do. Only then may a group ask for `foreach=True`: `step` runs `update` once on the
    #: group's parameters joined end to end into one vector, the same arithmetic in a
    #: dozen NumPy calls instead of a dozen per parameter (PyTorch's `foreach=True`
    #: implementation does the same).
    elementwise = False

    def __init__(self, params: ParamsArgument, defaults: dict) -> None:
        name = type(self).__name__
        if isinstance(params, Tensor):
            raise TypeError(
                f"{name}: params should be an iterable of tensors (or of dicts), got one Tensor; "
                f"pass a list, e.g. {name}([w], ...), or model.parameters()"
            )
        groups = list(params)
        if not groups:
            raise ValueError(f"{name}: got an empty parameter list; pass the tensors to optimize")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self.defaults = defaults
        self.param_groups: list[dict] = []
        self.state: dict[Tensor, dict] = {}
        self._joined = JoinedSteps()  # the foreach=True step (framework/_joined.py)
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, group: dict) -> None:
        """Add a group: its own hyperparameters, the defaults for the rest, all checked."""
        name = type(self).__name__
        params = group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        for p in params:
            if not isinstance(getattr(p, "data", None), np.ndarray) or not np.issubdtype(
                p.data.dtype, np.floating
            ):
                raise TypeError(
                    f"{name}: can only optimize floating tensors, got {type(p).__name__} "
                    f"with data {getattr(p, 'data', None)!r:.60}"
                )
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if len({id(p) for p in params}) != len(params) or seen & {id(p) for p in params}:
            raise ValueError(f"{name}: a parameter appears more than once in the parameter groups")
        unknown = set(group) - set(self.defaults) - {"params", "initial_lr"}
        if unknown:
            raise ValueError(
                f"{name}: unknown hyperparameter(s) {sorted(unknown)} in a parameter group; "
                f"{name} takes {sorted(self.defaults)}"
            )
        merged = {**self.defaults, **group, "params": params}
        self.check_hyperparameters(merged)
        self.param_groups.append(merged)

    def check_hyperparameters(self, group: dict) -> None:
        """Raise ValueError naming the bad value; each optimizer checks its own."""
        name = type(self).__name__
        if not group["lr"] >= 0.0:
            raise ValueError(f"{name}: lr={group['lr']} is invalid; a learning rate must be >= 0")
        if group.get("foreach") and not self.elementwise:
            raise ValueError(
                f"{name}: foreach=True joins a group's parameters into one vector, which only "
                "an update that treats every element on its own may see; set the class's "
                "`elementwise = True` if it does, or leave foreach off"
            )

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients: `.grad = None` (PyTorch's default), or fill them with 0."""
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.grad.fill(0.0)

    def step(self) -> None:
        """One update of every parameter that has a gradient (a None `.grad` is skipped).

        By default `update` is called once per parameter, with that parameter's own arrays;
        a group with `foreach=True` gets one call on its parameters joined end to end.
        """
        for index, group in enumerate(self.param_groups):
            params = [p for p in group["params"] if p.grad is not None]
            for p in params:
                if p.grad.shape != p.data.shape:
                    raise ValueError(
                        f"{type(self).__name__}.step: a parameter of shape {p.data.shape} has a "
                        f".grad of shape {p.grad.shape}; a gradient has its parameter's shape"
                    )
            if group.get("foreach") and self._joined.step(index, params, self.state, self.update,
                                                          group):
                continue
            for p in params:
                self.update(p.data, p.grad, self.state.setdefault(p, {}), group)

    def update(self, param: np.ndarray, grad: np.ndarray, state: dict, group: dict) -> None:
        """Change `param` in place, from its gradient, its state and its group's hyperparameters."""
        raise NotImplementedError

    def state_dict(self) -> dict:
        """{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}, copied.

        Parameters are numbered in the order of the groups, as in PyTorch, so the dict
        holds no tensors and can be loaded into an optimizer over other copies of them.
        """
        groups, state, index = [], {}, 0
        for group in self.param_groups:
            entry = {k: v for k, v in group.items() if k != "params"}
            entry["params"] = list(range(index, index + len(group["params"])))
            for p in group["params"]:
                if p in self.state:
                    state[index] = {k: _copied(v) for k, v in self.state[p].items()}
                index += 1
            groups.append(entry)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore the hyperparameters and the per-parameter state saved by `state_dict()`."""
        name = type(self).__name__
        saved_groups = state_dict["param_groups"]
        sizes = [len(g["params"]) for g in self.param_groups]
        saved_sizes = [len(g["params"]) for g in saved_groups]
        if sizes != saved_sizes:
            raise ValueError(
                f"{name}.load_state_dict: the saved groups hold {saved_sizes} parameters, "
                f"this optimizer's {sizes}; load it into an optimizer built the same way"
            )
        by_index = {
            int(i): p
            for saved, group in zip(saved_groups, self.param_groups)
            for i, p in zip(saved["params"], group["params"])
        }
        self.state = {}
        for index, saved_state in state_dict["state"].items():
            p = by_index[int(index)]
            self.state[p] = {k: _restored(v, p, k, name) for k, v in saved_state.items()}
        for saved, group in zip(saved_groups, self.param_groups):
            group.update({k: _copied(v) for k, v in saved.items() if k != "params"})

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            settings = ", ".join(f"{k}={v}" for k, v in group.items() if k != "params")
            lines.append(f"  group {i}: {len(group['params'])} parameters, {settings}")
        return "\n".join(lines + [")"])


def _copied(value):
    if isinstance(value, np.ndarray):
        return value.copy()
    return tuple(value) if isinstance(value, list) else value


def _restored(value, param: Tensor, key: str, name: str):
    """A saved state entry, as the optimizer's own: arrays of the parameter's shape copied,
    in its dtype (a 0-d parameter's moments too); any other 0-d array as a number.
    """
    if not isinstance(value, np.ndarray):
        return value
    if value.shape == param.data.shape:
        return value.astype(param.data.dtype, copy=True)
    if value.ndim == 0:
        return value.item()
    raise ValueError(
        f"{name}.load_state_dict: state {key!r} has shape {value.shape}, its parameter "
        f"{param.data.shape}"
    )


def _check_non_negative(name: str, what: str, value: float) -> None:
    if not value >= 0.0:
        raise ValueError(f"{name}: {what}={value} is invalid; it must be >= 0")


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
        _check_non_negative("SGD", "momentum", group["momentum"])
        _check_non_negative("SGD", "weight_decay", group["weight_decay"])
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
        raise NotImplementedError("Exercise 4.1: SGD with weight decay — see chapters/04_optimizers.ipynb, '4.1 Gradient descent, with weight decay'")
        ### END SOLUTION

    @staticmethod
    def momentum_direction(grad: np.ndarray, state: dict, group: dict) -> np.ndarray:
        """The direction of a momentum step, keeping the buffer b in state["momentum_buffer"].

        b ← g at the first step, then b ← μb + (1 − τ)g (μ momentum, τ dampening); the
        direction is b, or g + μb with Nesterov. The buffer is the optimizer's own array.
        """
        ### BEGIN SOLUTION 4.2
        raise NotImplementedError("Exercise 4.2: Momentum and Nesterov — see chapters/04_optimizers.ipynb, '4.2 Momentum and Nesterov'")
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
        _check_non_negative(name, "eps", group["eps"])
        _check_non_negative(name, "weight_decay", group["weight_decay"])

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
        raise NotImplementedError("Exercise 4.3: Adam with bias correction — see chapters/04_optimizers.ipynb, '4.3 Adam, and why it needs bias correction'")
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
        raise NotImplementedError("Exercise 4.4: AdamW's decoupled decay — see chapters/04_optimizers.ipynb, '4.4 AdamW: decay decoupled from the gradient'")
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
    raise NotImplementedError("Exercise 4.5: clip_grad_norm_ (global norm) — see chapters/04_optimizers.ipynb, '4.5 Clipping the global gradient norm'")
    ### END SOLUTION


# -- learning-rate schedules; exercise 4.6: warm-up then cosine ------------------------------------


class LRScheduler:
    """Sets each group's lr from the step count, as `torch.optim.lr_scheduler`.

    Call `scheduler.step()` after `optimizer.step()`. At construction the count is 0 and
    the lrs are already those of step 0. Subclasses write `lr_at(base_lr, step)`; the base
    lr of a group is its lr when the scheduler was made (kept as group["initial_lr"]).
    """

    def __init__(self, optimizer: Optimizer) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(
                f"{type(self).__name__}: the first argument is the optimizer to schedule, "
                f"got {type(optimizer).__name__}"
            )
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group.setdefault("initial_lr", group["lr"])
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = -1
        self.step()

    def lr_at(self, base_lr: float, step: int) -> float:
        raise NotImplementedError

    def step(self) -> None:
        """Advance the count by one and set every group's lr for it."""
        self.last_epoch += 1
        self._last_lr = [float(self.lr_at(base, self.last_epoch)) for base in self.base_lrs]
        for group, lr in zip(self.optimizer.param_groups, self._last_lr):
            group["lr"] = lr

    def get_last_lr(self) -> list[float]:
        """The lr of each group, as set by the last `step()` (or the constructor)."""
        return list(self._last_lr)

    def state_dict(self) -> dict:
        return {k: _copied(v) for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update({k: _copied(v) for k, v in state_dict.items()})
        for group, lr in zip(self.optimizer.param_groups, self._last_lr):
            group["lr"] = lr


class StepLR(LRScheduler):
    """lr = base_lr · gamma^⌊step / step_size⌋: decay by `gamma` every `step_size` steps."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1) -> None:
        if not (isinstance(step_size, int) and step_size >= 1):
            raise ValueError(f"StepLR: step_size={step_size!r} must be a whole number >= 1")
        if not gamma > 0.0:
            raise ValueError(f"StepLR: gamma={gamma} must be > 0")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer)

    def lr_at(self, base_lr: float, step: int) -> float:
        return base_lr * self.gamma ** (step // self.step_size)


class WarmupCosineLR(LRScheduler):
    """Linear warm-up from 0 to base_lr over `warmup_steps`, then a cosine down to `min_lr`.

    lr(t) = base_lr · t / W for t < W;  then, with p = (t − W) / (T − W),
    lr(t) = min_lr + (base_lr − min_lr) · ½ (1 + cos(π p)) up to t = T;  min_lr after T.
    """

    def __init__(
        self, optimizer: Optimizer, warmup_steps: int, total_steps: int, min_lr: float = 0.0
    ) -> None:
        if not (isinstance(warmup_steps, int) and isinstance(total_steps, int)
                and 0 <= warmup_steps < total_steps):
            raise ValueError(
                f"WarmupCosineLR: warmup_steps={warmup_steps!r} and total_steps={total_steps!r} "
                "must be whole numbers with 0 <= warmup_steps < total_steps"
            )
        if not min_lr >= 0.0:
            raise ValueError(f"WarmupCosineLR: min_lr={min_lr} must be >= 0")
        self.warmup_steps, self.total_steps, self.min_lr = warmup_steps, total_steps, min_lr
        super().__init__(optimizer)

    def lr_at(self, base_lr: float, step: int) -> float:
        """The lr at `step` (0, 1, 2, ...) for a group whose lr was `base_lr`."""
        ### BEGIN SOLUTION 4.6
        raise NotImplementedError("Exercise 4.6: Warm-up + cosine schedule — see chapters/04_optimizers.ipynb, '4.6 Warm-up, then cosine decay'")
        ### END SOLUTION


# -- torch.optim.lr_scheduler ------------------------------------------------------------------------
# PyTorch's other schedules live in framework/lr_scheduler.py (provided). This module is one
# file, not a package, so `import framework.optim.lr_scheduler` finds that module under this
# name in sys.modules (as `os.path` is found); imported last, since it builds on the classes above.

from . import lr_scheduler  # noqa: E402

sys.modules[f"{__name__}.lr_scheduler"] = lr_scheduler
