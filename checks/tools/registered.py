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

from checks.exercises import CHAPTERS
from checks.loader import ROOT


def id_problems(chapter: int, checks: list, probes: dict, mutants: list) -> list[str]:
    """What in one chapter's grader (`checks`, `probes`) and bug zoo the table does not know."""
    ch = CHAPTERS[chapter]
    known = {ex.id for ex in ch.exercises}
    where = f"checks/{ch.grader.split('.')[-1]}.py"
    problems = [f"{where}: @check({c.exercise!r}) on {c.name}, but chapter {chapter}'s table "
                f"has no exercise {c.exercise} (it would never run); use one of {sorted(known)}"
                for c in checks if c.exercise not in known]
    problems += [f"{where}: @probe({i!r}), but chapter {chapter}'s table has no exercise {i}"
                 for i in probes if i not in known]
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
        checks = [c for c in harness.CHECKS if c.function.__module__ == grader]
        probes = {i: p for i, p in harness.PROBES.items() if p.__module__ == grader}
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
    """{exercise id: the names of its checks} of one grader module, from its `@check` lines."""
    tree = ast.parse((ROOT / (grader.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
    found: dict[str, list[str]] = {}
    for node in tree.body:
        for d in getattr(node, "decorator_list", []) if isinstance(node, ast.FunctionDef) else []:
            if (isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "check"
                    and len(d.args) == 1 and isinstance(d.args[0], ast.Constant)):
                found.setdefault(d.args[0].value, []).append(node.name)
    return found
