"""Stuck? Put the reference solution of one exercise into your framework/.

    python -m checks.tools.use_reference 2.3

Your files are backed up first to .backup/<time>/, then every region of that
exercise in framework/ is replaced by the reference's; the rest of your code stays.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time

from checks.exercises import exercise
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercise", help="an exercise id, such as 2.3")
    args = parser.parse_args(argv)
    ex = exercise(args.exercise)
    backup = ROOT / ".backup" / time.strftime("%Y%m%d-%H%M%S")
    for name in ex.files:
        learner, reference = LEARNER / name, REFERENCE / name
        (backup / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(learner, backup / name)
        learner.write_text(insert_reference(learner.read_text(), reference.read_text(), ex.id, name))
        print(f"framework/{name}: exercise {ex.id} now holds the reference")
    print(f"your previous version is in {backup.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
