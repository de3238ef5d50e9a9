"""The judge's side of the split: the learner's code as proxies of objects in a worker process.

For a chapter whose `Chapter.worker` is set, `run_exercise` (the judge) starts one worker
(`checks.worker`, by `start_worker` only) and imports the chapter's grader, whose
`framework()` is then a proxy of the package in the worker. The judge keeps everything that
decides: hypothesis, the inputs, finite differences, every comparison, the score, the report.
The worker holds the learner's code and what it builds; the two talk by data only
(`checks.wire`, no pickle).

A proxy stands for one object of the worker's: an attribute read, a call, an operator
(arithmetic, comparisons, indexing, len, iter, bool, float, hash, with, repr) is a request,
answered by value for numbers, strings, containers and arrays, by another proxy for anything
else. One proxy per remote object while it lives, so `is` and `id()` mean what they did; a
class of the worker's is a class here (a `RemoteClass`), so `isinstance(x, fw.Value)` works
and calling it constructs in the worker. Every request is a round trip between processes, so
the common ones are one each: `x.method(…)` for a method the class defines (`Method`), and
`fw.Value`, read once from the module and kept (`RemoteModule`). An error raised there is
raised here as the same builtin type with its message; the facts that messages need (the
package's frames, whether the code wrote into a read-only input) are in `facts(error)`.

What the judge hands the worker goes by value too, except its own objects (lambdas,
recording callbacks, the graders' own nodes): those are lent, and the worker may only call
them, or read a public attribute of an instance of a class marked `@shared`. Code that must
run next to the learner's (a subclass of a learner's class, a graph 100,000 nodes deep)
is in `checks.fixtures`, which the worker imports on request: fixtures construct, the judge
checks what they return.
"""

from __future__ import annotations

import ctypes
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np

from checks import wire
from checks.loader import ROOT, impl_folder

PR_SET_DUMPABLE = 4  # prctl's option number, from <linux/prctl.h>

_worker: subprocess.Popen | None = None
_channel: wire.Channel | None = None
_framework = None


class ProcessEnded(RuntimeError):
    """The worker ended while the judge waited for it: no later request can be answered."""


def start_worker(impl: Path) -> tuple[subprocess.Popen, socket.socket]:
    """Start the worker on `impl`'s package: the one place it starts (a sandbox runs it as
    another user). Its argv holds the socket's number only, its environment no hypothesis
    setting; it gets no stdin, and its output goes where the judge's goes."""
    judge_end, worker_end = socket.socketpair()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYPOTHESIS")}
    # the judge's import path as it is, without running the site's .pth hooks again (-S)
    env.update(IMPL=str(impl), PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    process = subprocess.Popen(
        [sys.executable, "-S", "-m", "checks.worker", str(worker_end.fileno())], cwd=ROOT, env=env,
        stdin=subprocess.DEVNULL, pass_fds=(worker_end.fileno(),))
    worker_end.close()
    return process, judge_end


def undumpable() -> None:
    """Close this process's memory to other processes of its user (Linux's PR_SET_DUMPABLE 0):
    the worker, running as the same user locally, cannot read the nonce out of the judge."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def connect(impl: str | None = None) -> None:
    """Start the worker and open the channel; `framework()` is its package from now on."""
    global _worker, _channel
    undumpable()
    _worker, sock = start_worker(impl_folder(impl))
    judge = Judge()
    _channel = wire.Channel(sock, judge.meta, judge.proxy, judge.serve, judge.record,
                            wire.rebuild_exception)


def connected() -> bool:
    return _channel is not None


def close() -> None:
    """End the worker (before the verdict is written: nothing of it runs after)."""
    if _worker is not None and _worker.poll() is None:
        _worker.kill()
        _worker.wait()


def ask(kind: str, *args):
    """One request to the worker; its answer, or its error raised here."""
    try:
        return _channel.request(kind, *args)
    except (wire.PeerEnded, BrokenPipeError, ConnectionResetError):
        from checks.tools.plain import ended

        try:
            how = ended(_worker.wait(timeout=5))
        except subprocess.TimeoutExpired:
            how = "stopped answering"
        raise ProcessEnded(
            f"the process running the code under test {how} (os._exit(), a crash or a "
            "signal): remove the exit or fix the crash; the checks after this one could not "
            "run either") from None


def framework():
    """The package under test, in the worker."""
    global _framework
    if _framework is None:
        _framework = ask("load")
    return _framework


_submodules: dict[str, object] = {}
_fixtures: dict[str, object] = {}


def submodule(name: str):
    """`framework.<name>` imported in the worker (a file the package does not import itself)."""
    if name not in _submodules:
        _submodules[name] = ask("import", f"framework.{name}")
    return _submodules[name]


def fixture(name: str):
    """`checks.fixtures.<name>`, imported in the worker: helpers that construct there."""
    if name not in _fixtures:
        _fixtures[name] = ask("fixture", name)
    return _fixtures[name]


def facts(error: BaseException) -> dict | None:
    """What the worker recorded of an error it raised; None for the judge's own errors."""
    found = getattr(error, "remote_facts", None)
    return found if isinstance(found, dict) else None


def shared(cls: type) -> type:
    """Mark a grader's class whose instances the learner's code may read (public names only)."""
    cls._shared_with_worker = True
    return cls


# -- proxies --------------------------------------------------------------------------------


class RemoteClass(type):
    """A class of the worker's, seen here: calling it constructs there."""

    def __call__(cls, *args, **kwargs):
        return ask("call", cls, args, kwargs)

    def __getattr__(cls, name: str):
        return ask("getattr", cls, name)

    def __setattr__(cls, name: str, value) -> None:
        ask("setattr", cls, name, value)


LOCAL_ONLY = ("__array_", "_repr_", "_ipython", "__length_hint__", "__getstate__")


class Proxy:
    """An object of the worker's: what is done to it is done there."""

    __slots__ = ("__weakref__",)

    def __getattr__(self, name: str):
        if name.startswith(LOCAL_ONLY):  # NumPy's and IPython's probes: no round trip
            raise AttributeError(name)
        return ask("getattr", self, name)

    def __setattr__(self, name: str, value) -> None:
        ask("setattr", self, name, value)

    def __delattr__(self, name: str) -> None:
        ask("delattr", self, name)

    def __call__(self, *args, **kwargs):
        return ask("call", self, args, kwargs)

    def __repr__(self) -> str:
        try:
            return ask("op", "repr", self)
        except Exception:
            return "<an object of the code under test>"

    def __str__(self) -> str:
        return ask("op", "str", self)

    def __format__(self, spec: str) -> str:
        return ask("op", "format", self, spec)

    def __hash__(self) -> int:
        return ask("op", "hash", self)

    def __array__(self, dtype=None, copy=None):
        array = ask("op", "asarray", self)
        if not isinstance(array, np.ndarray):  # an object that is no array: a 0-d object array
            array = np.empty((), dtype=object)
            array[()] = self
        return array if dtype is None else array.astype(dtype)

    def __enter__(self):
        return ask("method", self, "__enter__", (), {})

    def __exit__(self, *error) -> None:
        # the judge's exception stays here: the worker's context ends as if none was raised
        ask("method", self, "__exit__", (None, None, None), {})


class RemoteModule(Proxy):
    """A module of the worker's: the classes and functions read from it are kept here, so
    `fw.Value(…)` is one request (a module attribute the judge sets is read afresh)."""

    __slots__ = ()

    def __getattr__(self, name: str):
        kept = _module_attributes.setdefault(id(self), {})
        if name not in kept:
            value = Proxy.__getattr__(self, name)
            if not isinstance(value, (RemoteClass, Proxy)):
                return value
            kept[name] = value
        return kept[name]

    def __setattr__(self, name: str, value) -> None:
        _module_attributes.get(id(self), {}).pop(name, None)
        Proxy.__setattr__(self, name, value)


_module_attributes: dict[int, dict] = {}  # the modules' proxies live as long as the judge


def _operator(name: str, reflected: bool = False):
    if reflected:
        return lambda self, other: ask("op", name, other, self)
    return lambda self, *others: ask("op", name, self, *others)


def _method(name: str):
    return lambda self, *args: ask("method", self, name, args, {})


for _name in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift",
              "rshift", "and", "or", "xor"):
    _op = _name + "_" if _name in ("and", "or") else _name
    setattr(Proxy, f"__{_name}__", _operator(_op))
    setattr(Proxy, f"__r{_name}__", _operator(_op, reflected=True))
    setattr(Proxy, f"__i{_name}__", _operator("i" + _name if _op == _name else _op))
for _name in ("lt", "le", "eq", "ne", "gt", "ge", "neg", "pos", "abs", "invert", "getitem",
              "setitem", "delitem", "contains", "index"):
    setattr(Proxy, f"__{_name}__", _operator(_name))
for _name, _op in (("len", "len"), ("iter", "iter"), ("next", "next"), ("bool", "bool"),
                   ("float", "float"), ("int", "int"), ("complex", "complex"), ("dir", "dir")):
    setattr(Proxy, f"__{_name}__", _operator(_op))
for _name in ("__round__", "__trunc__", "__floor__", "__ceil__", "__reversed__"):
    setattr(Proxy, _name, _method(_name))


class Method:
    """A method the worker's class defines: `proxy.name(...)` is one request, not a read and a
    call (an instance attribute of the same name still wins: the worker looks it up)."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, instance, owner):
        if instance is None:
            return ask("getattr", owner, self.name)
        return wire.BoundMethod(instance, self.name, _call_method)


def _call_method(target, name: str, args: tuple, kwargs: dict):
    return ask("method", target, name, args, kwargs)


class Judge:
    """The judge's side of the channel: its hooks."""

    def __init__(self):
        self.classes: dict[int, type] = {}

    def meta(self, value) -> dict:
        return {"what": type(value).__name__}

    def proxy(self, key: int, meta):
        if not isinstance(meta, dict):
            raise wire.ProtocolError("a handle without its class")
        if "t" in meta:
            return self.remote_class(meta["t"])
        return object.__new__(self.remote_class(meta["c"]))

    def remote_class(self, info) -> type:
        """The class here of a worker's class: `info` is its key, or [key, name, module, bases]
        the first time."""
        if isinstance(info, int):
            return self.classes[info]
        key, name, module, bases, methods = info
        if key not in self.classes:
            parents = tuple(self.remote_class(b) for b in bases) or (
                (RemoteModule,) if (name, module) == ("module", "builtins") else (Proxy,))
            namespace = {"__slots__": (), "__module__": str(module),
                         **{str(m): Method(str(m)) for m in methods}}
            try:
                cls = RemoteClass(str(name), parents, namespace)
            except TypeError:  # bases that cannot be combined here: the class alone
                cls = RemoteClass(str(name), (Proxy,), namespace)
            self.classes[key] = cls
            _channel.adopt(key, cls)
        return self.classes[key]

    def serve(self, kind: str, args: list):
        """The worker's requests: call a lent object; read a public attribute of a shared one."""
        if kind == "call":
            target, positional, named = args
            if isinstance(target, (Proxy, RemoteClass)) or not callable(target):
                raise TypeError("only the grader's callbacks can be called from here")
            return target(*positional, **named)
        if kind == "getattr":
            target, name = args
            if isinstance(target, (Proxy, RemoteClass)) or not isinstance(name, str) \
                    or name.startswith("_") \
                    or getattr(type(target), "_shared_with_worker", False) is not True:
                raise AttributeError(f"the grader's {type(target).__name__} has no readable "
                                     f"attribute {name!r}")
            return getattr(target, name)
        raise wire.ProtocolError(f"the judge answers no request {kind!r}")

    def record(self, error: BaseException) -> tuple[dict, tuple]:
        record, (args, _) = wire.exception_record(error)
        return record, (args, error)
