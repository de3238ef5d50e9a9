"""The bonus track: optional exercises graded apart from each chapter's 100 points.

A bonus exercise is worth 0 of the 100 and is shown beside the score ("100/100, bonus 2/3");
nothing provided calls one, so a learner who skips them all still scores 100 everywhere. The
property-test bonus (4.9) is graded by mutation: it must pass correct schedules and catch at
all but one of the 4.6 bug zoo's eight wrong schedules.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from checks.exercises import CHAPTERS, EXERCISES, exercise
from checks.loader import ROOT
from checks.mutants import WHOLE_REGION, Mutant
from checks.tools import autograder, grade
from checks.tools.processes import run_many
from checks.tools.proof import copy_reference
from checks.tools.regions import region_bodies, rewrite, stub
from checks.tools.student import REFERENCE

IN_COURSE = [n for n, ch in CHAPTERS.items() if ch.in_course]
BONUS = {ex.id for ex in EXERCISES if ex.bonus}
BONUS_FILES = {name for ex in EXERCISES if ex.bonus for name in ex.files}


def graded(package: Path, chapters: list[int]) -> subprocess.CompletedProcess:
    """`make check-chapterN` on the package in `package`/framework."""
    env = {**os.environ, "IMPL": str(package), "HYPOTHESIS_PROFILE": "ci"}
    return subprocess.run([sys.executable, "-m", "checks.tools.grade", *map(str, chapters),
                           "--json", str(package / "grades.json")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


def test_every_chapter_has_a_bonus_track_worth_no_points():
    """At least two bonus exercises per chapter, each worth 0: the graded ones still total 100."""
    for number in IN_COURSE:
        ch = CHAPTERS[number]
        assert len(ch.bonus) >= 2, f"chapter {number} has {len(ch.bonus)} bonus exercises"
        assert all(ex.points == 0 for ex in ch.bonus)
        assert sum(ex.points for ex in ch.exercises if not ex.bonus) == 100


def test_bonus_exercises_live_in_files_of_their_own():
    """No bonus exercise shares a file with a graded one: their stubs can stay as they are."""
    graded_files = {name for ex in EXERCISES if not ex.bonus for name in ex.files}
    assert not BONUS_FILES & graded_files


def imported_modules(rel: str, source: str) -> set[str]:
    """The package's modules a file imports, as paths in the package without ".py" dots
    ("bonus.chapter3_primitives"), and each name imported from one (which may itself be a module)."""
    package = rel.split("/")[:-1]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = (node.module or "").split(".")
            if node.level:  # relative: from the file's package, `level` - 1 packages up
                parts = [*package[: len(package) - node.level + 1], *filter(None, module)]
            elif module[0] == "framework":
                parts = module[1:]
            else:
                continue
            found.add(".".join(parts))
            found.update(".".join([*parts, alias.name]) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name.removeprefix("framework.") for a in node.names
                         if a.name.startswith("framework."))
    return found


def test_imported_modules_reads_relative_and_absolute_imports():
    assert "nn.smooth" in imported_modules("nn/modules.py", "from . import smooth")
    assert "nn.smooth" in imported_modules("nn/modules.py", "from .smooth import softplus")
    assert "bonus.chapter2_tensor" in imported_modules(
        "nn/modules.py", "from ..bonus.chapter2_tensor import cumsum")
    assert "bonus.chapter2_tensor" in imported_modules(
        "provided/data.py", "from framework.bonus.chapter2_tensor import cumsum")


def test_nothing_provided_imports_a_bonus_file():
    """Only the bonus files themselves may import one another: no provided code calls a bonus
    exercise, so skipping the track blocks nothing."""
    modules = {name.removesuffix(".py").replace("/", ".") for name in BONUS_FILES}
    for path in REFERENCE.rglob("*.py"):
        rel = path.relative_to(REFERENCE).as_posix()
        if rel not in BONUS_FILES:
            assert not imported_modules(rel, path.read_text()) & modules, rel


def test_the_stub_of_a_bonus_exercise_says_bonus():
    for ex in EXERCISES:
        assert ("(bonus)" in ex.stub_message()) == ex.bonus, ex.id
    result = {"status": "not_implemented", "checks": [], "message": ""}
    assert grade.verdict(result, bonus=True) == "not implemented yet (bonus)"
    assert grade.verdict(result) == "not implemented yet"


def test_the_score_line_shows_the_bonus_apart(tmp_path):
    """Chapter 1 with one of its two bonus exercises stubbed: "100/100, bonus 1/2", exit 0."""
    folder = copy_reference(lambda rel, text: rewrite(text, stub, {"1.9"}))
    try:
        done = graded(folder, [1])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "100/100, bonus 1/2" in done.stdout
    assert "not implemented yet (bonus)" in done.stdout


def test_skipping_every_bonus_exercise_leaves_chapters_1_to_4_at_100():
    """Every bonus region left a stub: each chapter still scores 100/100, bonus 0/n."""
    folder = copy_reference(lambda rel, text: rewrite(text, stub, BONUS))
    try:
        done = graded(folder, [1, 2, 3, 4])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert done.returncode == 0, done.stdout + done.stderr
    for number in (1, 2, 3, 4):
        assert f"100/100, bonus 0/{len(CHAPTERS[number].bonus)}" in done.stdout, done.stdout


def test_the_autograder_lists_bonus_tests_at_0_points_tagged_bonus():
    """A bonus exercise is a test worth 0 points, tagged "bonus": the total stays 100 a chapter."""
    report = {"chapters": {"4": [
        {"exercise": ex.id, "status": "ok", "message": "",
         "checks": [{"name": "a", "passed": True}]} for ex in CHAPTERS[4].exercises]}}
    results = autograder.results_json([4], report, "", 1.0)
    tests = {t["number"]: t for t in results["tests"]}
    assert results["score"] == 100.0
    assert sum(t["max_score"] for t in results["tests"]) == 100.0
    for ex in CHAPTERS[4].bonus:
        test = tests[ex.id]
        assert test["max_score"] == 0.0 and test["score"] == 0.0 and "bonus" in test["tags"]
        assert test["status"] == "passed"
    failing = {**report, "chapters": {"4": [
        {**r, "checks": [{"name": "a", "passed": r["exercise"] != "4.9", "message": "no"}]}
        for r in report["chapters"]["4"]]}}
    assert {t["number"]: t["status"] for t in autograder.results_json(
        [4], failing, "", 1.0)["tests"]}["4.9"] == "failed"


# -- 4.9: a learner's property test, graded by mutation ------------------------------------------


def test_the_graders_copy_of_the_schedule_is_4_6s_region():
    """4.9's bug zoo is 4.6's mutants applied to the zoo's copy of 4.6: the copy must be exact."""
    from checks.mutants.chapter4 import SCHEDULE_REGION

    (body,) = [body for name in exercise("4.6").files
               for body in region_bodies((REFERENCE / name).read_text(), "4.6")]
    assert SCHEDULE_REGION == "\n".join(body) + "\n"


PROPERTY_TESTS = {
    "asserts nothing": (
        "@given(base=st.floats(0.01, 1.0))\n"
        "def runs(base):\n"
        "    lr_at(base, 0, 2, 5, 0.0)\n\n"
        "runs()\n"),
    "checks the landmarks only, blind to a linear decay": (
        "@given(warmup=st.integers(1, 5), length=st.integers(2, 9), base=st.floats(0.01, 1.0),\n"
        "       share=st.floats(0.0, 0.9))\n"
        "def landmarks(warmup, length, base, share):\n"
        "    total, low = warmup + length, share * base\n"
        "    assert math.isclose(lr_at(base, 0, warmup, total, low), 0.0, abs_tol=1e-12)\n"
        "    assert math.isclose(lr_at(base, warmup, warmup, total, low), base)\n"
        "    assert math.isclose(lr_at(base, total, warmup, total, low), low, abs_tol=1e-12)\n\n"
        "landmarks()\n"),
    "checks only the first step": (
        "@given(warmup=st.integers(1, 5), base=st.floats(0.01, 1.0))\n"
        "def first_step(warmup, base):\n"
        "    assert lr_at(base, 0, warmup, warmup + 3, 0.0) == 0.0\n\n"
        "first_step()\n"),
}


@pytest.mark.parametrize("name", sorted(PROPERTY_TESTS))
def test_a_property_test_that_catches_too_few_bugs_fails_4_9(name):
    edit = Mutant("4.9", name, WHOLE_REGION, PROPERTY_TESTS[name])
    folder = copy_reference()
    try:
        edit.apply(folder / "framework")
        (result,) = run_many([("4.9", str(folder), "ci")])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    passed = {c["name"]: c["passed"] for c in result["checks"]}
    assert passed == {"test_your_property_test_passes_correct_schedules": True,
                      "test_your_property_test_catches_the_4_6_bug_zoo": False}, result
    message = next(c["message"] for c in result["checks"] if not c["passed"])
    assert "caught" in message and "it passed these" in message


def bonus_sections(notebook: Path) -> dict[str, str]:
    """{heading: markdown} of the bonus exercises' cells of one notebook."""
    cells = nbformat.read(notebook, as_version=4).cells
    return {c.source.splitlines()[0].lstrip("#").strip(): c.source for c in cells
            if c.cell_type == "markdown" and c.source.startswith("### ")}


@pytest.mark.parametrize("number", IN_COURSE)
def test_each_bonus_exercise_has_a_contract_and_two_folded_hints(number):
    """Less scaffolding: a contract, the math, then hints folded away; no NumPy call unfolded."""
    ch = CHAPTERS[number]
    sections = bonus_sections(ROOT / "solutions" / ch.notebook)
    for ex in ch.bonus:
        text = sections[ex.heading]
        assert "**Contract.**" in text, ex.id
        assert text.count("<details><summary>Hint") >= 2, ex.id
        unfolded = re.sub(r"<details>.*?</details>", "", text, flags=re.S)
        assert not re.search(r"\bnp\.\w", unfolded), ex.id
