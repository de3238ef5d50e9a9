"""Chapter 7 grader: characters as ids, training windows, the bigram baseline, attention as an
average of the past, the decoder block, the GPT and its loss, sampling, the key-value cache,
and the training loop.

Every model here is built in float64 with every weight redrawn at a visible scale, and
compared with the definitions written here in NumPy: LayerNorm, the tanh GELU, attention
written position by position (query i reads keys 0..i), the GPT as their composition.
Sampling's distributions are compared exactly with the rules (temperature before the
softmax, then top-k, then top-p with the id that crosses p kept), and its draws by seed and
by frequency. The cache is proved, not trusted: hypothesis draws model sizes, prompt lengths
and chunks of new ids up to the full context, and the logits of every cached step must
equal the uncached forward's at the same positions to 1e-10; one id past the context must be
refused with the cache unchanged.
"""

# The parts register their checks as they are imported: in the order of the exercises.
# isort: off
from checks.chapter7_gpt import (  # noqa: F401
    data,
    baseline,
    model,
    generation,
    training,
    bonus,
)
# isort: on
