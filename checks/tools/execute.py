"""Execute the reference notebooks in place, keeping their outputs (maintainers).

    python -m checks.tools.execute [solutions/02_tensor.ipynb ...]

Then `make student` regenerates chapters/ from them.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat

from checks.loader import ROOT
from checks.tools.processes import ONE_BLAS_THREAD


def final_text(stream: str) -> str:
    """What a terminal shows of `stream`: on each line, only the text after its last carriage return."""
    return re.sub(r"[^\n]*\r(?!\n)", "", stream)


def merge_streams(outputs: list) -> list:
    """Each run of stdout (or stderr) outputs as one output, progress bars at their last state.

    A progress bar arrives as hundreds of outputs; stored as they came, a notebook
    shows every one of them where a reader expects the bar as it ended.
    """
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (output.output_type == "stream" and previous is not None
                and previous.output_type == "stream" and previous.name == output.name):
            previous.text += output.text
        else:
            merged.append(output)
    for output in merged:
        if output.output_type == "stream":
            output.text = final_text(output.text)
    return merged


def tidy_outputs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    notebook.metadata.pop("widgets", None)  # state of widgets from an old run: the course draws none
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    nbformat.write(notebook, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*")
    args = parser.parse_args(argv)
    books = args.notebooks or sorted(str(p) for p in (ROOT / "solutions").glob("*.ipynb"))
    for book in books:
        command = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook",
                   "--execute", "--inplace", "--ExecutePreprocessor.timeout=1200", book]
        print("+", " ".join(command), flush=True)
        # one BLAS thread, as `make test` runs them: a busy machine makes two threads crawl
        if subprocess.run(command, cwd=ROOT, env={**ONE_BLAS_THREAD, **os.environ}).returncode:
            return 1
        tidy_outputs(ROOT / book)
    return 0


if __name__ == "__main__":
    sys.exit(main())
