"""The learner's package as a house: the chapters' rooms in front, two wings for the rest.

The top level of `framework/` holds the files a chapter's exercises are written in, the
package faces PyTorch users import (`__init__.py`, `utils/`), and two wings: `bonus/`, each
chapter's optional exercises in one file named as its grader (`bonus/chapter4_optimizers.py`),
and `provided/`, what the course gives and does not teach. The moved files' old module paths
still import, as the same module objects.
"""

import importlib
import subprocess
import sys

import pytest

from checks.exercises import EXERCISES
from checks.loader import ROOT
from checks.tools.regions import find_regions

#: Top-level entries that hold no graded exercise and may stay: the package's faces.
FACES = {"__init__.py", "utils"}
WINGS = {"bonus", "provided"}
PACKAGES = [ROOT / "solutions" / "framework", ROOT / "framework"]
BONUS_IDS = {ex.id for ex in EXERCISES if ex.bonus}


def region_ids(path) -> set[str]:
    return {region.exercise for region in find_regions(path.read_text(), str(path))}


def graded_ids(entry) -> set[str]:
    """The graded (non-bonus) exercises written in a top-level file or folder."""
    files = [entry] if entry.is_file() else entry.rglob("*.py")
    return {i for path in files if path.suffix == ".py" for i in region_ids(path)} - BONUS_IDS


def top_level(package) -> list:
    return sorted(p for p in package.iterdir() if p.name != "__pycache__" and not p.name.startswith("."))


def test_the_regions_are_read():
    assert graded_ids(PACKAGES[0] / "autodiff.py") >= {"1.1", "1.7"}
    assert graded_ids(PACKAGES[0] / "provided") == set()


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_top_level_entry_is_a_chapter_room_a_face_or_a_wing(package):
    strays = [p.name for p in top_level(package)
              if p.name not in FACES | WINGS and not graded_ids(p)]
    assert not strays, (f"{package.relative_to(ROOT)} holds {strays} at its top level, with no "
                        "graded exercise: move each into provided/ (or bonus/), and keep its "
                        "old module path in framework/__init__.py's MOVED")


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_there_are_two_wings_and_no_other_folder(package):
    folders = {p.name for p in top_level(package) if p.is_dir()}
    assert folders == WINGS | {"nn", "utils"}


def test_the_provided_wing_holds_no_exercise():
    found = {path.relative_to(PACKAGES[0]).as_posix(): region_ids(path)
             for path in (PACKAGES[0] / "provided").rglob("*.py") if region_ids(path)}
    assert not found, f"exercises in provided/: {found}"


def test_each_bonus_file_holds_its_chapters_bonus_exercises_and_nothing_else():
    bonus = PACKAGES[0] / "bonus"
    for ex in EXERCISES:
        if ex.bonus:
            assert all(name.startswith(f"bonus/chapter{ex.chapter}_") for name in ex.files), ex.id
    for path in bonus.glob("chapter*.py"):
        chapter = path.name.removeprefix("chapter").split("_")[0]
        ids = region_ids(path)
        assert ids and ids <= BONUS_IDS and {i.split(".")[0] for i in ids} == {chapter}, path.name
    for path in sorted(PACKAGES[0].rglob("*.py")):
        if path.parent != bonus:
            assert not region_ids(path) & BONUS_IDS, f"a bonus exercise outside bonus/: {path}"


OLD_PATHS = """
import importlib, sys
sys.path.insert(0, sys.argv[1])
import framework
for old, new in framework.MOVED.items():
    before = importlib.import_module(f"framework.{old}")
    after = importlib.import_module(f"framework.{new}")
    assert before is after, (old, before, after)
    assert sys.modules[f"framework.{old}"] is after and after.__spec__.name == f"framework.{new}"
assert framework.viz is framework.provided.viz and framework.autograd.Function
from framework.nn.smooth import softplus
from framework.bonus.chapter3_primitives import softplus as same
assert softplus is same
"""


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_old_module_path_imports_the_moved_module_itself(package):
    done = subprocess.run([sys.executable, "-c", OLD_PATHS, str(package.parent)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_an_old_path_that_never_existed_is_still_not_found():
    framework = importlib.import_module("framework")
    assert "no_such_module" not in framework.MOVED
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("framework.no_such_module")
