"""The executed reference notebooks show nothing of the machine that ran them.

A learner reads `solutions/*.ipynb` on GitHub or in their own clone: an output that names
`/home/someone/...` or a `site-packages` file is noise at best, and differs on every machine.
"""

import re

import nbformat
import pytest

from checks.loader import ROOT

NOTEBOOKS = sorted((ROOT / "solutions").glob("*.ipynb"))
MACHINE_PATH = re.compile(r"(?<![\w.])(?:/(?:home|work|tmp|root|Users|var|private|opt)/|[A-Z]:\\)"
                          r"|site-packages")


def output_texts(path) -> list[str]:
    notebook = nbformat.read(path, as_version=4)
    texts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            texts.append(output.get("text", ""))
            texts.extend(str(v) for k, v in output.get("data", {}).items() if k.startswith("text/"))
            texts.extend(output.get("traceback", []))
    return texts


def test_a_machine_path_is_recognised():
    assert MACHINE_PATH.search("framework imported from /home/ada/course/solutions/framework")
    assert MACHINE_PATH.search(r"C:\Users\ada\course")
    assert not MACHINE_PATH.search("framework imported from solutions/framework (IMPL=solutions)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_output_of_a_reference_notebook_names_a_machine_path(path):
    found = [match.group(0) + " in: " + text[max(0, match.start() - 60):match.end() + 60]
             for text in output_texts(path) for match in [MACHINE_PATH.search(text)] if match]
    assert not found, f"{path.name}: " + "\n".join(found[:3])
