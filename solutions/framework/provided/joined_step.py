"""The optimizers' joined step: one `update` call for a whole parameter group (provided).

Every update rule of chapter 4 treats each element on its own, so running it once on a
group's parameters, gradients and state arrays joined end to end gives the same numbers
as running it once per parameter, in a dozen NumPy calls instead of a dozen per
parameter (PyTorch's `foreach=True` implementation does the same). `Optimizer.step` uses
it for a group built with `foreach=True` (allowed only where the class sets
`elementwise = True`). The learner's `update` then sees flat vectors, not each
parameter's shape: a rule that looks at shapes must leave foreach off. Nothing here is
an exercise: it is bookkeeping, kept out of `optim.py` so that file reads as the lesson.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate

import numpy as np

from ..tensor import Tensor


class JoinedSteps:
    """An optimizer's joins, one per parameter group, kept from step to step while they hold."""

    def __init__(self) -> None:
        self.by_group: dict[int, JoinedGroup] = {}

    def step(self, index: int, params: list[Tensor], state: dict, update: Callable[..., None],
             group: dict) -> bool:
        """One `update` of group `index`'s `params` joined end to end (their states taken from,
        and kept in, `state`); False, doing nothing, if there is nothing to gain or they cannot
        join: one parameter, other dtypes, or states that differ in a number (a parameter that
        had no gradient for a step is a step count behind the others).
        """
        if len(params) < 2:
            return False
        dtype = params[0].data.dtype
        if any(p.data.dtype != dtype or p.grad.dtype != dtype for p in params):
            return False
        states = [state.setdefault(p, {}) for p in params]
        joined = self.by_group.get(index)
        if joined is None or not joined.holds(params, states):
            joined = JoinedGroup.join(params, states)
            if joined is None:
                return False
            self.by_group[index] = joined
        joined.step(update, group)
        return True


class JoinedGroup:
    """A group's parameters, gradients and state joined end to end, for one `update` call.

    Each parameter's state holds views into the joined state arrays (and the shared
    numbers), so `Optimizer.state` stays per parameter, for `state_dict` and anyone who
    reads or writes it. The join is kept from step to step while it still holds: the
    same parameters, and states that still hold exactly what the join handed them.
    """

    def __init__(self, params: list[Tensor], states: list[dict], joined: dict) -> None:
        self.params, self.states, self.state = params, states, joined
        sizes = [p.data.size for p in params]
        self.flat = np.empty(sum(sizes), params[0].data.dtype)
        self.grad = np.empty_like(self.flat)
        stops = list(accumulate(sizes))
        self.spans = list(zip([0, *stops[:-1]], stops))
        self.param_views = [self.flat[a:b].reshape(p.data.shape)
                            for p, (a, b) in zip(params, self.spans)]
        self.handed: list[dict] = [{} for _ in params]  # what each state was given, by key
        self.viewed: dict = {}  # the joined arrays the states hold views of, by key
        self.hand_out()

    @classmethod
    def join(cls, params: list[Tensor], states: list[dict]) -> JoinedGroup | None:
        """The states joined: arrays end to end, equal numbers shared; None if they differ."""
        keys = states[0].keys()
        if any(state.keys() != keys for state in states):
            return None
        joined = {}
        for key in keys:
            values = [state[key] for state in states]
            arrays = [isinstance(v, np.ndarray) for v in values]
            if all(arrays) and all(v.shape == p.data.shape for v, p in zip(values, params)):
                joined[key] = np.concatenate([v.ravel() for v in values])
            elif not any(arrays) and all(v == values[0] for v in values):
                joined[key] = values[0]
            else:
                return None
        return cls(params, states, joined)

    def holds(self, params: list[Tensor], states: list[dict]) -> bool:
        """Still the same parameters, shapes and dtypes (`Module.to` changes a parameter's array
        in place), each state holding just what it was handed. (Plain loops, not `all` over
        generators: this runs at every step, and a generator costs a call per element.)"""
        if len(params) != len(self.params):
            return False
        for p, q, view in zip(params, self.params, self.param_views):
            if p is not q or p.data.shape != view.shape or p.data.dtype != view.dtype:
                return False
        for state, own, handed in zip(states, self.states, self.handed):
            if state is not own or state.keys() != handed.keys():
                return False
            for key, value in handed.items():
                if state[key] is not value:
                    return False
        return True

    def step(self, update: Callable[..., None], group: dict) -> None:
        """Gather, one `update` on the flat vectors, scatter the parameters back."""
        np.concatenate([p.data.ravel() for p in self.params], out=self.flat)
        np.concatenate([p.grad.ravel() for p in self.params], out=self.grad)
        update(self.flat, self.grad, self.state, group)
        for p, view in zip(self.params, self.param_views):
            p.data[...] = view
        self.hand_out()

    def hand_out(self) -> None:
        """Give each parameter's state its slice of every joined array, and the numbers."""
        for key, value in self.state.items():
            if key in self.viewed and value is self.viewed[key]:  # updated in place: seen already
                continue
            whole = isinstance(value, np.ndarray) and value.shape == self.flat.shape
            if whole:
                self.viewed[key] = value
            for p, (a, b), state, handed in zip(self.params, self.spans, self.states, self.handed):
                state[key] = handed[key] = value[a:b].reshape(p.data.shape) if whole else value
