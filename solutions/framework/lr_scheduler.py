"""Chapter 4's schedules: `framework.optim.lr_scheduler`, as `torch.optim.lr_scheduler`.

The scheduler base (`LRScheduler`: the step count `last_epoch`, each group's `initial_lr`,
`get_last_lr()`) and `StepLR` are provided, the warm-up + cosine schedule is exercise 4.6;
PyTorch's other everyday schedules follow (provided), each one closed-form rule
`lr_at(base_lr, step)`. Call `scheduler.step()` after `optimizer.step()`, as in PyTorch.
PyTorch computes most of these step by step from the previous lr; the closed forms give the
same numbers up to rounding.

`optim.py` makes this module reachable as `framework.optim.lr_scheduler` (optim is one
file, so the name is registered there, as `os.path` is) and exports the three classes
above as `optim.LRScheduler`, `optim.StepLR` and `optim.WarmupCosineLR`.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence

from .provided.optimizer import Optimizer, _copied


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


# -- exercise 4.6: warm-up then cosine ---------------------------------------------------------------


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
        if step < self.warmup_steps:
            return base_lr * step / self.warmup_steps
        if step >= self.total_steps:
            return self.min_lr
        progress = (step - self.warmup_steps) / (self.total_steps - self.warmup_steps)
        return self.min_lr + (base_lr - self.min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))
        ### END SOLUTION


# -- PyTorch's other schedules (provided) -------------------------------------------------------------


def _per_group(name: str, value, optimizer: Optimizer, what: str) -> list:
    """One value per parameter group: a list as given, or one value for every group."""
    values = list(value) if isinstance(value, (list, tuple)) else [value] * len(optimizer.param_groups)
    if len(values) != len(optimizer.param_groups):
        raise ValueError(f"{name}: {len(values)} {what} for {len(optimizer.param_groups)} parameter "
                         "groups; give one per group, or a single one for all")
    return values


class MultiStepLR(LRScheduler):
    """lr = base_lr · gamma^(number of milestones <= step): decay by gamma at each milestone."""

    def __init__(self, optimizer: Optimizer, milestones: Sequence[int], gamma: float = 0.1) -> None:
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(optimizer)

    def lr_at(self, base_lr: float, step: int) -> float:
        return base_lr * self.gamma ** bisect.bisect_right(self.milestones, step)


class ExponentialLR(LRScheduler):
    """lr = base_lr · gamma^step."""

    def __init__(self, optimizer: Optimizer, gamma: float) -> None:
        self.gamma = gamma
        super().__init__(optimizer)

    def lr_at(self, base_lr: float, step: int) -> float:
        return base_lr * self.gamma**step


class CosineAnnealingLR(LRScheduler):
    """lr = eta_min + (base_lr − eta_min) · ½ (1 + cos(π · step / T_max)): from base_lr down to
    eta_min in T_max steps (and back up after, as PyTorch's, if you keep stepping).
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0) -> None:
        if not T_max > 0:
            raise ValueError(f"CosineAnnealingLR: T_max={T_max!r} must be > 0")
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer)

    def lr_at(self, base_lr: float, step: int) -> float:
        return self.eta_min + (base_lr - self.eta_min) * 0.5 * (1 + math.cos(math.pi * step / self.T_max))


class LambdaLR(LRScheduler):
    """lr = base_lr · lr_lambda(step), with one function for every group or one per group."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | Sequence) -> None:
        self.lr_lambdas = _per_group("LambdaLR", lr_lambda, optimizer, "lr_lambda functions")
        super().__init__(optimizer)

    def step(self) -> None:
        """As the base's, with each group's own function (lr_at has no group to choose by)."""
        self.last_epoch += 1
        self._last_lr = [float(base * factor(self.last_epoch))
                         for base, factor in zip(self.base_lrs, self.lr_lambdas)]
        for group, lr in zip(self.optimizer.param_groups, self._last_lr):
            group["lr"] = lr

    def state_dict(self) -> dict:
        """As PyTorch's: everything but the optimizer and the functions (which cannot be saved)."""
        return {k: v for k, v in super().state_dict().items() if k != "lr_lambdas"}


class ConstantLR(LRScheduler):
    """lr = base_lr · factor for the first total_iters steps, then base_lr."""

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5) -> None:
        if not 0 <= factor <= 1:
            raise ValueError(f"ConstantLR: factor={factor} must be in [0, 1]")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer)

    def lr_at(self, base_lr: float, step: int) -> float:
        return base_lr * (self.factor if step < self.total_iters else 1.0)


class LinearLR(LRScheduler):
    """lr = base_lr · f, f going linearly from start_factor to end_factor over total_iters steps,
    then staying there: a linear warm-up with start_factor < 1.
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5) -> None:
        if not (0 < start_factor <= 1 and 0 <= end_factor <= 1):
            raise ValueError(f"LinearLR: start_factor={start_factor} must be in (0, 1] and "
                             f"end_factor={end_factor} in [0, 1] (as PyTorch); for a warm-up from 0 "
                             "use LambdaLR(optimizer, lambda step: step / warmup_steps)")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer)

    def lr_at(self, base_lr: float, step: int) -> float:
        done = min(step, self.total_iters) / self.total_iters if self.total_iters else 1.0
        return base_lr * (self.start_factor + (self.end_factor - self.start_factor) * done)


class SequentialLR(LRScheduler):
    """One schedule after another: schedulers[i] runs from milestones[i-1] on, counting its own
    steps from 0 there (warm-up, then cosine: `SequentialLR(opt, [LinearLR(...),
    CosineAnnealingLR(...)], milestones=[warmup_steps])`). The schedulers must be built on the
    same optimizer, before this one.
    """

    def __init__(self, optimizer: Optimizer, schedulers: Sequence[LRScheduler],
                 milestones: Sequence[int]) -> None:
        schedulers = list(schedulers)
        if len(milestones) != len(schedulers) - 1 or list(milestones) != sorted(milestones):
            raise ValueError(f"SequentialLR: {len(schedulers)} schedulers need {len(schedulers) - 1} "
                             f"increasing milestones (the steps where the next one starts), got "
                             f"{list(milestones)}")
        for scheduler in schedulers:
            if scheduler.optimizer is not optimizer:
                raise ValueError(f"SequentialLR: the {type(scheduler).__name__} schedules another "
                                 "optimizer; build every scheduler on the one given to SequentialLR")
        self._schedulers, self._milestones = schedulers, list(milestones)
        super().__init__(optimizer)

    def step(self) -> None:
        """Advance the count; the scheduler of this stretch sets the lrs for its own count."""
        self.last_epoch += 1
        index = bisect.bisect_right(self._milestones, self.last_epoch)
        start = self._milestones[index - 1] if index else 0
        scheduler = self._schedulers[index]
        scheduler.last_epoch = self.last_epoch - start - 1
        scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict:
        state = {k: v for k, v in super().state_dict().items() if k != "_schedulers"}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        for scheduler, saved in zip(self._schedulers, state.pop("_schedulers")):
            scheduler.load_state_dict(saved)
        super().load_state_dict(state)


def _cosine(start: float, end: float, fraction: float) -> float:
    return end + (start - end) / 2.0 * (math.cos(math.pi * fraction) + 1)


def _linear(start: float, end: float, fraction: float) -> float:
    return (end - start) * fraction + start


class OneCycleLR(LRScheduler):
    """The one-cycle policy (Smith): lr from max_lr/div_factor up to max_lr over the first
    pct_start of total_steps, then down to that start / final_div_factor, each stretch a half
    cosine (or a line); the momentum (SGD's, or Adam's β₁) cycles the other way, from
    max_momentum down to base_momentum and back. The group's own lr is not used: max_lr is.
    three_phase: up, back down to the start, then the rest of the way to the minimum.
    """

    def __init__(self, optimizer: Optimizer, max_lr: float | Sequence[float], total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True, base_momentum: float = 0.85,
                 max_momentum: float = 0.95, div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False) -> None:
        if total_steps is None and epochs is not None and steps_per_epoch is not None:
            total_steps = epochs * steps_per_epoch
        if not (isinstance(total_steps, int) and total_steps > 0):
            raise ValueError(f"OneCycleLR: total_steps={total_steps!r}; give a whole number > 0, or "
                             "epochs and steps_per_epoch")
        if not 0 <= pct_start <= 1 or anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: pct_start={pct_start} must be in [0, 1] and "
                             f"anneal_strategy={anneal_strategy!r} 'cos' or 'linear'")
        self.total_steps, self.cycle_momentum = total_steps, cycle_momentum
        self.anneal = _cosine if anneal_strategy == "cos" else _linear
        up = pct_start * total_steps - 1
        # (last step of the stretch, lr from → to, momentum from → to), keys of each group
        self.phases = ([(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                        (2 * up, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                        (total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
                       if three_phase else
                       [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                        (total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")])
        groups = optimizer.param_groups
        for group, top in zip(groups, _per_group("OneCycleLR", max_lr, optimizer, "max_lr values")):
            group["initial_lr"], group["max_lr"] = top / div_factor, top
            group["min_lr"] = group["initial_lr"] / final_div_factor
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("OneCycleLR: cycle_momentum=True needs an optimizer with momentum "
                                 "or betas; pass cycle_momentum=False")
            self.use_beta1 = "betas" in optimizer.defaults
            lows = _per_group("OneCycleLR", base_momentum, optimizer, "base_momentum values")
            highs = _per_group("OneCycleLR", max_momentum, optimizer, "max_momentum values")
            for group, low, high in zip(groups, lows, highs):
                group["base_momentum"], group["max_momentum"] = low, high
        super().__init__(optimizer)

    def step(self) -> None:
        """Advance the count; set each group's lr (and momentum) for its place in the cycle."""
        self.last_epoch += 1
        t = self.last_epoch
        if t > self.total_steps:
            raise ValueError(f"OneCycleLR: step {t} of a cycle of total_steps={self.total_steps}; "
                             "the cycle is over (build it with the number of steps you take)")
        start = 0.0
        for i, (end, *keys) in enumerate(self.phases):
            if t <= end or i == len(self.phases) - 1:
                fraction = (t - start) / (end - start)
                lr_from, lr_to, momentum_from, momentum_to = keys
                break
            start = end
        for group in self.optimizer.param_groups:
            group["lr"] = self.anneal(group[lr_from], group[lr_to], fraction)
            if self.cycle_momentum:
                momentum = self.anneal(group[momentum_from], group[momentum_to], fraction)
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]


__all__ = [
    "ConstantLR", "CosineAnnealingLR", "ExponentialLR", "LRScheduler", "LambdaLR", "LinearLR",
    "MultiStepLR", "OneCycleLR", "SequentialLR", "StepLR", "WarmupCosineLR",
]
