"""Chapter 5's bonus track (optional): one step of beam search, and RMSNorm.

5.9: greedy decoding (5.7) keeps the single best token at each step; beam search keeps the
`beam_size` best partial outputs, scored by their total log-probability.
5.10: RMSNorm, LayerNorm without the mean: y = x / √(mean(x²) + ε) · w over the last axis
(Zhang & Sennrich 2019; LLaMA's norm), as `torch.nn.RMSNorm` over one axis.
Nothing provided calls them: a learner who skips the bonus track loses nothing.
"""

from __future__ import annotations

import numpy as np

from ..function import Function
from ..nn.modules import Module, Parameter
from ..tensor import Tensor

# -- bonus exercise 5.9 ------------------------------------------------------------------------


def beam_step(scores: np.ndarray, log_probs: np.ndarray,
              beam_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Extend B beams by one token each and keep the `beam_size` best of the B·V candidates.

    scores (B,): each beam's total log-probability so far; log_probs (B, V): of each next token
    given each beam. Candidate (b, v) scores scores[b] + log_probs[b, v]. Returns, best first
    (ties: the lower b, then the lower v), min(beam_size, B·V) candidates as three arrays:
    their scores (float), the beam each extends and the token it appends (integers).
    """
    if log_probs.ndim != 2 or scores.shape != log_probs.shape[:1]:
        raise ValueError(f"beam_step: scores {scores.shape} and log_probs {log_probs.shape} must "
                         "be (B,) and (B, V)")
    ### BEGIN SOLUTION 5.9
    raise NotImplementedError("Exercise 5.9: One step of beam search (bonus) — see chapters/05_transformer.ipynb, '5.9 Bonus: one step of beam search'")
    ### END SOLUTION


# -- bonus exercise 5.10 -----------------------------------------------------------------------


class RMSNormFunction(Function):
    """r = 1/√(mean(x²) + ε) per row, x̂ = x·r, y = x̂·w. With ĝ = g·w:
    ∂x = r · (ĝ − x̂ · mean(ĝ·x̂)) per row, ∂w = Σ_rows g·x̂."""

    @staticmethod
    def forward(ctx, x, weight, eps):
        ### BEGIN SOLUTION 5.10
        raise NotImplementedError("Exercise 5.10: RMSNorm (bonus) — see chapters/05_transformer.ipynb, '5.10 Bonus: RMSNorm'")
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad):
        ### BEGIN SOLUTION 5.10
        raise NotImplementedError("Exercise 5.10: RMSNorm (bonus) — see chapters/05_transformer.ipynb, '5.10 Bonus: RMSNorm'")
        ### END SOLUTION


def rms_norm(x: Tensor, weight: Tensor, eps: float = 1e-6) -> Tensor:
    """RMSNorm over the last axis of x, scaled by `weight` (its size)."""
    if weight.shape != x.shape[-1:]:
        raise ValueError(f"rms_norm: weight {tuple(weight.shape)} must be the last axis of x "
                         f"{tuple(x.shape)}")
    return RMSNormFunction.apply(x, weight, eps=float(eps))


class RMSNorm(Module):
    """Normalise each row over its last axis by its root mean square, then scale it."""

    def __init__(self, size: int, eps: float = 1e-6, dtype=np.float32) -> None:
        super().__init__()
        self.eps = eps
        self.weight = Parameter(np.ones(size, dtype=dtype))

    def forward(self, x: Tensor) -> Tensor:
        return rms_norm(x, self.weight, self.eps)
