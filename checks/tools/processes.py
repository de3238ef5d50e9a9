"""Run exercises' checks in child processes, each under a time limit, in parallel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

from checks.exercises import exercise
from checks.loader import ROOT

# Processes run side by side, one per core: a multithreaded BLAS in each would oversubscribe
# the cores, and OpenBLAS's spinning threads then run several times slower, not faster.
ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def run_exercise(
    exercise_id: str,
    impl: str,
    profile: str = "learner",
    flags: Iterable[str] = (),
    time_limit: float | None = None,
) -> dict:
    """One exercise's results, from `checks.tools.run_exercise` in a fresh process."""
    limit = time_limit or exercise(exercise_id).time_limit
    env = {**ONE_BLAS_THREAD, **os.environ, "IMPL": impl, "HYPOTHESIS_PROFILE": profile, "MPLBACKEND": "Agg"}
    command = [sys.executable, "-m", "checks.tools.run_exercise", exercise_id, *flags]
    try:
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=limit
        )
    except subprocess.TimeoutExpired:
        return {
            "exercise": exercise_id, "status": "timeout", "checks": [],
            "message": f"no answer within {limit:.0f} s: an endless loop, or a walk "
            "that visits nodes more than once?",
        }
    lines = done.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        tail = (done.stderr or done.stdout).strip().splitlines()[-8:]
        return {
            "exercise": exercise_id, "status": "error", "checks": [],
            "message": "the checks crashed:\n  " + "\n  ".join(tail),
        }


def run_many(jobs: list[tuple], workers: int | None = None) -> list[dict]:
    """`run_exercise(*job)` for every job, as many at once as there are cores."""
    workers = workers or max(1, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda job: run_exercise(*job), jobs))
