"""What a grader tells a learner about a known mistake: the message names its likely cause."""

import shutil

from checks.mutants import Mutant
from checks.tools.processes import run_exercise
from checks.tools.proof import apply_mutant, copy_reference


def first_failure(mutant: Mutant) -> str:
    """The message of the first failing check of the mutant's exercise (run as the proof does)."""
    folder = copy_reference(apply_mutant(mutant))
    try:
        result = run_exercise(mutant.exercise, str(folder), "proof",
                              ["--no-probe", "--stop-at-first-failure"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    failed = [c for c in result["checks"] if not c["passed"]]
    assert failed, f"no check of {mutant.exercise} failed: {result}"
    return failed[0]["message"]


def test_a_float64_max_gradient_from_an_int64_tie_count_names_the_count():
    """2.6: the notebook's recipe, literally: count the ties with a plain sum, then divide."""
    message = first_failure(Mutant(
        "2.6", "tie count in int64", "tensor.py",
        "share = winners / winners.sum(axis=ctx.axes, keepdims=True, dtype=a.dtype)",
        "share = winners / winners.sum(axis=ctx.axes, keepdims=True)"))
    assert "is float64" in message and "count of ties" in message and "int64" in message, message
