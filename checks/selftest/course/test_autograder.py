"""The Gradescope autograder zip and the GitHub Classroom workflow.

`run_autograder` runs here as Gradescope runs it, against a temporary root
(AUTOGRADER_ROOT) with this interpreter (AUTOGRADER_PYTHON) instead of setup.sh's venv,
and, run as root, with a uid no account or process has as the sandbox user
(AUTOGRADER_USER): ending "every process of that user" then ends only this run's.
One run grades the whole course (the reference: every chapter at full marks); the others
grade chapter 1 only. The attacks on the zip are in test_autograder_attacks.py.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from checks.exercises import CHAPTERS, exercise
from checks.loader import ROOT
from checks.tools import autograder, release, sandbox
from checks.tools.regions import python_files, randomize_outputs, rewrite
from checks.tools.registered import registered_checks
from checks.tools.submission import find_submission, splice

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


AS_ROOT = os.geteuid() == 0
NOT_ROOT = "needs root: the sandbox user is another uid, which only root can switch to"


def free_uid() -> int:
    """A uid that no account and no running process has."""
    taken = set()
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            taken.add(int(status.read_text().split("\nUid:")[1].split()[0]))
        except (OSError, IndexError, ValueError):
            continue
    uid = 3_000_000 + os.getpid() % 1_000_000
    while uid in taken or uid in {entry.pw_uid for entry in pwd.getpwall()}:
        uid += 1
    return uid


SANDBOX_UID = free_uid()


def run_zip(zip_path: Path, root: Path, place_submission, profile: str | None = None,
            **env: str) -> tuple[dict, str]:
    """Unzip as Gradescope does, let `place_submission` fill submission/, run run_autograder
    (with the zip's hypothesis profile replaced by `profile`): results.json, as Gradescope
    accepts it, and what run_autograder printed."""
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
    if profile:
        config = root / "source" / "course" / "autograder.json"
        config.write_text(json.dumps({**json.loads(config.read_text()), "profile": profile}))
    (root / "submission").mkdir()
    (root / "results").mkdir()
    place_submission(root / "submission")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable,
           "AUTOGRADER_USER": str(SANDBOX_UID), **env}
    env.pop("IMPL", None)
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    path = root / "results" / "results.json"
    results = json.loads(path.read_text(encoding="utf-8"))
    assert gradescope_problems(results) == []
    assert path.stat().st_uid == os.geteuid()  # written by the judge (root), not the sandbox
    return results, done.stdout + done.stderr


def grade_in_temporary_root(zip_path: Path, root: Path, place_submission, **env: str) -> dict:
    return run_zip(zip_path, root, place_submission, **env)[0]


def test_the_zip_holds_setup_run_autograder_and_the_reference_checks_only(tmp_path):
    path = autograder.build(tmp_path / "autograder.zip", IN_COURSE)
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
        modes = {info.filename: info.external_attr >> 16 for info in archive.infolist()}
        config = json.loads(archive.read("course/autograder.json"))
    assert {"setup.sh", "run_autograder", "course/checks/tools/grade.py",
            "course/checks/chapter2_tensor/common.py", "course/framework/__init__.py"} <= names
    assert modes["setup.sh"] & stat.S_IXUSR and modes["run_autograder"] & stat.S_IXUSR
    assert not [n for n in names if n.startswith(("course/solutions/", "course/checks/selftest/",
                                                  "course/checks/alternatives/"))
                or "__pycache__" in n]
    assert {n for n in names if n.startswith("course/checks/mutants/")} == {
        "course/checks/mutants/__init__.py", "course/checks/mutants/chapter4.py"}  # 4.9's zoo
    assert config["chapters"] == IN_COURSE


def test_the_zip_pins_every_package_grading_imports_to_the_version_tested_here(tmp_path):
    from importlib.metadata import version

    path = autograder.build(tmp_path / "autograder.zip", IN_COURSE)
    with zipfile.ZipFile(path) as archive:
        pins = dict(line.split("==") for line in archive.read("requirements.txt").decode().split())
        setup = archive.read("setup.sh").decode()
    assert {"numpy", "matplotlib", "hypothesis", "numba", "sortedcontainers"} <= set(pins)
    assert all(pins[name] == version(name) for name in pins)
    assert "useradd" in setup and "sys.version_info < (3, " in setup


def test_the_zip_grades_chapter_4s_bonus_without_the_rest_of_the_bug_zoo(tmp_path):
    """4.9 applies 4.6's mutants to the grader's copy of 4.6: the zip holds those alone."""
    path = autograder.build(tmp_path / "autograder.zip", [4])
    with zipfile.ZipFile(path) as archive:
        archive.extractall(tmp_path / "zip")
    done = subprocess.run([sys.executable, "-c", "from checks.mutants.chapter4 import MUTANTS;"
                           "print(sorted({m.exercise for m in MUTANTS}), len(MUTANTS))"],
                          cwd=tmp_path / "zip" / "course", capture_output=True, text=True)
    from checks.mutants.chapter4 import MUTANTS
    assert done.stdout.split() == ["['4.6']", str(sum(m.exercise == "4.6" for m in MUTANTS))]


def test_the_zip_is_the_same_bytes_every_build(tmp_path):
    first = autograder.build(tmp_path / "a.zip", [1]).read_bytes()
    assert autograder.build(tmp_path / "b.zip", [1]).read_bytes() == first


def test_the_reference_scores_full_marks_on_every_chapter(tmp_path):
    """The one full-course run: every exercise of every chapter passes, the bonus ones too."""
    zip_path = autograder.build(tmp_path / "autograder.zip", IN_COURSE)
    results = grade_in_temporary_root(
        zip_path, tmp_path / "root",
        lambda submission: shutil.copytree(ROOT / "solutions" / "framework",
                                           submission / "framework"))
    expected = [ex.id for n in IN_COURSE for ex in CHAPTERS[n].exercises]
    assert [t["number"] for t in results["tests"]] == expected
    failed = [(t["name"], t["output"]) for t in results["tests"] if t["status"] != "passed"]
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


def in_region(source: Path, exercise_id: str, code: str) -> None:
    """Put `code` first in the body of each region of `exercise_id` in `source`: grading runs
    only what the regions hold, and this runs whenever that code does."""
    lines = textwrap.dedent(code).strip("\n").splitlines()
    source.write_text(rewrite(source.read_text(), lambda region, body: [
        region.indent + line if line else line for line in lines] + body, only={exercise_id}))


LINGERER = """
if not globals().get("_lingering"):  # once a process
    globals()["_lingering"] = True
    import subprocess as _subprocess
    _sleeper = _subprocess.Popen(["sleep", "600"], stdin=_subprocess.DEVNULL,
                                 stdout=_subprocess.DEVNULL, stderr=_subprocess.DEVNULL,
                                 start_new_session=True)
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
    wrong = exercise("1.1")

    def one_wrong(submission: Path) -> None:
        shutil.copytree(ROOT / "solutions" / "framework", submission / "framework")
        source = submission / "framework" / "autodiff.py"
        source.write_text(rewrite(source.read_text(), randomize_outputs, only={wrong.id}))

    results = grade_in_temporary_root(chapter1_zip, tmp_path / "root", one_wrong)
    assert results["score"] == 100 - wrong.points
    test = next(t for t in results["tests"] if t["number"] == wrong.id)
    assert test["score"] == 0 and test["status"] == "failed"
    assert wrong.hint in test["output"]


@pytest.mark.skipif(not AS_ROOT, reason=NOT_ROOT)
def test_no_process_the_submission_starts_outlives_run_autograder(chapter1_zip, open_folder):
    """A process started in a session of its own, left running: ended with the user's."""
    pids = open_folder / "pids.txt"

    def lingering(submission: Path) -> None:
        shutil.copytree(ROOT / "solutions" / "framework", submission / "framework")
        in_region(submission / "framework" / "autodiff.py", "1.2", LINGERER.format(pids=str(pids)))

    results = grade_in_temporary_root(chapter1_zip, open_folder / "root", lingering)
    assert results["score"] == 100
    started = [int(line) for line in pids.read_text().split()]
    assert started and not [pid for pid in started if alive(pid)]


# once a process: run by someone other than root, the judge cannot end what outlives it
SLEEP_ONCE = """
if not globals().get("_slept"):
    globals()["_slept"] = True
    import time
    time.sleep(60)
"""


def test_grading_cut_short_by_its_time_limit_still_writes_results_and_says_so(chapter1_zip,
                                                                               tmp_path):
    def slow(submission: Path) -> None:  # a fast machine grades chapter 1 within the limit
        shutil.copytree(ROOT / "solutions" / "framework", submission / "framework")
        in_region(submission / "framework" / "autodiff.py", "1.2", SLEEP_ONCE)

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
        found = find_submission(submission)
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


# -- what the zip holds of the reference -----------------------------------------------------------

def test_the_zip_holds_no_solution_line(tmp_path):
    """The rule of `make release` (checks/tools/release.py): no whole statement of a solution
    region, but 4.6's schedule, which 4.9's wrong schedules (the zip's
    `checks/mutants/chapter4.py`) are made from."""
    lines = release.solution_lines()
    assert len(lines) > 400  # what the reference's regions hold
    with zipfile.ZipFile(autograder.build(tmp_path / "autograder.zip", IN_COURSE)) as archive:
        files = {name.removeprefix("course/"): archive.read(name) for name in archive.namelist()}
    found = release.quotes(files, lines)
    assert [(name, line) for name, ex, line in found
            if (name, ex) != ("checks/mutants/chapter4.py", "4.6")] == []


# -- what of a submission is graded: its regions, spliced into the course's files ---------------

def spliced_submission(tmp_path: Path, edit) -> tuple[Path, list[str]]:
    """The reference as a submission, `edit(its framework folder)`ed, spliced into a copy of
    the learner files: the copy, and the notes."""
    shutil.copytree(ROOT / "solutions" / "framework", tmp_path / "submitted")
    edit(tmp_path / "submitted")
    shutil.copytree(ROOT / "framework", tmp_path / "copy")
    return tmp_path / "copy", splice(ROOT / "framework", tmp_path / "submitted", tmp_path / "copy")


def test_splicing_the_reference_into_the_stubs_gives_the_reference(tmp_path):
    copy, notes = spliced_submission(tmp_path, lambda submitted: None)
    assert notes == []
    for path in python_files(copy):
        relative = path.relative_to(copy)
        assert path.read_text() == (ROOT / "solutions" / "framework" / relative).read_text(), relative


def test_a_line_changed_outside_the_regions_is_ignored_and_named(tmp_path):
    def edit(submitted: Path) -> None:
        source = submitted / "autodiff.py"
        source.write_text(source.read_text().replace("import ", "import os, ", 1))

    copy, notes = spliced_submission(tmp_path, edit)
    assert "import os, " not in (copy / "autodiff.py").read_text()
    assert len(notes) == 1 and notes[0].startswith("ignored: framework/autodiff.py (its lines "
                                                   "outside the solution regions, from line")


def test_broken_markers_leave_that_files_exercises_not_started_and_say_so(tmp_path):
    def edit(submitted: Path) -> None:
        source = submitted / "autodiff.py"
        source.write_text(source.read_text().replace("### END SOLUTION", "### END", 1))

    copy, notes = spliced_submission(tmp_path, edit)
    assert (copy / "autodiff.py").read_text() == (ROOT / "framework" / "autodiff.py").read_text()
    assert (copy / "ops.py").read_text() == (ROOT / "solutions" / "framework" / "ops.py").read_text()
    begin = (ROOT / "solutions" / "framework" / "autodiff.py").read_text().splitlines().index(
        "    ### BEGIN SOLUTION 1.6") + 1
    assert notes == [f"ignored: framework/autodiff.py (its solution markers are broken (line "
                     f"{begin}: BEGIN SOLUTION inside another region): its exercises count as not "
                     "started; restore the ### BEGIN SOLUTION / ### END SOLUTION lines as the "
                     "course has them)"]


def test_files_and_folders_the_course_does_not_have_are_ignored_and_named(tmp_path):
    def edit(submitted: Path) -> None:
        (submitted / "autodiff.abi3.so").write_bytes(b"\x7fELF")
        (submitted / "extra").mkdir()
        (submitted / "extra" / "__init__.py").write_text("")
        (submitted / "provided" / "backend.py").write_text("# mine\n")
        (submitted / "shape_ops.py").unlink()
        (submitted / "tensor.py").write_bytes(b"\xff\xfe")

    copy, notes = spliced_submission(tmp_path, edit)
    assert notes == [
        "ignored: framework/extra (not a course folder)",
        "ignored: framework/autodiff.abi3.so (not a course file)",
        "ignored: framework/tensor.py (not UTF-8 text: its exercises count as not started)",
        "ignored: framework/provided/backend.py (a provided file: the course's own copy is graded)",
        "missing: framework/shape_ops.py (its exercises stay not started)",
    ]
    assert not (copy / "autodiff.abi3.so").exists() and not (copy / "extra").exists()
    assert (copy / "tensor.py").read_text() == (ROOT / "framework" / "tensor.py").read_text()


# -- what the judge reads back from the sandbox -------------------------------------------------

def test_the_output_kept_is_its_last_64_kb_and_says_it_was_cut(tmp_path):
    path = tmp_path / "output.txt"
    path.write_bytes(b"start\n" + b"x" * sandbox.OUTPUT_KEPT + b"\nthe score table\n")
    text = sandbox.tail(path)
    assert text.endswith("the score table\n") and "start" not in text
    assert text.startswith(f"(the output is {path.stat().st_size} bytes: its last 64 KB follow)")
    assert len(text.encode()) < sandbox.OUTPUT_KEPT + 100


def test_reading_back_refuses_links_pipes_and_oversized_files(tmp_path):
    (tmp_path / "report.json").write_text("{}")
    (tmp_path / "link").symlink_to(tmp_path / "report.json")
    os.mkfifo(tmp_path / "pipe")
    assert sandbox.read_back(tmp_path / "report.json", 10) == b"{}"
    assert sandbox.read_back(tmp_path / "report.json", 1) is None
    assert sandbox.read_back(tmp_path / "link", 10) is None
    assert sandbox.read_back(tmp_path / "pipe", 10) is None
    assert sandbox.read_back(tmp_path / "absent", 10) is None


OPEN_FILES = """
import os
print(sorted(os.listdir("/proc/self/fd")), os.readlink("/proc/self/fd/0"), os.getuid())
try:
    os.listdir(f"/proc/{os.getppid()}/fd")
except PermissionError:
    print("the parent's files are closed to it")
"""


@pytest.mark.skipif(not AS_ROOT, reason=NOT_ROOT)
def test_the_sandboxed_process_holds_only_its_output_and_cannot_open_its_parents(tmp_path):
    user = sandbox.user(str(SANDBOX_UID))
    with open(tmp_path / "output.txt", "wb") as out:
        process = sandbox.start([sys.executable, "-c", OPEN_FILES], user, Path("/"),
                                {"PATH": "/usr/bin:/bin"}, out)
    assert sandbox.wait(process, 60)
    assert sandbox.end_all(user)
    assert (tmp_path / "output.txt").read_text().splitlines() == [
        f"['0', '1', '2', '3'] /dev/null {SANDBOX_UID}",  # 3: the listing's own
        "the parent's files are closed to it"]


def signed(report: dict, key: bytes) -> bytes:
    body = json.dumps(report)
    return json.dumps({"report": body, "signature": hmac.new(
        key, body.encode(), hashlib.sha256).hexdigest()}).encode()


def test_the_judge_takes_only_a_report_signed_with_the_runs_key_and_the_graders_checks():
    key, known = b"k" * 32, {ex.id: registered_checks(ex.id) for ex in CHAPTERS[1].exercises}
    results = [{"exercise": ex.id, "status": "ok", "message": "",
                "checks": [{"name": name, "passed": True} for name in known[ex.id]]}
               for ex in CHAPTERS[1].exercises]
    report = {"chapters": {"1": results}}
    assert autograder.verified(signed(report, key), key, [1], known)[0] == report
    assert autograder.verified(signed(report, b"x" * 32), key, [1], known)[1] == (
        "the grader's report does not carry this run's signature: it was rewritten")
    renamed = [{**results[0], "checks": [{"name": "mine", "passed": True}]}, *results[1:]]
    assert autograder.verified(signed({"chapters": {"1": renamed}}, key), key, [1], known)[0] is None
    assert autograder.verified(signed({"chapters": {}}, key), key, [1], known)[0] is None
    assert autograder.verified(b"\xff", key, [1], known)[0] is None


# -- results.json, whatever happens ---------------------------------------------------------------

def test_a_submission_that_cannot_be_graded_scores_zero_and_says_why(chapter1_zip, tmp_path):
    results = grade_in_temporary_root(
        chapter1_zip, tmp_path, lambda s: shutil.copytree(ROOT / "framework", s / "framework"),
        AUTOGRADER_TIMEOUT="soon")
    assert results["score"] == 0
    assert results["output"].startswith("Your submission could not be graded: ValueError")


@pytest.mark.skipif(not AS_ROOT, reason=NOT_ROOT)
def test_without_its_sandbox_user_the_judge_grades_nothing_and_says_why(chapter1_zip, tmp_path):
    results = grade_in_temporary_root(
        chapter1_zip, tmp_path, lambda s: shutil.copytree(ROOT / "framework", s / "framework"),
        AUTOGRADER_USER="no-such-user-here")
    assert results["score"] == 0
    assert "no user 'no-such-user-here': setup.sh creates it" in results["output"]


def test_a_judge_that_cannot_start_still_leaves_a_results_json_that_says_so(chapter1_zip,
                                                                             tmp_path):
    with zipfile.ZipFile(chapter1_zip) as archive:
        archive.extractall(tmp_path / "source")
    env = {**os.environ, "AUTOGRADER_ROOT": str(tmp_path), "AUTOGRADER_PYTHON": "/bin/false"}
    done = subprocess.run(["bash", str(tmp_path / "source" / "run_autograder")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "results" / "results.json").read_text())
    assert results["score"] == 0 and results["tests"] == []
    assert results["output"] == ("The autograder failed (exit status 1) before it could grade: "
                                 "tell your instructor.")
