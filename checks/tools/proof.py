"""Prove the graders can fail: stubs, random outputs and the bug zoo, per exercise.

    python -m checks.tools.proof [chapter ...]

For each exercise k, on temporary copies of the reference:
- k's regions stubbed: every one of k's checks must fail;
- k's regions returning random values of the right shape: k's checks must fail;
- each hand-written mutant of k (checks/mutants/chapterN.py): a check of k must fail;
- with k returning random values, each later exercise j of k's chapter fails exactly when
  j lists k in `uses=` (checks/exercises.py), so the grader's "fix k first" is never missing
  and never wrong.
Prints the table of mutant → killing check; exit status 0 only if all hold.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from checks.exercises import CHAPTERS, Exercise
from checks.mutants import Mutant, hand_written
from checks.tools.grade import passed_all
from checks.tools.processes import run_many
from checks.tools.regions import python_files, randomize_outputs, rewrite, stub
from checks.tools.student import REFERENCE

PROFILE = "proof"


def copy_reference(edit=None) -> Path:
    """A temporary folder holding framework/, the reference with `edit(path, text)` applied."""
    folder = Path(tempfile.mkdtemp(prefix="framework-proof-"))
    target = folder / "framework"
    shutil.copytree(REFERENCE, target, ignore=shutil.ignore_patterns("__pycache__"))
    for path in python_files(target) if edit else []:
        text = path.read_text()
        changed = edit(path.relative_to(target), text)
        if changed != text:
            path.write_text(changed)
    return folder


def mutated_reference(mutant: Mutant) -> Path:
    """A temporary folder holding framework/, the reference with `mutant` applied."""
    folder = copy_reference()
    mutant.apply(folder / "framework")
    return folder


def verdict(kind: str, result: dict) -> tuple[bool, str]:
    checks = result["checks"]
    failed = [c["name"] for c in checks if not c["passed"]]
    if kind == "stub":
        ok = result["status"] == "ok" and checks and len(failed) == len(checks)
        passed = [c["name"] for c in checks if c["passed"]]
        return bool(ok), f"{len(failed)}/{len(checks)} checks fail" + (
            f"; still passing: {', '.join(passed)}" if passed else ""
        ) + ("" if result["status"] == "ok" else f" ({result['status']})")
    if failed:
        return True, f"killed by {failed[0]}"
    if kind == "random" and result["status"] == "timeout":
        return True, "killed: the checks time out"
    return False, f"SURVIVED ({result['status']}: {result.get('message', '')[:200]})"


def uses_problem(user: Exercise, used: str, result: dict) -> str:
    """'' if `user` fails with `used` returning random values exactly when it lists `used`."""
    failed = not passed_all(result)
    if failed == (used in user.uses):
        return ""
    if failed:
        return (f"✗ {user.id} fails when {used} returns random values, but its uses= does "
                f"not list {used}: the grader would show {user.id}'s hint, not 'fix {used} first'")
    return f"✗ {user.id} lists {used} in uses=, yet passes when {used} returns random values"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", type=int)
    args = parser.parse_args(argv)
    numbers = args.chapters or [n for n, ch in CHAPTERS.items() if ch.in_course]
    start = time.perf_counter()
    cases: list[tuple[Exercise, str, str, Path]] = []
    for number in numbers:
        exercises = CHAPTERS[number].exercises
        for position, ex in enumerate(exercises):
            only = {ex.id}
            cases.append((ex, "stub", "stubbed", copy_reference(
                lambda rel, text, only=only: rewrite(text, stub, only))))
            randomized = copy_reference(
                lambda rel, text, only=only: rewrite(text, randomize_outputs, only))
            cases.append((ex, "random", "random output", randomized))
            cases += [(user, "uses", ex.id, randomized) for user in exercises[position + 1:]]
        for mutant in hand_written(number):
            ex = next(e for e in CHAPTERS[number].exercises if e.id == mutant.exercise)
            cases.append((ex, "mutant", mutant.name, mutated_reference(mutant)))
    jobs = []
    for ex, kind, _, folder in cases:
        flags = ["--no-probe"] if kind == "stub" else ["--no-probe", "--stop-at-first-failure"]
        jobs.append((ex.id, str(folder), PROFILE, flags))
    try:
        results = run_many(jobs)
    finally:
        for *_, folder in cases:
            shutil.rmtree(folder, ignore_errors=True)
    failures = 0
    print(f"{'exercise':<9}{'variant':<52}result")
    for (ex, kind, name, _), result in zip(cases, results):
        if kind == "uses":
            problem = uses_problem(ex, name, result)
            if problem:
                failures += 1
                print(problem)
            continue
        ok, text = verdict(kind, result)
        failures += not ok
        print(f"{ex.id:<9}{name[:50]:<52}{'' if ok else '✗ '}{text}")
    for ex in (e for n in numbers for e in CHAPTERS[n].exercises):
        if not any(m.exercise == ex.id for m in hand_written(ex.chapter)):
            print(f"✗ exercise {ex.id} has no hand-written mutant")
            failures += 1
    mutants = sum(kind == "mutant" for _, kind, _, _ in cases)
    pairs = sum(kind == "uses" for _, kind, _, _ in cases)
    print(f"\n{len(cases) - pairs} variants ({mutants} hand-written mutants), {pairs} pairs for "
          f"uses=, {failures} problem(s), {time.perf_counter() - start:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
