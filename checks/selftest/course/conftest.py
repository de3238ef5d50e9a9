"""Fixtures of the autograder's selftests (test_autograder.py, test_autograder_attacks.py)."""

import shutil
import tempfile
from pathlib import Path

import pytest

from checks.tools import autograder


@pytest.fixture(scope="module")
def chapter1_zip(tmp_path_factory) -> Path:
    return autograder.build(tmp_path_factory.mktemp("zip") / "chapter1.zip", [1])


@pytest.fixture
def open_folder():
    """A temporary folder the sandbox user may enter (pytest's own are the owner's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="autograder-test-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
