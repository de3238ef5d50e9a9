"""Submissions that attack the Gradescope zip, each run as Gradescope runs it (root, a
scratch AUTOGRADER_ROOT): only files under `framework/` are the attacker's.

Every attack is tried twice: on the untouched stubs, which must stay at 0, and on a
submission with one real bug from the bug zoo, which must keep the score it earns without
the attack. Code of an attack sits first in the body of exercise 1.1's region (grading runs
only what the regions hold) and runs once per grading, whenever 1.1's function is called.
The attacks that need the sandbox user to be another uid run only as root.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from checks.loader import ROOT
from checks.mutants import hand_written
from checks.selftest.course.test_autograder import (
    AS_ROOT,
    NOT_ROOT,
    SANDBOX_UID,
    alive,
    in_region,
    run_zip,
)

PROFILE = "proof"  # 15 derandomized examples a check: the attacks, not the checks, are tested
BUG = next(m for m in hand_written(1) if m.exercise == "1.2")  # a real bug, in another exercise
FORGED = json.dumps({"score": 100.0, "output": "forged", "execution_time": 1,
                     "tests": [{"name": "forged", "number": "1.1", "score": 100.0,
                                "max_score": 100.0, "output": "", "status": "passed",
                                "visibility": "visible"}]})
ONCE = """
import os as _os, tempfile as _tempfile
try:
    _os.close(_os.open(_os.path.join(_tempfile.gettempdir(), "attacked"), _os.O_CREAT | _os.O_EXCL))
except FileExistsError:
    pass
else:
    open(_os.path.join({probe!r}, "ran"), "w").close()
    exec({attack!r}, {{"RESULTS": {results!r}, "FORGED": {forged!r}, "PROBE": {probe!r}}})
"""


def submission(package: str, attack: str = "", extra=None):
    """A submission: the stubs, or the reference with BUG ("one bug"); `attack` in 1.1's
    region; `extra(framework folder)` for what else it holds."""
    def place(folder: Path, root: Path, probe: Path) -> None:
        framework = folder / "framework"
        shutil.copytree(ROOT / ("framework" if package == "stubs" else "solutions/framework"),
                        framework)
        if package == "one bug":
            BUG.apply(framework)
        if attack:
            in_region(framework / "autodiff.py", "1.1", ONCE.format(
                attack=attack, results=str(root / "results" / "results.json"), forged=FORGED,
                probe=str(probe)))
        if extra:
            extra(framework)
    return place


def attacked(zip_path: Path, folder: Path, package: str, attack: str = "",
             extra=None) -> tuple[dict, str]:
    """Grade a submission under attack; once run_autograder has returned, no process of the
    sandbox user is left (as root) and a second later results.json is as it returned it."""
    root, probe = folder / package.replace(" ", "_"), folder / f"probe_{package.replace(' ', '_')}"
    root.mkdir()
    probe.mkdir()
    probe.chmod(0o777)
    place = submission(package, attack, extra)
    results, printed = run_zip(zip_path, root, lambda where: place(where, root, probe), PROFILE)
    assert (probe / "ran").exists() == bool(attack), "the attack did not run"
    if AS_ROOT:
        assert not sandbox_processes(), "a process of the sandbox user outlived grading"
    written = (root / "results" / "results.json").read_text()
    time.sleep(1)
    assert (root / "results" / "results.json").read_text() == written
    return results, printed


def sandbox_processes() -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            if int(status.read_text().split("\nUid:")[1].split()[0]) == SANDBOX_UID:
                found.append(int(status.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return [pid for pid in found if alive(pid)]


@pytest.fixture(scope="module")
def honest_score(chapter1_zip, tmp_path_factory) -> float:
    """What the one-bug submission scores with no attack: less than full marks."""
    results, _ = attacked(chapter1_zip, tmp_path_factory.mktemp("honest"), "one bug")
    assert 0 < results["score"] < 100
    return results["score"]


def assert_honest(zip_path: Path, folder: Path, honest: float, attack: str = "",
                  extra=None) -> list[str]:
    """The attack changes no score; the outputs of both runs (results.json's, then what
    run_autograder printed)."""
    stubs, stubs_printed = attacked(zip_path, folder, "stubs", attack, extra)
    assert stubs["score"] == 0
    assert all(t["status"] == "failed" and "not implemented" in t["output"]
               for t in stubs["tests"])
    bugged, bugged_printed = attacked(zip_path, folder, "one bug", attack, extra)
    assert bugged["score"] == honest
    return [stubs["output"], bugged["output"], stubs_printed, bugged_printed]


GRADE_OVERRIDE = """
import checks.tools.grade as grade
try:
    with open(grade.__file__, "a") as file:
        file.write("\\ndef score(ex, result):\\n    return ex.points\\n\\n\\n"
                   "def passed_all(result):\\n    return True\\n")
except OSError:
    pass
"""


def test_rewriting_the_zips_own_scoring_changes_no_score(chapter1_zip, open_folder, honest_score):
    assert_honest(chapter1_zip, open_folder, honest_score, GRADE_OVERRIDE)


FORK_LOOP = """
import os, time
for _ in range(8):
    if os.fork() == 0:
        os.setsid()
        end = time.time() + 300
        while time.time() < end:
            try:
                if os.fork():
                    os._exit(0)  # the child goes on: never the same process twice
            except OSError:
                pass
            if os.path.exists(RESULTS):
                try:
                    with open(RESULTS, "w") as file:
                        file.write(FORGED)
                except OSError:
                    pass
            time.sleep(0.01)
        os._exit(0)
"""


@pytest.mark.skipif(not AS_ROOT, reason=NOT_ROOT)
def test_processes_that_fork_and_exit_in_a_loop_neither_survive_nor_write_results(
        chapter1_zip, open_folder, honest_score):
    assert_honest(chapter1_zip, open_folder, honest_score, FORK_LOOP)


KILL_THE_JUDGE = """
import os, signal
try:
    with open(RESULTS, "w") as file:
        file.write(FORGED)
except OSError:
    pass
for entry in os.listdir("/proc"):
    try:
        with open(f"/proc/{entry}/cmdline", "rb") as file:
            command = file.read()
    except OSError:
        continue
    if b"checks.tools.autograder" in command and b"--run" in command:
        try:
            os.kill(int(entry), signal.SIGKILL)
        except OSError:
            pass
"""


@pytest.mark.skipif(not AS_ROOT, reason=NOT_ROOT)
def test_a_forged_results_json_and_a_killed_judge_change_no_score(chapter1_zip, open_folder, honest_score):
    assert_honest(chapter1_zip, open_folder, honest_score, KILL_THE_JUDGE)


DAEMON = """
import os, sys
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        loop = ("import time\\nend = time.time() + 300\\nwhile time.time() < end:\\n"
                "    try:\\n        open(R, 'w').write(F)\\n    except OSError:\\n        pass\\n"
                "    time.sleep(0.05)\\n")
        os.execve(sys.executable, [sys.executable, "-c", f"R, F = {RESULTS!r}, {FORGED!r}\\n"
                                   + loop], {})
    os._exit(0)
"""


@pytest.mark.skipif(not AS_ROOT, reason=NOT_ROOT)
def test_a_daemon_with_a_scrubbed_environment_is_ended_and_writes_nothing(
        chapter1_zip, open_folder, honest_score):
    assert_honest(chapter1_zip, open_folder, honest_score, DAEMON)


def compiled_extension(framework: Path) -> None:
    """Bytes that are no extension: imported in place of autodiff.py, they would fail it."""
    (framework / "autodiff.abi3.so").write_bytes(b"\x7fELF not really")


def test_a_compiled_extension_beside_a_course_file_is_ignored_and_named(
        chapter1_zip, open_folder, honest_score):
    for output in assert_honest(chapter1_zip, open_folder, honest_score, extra=compiled_extension)[:2]:
        assert "ignored: framework/autodiff.abi3.so (not a course file)" in output


WRITE_TO_THE_JUDGE = """
import os
junk = b"FORGED-OUTPUT\\n" + b"x" * (1 << 20)
pid, reached = os.getpid(), []
for _ in range(4):  # the grader, the judge, run_autograder, ...
    with open(f"/proc/{pid}/stat") as file:
        pid = int(file.read().rsplit(")", 1)[1].split()[1])
    if pid <= 1:
        break
    for fd in (1, 2):
        try:
            with open(f"/proc/{pid}/fd/{fd}", "wb") as file:
                for _ in range(8):
                    file.write(junk)
            reached.append(f"{pid}/{fd}")
        except OSError:
            pass
with open(os.path.join(PROBE, "reached"), "w") as file:
    file.write(" ".join(reached))
"""


def test_writing_to_the_graders_output_through_proc_shows_nothing(chapter1_zip, open_folder, honest_score):
    outputs = assert_honest(chapter1_zip, open_folder, honest_score, WRITE_TO_THE_JUDGE)
    for output in outputs[:2]:
        assert "FORGED-OUTPUT" not in output and len(output) < 70 * 1024
    if AS_ROOT:  # another user's /proc/<pid>/fd is closed: run_autograder's output too
        assert "FORGED-OUTPUT" not in outputs[2] + outputs[3]
        assert [(probe / "reached").read_text() for probe in open_folder.glob("probe_*")] == ["", ""]


def symlink_loops(framework: Path) -> None:
    (framework / "loop").symlink_to(".")
    (framework / "a.py").symlink_to("b.py")
    (framework / "b.py").symlink_to("a.py")


def test_links_in_the_submission_even_loops_are_ignored_and_named(chapter1_zip, open_folder, honest_score):
    for output in assert_honest(chapter1_zip, open_folder, honest_score, extra=symlink_loops)[:2]:
        assert "ignored: framework/loop (a link)" in output
        assert "ignored: framework/a.py (a link)" in output
