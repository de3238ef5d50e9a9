"""Run one exercise's checks in this process and report the results as JSON.

    python -m checks.tools.run_exercise 1.2 [--no-probe] [--stop-at-first-failure]

The grader starts one such process per exercise, under a time limit, so a hang
or a crash costs that exercise only. Run by hand, the results go to stdout. The
grader passes `--report FILE` and writes a nonce to stdin: the results go to FILE
with that nonce, read before the code under test is imported, so nothing the
learner's code prints can pass for a verdict; once the report is written the process
ends at once (`os._exit`), so no exit handler of that code runs after it.

The files the exercise needs are imported first, one by one: a file that does not import
is reported as such (its line and error), and the exercise is blocked by it.
`--values` reports the probe's values (for `compare`) instead of running the checks.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import re
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from checks import remote
from checks.exercises import CHAPTERS, exercise
from checks.loader import impl_folder
from checks.tools import plain

MAX_MESSAGE = 1500
MAX_EXAMPLE = 2500


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


def text(error: BaseException) -> str:
    """`str(error)`, even for an exception whose `__str__` raises."""
    try:
        return str(error)
    except BaseException as failure:
        return f"(its message cannot be shown: str() raised {type(failure).__name__})"


def in_package(filename: str) -> str | None:
    """`filename` as `framework/...` if it is a file of the package under test."""
    try:
        path = Path(filename).resolve().relative_to(impl_folder()).as_posix()
    except ValueError:
        return None
    return path if path.startswith("framework/") else None


def remote_frames(error: BaseException) -> list[dict] | None:
    """The package's frames of an error the worker raised (`checks.remote`); None for others."""
    facts = remote.facts(error)
    if facts is None:
        return None
    return [f for f in facts.get("frames", []) if isinstance(f, dict)
            and isinstance(f.get("file"), str) and in_package(str(impl_folder() / f["file"]))]


def raised_in(error: BaseException) -> traceback.FrameSummary | None:
    """The last frame of the traceback in the package under test: where the learner's code raised."""
    remote_ones = remote_frames(error)
    if remote_ones is not None:
        return next((traceback.FrameSummary(str(impl_folder() / f["file"]), f.get("line"),
                                            str(f.get("name")), lookup_line=False,
                                            line=str(f.get("code", "")))
                     for f in remote_ones[-1:]), None)
    frames = [f for f in traceback.extract_tb(error.__traceback__) if in_package(f.filename)]
    return frames[-1] if frames else None


def key(exercise_id: str) -> tuple[int, ...]:
    return tuple(int(part) for part in exercise_id.split("."))


def region_at(filename: str, first: int, last: int | None = None) -> str | None:
    """The exercise whose solution region holds line `first` of a package file (or, with
    `last`, the first region within lines first..last), or None."""
    from checks.tools.regions import find_regions

    try:
        regions = find_regions(Path(filename).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # unreadable, or markers the learner broke
        return None
    if last is None:
        return next((r.exercise for r in regions if r.begin < first - 1 < r.end), None)
    return next((r.exercise for r in regions if first - 1 <= r.begin < last), None)


def rule_of(frame) -> str | None:
    """Where a provided frame checked an op's rule (a BackwardNode): that rule's exercise."""
    function = getattr(frame.f_locals.get("self"), "function", None)
    backward = getattr(function, "backward", None)
    try:
        lines, first = inspect.getsourcelines(backward)
        return region_at(inspect.getsourcefile(backward), first, first + len(lines))
    except (TypeError, OSError):
        return None


def raised_by_exercise(error: BaseException) -> str | None:
    """The exercise whose code raised `error`: the innermost frame of the package inside a
    solution region (provided code counts as its caller's). Two exceptions: a rule's result
    refused by the provided BackwardNode is the rule's; and the walk (`backpropagate`), which
    runs every op's rule, is not the cause of what it did not raise itself."""
    error = shown(error)[0]
    remote_ones = remote_frames(error)
    if remote_ones is not None:
        return raised_by_remote(remote_ones)
    tb, frames = error.__traceback__, []
    while tb is not None:
        if in_package(tb.tb_frame.f_code.co_filename):
            frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    for depth, (frame, lineno) in enumerate(reversed(frames)):
        if frame.f_code.co_name == "backpropagate" and depth > 0:
            return None
        found = region_at(frame.f_code.co_filename, lineno) or (depth == 0 and rule_of(frame))
        if found:
            return found
    return None


def raised_by_remote(frames: list[dict]) -> str | None:
    """`raised_by_exercise` from the frames the worker recorded."""
    for depth, frame in enumerate(reversed(frames)):
        if frame.get("name") == "backpropagate" and depth > 0:
            return None
        filename = str(impl_folder() / frame["file"])
        found = region_at(filename, int(frame.get("line") or 0))
        rule = frame.get("rule")
        if not found and depth == 0 and isinstance(rule, list) and len(rule) == 3 \
                and isinstance(rule[0], str) and in_package(str(impl_folder() / rule[0])):
            found = region_at(str(impl_folder() / rule[0]), int(rule[1]), int(rule[2]))
        if found:
            return found
    return None


def earlier_cause(error: BaseException, exercise_id: str) -> str | None:
    """The earlier exercise whose code raised `error`, when the check of `exercise_id` failed
    because of it; None when the error is the exercise's own (or an assertion of the check)."""
    if isinstance(shown(error)[0], AssertionError):
        return None
    found = raised_by_exercise(error)
    return found if found and key(found) < key(exercise_id) else None


def describe(error: BaseException) -> str:
    """A short account of a failure: the message and where the code under test raised it."""
    error, others = shown(error)
    message = text(error)
    if isinstance(error, SystemExit):
        message = ("the code under test called exit(): a check cannot finish "
                   "while its code ends the process; remove the exit() call")
        if isinstance(error.code, (int, str, type(None))):
            message = message.replace("exit()", f"exit({error.code!r})", 1)
    elif isinstance(error, KeyboardInterrupt):
        message = "interrupted (KeyboardInterrupt): the remaining checks were not run"
    if not isinstance(error, AssertionError) or not message:
        message = type(error).__name__ + (f": {message}" if message else "")
        where = raised_in(error)
        if where:
            message += (f"\n  raised in {in_package(where.filename)}, line {where.lineno}: "
                        f"{where.line}")
    if others:
        message += f"\n  ({others} other failing example{'s' * (others > 1)} not shown)"
    return plain.message(message)[:MAX_MESSAGE]


def import_error(error: BaseException) -> dict | None:
    """Where a file of the package failed to import: its path, line and error; None if elsewhere.

    A syntax error names its own file; any other error at import (an exception, exit())
    the last line of the package's code that ran.
    """
    facts = remote.facts(error)
    if facts is not None:
        return remote_import_error(error, facts)
    if isinstance(error, SyntaxError) and in_package(error.filename or ""):
        return {"file": in_package(error.filename), "line": error.lineno or 0,
                "error": f"{type(error).__name__}: {error.msg}", "code": (error.text or "").strip()}
    frames = [f for f in traceback.extract_tb(error.__traceback__) if in_package(f.filename)]
    if not any(f.name == "<module>" for f in frames):
        return None  # raised by a function the grader called, not while a file was imported
    where = frames[-1]
    message = text(error)
    return {"file": in_package(where.filename), "line": where.lineno,
            "error": type(error).__name__ + (f": {message}" if message else ""),
            "code": (where.line or "").strip()}


def remote_import_error(error: BaseException, facts: dict) -> dict | None:
    """`import_error` of an error the worker raised, from the facts it recorded."""
    syntax = facts.get("syntax")
    if isinstance(syntax, dict):
        return {"file": str(syntax.get("file")), "line": int(syntax.get("line") or 0),
                "error": f"{type(error).__name__}: {syntax.get('msg')}",
                "code": str(syntax.get("text", ""))}
    frames = remote_frames(error)
    if not any(f.get("name") == "<module>" for f in frames):
        return None
    message = text(error)
    return {"file": frames[-1]["file"], "line": int(frames[-1].get("line") or 0),
            "error": type(error).__name__ + (f": {message}" if message else ""),
            "code": str(frames[-1].get("code", ""))}


def counterexample(error: BaseException) -> str:
    """The input that failed (of the failure `describe` shows), in plain words: hypothesis's
    failing example with the values drawn inside the test, none of its notes for a test's author."""
    notes = [n for n in getattr(shown(error)[0], "__notes__", []) if isinstance(n, str)]
    text = plain.example(notes)
    if len(text) <= MAX_EXAMPLE:
        return text
    cut = text[:MAX_EXAMPLE].rsplit("\n", 1)[0]
    return cut + f"\n  … ({text.count(chr(10)) - cut.count(chr(10))} more lines)"


STUB = re.compile(r"Exercise (\d+\.\d+): ")


def stub_of(error: BaseException) -> str | None:
    """The exercise whose untouched stub raised `error`, or None (the learner's own raise)."""
    found = STUB.match(text(error)) if isinstance(error, NotImplementedError) else None
    return found.group(1) if found else None


def load(ex) -> tuple[object, dict | None]:
    """The package, with the exercise's files and its chapter's grader imported; or where that failed."""
    from checks.harness import framework, submodule

    try:
        fw = framework()
        for file in ex.files:
            submodule(file.removesuffix(".py").replace("/", "."))
        importlib.import_module(CHAPTERS[ex.chapter].grader)  # and the files its checks use
    except BaseException as error:  # a syntax error, an exception or exit() at import
        where = import_error(error)
        if where is None:
            raise
        return None, where
    return fw, None


def run(exercise_id: str, use_probe: bool, stop_at_first_failure: bool,
        values: bool = False) -> dict:
    ex = exercise(exercise_id)
    result = {"exercise": ex.id, "status": "ok", "checks": [], "message": ""}
    try:
        if CHAPTERS[ex.chapter].worker and not remote.connected():
            remote.connect()
            importlib.import_module("checks.harness")  # hypothesis, while the worker starts
        fw, broken = load(ex)
    except BaseException as error:
        result.update(status="error", message="the checks could not start: " + describe(error))
        return result
    if broken:
        message = f"{broken['file']}, line {broken['line']}, does not import: {broken['error']}"
        result.update(status="import_error", import_error=broken, message=message)
        return result
    from checks.harness import CHECKS, PROBES, computed

    if values:
        result["values"] = probe_values(PROBES[ex.id], fw)
        return result
    checks = [c for c in CHECKS if c.exercise == ex.id]
    if use_probe:
        try:
            for value in PROBES[ex.id](fw).values():
                computed(value)
        except NotImplementedError as error:
            stub = stub_of(error)
            if stub is None:  # the learner's own raise: show where, as for any error
                result.update(status="error", message=describe(error))
                return result
            status = "not_implemented" if stub == ex.id else "blocked"
            result.update(status=status, message=text(error))
            result["checks"] = [{"name": c.name, "passed": False} for c in checks]
            return result
        except KeyboardInterrupt as error:  # also how Ctrl-C arrives: stop, but report
            result.update(status="error", message=describe(error))
            return result
        except BaseException:  # the checks below report it in detail
            pass
    result["checks"] = run_checks(checks, stop_at_first_failure)
    return result


def show(value) -> str:
    if isinstance(value, np.ndarray) or hasattr(value, "numpy"):
        array = value.numpy() if hasattr(value, "numpy") else value
        return np.array2string(np.asarray(array), precision=4, threshold=20)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(show(v) for v in value) + ")"
    return repr(value)


def failure(error: BaseException) -> str:
    """What a probe's value shows when the code compared raised instead of returning."""
    if isinstance(error, KeyboardInterrupt):  # Ctrl-C stops the comparison, as anywhere else
        raise error
    if stub_of(error):
        return f"not implemented yet (exercise {stub_of(error)})"
    message = plain.message(text(error))
    where = raised_in(error)
    return type(error).__name__ + (f": {message}" if message else "") + (
        f" (raised in {in_package(where.filename)}, line {where.lineno})" if where else "")


def probe_values(probe, fw) -> dict[str, str]:
    """The probe's values as `compare` shows them, each op on its own."""
    from checks.harness import computed

    try:
        values = probe(fw)
    except BaseException as error:  # exit() in the code compared is shown, not obeyed
        return {"": failure(error)}
    shown_values = {}
    for name, value in values.items():
        try:
            shown_values[name] = show(computed(value))
        except BaseException as error:
            shown_values[name] = failure(error)
    return shown_values


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
            cause = earlier_cause(error, c.exercise)
            if cause:
                entry["caused_by"] = cause
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
    parser.add_argument("--values", action="store_true", help="report the probe's values")
    parser.add_argument("--report", help="write the results here, with the nonce read from stdin")
    args = parser.parse_args()
    nonce = sys.stdin.readline().strip() if args.report else None
    result = run(args.exercise, not args.no_probe, args.stop_at_first_failure, args.values)
    remote.close()  # the worker ends before the verdict exists
    if args.report is None:
        sys.stdout.write("\n" + json.dumps(result) + "\n")
        return
    with open(args.report, "w", encoding="utf-8") as file:
        json.dump({"nonce": nonce, "result": result}, file)
    # the report is final: no exit handler or finaliser of the code under test runs after it
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # a stream the code under test closed or replaced
            pass
    os._exit(0)


if __name__ == "__main__":
    main()
