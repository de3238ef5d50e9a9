"""An instructor's release: the learner's repository, without the answers.

    python -m checks.tools.release                # make release: into build/release/
    python -m checks.tools.release --out DIR      # into DIR (new, empty, or an earlier release)

Copies the repository's tracked files a learner needs into a fresh git repository with one
commit. Left out: `solutions/` and every file that quotes or needs it (`LEFT_OUT`: the bug
zoo, the second implementations, the course's selftests and PyTorch parity tests, CI). The
tools behind `make use-reference`, `make compare-chapterN`, `make notebooks`, `make autograder`
and the maintainers' targets become modules that say, in one line, that they are not in this
release and where to turn; `make test` grades the learner's chapters. The README is the
course's, less what needs the reference, plus a section on this release.

Nothing is written while a file of the release quotes a solution line (`solution_lines`).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from checks.loader import ROOT
from checks.tools.regions import find_regions, python_files

REFERENCE = ROOT / "solutions" / "framework"
DEFAULT_OUT = ROOT / "build" / "release"
MIN_LENGTH = 24

LEFT_OUT = ("solutions/", "checks/mutants/", "checks/alternatives/", "checks/selftest/",
            "checks/torch_parity/", ".ci/",
            "checks/tools/proof.py", "checks/tools/sweep.py",
            "checks/tools/readme.py", "checks/tools/nbval_patience.py")

FOR_HELP = ("stuck, reopen the exercise's folded hints in its notebook, then ask your "
            "instructor or teaching assistant")
NOT_HERE = {  # tool module: what its make target does, and where to turn instead
    "compare": "make compare-chapterN runs your code and the reference side by side; the "
               "reference is not in this release. make check-chapterN shows each failing "
               "input, what was expected and what you returned",
    "use_reference": "make use-reference puts the reference's answer in your framework/; the "
                     f"reference is not in this release. When you are {FOR_HELP}",
    "execute": "make notebooks runs the reference notebooks, which are not in this release: "
               "run your chapter's notebook in make lab (Run > Run All Cells)",
    "autograder": "make autograder builds the Gradescope autograder, from the instructor's full "
                  "repository; it is not in this release",
    "student": "make student writes the learner's files from the reference, which is not in "
               "this release: your framework/ and chapters/ are yours to edit",
    "matrix": "make test-matrix tests the course under several Pythons, from the instructor's "
              "full repository; it is not in this release",
    "release": "make release builds this release from the instructor's full repository; it is "
               "not in this release",
}
NOT_HERE_MODULE = '''"""Not in this release: {what}."""

import sys

if __name__ == "__main__":
    print("{what}.")
    sys.exit(2)
'''
TEST_MODULE = '''"""`make test` in this release: grade every chapter, as `make check` does."""

import sys

from checks.tools import grade

if __name__ == "__main__":
    if sys.argv[1:]:  # make sweep, --only: the course's own test stages
        print("The course's own tests (make sweep, --only) are not in this release: "
              "make test grades your chapters.")
        sys.exit(2)
    print("make test grades your chapters, as make check does (the course's own tests are "
          "not in this release).")
    sys.exit(grade.main([]))
'''


def statement(line: str) -> bool:
    """A whole Python statement on its own: not a comment, a `for …:` header or a fragment of
    a call split over lines (`name=value,` parses, as a tuple)."""
    try:
        return bool(ast.parse(line).body) and not line.endswith(",")
    except SyntaxError:
        return False


def solution_lines(reference: Path = REFERENCE) -> dict[str, str]:
    """{line: exercise id} of every non-trivial line of a solution region: stripped, at least
    MIN_LENGTH characters, a whole statement on its own, and no line of the reference outside
    the regions (there it is the provided code's idiom, not an answer)."""
    inside, outside = {}, set()
    for path in python_files(reference):
        lines = path.read_text().splitlines()
        in_region = set()
        for region in find_regions("\n".join(lines), str(path)):
            in_region.update(range(region.begin, region.end + 1))
            for line in map(str.strip, lines[region.begin + 1: region.end]):
                if len(line) >= MIN_LENGTH and statement(line):
                    inside.setdefault(line, region.exercise)
        outside.update(line.strip() for n, line in enumerate(lines) if n not in in_region)
    return {line: ex for line, ex in inside.items() if line not in outside}


def searchable(name: str, data: bytes) -> str:
    """A file's text as a reader sees it: a notebook's cell sources, other text as it is."""
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return ""  # a data file
    if name.endswith(".ipynb"):
        return "\n".join("".join(cell["source"]) for cell in json.loads(text)["cells"])
    return text


def quoted(line: str, text: str) -> bool:
    """`line` in `text` as a statement of its own: not continued by a name before it, nor by
    more code after it (`rng = f()` is not quoted by `rng = f() if rng is None else rng`); it
    may sit in a string, in backticks, after `:` or be followed by `;` or a comment."""
    if line not in text:
        return False
    whole = re.compile(r"(?<![\w.])" + re.escape(line) + r"(?=[ \t]*(?:$|[\"'`;#\\]))", re.M)
    return whole.search(text) is not None


def quotes(files: dict[str, bytes], lines: dict[str, str]) -> list[tuple[str, str, str]]:
    """(file, exercise, line) for each solution line a file holds as a statement, anywhere."""
    found = []
    for name, data in sorted(files.items()):
        text = searchable(name, data)
        found += [(name, ex, line) for line, ex in lines.items() if quoted(line, text)]
    return found


def tracked() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [name for name in listed.stdout.decode().split("\0") if name]


def release_files() -> dict[str, bytes]:
    """{path: content} of the release: tracked files less LEFT_OUT, the tools rewritten."""
    files = {name: (ROOT / name).read_bytes() for name in tracked()
             if not name.startswith(LEFT_OUT) and (ROOT / name).is_file()}
    for module, what in NOT_HERE.items():
        files[f"checks/tools/{module}.py"] = NOT_HERE_MODULE.format(what=what).encode()
    files["checks/tools/test.py"] = TEST_MODULE.encode()
    files["README.md"] = release_readme(files["README.md"].decode()).encode()
    return files


RELEASE_SECTION = """\
## This release

This repository is the course without its answers: `framework/` holds your exercises, the
graders in `checks/` grade them, and the reference solutions stay with your instructor. So:

- `make check-chapterN` and `make check` grade your code, as below; `make test` does what
  `make check` does.
- `make use-reference`, `make compare-chapterN` and `make notebooks` need the reference: each
  says in one line that it is not in this release. When you are {help}.
- To start at a later chapter you need the earlier chapters' code: yours, or your instructor's.
- Bonus exercise 4.9 is graded with chapter 4's bug zoo, which stays with your instructor: here
  its grader says so, and your instructor's grader grades it.
- `make autograder`, `make release` and the course's own tests are the instructor's (below).
"""

INSTRUCTORS_SECTION = """\
## For instructors

This repository was written by `make release` from the course's full repository, with no
reference solutions, bug zoo or course selftests in it: use it as the GitHub Classroom
template.

**The Classroom workflow shows, it does not protect.** `.github/workflows/classroom.yml` grades
every chapter on each push, one test per chapter worth its 100 points (a test passes at full
marks; its log shows the score table). It runs in the student's repository, on the student's
commit: whoever can push can change what it runs (the workflow, `checks/`, the Makefile, the
graders' expectations), so its points tell a student where they stand and prove nothing.

**Grades that count: the Gradescope autograder, at the deadline.** In the full repository,
`make autograder` writes `build/autograder.zip`; upload it as a Gradescope programming
assignment's autograder and have students submit their repository (or its `framework/`) at the
deadline. It grades the submitted `framework/` with the zip's own checks, never the
submission's; the full repository's README says how it runs and what it can stop.
"""

DROPPED = ("## For instructors", "## For maintainers", "### Starting at chapter N")
DROPPED_ROWS = ("| `make compare-chapter", "| `make use-reference")
REFERENCE_PARAGRAPH = re.compile(r"The reference solutions and the executed notebooks.*?after trying\.\n",
                                 re.S)
TORCH_SCRIPTS = re.compile(r" `checks/torch_scripts/`\nholds.*?one backend\.", re.S)


def release_readme(readme: str) -> str:
    """The course's README less what needs the reference and its instructors' and maintainers'
    sections; a section on this release after `## Start`, one for instructors at the end."""
    kept, dropping = [], False
    for line in readme.splitlines(keepends=True):
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            if dropping and level <= dropping:
                dropping = False
            if line.startswith(DROPPED):
                dropping = level
        if not dropping and not line.startswith(DROPPED_ROWS):
            kept.append(line)
    text = "".join(kept)
    for pattern in (REFERENCE_PARAGRAPH, TORCH_SCRIPTS):
        text, count = pattern.subn("", text)
        if count != 1:
            raise SystemExit(f"README.md: the passage {pattern.pattern[:40]!r}… is not there "
                             "once; update checks/tools/release.py")
    start = text.index("\n## ", text.index("## Start") + 1) + 1
    return (text[:start] + RELEASE_SECTION.format(help=FOR_HELP) + "\n" + text[start:].rstrip("\n")
            + "\n\n" + INSTRUCTORS_SECTION)


def writable(out: Path) -> bool:
    """`out` is new, empty, or an earlier release (which is replaced)."""
    if not out.exists():
        return True
    marker = out / "checks" / "tools" / "release.py"  # a release's says it is not in one
    return out.is_dir() and (not any(out.iterdir()) or (
        marker.is_file() and marker.read_text(errors="replace").startswith('"""Not in this release')))


def write(files: dict[str, bytes], out: Path) -> None:
    """`files` under `out`, as a new git repository with one commit."""
    if out.exists():
        shutil.rmtree(out)
    for name, data in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
    git = ["git", "-c", "user.name=Course release", "-c", "user.email=release@localhost",
           "-c", "commit.gpgsign=false"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "The course, for learners"]):
        subprocess.run(git + command, cwd=out, check=True, capture_output=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    out = args.out.resolve()
    if not writable(out):
        print(f"{out} is neither empty nor an earlier release: choose another --out")
        return 1
    if not (ROOT / ".git").exists():
        print(f"{ROOT} is not a git repository: the release is made of its tracked files")
        return 1
    files = release_files()
    found = quotes(files, solution_lines())
    for name, ex, line in found:
        print(f"  {name} quotes {ex}'s solution line: {line}")
    if found:
        print(f"{len(found)} solution line(s) quoted: nothing written. Reword them, or leave "
              "the file out (LEFT_OUT in checks/tools/release.py).")
        return 1
    write(files, out)
    print(f"{out}: {len(files)} files, one commit; no solution line quoted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
