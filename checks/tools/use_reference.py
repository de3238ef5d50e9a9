"""Stuck, or starting later? Put the reference solution of exercises into your framework/.

    python -m checks.tools.use_reference 2.3      # one exercise  (make use-reference EX=2.3)
    python -m checks.tools.use_reference 3        # a chapter     (make use-reference CHAPTER=3)
    python -m checks.tools.use_reference 1-5      # chapters 1 to 5, to start at chapter 6

Your files are backed up first to .backup/<time>/, then every region of those
exercises in framework/ is replaced by the reference's; the rest of your code stays.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from checks.exercises import Exercise, chapter, exercise
from checks.loader import ROOT
from checks.tools.regions import find_regions, region_bodies
from checks.tools.student import LEARNER, REFERENCE


def insert_reference(learner_text: str, reference_text: str, exercise_id: str, where: str) -> str:
    bodies = region_bodies(reference_text, exercise_id)
    regions = [r for r in find_regions(learner_text, where) if r.exercise == exercise_id]
    if len(regions) != len(bodies):
        raise SystemExit(
            f"{where}: {len(regions)} region(s) marked '### BEGIN SOLUTION {exercise_id}', "
            f"the reference has {len(bodies)}; restore the markers (see solutions/framework/{where})"
        )
    lines = learner_text.splitlines()
    for region, body in reversed(list(zip(regions, bodies))):
        lines[region.begin + 1 : region.end] = body
    return "\n".join(lines) + "\n"


def selected(what: str) -> list[Exercise]:
    """The exercises `what` names: an exercise id (2.3), a chapter (3) or chapters (1-5)."""
    if "." in what:
        return [exercise(what)]
    first, _, last = what.partition("-")
    try:
        numbers = range(int(first), int(last or first) + 1)
    except ValueError:
        raise SystemExit(
            f"{what!r} is not an exercise (2.3), a chapter (3) or a range of chapters (1-5)"
        ) from None
    if not numbers:
        raise SystemExit(f"{what!r}: the range is empty; write the lower chapter first (1-5)")
    return [ex for number in numbers for ex in chapter(number).exercises]


def use_reference(chosen: list[Exercise], learner: Path, backup: Path) -> list[str]:
    """Back up each file of `chosen` from `learner` to `backup`, then put in the reference's
    regions of those exercises; one line per file saying which."""
    done = []
    for name in dict.fromkeys(name for ex in chosen for name in ex.files):
        (backup / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(learner / name, backup / name)
        text, reference_text = (learner / name).read_text(), (REFERENCE / name).read_text()
        ids = [ex.id for ex in chosen if name in ex.files]
        for exercise_id in ids:
            text = insert_reference(text, reference_text, exercise_id, name)
        (learner / name).write_text(text)
        done.append(f"framework/{name}: {', '.join(ids)} now from the reference")
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", help="an exercise (2.3), a chapter (3) or chapters (1-5)")
    args = parser.parse_args(argv)
    backup = ROOT / ".backup" / time.strftime("%Y%m%d-%H%M%S")
    for line in use_reference(selected(args.what), LEARNER, backup):
        print(line)
    print(f"your previous version is in {backup.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
