"""The judge never shares a process with the code it grades (chapters with `Chapter.worker`).

Each test grades a malicious `framework/`: the stubs, or the reference with one bug (mul's
gradients swapped, exercise 1.2), plus an attack in `framework/__init__.py`. The attacks
worked while the checks and the learner's code shared a process; now the stubs still score 0
and the one-bug package its honest score.
"""

import json
import subprocess
import sys

import pytest

from checks.exercises import CHAPTERS, exercise
from checks.loader import ROOT
from checks.selftest.course.test_grader_channel import package
from checks.tools.grade import score
from checks.tools.processes import run_exercise

STUBS = ROOT / "framework"
SOLUTIONS = ROOT / "solutions" / "framework"
MUL_SWAPPED = ('lambda g: (g * b, g * a), "*"', 'lambda g: (g * a, g * b), "*"')

# Walk the stack up to run_exercise.main, take its nonce and report path, write a report
# where every check passed, and end the process before the checks run.
STACK_WALK = '''
def _forge():
    import json, os, sys
    frame = sys._getframe()
    while frame is not None:
        names = frame.f_locals
        if frame.f_code.co_name == "main" and "nonce" in names and "args" in names:
            from checks.tools.registered import registered_checks
            exercise = names["args"].exercise
            checks = [{"name": n, "passed": True} for n in registered_checks(exercise)]
            with open(names["args"].report, "w") as file:
                json.dump({"nonce": names["nonce"], "result": {
                    "exercise": exercise, "status": "ok", "checks": checks, "message": ""}}, file)
            os._exit(0)
        frame = frame.f_back
_forge()
'''

# Make every comparison pass: NumPy's, hypothesis's examples, the harness's own.
PATCHES = '''
def _patch():
    import numpy, numpy.testing
    numpy.allclose = lambda *args, **kwargs: True
    numpy.isclose = lambda a, b, *args, **kwargs: numpy.ones(numpy.broadcast(a, b).shape, bool)
    numpy.testing.assert_allclose = lambda *args, **kwargs: None
    import hypothesis
    hypothesis.given = lambda *args, **kwargs: (lambda test: (lambda *a, **k: None))
    import checks.harness
    checks.harness.assert_close = lambda *args, **kwargs: None
_patch()
'''

# Print a report of all checks passed, at import and at exit.
PRINTED = '''
def _print():
    import atexit, json, sys
    from checks.tools.registered import registered_checks
    report = {"exercise": "1.2", "status": "ok", "message": "",
              "checks": [{"name": n, "passed": True} for n in registered_checks("1.2")]}
    line = "\\n" + json.dumps(report) + "\\n"
    sys.stdout.write(line)
    atexit.register(sys.stdout.write, line)
_print()
'''

ATTACKS = {"stack walk": STACK_WALK, "patches": PATCHES, "printed report": PRINTED}


def attacked(tmp_path, source, attack: str, find: str = "", replace: str = "") -> str:
    """A copy of `source` (with `find` replaced in autodiff.py) and `attack` in __init__.py."""
    impl = package(tmp_path, source, "autodiff.py", find, replace)
    init = tmp_path / "framework" / "__init__.py"
    init.write_text(init.read_text() + attack)
    return impl


def points(exercise_id: str, impl: str) -> tuple[int, list]:
    result = run_exercise(exercise_id, impl, "proof")
    return score(exercise(exercise_id), result), [c["passed"] for c in result["checks"]]


def test_chapter_1_is_graded_apart_from_its_code():
    assert CHAPTERS[1].worker


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_an_attack_leaves_the_stubs_at_zero(tmp_path, name):
    impl = attacked(tmp_path, STUBS, ATTACKS[name])
    assert points("1.2", impl)[0] == 0


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_an_attack_leaves_a_one_bug_package_at_its_honest_score(tmp_path, name):
    honest = points("1.2", package(tmp_path / "honest", SOLUTIONS, "autodiff.py", *MUL_SWAPPED))
    assert 0 < honest[0] < exercise("1.2").points
    impl = attacked(tmp_path / "attacked", SOLUTIONS, ATTACKS[name], *MUL_SWAPPED)
    assert points("1.2", impl) == honest


def test_the_worker_holds_no_nonce_report_path_check_or_hypothesis(tmp_path):
    seen = tmp_path / "seen.json"
    spy = f'''
def _spy():
    import json, os, sys
    with open("/proc/self/cmdline", "rb") as file:
        command = file.read().decode(errors="replace")
    json.dump({{"argv": sys.argv, "command": command, "environment": dict(os.environ),
               "modules": sorted(sys.modules)}}, open({str(seen)!r}, "w"))
_spy()
'''
    impl = attacked(tmp_path, SOLUTIONS, spy)
    result = run_exercise("1.2", impl, "proof")
    assert score(exercise("1.2"), result) == exercise("1.2").points
    found = json.loads(seen.read_text())
    assert "--report" not in found["command"] and "report" not in " ".join(found["argv"])
    assert not [k for k in found["environment"] if k.startswith("HYPOTHESIS")]
    assert not [m for m in found["modules"] if m.split(".")[0] == "hypothesis"
                or m.startswith(("checks.chapter", "checks.harness", "checks.tools"))]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_the_judge_closes_its_memory_to_the_worker_before_starting_it():
    """Non-dumpable: another process of the same user cannot read its /proc/<pid>/mem."""
    code = ("import ctypes; from checks import remote; remote.undumpable(); "
            "print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))")  # PR_GET_DUMPABLE
    shown = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                           text=True, check=True)
    assert shown.stdout.strip() == "0"
