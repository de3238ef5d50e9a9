"""Chapter 4's bonus exercise 4.9 (optional): a property test of your own, graded by mutation.

`check_warmup_cosine(lr_at)` is a test of a schedule, not a schedule: it receives a function
`lr_at(base_lr, step, warmup_steps, total_steps, min_lr) -> float` and must raise
AssertionError when that function is not 4.6's warm-up + cosine schedule, and return quietly
when it is. The grader runs your test on correct schedules (it must pass every one) and on
chapter 4's bug zoo for 4.6, the mistakes `checks/mutants/chapter4.py` lists (it must catch at
least 80% of them): what the course's own graders have to do. Nothing provided calls it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

Schedule = Callable[[float, int, int, int, float], float]


def check_warmup_cosine(lr_at: Schedule) -> None:
    """Raise AssertionError unless lr_at(base_lr, step, warmup_steps, total_steps, min_lr) is
    base_lr · t / W during warm-up (t < W), then min_lr + (base_lr − min_lr) · ½(1 + cos(π p))
    with p = (t − W) / (T − W) up to T, and min_lr from T on; for 0 ≤ W < T, 0 ≤ min_lr ≤ base_lr.
    """
    ### BEGIN SOLUTION 4.9
    raise NotImplementedError("Exercise 4.9: A property test, graded by mutation (bonus) — see chapters/04_optimizers.ipynb, '4.9 Bonus: a property test of your own'")
    ### END SOLUTION
