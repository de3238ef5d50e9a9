"""The exercises' text: contract first, the recipe in folded hints (issue 24).

An exercise's section runs from its heading (`heading` in checks/exercises.py) to the next
exercise heading or `##` heading of its notebook. In every chapter it states its
contract in a paragraph starting `**Contract.**` before any hint; the recipe lives in at
least two `<details>` blocks whose summaries read `Hint 1 — …`, `Hint 2 — …`, in order
(JupyterLab and GitHub show them folded); and no NumPy call is named outside them, nor in
the grader's hint, which says what to check and sends the learner to those hints.
"""

from __future__ import annotations

import re

import nbformat
import pytest

from checks.exercises import CHAPTERS, EXERCISES, Exercise
from checks.loader import ROOT

IN_COURSE = sorted(n for n, ch in CHAPTERS.items() if ch.in_course)

# A NumPy call, or the name of a NumPy function a recipe would hand out, in prose or code.
NUMPY_CALL = re.compile(
    r"\bnp\.\w+|\bnumpy\.\w+"
    r"|\b(?:ndindex|expand_dims|argsort|add\.at|swapaxes|moveaxis|broadcast_to|einsum|tensordot"
    r"|put_along_axis|take_along_axis|sliding_window_view|logaddexp|log1p|expm1)\b"
    r"|\b\w+\([^()]*\bdtype="
)
# In a grader hint: a NumPy call written out (naming a function, as 6.4's speed advice must, is
# not a line to copy).
NP_CALL = re.compile(r"\bnp\.\w+|\bnumpy\.\w+")
DETAILS = re.compile(r"<details>(.*?)</details>", re.DOTALL)
SUMMARY = re.compile(r"<summary>\s*Hint (\d+) — .+?</summary>")
HEADING = re.compile(r"^(#+)\s+(.*?)\s*$")
# What a contract names, so that a rename or a move in the package cannot leave it stale: a
# file of the package, and a call of a class, of a class's method or of a private function.
NAMED_FILE = re.compile(r"`(?:framework/)?((?:nn/|utils/)?\w+\.py)`")
NAMED_CALL = re.compile(r"`(?:[A-Z]\w*\.(\w+)|([A-Z]\w*|_\w+))\(")
PACKAGE = ROOT / "solutions" / "framework"


def exercises() -> list[Exercise]:
    return [ex for ex in EXERCISES if ex.chapter in IN_COURSE]


def section(markdown: list[str], ex: Exercise, headings: set[str]) -> str:
    """The markdown from the exercise's heading up to the next exercise or `##` heading."""
    lines = "\n\n".join(markdown).splitlines()
    start = next((i for i, line in enumerate(lines)
                  if (m := HEADING.match(line)) and m[2] == ex.heading), None)
    assert start is not None, f"{ex.notebook} has no heading {ex.heading!r} ({ex.id})"
    end = next((i for i in range(start + 1, len(lines))
                if (m := HEADING.match(lines[i])) and (len(m[1]) <= 2 or m[2] in headings)),
               len(lines))
    return "\n".join(lines[start + 1:end])


def sections() -> dict[str, str]:
    found = {}
    for number in IN_COURSE:
        chapter = CHAPTERS[number]
        cells = nbformat.read(ROOT / "solutions" / chapter.notebook, as_version=4).cells
        markdown = [cell.source for cell in cells if cell.cell_type == "markdown"]
        headings = {ex.heading for ex in chapter.exercises}
        found.update({ex.id: section(markdown, ex, headings) for ex in chapter.exercises})
    return found


SECTIONS = sections()


def contract(text: str) -> str:
    """The section's **Contract.** paragraph (its bullets included), or ''."""
    return next((p.strip() for p in re.split(r"\n\s*\n", text)
                 if p.strip().startswith("**Contract.**")), "")


def defined_names() -> set[str]:
    source = "\n".join(path.read_text() for path in PACKAGE.rglob("*.py"))
    return set(re.findall(r"^\s*(?:def|class)\s+(\w+)", source, re.MULTILINE))


def contract_problem(text: str) -> str | None:
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text)]
    contract = next((i for i, p in enumerate(paragraphs) if p.startswith("**Contract.**")), None)
    if contract is None:
        return "no paragraph starts with **Contract.**"
    first_hint = next((i for i, p in enumerate(paragraphs) if "<details>" in p), len(paragraphs))
    if contract > first_hint:
        return "the **Contract.** paragraph comes after a hint"
    return None


def hints_problem(text: str) -> str | None:
    if text.count("<details>") != text.count("</details>"):
        return f"{text.count('<details>')} <details> but {text.count('</details>')} </details>"
    numbers = []
    for block in DETAILS.findall(text):
        summary = SUMMARY.search(block)
        if summary is None or not block.lstrip().startswith("<summary>"):
            return f"a <details> block without <summary>Hint k — …</summary>: {block[:80]!r}"
        numbers.append(int(summary[1]))
    if len(numbers) < 2:
        return f"{len(numbers)} folded hint(s), at least 2 wanted"
    if numbers != list(range(1, len(numbers) + 1)):
        return f"hints numbered {numbers}, wanted 1 to {len(numbers)} in order"
    return None


def unfolded_calls(text: str) -> list[str]:
    return [m[0] for m in NUMPY_CALL.finditer(DETAILS.sub("", text))]


def test_every_exercise_of_the_course_has_a_section():
    assert exercises() and set(SECTIONS) == {ex.id for ex in exercises()}


@pytest.mark.parametrize("exercise_id", [ex.id for ex in exercises()])
def test_an_exercise_states_its_contract_before_any_hint(exercise_id):
    problem = contract_problem(SECTIONS[exercise_id])
    assert problem is None, f"exercise {exercise_id}: {problem}"


@pytest.mark.parametrize("exercise_id", [ex.id for ex in exercises()])
def test_a_contract_names_only_the_files_of_its_exercise(exercise_id):
    ex = next(ex for ex in EXERCISES if ex.id == exercise_id)
    named = set(NAMED_FILE.findall(contract(SECTIONS[exercise_id])))
    assert named <= set(ex.files), (
        f"the contract of {exercise_id} names {sorted(named - set(ex.files))}; "
        f"checks/exercises.py says it is written in {list(ex.files)}")


@pytest.mark.parametrize("exercise_id", [ex.id for ex in exercises()])
def test_a_contract_names_only_what_the_package_defines(exercise_id):
    calls = {a or b for a, b in NAMED_CALL.findall(contract(SECTIONS[exercise_id]))}
    missing = sorted(calls - defined_names())
    assert not missing, (
        f"the contract of {exercise_id} names {missing}: no def or class of solutions/framework")


@pytest.mark.parametrize("exercise_id", [ex.id for ex in exercises()])
def test_an_exercise_folds_at_least_two_numbered_hints(exercise_id):
    problem = hints_problem(SECTIONS[exercise_id])
    assert problem is None, f"exercise {exercise_id}: {problem}"


@pytest.mark.parametrize("exercise_id", [ex.id for ex in exercises()])
def test_an_exercise_names_no_numpy_call_outside_its_hints(exercise_id):
    calls = unfolded_calls(SECTIONS[exercise_id])
    assert not calls, f"exercise {exercise_id} names {calls} outside <details>: fold them into a hint"


@pytest.mark.parametrize("exercise_id", [ex.id for ex in exercises()])
def test_a_grader_hint_names_no_numpy_call(exercise_id):
    ex = next(ex for ex in EXERCISES if ex.id == exercise_id)
    calls = [m[0] for m in NP_CALL.finditer(ex.hint)]
    assert not calls, f"the hint of {exercise_id} in checks/exercises.py names {calls}"


# The checks above can fail: a section written the old way, with the recipe in the open.
RECIPE = """
Sum the gradient over the broadcast axes.

**Your turn.** Write `unbroadcast(grad, shape)`: `np.sum(grad, axis=0)`, then
`np.expand_dims(g, -1)`; count with `winners.sum(axis=1, dtype=a.dtype)`.
"""


def test_a_section_without_a_contract_is_caught():
    assert contract_problem(RECIPE) == "no paragraph starts with **Contract.**"
    late = RECIPE + "\n<details><summary>Hint 1 — x</summary>\n\ny\n</details>\n\n**Contract.** z"
    assert contract_problem(late) == "the **Contract.** paragraph comes after a hint"


def test_a_stale_name_or_file_in_a_contract_is_caught():
    stale = "**Contract.** `Value.__gone__(x)` and `_no_such_rule(g)`, in `framework/old.py`."
    assert NAMED_FILE.findall(stale) == ["old.py"]
    calls = {a or b for a, b in NAMED_CALL.findall(stale)}
    assert calls - defined_names() == {"__gone__", "_no_such_rule"}


def test_a_section_without_two_numbered_hints_is_caught():
    one = "<details><summary>Hint 1 — the idea</summary>\n\ntext\n\n</details>"
    assert hints_problem(RECIPE) == "0 folded hint(s), at least 2 wanted"
    assert hints_problem(RECIPE + one) == "1 folded hint(s), at least 2 wanted"
    assert hints_problem(one + one).startswith("hints numbered [1, 1]")
    assert hints_problem(one + "<details>").startswith("2 <details> but 1")
    assert hints_problem(one + one.replace("1", "2")) is None


def test_a_numpy_call_in_the_open_is_caught_and_one_in_a_hint_is_not():
    assert unfolded_calls(RECIPE) == ["np.sum", "np.expand_dims", "sum(axis=1, dtype="]
    folded = f"**Contract.** c\n\n<details><summary>Hint 1 — calls</summary>\n{RECIPE}\n</details>"
    assert unfolded_calls(folded) == []
