"""No provided line of the reference holds a graded answer.

The learner receives every line of `solutions/framework/` outside its `### BEGIN SOLUTION`
regions. Provided code that repeats a region (a private copy of exercise 1.7's walk, say)
hands the learner that answer, so it must call the learner's code instead. Three checks,
over statements (a statement written on several lines is one; comments and docstrings are
not code):

- the same statement: one of a region's, written out in provided code. Only statements of
  at least `MIN_CHARS` characters (whitespace and comments aside) count: the shorter ones
  this tree shares between answers and provided code are one-step idioms (a mask, an
  unpacking, a call passing names through), which any code writes the same way;
- the same shape: `RUN` statements in a row whose tokens agree once names, strings and
  numbers are placeholders, and whose block depths agree: a copy with its names changed;
- the same outline: as the shape, with each operand (a name with its attribute, call and
  subscript trailers, a literal, a bracketed display) one placeholder: a copy whose
  expressions were adapted (`id(node)` for `node`) but whose statements were not.

A run counts only if it holds at least `MIN_KINDS` different shapes (outlines): six
assignments in a row is how much code looks. An outline keeps little but the kinds of the
statements, so a run counts at that level only if at least `MIN_STEERING` of its statements
start with a keyword (`if`, `for`, `else`, `break`, `return`, ...): runs of assignments and
calls with one `return` are, at that level, most of the package.

`MIN_CHARS` is 45: the statements under 45 characters that this tree's provided code shares
with an answer are idioms, not answers (`keep = targets != ignore_index`, Adam's coupled
weight decay `grad = grad + group["weight_decay"] * param`, an Embedding's
`self.weight = Parameter(weight.astype(dtype))`, unpackings such as
`a_shape, b_shape = ctx.shapes`, calls of the learner's code such as
`self.adam_step(param, grad, state, group)`). Shorter statements still count in the runs
of six.
"""

from __future__ import annotations

import io
import keyword
import tokenize
from collections import defaultdict
from dataclasses import dataclass

import pytest

from checks.loader import ROOT
from checks.tools.regions import find_regions, python_files

REFERENCE = ROOT / "solutions" / "framework"
MIN_CHARS = 45
RUN = 6
MIN_KINDS = 3
MIN_STEERING = 2

_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
# Python 3.12 splits an f-string into parts; before, it is one STRING token
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)
_OPEN, _CLOSE = "([{", ")]}"
_CONSTANTS = {"True", "False", "None"}


@dataclass(frozen=True)
class Statement:
    path: str
    line: int  # where it starts, 1-based
    depth: int  # how many blocks it is inside
    tokens: tuple[tokenize.TokenInfo, ...]
    exercise: str | None  # the region's exercise, None for provided code
    part: int  # statements of one part (a region, or provided code between regions) share it

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def text(self) -> str:
        """The statement with its whitespace made one space and its comments dropped."""
        return " ".join(t.string for t in self.tokens)

    @property
    def significant(self) -> bool:
        return len(self.tokens) >= 3 and len(self.text.replace(" ", "")) >= MIN_CHARS

    @property
    def shape(self) -> str:
        """Names as N, strings as S, numbers as 0; keywords and operators kept."""
        out, in_fstring = [], 0
        for t in self.tokens:
            if _FSTRING_START is not None and t.type in (_FSTRING_START, _FSTRING_END):
                in_fstring += 1 if t.type == _FSTRING_START else -1
                if t.type == _FSTRING_START and in_fstring == 1:
                    out.append("S")
            elif in_fstring:
                continue
            elif t.type == tokenize.NAME:
                out.append(t.string if keyword.iskeyword(t.string) else "N")
            elif t.type == tokenize.STRING:
                out.append("S")
            elif t.type == tokenize.NUMBER:
                out.append("0")
            else:
                out.append(t.string)
        return " ".join(out)

    @property
    def outline(self) -> str:
        """The shape with each operand, trailers and brackets included, as one X."""
        out, nesting, operand = [], 0, False
        for word in self.shape.split():
            if nesting:
                nesting += (word in _OPEN) - (word in _CLOSE)
            elif word in _OPEN:
                nesting = 1
                if not operand:  # a display, (a, b) or [x]: an operand of its own
                    out.append("X")
                    operand = True
            elif word in ("N", "S", "0", *_CONSTANTS):
                if not operand:
                    out.append("X")
                    operand = True
            elif word == ".":  # an attribute: still the same operand
                continue
            else:
                out.append(word)
                operand = False
        return " ".join(out)


def statements(text: str, path: str) -> list[Statement]:
    """The statements of one file's code, docstrings left out, each marked with its region."""
    regions = find_regions(text, path)
    found, pending, depth, start = [], [], 0, 0
    for t in tokenize.generate_tokens(io.StringIO(text).readline):
        if t.type == tokenize.INDENT:
            depth += 1
        elif t.type == tokenize.DEDENT:
            depth -= 1
        elif t.type == tokenize.NEWLINE:
            if not (len(pending) == 1 and pending[0].type == tokenize.STRING):  # a docstring
                found.append((pending, depth, start))
            pending = []
        elif t.type not in _SKIPPED:
            if not pending:
                start = t.start[0]
            pending.append(t)
    result = []
    for tokens, depth, line in found:
        # the part: region k is part 2k + 1; provided code before it 2k, after the last one 2n
        index = sum(r.end + 1 < line for r in regions)
        region = next((r for r in regions if r.begin + 1 < line < r.end + 1), None)
        part = 2 * index + (region is not None)
        exercise = region.exercise if region else None
        result.append(Statement(path, line, depth, tuple(tokens), exercise, part))
    return result


def parse_tree(files: dict[str, str]) -> list[Statement]:
    """Every statement of every file, from its path (shown in messages) and text."""
    return [s for path, text in sorted(files.items()) for s in statements(text, path)]


def reference_files() -> dict[str, str]:
    return {p.relative_to(ROOT).as_posix(): p.read_text() for p in python_files(REFERENCE)}


def copied_statements(tree: list[Statement]) -> list[str]:
    """Provided statements equal to a region's, one message each."""
    answers: dict[str, Statement] = {}
    for s in tree:
        if s.exercise and s.significant:
            answers.setdefault(s.text, s)
    return [
        f"{s.where} repeats exercise {a.exercise}'s answer at {a.where}: {s.text}"
        for s in tree
        if s.exercise is None and s.significant and (a := answers.get(s.text))
    ]


def _runs(tree: list[Statement], level: str):
    """Each run of RUN statements of one part, with its key at `level` ("shape" or "outline")."""
    by_part: dict[tuple[str, int], list[Statement]] = defaultdict(list)
    for s in tree:
        by_part[s.path, s.part].append(s)
    for part in by_part.values():
        for i in range(len(part) - RUN + 1):
            run = part[i : i + RUN]
            words = [getattr(s, level) for s in run]
            steering = sum(keyword.iskeyword(w.split()[0]) for w in words)
            if len(set(words)) >= MIN_KINDS and (level == "shape" or steering >= MIN_STEERING):
                yield run, tuple((s.depth - run[0].depth, w) for s, w in zip(run, words))


def copied_runs(tree: list[Statement], level: str) -> list[str]:
    """Runs of provided statements with the `level` of a run of a region's, one message each."""
    answers: dict[tuple, list[Statement]] = {}
    for run, key in _runs([s for s in tree if s.exercise], level):
        answers.setdefault(key, run)
    found = []
    for run, key in _runs([s for s in tree if s.exercise is None], level):
        if key in answers:
            a = answers[key]
            found.append(
                f"{run[0].where}-{run[-1].line} has the {level} of exercise {a[0].exercise}'s "
                f"answer at {a[0].where}-{a[-1].line}: {' / '.join(s.text for s in run)}"
            )
    return found


def report(found: list[str], what: str) -> str:
    return (f"{len(found)} {what}; provided code must call the learner's code, not repeat it:\n"
            + "\n".join(found))


# -- the reference -----------------------------------------------------------------------------

TREE = parse_tree(reference_files())


def test_the_reference_is_read_with_its_regions():
    assert {"solutions/framework/autodiff.py", "solutions/framework/tensor.py"} <= {
        s.path for s in TREE}
    assert {"1.6", "1.7", "2.10"} <= {s.exercise for s in TREE}
    assert sum(s.exercise is None for s in TREE) > sum(s.exercise is not None for s in TREE)


def test_no_provided_statement_repeats_an_answer():
    found = copied_statements(TREE)
    assert not found, report(found, "provided statements repeat an answer's")


@pytest.mark.parametrize("level", ["shape", "outline"])
def test_no_run_of_provided_statements_has_an_answers_shape_or_outline(level):
    found = copied_runs(TREE, level)
    assert not found, report(found, f"runs of {RUN} provided statements have an answer's {level}")


# -- the detector, on planted copies -----------------------------------------------------------

ANSWER = '''\
def walk(root, gradient):
    """The answer."""
    ### BEGIN SOLUTION 1.7
    grads = {root: gradient}
    for node in reversed(topological_order(root)):
        grad = grads.pop(node, None)
        if grad is None:
            continue
        node.receive_grad(grad)
        for parent, share in zip(node.parents, node.grad_fn(grad)):
            grads[parent] = share if parent not in grads else grads[parent] + share
    ### END SOLUTION
'''


def planted(provided: str) -> list[Statement]:
    return parse_tree({"answer.py": ANSWER, "provided.py": provided})


def test_a_copied_statement_is_named_with_both_places_and_the_exercise():
    tree = planted("def helper(grads, parent, share):\n"
                   "    grads[parent] = share if parent not in grads else grads[parent] + share\n")
    assert copied_statements(tree) == [
        "provided.py:2 repeats exercise 1.7's answer at answer.py:11: grads [ parent ] = share "
        "if parent not in grads else grads [ parent ] + share"
    ]


def test_a_copied_statement_is_found_whatever_its_spacing_comments_and_line_breaks():
    tree = planted("def helper(grads, parent, share):\n"
                   "    grads[ parent ]=share if parent not in grads \\\n"
                   "        else grads[parent]+share  # summed\n")
    assert [m.split(": ")[0] for m in copied_statements(tree)] == [
        "provided.py:2 repeats exercise 1.7's answer at answer.py:11"]


def test_a_renamed_copy_has_the_answers_shape():
    renamed = '''\
def _walk(top, seed, found):
    pending = {top: seed}
    for n in reversed(topological_order(top)):
        g = pending.pop(n, None)
        if g is None:
            continue
        found.add(g)
        for p, s in zip(n.parents, n.grad_fn(g)):
            pending[p] = s if p not in pending else pending[p] + s
'''
    tree = planted(renamed)
    assert copied_statements(tree) == []  # no statement is the same text
    found = copied_runs(tree, "shape")
    assert found and found[0].startswith(
        "provided.py:2-7 has the shape of exercise 1.7's answer at answer.py:4-9: ")


def test_an_adapted_copy_has_the_answers_outline():
    adapted = '''\
def _walk(top, seed, found):
    pending = {id(top): seed}
    for n in reversed(list(topological_order(top))):
        g = pending.pop(id(n), None)
        if g is None:
            continue
        found.append((n, g))
        for p, s in zip(n.parents, n.grad_fn(g)):
            pending[id(p)] = s if id(p) not in pending else pending[id(p)] + s
'''
    tree = planted(adapted)
    assert copied_runs(tree, "shape") == []
    assert copied_runs(tree, "outline")


def in_region(body: str, exercise: str = "1.7") -> str:
    """`body`, statements of one indented block, as a function holding one region."""
    return (f"def answer(a, b, c):\n    ### BEGIN SOLUTION {exercise}\n{body}"
            "    ### END SOLUTION\n")


def test_short_statements_and_runs_of_plain_statements_are_not_answers():
    short = "    grads = {root: gradient}\n    if grad is None:\n        return\n"
    plain = "".join(f"    {name} = {value}\n" for name, value in zip("defghi", "1x2y3z"))
    tree = parse_tree({"answer.py": in_region(short) + in_region(plain, "1.6"),
                       "provided.py": "def provided(a, b, c):\n" + short + plain})
    assert copied_statements(tree) == []  # every statement is under MIN_CHARS
    assert copied_runs(tree, "shape") == [] and copied_runs(tree, "outline") == []
    # the same, with the block's lines made all different: a renamed copy
    varied = short + "    d = 1\n    e, f = g\n    h = i[0]\n"
    tree = parse_tree({"answer.py": in_region(varied), "provided.py": "def p():\n" + varied})
    assert copied_runs(tree, "shape")


def test_an_outline_counts_only_with_statements_that_steer():
    answer = "    a = b(c)\n    d = [c, a]\n    g, h = d\n    j = g[0] + h\n    k = j.m\n" \
             "    return k\n"
    other = "    a = b\n    d = (c, a)\n    g, h = f(d)\n    j = g + h[1]\n    k = j(m)\n" \
            "    return k.n\n"
    tree = parse_tree({"answer.py": in_region(answer), "provided.py": "def p():\n" + other})
    assert copied_runs(tree, "shape") == [] and copied_runs(tree, "outline") == []
    steering = other.replace("    k = j(m)\n", "    if j:\n        k = j(m)\n")
    answer = answer.replace("    k = j.m\n", "    if j:\n        k = j.m\n")
    tree = parse_tree({"answer.py": in_region(answer), "provided.py": "def p():\n" + steering})
    assert copied_runs(tree, "outline")


def test_a_copy_of_a_region_inside_another_region_is_no_provided_code():
    twice = ANSWER + ANSWER.replace("def walk", "def walk_again").replace("1.7", "1.6")
    tree = parse_tree({"answer.py": twice})
    assert copied_statements(tree) == [] and copied_runs(tree, "shape") == []
