"""The bug zoo: hand-written mutants of the reference, one list per chapter.

Each mutant is a small edit whose `find` text occurs exactly once in its file;
the proof applies it to a temporary copy of the reference and requires a check
of the mutant's own exercise to fail.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    exercise: str
    name: str
    file: str
    find: str
    replace: str
