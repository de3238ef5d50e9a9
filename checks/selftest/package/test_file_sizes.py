"""No Python file of the package, reference or learner's, is over 500 lines: a file a learner
opens shows one part of the course, not the whole of a chapter's machinery. No grader file is
over 800 lines: a grader too long to read whole is a package, one module per exercise group."""

import pytest

from checks.loader import ROOT

LIMIT = 500
FILES = sorted(path for folder in ("solutions/framework", "framework")
               for path in (ROOT / folder).rglob("*.py"))
GRADER_LIMIT = 800
GRADERS = sorted(path for path in (ROOT / "checks").rglob("*.py")
                 if path.relative_to(ROOT / "checks").parts[0].startswith("chapter"))


def test_the_package_files_are_found():
    names = {path.relative_to(ROOT).as_posix() for path in FILES}
    assert {"solutions/framework/tensor.py", "framework/tensor.py"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_file_of_the_package_is_over_500_lines(path):
    lines = len(path.read_text().splitlines())
    assert lines <= LIMIT, (f"{path.relative_to(ROOT)} has {lines} lines (limit {LIMIT}): split it "
                            "along its seams")


def test_the_grader_files_are_found():
    names = {path.relative_to(ROOT).as_posix() for path in GRADERS}
    assert {"checks/chapter1_autodiff.py", "checks/chapter2_tensor/__init__.py",
            "checks/chapter2_tensor/common.py"} <= names
    assert not [name for name in names if name.startswith(("checks/mutants/", "checks/selftest/"))]


@pytest.mark.parametrize("path", GRADERS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_grader_file_is_over_800_lines(path):
    lines = len(path.read_text().splitlines())
    assert lines <= GRADER_LIMIT, (
        f"{path.relative_to(ROOT)} has {lines} lines (limit {GRADER_LIMIT}): make the grader a "
        "package, one module per exercise group, what they share in its common.py"
    )
