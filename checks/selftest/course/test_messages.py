"""What a learner reads when a check fails: the input, expected and got, and nothing else."""

import importlib
import shutil

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.vendor.pretty import pretty

from checks.exercises import exercise
from checks.loader import ROOT, load_framework
from checks.tools import plain
from checks.tools.compare import values
from checks.tools.grade import DETAIL_LINES, details
from checks.tools.run_exercise import counterexample, describe

fw = load_framework("solutions")


def raised(test) -> BaseException:
    with pytest.raises(BaseException) as info:
        test()
    return info.value


@given(x=st.integers(0, 3))
@example(x=10)
@example(x=20)
@settings(database=None)
def fails_in_two_explicit_examples(x):
    if x == 10:
        raise ValueError("x is 10")
    if x == 20:
        raise AssertionError("sum of x:\n  expected 1\n  got      2")


def test_a_check_failing_in_two_explicit_examples_shows_one_with_expected_and_got():
    error = raised(fails_in_two_explicit_examples)
    message = describe(error)
    assert "ExceptionGroup" not in message
    assert "expected 1" in message and "got      2" in message
    assert "1 other failing example not shown" in message
    assert "fails_in_two_explicit_examples(\n    x=20,\n)" in counterexample(error)


def test_hypothesis_notes_for_test_authors_are_dropped():
    error = AssertionError("expected 1, got 2")
    error.__notes__ = [
        "Falsifying example: f(\n    x=1,\n)",
        "Explanation:\n    These lines were always and only run by failing examples:\n"
        "        numpy/_core/arrayprint.py:1000",
        "You can reproduce this example by temporarily adding @reproduce_failure",
    ]
    assert counterexample(error) == "failing input: f(\n    x=1,\n)"


def test_hypothesis_explain_notes_are_dropped_wherever_they_appear():
    """The "lines always and only run by failing test cases" report, in a note of its own or
    in the message, never reaches the learner: it names the graders' and NumPy's files."""
    explain = ("These lines were always and only run by failing test cases:\n"
               "    /repo/checks/harness.py:147\n"
               "    /venv/lib/python3.11/site-packages/numpy/_core/arrayprint.py:1000")
    error = AssertionError("sum of x:\n  expected 1\n  got      2\n\n" + explain)
    error.__notes__ = ["Falsifying example: f(\n    x=1,\n)", explain]
    for shown_text in (describe(error), counterexample(error)):
        assert "always and only run" not in shown_text and "harness.py" not in shown_text
        assert "arrayprint" not in shown_text, shown_text
    assert "got      2" in describe(error)
    assert counterexample(error) == "failing input: f(\n    x=1,\n)"


def test_the_explain_phase_one_line_to_a_note_is_dropped_and_its_comments_too():
    """Hypothesis 6.1xx writes the report a line to a note, and comments the example."""
    error = AssertionError("sum of x:\n  expected 1\n  got      2")
    error.__notes__ = [
        "Failing test case: f(\n    # The test always failed when commented parts were varied "
        "together.\n    x=1,  # or any other generated value\n    y=2,\n)",
        "Explanation:",
        "    These lines were always and only run by failing test cases:",
        "        /repo/checks/harness.py:218",
        "        /tmp/framework-proof-1/framework/tensor.py:236",
        "        /venv/lib/python3.11/site-packages/numpy/_core/arrayprint.py:1013",
        "        (and 2 more with settings.verbosity >= verbose)",
    ]
    assert counterexample(error) == "failing input: f(\n    x=1,\n    y=2,\n)"


def test_values_drawn_inside_a_check_are_shown_among_its_arguments_by_name():
    error = AssertionError("direction at step 1: got 1, expected 1.5")
    error.__notes__ = [
        "Failing test case: test_momentum(\n    shape=(2,),\n    data=data(...),\n"
        "    hyper={'momentum': 0.5},\n)",
        "Draw 1 (grads): [array([1., 2.]),\n array([3., 4.])]  # or any other generated value",
        "Draw 2: 5",
    ]
    assert counterexample(error) == (
        "failing input: test_momentum(\n    shape=(2,),\n    grads=[array([1., 2.]),\n"
        "     array([3., 4.])],\n    hyper={'momentum': 0.5},\n)\ninput 2: 5")


def test_a_traceback_the_checks_process_printed_keeps_only_the_packages_frames():
    printed = (
        "Traceback (most recent call last):\n"
        '  File "<frozen runpy>", line 198, in _run_module_as_main\n'
        '  File "/repo/checks/tools/run_exercise.py", line 353, in <module>\n'
        "    main()\n"
        '  File "/home/me/course/framework/ops.py", line 12, in exp\n'
        "    out = np.exp(a) / 0\n"
        '  File "/venv/lib/python3.11/site-packages/numpy/_core/fromnumeric.py", line 3, in sum\n'
        "    return _wrapreduction(a, np.add, 'sum', axis, dtype, out)\n"
        "           ^^^^^^^^^^^^^^^\n"
        "ZeroDivisionError: division by zero\n"
        "/venv/lib/python3.11/site-packages/numpy/_core/fromnumeric.py:86: RuntimeWarning: nan\n"
        "  return ufunc.reduce(obj, axis, dtype, out, **passkwargs)\n"
        "/home/me/course/framework/ops.py:14: RuntimeWarning: overflow encountered in exp\n"
        "  out = np.exp(a)")
    assert plain.output(printed) == (
        "Traceback (most recent call last):\n"
        '  File "framework/ops.py", line 12, in exp\n'
        "    out = np.exp(a) / 0\n"
        "ZeroDivisionError: division by zero\n"
        "framework/ops.py:14: RuntimeWarning: overflow encountered in exp\n"
        "  out = np.exp(a)")


def test_a_long_message_is_cut_but_its_failing_example_is_shown_whole():
    entry = {"name": "test_x", "passed": False, "doc": "x",
             "message": "\n".join(f"line {i}" for i in range(DETAIL_LINES + 5)),
             "example": "Failing explicit example: test_x(\n" + "    [0.5],\n" * 20 + ")"}
    text = details(exercise("2.5"), {"status": "ok", "checks": [entry]})
    assert "line 0" in text and f"line {DETAIL_LINES}" not in text and "(5 more lines)" in text
    assert text.count("[0.5]") == 20 and "      )" in text


def test_a_long_failing_gradient_shows_where_it_differs_and_what_was_returned_before_the_cut():
    """A (4, 6, 6) gradient wrong only in its last value: the cut message still says where."""
    from checks.harness import assert_close

    expected = np.arange(144.0).reshape(4, 6, 6) / 7
    got = expected.copy()
    got[3, 5, 5] = -1.0
    error = raised(lambda: assert_close(got, expected, "conv2d: gradient of input 0"))
    entry = {"name": "test_x", "passed": False, "doc": "x", "message": describe(error)}
    text = details(exercise("6.4"), {"status": "ok", "checks": [entry]})
    assert "more lines)" in text, text
    assert "1 of 144 values differ; the first at [3, 5, 5]: got -1, expected 20.4286" in text
    assert text.index("got      [[[") < text.index("more lines)"), text


class Transpose(fw.Function):
    @staticmethod
    def forward(ctx, a):
        return np.transpose(a, (2, 0, 1))

    @staticmethod
    def backward(ctx, grad):  # the mistake: the gradient is not transposed back
        return (grad,)


class BroadcastTo23(fw.Function):
    @staticmethod
    def forward(ctx, a):
        return np.broadcast_to(a, (2, 3))

    @staticmethod
    def backward(ctx, grad):  # the mistake: the copies are not summed back
        return (grad,)


def test_a_gradient_of_a_permuted_shape_does_not_suggest_unbroadcast():
    x = fw.Tensor(np.zeros((2, 3, 4)), requires_grad=True)
    with pytest.raises(ValueError) as info:
        Transpose.apply(x).grad_fn(np.ones((4, 2, 3)))
    assert "shape (4, 2, 3) for an input of shape (2, 3, 4)" in str(info.value)
    assert "unbroadcast" not in str(info.value)


def test_a_gradient_of_the_broadcast_shape_suggests_unbroadcast():
    x = fw.Tensor(np.zeros(3), requires_grad=True)
    with pytest.raises(ValueError, match=r"\(did you forget unbroadcast\?\)"):
        BroadcastTo23.apply(x).grad_fn(np.ones((2, 3)))


@pytest.fixture
def transformer_grader(monkeypatch):
    monkeypatch.setenv("IMPL", "solutions")
    return importlib.import_module("checks.chapter5_transformer")


@pytest.mark.parametrize("strategy, name", [
    ("multihead_cases", "MultiheadCase(n="), ("layer_cases", "LayerCase(n="),
    ("model_cases", "ModelCase(n="),
])
def test_a_drawn_transformer_case_prints_with_its_fields_named(transformer_grader, strategy, name):
    seen = []

    @given(getattr(transformer_grader, strategy)())
    @settings(max_examples=1, database=None)
    def draw(case):
        seen.append(case)

    draw()
    assert pretty(seen[0]).startswith(name) and "seed=" in pretty(seen[0])


def test_compare_shows_each_op_of_an_exercise_on_its_own(tmp_path):
    shutil.copytree(ROOT / "solutions" / "framework", tmp_path / "framework",
                    ignore=shutil.ignore_patterns("__pycache__"))
    path = tmp_path / "framework" / "autodiff.py"
    find = "        a, b = self.data, other.data\n"
    path.write_text(path.read_text().replace(find, find + "        raise ValueError('no mul')\n"))
    line = path.read_text().splitlines().index("        raise ValueError('no mul')") + 1
    mine = values(1, str(tmp_path))["1.2"]
    assert mine["2 + -3"] == "-1"
    assert mine["2 * -3"] == mine["rule of 2 * -3 at 1"] == (
        f"ValueError: no mul (raised in framework/autodiff.py, line {line})")


def test_hints_say_what_learners_tripped_on():
    """Issue 24: 1.1's symmetric stencils are not 'one-sided'; 2.8's axes go back in order;
    6.4 names a BLAS contraction and why; 1.7 and 2.10 name release and the walk."""
    assert "one-sided one" not in exercise("1.1").hint and "five-point" in exercise("1.1").hint
    assert "in order" in exercise("2.8").hint and "AxisError" in exercise("2.8").hint
    assert "tensordot" in exercise("6.4").hint and "without BLAS" in exercise("6.4").hint
    assert "BEFORE node.release()" in exercise("1.7").hint
    assert "autodiff.py's walk" in exercise("2.10").hint
