"""The worker: the process that runs the learner's code, and nothing of the grader's.

    python -m checks.worker FD     (started by `checks.remote.start_worker`, never by hand)

It imports the package under test (`IMPL`) and answers the judge's requests over the socket
FD (`checks.wire`): get or set an attribute, call, apply an operator, import a file of the
package or a fixture (`checks.fixtures.*`: trusted helpers that construct, never judge). It
holds no check, no hypothesis, no expected value, no report path, no nonce: whatever the code
under test does here (walk the stack, patch NumPy or the harness, print, exit) changes only
what it returns, which the judge checks. The judge's objects it is handed (callbacks, the
graders' own nodes) can only be called, and read by public attribute where the judge allows.

An error is answered with its facts, computed here where its traceback lives: the package's
frames (file, line, code), the rule a provided frame checked, a syntax error's place, and
whether the frame that raised held a read-only array the judge sent.
"""

from __future__ import annotations

import importlib
import linecache
import operator
import socket
import sys
import weakref
from pathlib import Path
from types import FunctionType

from checks import wire
from checks.loader import impl_folder, load_framework

OPERATORS = {
    **{name: getattr(operator, name) for name in (
        "add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift",
        "and_", "or_", "xor", "iadd", "isub", "imul", "imatmul", "itruediv", "ifloordiv", "imod",
        "ipow", "ilshift", "irshift", "ixor", "lt", "le", "eq", "ne", "gt", "ge", "neg", "pos",
        "abs", "invert", "getitem", "setitem", "delitem", "contains", "index")},
    "len": len, "iter": iter, "next": next, "bool": bool, "float": float, "int": int,
    "complex": complex, "hash": hash, "repr": repr, "str": str, "format": format, "round": round,
    "divmod": divmod, "dir": dir, "asarray": lambda x: numpy().asarray(x), "isinstance": isinstance,
}


def numpy():
    """NumPy, imported when first needed: a package that does not use it starts faster."""
    import numpy

    return numpy


class JudgeObject:
    """A judge's object lent to the learner's code: it can be called, and read by public name."""

    __slots__ = ("_what", "__weakref__")

    def __call__(self, *args, **kwargs):
        return CHANNEL.request("call", self, args, kwargs)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(f"the grader's {self._what} has no attribute {name!r} here")
        return CHANNEL.request("getattr", self, name)

    def __setattr__(self, name: str, value) -> None:
        raise AttributeError(f"the grader's {self._what} cannot be changed (setting {name!r})")

    def __repr__(self) -> str:
        return f"<the grader's {self._what}>"


class Worker:
    """The worker's side of the channel: its hooks, and the facts of an error."""

    def __init__(self):
        self.folder = impl_folder()
        self.classes_sent: set[int] = set()
        self.read_only: dict[int, weakref.ref] = {}  # read-only arrays the judge sent, by id

    def meta(self, value):
        if isinstance(value, type):
            return {"t": self.class_info(value)}
        return {"c": self.class_info(type(value))}

    def class_info(self, cls: type):
        key = CHANNEL.lend(cls)
        if key in self.classes_sent:
            return key
        self.classes_sent.add(key)
        bases = [self.class_info(b) for b in cls.__bases__ if b is not object]
        methods = [name for name, v in vars(cls).items()
                   if isinstance(v, FunctionType) and not name.startswith("__")]
        return [key, cls.__name__, cls.__module__, bases, methods]

    def proxy(self, key: int, meta) -> JudgeObject:
        proxy = object.__new__(JudgeObject)
        object.__setattr__(proxy, "_what", str(meta.get("what", "object"))[:80]
                           if isinstance(meta, dict) else "object")
        return proxy

    def serve(self, kind: str, args: list):
        if kind == "load":
            return load_framework()
        if kind == "import":
            (name,) = args
            if not (name == "framework" or name.startswith("framework.")):
                raise ImportError(f"the worker imports only the package under test, not {name}")
            return importlib.import_module(name)
        if kind == "fixture":
            (name,) = args
            if not name.isidentifier():
                raise ImportError(f"no fixture {name!r}")
            return importlib.import_module(f"checks.fixtures.{name}")
        if kind == "getattr":
            return getattr(*args)
        if kind == "setattr":
            return setattr(*args)
        if kind == "delattr":
            return delattr(*args)
        if kind == "call":
            function, positional, named = args
            return function(*positional, **named)
        if kind == "method":
            target, name, positional, named = args
            return getattr(target, name)(*positional, **named)
        if kind == "op":
            return OPERATORS[args[0]](*args[1:])
        raise wire.ProtocolError(f"no request {kind!r}")

    def decoded(self, value):
        np = sys.modules.get("numpy")
        if np is not None and isinstance(value, np.ndarray) and not value.flags.writeable:
            key = id(value)
            self.read_only[key] = weakref.ref(value, lambda _: self.read_only.pop(key, None))
        return value

    # -- an error's facts -----------------------------------------------------------------

    def in_package(self, filename: str) -> str | None:
        try:
            path = Path(filename).resolve().relative_to(self.folder).as_posix()
        except (ValueError, OSError):
            return None
        return path if path.startswith("framework/") else None

    def record(self, error: BaseException) -> tuple[dict, tuple]:
        facts = {"frames": [], "read_only_input": False}
        tb, last = error.__traceback__, None
        while tb is not None:
            file = self.in_package(tb.tb_frame.f_code.co_filename)
            if file:
                facts["frames"].append({
                    "file": file, "line": tb.tb_lineno, "name": tb.tb_frame.f_code.co_name,
                    "code": linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno).strip()})
                last = tb.tb_frame
            innermost, tb = tb.tb_frame, tb.tb_next
        if facts["frames"]:
            facts["frames"][-1]["rule"] = self.rule(last)
            facts["read_only_input"] = self.holds_read_only(innermost)
        if isinstance(error, SyntaxError) and self.in_package(error.filename or ""):
            facts["syntax"] = {"file": self.in_package(error.filename), "line": error.lineno or 0,
                               "msg": str(error.msg), "text": (error.text or "").strip()}
        return wire.exception_record(error, facts)

    def rule(self, frame) -> list | None:
        """Where a provided frame checked an op's rule (a BackwardNode): its file and lines."""
        import inspect

        function = getattr(frame.f_locals.get("self"), "function", None)
        try:
            lines, first = inspect.getsourcelines(getattr(function, "backward", None))
            file = self.in_package(inspect.getsourcefile(getattr(function, "backward", None)))
        except (TypeError, OSError):
            return None
        return [file, first, first + len(lines)] if file else None

    def holds_read_only(self, frame) -> bool:
        """Whether the frame that raised has a variable that is a read-only array the judge
        sent, or a view of one (a write into the grader's input)."""
        np = sys.modules.get("numpy")
        if np is None:
            return False
        arrays = [v for v in frame.f_locals.values() if isinstance(v, np.ndarray)]
        sent = [a for a in (ref() for ref in list(self.read_only.values())) if a is not None]
        return any(np.shares_memory(v, a) for v in arrays for a in sent)


CHANNEL: wire.Channel


def main() -> None:
    global CHANNEL
    fd = int(sys.argv[1])
    del sys.argv[1:]
    worker = Worker()
    CHANNEL = wire.Channel(socket.socket(fileno=fd), worker.meta, worker.proxy, worker.serve,
                           worker.record, wire.rebuild_exception, worker.decoded)
    del fd, worker
    try:
        CHANNEL.serve_forever()
    except wire.PeerEnded:  # the judge is done
        pass


if __name__ == "__main__":
    main()
