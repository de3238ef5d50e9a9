"""Solution regions: `### BEGIN SOLUTION 2.3` … `### END SOLUTION` in framework source.

Stubbing, `use-reference`, the proof and the consistency check all go through
`find_regions` and `rewrite`, so they agree on what a region is.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from checks.exercises import exercise

BEGIN = re.compile(r"^(?P<indent>[ \t]*)### BEGIN SOLUTION (?P<id>\d+\.\d+)[ \t]*$")
END = re.compile(r"^[ \t]*### END SOLUTION[ \t]*$")


@dataclass(frozen=True)
class Region:
    exercise: str
    indent: str
    begin: int  # line index of the BEGIN marker
    end: int  # line index of the END marker


def find_regions(text: str, where: str = "<source>") -> list[Region]:
    regions, open_region = [], None
    for number, line in enumerate(text.splitlines()):
        begin = BEGIN.match(line)
        if begin:
            if open_region:
                raise ValueError(f"{where}:{number + 1}: BEGIN SOLUTION inside another region")
            open_region = (begin["id"], begin["indent"], number)
        elif END.match(line):
            if not open_region:
                raise ValueError(f"{where}:{number + 1}: END SOLUTION without BEGIN")
            regions.append(Region(*open_region, number))
            open_region = None
        elif "### BEGIN SOLUTION" in line or "### END SOLUTION" in line:
            raise ValueError(f"{where}:{number + 1}: malformed marker {line.strip()!r}")
    if open_region:
        raise ValueError(f"{where}: region {open_region[0]} is never closed")
    return regions


Transform = Callable[[Region, list[str]], list[str]]


def rewrite(text: str, transform: Transform, only: set[str] | None = None) -> str:
    """Replace the body of each region (of the exercises in `only`) by `transform`."""
    lines = text.splitlines()
    for region in reversed(find_regions(text)):
        if only is not None and region.exercise not in only:
            continue
        body = lines[region.begin + 1 : region.end]
        lines[region.begin + 1 : region.end] = transform(region, body)
    return "\n".join(lines) + "\n"


def stub(region: Region, body: list[str]) -> list[str]:
    message = exercise(region.exercise).stub_message()
    return [f'{region.indent}raise NotImplementedError("{message}")']


def randomize_outputs(region: Region, body: list[str]) -> list[str]:
    """The automatic mutant: every value the region returns or assigns, made random."""
    tree = ast.parse(textwrap.dedent("\n".join(body)))

    class Wrap(ast.NodeTransformer):
        def wrap(self, node: ast.stmt) -> ast.stmt:
            if node.value is not None:
                node.value = ast.Call(ast.Name("_randomized", ast.Load()), [node.value], [])
            return node

        visit_Return = visit_Assign = visit_AugAssign = wrap

        def visit_Lambda(self, node: ast.Lambda) -> ast.Lambda:
            return node

    tree = ast.fix_missing_locations(Wrap().visit(tree))
    code = "from checks.mutants.randomize import randomized as _randomized\n" + ast.unparse(tree)
    return textwrap.indent(code, region.indent).splitlines()


def region_bodies(text: str, exercise_id: str) -> list[list[str]]:
    lines = text.splitlines()
    return [
        lines[r.begin + 1 : r.end] for r in find_regions(text) if r.exercise == exercise_id
    ]


def python_files(package: Path) -> list[Path]:
    return sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts)
