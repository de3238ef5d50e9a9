"""Provided: chapter 4's optimizer base, as `torch.optim.Optimizer` (torch/optim/optimizer.py).

The parameters in groups (each group a dict of the parameters and their hyperparameters),
one state dict per parameter, `zero_grad`, `step` (which calls each rule's `update`) and
the state dicts. The rules themselves (SGD, Adam, AdamW) are chapter 4's exercises, in
`optim.py`; the schedules, in `lr_scheduler.py`, change the groups' `lr`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..tensor import Tensor
from .joined_step import JoinedSteps

ParamsArgument = Iterable[Tensor] | Iterable[dict]


def check_non_negative(name: str, what: str, value: float) -> None:
    """A hyperparameter that must be >= 0 (eps, weight_decay, momentum): a clear error if not."""
    if not value >= 0.0:
        raise ValueError(f"{name}: {what}={value} is invalid; it must be >= 0")


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
        self._joined = JoinedSteps()  # the foreach=True step (joined_step.py)
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
                p._counter.value += 1  # the update below is in place: PyTorch bumps it too
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
