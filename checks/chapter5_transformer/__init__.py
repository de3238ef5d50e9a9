"""Chapter 5 grader: positions, LayerNorm, attention, the Transformer and its training step.

The functions (5.1–5.3) are compared with NumPy formulas written here and
gradient-checked in float64 through the graders' own walk with a random cotangent,
element by element (the full Jacobian), so each is graded on its own.
MultiheadAttention (5.4) is compared with a NumPy multi-head attention that uses the
module's own weights. The layers and the model (5.5–5.7) build on the learner's
LayerNorm and attention, as a network does, but their values are compared with the
composition of their own parts, called here: a wrong part fails its own exercise,
not the wiring's. Their gradients are checked along a random direction. Properties:
causality, padding invariance (keys, not queries), rows of attention summing to 1,
fully masked rows giving zeros, eval mode deterministic. 5.8 trains a small
Transformer on digit reversal to 99% exact match with greedy decoding.
"""

# The parts register their checks as they are imported: in the order of the exercises.
# isort: off
from checks.chapter5_transformer import (  # noqa: F401
    positions_and_norm,
    attention,
    multihead,
    layers,
    model,
    bonus,
)
# isort: on

# strategies the selftests draw from, as names of the chapter's grader
from checks.chapter5_transformer.layers import layer_cases  # noqa: F401
from checks.chapter5_transformer.model import model_cases  # noqa: F401
from checks.chapter5_transformer.multihead import multihead_cases  # noqa: F401
