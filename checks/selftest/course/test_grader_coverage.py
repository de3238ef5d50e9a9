"""What the graders' strategies draw: the inputs that catch a known class of bugs do come up."""

import ast
import os
import subprocess
import sys

from hypothesis import HealthCheck, given, settings

os.environ.setdefault("IMPL", "solutions")  # the grader module imports the code under test
from checks import chapter2_tensor  # noqa: E402
from checks.loader import ROOT  # noqa: E402

# A share is measured on 400 draws: in 60, the constants hypothesis takes from whichever
# local modules are loaded (its "local constants") move the counts by more than the margin.
MANY = settings(max_examples=400, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))


def drawn_axes() -> list:
    """The axes of 400 draws, made in a fresh Python: the local constants are those of the
    modules loaded when hypothesis draws, so inside the selftest run the shares depended on the
    tests collected before (negative int axes: 48 of 400 there, 74 in a fresh process)."""
    run = subprocess.run([sys.executable, __file__], capture_output=True, text=True, check=True,
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return ast.literal_eval(run.stdout)


def draw_axes() -> list:
    axes = []

    @MANY
    @given(case=chapter2_tensor.reductions())
    def collect(case):
        axes.append(case[1])

    collect()
    return axes


def test_reductions_draw_negative_ints_and_tuples_with_negative_entries():
    """2.5, 2.6: sum, mean and max are checked on negative axes in every run, not by luck."""
    axes = drawn_axes()
    negative_ints = [a for a in axes if isinstance(a, int) and a < 0]
    negative_entries = [a for a in axes if isinstance(a, tuple) and min(a) < 0]
    assert len(negative_ints) >= len(axes) // 8, axes
    assert len(negative_entries) >= len(axes) // 12, axes


if __name__ == "__main__":  # drawn_axes' fresh process
    print(repr(draw_axes()))
