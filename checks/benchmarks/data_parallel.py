"""`DataParallel`: a module's batch split between this process and worker processes.

`make bench` and the performance appendix use it; it is no lesson of the course, so it lives
here rather than in the learner's package (`framework.nn.DataParallel` is PyTorch's on a
machine without GPUs: the module, unsplit). It runs on the framework loaded as `framework`
(`checks.loader.load_framework` picks which copy).

PyTorch spreads each op over the cores (intra-op parallelism); each of the framework's ops is
one NumPy call on one core. Threads do not help: NumPy lets go of Python's global lock inside
its loops, but the course's ops are many short calls, and a thread spends the time between
them waiting for the lock (measured in checks/benchmarks/README.md: W3 no faster with two).
Processes have a lock each. So, as PyTorch's DistributedDataParallel on CPUs: each process
holds a copy of the model, computes its share of the batch, and the parameters' gradients are
summed. The API is `torch.nn.DataParallel`'s: one program, the split hidden in a module.

Contract. `DataParallel(module, processes)` is a `Module` whose forward takes what `module`'s
does and returns what it returns: one tensor with the batch on axis 0. Every tensor or array
argument (keyword ones too) whose first axis has the batch's length (that of the first such
positional argument) is cut into `processes` contiguous chunks along that axis, the larger
first; every other argument goes whole to every chunk. This process runs the first chunk,
each worker another, at the same time; the outputs are concatenated in order. Backward runs
each chunk's graph in its own process; the module's parameters receive their gradients summed
over the chunks, the positional inputs that require grad theirs cut back together (a keyword
tensor that requires grad is refused). The result is the
unsplit module's up to rounding (the order of a sum), provided `module` treats each row of
the batch on its own: no statistics over the batch (PyTorch's DataParallel has the same
condition). Each forward gives the workers the parameters' current values and
`requires_grad`, each submodule's `training` flag, the grad mode, and a seed drawn from the
framework's generator (so dropout differs between chunks, and a seeded run repeats); buffers
are the workers' copies from when they started, at the first forward. Parameter values and
gradients cross through memory shared with each worker while the parameters keep the shapes
and dtypes they had then (inside the messages otherwise); the messages themselves (requests,
outputs, errors) are pickled into a mailbox, memory shared with the worker and a semaphore
that announces each one (down the pipe beyond `MAILBOX_BYTES`). An error in a worker is
raised here with the worker's traceback; a worker that ended makes the call raise, and the
next call starts new workers. A process waiting for another polls its semaphore for up to
`SPIN_SECONDS` before it sleeps: a sleeping process took 50-110 µs to wake up, and a step
waits four times. Workers start with `fork`, on Linux; elsewhere the module runs unsplit,
with a warning (Windows has no fork, and on macOS a process forked after NumPy's BLAS
(Apple's Accelerate) has run may crash in it).
"""

from __future__ import annotations

import itertools
import math
import mmap
import multiprocessing
import os
import pickle
import sys
import time
import traceback
import warnings
import weakref
from collections.abc import Callable

import numpy as np

from framework.autodiff import is_grad_enabled, set_grad_enabled
from framework.nn.modules import Module
from framework.provided.autograd import grad as gradients_of
from framework.provided.generator import default_generator, manual_seed
from framework.tensor import Tensor

_ours: weakref.WeakSet = weakref.WeakSet()  # this process's end of each worker's pipe

# A process blocked on an empty pipe took 50-110 µs to wake up on the 2-core machine, and a
# split training step waits four times: W4's step took 3.3 ms, 2.9 ms when each wait polls
# first, as OpenMP's threads spin before they sleep. Long enough to outlast a training loop's
# own work between two steps (in `make bench`, another contender's step of a few ms: W4 2.9
# ms polling 2 ms, 2.8 ms polling 10), short enough that an idle worker sleeps.
SPIN_SECONDS = 0.01
# How often a sleeping wait wakes to see whether the other process is still there.
CHECK_SECONDS = 0.05
# Each mailbox's block, in address space: its pages are touched only as messages fill them.
MAILBOX_BYTES = 16 * 2**20


def forks_workers() -> bool:
    """Whether DataParallel forks workers here: on Linux (see this file's docstring)."""
    return sys.platform.startswith("linux")


def spans(length: int, parts: int) -> list[tuple[int, int]]:
    """[start, stop) of `parts` contiguous chunks of `length` rows, the larger ones first."""
    stops = list(itertools.accumulate(length // parts + (p < length % parts) for p in range(parts)))
    return list(zip([0, *stops[:-1]], stops))


class DataParallel(Module):
    """`module` on `processes` chunks of the batch at once (see this file's docstring)."""

    def __init__(self, module: Module, processes: int | None = None) -> None:
        super().__init__()
        processes = (os.cpu_count() or 1) if processes is None else processes
        if not isinstance(processes, int) or processes < 1:
            raise ValueError(f"DataParallel: processes must be a positive int, got {processes!r}")
        self.module, self.processes = module, processes
        object.__setattr__(self, "_workers", [])  # started at the first split forward

    def forward(self, *args, **kwargs):
        batch = _batch_length(args)
        parts = min(self.processes, batch)
        if any(worker.dead for worker in self._workers):  # one ended: start afresh
            self._stop_workers()
        if parts < 2 or not self._start(parts - 1):
            return self.module(*args, **kwargs)
        for name, value in kwargs.items():
            if isinstance(value, Tensor) and value.requires_grad:
                raise ValueError(
                    f"DataParallel: keyword argument {name!r} requires grad; pass the tensors "
                    "whose gradients you want as positional arguments")
        pieces = spans(batch, parts)
        chunks = [([_cut(a, batch, span) for a in args],
                   {k: _cut(v, batch, span) for k, v in kwargs.items()}) for span in pieces]
        workers, sent = self._workers[:parts - 1], []
        out = None
        try:
            out = self._split_forward(args, batch, chunks, pieces, workers, sent)
        finally:
            if out is None or out.grad_fn is None:  # no rule will walk these graphs
                for worker in sent:
                    worker.freed.append(worker.last_key)
        return out

    def _split_forward(self, args, batch, chunks, pieces, workers, sent) -> Tensor:
        """Send the workers their chunks, run the first here, gather; `sent` lists the workers
        that took a request."""
        recording = is_grad_enabled()
        state = list(self.module.parameters()), [m.training for m in self.module.modules()]
        try:
            for worker, (chunk_args, chunk_kwargs) in zip(workers, chunks[1:]):
                worker.forward(*state, recording, int(default_generator().integers(2**63)),
                               chunk_args, chunk_kwargs)
                sent.append(worker)
            here = self.module(*chunks[0][0], **chunks[0][1])
        finally:  # every worker sent a request answers it, so the next answer is the next one's
            answers = [worker.answer() for worker in sent]
        _check_output(self.module, here, pieces[0])
        there = _results(answers)
        data = np.concatenate([here.data, *there])
        parameters = [p for p in self.module.parameters() if p.requires_grad]
        inputs = [a for a in args if isinstance(a, Tensor) and a.requires_grad and a.ndim
                  and len(a) == batch]
        if not recording or not (parameters or inputs):
            return Tensor._make(data)
        rule = _GatheredBackward(here, chunks[0][0], workers, parameters, pieces)
        return Tensor._make(data, (*parameters, *inputs), rule, "dataparallel")

    def _stop_workers(self) -> None:
        for worker in self._workers:
            worker.stop()
        self._workers.clear()

    def _start(self, count: int) -> bool:
        """Start workers until there are `count`; False where this platform cannot fork."""
        if not forks_workers():
            warnings.warn(f"DataParallel: workers are forked, on Linux only ({sys.platform} "
                          "here); the module runs unsplit, in this process", RuntimeWarning,
                          stacklevel=3)
            return False
        while len(self._workers) < count:
            self._workers.append(_Worker(self.module))
        return True


def _cut(value, batch: int, span: tuple[int, int]):
    """A chunk's share of one argument: rows `span` of a batch-long tensor (kept a Tensor, with
    its requires_grad) or array, anything else whole."""
    if isinstance(value, (Tensor, np.ndarray)) and value.ndim and len(value) == batch:
        if isinstance(value, Tensor):
            return Tensor(value.data[span[0]:span[1]], requires_grad=value.requires_grad)
        return value[span[0]:span[1]]
    if isinstance(value, Tensor):
        if value.requires_grad:
            raise ValueError(
                f"DataParallel: an argument of shape {tuple(value.shape)} requires grad but has no "
                f"batch axis of length {batch}: its gradient would come from one chunk only; "
                "make it a parameter of the module instead"
            )
        return Tensor(value.data)  # its values only: a worker gets no graph through the pipe
    return value


def _batch_length(args: tuple) -> int:
    """The length of the first positional tensor or array with an axis: the batch (0 if none)."""
    return next((len(a) for a in args if isinstance(a, (Tensor, np.ndarray)) and a.ndim), 0)


def _check_output(module: Module, out, span: tuple[int, int]) -> None:
    if not isinstance(out, Tensor) or out.ndim == 0:
        raise TypeError(
            f"DataParallel: {type(module).__name__}.forward returned "
            f"{'a 0-d tensor' if isinstance(out, Tensor) else type(out).__name__}; it must "
            "return one tensor with the batch on axis 0 (compute the loss after it)"
        )
    if len(out) != span[1] - span[0]:
        raise ValueError(
            f"DataParallel: {type(module).__name__}.forward returned shape {tuple(out.shape)} for a "
            f"chunk of {span[1] - span[0]} rows; its output must keep the batch on axis 0"
        )


class _GatheredBackward:
    """The concatenated output's rule: each chunk's graph walked in its own process, the
    parameters' gradients summed over the chunks, the inputs' cut back together."""

    def __init__(self, output: Tensor, chunk_args: list, workers: list, parameters: list,
                 pieces: list):
        self.output, self.workers, self.parameters, self.pieces = output, workers, parameters, pieces
        self.leaves = [a for a in chunk_args if isinstance(a, Tensor) and a.requires_grad]
        self.keys = [worker.last_key for worker in workers]
        for worker, key in zip(workers, self.keys):  # the worker may drop it once this is gone
            weakref.finalize(self, worker.freed.append, key)

    def __call__(self, grad: np.ndarray) -> tuple:
        sent = []
        try:
            for worker, key, (start, stop) in zip(self.workers, self.keys, self.pieces[1:]):
                worker.backward(key, grad[start:stop])
                sent.append(worker)
            start, stop = self.pieces[0]
            # the graph stays: a walk with retain_graph=True may call this rule again; it goes
            # with this rule, which the walk drops when it releases the output
            here = gradients_of(self.output, [*self.parameters, *self.leaves],
                                Tensor._make(grad[start:stop]), retain_graph=True,
                                allow_unused=True)
            here = [None if g is None else g.data for g in here]
        finally:
            answers = [worker.answer() for worker in sent]
        there = [[worker.gradients.arrays[g] if isinstance(g, int) else g for g in answer]
                 for worker, answer in zip(self.workers, _results(answers))]
        count = len(self.parameters)
        shares = []
        for k in range(count):
            found = [g[k] for g in (here, *there) if g[k] is not None]
            # a new array either way: a worker's share lies in memory its next backward reuses
            shares.append(None if not found else found[0].copy() if len(found) == 1
                          else sum(found[1:], found[0]))
        for k in range(count, len(here)):
            rows = [g[k] for g in (here, *there)]
            shares.append(np.concatenate([
                np.zeros((stop - start, *self.leaves[k - count].shape[1:]),
                         self.leaves[k - count].dtype) if r is None else r
                for r, (start, stop) in zip(rows, self.pieces)]))
        return tuple(shares)


class _Worker:
    """This side of one worker process: requests go down a pipe, one answer comes back each."""

    def __init__(self, module: Module) -> None:
        context = multiprocessing.get_context("fork")
        self.connection, theirs = context.Pipe()  # the lifeline, and messages too large
        _ours.add(self.connection)
        self.requests, self.answers = _Mailbox(context), _Mailbox(context)
        arrays = [p.data for p in module.parameters()]
        self.weights, self.gradients = _Shared(arrays), _Shared(arrays)
        self.process = context.Process(
            target=_serve, daemon=True, name="DataParallel worker",
            args=(module, theirs, self.requests, self.answers, self.weights, self.gradients))
        self.process.start()
        theirs.close()
        self.keys, self.last_key, self.freed, self.dead = itertools.count(), None, [], False
        self.stop = weakref.finalize(self, _stop, self.connection, self.process)

    def forward(self, parameters: list, training: list, recording: bool, seed: int, args: list,
                kwargs: dict) -> None:
        """Send one chunk's forward, with the module's state: the parameters' values through
        the shared block while they keep its layout, else down the pipe."""
        values = [p.data for p in parameters]
        if _layout(values) == self.weights.layout:
            for slot, value in zip(self.weights.arrays, values):
                slot[...] = value
            values = None
        state = values, [p.requires_grad for p in parameters], training, recording
        self.last_key, freed = next(self.keys), self.freed[:]
        del self.freed[:len(freed)]
        self._send(("forward", self.last_key, freed, state, seed, args, kwargs))

    def backward(self, key: int, grad: np.ndarray) -> None:
        self._send(("backward", key, grad))

    def _send(self, request: tuple) -> None:
        try:
            self.requests.put(request, self.connection)
        except OSError:
            self.dead = True
            raise RuntimeError(self._ended()) from None

    def answer(self) -> tuple[str, object]:
        """("ok", the result) or ("error", what to raise)."""
        try:
            return self.answers.get(self.connection, self.process.is_alive)
        except (EOFError, OSError):
            self.dead = True
            return "error", self._ended()

    def _ended(self) -> str:
        self.process.join(timeout=1)
        return (f"DataParallel: a worker process ended (exit code {self.process.exitcode}); the "
                "next call starts new workers, and graphs built before it cannot be walked")


class _Shared:
    """One array per parameter in a block of memory that a worker forked afterwards shares with
    this process: values cross without the pipe while the parameters keep this layout."""

    def __init__(self, arrays: list) -> None:
        self.layout = _layout(arrays)
        sizes = [-(-np.dtype(dtype).itemsize * math.prod(shape) // 64) * 64  # 64-byte aligned
                 for shape, dtype in self.layout]
        offsets = list(itertools.accumulate(sizes, initial=0))
        self.block = mmap.mmap(-1, max(offsets[-1], 1))
        self.arrays = [np.frombuffer(self.block, dtype, math.prod(shape), offset).reshape(shape)
                       for (shape, dtype), offset in zip(self.layout, offsets)]


def _layout(arrays: list) -> tuple:
    return tuple((a.shape, a.dtype.str) for a in arrays)


def _results(answers: list) -> list:
    """The workers' results, in order, or the first error among their answers, raised."""
    for status, value in answers:
        if status == "error":
            raise RuntimeError(f"DataParallel: a worker process's chunk failed:\n{value}")
    return [value for _, value in answers]


def _stop(connection, process) -> None:
    connection.close()  # the worker reads EOF and returns
    process.join(timeout=5)
    if process.is_alive():
        process.terminate()


def _serve(module: Module, connection, requests: _Mailbox, answers: _Mailbox, weights: _Shared,
           gradients: _Shared) -> None:
    """The worker's loop: a copy of `module`, kept in step by each request."""
    for inherited in list(_ours):  # fork copied this process's ends of every worker's pipe:
        inherited.close()          # while one is open here, that worker never reads the end
    parameters, modules = list(module.parameters()), list(module.modules())
    graphs = {}  # key → (output, the chunk's inputs that require grad)

    def parent_there() -> bool:  # its end of the pipe is closed when it stops us, or ends
        return not connection.poll()

    while True:
        try:
            request = requests.get(connection, parent_there)
        except (EOFError, OSError):
            return
        try:
            if request[0] == "forward":
                answers.put(("ok", _forward(module, parameters, modules, graphs, weights,
                                            *request[1:])), connection)
            else:
                answers.put(("ok", _backward(parameters, graphs, gradients, *request[1:])),
                            connection)
        except Exception:
            answers.put(("error", traceback.format_exc()), connection)


def _forward(module, parameters, modules, graphs, weights, key, freed, state, seed, args,
             kwargs):
    """One chunk's forward in the worker, after taking the parent's state; the output's array."""
    for old in freed:
        graphs.pop(old, None)
    values, needs_grad, training, recording = state
    if len(needs_grad) != len(parameters):
        raise RuntimeError(
            f"DataParallel: the module has {len(needs_grad)} parameters now, {len(parameters)} "
            "when its workers started; build a new DataParallel after changing the module")
    if values is None:  # in the shared block; copied, as the parent writes there next step
        values = [slot.copy() for slot in weights.arrays]
    for parameter, data, needs in zip(parameters, values, needs_grad):
        parameter.data, parameter.requires_grad = data, needs
    for submodule, flag in zip(modules, training):
        object.__setattr__(submodule, "training", flag)
    manual_seed(seed)
    with set_grad_enabled(recording):
        output = module(*args, **kwargs)
    _check_output(module, output, (0, _batch_length(args)))
    if recording:  # with the parameters it used: a later forward may change requires_grad
        graphs[key] = (output, [a for a in args if isinstance(a, Tensor) and a.requires_grad],
                       [i for i, p in enumerate(parameters) if p.requires_grad])
    return output.data


def _backward(parameters, graphs, gradients, key, grad) -> list:
    """One chunk's backward in the worker: for each parameter that requires grad, None or the
    index of its slot in the shared block, which now holds its gradient (its array itself
    where the parameters left the block's layout); then each input's gradient or None."""
    output, leaves, positions = graphs[key]
    grads = gradients_of(output, [*(parameters[i] for i in positions), *leaves],
                         Tensor._make(grad), retain_graph=True, allow_unused=True)
    grads = [None if g is None else g.data for g in grads]
    shared = _layout([p.data for p in parameters]) == gradients.layout
    answer = []
    for position, g in zip(positions, grads):
        if g is not None and shared and g.dtype == gradients.arrays[position].dtype:
            gradients.arrays[position][...] = g
            g = position
        answer.append(g)
    return answer + grads[len(positions):]


class _Mailbox:
    """Messages one way between this process and a worker forked afterwards: each pickled into a
    block of memory both share, then announced by a semaphore. Down the pipe, a message took 16
    µs to send and a round trip 50 µs on the 2-core machine (a virtual one: each write woke the
    other core through the kernel); through the mailbox, 5 µs and 12. One message at a time:
    a request is answered before the next is put, so the block is read before it is written
    again. A message longer than the block goes down the pipe, announced the same way.
    """

    def __init__(self, context) -> None:
        self.block = mmap.mmap(-1, MAILBOX_BYTES)
        self.posted = context.Semaphore(0)

    def put(self, message, connection) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        size = len(data) if len(data) <= MAILBOX_BYTES - 8 else -1
        if size >= 0:
            self.block[8:8 + size] = data
        self.block[:8] = size.to_bytes(8, "little", signed=True)
        self.posted.release()  # after the writes: the semaphore orders them for the reader
        if size < 0:
            connection.send_bytes(data)

    def get(self, connection, there: Callable[[], bool]):
        """The next message, waiting for it (polling, then asleep); EOFError if `there()`
        finds the other process gone first. Unpickling copies every array out of the block."""
        if not _wait(self.posted, there):
            raise EOFError
        size = int.from_bytes(self.block[:8], "little", signed=True)
        with memoryview(self.block) as block:
            return pickle.loads(connection.recv_bytes() if size < 0 else block[8:8 + size])


def _wait(semaphore, there: Callable[[], bool]) -> bool:
    """Take `semaphore`: polled for up to SPIN_SECONDS (each poll that finds nothing gives the
    core to any other process ready to run), then asleep, waking every CHECK_SECONDS to ask
    `there()`; False if the other process is gone and nothing was posted."""
    deadline = time.perf_counter() + SPIN_SECONDS
    while time.perf_counter() < deadline:
        if semaphore.acquire(False):
            return True
        os.sched_yield()
    while not semaphore.acquire(timeout=CHECK_SECONDS):
        if not there():  # posted just before it left, or gone
            return semaphore.acquire(False)
    return True
