"""Grades a course platform reads: a Gradescope autograder zip, a GitHub Classroom workflow.

    python -m checks.tools.autograder                  # build/autograder.zip, every chapter
    python -m checks.tools.autograder --chapter 3 --out build/chapter3.zip
    python -m checks.tools.autograder --classroom      # rewrite .github/workflows/classroom.yml
    python -m checks.tools.autograder --run            # what the zip's run_autograder calls

The zip holds `setup.sh` (a venv with the course's runtime needs pinned, from PyPI, and the
unprivileged user `sandbox`), `run_autograder` and `course/`: the reference checks and the
learner files as `make student` writes them. `run_autograder` runs the judge, as root: it
imports all it grades with first, splices the submission's solution regions into a fresh copy
of `course/` (`checks.tools.submission`), grades the copy as the sandbox user
(`checks.tools.sandbox`), ends every process of that user, checks the grader's signed report
and writes `results/results.json` itself, in Gradescope's format: one test per exercise, the
total, the score table; a bonus exercise is a test worth 0 points, tagged "bonus", so each
chapter still totals 100. `AUTOGRADER_ROOT` (default /autograder), `AUTOGRADER_PYTHON`
(default the venv setup.sh makes) and `AUTOGRADER_USER` let the selftests run it in a
temporary folder.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import hmac
import importlib
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from checks.exercises import CHAPTERS, Exercise
from checks.loader import ROOT
from checks.tools import grade, sandbox
from checks.tools.registered import registered_checks
from checks.tools.submission import find_submission, splice

ZIP = ROOT / "build" / "autograder.zip"
WORKFLOW = ROOT / ".github" / "workflows" / "classroom.yml"
PROFILE = "ci"  # derandomized: the same submission gets the same grade on every run
TIME_LIMIT = 1800.0  # seconds for the whole grading run (AUTOGRADER_TIMEOUT)
SHIPPED = ("checks", "framework", "pyproject.toml", "LICENSE")
# the bug zoo and the second implementations hold the reference's lines, and grading needs
# neither (4.9's zoo of 4.6 schedules is written apart: `bonus_zoo`); nor the benchmarks, nor
# `make release`'s tool (it lists the solution lines chapter 7's notebook still quotes)
CACHES = ("__pycache__", ".ipynb_checkpoints", ".hypothesis", "*.pyc")
NOT_SHIPPED = (*CACHES, "selftest", "torch_parity", "torch_scripts", "mutants", "alternatives",
               "benchmarks", "release.py")
# chapter: the exercise whose mutants its bonus grader applies, and the code they apply to
BONUS_ZOO = {4: ("4.6", "SCHEDULE_REGION")}
GRADING_NEEDS = ("hypothesis",)  # dev requirements the graders import
STATUSES = ("ok", "error", "not_implemented", "blocked", "import_error", "timeout",
            "interrupted")
MAX_REPORT = 16 * 1024 * 1024  # bytes of the grader's report the judge reads
MAX_TEST_OUTPUT = 8 * 1024  # characters of one exercise's output in results.json

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image: a venv with what
# grading needs, and the unprivileged user the submissions run as.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${{AUTOGRADER_ROOT:-/autograder}}"
user="${{AUTOGRADER_USER:-sandbox}}"
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    apt-get install -y -qq python3 python3-pip python3-venv
fi
if ! python3 -c 'import sys; sys.exit(sys.version_info < {floor!r})'; then
    echo "The pinned requirements need Python {floor_text} or newer: pick a Gradescope base image" \\
         "that has it (Ubuntu 24.04: Python 3.12)." >&2
    exit 1
fi
if [ "$(id -u)" = 0 ] && ! [[ "$user" =~ ^[0-9:]+$ ]] && ! id -u "$user" >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
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
(cd "$root/source/course" && "$python" -m checks.tools.autograder --run --root "$root")
status=$?
if [ "$status" != 0 ]; then  # the judge itself failed: still a results.json, which says so
    mkdir -p "$root/results"
    message="The autograder failed (exit status $status) before it could grade: tell your instructor."
    printf '{"score": 0.0, "execution_time": 0, "output": "%s", "tests": []}\\n' "$message" \\
        > "$root/results/.results.json.new"
    mv -f "$root/results/.results.json.new" "$root/results/results.json"
fi
exit 0
"""


# -- building the zip ----------------------------------------------------------------------------

def requirements(chapters: list[int]) -> list[str]:
    """What grading `chapters` needs, every package pinned to the version installed here (what
    the course is tested with): the runtime dependencies, what the graders import, the kernels
    extra for chapter 8, and all that those require in turn."""
    from importlib.metadata import PackageNotFoundError, distribution

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    wanted = [Requirement(r) for r in top_requirements(8 in chapters)]
    pinned: dict[str, str] = {}
    while wanted:
        requirement = wanted.pop()
        name = canonicalize_name(requirement.name)
        if name in pinned:
            continue
        try:
            found = distribution(requirement.name)
        except PackageNotFoundError:
            raise SystemExit(f"{requirement.name} is not installed here, so the zip cannot pin "
                             "it: `make setup` installs it") from None
        pinned[name] = found.version
        wanted += [r for r in map(Requirement, found.requires or [])
                   if r.marker is None or r.marker.evaluate({"extra": ""})]
    return [f"{name}=={version}" for name, version in sorted(pinned.items())]


def top_requirements(kernels: bool) -> list[str]:
    """The course's runtime dependencies and what grading imports, as pyproject.toml states
    them; with `kernels`, chapter 8's extra too."""
    try:
        import tomllib
    except ImportError:  # Python 3.10: the installed course's metadata says the same
        from importlib.metadata import requires
        wanted = requires("framework") or []
        extras = {name: [r.split(";")[0].strip() for r in wanted if f'extra == "{name}"' in r]
                  for name in ("dev", "kernels")}
        runtime = [r for r in wanted if "extra ==" not in r]
    else:
        with open(ROOT / "pyproject.toml", "rb") as file:
            project = tomllib.load(file)["project"]
        runtime, extras = project["dependencies"], project["optional-dependencies"]
    grading = [r for r in extras["dev"]
               if re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0] in GRADING_NEEDS]
    return [*runtime, *grading, *(extras["kernels"] if kernels else [])]


def python_floor(pins: list[str]) -> tuple[int, int]:
    """The oldest Python every pinned package supports (their Requires-Python)."""
    from importlib.metadata import distribution

    floor = (3, 10)
    for pin in pins:
        needs = distribution(pin.split("==")[0]).metadata.get("Requires-Python") or ""
        for low in re.findall(r">=\s*(\d+)\.(\d+)", needs):
            floor = max(floor, (int(low[0]), int(low[1])))
    return floor


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


def bonus_zoo(chapters: list[int]) -> dict[str, str]:
    """{name in the zip: source} of the bug zoo the graded chapters' bonus graders apply (4.9
    grades the learner's test on 4.6's mutants): those mutants only, and what defines them."""
    from checks.mutants import hand_written

    files = {}
    for number, (exercise_id, region) in BONUS_ZOO.items():
        if number in chapters:
            zoo = importlib.import_module(f"checks.mutants.chapter{number}")
            mutants = [m for m in hand_written(number) if m.exercise == exercise_id]
            files[f"course/checks/mutants/chapter{number}.py"] = (
                f'"""Chapter {number}\'s bug zoo, as the autograder zip holds it: the mutants of '
                f'{exercise_id} only,\nwhich a bonus grader applies, and the code they apply to."""\n\n'
                "from checks.mutants import Mutant\n\n"
                f"{region} = {getattr(zoo, region)!r}\n\nMUTANTS = [\n"
                + "".join(f"    {m!r},\n" for m in mutants) + "]\n")
    if files:
        files["course/checks/mutants/__init__.py"] = (ROOT / "checks/mutants/__init__.py").read_text()
    return files


def add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # the same bytes every build
    info.external_attr = (0o755 if executable else 0o644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def build(out: Path, chapters: list[int]) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    config = {"chapters": chapters, "profile": PROFILE}
    pins = requirements(chapters)
    floor = python_floor(pins)
    with zipfile.ZipFile(out, "w") as archive:
        add(archive, "setup.sh", SETUP_SH.format(floor=floor, floor_text=f"{floor[0]}.{floor[1]}").encode(),
            executable=True)
        add(archive, "run_autograder", RUN_AUTOGRADER.encode(), executable=True)
        add(archive, "requirements.txt", ("\n".join(pins) + "\n").encode())
        add(archive, "course/autograder.json", json.dumps(config, indent=1).encode())
        for path, name in course_files():
            add(archive, name, path.read_bytes())
        for name, source in sorted(bonus_zoo(chapters).items()):
            add(archive, name, source.encode())
    return out


# -- running it: what run_autograder does --------------------------------------------------------

def prepare(course: Path, package: Path, work: Path) -> tuple[Path, list[str]]:
    """A fresh copy of the course, the submission's regions spliced into its learner files,
    compiled, and no file of it writable but by its owner; what of the submission was ignored."""
    copy = work / "course"
    shutil.copytree(course, copy, ignore=shutil.ignore_patterns(*CACHES))
    notes = splice(course / "framework", package, copy / "framework")
    compileall.compile_dir(copy, quiet=2)  # as the owner: the sandbox cannot write __pycache__
    for folder, _, files in os.walk(copy):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(Path(folder, name), 0o644)
    return copy, notes


def sandboxed(chapters: list[int], key_file: Path, report: Path) -> int:
    """What the sandbox user runs: grade the chapters (tables to stdout), then write the report
    signed with the run's key, read and deleted before any submitted code runs."""
    key = key_file.read_bytes()
    key_file.unlink()
    sandbox.not_dumpable()  # the submission's processes cannot read the key from this one
    profile = os.environ.get("HYPOTHESIS_PROFILE", PROFILE)
    graded, failing = {}, frozenset()
    for number in chapters:
        ch = CHAPTERS[number]
        _, graded[number] = grade.grade_chapter(ch, "framework", profile, failing)
        failing |= {ex.id for ex, r in zip(ch.exercises, graded[number]) if grade.fails(ex, r)}
    body = json.dumps({"chapters": graded})
    signature = hmac.new(key, body.encode(), hashlib.sha256).hexdigest()
    report.write_text(json.dumps({"report": body, "signature": signature}))
    return 0


def verified(data: bytes | None, key: bytes, chapters: list[int],
             known: dict[str, list[str]]) -> tuple[dict | None, str]:
    """The grader's report if it carries the run's signature and every result in it is well
    formed, with the checks the grader registers; else None, and why."""
    if data is None:
        return None, "the grader wrote no report"
    try:
        outer = json.loads(data)
        body, signature = outer["report"], outer["signature"]
        expected = hmac.new(key, body.encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, signature):
            return None, "the grader's report does not carry this run's signature: it was rewritten"
        report = json.loads(body)
        for number in chapters:
            results = report["chapters"][str(number)]
            exercises = CHAPTERS[number].exercises
            if len(results) != len(exercises) or not all(
                    well_formed(r, ex, known[ex.id]) for ex, r in zip(exercises, results)):
                return None, f"chapter {number}'s results in the grader's report are malformed"
    except (ValueError, KeyError, TypeError, AttributeError):
        return None, "the grader's report is malformed"
    return report, ""


def well_formed(result: dict, ex: Exercise, names: list[str]) -> bool:
    """One exercise's result as `checks.tools.processes` makes it: its checks are the grader's,
    in order, all of them when they ran (an early stop lists the first, the rest not passed)."""
    checks = result["checks"]
    reported = [c["name"] for c in checks]
    return (result["exercise"] == ex.id and result["status"] in STATUSES
            and isinstance(result.get("message", ""), str)
            and all(isinstance(c["passed"], bool) for c in checks)
            and (reported == names if result["status"] == "ok" else reported == names[:len(reported)]))


def run_grader(copy: Path, chapters: list[int], profile: str, work: Path, limit: float,
               user: sandbox.User | None) -> tuple[dict | None, str, list[str]]:
    """Grade the copy as `user`, end all of that user's processes, check the report: the
    verified report (or None), the output kept, and what went wrong, if anything."""
    known = {ex.id: registered_checks(ex.id) for n in chapters for ex in CHAPTERS[n].exercises}
    private = work / "judge"
    private.mkdir(mode=0o700)
    scratch = sandbox.scratch(user, work)
    key = secrets.token_bytes(32)
    key_file = scratch / "key"
    key_file.write_bytes(key)
    if user is not None:
        os.chown(key_file, user.uid, user.gid)
    report = scratch / "report.json"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
           "HOME": str(scratch), "TMPDIR": str(scratch), "MPLCONFIGDIR": str(scratch),
           "NUMBA_CACHE_DIR": str(scratch), "PYTHONNOUSERSITE": "1",
           "IMPL": "framework", "HYPOTHESIS_PROFILE": profile, "MPLBACKEND": "Agg"}
    command = [sys.executable, "-m", "checks.tools.autograder", "--sandboxed", str(key_file),
               "--report", str(report), *(f"--chapter={n}" for n in chapters)]
    problems = []
    output = private / "output.txt"
    with open(output, "wb") as out:  # closed here once started: only the grader holds it
        process = sandbox.start(command, user, copy, env, out)
    if not sandbox.wait(process, limit):
        problems.append(f"grading did not finish within {limit:.0f} s")
    sandbox.end_group(process)
    if user is not None and not sandbox.end_all(user):
        problems.append("some processes the submission started could not be ended")
    graded, why = verified(sandbox.read_back(report, MAX_REPORT), key, chapters, known)
    if graded is None and not problems:
        problems.append(f"{why}: every exercise scores 0")
    return graded, sandbox.tail(output), problems


def exercise_output(ex: Exercise, result: dict, earned: int) -> str:
    """The verdict, and for an exercise that lost points what the grader tells a learner."""
    try:
        text = grade.verdict(result, ex.bonus)
        lost = not grade.passed_all(result) if ex.bonus else earned < ex.points
        if lost and result.get("status") != "not_implemented":
            text += "\n\n" + grade.details(ex, result)
    except Exception:  # a result this version of the table does not know how to show
        text = f"{result.get('status', 'no status')}: {result.get('message', '')}".strip()
    if len(text) > MAX_TEST_OUTPUT:
        text = text[:MAX_TEST_OUTPUT] + f"\n… ({len(text) - MAX_TEST_OUTPUT} more characters)"
    return text


def results_json(chapters: list[int], report: dict | None, output: str, seconds: float) -> dict:
    """Gradescope's results.json: one test per exercise, the total, the grader's table."""
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
    """results.json, replaced in one step (a reader sees the old file or the new one)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "results.json"
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".json")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        json.dump(results, file, indent=1, ensure_ascii=False)
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)
    return path


def grade_submission(root: Path, chapters: list[int], profile: str, start: float) -> dict:
    """results.json for the submission in root/submission: graded, or 0 and why not."""
    limit = float(os.environ.get("AUTOGRADER_TIMEOUT", TIME_LIMIT))
    user = sandbox.user()  # LookupError: no such user, graded as nobody rather than as root
    package = find_submission(root / "submission")
    if package is None:
        output = ("No framework/ package in your submission. Upload your repository (or its "
                  "framework/ folder) with framework/__init__.py in it.")
        return results_json(chapters, None, output, time.perf_counter() - start)
    work = Path(tempfile.mkdtemp(prefix="grading-"))
    try:
        os.chmod(work, 0o755)  # the sandbox user reads the copy; writes only its scratch folder
        copy, notes = prepare(ROOT, package, work)
        graded, printed, problems = run_grader(copy, chapters, profile, work, limit, user)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    seconds = time.perf_counter() - start
    where = package.relative_to(root / "submission").as_posix() or "."
    lines = [f"Graded {where} against the course's reference checks (hypothesis profile "
             f"{profile}) in {seconds:.0f} s: only the solution regions of the course's files."]
    if user is None:
        lines.append("(Not run as root: graded without a sandbox user.)")
    lines += notes
    lines += [problem[0].upper() + problem[1:] + "." for problem in problems]
    return results_json(chapters, graded, "\n".join(lines) + "\n" + printed, seconds)


def run(root: Path) -> int:
    """Grade root/submission and write root/results/results.json, whatever happens."""
    start = time.perf_counter()
    config = json.loads((ROOT / "autograder.json").read_text())
    chapters, profile = config["chapters"], config["profile"]
    sandbox.become_subreaper()
    try:
        results = grade_submission(root, chapters, profile, start)
    except Exception as error:  # a submission that cannot be prepared, a missing sandbox user
        output = (f"Your submission could not be graded: {type(error).__name__}: {error}. "
                  "Nothing was graded; every exercise scores 0.")
        results = results_json(chapters, None, output, time.perf_counter() - start)
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
    parser.add_argument("--sandboxed", type=Path, metavar="KEY_FILE",
                        help="grade as the sandbox user, signing --report with this key (--run)")
    parser.add_argument("--report", type=Path, help="where --sandboxed writes its report")
    args = parser.parse_args(argv)
    if args.sandboxed:
        return sandboxed(args.chapter, args.sandboxed, args.report)
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
