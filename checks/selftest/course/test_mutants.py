"""The bug zoo and the alternatives are addressed by exercise region, never by file."""

import shutil
from pathlib import Path

import pytest

from checks.mutants import WHOLE_REGION, Mutant, hand_written
from checks.tools.student import REFERENCE

TWO_REGIONS = '''\
def forward(x):
    ### BEGIN SOLUTION 9.1
    return x + 1
    ### END SOLUTION


class Node:
    def backward(self, g):
        ### BEGIN SOLUTION 9.1
        return g
        ### END SOLUTION


SHARED = "return x + 1"
'''


def package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "framework"
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize("chapter", range(1, 9))
def test_every_mutant_of_a_chapter_applies_to_the_reference(chapter, tmp_path):
    """Each mutant's text occurs exactly once in the regions of its own exercise."""
    for mutant in hand_written(chapter):
        copy = tmp_path / mutant.name.replace("/", "_")
        shutil.copytree(REFERENCE, copy)
        mutant.apply(copy)


def test_a_mutant_follows_its_region_into_another_file(tmp_path):
    """Moving the region's code to another file leaves the mutant valid."""
    root = package(tmp_path, {"ops.py": "", "moved.py": TWO_REGIONS})
    Mutant("9.1", "off by one", "x + 1", "x + 2").apply(root)
    assert "return x + 2" in (root / "moved.py").read_text()


def test_text_outside_the_exercises_regions_is_not_matched(tmp_path):
    """`SHARED = "return x + 1"` lies outside the regions: only the region's copy counts."""
    root = package(tmp_path, {"a.py": TWO_REGIONS})
    Mutant("9.1", "off by one", "return x + 1", "return x + 2").apply(root)
    assert (root / "a.py").read_text().count("return x + 1") == 1


def test_a_mutant_whose_text_is_not_in_its_regions_is_refused(tmp_path):
    root = package(tmp_path, {"a.py": TWO_REGIONS})
    with pytest.raises(ValueError, match="occurs 0 times in the regions of exercise 9.1"):
        Mutant("9.1", "wrong exercise", "SHARED", "OTHER").apply(root)


def test_a_whole_region_edit_replaces_the_region_named_by_within(tmp_path):
    root = package(tmp_path, {"a.py": TWO_REGIONS})
    Mutant("9.1", "zero gradient", WHOLE_REGION, "return 0 * g\n",
           within="Node.backward").apply(root)
    text = (root / "a.py").read_text()
    assert "        return 0 * g\n" in text and "    return x + 1\n" in text


def test_a_whole_region_edit_of_an_exercise_with_several_regions_needs_within(tmp_path):
    root = package(tmp_path, {"a.py": TWO_REGIONS})
    with pytest.raises(ValueError, match="2 regions match"):
        Mutant("9.1", "ambiguous", WHOLE_REGION, "return 0\n").apply(root)
