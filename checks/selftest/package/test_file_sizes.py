"""No Python file of the package, reference or learner's, is over 500 lines: a file a learner
opens shows one part of the course, not the whole of a chapter's machinery."""

import pytest

from checks.loader import ROOT

LIMIT = 500
FILES = sorted(path for folder in ("solutions/framework", "framework")
               for path in (ROOT / folder).rglob("*.py"))


def test_the_package_files_are_found():
    names = {path.relative_to(ROOT).as_posix() for path in FILES}
    assert {"solutions/framework/tensor.py", "framework/tensor.py"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_file_of_the_package_is_over_500_lines(path):
    lines = len(path.read_text().splitlines())
    assert lines <= LIMIT, (f"{path.relative_to(ROOT)} has {lines} lines (limit {LIMIT}): split it "
                            "along its seams")
