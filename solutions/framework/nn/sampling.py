"""Chapter 7, exercise 7.7: turning a model's logits into the next id.

`next_token_probabilities` applies temperature, top-k and top-p to rows of logits, in that
order; `sample_next` draws one id per row from a seeded generator. `GPT.generate` (gpt.py)
calls them at every step; the argument checks and their messages are provided.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..function import unwrap
from ..provided.generator import default_generator

__all__ = ["next_token_probabilities", "sample_next"]


# -- exercise 7.7: sampling --------------------------------------------------------------------------


def _check_settings(op: str, temperature, top_k, top_p) -> None:
    """temperature 0 (greedy) or a finite number > 0; top_k None or an int >= 1; top_p None or a
    number in (0, 1]. Raises naming `op`, the value and what to pass instead."""
    if isinstance(temperature, (bool, np.bool_)) or not isinstance(temperature, numbers.Real):
        raise TypeError(f"{op}: temperature={temperature!r} must be a number: 0 for greedy "
                        "decoding, or a finite number > 0")
    if not (temperature == 0 or 0 < temperature < math.inf):
        raise ValueError(f"{op}: temperature={temperature!r} must be 0 (greedy: the most likely "
                         "id) or a finite number > 0 (1: the model's own distribution; below 1 "
                         "sharper, above 1 flatter)")
    if top_k is not None:
        if isinstance(top_k, (bool, np.bool_)) or not isinstance(top_k, (int, np.integer)):
            raise TypeError(f"{op}: top_k={top_k!r} must be None or an int >= 1, how many of the "
                            "most likely ids to keep")
        if top_k < 1:
            raise ValueError(f"{op}: top_k={top_k} must be >= 1, how many of the most likely ids "
                             "to keep; pass None to keep them all")
    if top_p is not None:
        if isinstance(top_p, (bool, np.bool_)) or not isinstance(top_p, numbers.Real):
            raise TypeError(f"{op}: top_p={top_p!r} must be None or a number in (0, 1], the "
                            "probability mass to keep")
        if not 0 < top_p <= 1:
            raise ValueError(f"{op}: top_p={top_p!r} must be in (0, 1], the probability mass to "
                             "keep; pass None (or 1) to keep every id")


def _check_logits(op: str, logits: np.ndarray, temperature) -> None:
    """float64 logits (..., V), V >= 1: no NaN and no +inf (-inf marks an impossible id), a logit
    above -inf in every row, and every finite logit / temperature finite."""
    if logits.ndim == 0 or logits.shape[-1] == 0:
        raise ValueError(f"{op}: logits of shape {logits.shape}; expected rows (..., V) of V >= 1 "
                         "scores, one per id")
    bad = np.isnan(logits) | (logits == math.inf)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{op}: logits{list(where)} is {logits[where]}; NaN and +inf logits give "
                         "no distribution (only -inf is allowed: an impossible id): look at what "
                         "produced them, a model whose weights diverged, say")
    dead = np.all(logits == -math.inf, axis=-1)
    if dead.any():
        row = tuple(int(i) for i in np.argwhere(dead)[0])
        raise ValueError(f"{op}: every logit of row {list(row)} of logits {logits.shape} is -inf, "
                         "so no id is possible; leave at least one id of each row a finite logit")
    if temperature > 0:
        largest = np.max(np.abs(logits), initial=0.0, where=np.isfinite(logits))
        with np.errstate(over="ignore"):
            overflows = not np.isfinite(largest / np.float64(temperature))
        if overflows:
            least = largest / np.finfo(np.float64).max
            raise ValueError(f"{op}: temperature={temperature!r} is so small that the logit "
                             f"{largest:.6g} / temperature overflows float64; use temperature=0 "
                             f"for greedy decoding, or a temperature above {least:.3g}")


def next_token_probabilities(logits, temperature: float = 1.0, top_k: int | None = None,
                             top_p: float | None = None) -> np.ndarray:
    """The distribution the next id is drawn from, rows of logits (..., V) → (..., V), float64.

    In this order: softmax(logits / temperature) (temperature 0: all the mass on the first
    largest logit, greedy); top_k keeps the k most likely ids (all of them when k >= V); top_p
    then keeps the fewest most likely ids whose probabilities add up to at least top_p (the one
    that crosses it included); what is kept is scaled to add up to 1.

    The provided start refuses (ValueError, TypeError for a wrong type) a NaN or +inf logit
    (-inf is an impossible id), a row whose logits are all -inf, a temperature that is not 0 or
    a finite number > 0 or so small that a logit / temperature overflows, a top_k that is not an
    int >= 1, a top_p outside (0, 1].
    """
    logits = np.asarray(unwrap(logits), dtype=np.float64)
    _check_settings("next_token_probabilities", temperature, top_k, top_p)
    _check_logits("next_token_probabilities", logits, temperature)
    ### BEGIN SOLUTION 7.7
    if temperature == 0:
        greedy = np.zeros_like(logits)
        np.put_along_axis(greedy, logits.argmax(axis=-1)[..., None], 1.0, axis=-1)
        return greedy
    scaled = logits / temperature
    if top_k is not None and top_k < logits.shape[-1]:
        kth = np.sort(scaled, axis=-1)[..., -top_k, None]  # the k-th largest
        scaled = np.where(scaled < kth, -np.inf, scaled)
    probs = np.exp(scaled - scaled.max(axis=-1, keepdims=True))
    probs /= probs.sum(axis=-1, keepdims=True)
    if top_p is not None:
        order = np.argsort(-probs, axis=-1, kind="stable")
        sorted_probs = np.take_along_axis(probs, order, axis=-1)
        before = np.cumsum(sorted_probs, axis=-1) - sorted_probs  # the mass ahead of each id
        keep = np.zeros(probs.shape, dtype=bool)
        np.put_along_axis(keep, order, before < top_p, axis=-1)
        probs = np.where(keep, probs, 0.0)
        probs /= probs.sum(axis=-1, keepdims=True)
    return probs
    ### END SOLUTION


def sample_next(logits, temperature: float = 1.0, top_k: int | None = None,
                top_p: float | None = None,
                generator: np.random.Generator | None = None) -> np.ndarray:
    """One id per row of logits (N, V), int64 (N,), drawn from next_token_probabilities with
    `generator` (the shared one by default): the same seed draws the same ids. The provided
    start refuses logits of another shape ((N, T, V): take logits[:, -1]) and what
    next_token_probabilities refuses, naming sample_next."""
    given = np.asarray(unwrap(logits), dtype=np.float64)
    if given.ndim != 2:
        hint = {1: "add a batch axis, logits[None], for one row",
                3: "take the last position's, logits[:, -1], as generate does"}.get(
                    given.ndim, "give one row of V scores per sequence")
        raise ValueError(f"sample_next: logits of shape {given.shape}; expected (N, V), one row "
                         f"per sequence: {hint}")
    _check_settings("sample_next", temperature, top_k, top_p)
    _check_logits("sample_next", given, temperature)
    probs = next_token_probabilities(logits, temperature, top_k, top_p)
    ### BEGIN SOLUTION 7.7
    rng = default_generator() if generator is None else generator
    cumulative = np.cumsum(probs, axis=-1)
    u = rng.random((probs.shape[0], 1)) * cumulative[:, -1:]
    # the first id whose cumulative mass passes u; an id of probability 0 is never it
    return (cumulative <= u).sum(axis=-1).astype(np.int64)
    ### END SOLUTION
