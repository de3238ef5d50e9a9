"""Every chapter's second correct implementation scores full marks (checks/alternatives/).

A chapter's `ALTERNATIVES` are applied together to a temporary copy of the reference, and
each of the chapter's exercises must pass all of its checks: a grader that fails a correct
answer written another way pins an idiom, not a behaviour.
"""

from __future__ import annotations

import importlib
import pkgutil
import shutil
import tempfile
from pathlib import Path

import pytest

import checks.alternatives
from checks.exercises import CHAPTERS
from checks.tools.processes import run_many
from checks.tools.student import REFERENCE

CHAPTER_MODULES = sorted(
    name for _, name, _ in pkgutil.iter_modules(checks.alternatives.__path__)
    if name.startswith("chapter")
)


def alternative_package(edits) -> Path:
    """A temporary folder holding framework/: the reference with every edit applied in turn."""
    folder = Path(tempfile.mkdtemp(prefix="framework-alternative-"))
    target = folder / "framework"
    shutil.copytree(REFERENCE, target, ignore=shutil.ignore_patterns("__pycache__"))
    for edit in edits:
        edit.apply(target)
    return folder


def test_every_chapter_with_exercises_has_an_alternative():
    """Each chapter in the course keeps a second correct implementation."""
    chapters = {int(name.removeprefix("chapter")) for name in CHAPTER_MODULES}
    assert chapters == {n for n, ch in CHAPTERS.items() if ch.in_course}


@pytest.mark.parametrize("module_name", CHAPTER_MODULES)
def test_the_alternative_scores_full_marks(module_name):
    """The chapter's alternative implementation passes every check of every exercise."""
    number = int(module_name.removeprefix("chapter"))
    edits = importlib.import_module(f"checks.alternatives.{module_name}").ALTERNATIVES
    exercises = CHAPTERS[number].exercises
    assert {e.exercise for e in edits} <= {ex.id for ex in exercises}
    folder = alternative_package(edits)
    try:
        results = run_many([(ex.id, str(folder), "proof") for ex in exercises])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    failing = {
        ex.id: [c["name"] for c in r["checks"] if not c["passed"]] or r["status"]
        for ex, r in zip(exercises, results)
        if r["status"] != "ok" or not r["checks"] or not all(c["passed"] for c in r["checks"])
    }
    assert not failing, f"chapter {number}'s alternative loses marks: {failing}"
