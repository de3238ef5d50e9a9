"""`make release`: the learner's repository, without a line of the answers, that still grades."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from checks.exercises import chapter
from checks.tools import release
from checks.tools.use_reference import use_reference

NOT_IN_RELEASE = ["use-reference EX=1.3", "use-reference CHAPTER=1-4", "compare-chapter1",
                  "notebooks", "autograder", "student", "test-matrix", "sweep", "release"]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The release, built once, with the running Python's environment as its `.venv`."""
    out = tmp_path_factory.mktemp("release") / "course"
    assert release.main(["--out", str(out)]) == 0
    (out / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return out


def learner_env() -> dict:
    """A learner's environment: their framework/ graded, not the one the selftests chose."""
    env = {k: v for k, v in os.environ.items() if k not in ("IMPL", "PYTHONPATH")}
    return {**env, "HYPOTHESIS_PROFILE": "ci", "MPLBACKEND": "Agg"}


def make(folder: Path, target: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", *target.split()], cwd=folder, env=learner_env(),
                          capture_output=True, text=True, timeout=600)


def tracked(folder: Path) -> dict[str, bytes]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=folder, capture_output=True, check=True)
    return {name: (folder / name).read_bytes() for name in listed.stdout.decode().split("\0") if name}


def test_the_release_is_a_git_repository_of_one_commit(built):
    log = subprocess.run(["git", "log", "--format=%s"], cwd=built, capture_output=True, text=True,
                         check=True)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=built,
                            capture_output=True, text=True, check=True)
    assert log.stdout.splitlines() == ["The course, for learners"] and status.stdout == ""


def test_the_release_has_no_reference_zoo_or_course_selftests(built):
    names = tracked(built)
    assert not [n for n in names if n.startswith(release.LEFT_OUT)]
    assert ".github/workflows/classroom.yml" in names and "framework/autodiff.py" in names


def test_no_file_of_the_release_quotes_a_solution_line(built):
    """Every tracked file, notebooks' cells included."""
    assert release.quotes(tracked(built), release.solution_lines()) == []


def test_a_solution_line_is_a_long_whole_statement_found_only_in_regions(tmp_path):
    (tmp_path / "ops.py").write_text(textwrap.dedent("""\
        def slope(f, x, eps):
            ### BEGIN SOLUTION 1.1
            # a comment about the central difference, long enough
            for point in sorted_points(x, eps):
                return (f(x + eps) - f(x - eps)) / (2 * eps)
            call(key_padding_mask=memory_key_padding_mask,
                 other=1)
            total = provided_helper(x, eps)
            return out
            ### END SOLUTION


        total = provided_helper(x, eps)
        """))
    assert release.solution_lines(tmp_path) == {"return (f(x + eps) - f(x - eps)) / (2 * eps)": "1.1"}


@pytest.mark.parametrize("target", NOT_IN_RELEASE)
def test_a_command_that_needs_the_reference_says_it_is_not_in_the_release(built, target):
    done = make(built, target)
    output = done.stdout + done.stderr
    assert "not in this release" in output and "Traceback" not in output, output
    assert done.returncode == 2, output


def test_the_release_readme_says_what_the_classroom_workflow_cannot_protect(built):
    readme = (built / "README.md").read_text()
    assert "## This release" in readme and "## For maintainers" not in readme
    assert "`solutions/`" not in readme and "make autograder" in readme
    assert "whoever can push can change what it runs" in readme


def test_chapter_1_grades_0_as_released_and_100_with_the_reference_spliced_in(built, tmp_path):
    course = tmp_path / "course"
    shutil.copytree(built, course, symlinks=True)
    untouched = make(course, "check-chapter1")
    assert untouched.returncode != 0 and "Traceback" not in untouched.stdout + untouched.stderr
    assert json.loads((course / "grades" / "chapter1.json").read_text())["totals"] == {"1": 0}
    use_reference(chapter(1).exercises, course / "framework", tmp_path / "backup")
    solved = make(course, "check-chapter1")
    assert solved.returncode == 0, solved.stdout + solved.stderr
    assert json.loads((course / "grades" / "chapter1.json").read_text())["totals"] == {"1": 100}


def test_a_solution_line_quoted_in_backticks_or_a_string_counts_as_quoted():
    for text in ("`if cache is not None: k, v = cache.update(layer, k, v)`;",
                 '"        k, v = cache.update(layer, k, v)",', "k, v = cache.update(layer, k, v)  # new\n"):
        assert release.quoted("k, v = cache.update(layer, k, v)", text), text


def test_a_longer_statement_that_begins_with_a_solution_line_does_not_quote_it():
    longer = "rng = default_generator() if rng is None else rng"
    assert not release.quoted("rng = default_generator()", longer)
    assert not release.quoted("rng = default_generator()", "self.rng = default_generator()")
