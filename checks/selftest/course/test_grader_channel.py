"""The grader's verdict comes from its own channel, whatever the code under test does."""

import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from checks.exercises import CHAPTERS, exercise
from checks.loader import ROOT
from checks.tools.compare import values
from checks.tools.grade import score
from checks.tools.processes import received, run_exercise
from checks.tools.registered import registered_checks
from checks.tools.run_exercise import describe

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


def test_os_exit_inside_an_op_fails_its_checks_with_the_exit_code(tmp_path):
    """Chapter 1's code runs in a worker process: os._exit() ends it, not the grader."""
    find = "        a, b = self.data, other.data\n"
    impl = package(tmp_path, ROOT / "solutions" / "framework", find=find,
                   replace=find + "        import os; os._exit(0)\n")
    result = run_exercise("1.2", impl)
    assert result["status"] == "ok" and not any(c["passed"] for c in result["checks"])
    assert "code under test exited with code 0" in result["checks"][0]["message"]


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
    ran = [c for c in result["checks"] if not c.get("not_run")]
    assert not ran[-1]["passed"] and "KeyboardInterrupt" in ran[-1]["message"]
    assert not any(c["passed"] for c in result["checks"][len(ran):])


def test_a_keyboard_interrupt_in_the_probe_ends_the_run_with_a_report(tmp_path):
    find = "        c = math.exp(self.data)\n"
    impl = package(tmp_path, ROOT / "solutions" / "framework", find=find,
                   replace=find + "        raise KeyboardInterrupt\n")
    result = run_exercise("1.4", impl)
    assert result["status"] == "error" and "KeyboardInterrupt" in result["message"]
    assert result["checks"] == []


GOOD = {"exercise": "1.1", "status": "ok", "message": "",
        "checks": [{"name": name, "passed": True} for name in registered_checks("1.1")]}


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


REWRITE_AT_EXIT = '''
import atexit, json, sys


def _mark_every_check_passed():
    path = sys.argv[sys.argv.index("--report") + 1]
    with open(path) as file:
        report = json.load(file)
    report["result"]["status"] = "ok"
    for entry in report["result"]["checks"]:
        entry["passed"] = True
    with open(path, "w") as file:
        json.dump(report, file)


atexit.register(_mark_every_check_passed)
'''


def test_an_exit_handler_of_the_code_under_test_cannot_rewrite_the_written_report(tmp_path):
    impl = package(tmp_path, ROOT / "framework", file="__init__.py", replace=REWRITE_AT_EXIT)
    result = run_exercise("1.1", impl)
    assert result["status"] == "not_implemented"
    assert score(exercise("1.1"), result) == 0


def test_a_report_naming_a_check_the_grader_did_not_register_is_an_error():
    forged = {**GOOD, "checks": [{"name": "anything", "passed": True}]}
    result = received("1.1", json.dumps({"nonce": "abc", "result": forged}), "abc", 0, "")
    assert result["status"] == "error" and "not the grader's own" in result["message"]


def test_a_report_listing_a_check_twice_is_an_error():
    name = GOOD["checks"][0]["name"]
    forged = {**GOOD, "checks": [{"name": name, "passed": True}] * 2}
    result = received("1.1", json.dumps({"nonce": "abc", "result": forged}), "abc", 0, "")
    assert result["status"] == "error"


def test_checks_a_report_stops_before_count_as_not_passed():
    """A run stopped at its first failure (or by Ctrl-C) lists a prefix of the checks."""
    names = registered_checks("1.2")
    first = {**GOOD, "exercise": "1.2", "checks": [{"name": names[0], "passed": True}]}
    result = received("1.2", json.dumps({"nonce": "abc", "result": first}), "abc", 0, "")
    assert [c["name"] for c in result["checks"]] == names
    assert [c["passed"] for c in result["checks"]] == [True] + [False] * (len(names) - 1)
    assert score(exercise("1.2"), result) < exercise("1.2").points


def test_the_check_names_read_from_the_graders_source_are_the_checks_it_registers():
    from checks import harness
    from checks.exercises import CHAPTERS
    from checks.loader import load_framework

    load_framework("solutions")
    for ch in CHAPTERS.values():
        importlib.import_module(ch.grader)
        for ex in ch.exercises:
            assert registered_checks(ex.id) == [c.name for c in harness.CHECKS
                                                 if c.exercise == ex.id], ex.id


def test_a_process_killed_by_a_signal_is_named_by_its_signal_without_guessing():
    result = received("1.1", "", "abc", -11, "")
    assert "killed by signal 11 (SIGSEGV)" in result["message"]
    assert "memory" not in result["message"] and "exit()" not in result["message"]


def test_sigkill_inside_an_op_is_reported_as_sigkill(tmp_path):
    find = "        a, b = self.data, other.data\n"
    impl = package(tmp_path, ROOT / "solutions" / "framework", find=find,
                   replace=find + "        import os, signal; os.kill(os.getpid(), signal.SIGKILL)\n")
    result = run_exercise("1.2", impl)
    assert result["status"] == "ok" and not any(c["passed"] for c in result["checks"])
    assert "was killed by signal 9 (SIGKILL)" in result["checks"][0]["message"]


class UnprintableError(Exception):
    def __str__(self):
        raise RuntimeError("no message")


def test_an_exception_whose_str_raises_is_still_described():
    try:
        raise UnprintableError
    except UnprintableError as error:
        message = describe(error)
    assert "UnprintableError" in message


def test_a_grandchild_holding_the_output_pipes_does_not_turn_a_report_into_a_timeout(tmp_path):
    linger = ("\nimport subprocess as _s, sys as _y\n"
              "_s.Popen([_y.executable, '-c', 'import time; time.sleep(40)'])\n")
    impl = package(tmp_path, ROOT / "solutions" / "framework", replace=linger)
    result = run_exercise("1.1", impl, time_limit=20)
    assert result["status"] == "ok" and all(c["passed"] for c in result["checks"]), result


def test_compare_reads_the_values_from_the_report_not_from_what_the_code_prints(tmp_path):
    noise = "\nimport atexit\natexit.register(lambda: print('{not json'))\n"
    impl = package(tmp_path, ROOT / "solutions" / "framework", replace=noise)
    assert values(1, impl) == values(1, "solutions")


def test_compare_stops_an_endless_loop_at_the_time_limit(tmp_path):
    find = "        a, b = self.data, other.data\n"
    impl = package(tmp_path, ROOT / "solutions" / "framework", find=find,
                   replace=find + "        while True:\n            pass\n")
    shown = values(1, impl, time_limit=10)
    assert "no answer within 10 s" in shown["1.2"][""]
    assert shown["1.1"] == values(1, "solutions")["1.1"]


def test_ctrl_c_on_a_hung_grade_prints_the_table_so_far_and_exits_130(tmp_path):
    find = "        a, b = self.data, other.data\n"
    impl = package(tmp_path, ROOT / "solutions" / "framework", find=find,
                   replace=find + "        while True:\n            pass\n")
    env = {**os.environ, "IMPL": impl, "HYPOTHESIS_PROFILE": "proof"}
    grading = subprocess.Popen(
        [sys.executable, "-m", "checks.tools.grade", "1", "--json", str(tmp_path / "g.json")],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        # as from a terminal: a test run started in the background (`make test &`) inherits
        # SIGINT ignored, and Python then installs no KeyboardInterrupt handler
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(8)  # 1.2's checks hang; Ctrl-C reaches the grader alone, not its children
    grading.send_signal(signal.SIGINT)
    output, _ = grading.communicate(timeout=60)
    assert grading.returncode == 130, output
    assert "Traceback" not in output
    rows = {line.split()[0]: line for line in output.splitlines() if line.startswith("  1.")}
    assert len(rows) == len(CHAPTERS[1].exercises) and rows["1.2"].endswith("interrupted"), output
    assert "total" in output
