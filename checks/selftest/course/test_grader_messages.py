"""What a grader tells a learner about a known mistake: the message names its likely cause."""

import shutil

from checks.exercises import Exercise, exercise
from checks.loader import ROOT
from checks.mutants import Mutant
from checks.mutants.chapter1 import MUTANTS as CHAPTER1
from checks.mutants.chapter2 import MUTANTS
from checks.selftest.course.test_grader_channel import package
from checks.tools.grade import details, drop_passed_causes, mark_failing_uses, verdict
from checks.tools.processes import run_exercise
from checks.tools.proof import mutated_reference


def first_failure(mutant: Mutant) -> str:
    """The message of the first failing check of the mutant's exercise (run as the proof does)."""
    folder = mutated_reference(mutant)
    try:
        result = run_exercise(mutant.exercise, str(folder), "proof",
                              ["--no-probe", "--stop-at-first-failure"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    failed = [c for c in result["checks"] if not c["passed"]]
    assert failed, f"no check of {mutant.exercise} failed: {result}"
    return failed[0]["message"]


def test_a_float64_max_gradient_from_an_int64_tie_count_names_the_count():
    """2.6: the notebook's recipe, literally: count the ties with a plain sum, then divide."""
    message = first_failure(Mutant(
        "2.6", "tie count in int64",
        "share = winners / winners.sum(axis=ctx.axes, keepdims=True, dtype=a.dtype)",
        "share = winners / winners.sum(axis=ctx.axes, keepdims=True)"))
    assert "is float64" in message and "count of ties" in message and "int64" in message, message


def test_a_backward_that_modifies_the_incoming_gradient_in_place_is_told_so():
    """Tanh's backward written `grad *= 1 - out * out`: an Add hands that array to both parents."""
    mutant = next(m for m in MUTANTS if m.name == "tanh's backward modifies its incoming gradient")
    message = first_failure(mutant)
    assert "your backward modified the incoming gradient in place: return a new array" in message


def test_a_learners_own_not_implemented_error_is_an_error_showing_where_it_was_raised(tmp_path):
    find = "        ### BEGIN SOLUTION 1.2\n        a, b = self.data, other.data\n"
    impl = package(tmp_path, ROOT / "solutions" / "framework", find=find,
                   replace=find.replace("a, b =", "raise NotImplementedError\n        a, b ="))
    line = (tmp_path / "framework" / "autodiff.py").read_text().splitlines().index(
        "        raise NotImplementedError") + 1
    for exercise_id in ("1.2", "1.3"):
        result = run_exercise(exercise_id, impl, "proof")
        assert result["status"] == "error", result
        assert "NotImplementedError" in result["message"]
        assert f"framework/autodiff.py, line {line}" in result["message"], result["message"]
        assert verdict(result) == "error"


def test_a_forward_that_modifies_its_input_in_place_is_told_so(tmp_path):
    impl = package(tmp_path, ROOT / "solutions" / "framework", "ops.py",
                   "        out = np.exp(a)\n", "        out = np.exp(a, out=a)\n")
    result = run_exercise("2.4", impl, "proof", ["--no-probe"])
    failed = [c["message"] for c in result["checks"] if not c["passed"]]
    assert any("your forward modified its input in place: return a new array" in m
               for m in failed), result


def test_a_walk_reading_a_released_node_fails_chapter_1_naming_release():
    """1.7: parents read after release(): chapter 1's nodes empty on release, as Tensors do."""
    mutant = next(m for m in CHAPTER1 if m.name == "the walk reads a node's parents after releasing it")
    message = first_failure(mutant)
    assert "release() empties a node" in message and "before node.release()" in message, message


def test_a_walk_summing_array_shares_in_place_fails_chapter_1():
    """1.7: `grads[parent] += share` mutates an array another node holds: caught on array nodes."""
    mutant = next(m for m in CHAPTER1
                  if m.name == "shares summed in place into an array another node holds")
    message = first_failure(mutant)
    assert "never in place (`total += share`)" in message, message


def test_an_error_raised_in_an_earlier_exercises_code_names_that_exercise_and_its_hint(tmp_path):
    """A 3.2 bug (Linear's forward multiplies by W, not Wᵀ) fails 3.7's training: 3.7's
    report says the error comes from 3.2's code and shows 3.2's hint, not 3.7's."""
    impl = package(tmp_path, ROOT / "solutions" / "framework", "nn/functional.py",
                   "out = x2 @ weight.T\n", "out = x2 @ weight\n")
    result = run_exercise("3.7", impl, "proof", ["--no-probe"])
    failed = [c for c in result["checks"] if not c["passed"]]
    assert failed and all(c.get("caused_by") == "3.2" for c in failed), result
    text = details(exercise("3.7"), result)
    assert "caused by exercise 3.2 (The Linear layer)" in text and exercise("3.2").hint in text
    assert exercise("3.7").hint not in text, text


def test_a_gradient_of_the_wrong_shape_from_an_earlier_rule_names_that_rule_not_the_walk(tmp_path):
    """Linear's weight gradient transposed (3.2) is refused by the provided BackwardNode under
    the walk (1.7): the cause named is 3.2, whose rule returned it."""
    impl = package(tmp_path, ROOT / "solutions" / "framework", "nn/functional.py",
                   "grad_w = grad2.T @ x2 if", "grad_w = x2.T @ grad2 if")
    result = run_exercise("3.7", impl, "proof", ["--no-probe"])
    failed = [c for c in result["checks"] if not c["passed"]]
    assert failed and all(c.get("caused_by") == "3.2" for c in failed), result



def test_a_kv_cache_holding_tensors_is_named_as_its_own_exercise_not_attention(tmp_path):
    """7.8's update storing the Tensors (not their arrays) used to fail inside 5.3's attention
    ("fix 5.3 first"); the model's provided cache check names the stored type and 7.8."""
    impl = package(tmp_path, ROOT / "solutions" / "framework", "nn/gpt.py",
                   "        k, v = k.data, v.data\n", "")
    result = run_exercise("7.8", impl, "proof", ["--no-probe"])
    failed = [c for c in result["checks"] if not c["passed"]]
    assert failed and not any(c.get("caused_by") for c in failed), result
    assert any("holds keys[0] as a Tensor" in c["message"] and "KVCache.update (7.8)" in c["message"]
               for c in failed), failed

def test_a_cause_that_passes_its_own_checks_is_not_named():
    """The earlier exercise passes everything: the later one handed it bad input."""
    exercises = [exercise("3.2"), exercise("3.7")]
    results = [{"status": "ok", "checks": [{"name": "a", "passed": True}]},
               {"status": "ok", "checks": [{"name": "b", "passed": False, "caused_by": "3.2"}]}]
    drop_passed_causes(exercises, results)
    assert "caused_by" not in results[1]["checks"][0]


def test_a_wrong_value_from_an_exercise_used_points_there_instead_of_the_later_hint(tmp_path):
    """3.2's input gradient left at zero (no error, wrong numbers: the layers below never learn)
    fails 3.7's training: graded together, 3.7's report says 3.2 fails too and to fix it first,
    without 3.7's own hint."""
    impl = package(tmp_path, ROOT / "solutions" / "framework", "nn/functional.py",
                   "grad_x = (grad2 @ weight).reshape(ctx.x_shape)",
                   "grad_x = np.zeros(ctx.x_shape)")
    exercises = [exercise("3.2"), exercise("3.7")]
    results = [run_exercise(ex.id, impl, "proof", ["--no-probe"]) for ex in exercises]
    drop_passed_causes(exercises, results)
    mark_failing_uses(exercises, results)
    assert results[1]["fix_first"] == ["3.2"], results[1]
    text = details(exercises[1], results[1])
    assert "3.2 (The Linear layer) fails too, and 3.7 uses it: fix 3.2 first" in text, text
    assert exercise("3.7").hint not in text and "'3.2 The Linear layer'" in text, text
    assert "fix_first" not in results[0] and exercise("3.2").hint in details(exercises[0], results[0])


def test_an_exercise_used_that_passes_leaves_the_later_hint():
    """Only a failing exercise that is used is named: 3.7 fails alone and keeps its own hint."""
    exercises = [exercise("3.1"), exercise("3.7")]
    results = [{"status": "ok", "checks": [{"name": "a", "passed": True}]},
               {"status": "ok", "checks": [{"name": "b", "passed": False, "message": "m"}]}]
    mark_failing_uses(exercises, results)
    assert "fix_first" not in results[1]
    assert exercise("3.7").hint in details(exercises[1], results[1])


def test_a_stubbed_or_unused_failing_exercise_is_not_named():
    """3.3 fails but 3.7 does not use it; 3.4 is a stub (3.7 then waits for it anyway)."""
    exercises = [exercise("3.3"), exercise("3.4"), exercise("3.7")]
    results = [{"status": "ok", "checks": [{"name": "a", "passed": False, "message": "m"}]},
               {"status": "not_implemented", "checks": [{"name": "c", "passed": False}]},
               {"status": "ok", "checks": [{"name": "b", "passed": False, "message": "m"}]}]
    mark_failing_uses(exercises, results)
    assert "fix_first" not in results[2]


def test_an_exercise_used_from_an_earlier_chapter_graded_in_the_same_run_is_named():
    """Failing exercises of chapters graded before in the run count, with their chapter's make."""
    ex = exercise("3.7")
    results = [{"status": "ok", "checks": [{"name": "b", "passed": False, "message": "m"}]}]
    with_earlier = Exercise(ex.id, ex.title, ex.points, ex.files, ex.heading, ex.hint,
                            uses=("2.5",))
    mark_failing_uses([with_earlier], results, frozenset({"2.5"}))
    text = details(with_earlier, results[0])
    assert results[0]["fix_first"] == ["2.5"] and "fix 2.5 first (make check-chapter2)" in text
