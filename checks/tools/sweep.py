"""The soundness sweep: every check on correct answers, with far more examples than CI draws.

    python -m checks.tools.sweep            # every chapter (make sweep)
    python -m checks.tools.sweep 4 5        # some chapters
    SWEEP_EXAMPLES=200 python -m checks.tools.sweep 5

Each chapter is graded on the reference, then on its second correct implementation
(checks/alternatives/, only the exercises it rewrites), under the `sweep` hypothesis
profile: 1,000 examples per check (SWEEP_EXAMPLES), fresh ones each run, not derandomized.
A check that fails here fails a correct answer: rewrite it to test its property exactly,
never loosen it until it passes. Run before each release; not part of `make test`.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
import time

from checks.exercises import CHAPTERS, Chapter
from checks.harness import SWEEP_EXAMPLES
from checks.selftest.course.test_alternatives import alternative_package
from checks.tools.processes import run_many

# an exercise's time limit is set for the `learner` profile's 15 examples per check
LIMIT_SCALE = SWEEP_EXAMPLES / 15


def failures(results: list[dict]) -> list[str]:
    """One line per failing check (or per exercise that did not run), with its message."""
    lines = []
    for r in results:
        if r["status"] != "ok" or not r["checks"]:
            lines.append(f"{r['exercise']}: {r['status']}: {r['message']}")
        for c in r["checks"]:
            if not c["passed"]:
                detail = "\n    ".join((c.get("message", "") + "\n" + c.get("example", "")).split("\n"))
                lines.append(f"{r['exercise']} {c['name']}:\n    {detail}")
    return lines


def sweep(impl: str, exercises) -> tuple[list[dict], float]:
    start = time.perf_counter()
    jobs = [(ex.id, impl, "sweep", (), ex.time_limit * LIMIT_SCALE) for ex in exercises]
    return run_many(jobs), time.perf_counter() - start


def sweep_chapter(ch: Chapter) -> tuple[bool, list[str]]:
    """Grade one chapter on the reference and its alternative; print and return the figures."""
    rows, broken = [], []
    results, seconds = sweep("solutions", ch.exercises)
    rows.append(("reference", results, seconds))
    edits = importlib.import_module(f"checks.alternatives.chapter{ch.number}").ALTERNATIVES
    rewritten = {e.exercise for e in edits}
    folder = alternative_package(edits)
    try:
        results, seconds = sweep(str(folder), [ex for ex in ch.exercises if ex.id in rewritten])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    rows.append(("alternative", results, seconds))
    lines = []
    for what, results, seconds in rows:
        checks = sum(len(r["checks"]) for r in results)
        failed = failures(results)
        broken += [f"chapter {ch.number} {what}: {line}" for line in failed]
        lines.append(f"chapter {ch.number} {what:<12}{len(results):>3} exercises {checks:>4} checks "
                     f"× {SWEEP_EXAMPLES} examples  {seconds:>7.1f} s  "
                     + ("pass" if not failed else f"FAIL ({len(failed)})"))
        print(lines[-1], flush=True)
    for line in broken:
        print("✗ " + line, flush=True)
    return not broken, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", type=int, help="chapter numbers (default: all)")
    args = parser.parse_args(argv)
    numbers = args.chapters or [n for n, ch in CHAPTERS.items() if ch.in_course]
    passed, summary = True, []
    for number in numbers:  # one chapter at a time: its exercises run side by side
        ok, lines = sweep_chapter(CHAPTERS[number])
        passed, summary = passed and ok, summary + lines
    print("\nSummary (max examples per check; hypothesis stops sooner only when a check's "
          "inputs run out)\n" + "\n".join(summary))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
