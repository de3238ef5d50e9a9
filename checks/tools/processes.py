"""Run exercises' checks in child processes, each under a time limit, in parallel."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor, wait

from checks.exercises import exercise
from checks.loader import ROOT
from checks.tools import plain
from checks.tools.registered import registered_checks

# Processes run side by side, one per core: a multithreaded BLAS in each would oversubscribe
# the cores, and OpenBLAS's spinning threads then run several times slower, not faster.
ONE_BLAS_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


STATUSES = ("ok", "error", "not_implemented", "blocked", "import_error")
OUTPUT_TAIL = 4000

# the children running now, so that Ctrl-C in the grader can end them (each leads its group)
_running: set[subprocess.Popen] = set()
_running_lock = threading.Lock()
_stopping = threading.Event()


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during `run_many`: `results` holds every job's result, "interrupted" if unfinished."""

    def __init__(self, results: list[dict]):
        super().__init__()
        self.results = results


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
    The report is read once the child has exited; its output goes to a file, not a pipe,
    so a process it left behind holding that output cannot delay the verdict.
    """
    limit = time_limit or exercise(exercise_id).time_limit
    env = {**ONE_BLAS_THREAD, **os.environ, "IMPL": impl, "HYPOTHESIS_PROFILE": profile, "MPLBACKEND": "Agg"}
    nonce = secrets.token_hex(16)
    with tempfile.TemporaryDirectory(prefix=f"checks-{exercise_id}-") as folder:
        report = os.path.join(folder, "report.json")
        command = [sys.executable, "-m", "checks.tools.run_exercise", exercise_id, *flags,
                   "--report", report]
        with open(os.path.join(folder, "output"), "w+", encoding="utf-8", errors="replace") as out:
            returncode = run_child(command, env, nonce, out, limit)
            if returncode is None:
                return {"exercise": exercise_id, "status": "timeout", "checks": [],
                        "message": f"no answer within {limit:.0f} s: an endless loop, or a walk "
                        "that visits nodes more than once?"}
            out.seek(max(0, os.fstat(out.fileno()).st_size - OUTPUT_TAIL))
            output = out.read()
        try:
            with open(report, encoding="utf-8") as file:
                text = file.read()
        except (OSError, UnicodeDecodeError):  # removed or garbled by the code under test
            text = ""
    if not text and _stopping.is_set():  # ended by Ctrl-C in the grader
        return interrupted(exercise_id)
    return received(exercise_id, text, nonce, returncode, output)


def run_child(command: list[str], env: dict, nonce: str, out, limit: float) -> int | None:
    """Run the child in a group of its own; its exit status, or None when past `limit`.

    Whatever it started and left running is ended with it.
    """
    if _stopping.is_set():  # Ctrl-C came before it started: it never starts
        return 0
    child = subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=out,
                             stderr=subprocess.STDOUT, start_new_session=True)
    with _running_lock:
        _running.add(child)
    try:
        try:
            child.stdin.write((nonce + "\n").encode())
            child.stdin.close()
        except OSError:  # it ended before reading its nonce
            pass
        try:
            return child.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            end_group(child)
            child.wait()
            return None
    finally:
        end_group(child)
        with _running_lock:
            _running.discard(child)


def end_group(child: subprocess.Popen) -> None:
    """Kill the child's process group: the child and whatever it started (the child alone off POSIX)."""
    if not hasattr(os, "killpg"):
        child.kill()
        return
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # the group has already ended
        pass


def interrupted(exercise_id: str) -> dict:
    return {"exercise": exercise_id, "status": "interrupted", "checks": [],
            "message": "interrupted (Ctrl-C) before it finished"}


def received(exercise_id: str, text: str, nonce: str, returncode: int, output: str) -> dict:
    """The child's report if it is well formed, carries the nonce and the grader's own checks.

    A report lists the checks its exercise's grader registers, in order; one that stops
    early (at the first failure, or at Ctrl-C) lists the first of them, and the others
    count as not passed.
    """
    # what it printed last, a traceback with only the package's frames (framework/…)
    tail = "\n  ".join(plain.output(output).strip().splitlines()[-8:])
    if not text:
        message = f"the checks' process {plain.ended(returncode)} before reporting"
        if returncode >= 0:
            message += " — does your code call exit()?"
        return {"exercise": exercise_id, "status": "error", "checks": [],
                "message": message + (f"\n  {tail}" if tail else "")}
    names = registered_checks(exercise_id)
    try:
        report = json.loads(text)
        result = report["result"]
        reported = [c["name"] for c in result["checks"]]
        well_formed = (
            report["nonce"] == nonce and result["exercise"] == exercise_id
            and result["status"] in STATUSES and isinstance(result["message"], str)
            and all(isinstance(c["passed"], bool) for c in result["checks"])
            and reported == names[:len(reported)]
            and all(isinstance(k, str) and isinstance(v, str)
                    for k, v in result.get("values", {}).items())
        )
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
        well_formed = False
    if not well_formed:
        return {"exercise": exercise_id, "status": "error", "checks": [],
                "message": "the checks' report is malformed or not the grader's own: "
                "does your code write to files it did not create?"}
    if result["status"] == "ok" and "values" not in result:
        result["checks"] += [{"name": name, "passed": False, "not_run": True}
                             for name in names[len(reported):]]
    return result


def run_many(jobs: list[tuple], workers: int | None = None) -> list[dict]:
    """`run_exercise(*job)` for every job, as many at once as there are cores.

    Ctrl-C ends every child and raises `Interrupted` with the results so far.
    """
    workers = workers or max(1, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run_exercise, *job) for job in jobs]
        try:
            wait(futures)
        except KeyboardInterrupt:
            stop(futures)
            raise Interrupted([
                f.result() if f.done() and not f.cancelled() else interrupted(job[0])
                for f, job in zip(futures, jobs)
            ]) from None
    return [f.result() for f in futures]


def stop(futures: list) -> None:
    """End every running child and wait for their threads; the jobs not started never start."""
    _stopping.set()
    try:
        for future in futures:
            future.cancel()
        with _running_lock:
            for child in _running:
                end_group(child)
        wait(futures)
    finally:
        _stopping.clear()
