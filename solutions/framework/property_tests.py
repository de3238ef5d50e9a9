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
    @given(warmup=st.integers(0, 10), length=st.integers(1, 20), base=st.floats(0.01, 1.0),
           share=st.floats(0.0, 0.9))
    def schedule_properties(warmup, length, base, share):
        total, min_lr = warmup + length, share * base
        lrs = [lr_at(base, t, warmup, total, min_lr) for t in range(total + 3)]
        for t in range(warmup + 1):  # a straight line from 0 to base
            assert math.isclose(lrs[t], base * t / warmup if warmup else base, abs_tol=1e-12)
        for k in range(length + 1):  # the cosine is symmetric about its midpoint
            assert math.isclose(lrs[warmup + k] + lrs[total - k], base + min_lr, abs_tol=1e-9)
        assert all(later <= earlier + 1e-12 for earlier, later in zip(lrs[warmup:], lrs[warmup + 1:]))
        assert all(math.isclose(lr, min_lr, abs_tol=1e-12) for lr in lrs[total:])

    schedule_properties()
    ### END SOLUTION
