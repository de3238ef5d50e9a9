"""Grade chapters: a score table, hints for what fails, results as JSON.

    python -m checks.tools.grade 1        # one chapter (make check-chapter1)
    python -m checks.tools.grade          # every chapter (make check)

A chapter's score is out of 100; its bonus exercises are shown apart ("100/100, bonus 2/3":
the bonus exercises that pass every check) and never count toward the 100.

`IMPL` picks the code graded (default: your `framework/`). Exit status 0 only at
full marks; 130 after Ctrl-C, which prints the table so far.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
from pathlib import Path

from checks.exercises import CHAPTERS, Chapter, Exercise, chapter, exercise
from checks.loader import ROOT
from checks.tools.processes import Interrupted, run_many

DETAIL_LINES = 12


def score(ex: Exercise, result: dict) -> int:
    """Points in proportion to the checks passed, rounded down; all checks for all points."""
    checks = result["checks"]
    if result["status"] != "ok" or not checks:
        return 0
    return ex.points * sum(c["passed"] for c in checks) // len(checks)


def passed_all(result: dict) -> bool:
    """Every check ran and passed: how a bonus exercise counts."""
    return result["status"] == "ok" and bool(result["checks"]) and all(
        c["passed"] for c in result["checks"])


def verdict(result: dict, bonus: bool = False) -> str:
    text = _verdict(result)
    return f"{text} (bonus)" if bonus and text == "not implemented yet" else text


def _verdict(result: dict) -> str:
    status = result["status"]
    if status == "not_implemented":
        return "not implemented yet"
    if status == "blocked":
        return "waits for " + result["message"].split(":")[0].lower()
    if status == "import_error":
        broken = result["import_error"]
        return f"blocked by {broken['file']}: {broken['error'].split(':')[0]} line {broken['line']}"
    if status == "timeout":
        return "timed out"
    if status == "interrupted":
        return "interrupted"
    if status == "error":
        return "error"
    passed = sum(c["passed"] for c in result["checks"])
    total = len(result["checks"])
    return "pass" if passed == total else f"fail ({passed}/{total} checks)"


def details(ex: Exercise, result: dict) -> str:
    """What a learner needs for a failing exercise: the failures, the hint, where to read."""
    lines = [f"{ex.id} {ex.title}:"]
    if result["status"] in ("error", "timeout"):
        lines.append(textwrap.indent(result["message"], "    "))
    for c in result["checks"]:
        if c["passed"] or "message" not in c:
            continue
        lines.append(f"  ✗ {c['name']}: {c.get('doc', '')}")
        message = c["message"].splitlines()
        if len(message) > DETAIL_LINES:
            message = message[:DETAIL_LINES] + [f"… ({len(message) - DETAIL_LINES} more lines)"]
        # the failing input in full: an example cut mid-expression cannot be replayed
        message += c.get("example", "").splitlines()
        lines.append(textwrap.indent("\n".join(message), "      "))
    causes = sorted({c["caused_by"] for c in result["checks"] if c.get("caused_by")})
    if causes:  # the error comes from an earlier exercise's code: its hint, not this one's
        for cause in map(exercise, causes):
            unsure = (f"; if it passes there, the cause is what {ex.id} hands it"
                      if cause.chapter != ex.chapter else "")
            lines.append(f"  caused by exercise {cause.id} ({cause.title}): the error is raised "
                         f"in its code, which {ex.id} runs on; fix {cause.id} first "
                         f"(make check-chapter{cause.chapter}){unsure}")
            lines.append(f"  hint for {cause.id}: {cause.hint}")
            lines.append(f"  read: chapters/{cause.notebook}, '{cause.heading}'")
        return "\n".join(lines)
    first = [exercise(i) for i in result.get("fix_first", [])]
    for used in first:  # a wrong value from an exercise it runs on: that one's fix comes first
        where = (f"make check-chapter{used.chapter}" if used.chapter != ex.chapter
                 else "its report is above")
        lines.append(f"  hint: {used.id} ({used.title}) fails too, and {ex.id} uses it: "
                     f"fix {used.id} first ({where}), then grade {ex.id} again")
        lines.append(f"  read: chapters/{used.notebook}, '{used.heading}'")
    if first:
        return "\n".join(lines)
    lines.append(f"  hint: {ex.hint}")
    lines.append(f"  read: chapters/{ex.notebook}, '{ex.heading}'")
    return "\n".join(lines)


def fails(ex: Exercise, result: dict) -> bool:
    """Written, and wrong: checks that fail, an error or a timeout (not a stub, not blocked)."""
    lost = not passed_all(result) if ex.bonus else score(ex, result) < ex.points
    return result["status"] in ("ok", "error", "timeout") and (result["status"] != "ok" or lost)


def mark_failing_uses(exercises: list[Exercise], results: list[dict],
                      failing_before: frozenset[str] = frozenset()) -> None:
    """Each failing exercise whose `uses` fail in this run too (here, or in `failing_before`)
    gets them as `fix_first`: its failure may be only theirs."""
    failing = set(failing_before) | {ex.id for ex, r in zip(exercises, results) if fails(ex, r)}
    for ex, result in zip(exercises, results):
        first = [used for used in ex.uses if used in failing]
        if ex.id in failing and first:
            result["fix_first"] = first


def drop_passed_causes(exercises: list[Exercise], results: list[dict]) -> None:
    """An error raised in the code of an exercise of this chapter that passes all its checks
    is not that exercise's fault (the later one handed it bad input): keep the later hint."""
    passed = {ex.id for ex, r in zip(exercises, results)
              if r["status"] == "ok" and r["checks"] and all(c["passed"] for c in r["checks"])}
    for result in results:
        for c in result.get("checks", []):
            if c.get("caused_by") in passed:
                del c["caused_by"]


def broken_files(results: list[dict]) -> str:
    """Each file that does not import, once: where, the error and the line of code."""
    seen = {}
    for result in results:
        if result["status"] == "import_error":
            broken = result["import_error"]
            seen.setdefault((broken["file"], broken["line"]), broken)
    return "".join(
        f"  ✗ {b['file']}, line {b['line']}, does not import: {b['error']}\n"
        + (f"      {b['code']}\n" if b.get("code") else "")
        + "    the exercises that need it are blocked until it does\n"
        for b in seen.values()
    )


def shown(impl: str) -> str:
    """IMPL as the table names it: a folder inside the repository by its path from there, so
    an executed notebook's output says `solutions`, not the machine's own path to it."""
    try:
        return Path(impl).resolve().relative_to(ROOT).as_posix() or "."
    except ValueError:
        return impl


def grade_chapter(ch: Chapter, impl: str, profile: str,
                  failing_before: frozenset[str] = frozenset()) -> tuple[int, list[dict]]:
    """Grade one chapter and print its table; Ctrl-C prints the table so far, then re-raises.
    `failing_before`: the exercises of chapters graded earlier in this run that failed."""
    exercises = ch.exercises
    try:
        results, stopped = run_many([(ex.id, impl, profile) for ex in exercises]), None
    except Interrupted as error:
        results, stopped = error.results, error
    drop_passed_causes(exercises, results)
    mark_failing_uses(exercises, results, failing_before)
    earned, bonus_passed = 0, 0
    print(f"\nChapter {ch.number}: {ch.title}   (IMPL={shown(impl)})")
    print(broken_files(results), end="")
    print(f"  {'exercise':<9}{'title':<40}{'points':>8}  result")
    for ex, result in zip(exercises, results):
        points = score(ex, result)
        earned += points
        bonus_passed += ex.bonus and passed_all(result)
        result.update(points=points, possible=ex.points, title=ex.title, bonus=ex.bonus)
        column = f"{'bonus':>8}" if ex.bonus else f"{points:>4}/{ex.points:<3}"
        print(f"  {ex.id:<9}{ex.title:<40}{column}  {verdict(result, ex.bonus)}")
    print(f"  {'total':<49}{earned:>4}/100{bonus_text(ch, bonus_passed)}")
    if stopped:
        raise stopped
    failing = [
        (ex, r) for ex, r in zip(exercises, results)
        if (not passed_all(r) if ex.bonus else r["points"] < ex.points)
        and r["status"] not in ("not_implemented", "blocked", "import_error")
    ]
    for ex, result in failing:
        print("\n" + details(ex, result))
    return earned, results


def bonus_text(ch: Chapter, passed: int) -> str:
    """", bonus k/n" for a chapter with a bonus track, else nothing."""
    return f", bonus {passed}/{len(ch.bonus)}" if ch.bonus else ""


def bonus_count(ch: Chapter, results: list[dict]) -> int:
    """How many of the chapter's bonus exercises pass every check."""
    return sum(ex.bonus and passed_all(r) for ex, r in zip(ch.exercises, results))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", type=int, help="chapter numbers (default: all)")
    parser.add_argument("--json", help="where to write the results (default grades/)")
    args = parser.parse_args(argv)
    impl = os.environ.get("IMPL", "framework")
    profile = os.environ.get("HYPOTHESIS_PROFILE", "learner")
    numbers = args.chapters or [n for n, ch in CHAPTERS.items() if ch.in_course]
    for number in args.chapters:
        if not chapter(number).in_course:
            print(f"Chapter {number} ({CHAPTERS[number].title}) is not in the course yet.")
            return 2
    start = time.perf_counter()
    report, totals, failing = {}, {}, frozenset()
    for number in numbers:
        try:
            totals[number], report[number] = grade_chapter(CHAPTERS[number], impl, profile, failing)
            failing |= {ex.id for ex, r in zip(CHAPTERS[number].exercises, report[number])
                        if fails(ex, r)}
        except KeyboardInterrupt:
            print("\nInterrupted (Ctrl-C): the exercises not finished were not graded.")
            return 130
    if len(numbers) > 1:
        print("\nSummary")
        for number in numbers:
            ch = CHAPTERS[number]
            print(f"  Chapter {number}: {ch.title:<20}{totals[number]:>4}/100"
                  + bonus_text(ch, bonus_count(ch, report[number])))
    print(f"\n({time.perf_counter() - start:.1f} s)")
    path = args.json or ROOT / "grades" / (
        f"chapter{numbers[0]}.json" if len(numbers) == 1 else "all.json"
    )
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as file:
        bonus = {n: [bonus_count(CHAPTERS[n], report[n]), len(CHAPTERS[n].bonus)] for n in report}
        json.dump({"impl": impl, "chapters": report, "totals": totals, "bonus": bonus}, file,
                  indent=1)
    return 0 if all(total == 100 for total in totals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
