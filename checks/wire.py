"""The wire between the judge and the worker: plain data only, never pickle.

The judge (`checks.remote`, the grader's process) and the worker (`checks.worker`, the
process that runs the learner's code) exchange messages over one socket. A message is a
JSON header followed by raw buffers; a value is encoded as

- itself: None, bool, int, float, str;
- a tagged list: ["L", items] list, ["T", items] tuple, ["D", keys, values] dict,
  ["Z", items] set, ["F", items] frozenset, ["C", re, im] complex, ["B", i] bytes,
  ["S", start, stop, step] slice, ["E"] Ellipsis, ["A", dtype, shape, i, writeable, order]
  array, ["N", dtype, i] NumPy scalar, ["Y", dtype] dtype (`i` a buffer's index);
- a handle: ["M", key, meta] an object of the sender's ("mine", lent by reference), ["U", key]
  an object of the receiver's coming back ("yours"), ["W", handle, name] a method of one of
  the worker's objects (which only the worker decodes: the judge never looks a name up).

Decoding builds nothing but these: no class is looked up by name, no code runs, so a message
from the learner's side can at worst carry wrong values, never act in the judge. Arrays of
Python objects are refused (they would need pickle).

Either side lends objects by handle and counts how often it sent each; the other side keeps
one proxy per handle (so `is` and `id()` hold while it lives) and, when the proxy dies, returns
the count with its next message, so the lender frees the object once every copy is returned.
A request is answered by "ok" or "err"; while waiting, a side serves the other's requests
(the worker calls the judge's callbacks while the judge waits for it).
"""

from __future__ import annotations

import builtins
import json
import socket
import struct
import sys
import weakref

MAX_DEPTH = 400
HEADER = struct.Struct("!II")
_json = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


class ProtocolError(Exception):
    """A message that is not well formed: the other side broke the protocol."""


class PeerEnded(ConnectionError):
    """The other process closed the socket (it ended)."""


def dtype_of(descr):
    from numpy.lib.format import descr_to_dtype

    dtype = descr_to_dtype(descr if isinstance(descr, str) else [tuple(d) for d in descr])
    if dtype.hasobject:
        raise ProtocolError("arrays of Python objects do not cross the wire")
    return dtype


class BoundMethod:
    """`target.name` for a proxy `target`, not looked up until called: one request, not two."""

    __slots__ = ("target", "name", "call")

    def __init__(self, target, name: str, call):
        self.target, self.name, self.call = target, name, call

    def __call__(self, *args, **kwargs):
        return self.call(self.target, self.name, args, kwargs)

    def __repr__(self) -> str:
        return f"<method {self.name} of {self.target!r}>"


class Channel:
    """One end of the socket: a codec with its tables of lent objects, and the request loop.

    The side plugs in three hooks: `meta(obj)` (what the other side needs to make a proxy),
    `proxy(key, meta)` (a proxy for an object of the other side) and `serve(kind, args)`
    (answer a request of the other side).
    """

    def __init__(self, sock: socket.socket, meta, proxy, serve, record, rebuild, on_array=None):
        self.sock, self.meta, self.make_proxy, self.serve = sock, meta, proxy, serve
        self.reader = sock.makefile("rb") if sock is not None else None  # a read per message
        self.record, self.rebuild, self.on_array = record, rebuild, on_array
        self.lent: dict[int, list] = {}  # key -> [object, times sent]
        self.keys: dict[int, int] = {}  # id(object) -> key
        self.next_key = 1
        self.proxies: dict[int, weakref.ref] = {}  # key -> the one proxy of that object
        self.counts: dict[int, int] = {}  # key -> copies received by that proxy
        self.proxy_keys: dict[int, int] = {}  # id(proxy) -> key
        self.released: list[list[int]] = []  # [key, count] of dead proxies, sent next time

    # -- encoding -------------------------------------------------------------------------

    def encode(self, value, buffers: list, depth: int = 0):
        kind = type(value)
        if value is None or kind in (bool, int, float, str):
            return value
        if depth > MAX_DEPTH:
            raise ProtocolError(f"a value nested more than {MAX_DEPTH} deep")
        deeper = depth + 1
        if kind in (list, tuple, set, frozenset):
            tag = {list: "L", tuple: "T", set: "Z", frozenset: "F"}[kind]
            return [tag, [self.encode(v, buffers, deeper) for v in value]]
        if kind is dict:
            return ["D", [self.encode(k, buffers, deeper) for k in value],
                    [self.encode(v, buffers, deeper) for v in value.values()]]
        if kind is complex:
            return ["C", value.real, value.imag]
        if kind is bytes:
            buffers.append(value)
            return ["B", len(buffers) - 1]
        if kind is slice:
            return ["S", *(self.encode(v, buffers, deeper)
                           for v in (value.start, value.stop, value.step))]
        if value is Ellipsis:
            return ["E"]
        np = sys.modules.get("numpy")  # not imported: no value here is NumPy's
        if np is not None and isinstance(value, (np.ndarray, np.generic, np.dtype)):
            return self.encode_numpy(np, value, buffers)
        return self.handle(value, buffers, deeper)

    def handle(self, value, buffers: list, depth: int):
        """A proxy's object going home, or an object of this side lent by reference."""
        key = self.proxy_keys.get(id(value))
        ref = self.proxies.get(key) if key is not None else None
        if ref is not None and ref() is value:
            return ["U", key]
        if type(value) is BoundMethod:  # a method of an object of the receiver's
            return ["W", self.encode(value.target, buffers, depth), value.name]
        return ["M", self.lend(value), self.meta(value)]

    def encode_numpy(self, np, value, buffers: list):
        """An array, a NumPy scalar or a dtype by value (of Python objects: by reference)."""
        from numpy.lib.format import dtype_to_descr

        if type(value) is np.ndarray and not value.dtype.hasobject:
            order = "F" if value.flags.f_contiguous and not value.flags.c_contiguous else "C"
            buffers.append(value.tobytes(order=order))
            return ["A", dtype_to_descr(value.dtype), list(value.shape), len(buffers) - 1,
                    bool(value.flags.writeable), order]
        if isinstance(value, np.generic) and type(value).__module__ == "numpy" \
                and not value.dtype.hasobject:
            buffers.append(value.tobytes())
            return ["N", dtype_to_descr(value.dtype), len(buffers) - 1]
        if isinstance(value, np.dtype) and not value.hasobject:
            return ["Y", dtype_to_descr(value)]
        return self.handle(value, buffers, 0)

    def lend(self, value) -> int:
        key = self.keys.get(id(value))
        if key is None:
            key, self.next_key = self.next_key, self.next_key + 1
            self.keys[id(value)] = key
            self.lent[key] = [value, 0]
        self.lent[key][1] += 1
        return key

    def returned(self, pairs) -> None:
        """The other side's proxies died: free what it no longer holds."""
        for key, count in pairs:
            entry = self.lent.get(key)
            if entry is None:
                continue
            entry[1] -= count
            if entry[1] <= 0:
                del self.lent[key], self.keys[id(entry[0])]

    # -- decoding -------------------------------------------------------------------------

    def decode(self, data, buffers: list, depth: int = 0):
        if data is None or type(data) in (bool, int, float, str):
            return data
        if type(data) is not list or not data or depth > MAX_DEPTH:
            raise ProtocolError(f"not a value: {str(data)[:80]}")
        tag, rest, deeper = data[0], data[1:], depth + 1
        try:
            if tag in ("L", "T", "Z", "F"):
                items = [self.decode(v, buffers, deeper) for v in rest[0]]
                return {"L": list, "T": tuple, "Z": set, "F": frozenset}[tag](items)
            if tag == "D":
                return dict(zip([self.decode(k, buffers, deeper) for k in rest[0]],
                                [self.decode(v, buffers, deeper) for v in rest[1]]))
            if tag == "C":
                return complex(float(rest[0]), float(rest[1]))
            if tag == "B":
                return bytes(buffers[rest[0]])
            if tag == "S":
                return slice(*(self.decode(v, buffers, deeper) for v in rest))
            if tag == "E":
                return Ellipsis
            if tag in ("A", "N"):
                import numpy as np
            if tag == "A":
                descr, shape, index, writeable, order = rest
                array = np.frombuffer(buffers[index], dtype=dtype_of(descr))
                array = array.reshape([int(n) for n in shape], order=order).copy(order=order)
                array.flags.writeable = bool(writeable)
                return self.on_array(array) if self.on_array else array
            if tag == "N":
                return np.frombuffer(buffers[rest[1]], dtype=dtype_of(rest[0]))[0]
            if tag == "Y":
                return dtype_of(rest[0])
            if tag == "U":
                return self.lent[rest[0]][0]
            if tag == "M":
                return self.receive(int(rest[0]), rest[1])
            if tag == "W" and self.on_array is not None:  # only the worker looks one up
                return getattr(self.decode(rest[0], buffers, deeper), str(rest[1]))
        except ProtocolError:
            raise
        except (IndexError, KeyError, TypeError, ValueError) as error:
            raise ProtocolError(f"a malformed {tag!r} value: {error}") from None
        raise ProtocolError(f"unknown tag {tag!r}")

    def receive(self, key: int, meta):
        """The one proxy for the other side's object `key`, counting this copy."""
        ref = self.proxies.get(key)
        proxy = ref() if ref is not None else None
        if proxy is None:
            proxy = self.make_proxy(key, meta)
            ident = id(proxy)
            self.proxies[key] = weakref.ref(proxy, lambda ref: self.dead(key, ident, ref))
            self.proxy_keys[ident] = key
        self.counts[key] = self.counts.get(key, 0) + 1
        return proxy

    def adopt(self, key: int, proxy) -> None:
        """Make `proxy` the one for `key` though none was received yet (a class, which lives on)."""
        self.proxies[key] = weakref.ref(proxy)
        self.proxy_keys[id(proxy)] = key
        self.counts.setdefault(key, 0)

    def dead(self, key: int, ident: int, ref: weakref.ref) -> None:
        """A proxy died: return its copies with the next message."""
        if self.proxies.get(key) is not ref:
            return
        del self.proxies[key]
        if self.proxy_keys.get(ident) == key:
            del self.proxy_keys[ident]
        self.released.append([key, self.counts.pop(key)])

    # -- messages ---------------------------------------------------------------------------

    def send(self, message: dict, values: tuple = ()) -> None:
        buffers: list[bytes] = []
        message["v"] = [self.encode(v, buffers) for v in values]
        message["r"], self.released = self.released, []
        message["b"] = [len(b) for b in buffers]
        header = _json(message).encode()
        self.sock.sendall(HEADER.pack(len(header), sum(message["b"])) + header
                          + (b"".join(buffers) if buffers else b""))

    def receive_message(self) -> tuple[dict, list]:
        sizes = self.exactly(HEADER.size)
        header_size, body_size = HEADER.unpack(sizes)
        try:
            message = json.loads(self.exactly(header_size))
            buffers, start = [], 0
            if body_size:
                body = memoryview(self.exactly(body_size))
                for size in message["b"]:
                    buffers.append(body[start:start + size])
                    start += size
            self.returned(message.get("r", []))
        except (ValueError, KeyError, TypeError) as error:
            raise ProtocolError(f"a malformed message: {error}") from None
        try:
            values = [self.decode(v, buffers) for v in message["v"]]
        except (ProtocolError, RecursionError, KeyError, TypeError) as error:
            if "q" not in message:
                raise ProtocolError(f"a malformed answer: {error}") from None
            message["q"], values = None, [error]  # a request it cannot read: answered as such
        return message, values

    def exactly(self, size: int) -> bytes:
        data = self.reader.read(size) if size else b""
        if len(data) < size:
            raise PeerEnded("the other process closed the connection")
        return data

    def request(self, kind: str, *args):
        """Ask the other side; serve its requests meanwhile; its answer, or its error raised."""
        self.send({"q": kind}, args)
        while True:
            message, values = self.receive_message()
            if "q" in message:
                self.answer(message["q"], values)
            elif "ok" in message:
                return values[0]
            elif "err" in message:
                raise self.rebuild(message["err"], values)
            else:
                raise ProtocolError("a message that is neither a request nor an answer")

    def answer(self, kind: str | None, args: list) -> None:
        try:
            if kind is None:
                raise ProtocolError(f"a request that cannot be read: {args[0]}")
            result = self.serve(kind, args)
        except BaseException as error:  # the other side raises it where it asked
            record, values = self.record(error)
            self.send({"err": record}, values)
            return
        try:
            self.send({"ok": True}, (result,))
        except (ProtocolError, RecursionError, ValueError, TypeError) as error:
            record, values = self.record(error)
            self.send({"err": record}, values)

    def serve_forever(self) -> None:
        while True:
            message, values = self.receive_message()
            if "q" not in message:
                raise ProtocolError("an answer where a request was expected")
            self.answer(message["q"], values)
            del message, values


# -- exceptions: a record of facts both ways, rebuilt as the same builtin type --------------


def text(error: BaseException) -> str:
    """`str(error)`, even for an exception whose `__str__` raises."""
    try:
        return str(error)
    except BaseException as failure:
        return f"(its message cannot be shown: str() raised {type(failure).__name__})"


def builtin_base(kind: type) -> type:
    """The nearest builtin exception class of `kind` (itself if builtin)."""
    return next(c for c in kind.__mro__ if c.__module__ == "builtins")


def exception_record(error: BaseException, facts: dict | None = None) -> tuple[dict, tuple]:
    """What crosses the wire for an error: its type's names, message, notes and `facts`; the
    values (its args, and the judge's own exception it stands for, if any) go by the codec."""
    kind = type(error)
    record = {"type": kind.__name__, "module": kind.__module__,
              "builtin": builtin_base(kind).__name__, "message": text(error),
              "notes": [n for n in getattr(error, "__notes__", []) if isinstance(n, str)],
              **(facts or {})}
    args = error.args if all(type(a) in (str, int, float, bool, type(None))
                             for a in error.args) else (record["message"],)
    return record, (args, getattr(error, "_judge_origin", None))


_classes: dict[tuple, type] = {}


def rebuild_exception(record: dict, values: list) -> BaseException:
    """The other side's error as an exception here: the judge's own one if it comes back,
    else the same builtin type (a class of the same name for others) with the record as
    `remote_facts`."""
    args, origin = values if len(values) == 2 else ((), None)
    if isinstance(origin, BaseException):
        return origin
    base = getattr(builtins, str(record.get("builtin")), None)
    if not (isinstance(base, type) and issubclass(base, BaseException)):
        base = Exception
    kind = base
    if record.get("module") != "builtins" or record.get("type") != base.__name__:
        name = (str(record.get("module")), str(record.get("type")), base.__name__)
        kind = _classes.get(name)
        if kind is None:
            kind = type(name[1], (base,), {"__module__": name[0], "__str__": _recorded_text})
            _classes[name] = kind
    try:
        error = kind(*(args if isinstance(args, tuple) else ()))
    except Exception:
        error = kind(str(record.get("message", "")))
    error.remote_facts = record
    if origin is not None:
        error._judge_origin = origin
    notes = [n for n in record.get("notes", []) if isinstance(n, str)]
    if notes:
        error.__notes__ = notes
    return error


def _recorded_text(error: BaseException) -> str:
    return str(getattr(error, "remote_facts", {}).get("message", ""))
