"""Your code and the reference, side by side, on the same inputs.

    python -m checks.tools.compare 1

Each exercise's probe (the small example the grader also starts with) runs on
your framework/ and on solutions/, in a process of its own under the exercise's time
limit, as grading does; values that differ are marked.
"""

from __future__ import annotations

import argparse
import os
import sys

from checks.exercises import chapter
from checks.tools.processes import run_many


def values(number: int, impl: str, time_limit: float | None = None) -> dict:
    """Each exercise's probe values on `impl`: run and reported as grading runs its checks.

    One process per exercise, under the exercise's time limit (or `time_limit`), its values
    read from the report file the grader names: what the code under test prints does not count.
    """
    profile = os.environ.get("HYPOTHESIS_PROFILE", "learner")
    exercises = chapter(number).exercises
    results = run_many([(ex.id, impl, profile, ["--values"], time_limit) for ex in exercises])
    shown = {}
    for ex, result in zip(exercises, results):
        if "values" in result:
            shown[ex.id] = result["values"]
        else:  # a file that does not import, a timeout, a crash: the message says which
            shown[ex.id] = {"": result["message"]}
    return shown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapter", type=int)
    args = parser.parse_args(argv)
    if not chapter(args.chapter).in_course:
        print(f"Chapter {args.chapter} is not in the course yet.")
        return 2
    try:
        mine = values(args.chapter, os.environ.get("IMPL", "framework"))
        reference = values(args.chapter, "solutions")
    except KeyboardInterrupt:
        print("\nInterrupted (Ctrl-C).")
        return 130
    differ = 0
    for ex in chapter(args.chapter).exercises:
        print(f"\n{ex.id} {ex.title}")
        if "" in mine[ex.id]:
            differ += 1
            print(f"  ≠ yours: {mine[ex.id]['']}")
            for name, want in reference[ex.id].items():
                print(f"    {name}\n      reference: {want}")
            continue
        for name in reference[ex.id] | mine[ex.id]:
            got, want = mine[ex.id].get(name, "—"), reference[ex.id].get(name, "—")
            mark = "  " if got == want else "≠ "
            differ += got != want
            print(f"  {mark}{name}\n      yours:     {got}\n      reference: {want}")
    print(f"\n{differ} value(s) differ" if differ else "\nall values agree")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
