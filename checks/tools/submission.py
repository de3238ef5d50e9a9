"""What of a submission is graded: its solution regions, spliced into the course's own files.

    package = find_submission(Path("/autograder/submission"))
    notes = splice(course / "framework", package, copy / "framework")

The copy is the course's learner package with the body of each `### BEGIN SOLUTION` …
`### END SOLUTION` region taken from the submission's file of the same name. Nothing else of
the submission is used: another file, a link, a compiled extension, a package of its own or
an edited line outside the regions is ignored and named in `notes`; a file whose markers are
broken keeps the course's stubs (its exercises are not started), and says why.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from checks.tools.regions import find_regions

MAX_FILE = 2 * 1024 * 1024  # bytes: a source file past this is not read
MAX_ENTRIES = 10_000  # files and folders looked at in a submission
SKIPPED = ("__pycache__", ".ipynb_checkpoints")  # left by running the code: never named


def find_submission(submission: Path) -> Path | None:
    """The submitted `framework/` package: the shallowest one, never one under solutions/."""
    if (submission / "__init__.py").exists() and not (submission / "framework").is_dir():
        return submission  # the package's own files uploaded without their folder
    level = [submission]
    while level:
        for folder in level:
            if folder.name == "framework" and (folder / "__init__.py").exists():
                return folder
        level = sorted(child for folder in level for child in folder.iterdir()
                       if child.is_dir() and not child.is_symlink()
                       and not child.name.startswith(".") and child.name != "solutions")
    return None


def splice(course: Path, submitted: Path, copy: Path) -> list[str]:
    """Write the submission's region bodies into `copy`, a copy of the course package
    `course`; returns what was ignored, one line each ("ignored: framework/x.so (…)")."""
    notes, seen = [], 0
    for folder, folders, files in os.walk(submitted):
        here = Path(folder).relative_to(submitted)
        for name in sorted(folders):
            if name in SKIPPED or name.startswith("."):
                folders.remove(name)
            elif os.path.islink(Path(folder, name)) or not (course / here / name).is_dir():
                folders.remove(name)
                notes.append(ignored(here / name, "a link" if os.path.islink(Path(folder, name))
                                     else "not a course folder"))
        for name in sorted(files):
            seen += 1
            if seen > MAX_ENTRIES:
                return [*notes, f"ignored: the rest of the submission (over {MAX_ENTRIES} files)"]
            if not name.startswith(".") and not name.endswith(".pyc"):
                note = splice_file(course / here / name, Path(folder, name), copy / here / name)
                notes += [ignored(here / name, note)] if note else []
    notes += [f"missing: {shown(path.relative_to(course))} (its exercises stay not started)"
              for path in sorted(course.rglob("*.py"))
              if "__pycache__" not in path.parts and not (submitted / path.relative_to(course)).exists()
              and find_regions(path.read_text(encoding="utf-8"))]
    return notes


def shown(path: Path) -> str:
    return f"framework/{path.as_posix()}"


def ignored(path: Path, why: str) -> str:
    return f"ignored: {shown(path)} ({why})"


def splice_file(course_file: Path, submitted_file: Path, target: Path) -> str | None:
    """Splice one submitted file into `target`; why (some of) it is ignored, or None."""
    info = os.lstat(submitted_file)
    if stat.S_ISLNK(info.st_mode):
        return "a link"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if not course_file.is_file():
        return "not a course file"
    if info.st_size > MAX_FILE:
        return f"over {MAX_FILE // 1024 // 1024} MB"
    ours = course_file.read_bytes()
    theirs = read_regular(submitted_file)
    regions = find_regions(ours.decode("utf-8")) if course_file.suffix == ".py" else []
    if not regions:
        return None if theirs == ours else "a provided file: the course's own copy is graded"
    try:
        text, note = spliced(ours.decode("utf-8"), theirs.decode("utf-8"))
    except UnicodeDecodeError:
        return "not UTF-8 text: its exercises count as not started"
    target.write_text(text, encoding="utf-8")
    return note


def read_regular(path: Path) -> bytes:
    """A regular file's bytes, never following a link that replaced it since it was looked at."""
    handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(handle, "rb") as file:
        return file.read(MAX_FILE)


def spliced(ours: str, theirs: str) -> tuple[str, str | None]:
    """The course file `ours` with the region bodies of `theirs`; what of `theirs` was not
    used, or None. Regions pair up in order, and must be the same exercises in both."""
    regions = find_regions(ours)
    try:
        submitted = find_regions(theirs)
    except ValueError as error:  # "<source>:12: END SOLUTION without BEGIN"
        where, _, why = error.args[0].removeprefix("<source>").partition(": ")
        at = f"line {where.strip(':')}: " if where else ""
        return ours, (f"its solution markers are broken ({at}{why}): its exercises count as "
                      "not started; restore the ### BEGIN SOLUTION / ### END SOLUTION lines as "
                      "the course has them")
    expected, found = [r.exercise for r in regions], [r.exercise for r in submitted]
    if found != expected:
        return ours, (f"its solution regions are {', '.join(found) or 'missing'} where the course "
                      f"has {', '.join(expected)}: its exercises count as not started; restore "
                      "the markers as the course has them")
    lines, their_lines = ours.splitlines(), theirs.splitlines()
    for region, their in zip(reversed(regions), reversed(submitted)):
        lines[region.begin + 1:region.end] = their_lines[their.begin + 1:their.end]
    changed = first_change(outside(ours.splitlines(), regions), outside(their_lines, submitted))
    note = (f"its lines outside the solution regions, from line {changed}, differ from the "
            "course's: only the regions are graded" if changed else None)
    return "\n".join(lines) + "\n", note


def outside(lines: list[str], regions: list) -> list[tuple[int, str]]:
    """(line number, text) of each line outside the region bodies, the markers included."""
    inside = {n for r in regions for n in range(r.begin + 1, r.end)}
    kept = [(n + 1, line.rstrip()) for n, line in enumerate(lines) if n not in inside]
    while kept and not kept[-1][1]:  # blank lines at the end of a file change nothing
        kept.pop()
    return kept


def first_change(ours: list[tuple[int, str]], theirs: list[tuple[int, str]]) -> int | None:
    """The line number in `theirs` where it first differs from `ours`, or None."""
    for (_, mine), (number, line) in zip(ours, theirs):
        if mine != line:
            return number
    if len(ours) != len(theirs):
        return theirs[min(len(ours), len(theirs)) - 1][0] if theirs else 1
    return None
