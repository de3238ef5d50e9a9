"""Your code and the reference, side by side, on the same inputs.

    python -m checks.tools.compare 1

Each exercise's probe (the small example the grader also starts with) runs on
your framework/ and on solutions/; values that differ are marked.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np

from checks.exercises import chapter
from checks.loader import ROOT


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
    if isinstance(error, NotImplementedError):
        return f"not implemented yet ({str(error).split(':')[0]})"
    return f"{type(error).__name__}: {error}"


def emit(number: int) -> None:
    """Run in a child process: print every probe's values as JSON, each op on its own."""
    import importlib

    from checks.harness import PROBES, computed, framework

    fw = framework()
    importlib.import_module(chapter(number).grader)
    out = {}
    for ex in chapter(number).exercises:
        try:
            values = PROBES[ex.id](fw)
        except BaseException as error:  # exit() in the code compared is shown, not obeyed
            out[ex.id] = {"": failure(error)}
            continue
        out[ex.id] = {}
        for name, value in values.items():
            try:
                out[ex.id][name] = show(computed(value))
            except BaseException as error:
                out[ex.id][name] = failure(error)
    print(json.dumps(out))


def values(number: int, impl: str) -> dict:
    env = {**os.environ, "IMPL": impl, "MPLBACKEND": "Agg"}
    command = [sys.executable, "-m", "checks.tools.compare", str(number), "--emit"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        tail = (done.stderr or done.stdout).strip().splitlines()
        raise SystemExit(f"IMPL={impl}: " + (tail[-1] if tail else
                         f"exited with code {done.returncode} — does your code call exit()?"))
    return json.loads(lines[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapter", type=int)
    parser.add_argument("--emit", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not chapter(args.chapter).in_course:
        print(f"Chapter {args.chapter} is not in the course yet.")
        return 2
    if args.emit:
        emit(args.chapter)
        return 0
    mine = values(args.chapter, os.environ.get("IMPL", "framework"))
    reference = values(args.chapter, "solutions")
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
