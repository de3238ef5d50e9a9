"""What every grader uses: check registration, hypothesis profiles, the graders' own walk.

A grader module registers checks with `@check("1.2")` and one probe per exercise
with `@probe("1.2")`. The probe is a cheap call of the exercise's code: if it
raises `NotImplementedError`, the exercise is "not implemented yet" and its
hypothesis checks are not run. It also returns a few named values, which
`compare` shows for the learner's code beside the reference; a value given as a
lambda is computed on its own, so one op that raises hides none of the others.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from types import FunctionType

import numpy as np
from hypothesis import HealthCheck, Phase, settings

from checks import remote
from checks.fixtures import walk
from checks.fixtures.walk import backward_of, graph_walk, read_only  # noqa: F401 (graders use them)
from checks.loader import load_framework

_slow = [HealthCheck.too_slow, HealthCheck.data_too_large]
# No "explain" phase: after shrinking, it reruns the failing input to list the lines of code
# only failing inputs ran (the graders' and NumPy's files, by path) and comments the example
# ("# or any other generated value"): notes for a test's author that a learner cannot use.
_grading = tuple(phase for phase in Phase if phase is not Phase.explain)
settings.register_profile("learner", max_examples=15, deadline=None, suppress_health_check=_slow,
                          phases=_grading)
settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True, database=None,
    suppress_health_check=_slow, phases=_grading,
)
# The proof asks only whether a check fails, not for the smallest counterexample: no shrinking.
settings.register_profile(
    "proof", max_examples=15, deadline=None, derandomize=True, database=None,
    suppress_health_check=_slow, phases=(Phase.explicit, Phase.reuse, Phase.generate),
)
# The soundness sweep (`python -m checks.tools.test --only sweep`): far more examples than CI
# draws, fresh ones each run, so a check that can fail a correct answer shows it before a learner.
SWEEP_EXAMPLES = int(os.environ.get("SWEEP_EXAMPLES", "1000"))
settings.register_profile(
    "sweep", max_examples=SWEEP_EXAMPLES, deadline=None, derandomize=False, database=None,
    suppress_health_check=_slow, phases=_grading,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "learner"))


@dataclass(frozen=True)
class Check:
    exercise: str
    name: str
    function: Callable[[], None]


CHECKS: list[Check] = []
PROBES: dict[str, Callable] = {}


def check(exercise_id: str) -> Callable:
    """Register a check of one exercise; its docstring's first line is what it proves."""

    def register(function: Callable) -> Callable:
        CHECKS.append(Check(exercise_id, function.__name__, function))
        return function

    return register


def probe(exercise_id: str) -> Callable:
    """Register the exercise's probe: `probe(fw) -> dict[str, value]`."""

    def register(function: Callable) -> Callable:
        PROBES[exercise_id] = function
        return function

    return register


def computed(value):
    """A probe's value: a lambda called, anything else as it is."""
    return value() if isinstance(value, FunctionType) else value


def framework():
    """The implementation under test, chosen by `IMPL` (in the worker, for a chapter graded
    apart from the code it grades: `checks.remote`)."""
    return remote.framework() if remote.connected() else load_framework()


def submodule(name: str):
    """`framework.<name>`, a file of the package that the package does not import itself."""
    if remote.connected():
        return remote.submodule(name)
    return importlib.import_module(f"{framework().__name__}.{name}")


def fixture(name: str):
    """`checks.fixtures.<name>`, where the code under test runs (the worker, if there is one)."""
    if remote.connected():
        return remote.fixture(name)
    return importlib.import_module(f"checks.fixtures.{name}")


def backprop(root, seed) -> dict[int, object]:
    """Gradients of every node by the graders' own reverse walk over `parents`/`grad_fn`.

    Returns {id(node): gradient}; only calls each node's `grad_fn`, so an op's
    exercise is graded before the learner's walk exists. The walk is `checks.fixtures.walk`,
    run where the nodes live: in the worker it is one request for the whole graph.
    """
    if remote.connected():
        return {id(node): grad for node, grad in fixture("walk").pairs(root, seed)}
    return walk.backprop(root, seed)


def holds(error: BaseException, array: np.ndarray) -> bool:
    """Whether the frame that raised `error` has a variable that is `array` or a view of it
    (from the worker: a read-only array the judge sent, or a view of one)."""
    facts = remote.facts(error)
    if facts is not None:
        return bool(facts.get("read_only_input"))
    return walk.holds(error, array)


def central_difference(f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6):
    """∂f/∂x for a scalar f of a float64 array, one central difference per element."""
    point = np.array(x, dtype=np.float64)
    grad = np.zeros_like(point)
    for index in np.ndindex(point.shape):
        nudge = np.zeros_like(point)
        nudge[index] = eps
        grad[index] = (f(point + nudge) - f(point - nudge)) / (2 * eps)
    return grad


def where_they_differ(got: np.ndarray, expected: np.ndarray, close: np.ndarray) -> str:
    """One line: how many values differ, the first and the largest difference, by index."""
    if got.ndim == 0:
        return f"got {got.item():.6g}, expected {expected.item():.6g}"
    wrong = np.argwhere(~close)
    gap = np.where(close, 0.0, np.abs(got - expected))
    gap = np.where(np.isnan(gap), np.inf, gap)
    largest = np.unravel_index(np.argmax(gap), gap.shape)

    def at(index) -> str:
        index = tuple(int(i) for i in index)
        return f"[{', '.join(map(str, index))}]: got {got[index]:.6g}, expected {expected[index]:.6g}"

    first = tuple(wrong[0])
    text = f"{len(wrong)} of {got.size} values differ; the first at {at(first)}"
    return text + (f"; the largest at {at(largest)}" if tuple(largest) != first else "")


def assert_close(got, expected, what: str, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Compare arrays or numbers; the message says what, where they differ, then got and expected.

    Where they differ comes first and what the code returned before what was expected: a
    message cut for length keeps both.
    """
    got_array = np.asarray(got, dtype=np.float64)
    expected_array = np.asarray(expected, dtype=np.float64)
    assert got_array.shape == expected_array.shape, (
        f"{what}: shape {got_array.shape}, expected {expected_array.shape}"
    )
    close = np.isclose(got_array, expected_array, rtol=rtol, atol=atol, equal_nan=False)
    if not close.all():
        raise AssertionError(
            f"{what}: {where_they_differ(got_array, expected_array, close)}"
            f"\n  got      {np.array2string(got_array, precision=6)}"
            f"\n  expected {np.array2string(expected_array, precision=6)}"
        )


def forward_of(forward: Callable[[], object], leaves: list, what: str):
    """`forward()`; writing into one of its (read-only) inputs is named as such."""
    try:
        return forward()
    except ValueError as error:
        if not ("read-only" in str(error) and any(
                isinstance(leaf.data, np.ndarray) and holds(error, leaf.data) for leaf in leaves)):
            raise
        raise AssertionError(f"{what}: your forward modified its input in place: return a new "
                             "array (`a + b`, not `a += b`)") from error


def check_gradients(
    forward: Callable[[], object], leaves: list, seed: int, what: str,
    rtol: float = 1e-5, atol: float = 1e-6, directional: bool = False, eps: float = 1e-6,
) -> None:
    """The graders' gradient check for tensors: float64, a random cotangent, central differences.

    `forward()` builds the output from `leaves` (float64 tensors that require grad).
    The gradients come from the graders' own walk over `grad_fn`, so only the ops'
    rules are under test. Full: every element of every leaf is perturbed. Directional
    (large composites): one random direction for all leaves together. The perturbed inputs
    handed to `forward` are read-only.
    """
    fw = framework()
    rng = np.random.default_rng(seed)
    out = forward_of(forward, leaves, what)
    cotangent = rng.standard_normal(out.data.shape)
    grads = backprop(out, cotangent)
    got = [np.asarray(grads.get(id(leaf), np.zeros(leaf.data.shape))) for leaf in leaves]
    for leaf, grad in zip(leaves, got):
        assert grad.shape == leaf.data.shape, (
            f"{what}: a gradient of shape {grad.shape} for an input of shape {leaf.data.shape}"
        )

    def objective() -> float:
        with fw.no_grad():
            out = forward_of(forward, leaves, what)
            return float(np.sum(np.asarray(out.data, dtype=np.float64) * cotangent))

    if directional:
        directions = [rng.standard_normal(leaf.data.shape) for leaf in leaves]
        originals = [leaf.data.copy() for leaf in leaves]
        values = []
        for sign in (1, -1):
            for leaf, original, v in zip(leaves, originals, directions):
                leaf.data = read_only(original + sign * eps * v)
            values.append(objective())
        for leaf, original in zip(leaves, originals):
            leaf.data = original
        expected = (values[0] - values[1]) / (2 * eps)
        predicted = sum(float(np.sum(g * v)) for g, v in zip(got, directions))
        assert_close(predicted, expected, f"{what}: directional derivative", rtol, atol)
        return
    for index, (leaf, grad) in enumerate(zip(leaves, got)):
        original = leaf.data

        def f(x, leaf=leaf):
            leaf.data = read_only(x)
            return objective()

        expected = central_difference(f, original, eps)
        leaf.data = original
        assert_close(grad, expected, f"{what}: gradient of input {index} "
                     f"(shape {original.shape})", rtol, atol)


def gradient_check(fn: Callable, arrays: list, seed: int, what: str, **tolerances) -> None:
    """`check_gradients` for a function of arrays: `fn(*tensors) -> Tensor` (of read-only arrays)."""
    fw = framework()
    leaves = [fw.Tensor(read_only(np.array(a, dtype=np.float64)), requires_grad=True)
              for a in arrays]
    check_gradients(lambda: fn(*leaves), leaves, seed, what, **tolerances)
