"""What `make check-chapterN` prints for a failing exercise names nothing of the graders' insides.

For every chapter, the reference with one mutant of the bug zoo in each exercise (the first
listed for it, unless it is in SLOW) is graded as a learner grades it: `python -m
checks.tools.grade N` with IMPL on the mutated copy, under the "ci" profile (what the
autograder runs: hypothesis shrinks the failing input, as it does for a learner). Each
exercise's report, printed and in the autograder's results.json, must show the learner their
input, expected and got or the hint, and no path into `checks/`, an installed package or
hypothesis, no `Draw n:` log, no comment or advice of hypothesis's for a test's author.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from hypothesis import Phase, settings

from checks.exercises import CHAPTERS
from checks.loader import ROOT
from checks.mutants import hand_written
from checks.tools.autograder import results_json
from checks.tools.proof import copy_reference

INTERNALS = {
    "a path into checks/": re.compile(r"(?<![\w-])checks[/\\]"),
    "an installed package's file": re.compile(r"site-packages|dist-packages"),
    "a hypothesis module path": re.compile(r"hypothesis[/\\.]\w"),
    "a file's line by number (hypothesis's explain report)": re.compile(r"\.py:\d+"),
    "hypothesis's draw log": re.compile(r"^\s*Draw \d+|=data\(\.\.\.\)", re.MULTILINE),
    "hypothesis's settings": re.compile(r"settings\.verbosity|Verbosity\.|@reproduce_failure"),
    "hypothesis's explain phase": re.compile(r"always and only run|commented parts were varied"
                                             r"|any other generated value"),
    "a traceback": re.compile(r"Traceback \(most recent call last\)|File \""),
}


# mutants passed over: with the other exercises' mutants, they cost the run a time limit
SLOW = {
    "no visited set: a shared node is visited twice": "1.7's walks become exponential: 60 s",
}


def test_no_grading_profile_runs_hypothesis_explain_phase():
    """Its report lists the graders' and NumPy's lines by path, and comments the example."""
    for name in ("learner", "ci", "proof", "sweep"):
        assert Phase.explain not in settings.get_profile(name).phases, name


def first_mutant_of_each_exercise(number: int) -> list:
    mutants = {}
    for mutant in hand_written(number):
        if mutant.name not in SLOW:
            mutants.setdefault(mutant.exercise, mutant)
    return list(mutants.values())


def internals(text: str) -> list[str]:
    return [f"{what}: {pattern.search(text).group(0)!r}"
            for what, pattern in INTERNALS.items() if pattern.search(text)]


def blocks(output: str) -> dict[str, str]:
    """The report of each failing exercise after the table: from its "N.M title:" line on."""
    found = re.split(r"^(?=\d+\.\d+ [^\n]*:\n)", output, flags=re.MULTILINE)[1:]
    return {block.split(" ", 1)[0]: block for block in found}


@pytest.mark.parametrize("number", sorted(n for n, ch in CHAPTERS.items() if ch.in_course))
def test_a_failing_exercise_shows_the_learner_no_grader_internals(number, tmp_path):
    mutants = first_mutant_of_each_exercise(number)
    assert {m.exercise for m in mutants} == {ex.id for ex in CHAPTERS[number].exercises}
    folder = copy_reference()
    try:
        for mutant in mutants:
            mutant.apply(folder / "framework")
        env = {**os.environ, "IMPL": str(folder), "HYPOTHESIS_PROFILE": "ci"}
        printed = subprocess.run(
            [sys.executable, "-m", "checks.tools.grade", str(number),
             "--json", str(tmp_path / "grades.json")],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    output = printed.stdout + printed.stderr
    assert printed.returncode == 1, output  # graded, below full marks
    found = internals(output)
    assert not found, "the learner would read " + "; ".join(found) + "\n\n" + output
    # the autograder's results.json shows each exercise's report from the grader's JSON
    with open(tmp_path / "grades.json", encoding="utf-8") as file:
        tests = results_json([number], json.load(file), output, 0)["tests"]
    for test in tests:
        found = internals(test["output"])
        assert not found, f"results.json, {test['name']}: " + "; ".join(found) + test["output"]
    reports = blocks(output)
    for mutant in mutants:
        report = reports.get(mutant.exercise, "")
        assert report, f"{mutant.exercise} ({mutant.name}) has no report of its failure\n{output}"
        assert re.search(r"expected|got|hint:", report), report
        assert re.search(r"read: chapters/\S+\.ipynb", report) or "caused by" in report, report
