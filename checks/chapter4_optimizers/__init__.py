"""Chapter 4 grader: optimizers, gradient clipping and the warm-up + cosine schedule.

Every optimizer is driven over several steps with gradients drawn by hypothesis (set
on `.grad` directly, some left None), and its parameters and state are compared, step
by step, with the update formulas of PyTorch written out here again, in float64. Then
properties that single out the classic mistakes: convergence on a convex quadratic (SGD,
momentum; Adam and AdamW, which hover near the minimum at a constant lr, follow their rule
step by step for 300 steps down one), Adam's first steps under a constant gradient (bias
correction), AdamW under a zero gradient (decoupled decay), clipping on drawn gradient sets,
and the schedule at its landmarks. One check runs the whole chain: a tiny SGD step lowers a small network's
loss by lr·|g|², to first order. The checks use tensors only, not `nn`.
"""

# The parts register their checks as they are imported: in the order of the exercises.
# isort: off
from checks.chapter4_optimizers import (  # noqa: F401
    sgd,
    adam,
    clipping_and_schedule,
    bonus,
)
# isort: on

# what the selftests run and read, as names of the chapter's grader
from checks.chapter4_optimizers.adam import (  # noqa: F401
    test_adam_follows_its_update_rule_for_300_steps_down_a_convex_quadratic,
    test_adamw_follows_its_update_rule_for_300_steps_down_a_convex_quadratic,
)
