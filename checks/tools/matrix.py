"""Every supported Python × NumPy: the graders on the reference and the selftests in each.

    python -m checks.tools.matrix                          # 3.10-3.13 × NumPy 1.26 and 2.x
    python -m checks.tools.matrix --python 3.10 --numpy 1.26

For each interpreter found and each NumPy line, a venv under build/matrix/ gets the course
(`pip install -e .[dev]` with NumPy pinned), then runs every grader on the reference
(IMPL=solutions, `ci` profile) and the selftests. The table at the end says which
combination passed, which failed, which was skipped and why (no such interpreter here, or no
NumPy wheel for it: nothing is built from source), and which NumPy line is below the course's
own requirement in pyproject.toml (unsupported; the README says why).

Interpreters are looked for, in this order: `MATRIX_PYTHONS` (paths separated by the
path separator), `python3.X` on PATH, then `$(pyenv root)/versions/3.X.*`. Each candidate
is run to confirm its version, so a pyenv shim for a version not selected is passed over.
Downloads come from the package index pip is configured with; `make test` needs none of this.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from checks.exercises import CHAPTERS
from checks.loader import ROOT

BUILD = ROOT / "build" / "matrix"
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
NUMPYS = {"1.26": "numpy>=1.26,<1.27", "2.x": "numpy>=2,<3"}
NO_WHEEL = "No matching distribution found"
CONFLICT = "conflicting dependencies"


def numpy_floor() -> str:
    """The course's NumPy requirement, as pyproject.toml states it."""
    found = re.search(r'"(numpy[^"]*)"', (ROOT / "pyproject.toml").read_text())
    return found.group(1) if found else "numpy"


@dataclass
class Outcome:
    python: str
    numpy: str
    status: str = "skipped"  # pass, FAIL, skipped (no interpreter, no wheel) or unsupported
    reason: str = ""
    versions: str = ""
    stages: dict[str, bool] = field(default_factory=dict)
    seconds: float = 0.0


def reports_version(candidate: str, version: str) -> bool:
    try:
        done = subprocess.run(
            [candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and done.stdout.strip() == version


def pyenv_candidates(version: str) -> list[str]:
    root = os.environ.get("PYENV_ROOT")
    if not root and shutil.which("pyenv"):
        done = subprocess.run(["pyenv", "root"], capture_output=True, text=True)
        root = done.stdout.strip() if done.returncode == 0 else None
    if not root:
        return []
    folders = sorted(Path(root, "versions").glob(f"{version}.*"),
                     key=lambda p: [int(part) for part in p.name.split(".") if part.isdigit()],
                     reverse=True)
    return [str(folder / "bin" / f"python{version}") for folder in folders]


def find_python(version: str) -> str | None:
    """An interpreter of this version that runs, or None."""
    listed = [p for p in os.environ.get("MATRIX_PYTHONS", "").split(os.pathsep) if p]
    on_path = shutil.which(f"python{version}")
    for candidate in [*listed, *([on_path] if on_path else []), *pyenv_candidates(version)]:
        if reports_version(candidate, version):
            return candidate
    return None


def step(python: Path, args: list[str], log, **env: str) -> tuple[int, str]:
    """Run one command in the combination's venv, its output to the log; (status, output)."""
    log.write(f"\n+ {' '.join(args)}\n")
    log.flush()
    done = subprocess.run([str(python), *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "MPLBACKEND": "Agg", **env})
    log.write(done.stdout + done.stderr)
    log.flush()
    return done.returncode, done.stdout + done.stderr


def run_combination(interpreter: str, outcome: Outcome, chapters: list[str]) -> None:
    folder = BUILD / f"py{outcome.python}-numpy{outcome.numpy}"
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with open(folder / "log.txt", "w") as log:
        if not (folder / "venv").exists():
            subprocess.run([interpreter, "-m", "venv", str(folder / "venv")], check=True)
        python = folder / "venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
        pin = NUMPYS[outcome.numpy]
        # NumPy first, wheels only: a line with no wheel for this Python is skipped, not built
        status, output = step(python, ["-m", "pip", "install", "--quiet", "--only-binary=numpy",
                                       pin], log)
        if status != 0:
            outcome.status = "skipped" if NO_WHEEL in output else "FAIL"
            outcome.reason = (f"NumPy {outcome.numpy} has no wheel for Python {outcome.python}"
                              if NO_WHEEL in output else "NumPy did not install (see log.txt)")
            outcome.seconds = time.perf_counter() - start
            return
        status, output = step(python, ["-m", "pip", "install", "--quiet", "--only-binary=numpy",
                                       "-e", ".[dev]", pin], log)
        if status != 0 and CONFLICT in output:
            outcome.status, outcome.reason = "unsupported", f"pyproject.toml requires {numpy_floor()}"
            outcome.seconds = time.perf_counter() - start
            return
        outcome.stages["install"] = status == 0
        _, versions = step(python, ["-c", "import sys, numpy; print(sys.version.split()[0], "
                                    "numpy.__version__)"], log)
        outcome.versions = versions.strip().splitlines()[-1] if versions.strip() else "?"
        if outcome.stages["install"]:
            status, _ = step(python, ["-m", "checks.tools.grade", *chapters,
                                      "--json", str(folder / "reference.json")],
                             log, IMPL="solutions", HYPOTHESIS_PROFILE="ci")
            outcome.stages["reference"] = status == 0
            status, _ = step(python, ["-m", "pytest", "-q", "-p", "no:nbval", "checks/selftest"],
                             log, HYPOTHESIS_PROFILE="ci")
            outcome.stages["selftest"] = status == 0
    outcome.seconds = time.perf_counter() - start
    outcome.status = "pass" if all(outcome.stages.values()) else "FAIL"
    if outcome.status == "FAIL":
        failed = ", ".join(name for name, ok in outcome.stages.items() if not ok)
        outcome.reason = f"{failed} failed: see {(folder / 'log.txt').relative_to(ROOT)}"


def table(outcomes: list[Outcome]) -> str:
    lines = [f"{'python':<8}{'numpy':<7}{'result':<13}{'versions':<17}{'install':<9}"
             f"{'reference':<11}{'selftest':<10}{'minutes':>7}  note"]
    for o in outcomes:
        marks = [{True: "pass", False: "FAIL"}.get(o.stages.get(s), "-")
                 for s in ("install", "reference", "selftest")]
        minutes = f"{o.seconds / 60:.1f}" if o.seconds else "-"
        lines.append(f"{o.python:<8}{o.numpy:<7}{o.status:<13}{o.versions or '-':<17}"
                     f"{marks[0]:<9}{marks[1]:<11}{marks[2]:<10}{minutes:>7}  {o.reason}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", choices=PYTHONS,
                        help="only this interpreter version (repeatable)")
    parser.add_argument("--numpy", action="append", choices=NUMPYS,
                        help="only this NumPy line (repeatable)")
    args = parser.parse_args(argv)
    chapters = [str(n) for n, ch in CHAPTERS.items() if ch.in_course]
    outcomes = []
    for version in args.python or PYTHONS:
        interpreter = find_python(version)
        for line in args.numpy or NUMPYS:
            outcome = Outcome(version, line)
            outcomes.append(outcome)
            if interpreter is None:
                outcome.reason = (f"no Python {version} here (PATH, MATRIX_PYTHONS, "
                                  "pyenv root)")
                continue
            print(f"=== Python {version} ({interpreter}) × NumPy {line}", flush=True)
            run_combination(interpreter, outcome, chapters)
            print(table([outcome]).splitlines()[1], flush=True)
    print("\n" + table(outcomes))
    BUILD.mkdir(parents=True, exist_ok=True)
    with open(BUILD / "results.json", "w") as file:
        json.dump([o.__dict__ for o in outcomes], file, indent=1)
    skipped = [o for o in outcomes if o.status in ("skipped", "unsupported")]
    if skipped:
        print("\nNot run, so not passed:")
        for o in skipped:
            print(f"  Python {o.python} × NumPy {o.numpy}: {o.reason}")
    return 0 if all(o.status != "FAIL" for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
