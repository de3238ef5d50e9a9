"""Chapter 5's bonus exercise 5.9 (optional): one step of beam search.

Greedy decoding (5.7) keeps the single best token at each step; beam search keeps the
`beam_size` best partial outputs, scored by their total log-probability. Nothing provided
calls it: a learner who skips the bonus track loses nothing.
"""

from __future__ import annotations

import numpy as np


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
