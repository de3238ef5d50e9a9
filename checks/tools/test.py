"""Everything CI runs, stage by stage, with the time of each at the end.

    python -m checks.tools.test                 # all stages
    python -m checks.tools.test --only proof    # one stage (repeatable)

Stages: lint, consistency (learner files match `make student`; table, markers and
headings agree), selftest, reference (IMPL=solutions scores 100 everywhere, `ci`
profile), stubs (the learner's untouched files: every exercise "not implemented
yet"), proof (stubs, random outputs and the bug zoo, `proof` profile), notebooks
(solutions/ under nbval, chapters/ run with the reference), bench (quick mode).
Not run by default: sweep (every check on the reference and the alternatives with the
`sweep` profile, 1,000 examples per check; run before each release, `make sweep`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from checks.exercises import CHAPTERS
from checks.loader import ROOT
from checks.tools.processes import ONE_BLAS_THREAD

PY = sys.executable


def run(command: list[str], **env: str) -> bool:
    print("+", " ".join(command), flush=True)
    return subprocess.run(command, cwd=ROOT, env={**os.environ, **env}).returncode == 0


def in_course() -> list[str]:
    return [str(n) for n, ch in CHAPTERS.items() if ch.in_course]


def lint() -> bool:
    return run([PY, "-m", "ruff", "check", "solutions/framework", "checks"])


def consistency() -> bool:
    return run([PY, "-m", "checks.tools.student", "--check"])


def selftest() -> bool:
    return run([PY, "-m", "pytest", "-q", "-p", "no:nbval", "checks/selftest"],
               HYPOTHESIS_PROFILE="ci", MPLBACKEND="Agg")


def reference() -> bool:
    return run([PY, "-m", "checks.tools.grade", *in_course()],
               IMPL="solutions", HYPOTHESIS_PROFILE="ci")


def stubs() -> bool:
    """The committed learner files grade as 'not implemented yet' everywhere, exit 1."""
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "stubs.json")
        run([PY, "-m", "checks.tools.grade", *in_course(), "--json", report], IMPL="framework")
        with open(report) as file:
            chapters = json.load(file)["chapters"]
    wrong = [(r["exercise"], r["status"]) for results in chapters.values()
             for r in results if r["status"] != "not_implemented"]
    for exercise_id, status in wrong:
        print(f"✗ exercise {exercise_id} on the stubs: {status}, not 'not implemented yet'")
    return not wrong


def proof() -> bool:
    return run([PY, "-m", "checks.tools.proof", *in_course()], HYPOTHESIS_PROFILE="proof")


# Reference notebooks whose full training is their committed output but too long for `make
# test`: nbval re-runs them with FRAMEWORK_QUICK=1 (short training, looser bars).
QUICK_REFERENCES = {"solutions/07_gpt.ipynb", "solutions/08_kernels.ipynb"}


def notebooks() -> bool:
    reference_run = [PY, "-m", "pytest", "-q", "--nbval-lax", "--nbval-current-env",
                     "--nbval-cell-timeout=900", "-p", "no:cacheprovider",
                     "-p", "checks.tools.nbval_patience"]
    solution_books = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "solutions").glob("*.ipynb"))
    chapter_books = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "chapters").glob("*.ipynb"))
    with ThreadPoolExecutor(max_workers=2) as pool:  # two kernels side by side, one core each
        full = [book for book in solution_books if book not in QUICK_REFERENCES]
        quick = [book for book in solution_books if book in QUICK_REFERENCES]
        solved = pool.submit(lambda: all([
            run(reference_run + full, MPLBACKEND="Agg", **ONE_BLAS_THREAD),
            not quick or run(reference_run + quick, MPLBACKEND="Agg", FRAMEWORK_QUICK="1",
                             **ONE_BLAS_THREAD)]))
        stubbed = pool.submit(run, reference_run + chapter_books, MPLBACKEND="Agg",
                              PYTHONPATH=str(ROOT / "solutions"), FRAMEWORK_QUICK="1",
                              **ONE_BLAS_THREAD)
        return solved.result() and stubbed.result()


def bench() -> bool:
    return run([PY, "-m", "checks.tools.bench", "--quick"], IMPL="solutions")


def sweep() -> bool:
    return run([PY, "-m", "checks.tools.sweep"])


STAGES = {
    "lint": lint, "consistency": consistency, "selftest": selftest, "reference": reference,
    "stubs": stubs, "proof": proof, "notebooks": notebooks, "bench": bench,
}
ON_REQUEST = {"sweep": sweep}  # stages run only when named with --only


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=[*STAGES, *ON_REQUEST], help="run only this stage")
    args = parser.parse_args(argv)
    times, results = {}, {}
    for name in args.only or STAGES:
        print(f"\n=== {name} ===", flush=True)
        start = time.perf_counter()
        results[name] = {**STAGES, **ON_REQUEST}[name]()
        times[name] = time.perf_counter() - start
    print("\nstage          result  seconds")
    for name in times:
        print(f"{name:<15}{'pass' if results[name] else 'FAIL':<8}{times[name]:>7.1f}")
    print(f"{'total':<23}{sum(times.values()):>7.1f}")
    passed, failed = sum(results.values()), len(results) - sum(results.values())
    print(f"{passed} passed, {failed} failed")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
