"""One file that does not import sinks only the exercises that need it, and is named once."""

import os
import subprocess
import sys

from checks.loader import ROOT
from checks.selftest.course.test_grader_channel import package
from checks.tools.processes import run_exercise

SOLUTIONS = ROOT / "solutions" / "framework"
# inside exercise 4.1's region of optim.py: a learner halfway through chapter 4
HALF_WRITTEN = ("        ### BEGIN SOLUTION 4.1\n        weight_decay",
                "        ### BEGIN SOLUTION 4.1\n        x = (\n        weight_decay")


def grade(impl: str, chapter: int, tmp_path) -> subprocess.CompletedProcess:
    env = {**os.environ, "IMPL": impl, "HYPOTHESIS_PROFILE": "proof"}
    return subprocess.run(
        [sys.executable, "-m", "checks.tools.grade", str(chapter), "--json",
         str(tmp_path / "grades.json")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def syntax_error_line(impl: str) -> int:
    text = (ROOT / impl / "framework" / "optim.py").read_text()
    return text.splitlines().index("        x = (") + 1


def test_a_syntax_error_in_optim_leaves_chapter_1_at_full_marks(tmp_path):
    impl = package(tmp_path, SOLUTIONS, "optim.py", *HALF_WRITTEN)
    done = grade(impl, 1, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "100/100" in done.stdout and "optim.py" not in done.stdout


def test_a_file_that_does_not_import_is_named_once_and_blocks_its_exercises(tmp_path):
    impl = package(tmp_path, SOLUTIONS, "optim.py", *HALF_WRITTEN)
    done = grade(impl, 4, tmp_path)
    line = syntax_error_line(impl)
    assert done.returncode == 1
    assert done.stdout.count(f"framework/optim.py, line {line}") == 1, done.stdout
    rows = {r.split()[0]: r for r in done.stdout.splitlines() if r.strip().startswith("4.")}
    assert sorted(rows) == [f"4.{n}" for n in range(1, 10)], rows
    blocked = {ex for ex, r in rows.items()
               if f"blocked by framework/optim.py: SyntaxError line {line}" in r}
    # the schedule (4.6) lives in lr_scheduler.py; the bonus track (4.7-4.9) in
    # bonus/chapter4_optimizers.py builds on the provided Optimizer, not on optim.py
    assert blocked == {"4.1", "4.2", "4.3", "4.4", "4.5"}, rows
    assert "15/15" in rows["4.6"] and all("pass" in rows[b] for b in ("4.7", "4.8", "4.9")), rows


def test_exit_at_import_of_a_chapter_5_file_blocks_chapter_5_not_chapter_3(tmp_path):
    impl = package(tmp_path, SOLUTIONS, "nn/transformer.py",
                   "import copy\n", "import copy\nimport sys\nsys.exit()\n")
    blocked = run_exercise("5.1", impl, "proof")
    assert blocked["status"] == "import_error", blocked
    assert blocked["import_error"]["file"] == "framework/nn/transformer.py"
    assert blocked["import_error"]["error"].startswith("SystemExit")
    graded = run_exercise("3.6", impl, "proof")
    assert graded["status"] == "ok" and all(c["passed"] for c in graded["checks"]), graded


def test_an_exception_at_import_names_the_file_and_line_where_it_was_raised(tmp_path):
    impl = package(tmp_path, SOLUTIONS, "tensor.py", replace="\nraise ValueError('half done')\n")
    blocked = run_exercise("3.1", impl, "proof")
    assert blocked["status"] == "import_error", blocked
    where = blocked["import_error"]
    assert where["file"] == "framework/tensor.py" and where["error"] == "ValueError: half done"
    text = (tmp_path / "framework" / "tensor.py").read_text().splitlines()
    assert text[where["line"] - 1] == "raise ValueError('half done')"


IMPORTS_WITH_A_BROKEN_OPTIM = """
import framework
from framework import Tensor, Value, tensor
assert framework.nn.Linear is framework.nn.modules.Linear
assert callable(framework.tensor) and framework.tensor is tensor
assert float(framework.tensor([2.0]).sum().data) == 2.0
try:
    framework.optim
except SyntaxError as error:
    print("optim:", type(error).__name__)
"""


def test_the_package_imports_while_one_of_its_files_does_not(tmp_path):
    impl = package(tmp_path, SOLUTIONS, "optim.py", *HALF_WRITTEN)
    done = subprocess.run([sys.executable, "-c", IMPORTS_WITH_A_BROKEN_OPTIM], cwd=impl,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "optim: SyntaxError"


def test_a_syntax_error_in_conv_blocks_chapter_6_not_chapter_3(tmp_path):
    """nn/functional.py and nn/modules.py read chapter 6's conv.py only when a conv op is used."""
    impl = package(tmp_path, SOLUTIONS, "nn/conv.py", replace="\ny = [\n")
    blocked = run_exercise("6.1", impl, "proof")
    assert blocked["status"] == "import_error", blocked
    assert blocked["import_error"]["file"] == "framework/nn/conv.py"
    for exercise_id in ("3.2", "3.3"):
        graded = run_exercise(exercise_id, impl, "proof")
        assert graded["status"] == "ok" and all(c["passed"] for c in graded["checks"]), graded
