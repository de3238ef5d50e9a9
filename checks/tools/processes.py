"""Run exercises' checks in child processes, each under a time limit, in parallel."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

from checks.exercises import exercise
from checks.loader import ROOT

# Processes run side by side, one per core: a multithreaded BLAS in each would oversubscribe
# the cores, and OpenBLAS's spinning threads then run several times slower, not faster.
ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


STATUSES = ("ok", "error", "not_implemented", "blocked")


def run_exercise(
    exercise_id: str,
    impl: str,
    profile: str = "learner",
    flags: Iterable[str] = (),
    time_limit: float | None = None,
) -> dict:
    """One exercise's results, from `checks.tools.run_exercise` in a fresh process.

    The child writes them to a file named here, with a nonce it reads from stdin
    before importing the code under test: a result printed by that code does not count.
    """
    limit = time_limit or exercise(exercise_id).time_limit
    env = {**ONE_BLAS_THREAD, **os.environ, "IMPL": impl, "HYPOTHESIS_PROFILE": profile, "MPLBACKEND": "Agg"}
    handle, report = tempfile.mkstemp(prefix=f"checks-{exercise_id}-", suffix=".json")
    os.close(handle)
    nonce = secrets.token_hex(16)
    command = [sys.executable, "-m", "checks.tools.run_exercise", exercise_id, *flags,
               "--report", report]
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, input=nonce + "\n",
                              capture_output=True, text=True, timeout=limit)
        try:
            with open(report, encoding="utf-8") as file:
                text = file.read()
        except OSError:  # the code under test removed it: no report, as if none was written
            text = ""
    except subprocess.TimeoutExpired:
        return {
            "exercise": exercise_id, "status": "timeout", "checks": [],
            "message": f"no answer within {limit:.0f} s: an endless loop, or a walk "
            "that visits nodes more than once?",
        }
    finally:
        if os.path.exists(report):
            os.unlink(report)
    return received(exercise_id, text, nonce, done.returncode, done.stderr or done.stdout)


def received(exercise_id: str, text: str, nonce: str, returncode: int, output: str) -> dict:
    """The child's report if it is well formed and carries the nonce; otherwise an error."""
    tail = "\n  ".join(output.strip().splitlines()[-8:])
    if not text:
        ended = (f"was ended by signal {-returncode} (out of memory?)" if returncode < 0
                 else f"exited with code {returncode}")
        message = f"the checks' process {ended} before reporting — does your code call exit()?"
        return {"exercise": exercise_id, "status": "error", "checks": [],
                "message": message + (f"\n  {tail}" if tail else "")}
    try:
        report = json.loads(text)
        result = report["result"]
        well_formed = (
            report["nonce"] == nonce and result["exercise"] == exercise_id
            and result["status"] in STATUSES and isinstance(result["message"], str)
            and all(isinstance(c["name"], str) and isinstance(c["passed"], bool)
                    for c in result["checks"])
        )
    except (json.JSONDecodeError, KeyError, TypeError):
        well_formed = False
    if not well_formed:
        return {"exercise": exercise_id, "status": "error", "checks": [],
                "message": "the checks' report is malformed or not the grader's own: "
                "does your code write to files it did not create?"}
    return result


def run_many(jobs: list[tuple], workers: int | None = None) -> list[dict]:
    """`run_exercise(*job)` for every job, as many at once as there are cores."""
    workers = workers or max(1, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda job: run_exercise(*job), jobs))
