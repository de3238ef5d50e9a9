"""The consistency stage: every check, probe and mutant id is an exercise of its chapter."""

import pytest

from checks.exercises import CHAPTERS
from checks.harness import Check
from checks.mutants import Mutant
from checks.tools.registered import id_problems, problems
from checks.tools.student import check


def nothing() -> None:
    """A check that proves nothing; only its id matters here."""


CHAPTER_1 = [ex.id for ex in CHAPTERS[1].exercises]  # the bonus exercises too
CHECKS = [Check(i, f"test_{i}", nothing) for i in CHAPTER_1]
PROBES = {i: nothing for i in CHAPTER_1}


def test_the_graders_and_the_bug_zoo_name_only_exercises_of_their_chapter():
    assert problems() == []


def test_a_check_with_a_mistyped_id_is_reported_with_the_ids_to_use():
    found = id_problems(1, [*CHECKS, Check("1.30", "test_typo", nothing)], PROBES, [])
    assert len(found) == 1
    assert "@check('1.30') on test_typo" in found[0] and "never run" in found[0]
    assert "'1.3'" in found[0]


def test_a_check_of_another_chapters_exercise_is_reported():
    found = id_problems(1, [*CHECKS, Check("2.3", "test_elsewhere", nothing)], PROBES, [])
    assert len(found) == 1 and "no exercise 2.3" in found[0]


def test_a_probe_with_an_unknown_id_is_reported():
    found = id_problems(1, CHECKS, {**PROBES, "1.30": nothing}, [])
    assert len(found) == 1 and "@probe('1.30')" in found[0]


def test_a_mutant_of_an_unknown_exercise_is_reported():
    mutant = Mutant("1.30", "typo", "a", "b")
    found = id_problems(1, CHECKS, PROBES, [mutant])
    assert len(found) == 1 and "mutant 'typo'" in found[0]


def test_an_exercise_without_a_check_or_a_probe_is_reported():
    found = id_problems(1, CHECKS[1:], {i: nothing for i in CHAPTER_1[1:]}, [])
    assert sorted(found) == ["checks/chapter1_autodiff.py: exercise 1.1 has no @check('1.1')",
                             "checks/chapter1_autodiff.py: exercise 1.1 has no @probe('1.1')"]


@pytest.mark.parametrize("module, where", [
    ("checks.chapter2_tensor", "checks/chapter2_tensor/"),
    ("checks.chapter2_tensor.elementwise", "checks/chapter2_tensor/elementwise.py"),
])
def test_the_consistency_stage_fails_on_a_mistyped_check(monkeypatch, capsys, module, where):
    """A check in the grader package or in one of its parts, named by its own file."""
    from checks import harness

    problems()  # the graders imported, so their checks are registered
    typo = Check("2.30", "test_typo", nothing)
    monkeypatch.setattr(nothing, "__module__", module)
    monkeypatch.setattr(harness, "CHECKS", [*harness.CHECKS, typo])
    assert check() == 1
    assert f"{where}: @check('2.30')" in capsys.readouterr().out
