"""The proof's check of `uses=`: a dependency the table misses, or one it invents, is a problem."""

import dataclasses

from checks.exercises import exercise
from checks.tools.proof import uses_problem

FAILED = {"status": "ok", "checks": [{"name": "a", "passed": True}, {"name": "b", "passed": False}]}
PASSED = {"status": "ok", "checks": [{"name": "a", "passed": True}]}


def test_a_user_failing_with_a_random_exercise_it_lists_is_no_problem():
    assert uses_problem(exercise("3.7"), "3.2", FAILED) == ""


def test_a_user_failing_with_a_random_exercise_it_does_not_list_is_reported():
    unlisted = dataclasses.replace(exercise("3.7"), uses=("3.1",))
    problem = uses_problem(unlisted, "3.2", FAILED)
    assert "3.7 fails when 3.2 returns random values" in problem and "fix 3.2 first" in problem


def test_an_error_counts_as_failing():
    assert uses_problem(exercise("3.7"), "3.2", {"status": "error", "checks": []}) == ""


def test_a_listed_exercise_the_user_passes_without_is_reported():
    problem = uses_problem(exercise("3.7"), "3.2", PASSED)
    assert problem == "✗ 3.7 lists 3.2 in uses=, yet passes when 3.2 returns random values"


def test_a_user_passing_without_an_unlisted_exercise_is_no_problem():
    assert uses_problem(exercise("3.3"), "3.2", PASSED) == ""
