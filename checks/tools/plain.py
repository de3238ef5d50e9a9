"""A failure as a learner reads it: their input, expected and got, the line of their code.

Hypothesis writes its account of a failing input for the author of a test: the call of the
grader's test function, `Draw 1: …` for each value drawn inside it, the lines of the
graders' and NumPy's files that only failing inputs ran (its "explain" phase, off in the
graders' profiles), "(and 4 more with settings.verbosity >= verbose)", how to reproduce it.
A traceback names every file it went through. What is shown here keeps the input, the
message and, of the files, only the learner's own (`framework/…`, with its line); no path
into `checks/`, `site-packages`, hypothesis or the standard library reaches the learner.
"""

from __future__ import annotations

import re
import signal

# hypothesis's notes meant for a test's author, not for a learner reading a grade
NOISE = ("You can reproduce", "Explanation:", "Unreliable test timings", "Highest target score")
# hypothesis's "explain" report: the lines only failing examples ran, in the graders' and
# NumPy's files, which a learner is told not to open; dropped with the paths listed under it
EXPLAIN = re.compile(r"^[ \t]*(?:Explanation:\s*)?These lines were always and only run by "
                     r"failing[^\n]*(?:\n[ \t]+[^\n]*)*", re.MULTILINE)
# one line of that report on its own: a file and line number, or how many more there are
PATH_LINE = re.compile(r"^[ \t]*[^\s=#'\"(\[{][^=#'\"]*\.py:\d+[ \t]*$")
MORE_LINES = re.compile(r"^[ \t]*\(and \d+ more with settings\.verbosity >= verbose\)[ \t]*$")
# the comments the explain phase writes into the failing example
COMMENT = re.compile(r"[ \t]+# or any other generated value[ \t]*$")
COMMENT_LINE = re.compile(r"^[ \t]*# The test (?:always failed|sometimes passed) when "
                          r"commented parts were varied together\.[ \t]*$")
HEADER = re.compile(r"^(?:Falsifying|Failing)(?: explicit)? (?:example|test case): ")
DRAW = re.compile(r"^Draw (\d+)(?: \((.*?)\))?: ", re.DOTALL)
DATA_ARGUMENT = re.compile(r"^[ \t]*\w+=data\(\.\.\.\),?[ \t]*$")
# a frame of a traceback, and the source line Python prints under it
FRAME = re.compile(r'^([ \t]*)File "([^"]+)", line (\d+)(.*)$')
# a path written out in text (a warning's `path:line: …`): the package's part of it, if any
PATH = re.compile(r"(?:[A-Za-z]:)?[^\s\"':]*[/\\](framework[/\\][^\s\"':]+\.py)")
# a warning as Python prints it: `path:line: Category: message`, its code line under it
WARNING = re.compile(r"^\S.*\.py:\d+: \w+: ")
INTERNAL = re.compile(r"site-packages|dist-packages|[/\\]checks[/\\]|[/\\]hypothesis[/\\]"
                      r"|[/\\]lib[/\\]python3|<frozen ")


def without_explain(text: str) -> str:
    """`text` without hypothesis's list of the lines run only by failing examples."""
    return EXPLAIN.sub("", text).strip("\n") if "These lines were always" in text else text


def internal(line: str) -> bool:
    """A line that only names the graders' or hypothesis's inner workings."""
    return bool(PATH_LINE.match(line) or MORE_LINES.match(line) or COMMENT_LINE.match(line))


def message(text: str) -> str:
    """`text` without the explain report's lines and the comments it adds to an example."""
    kept = [COMMENT.sub("", line) for line in without_explain(text).split("\n")
            if not internal(line)]
    return "\n".join(kept).strip("\n")


def example(notes: list[str]) -> str:
    """Hypothesis's notes on a failing input, in plain words, in their order: "failing input:
    test(…)" with each value drawn inside the test (`data.draw(…, label=name)`) among its
    arguments as `name=value`; a value drawn without a label as "input n: value" after it."""
    notes = [message(n.replace("; use Verbosity.verbose to view", "")) for n in notes
             if not n.lstrip().startswith(NOISE)]
    draws = [(m.group(1), m.group(2), n[m.end():]) for n in notes for m in [DRAW.match(n)] if m]
    labelled = [(label, value) for _, label, value in draws if label]
    unlabelled = [f"input {number}: {value}" for number, label, value in draws if not label]
    shown = []
    for note in notes:
        if not note or DRAW.match(note):
            continue
        if not HEADER.match(note):
            shown.append(note)
            continue
        lines = HEADER.sub("failing input: ", note).split("\n")
        data = [i for i, line in enumerate(lines) if DATA_ARGUMENT.match(line)]
        if data:  # the drawn values where the test's `data` argument was
            indent = re.match(r"[ \t]*", lines[data[0]]).group(0)
            lines = [line for i, line in enumerate(lines) if i not in data]
            lines[data[0]:data[0]] = [f"{indent}{label}={value},".replace("\n", "\n" + indent)
                                      for label, value in labelled]
        else:
            lines += [f"{label}: {value}" for label, value in labelled]
        shown += ["\n".join(lines), *unlabelled]
        labelled = unlabelled = []
    return "\n".join(shown + [f"{label}: {value}" for label, value in labelled] + unlabelled)


def output(text: str) -> str:
    """A process's printed output as shown: of a traceback, only the frames in the package
    (`framework/…`, line and code); lines naming the graders', hypothesis's, the standard
    library's or an installed package's files left out; the package's paths from `framework/`."""
    kept, skipping = [], None
    for line in text.split("\n"):
        if skipping is not None:  # the code line (and ^^^ marks) under a frame left out
            if line.startswith(skipping + " ") and not FRAME.match(line):
                continue
            skipping = None
        frame = FRAME.match(line)
        if frame:
            indent, path, number, rest = frame.groups()
            own = PATH.search(path)
            if own and not INTERNAL.search(path):
                kept.append(f'{indent}File "{own.group(1)}", line {number}{rest}')
            else:
                skipping = indent
            continue
        if internal(line):
            continue
        if INTERNAL.search(line):
            own = PATH.search(line)
            if not own or INTERNAL.search(line[:own.start()] + line[own.end():]):
                if WARNING.match(line):  # and the line of code Python prints under it
                    skipping = ""
                continue
        kept.append(PATH.sub(r"\1", line))
    return "\n".join(kept)


def ended(returncode: int) -> str:
    """How a process that did not report ended: its signal by name, or its exit code."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            return f"was killed by signal {-returncode}"
        return f"was killed by signal {-returncode} ({name})"
    return f"exited with code {returncode}"
