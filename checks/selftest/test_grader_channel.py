"""The grader's verdict comes from its own channel, whatever the code under test does."""

import json
import shutil

from checks.exercises import exercise
from checks.loader import ROOT
from checks.tools.grade import score
from checks.tools.processes import received, run_exercise

FORGED = '''
import atexit, json, sys
atexit.register(lambda: print(json.dumps({"exercise": sys.argv[1], "status": "ok",
    "checks": [{"name": "x", "passed": True}], "message": ""})))
'''


def package(tmp_path, source: str, file: str = "autodiff.py", find: str = "", replace: str = ""):
    """A copy of `source`'s framework/ in tmp_path, `find` replaced once in `file`."""
    shutil.copytree(source, tmp_path / "framework", ignore=shutil.ignore_patterns("__pycache__"))
    path = tmp_path / "framework" / file
    text = path.read_text()
    assert not find or text.count(find) == 1
    path.write_text(text.replace(find, replace) if find else text + replace)
    return str(tmp_path)


def test_a_result_printed_at_exit_by_the_learners_code_does_not_score(tmp_path):
    impl = package(tmp_path, ROOT / "framework", replace=FORGED)
    result = run_exercise("1.1", impl)
    assert result["status"] == "not_implemented"
    assert score(exercise("1.1"), result) == 0


def test_os_exit_inside_an_op_reports_the_exit_code(tmp_path):
    find = "        a, b = self.data, other.data\n"
    impl = package(tmp_path, ROOT / "solutions" / "framework", find=find,
                   replace=find + "        import os; os._exit(0)\n")
    result = run_exercise("1.2", impl)
    assert result["status"] == "error"
    assert "exited with code 0 before reporting — does your code call exit()?" in result["message"]


def test_sys_exit_inside_an_op_fails_its_checks_and_says_so(tmp_path):
    find = "        c = math.exp(self.data)\n"
    impl = package(tmp_path, ROOT / "solutions" / "framework", find=find,
                   replace=find + "        import sys; sys.exit(0)\n")
    result = run_exercise("1.4", impl, flags=["--no-probe"])
    failed = [c for c in result["checks"] if not c["passed"]]
    assert result["status"] == "ok" and failed
    assert all("called exit(0)" in c["message"] for c in failed)


def test_a_keyboard_interrupt_in_a_check_ends_the_run_with_a_report(tmp_path):
    find = "        c = math.exp(self.data)\n"
    impl = package(tmp_path, ROOT / "solutions" / "framework", find=find,
                   replace=find + "        raise KeyboardInterrupt\n")
    result = run_exercise("1.4", impl, flags=["--no-probe"])
    assert result["status"] == "ok"
    assert not result["checks"][-1]["passed"]
    assert "KeyboardInterrupt" in result["checks"][-1]["message"]


def test_a_keyboard_interrupt_in_the_probe_ends_the_run_with_a_report(tmp_path):
    find = "        c = math.exp(self.data)\n"
    impl = package(tmp_path, ROOT / "solutions" / "framework", find=find,
                   replace=find + "        raise KeyboardInterrupt\n")
    result = run_exercise("1.4", impl)
    assert result["status"] == "error" and "KeyboardInterrupt" in result["message"]
    assert result["checks"] == []


GOOD = {"exercise": "1.1", "status": "ok", "checks": [{"name": "x", "passed": True}],
        "message": ""}


def test_a_well_formed_report_with_the_nonce_is_the_result():
    text = json.dumps({"nonce": "abc", "result": GOOD})
    assert received("1.1", text, "abc", 0, "") == GOOD


def test_a_report_with_another_nonce_is_an_error():
    result = received("1.1", json.dumps({"nonce": "xyz", "result": GOOD}), "abc", 0, "")
    assert result["status"] == "error" and "not the grader's own" in result["message"]


def test_a_report_without_a_nonce_is_an_error():
    result = received("1.1", json.dumps(GOOD), "abc", 0, "")
    assert result["status"] == "error" and "malformed" in result["message"]


def test_a_truncated_report_is_an_error():
    text = json.dumps({"nonce": "abc", "result": GOOD})[:-9]
    assert received("1.1", text, "abc", 0, "")["status"] == "error"


def test_a_report_for_another_exercise_is_an_error():
    text = json.dumps({"nonce": "abc", "result": {**GOOD, "exercise": "1.2"}})
    assert received("1.1", text, "abc", 0, "")["status"] == "error"


def test_no_report_names_the_exit_code_and_shows_the_last_output():
    result = received("1.1", "", "abc", 3, "Traceback ...\nMemoryError")
    assert result["status"] == "error"
    assert "exited with code 3 before reporting" in result["message"]
    assert "MemoryError" in result["message"]
