"""The notebooks' inline checks: the check of an exercise uses only that exercise and earlier ones,
so a learner working in order never meets "not implemented" inside a check."""

import re

import nbformat
import pytest

from checks.loader import ROOT
from checks.tools.regions import find_regions, python_files

INLINE = re.compile(r"^# Inline check for (\d+\.\d+)")
DEF = re.compile(r"^(?P<indent>\s*)(?:def|class) (?P<name>\w+)")
RUN_BY_A_CALL = {"__init__", "__setattr__", "forward"}  # a class's methods that `Name(...)` runs


def key(exercise_id: str) -> tuple[int, int]:
    return tuple(int(part) for part in exercise_id.split("."))


def enclosing(lines: list[str], begin: int) -> str | None:
    """The function a region lies in, or its class where `Name(...)` runs that method."""
    found = (DEF.match(line) for line in reversed(lines[:begin]))
    inner = next(match for match in found if match)
    if not inner["indent"]:
        return inner["name"]
    outer = next(match for match in found if match and not match["indent"])
    return outer["name"] if inner["name"] in RUN_BY_A_CALL else None


def written_in() -> dict[str, str]:
    """Each function or class that a call runs solution code of → its one exercise."""
    owners: dict[str, set[str]] = {}
    for path in python_files(ROOT / "solutions" / "framework"):
        lines = path.read_text().splitlines()
        for region in find_regions("\n".join(lines), str(path)):
            name = enclosing(lines, region.begin)
            if name:
                owners.setdefault(name, set()).add(region.exercise)
    return {name: ids.pop() for name, ids in owners.items() if len(ids) == 1}


def inline_checks() -> list[tuple[str, str, str]]:
    found = []
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            match = INLINE.match(cell.source) if cell.cell_type == "code" else None
            if match:
                found.append((path.name, match[1], cell.source))
    return found


def test_every_chapter_with_exercises_has_inline_checks_to_look_at():
    assert len({book for book, _, _ in inline_checks()}) >= 4


@pytest.mark.parametrize("book, exercise_id, source", inline_checks(),
                         ids=lambda value: value if re.fullmatch(r"[\w.]+", str(value)) else "")
def test_an_inline_check_calls_nothing_of_a_later_exercise(book, exercise_id, source):
    later = {name: owner for name, owner in written_in().items() if key(owner) > key(exercise_id)}
    used = sorted(f"{name} ({owner})" for name, owner in later.items()
                  if re.search(rf"\b{name}\s*\(", source))
    assert not used, f"{book}: the inline check for {exercise_id} calls {', '.join(used)}"


def definitions(source: str) -> str:
    """The top-level functions and plain assignments of a cell: its helpers, without its prints."""
    import ast

    tree = ast.parse(source)
    kept = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.Assign))]
    return "\n".join(ast.get_source_segment(source, node) for node in kept)


def test_a_subtraction_node_of_its_own_passes_the_inline_check_for_1_3():
    """1.3's inline check tests values and gradients, not the op name: a `-` node of the
    learner's own (rule (g, -g)) passes it, as it passes the grader."""
    import math

    import numpy as np

    from checks.loader import load_framework

    fw = load_framework("solutions")

    class OwnSub(fw.Value):
        __slots__ = ()

        def __sub__(self, other):
            other = other if isinstance(other, fw.Value) else fw.Value(float(other))
            return fw.Value(self.data - other.data, (self, other), lambda g: (g, -g), "-")

    cells = [cell.source for cell in nbformat.read(ROOT / "solutions" / "01_autodiff.ipynb",
                                                   as_version=4).cells if cell.cell_type == "code"]
    helpers = [definitions(s) for s in cells if "def check_op" in s or "def path_gradient" in s]
    inline = next(s for s in cells if INLINE.match(s) and INLINE.match(s)[1] == "1.3")
    namespace = {"Value": OwnSub, "framework": fw, "math": math, "np": np,
                 "rng": np.random.default_rng(0)}
    for source in [*helpers, inline]:
        exec(source, namespace)
    assert (OwnSub(5.0) - OwnSub(2.0)).op == "-"
