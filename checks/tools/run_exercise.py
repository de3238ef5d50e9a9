"""Run one exercise's checks in this process and report the results as JSON.

    python -m checks.tools.run_exercise 1.2 [--no-probe] [--stop-at-first-failure]

The grader starts one such process per exercise, under a time limit, so a hang
or a crash costs that exercise only. Run by hand, the results go to stdout. The
grader passes `--report FILE` and writes a nonce to stdin: the results go to FILE
with that nonce, read before the code under test is imported, so nothing the
learner's code prints, at exit or otherwise, can pass for a verdict.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
import traceback
from pathlib import Path

from checks.exercises import exercise

MAX_MESSAGE = 1500
MAX_EXAMPLE = 2500
# hypothesis's notes meant for a test's author, not for a learner reading a grade
NOISE = ("You can reproduce", "Explanation:")


def failures(error: BaseException) -> list[BaseException]:
    """The failures inside an exception group (several failing examples), or the error alone."""
    inner = getattr(error, "exceptions", None)
    if isinstance(inner, tuple) and inner:
        return [leaf for e in inner for leaf in failures(e)]
    return [error]


def shown(error: BaseException) -> tuple[BaseException, int]:
    """The failure to show, one with expected and got where there is one; how many others."""
    leaves = failures(error)
    first = next((e for e in leaves if isinstance(e, AssertionError)), leaves[0])
    return first, len(leaves) - 1


def describe(error: BaseException) -> str:
    """A short account of a failure: the message and where the code under test raised it."""
    error, others = shown(error)
    message = str(error) or type(error).__name__
    if isinstance(error, SystemExit):
        message = (f"the code under test called exit({error.code!r}): a check cannot finish "
                   "while its code ends the process; remove the exit() call")
    elif isinstance(error, KeyboardInterrupt):
        message = "interrupted (KeyboardInterrupt): the remaining checks were not run"
    if not isinstance(error, AssertionError):
        message = f"{type(error).__name__}: {message}"
        frames = [
            f for f in traceback.extract_tb(error.__traceback__) if "framework" in f.filename
        ]
        if frames:
            where = frames[-1]
            message += f"\n  raised in {Path(where.filename).name}, line {where.lineno}: {where.line}"
    if others:
        message += f"\n  ({others} other failing example{'s' * (others > 1)} not shown)"
    return message[:MAX_MESSAGE]


def counterexample(error: BaseException) -> str:
    """Hypothesis's account of the input that failed (of the failure `describe` shows)."""
    notes = [n.replace("; use Verbosity.verbose to view", "")
             for n in getattr(shown(error)[0], "__notes__", []) if not n.startswith(NOISE)]
    text = "\n".join(notes)
    if len(text) <= MAX_EXAMPLE:
        return text
    cut = text[:MAX_EXAMPLE].rsplit("\n", 1)[0]
    return cut + f"\n  … ({text.count(chr(10)) - cut.count(chr(10))} more lines)"


def not_implemented_here(error: BaseException, exercise_id: str) -> bool:
    return isinstance(error, NotImplementedError) and str(error).startswith(
        f"Exercise {exercise_id}:"
    )


def run(exercise_id: str, use_probe: bool, stop_at_first_failure: bool) -> dict:
    ex = exercise(exercise_id)
    result = {"exercise": ex.id, "status": "ok", "checks": [], "message": ""}
    try:
        from checks.exercises import CHAPTERS
        from checks.harness import CHECKS, PROBES, computed, framework

        fw = framework()
        importlib.import_module(CHAPTERS[ex.chapter].grader)
    except BaseException as error:  # a learner's syntax error, or exit(), lands here, readably
        result.update(status="error", message="the framework does not import: " + describe(error))
        return result
    checks = [c for c in CHECKS if c.exercise == ex.id]
    if use_probe:
        try:
            for value in PROBES[ex.id](fw).values():
                computed(value)
        except NotImplementedError as error:
            status = "not_implemented" if not_implemented_here(error, ex.id) else "blocked"
            result.update(status=status, message=str(error))
            result["checks"] = [{"name": c.name, "passed": False} for c in checks]
            return result
        except KeyboardInterrupt as error:  # also how Ctrl-C arrives: stop, but report
            result.update(status="error", message=describe(error))
            return result
        except BaseException:  # the checks below report it in detail
            pass
    result["checks"] = run_checks(checks, stop_at_first_failure)
    return result


def run_checks(checks: list, stop_at_first_failure: bool) -> list[dict]:
    """Each check's entry; exit() in the code under test fails its check, not the report."""
    entries = []
    for c in checks:
        start = time.perf_counter()
        try:
            c.function()
            entry = {"name": c.name, "passed": True}
        except BaseException as error:
            entry = {"name": c.name, "passed": False, "message": describe(error),
                     "example": counterexample(error)}
            interrupted = isinstance(error, KeyboardInterrupt)  # also how Ctrl-C arrives
        else:
            interrupted = False
        entry["seconds"] = round(time.perf_counter() - start, 3)
        entry["doc"] = (c.function.__doc__ or "").strip().split("\n")[0]
        entries.append(entry)
        if interrupted or (stop_at_first_failure and not entry["passed"]):
            break
    return entries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercise")
    parser.add_argument("--no-probe", action="store_true", help="run every check regardless")
    parser.add_argument("--stop-at-first-failure", action="store_true")
    parser.add_argument("--report", help="write the results here, with the nonce read from stdin")
    args = parser.parse_args()
    nonce = sys.stdin.readline().strip() if args.report else None
    result = run(args.exercise, not args.no_probe, args.stop_at_first_failure)
    if args.report is None:
        sys.stdout.write("\n" + json.dumps(result) + "\n")
        return
    with open(args.report, "w", encoding="utf-8") as file:
        json.dump({"nonce": nonce, "result": result}, file)


if __name__ == "__main__":
    main()
