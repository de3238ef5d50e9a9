"""The bug zoo: hand-written mutants of the reference, one list per chapter.

Each mutant is a small edit whose `find` text occurs exactly once in its file;
the proof applies it to a temporary copy of the reference and requires a check
of the mutant's own exercise to fail.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    exercise: str
    name: str
    file: str
    find: str
    replace: str


def hand_written(chapter: int) -> list[Mutant]:
    """Chapter `chapter`'s mutants (checks/mutants/chapter<N>.py), or [] if it has none."""
    try:
        module = importlib.import_module(f"checks.mutants.chapter{chapter}")
    except ModuleNotFoundError:
        return []
    return module.MUTANTS
