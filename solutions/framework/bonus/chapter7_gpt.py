"""Chapter 7's bonus track (optional): perplexity, and a repetition penalty for sampling.

Perplexity is what language-model papers report: e^(mean cross-entropy in nats), the number
of equally likely characters the model hesitates between. The repetition penalty (Keskar et
al. 2019, CTRL) makes ids already generated less likely. Nothing provided calls them: a
learner who skips the bonus track loses nothing.
"""

from __future__ import annotations

import numpy as np

# -- bonus exercise 7.10 ------------------------------------------------------------------------


def perplexity(logits: np.ndarray, targets: np.ndarray, ignore_index: int = -100) -> float:
    """exp of the mean of −log softmax(logits)[target] over the positions not ignored.

    logits (..., V) and integer targets (...) of the same leading shape; finite for logits of
    any size (the softmax shifted by the row's max). 1.0 for a model sure and right everywhere;
    V for one that spreads its bets evenly.
    """
    logits, targets = np.asarray(logits, dtype=np.float64), np.asarray(targets)
    if logits.shape[:-1] != targets.shape:
        raise ValueError(f"perplexity: logits {logits.shape} must be targets {targets.shape} + (V,)")
    ### BEGIN SOLUTION 7.10
    rows, ids = logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)
    keep = ids != ignore_index
    rows, ids = rows[keep], ids[keep]
    shifted = rows - rows.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return float(np.exp(-log_probs[np.arange(len(ids)), ids].mean()))
    ### END SOLUTION


# -- bonus exercise 7.11 ------------------------------------------------------------------------


def repetition_penalty(logits: np.ndarray, previous: np.ndarray, penalty: float) -> np.ndarray:
    """New logits (N, V): for each id that occurs in row n of `previous` (N, T), row n's logit of
    that id is divided by `penalty` where it is positive and multiplied by it where it is not
    (so penalty > 1 always makes it less likely); once however often the id occurs. The
    logits given are left unchanged.
    """
    if not penalty > 0:
        raise ValueError(f"repetition_penalty: penalty={penalty!r} must be positive")
    ### BEGIN SOLUTION 7.11
    out = np.array(logits, copy=True)
    seen = np.zeros(out.shape, dtype=bool)
    np.put_along_axis(seen, np.asarray(previous), True, axis=1)
    penalised = np.where(out > 0, out / penalty, out * penalty)
    return np.where(seen, penalised, out).astype(out.dtype)
    ### END SOLUTION
