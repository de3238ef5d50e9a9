"""Grades a course platform reads: a Gradescope autograder zip, a GitHub Classroom workflow.

    python -m checks.tools.autograder                  # build/autograder.zip, every chapter
    python -m checks.tools.autograder --chapter 3 --out build/chapter3.zip
    python -m checks.tools.autograder --classroom      # rewrite .github/workflows/classroom.yml
    python -m checks.tools.autograder --run            # what the zip's run_autograder calls

The zip holds `setup.sh` (a venv with the course's runtime needs, from PyPI), `run_autograder`
and `course/`: the reference checks and the learner files as `make student` writes them.
`run_autograder` copies `course/` to a fresh folder, puts the submitted `framework/` over its
learner files, grades it there with the zip's own checks (never the submission's) and writes
`results/results.json` in Gradescope's format: one test per exercise, the total, the score table;
a bonus exercise is a test worth 0 points, tagged "bonus", so each chapter still totals 100.
`AUTOGRADER_ROOT` (default /autograder) and `AUTOGRADER_PYTHON` (default the venv setup.sh
makes) let the selftests run it in a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from checks.exercises import CHAPTERS, Exercise
from checks.loader import ROOT

ZIP = ROOT / "build" / "autograder.zip"
WORKFLOW = ROOT / ".github" / "workflows" / "classroom.yml"
PROFILE = "ci"  # derandomized: the same submission gets the same grade on every run
TIME_LIMIT = 1800.0  # seconds for the whole grading run (AUTOGRADER_TIMEOUT)
SHIPPED = ("checks", "framework", "pyproject.toml", "LICENSE")
NOT_SHIPPED = ("__pycache__", ".ipynb_checkpoints", ".hypothesis", "selftest", "torch_parity",
               "torch_scripts", "*.pyc")
MARKER = "AUTOGRADER_RUN"  # in the environment of every process grading starts
GRADING_NEEDS = ("hypothesis",)  # dev requirements the graders import

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder image: a venv with what grading needs.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${AUTOGRADER_ROOT:-/autograder}"
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    apt-get install -y -qq python3 python3-pip python3-venv
fi
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "The course needs Python 3.10 or newer: pick Gradescope's Ubuntu 22.04 (or newer) image." >&2
    exit 1
fi
python3 -m venv "$root/venv"
"$root/venv/bin/python" -m pip install --quiet --upgrade pip
"$root/venv/bin/python" -m pip install --quiet -r "$here/requirements.txt"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Grade the submission against the reference checks shipped in this zip; writes results/results.json.
set -u
root="${AUTOGRADER_ROOT:-/autograder}"
python="${AUTOGRADER_PYTHON:-$root/venv/bin/python}"
cd "$root/source/course" && exec "$python" -m checks.tools.autograder --run --root "$root"
"""


# -- building the zip ----------------------------------------------------------------------------

def requirements() -> list[str]:
    """The course's runtime dependencies and what grading imports, as pyproject.toml states them."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: the installed course's metadata says the same
        from importlib.metadata import requires
        wanted = requires("framework") or []
        runtime = [r for r in wanted if "extra ==" not in r]
        dev = [r.split(";")[0].strip() for r in wanted if "extra == \"dev\"" in r]
    else:
        with open(ROOT / "pyproject.toml", "rb") as file:
            project = tomllib.load(file)["project"]
        runtime, dev = project["dependencies"], project["optional-dependencies"]["dev"]
    grading = [r for r in dev if re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0] in GRADING_NEEDS]
    return [*runtime, *grading]


def course_files() -> list[tuple[Path, str]]:
    """(file on disk, name in the zip) for everything `course/` holds."""
    ignored = shutil.ignore_patterns(*NOT_SHIPPED)
    files = []
    for name in SHIPPED:
        path = ROOT / name
        if path.is_file():
            files.append((path, f"course/{name}"))
            continue
        for folder, subfolders, names in os.walk(path):
            skipped = ignored(folder, subfolders + names)
            subfolders[:] = sorted(s for s in subfolders if s not in skipped)
            for file in sorted(set(names) - skipped):
                full = Path(folder, file)
                files.append((full, f"course/{full.relative_to(ROOT).as_posix()}"))
    return files


def add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # the same bytes every build
    info.external_attr = (0o755 if executable else 0o644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def build(out: Path, chapters: list[int]) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    config = {"chapters": chapters, "profile": PROFILE}
    with zipfile.ZipFile(out, "w") as archive:
        add(archive, "setup.sh", SETUP_SH.encode(), executable=True)
        add(archive, "run_autograder", RUN_AUTOGRADER.encode(), executable=True)
        add(archive, "requirements.txt", ("\n".join(requirements()) + "\n").encode())
        add(archive, "course/autograder.json", json.dumps(config, indent=1).encode())
        for path, name in course_files():
            add(archive, name, path.read_bytes())
    return out


# -- running it: what run_autograder does --------------------------------------------------------

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


def prepare(course: Path, package: Path, work: Path) -> Path:
    """A fresh copy of the course with the submitted package over its learner files."""
    copy = work / "course"
    shutil.copytree(course, copy, ignore=shutil.ignore_patterns(*NOT_SHIPPED))
    shutil.copytree(package, copy / "framework", dirs_exist_ok=True, symlinks=False,
                    ignore=shutil.ignore_patterns(*NOT_SHIPPED, ".*"))
    return copy


def end_leftovers(marker: str) -> int:
    """SIGKILL every process whose environment carries this run's marker (Linux's /proc): what
    the submission started, even in a session of its own. Returns how many were found."""
    needle, found = f"{MARKER}={marker}".encode(), 0
    for _ in range(10):  # again, for what was forked while the last round was killing
        pids = []
        for entry in Path("/proc").glob("[0-9]*"):
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    pids.append(int(entry.name))
            except (OSError, ValueError):
                continue
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        found += len(pids)
        if not pids:
            break
    return found


def run_grader(copy: Path, chapters: list[int], profile: str, report: Path,
               limit: float) -> tuple[str, bool]:
    """The grader on the copy, in a process group of its own; once it returns, whatever is left
    of it (the group, and every process carrying the run's marker) is ended, so nothing the
    submission started outlives grading to touch the results."""
    command = [sys.executable, "-m", "checks.tools.grade", *map(str, chapters),
               "--json", str(report)]
    marker = secrets.token_hex(16)
    env = {**os.environ, "IMPL": "framework", "HYPOTHESIS_PROFILE": profile, "MPLBACKEND": "Agg",
           MARKER: marker}
    printed = report.with_suffix(".txt")  # a file, not a pipe: nothing can hold it open
    with open(printed, "w+", encoding="utf-8", errors="replace") as output:
        process = subprocess.Popen(command, cwd=copy, env=env, stdin=subprocess.DEVNULL,
                                   stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            process.wait(timeout=limit)
            finished = True
        except subprocess.TimeoutExpired:
            finished = False
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            process.wait()
            end_leftovers(marker)
        output.seek(0)
        text = output.read()
    if not finished:
        text += f"\ngrading did not finish within {limit:.0f} s"
    return text, finished


def exercise_output(ex: Exercise, result: dict, earned: int) -> str:
    """The verdict, and for an exercise that lost points what the grader tells a learner."""
    from checks.tools import grade
    try:
        text = grade.verdict(result, ex.bonus)
        lost = not grade.passed_all(result) if ex.bonus else earned < ex.points
        if lost and result.get("status") != "not_implemented":
            text += "\n\n" + grade.details(ex, result)
        return text
    except Exception:  # a result this version of the table does not know how to show
        return f"{result.get('status', 'no status')}: {result.get('message', '')}".strip()


def results_json(chapters: list[int], report: dict | None, output: str, seconds: float) -> dict:
    """Gradescope's results.json: one test per exercise, the total, the grader's table."""
    from checks.tools import grade
    graded = {str(number): {r.get("exercise"): r for r in results}
              for number, results in (report or {}).get("chapters", {}).items()}
    tests = []
    for number in chapters:
        for ex in CHAPTERS[number].exercises:
            result = graded.get(str(number), {}).get(ex.id)
            if result is None:
                earned, passed = 0, False
                text = "no result: the grader did not finish (see the output above)"
            else:
                earned = min(grade.score(ex, result), ex.points)
                passed = grade.passed_all(result) if ex.bonus else earned == ex.points
                text = exercise_output(ex, result, earned)
            # a bonus exercise is a test worth 0 points, tagged: the total stays 100 a chapter
            tests.append({
                "name": f"{ex.id} {ex.title}" + (" (bonus)" if ex.bonus else ""),
                "number": ex.id, "score": float(earned), "max_score": float(ex.points),
                "status": "passed" if passed else "failed", "output": text,
                "tags": [f"chapter {number}"] + (["bonus"] if ex.bonus else []),
                "visibility": "visible",
            })
    return {
        "score": float(sum(t["score"] for t in tests)),
        "execution_time": round(seconds),
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def write_results(results: dict, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "results.json"
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".json")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        json.dump(results, file, indent=1, ensure_ascii=False)
    os.replace(temporary, path)
    return path


def run(root: Path) -> int:
    start = time.perf_counter()
    config = json.loads((ROOT / "autograder.json").read_text())
    chapters, profile = config["chapters"], config["profile"]
    limit = float(os.environ.get("AUTOGRADER_TIMEOUT", TIME_LIMIT))
    package = find_submission(root / "submission")
    if package is None:
        output = ("No framework/ package in your submission. Upload your repository (or its "
                  "framework/ folder) with framework/__init__.py in it.")
        results = results_json(chapters, None, output, time.perf_counter() - start)
    else:
        with tempfile.TemporaryDirectory(prefix="grading-") as work:
            copy = prepare(ROOT, package, Path(work))
            report = Path(work) / "grades.json"
            printed, finished = run_grader(copy, chapters, profile, report, limit)
            try:
                graded = json.loads(report.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                graded = None
            seconds = time.perf_counter() - start
            where = package.relative_to(root / "submission").as_posix() or "."
            header = (f"Graded {where} against the course's reference checks "
                      f"(hypothesis profile {profile}) in {seconds:.0f} s.")
            if not finished or graded is None:
                header += " The grader did not finish: exercises without a result score 0."
            results = results_json(chapters, graded, f"{header}\n{printed}", seconds)
    path = write_results(results, root / "results")
    total = sum(t["max_score"] for t in results["tests"])
    print(f"{path}: {results['score']:.0f}/{total:.0f}")
    return 0


# -- GitHub Classroom ----------------------------------------------------------------------------

def classroom_workflow() -> str:
    """One command-grader step per chapter, worth its points, and the reporter."""
    chapters = [ch for ch in CHAPTERS.values() if ch.in_course]
    lines = [
        "# Written by `python -m checks.tools.autograder --classroom` from checks/exercises.py:",
        "# change the exercises there and rerun it; a selftest fails while this file is stale.",
        "name: Autograding Tests",
        "'on': [push, repository_dispatch]",
        "permissions:",
        "  checks: write",
        "  actions: read",
        "  contents: read",
        "jobs:",
        "  run-autograding-tests:",
        "    runs-on: ubuntu-latest",
        "    if: github.actor != 'github-classroom[bot]'",
        "    steps:",
        "      - name: Checkout code",
        "        uses: actions/checkout@v4",
        "      - name: Set up Python",
        "        uses: actions/setup-python@v5",
        "        with:",
        "          python-version: '3.11'",
        "      - name: Install the course",
        "        run: python -m pip install -e . " + " ".join(f"'{r}'" for r in GRADING_NEEDS),
    ]
    for ch in chapters:
        points = sum(ex.points for ex in ch.exercises)
        lines += [
            f"      - name: Chapter {ch.number} {ch.title}",
            f"        id: chapter-{ch.number}",
            "        uses: education/autograding-command-grader@v1",
            "        with:",
            f"          test-name: Chapter {ch.number} {ch.title}",
            f"          command: HYPOTHESIS_PROFILE={PROFILE} MPLBACKEND=Agg "
            f"python -m checks.tools.grade {ch.number}",
            "          timeout: 15",
            f"          max-score: {points}",
        ]
    lines += [
        "      - name: Autograding Reporter",
        "        uses: education/autograding-grading-reporter@v1",
        "        env:",
        *(f"          CHAPTER-{ch.number}_RESULTS: \"${{{{steps.chapter-{ch.number}.outputs.result}}}}\""
          for ch in chapters),
        "        with:",
        "          runners: " + ",".join(f"chapter-{ch.number}" for ch in chapters),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", action="append", type=int, choices=CHAPTERS,
                        help="grade only this chapter (repeatable; default: every chapter)")
    parser.add_argument("--out", type=Path, default=ZIP, help=f"the zip (default {ZIP})")
    parser.add_argument("--classroom", action="store_true",
                        help=f"write {WORKFLOW.relative_to(ROOT)} instead of the zip")
    parser.add_argument("--run", action="store_true", help="grade a submission (run_autograder)")
    parser.add_argument("--root", type=Path,
                        default=Path(os.environ.get("AUTOGRADER_ROOT", "/autograder")))
    args = parser.parse_args(argv)
    if args.run:
        return run(args.root)
    if args.classroom:
        WORKFLOW.parent.mkdir(parents=True, exist_ok=True)
        WORKFLOW.write_text(classroom_workflow())
        print(f"wrote {WORKFLOW.relative_to(ROOT)}")
        return 0
    chapters = args.chapter or [n for n, ch in CHAPTERS.items() if ch.in_course]
    missing = [n for n in chapters if not CHAPTERS[n].in_course]
    if missing:
        print(f"Chapter {missing[0]} is not in the course yet.")
        return 2
    out = build(args.out.resolve(), sorted(set(chapters)))
    points = sum(ex.points for n in chapters for ex in CHAPTERS[n].exercises)
    print(f"wrote {out} (chapters {', '.join(map(str, chapters))}, {points} points): upload it "
          "as a Gradescope programming assignment's autograder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
