"""Run untrusted code as an unprivileged user, and end everything it started.

    user = sandbox.user()                           # AUTOGRADER_USER; None unless root
    folder = sandbox.scratch(user, parent)          # the one folder that user may write
    with open(output, "wb") as out:
        process = sandbox.start(command, user, cwd=..., env=..., output=out)
        process.wait(timeout=...)
    sandbox.end_all(user)                           # every process of that user, however started
    text = sandbox.tail(output)                     # the last 64 KB it printed

What the Gradescope zip's judge (root) uses to grade a submission: the user cannot write
the judge's files, signal its processes or read its open files (/proc/<pid>/fd of another
user's process is closed to it), so only what the judge reads back and checks counts.
Linux only (setuid, kill(-1), prctl).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pwd
import resource
import signal
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

USER_VARIABLE = "AUTOGRADER_USER"  # a name, a uid, or uid:gid (a uid needs no account)
DEFAULT_USER = "sandbox"  # the user setup.sh creates
OUTPUT_KEPT = 64 * 1024  # bytes of output shown: the end, where the score table is
FILE_SIZE_LIMIT = 1 << 30  # no file the user writes grows past this (RLIMIT_FSIZE)
PROCESS_LIMIT = 4096  # processes and threads of the user at once (RLIMIT_NPROC)
PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 36, 4, 38


@dataclass(frozen=True)
class User:
    name: str
    uid: int
    gid: int


def user(spec: str | None = None) -> User | None:
    """The sandbox user `spec` (default: $AUTOGRADER_USER, else "sandbox") names, or None when
    this process is not root and so cannot switch users. LookupError for an unknown name."""
    if os.geteuid() != 0:
        return None
    spec = spec or os.environ.get(USER_VARIABLE) or DEFAULT_USER
    name, _, group = spec.partition(":")
    if name.isdigit():
        uid = int(name)
        gid = int(group) if group.isdigit() else uid
    else:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            raise LookupError(f"no user {name!r}: setup.sh creates it (useradd), or set "
                              f"{USER_VARIABLE} to an existing user or a free uid") from None
        uid, gid = entry.pw_uid, entry.pw_gid
    if uid == 0 or gid == 0:
        raise LookupError(f"{USER_VARIABLE}={spec!r} is root: name an unprivileged user")
    return User(name, uid, gid)


def scratch(user: User | None, parent: Path) -> Path:
    """A new folder in `parent` that `user` owns and nobody else may enter."""
    folder = parent / "scratch"
    folder.mkdir(mode=0o700)
    if user is not None:
        os.chown(folder, user.uid, user.gid)
    return folder


def start(command: list[str], user: User | None, cwd: Path, env: dict[str, str],
          output: BinaryIO) -> subprocess.Popen:
    """`command` as `user` (no other groups), in a session of its own, with stdin /dev/null,
    stdout and stderr `output` and no other open file; its files and processes bounded, and
    no setuid program run by it gains privileges. `user` None: as this process's user."""
    identity = {} if user is None else {"user": user.uid, "group": user.gid, "extra_groups": []}
    return subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=output,
                            stderr=subprocess.STDOUT, close_fds=True, start_new_session=True,
                            preexec_fn=_bounded if user is not None else None, **identity)


def _bounded() -> None:
    """In the child, before it runs the command (hard limits: it cannot raise them again)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
    resource.setrlimit(resource.RLIMIT_NPROC, (PROCESS_LIMIT, PROCESS_LIMIT))
    os.umask(0o077)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)


_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, value: int) -> None:
    if _libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}, {value}) failed")


def become_subreaper() -> None:
    """Make the orphans of this process's descendants its children, for `end_all` to reap:
    a process of the user that was killed is gone only once someone has waited for it."""
    _prctl(PR_SET_CHILD_SUBREAPER, 1)


def not_dumpable() -> None:
    """Close this process to other processes of its own user: no ptrace, no /proc/<pid>/mem,
    fd or environ. Its children get their own setting back when they exec."""
    _prctl(PR_SET_DUMPABLE, 0)


def end_all(user: User, within: float = 10.0) -> bool:
    """SIGKILL every process of `user`, whatever session, group or environment it has: a
    helper that is that user sends kill(-1) (to every process it may signal: exactly that
    user's) until none is left. True when none is, within `within` seconds."""
    killer = os.fork()
    if killer == 0:
        code = 1
        try:
            os.setgroups([])
            os.setgid(user.gid)
            os.setuid(user.uid)
            # kill(-1) succeeds whether it signalled anyone or not; a fork succeeds under
            # this limit only while the helper is the user's one process (a zombie counts)
            resource.setrlimit(resource.RLIMIT_NPROC, (2, 2))
            deadline = time.monotonic() + within
            while time.monotonic() < deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(-1, signal.SIGKILL)
                if _alone():
                    code = 0
                    break
                time.sleep(0.002)  # for the killed to be reaped
        finally:
            os._exit(code)
    while True:  # reap the killed (this process is their subreaper) until the killer is done
        pid, status = os.waitpid(-1, 0)
        if pid == killer:
            reap()
            return os.waitstatus_to_exitcode(status) == 0


def _alone() -> bool:
    """Whether this process can fork, that is, is the only one of its user (see end_all)."""
    try:
        probe = os.fork()
    except BlockingIOError:
        return False
    if probe == 0:
        os._exit(0)
    os.waitpid(probe, 0)
    return True


def reap() -> None:
    """Wait for every child that has ended, without blocking."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def wait(process: subprocess.Popen, timeout: float) -> bool:
    """Wait for `process`, reaping meanwhile every other child that ends (the orphans of the
    sandbox, which come to this subreaper, hold a place of the user's process limit until
    then). False when it is still running after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # waited for already
            return True
        if pid == process.pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return True
        if pid == 0:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)


def end_group(process: subprocess.Popen) -> None:
    """SIGKILL the process's group (its session, as `start` makes it) and wait for it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    if process.returncode is None:
        process.wait()


def tail(path: Path, limit: int = OUTPUT_KEPT) -> str:
    """The last `limit` bytes of a file, as text, saying so when the start was cut off."""
    with open(path, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        file.seek(max(0, size - limit))
        text = file.read(limit).decode("utf-8", errors="replace")
    if size > limit:
        text = f"(the output is {size} bytes: its last {limit // 1024} KB follow)\n" + text
    return text


def read_back(path: Path, limit: int) -> bytes | None:
    """A file the sandbox wrote: its bytes if it is a regular file (not a link, a FIFO or a
    device) of at most `limit` bytes, else None."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(handle, "rb") as file:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        data = file.read(limit + 1)
    return data if len(data) <= limit else None
