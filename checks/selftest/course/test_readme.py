"""The README's table of exercise ids is the exercise table's: it cannot go stale."""

from checks.exercises import EXERCISES
from checks.tools import readme


def test_the_readme_lists_every_exercise_as_checks_exercises_py_does():
    text = readme.README.read_text()
    assert readme.with_table(text) == text, (
        "README.md's exercise table differs from checks/exercises.py: "
        "run python -m checks.tools.readme")


def test_the_table_has_one_row_per_exercise_with_its_points_and_section():
    rows = readme.table().splitlines()[2:]
    assert len(rows) == len(EXERCISES)
    for row, ex in zip(rows, EXERCISES):
        points = "bonus" if ex.bonus else ex.points
        assert row.startswith(f"| {ex.id} | {ex.title} | {points} |") and ex.heading in row, row


def test_a_stale_table_is_caught():
    text = readme.README.read_text()
    stale = text.replace(f"| {EXERCISES[0].id} | {EXERCISES[0].title} |", "| 1.1 | Renamed |")
    assert stale != text and readme.with_table(stale) != stale
