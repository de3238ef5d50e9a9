"""The Gradescope autograder zip and the GitHub Classroom workflow.

`run_autograder` runs here as Gradescope runs it, against a temporary root
(AUTOGRADER_ROOT) with this interpreter (AUTOGRADER_PYTHON) instead of setup.sh's venv.
One run grades the whole course (the reference: every chapter at full marks); the others
grade chapter 1 only.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from checks.exercises import CHAPTERS, exercise
from checks.loader import ROOT
from checks.tools import autograder
from checks.tools.regions import randomize_outputs, rewrite

VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
IN_COURSE = [n for n, ch in CHAPTERS.items() if ch.in_course]


def gradescope_problems(results: object) -> list[str]:
    """What keeps `results` from being a results.json Gradescope accepts, with one test per
    exercise (empty when it is one)."""
    number = (int, float)
    if not isinstance(results, dict):
        return ["results.json is not an object"]
    problems = []
    tests = results.get("tests")
    if not isinstance(tests, list) or not tests:
        return ["no list of tests"]
    for key, kind in (("score", number), ("output", str), ("execution_time", number)):
        if not isinstance(results.get(key), kind) or isinstance(results.get(key), bool):
            problems.append(f"top-level {key!r} missing or not {kind}")
    for key in ("visibility", "stdout_visibility"):
        if key in results and results[key] not in VISIBILITIES:
            problems.append(f"top-level {key} {results[key]!r}")
    for i, test in enumerate(tests):
        if not isinstance(test, dict):
            problems.append(f"test {i} is not an object")
            continue
        for key, kind in (("score", number), ("max_score", number), ("name", str), ("output", str),
                          ("number", str)):
            if not isinstance(test.get(key), kind) or isinstance(test.get(key), bool):
                problems.append(f"test {i}: {key!r} missing or not {kind}")
        if test.get("visibility") not in VISIBILITIES:
            problems.append(f"test {i}: visibility {test.get('visibility')!r}")
        if test.get("status") not in ("passed", "failed"):
            problems.append(f"test {i}: status {test.get('status')!r}")
        if not (isinstance(test.get("tags", []), list)
                and all(isinstance(t, str) for t in test.get("tags", []))):
            problems.append(f"test {i}: tags not a list of strings")
        if not problems and not 0 <= test["score"] <= test["max_score"]:
            problems.append(f"test {i}: score {test['score']} outside 0..{test['max_score']}")
    if not problems and results["score"] != sum(t["score"] for t in tests):
        problems.append(f"total {results['score']} is not the sum of the tests' scores")
    return problems


def test_the_schema_check_accepts_a_minimal_result_and_refuses_broken_ones():
    good = {"score": 1.0, "output": "", "execution_time": 3, "visibility": "visible",
            "tests": [{"score": 1.0, "max_score": 2.0, "name": "1.1 x", "number": "1.1",
                       "output": "", "visibility": "visible", "status": "failed", "tags": []}]}
    assert gradescope_problems(good) == []
    broken = [
        {**good, "tests": []},
        {**good, "score": "1"},
        {**good, "score": 2.0},
        {**good, "tests": [{**good["tests"][0], "max_score": None}]},
        {**good, "tests": [{**good["tests"][0], "visibility": "shown"}]},
        {**good, "tests": [{**good["tests"][0], "score": 3.0}], "score": 3.0},
    ]
    for results in broken:
        assert gradescope_problems(results), results


def grade_in_temporary_root(zip_path: Path, root: Path, place_submission, **env: str) -> dict:
    """Unzip as Gradescope does, let `place_submission` fill submission/, run run_autograder."""
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
    (root / "submission").mkdir()
    place_submission(root / "submission")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable, **env}
    env.pop("IMPL", None)
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert gradescope_problems(results) == []
    return results


@pytest.fixture(scope="module")
def chapter1_zip(tmp_path_factory) -> Path:
    return autograder.build(tmp_path_factory.mktemp("zip") / "chapter1.zip", [1])


def test_the_zip_holds_setup_run_autograder_and_the_reference_checks_only(tmp_path):
    path = autograder.build(tmp_path / "autograder.zip", IN_COURSE)
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
        requirements = archive.read("requirements.txt").decode().split()
        config = json.loads(archive.read("course/autograder.json"))
    assert {"setup.sh", "run_autograder", "course/checks/tools/grade.py",
            "course/checks/chapter2_tensor/common.py", "course/framework/__init__.py"} <= names
    assert modes["setup.sh"] & stat.S_IXUSR and modes["run_autograder"] & stat.S_IXUSR
    assert not [n for n in names if n.startswith(("course/solutions/", "course/checks/selftest/"))
                or "__pycache__" in n]
    assert [r for r in requirements if r.startswith("numpy")]
    assert [r for r in requirements if r.startswith("hypothesis")]
    assert config["chapters"] == IN_COURSE


def test_the_zip_is_the_same_bytes_every_build(tmp_path):
    first = autograder.build(tmp_path / "a.zip", [1]).read_bytes()
    assert autograder.build(tmp_path / "b.zip", [1]).read_bytes() == first


def test_the_reference_scores_full_marks_on_every_chapter(tmp_path):
    """The one full-course run: every exercise of every chapter, at full marks."""
    zip_path = autograder.build(tmp_path / "autograder.zip", IN_COURSE)
    results = grade_in_temporary_root(
        zip_path, tmp_path / "root",
        lambda submission: shutil.copytree(ROOT / "solutions" / "framework",
                                           submission / "framework"))
    expected = [ex.id for n in IN_COURSE for ex in CHAPTERS[n].exercises]
    assert [t["number"] for t in results["tests"]] == expected
    failed = [(t["name"], t["output"]) for t in results["tests"] if t["score"] != t["max_score"]]
    assert failed == []
    assert results["score"] == 100 * len(IN_COURSE)


def rigged_repository(submission: Path) -> None:
    """A repository clone: the untouched stubs, the reference under solutions/, and checks
    rewritten to give every exercise full marks."""
    repository = submission / "my-course"
    shutil.copytree(ROOT / "framework", repository / "framework")
    shutil.copytree(ROOT / "solutions" / "framework", repository / "solutions" / "framework")
    shutil.copytree(ROOT / "checks", repository / "checks",
                    ignore=shutil.ignore_patterns("__pycache__", "selftest"))
    grade = repository / "checks" / "tools" / "grade.py"
    main = '\nif __name__ == "__main__":'
    assert main in grade.read_text()
    grade.write_text(grade.read_text().replace(
        main, "\ndef score(ex, result):\n    return ex.points\n\n" + main, 1))


def test_the_rigged_checks_would_give_the_stubs_full_marks(tmp_path):
    """What the next test's submission carries: its own grader calls its stubs perfect."""
    rigged_repository(tmp_path)
    env = {**os.environ, "IMPL": "framework", "HYPOTHESIS_PROFILE": "ci"}
    done = subprocess.run([sys.executable, "-m", "checks.tools.grade", "1", "--json",
                           str(tmp_path / "grades.json")], cwd=tmp_path / "my-course", env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_stubs_score_zero_even_with_the_submissions_own_checks_rigged(chapter1_zip, tmp_path):
    results = grade_in_temporary_root(chapter1_zip, tmp_path, rigged_repository)
    assert [t["number"] for t in results["tests"]] == [ex.id for ex in CHAPTERS[1].exercises]
    assert results["score"] == 0
    assert all(t["status"] == "failed" and "not implemented" in t["output"]
               for t in results["tests"])
    assert "my-course/framework" in results["output"]


LINGERER = """
import subprocess as _subprocess
_sleeper = _subprocess.Popen(["sleep", "600"], stdin=_subprocess.DEVNULL, stdout=_subprocess.DEVNULL,
                             stderr=_subprocess.DEVNULL, start_new_session=True)
with open({pids!r}, "a") as _file:
    _file.write(f"{{_sleeper.pid}}\\n")
"""


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except OSError:
        return False


def test_a_wrong_exercise_loses_its_points_and_shows_the_graders_hint(chapter1_zip, tmp_path):
    """The submission also starts a detached process at import: none outlives run_autograder."""
    pids = tmp_path / "pids.txt"

    def one_wrong(submission: Path) -> None:
        shutil.copytree(ROOT / "solutions" / "framework", submission / "framework")
        source = submission / "framework" / "autodiff.py"
        source.write_text(rewrite(source.read_text(), randomize_outputs, only={"1.1"}))
        with open(submission / "framework" / "__init__.py", "a") as file:
            file.write(LINGERER.format(pids=str(pids)))

    results = grade_in_temporary_root(chapter1_zip, tmp_path / "root", one_wrong)
    wrong = exercise("1.1")
    assert results["score"] == 100 - wrong.points
    test = next(t for t in results["tests"] if t["number"] == "1.1")
    assert test["score"] == 0 and test["status"] == "failed"
    assert wrong.hint in test["output"]
    started = [int(line) for line in pids.read_text().split()]
    assert started and not [pid for pid in started if alive(pid)]


def test_grading_cut_short_by_its_time_limit_still_writes_results_and_says_so(chapter1_zip,
                                                                               tmp_path):
    def slow(submission: Path) -> None:  # a fast machine grades chapter 1 within the limit
        shutil.copytree(ROOT / "solutions" / "framework", submission / "framework")
        with open(submission / "framework" / "__init__.py", "a") as file:
            file.write("\nimport time\ntime.sleep(60)\n")

    results = grade_in_temporary_root(chapter1_zip, tmp_path, slow, AUTOGRADER_TIMEOUT="2")
    assert results["score"] == 0
    assert "did not finish within 2 s" in results["output"]
    assert all("no result" in t["output"] for t in results["tests"])


def test_a_submission_without_a_framework_package_scores_zero_and_says_why(chapter1_zip, tmp_path):
    results = grade_in_temporary_root(
        chapter1_zip, tmp_path, lambda submission: (submission / "notes.txt").write_text("hi"))
    assert results["score"] == 0
    assert "No framework/ package in your submission" in results["output"]


def test_the_submitted_package_is_found_at_the_top_in_a_clone_or_as_bare_files(tmp_path):
    for layout, expected in [("framework", "framework"),
                             ("clone/framework", "clone/framework"),
                             (".", ".")]:
        submission = tmp_path / layout.replace("/", "_").replace(".", "bare")
        (submission / layout).mkdir(parents=True)
        (submission / layout / "__init__.py").write_text("")
        (submission / "solutions" / "framework").mkdir(parents=True)
        (submission / "solutions" / "framework" / "__init__.py").write_text("")
        found = autograder.find_submission(submission)
        assert found is not None and found.relative_to(submission).as_posix() == expected


# -- GitHub Classroom ----------------------------------------------------------------------------

def workflow_steps(text: str) -> list[dict[str, str]]:
    """The steps of a workflow as flat {key: value} dicts: just enough YAML for this file."""
    steps, inside = [], False
    for line in text.splitlines():
        if line.strip() == "steps:":
            inside = True
            continue
        if not inside or not line.strip() or line.lstrip().startswith("#"):
            continue
        content = line.strip()
        if content.startswith("- "):
            steps.append({})
            content = content[2:]
        key, _, value = content.partition(":")
        steps[-1][key.strip()] = value.strip().strip("'\"")
    return steps


def test_the_classroom_workflow_is_what_the_exercise_table_writes():
    committed = autograder.WORKFLOW.read_text()
    assert committed == autograder.classroom_workflow(), (
        "stale: run python -m checks.tools.autograder --classroom")


def test_the_classroom_workflow_grades_every_chapter_for_its_points():
    steps = workflow_steps(autograder.WORKFLOW.read_text())
    graders = [s for s in steps if s.get("uses", "").startswith("education/autograding-command")]
    assert [(s["id"], int(s["max-score"])) for s in graders] == [
        (f"chapter-{n}", sum(ex.points for ex in CHAPTERS[n].exercises)) for n in IN_COURSE]
    for n, step in zip(IN_COURSE, graders):
        assert step["command"].endswith(f"python -m checks.tools.grade {n}")
    reporter = next(s for s in steps if s.get("uses", "").startswith(
        "education/autograding-grading-reporter"))
    assert reporter["runners"].split(",") == [s["id"] for s in graders]
    for step in graders:
        assert reporter[f"{step['id'].upper()}_RESULTS"] == (
            f"${{{{steps.{step['id']}.outputs.result}}}}")
