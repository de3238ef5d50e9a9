"""Every `@check`, `@probe` and mutant names an exercise of its own chapter's table.

A check registered as `@check("2.30")` would never run, and a mutant of an exercise
that is not in its chapter would never be applied: `make student --check`, the
consistency stage of `make test`, reports both.
"""

from __future__ import annotations

import ast
import functools
import importlib
import os
import threading
from pathlib import Path

from checks.exercises import CHAPTERS
from checks.loader import ROOT


def source_of(module: str) -> Path:
    """The file of a module of this repository: `a/b.py`, or `a/b/__init__.py` for a package."""
    path = ROOT / module.replace(".", "/")
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def shown(module: str) -> str:
    """Where a module is, as a problem names it: its file, or a package's folder."""
    path = source_of(module)
    if path.name == "__init__.py":
        return path.parent.relative_to(ROOT).as_posix() + "/"
    return path.relative_to(ROOT).as_posix()


def of_grader(module: str, grader: str) -> bool:
    """Whether `module` is the grader module or one of the parts of a grader package."""
    return module == grader or module.startswith(grader + ".")


def id_problems(chapter: int, checks: list, probes: dict, mutants: list) -> list[str]:
    """What in one chapter's grader (`checks`, `probes`) and bug zoo the table does not know."""
    ch = CHAPTERS[chapter]
    known = {ex.id for ex in ch.exercises}
    where = shown(ch.grader)
    problems = [f"{shown(c.function.__module__)}: @check({c.exercise!r}) on {c.name}, but chapter "
                f"{chapter}'s table has no exercise {c.exercise} (it would never run); use one of "
                f"{sorted(known)}" for c in checks if c.exercise not in known]
    problems += [f"{shown(p.__module__)}: @probe({i!r}), but chapter {chapter}'s table has no "
                 f"exercise {i}" for i, p in probes.items() if i not in known]
    problems += [f"checks/mutants/chapter{chapter}.py: mutant {m.name!r} of exercise "
                 f"{m.exercise!r}, which chapter {chapter}'s table does not have"
                 for m in mutants if m.exercise not in known]
    for ex in ch.exercises:
        if ex.id not in probes:
            problems.append(f"{where}: exercise {ex.id} has no @probe({ex.id!r})")
        if not any(c.exercise == ex.id for c in checks):
            problems.append(f"{where}: exercise {ex.id} has no @check({ex.id!r})")
    return problems


def problems() -> list[str]:
    """`id_problems` of every chapter in the course, its grader imported on the reference."""
    from checks import harness
    from checks.mutants import hand_written

    # the graders build some inputs at import, which the learner's stubs cannot
    impl, os.environ["IMPL"] = os.environ.get("IMPL"), "solutions"
    try:
        graders = {n: ch.grader for n, ch in CHAPTERS.items() if ch.in_course}
        for grader in graders.values():
            importlib.import_module(grader)
    finally:
        if impl is None:
            del os.environ["IMPL"]
        else:
            os.environ["IMPL"] = impl
    found = []
    for number, grader in graders.items():
        checks = [c for c in harness.CHECKS if of_grader(c.function.__module__, grader)]
        probes = {i: p for i, p in harness.PROBES.items() if of_grader(p.__module__, grader)}
        found += id_problems(number, checks, probes, hand_written(number))
    return found


def registered_checks(exercise_id: str) -> list[str]:
    """The names of the checks an exercise's grader registers, in order, read from its source.

    The grading process reads them without importing the grader, which would import the
    code under test: a report that names other checks is not the grader's own.
    """
    grader = CHAPTERS[int(exercise_id.split(".")[0])].grader
    with _parsing:  # ast.parse is not thread-safe on some Pythons (3.11.7: SystemError)
        return list(_checks_in(grader).get(exercise_id, []))


_parsing = threading.Lock()


@functools.cache
def _checks_in(grader: str) -> dict[str, list[str]]:
    """{exercise id: the names of its checks} of one grader, from its `@check` lines.

    A grader package's parts are read where its modules import them, the order in which
    Python runs them and so registers their checks.
    """
    found: dict[str, list[str]] = {}
    read: set[str] = set()

    def read_module(module: str) -> None:
        read.add(module)
        tree = ast.parse(source_of(module).read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and of_grader(node.module, grader):
                for name in (node.module, *(f"{node.module}.{a.name}" for a in node.names)):
                    if name not in read and source_of(name).is_file():
                        read_module(name)
            for d in node.decorator_list if isinstance(node, ast.FunctionDef) else []:
                if (isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "check"
                        and len(d.args) == 1 and isinstance(d.args[0], ast.Constant)):
                    found.setdefault(d.args[0].value, []).append(node.name)

    read_module(grader)
    return found
