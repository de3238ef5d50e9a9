"""The bug zoo: hand-written mutants of the reference, one list per chapter.

A mutant is addressed by its exercise, never by file: `find` must occur exactly once in
the bodies of that exercise's solution regions (wherever they live), and is replaced by
`replace`. With `find=WHOLE_REGION` the whole body of one region is replaced: the region
inside the function named by `within` (a qualified name, "Value.receive_grad"), needed
only when the exercise has several regions. Moving a region to another file, or editing
the code around it, leaves every mutant valid. The
proof applies each mutant to a temporary copy of the reference and requires a check of the
mutant's own exercise to fail; `checks/alternatives/` uses the same edits for correct answers.
"""

from __future__ import annotations

import ast
import importlib
import textwrap
from dataclasses import dataclass
from pathlib import Path

from checks.tools.regions import find_regions, python_files

WHOLE_REGION = ""


@dataclass(frozen=True)
class Mutant:
    exercise: str
    name: str
    find: str
    replace: str
    within: str = ""

    def apply(self, package: Path) -> None:
        """Edit the framework copy at `package` in place: `find` → `replace` in this exercise's regions."""
        hits = [(path, region, body) for path, region, body in _regions(package, self.exercise)
                if self.find in body and self.within in ("", _enclosing(path, region))]
        if self.find == WHOLE_REGION and len(hits) != 1:
            raise ValueError(f"{self.exercise} {self.name!r}: {len(hits)} regions match; a "
                             "whole-region edit needs one (name it with `within`)")
        count = sum(body.count(self.find) for *_, body in hits) if self.find else 1
        if count != 1:
            raise ValueError(f"{self.exercise} {self.name!r}: its text occurs {count} times in "
                             f"the regions of exercise {self.exercise}, not once")
        path, region, body = hits[0]
        new_body = (textwrap.indent(textwrap.dedent(self.replace), region.indent)
                    if self.find == WHOLE_REGION else body.replace(self.find, self.replace))
        lines = path.read_text().splitlines(keepends=True)
        lines[region.begin + 1 : region.end] = [new_body]
        path.write_text("".join(lines))


def _regions(package: Path, exercise_id: str):
    """(file, region, body text) of each region of `exercise_id` under `package`."""
    for path in python_files(package):
        text = path.read_text()
        lines = text.splitlines(keepends=True)
        for region in find_regions(text, str(path)):
            if region.exercise == exercise_id:
                yield path, region, "".join(lines[region.begin + 1 : region.end])


def _enclosing(path: Path, region) -> str:
    """The qualified name of the innermost function or class around the region's marker."""
    names, line = [], region.begin + 1

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and (
                    child.lineno <= line <= child.end_lineno):
                names.append(prefix + child.name)
                visit(child, prefix + child.name + ".")

    visit(ast.parse(path.read_text()), "")
    return names[-1] if names else ""


def hand_written(chapter: int) -> list[Mutant]:
    """Chapter `chapter`'s mutants (checks/mutants/chapter<N>.py), or [] if it has none."""
    try:
        module = importlib.import_module(f"checks.mutants.chapter{chapter}")
    except ModuleNotFoundError:
        return []
    return module.MUTANTS
