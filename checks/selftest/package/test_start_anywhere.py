"""Starting at any chapter: `use-reference` takes a chapter or a range, and each notebook's
first cell (framework.provided.prerequisites.require) names the earlier chapters still missing."""

import shutil
import subprocess
import sys

import pytest

from checks.exercises import CHAPTERS
from checks.loader import ROOT
from checks.tools.grade import verdict
from checks.tools.processes import run_many
from checks.tools.use_reference import selected, use_reference


def stubs(tmp_path):
    """A copy of the learner's package as `make student` writes it: every exercise a stub."""
    shutil.copytree(ROOT / "framework", tmp_path / "framework",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "framework"


def require(folder, chapter: int) -> subprocess.CompletedProcess:
    """The notebook's first cell, run where the notebook runs: beside the package."""
    return subprocess.run(
        [sys.executable, "-c", f"from framework.provided.prerequisites import require; require({chapter})"],
        cwd=folder, capture_output=True, text=True, timeout=120)


def test_use_reference_takes_an_exercise_a_chapter_or_a_range_of_chapters():
    assert [ex.id for ex in selected("2.3")] == ["2.3"]
    assert [ex.id for ex in selected("3")] == [ex.id for ex in CHAPTERS[3].exercises]
    assert [ex.id for ex in selected("1-5")] == [
        ex.id for n in range(1, 6) for ex in CHAPTERS[n].exercises]


@pytest.mark.parametrize("what", ["5-1", "three", "1-x"])
def test_use_reference_refuses_what_is_not_an_exercise_or_chapters(what):
    with pytest.raises(SystemExit):
        selected(what)


def test_after_use_reference_of_chapters_1_to_5_chapter_6_shows_only_its_own_stubs(tmp_path):
    """`make use-reference CHAPTER=1-5`, then `make check-chapter6`: not implemented, nothing blocked."""
    learner = stubs(tmp_path)
    done = use_reference(selected("1-5"), learner, tmp_path / "backup")
    assert any(line.startswith("framework/autodiff.py: 1.1, 1.2") for line in done), done
    assert (tmp_path / "backup" / "autodiff.py").read_text() == (
        ROOT / "framework" / "autodiff.py").read_text()
    results = run_many([(ex.id, str(tmp_path), "proof") for ex in CHAPTERS[6].exercises])
    assert [verdict(r) for r in results] == ["not implemented yet"] * len(results), results


def test_chapter_6s_first_cell_names_the_missing_chapters_in_one_line(tmp_path):
    stubs(tmp_path)
    ran = require(tmp_path, 6)
    line = ran.stderr.strip().splitlines()[-1]
    assert ran.returncode != 0 and line.startswith(
        "framework.provided.prerequisites.MissingChapters: chapter 6 needs your chapters 1–4 "
        "(not done yet: 1.1, 1.2"), ran.stderr
    assert line.endswith("do them, or `make use-reference CHAPTER=1-4`"), line


def test_chapter_6s_first_cell_passes_once_chapters_1_to_4_are_in_place(tmp_path):
    learner = stubs(tmp_path)
    use_reference(selected("1-4"), learner, tmp_path / "backup")
    ran = require(tmp_path, 6)
    assert ran.returncode == 0 and not ran.stdout, ran.stderr


def test_a_missing_exercise_is_named_alone(tmp_path):
    """Chapters 1–2 in place but for 2.8: chapter 3's cell names 2.8, nothing else."""
    learner = stubs(tmp_path)
    use_reference([ex for ex in selected("1-2") if ex.id != "2.8"], learner, tmp_path / "backup")
    ran = require(tmp_path, 3)
    assert "chapter 3 needs your chapters 1–2 (not done yet: 2.8): do them" in ran.stderr, ran.stderr


def test_the_reference_passes_every_notebooks_first_cell():
    for chapter in range(1, 9):
        ran = require(ROOT / "solutions", chapter)
        assert ran.returncode == 0, (chapter, ran.stderr)
