"""Generate the learner's files from the reference, or check that they match.

    python -m checks.tools.student            # write framework/ and chapters/
    python -m checks.tools.student --check    # fail if anything disagrees

`framework/` is `solutions/framework/` with every solution region stubbed, and its
data files (`datasets/`) copied byte for byte; `chapters/*.ipynb` are
`solutions/*.ipynb` with outputs cleared. Writing refuses
to overwrite uncommitted edits in the learner's files unless FORCE=1. `--check`
also proves the exercise table, the markers, the notebook headings and the ids of
every check, probe and mutant agree (`checks/tools/registered.py`).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import nbformat

from checks.exercises import CHAPTERS, EXERCISES
from checks.loader import ROOT
from checks.tools import registered
from checks.tools.regions import find_regions, python_files, rewrite, stub

REFERENCE = ROOT / "solutions" / "framework"
LEARNER = ROOT / "framework"
NOTEBOOKS = ROOT / "solutions"
CHAPTER_NOTEBOOKS = ROOT / "chapters"


def stubbed_package() -> dict[Path, str]:
    """Every learner file of the package, by path relative to `framework/`."""
    return {
        path.relative_to(REFERENCE): rewrite(path.read_text(), stub)
        for path in python_files(REFERENCE)
    }


def data_files(package: Path) -> list[Path]:
    """The package's files that are not Python source: data, copied unchanged (hidden ones and
    caches, such as Jupyter's checkpoints, are no one's data)."""
    return sorted(p for p in package.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")
                  and not any(part.startswith(".") or part == "__pycache__"
                              for part in p.relative_to(package).parts))


def cleared_notebook(path: Path) -> str:
    """The notebook without outputs, execution counts or run metadata; cell ids kept."""
    notebook = nbformat.read(path, as_version=4)
    for index, cell in enumerate(notebook.cells):
        cell.setdefault("id", f"cell-{index}")
        cell.metadata = {k: v for k, v in cell.metadata.items() if k == "tags"}
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    notebook.metadata = {
        k: v for k, v in notebook.metadata.items() if k in ("kernelspec", "language_info")
    }
    notebook.metadata.get("language_info", {}).pop("version", None)
    return nbformat.writes(notebook) + "\n"


def generated_files() -> dict[Path, str | bytes]:
    """Every learner file and its content: text, or bytes for a data file."""
    files: dict[Path, str | bytes] = {LEARNER / rel: text for rel, text in stubbed_package().items()}
    files.update({LEARNER / p.relative_to(REFERENCE): p.read_bytes() for p in data_files(REFERENCE)})
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        files[CHAPTER_NOTEBOOKS / path.name] = cleared_notebook(path)
    return files


def stale_files() -> list[Path]:
    """Learner files with no reference counterpart any more."""
    wanted = set(generated_files())
    # only in the folders where the reference keeps data: a file a learner saved elsewhere stays
    data_folders = {p.parent.relative_to(REFERENCE) for p in data_files(REFERENCE)}
    learner_data = [p for p in data_files(LEARNER) if p.parent.relative_to(LEARNER) in data_folders]
    present = python_files(LEARNER) + learner_data + sorted(CHAPTER_NOTEBOOKS.glob("*.ipynb"))
    return [p for p in present if p not in wanted]


def markdown_headings(notebook: Path) -> list[str]:
    cells = nbformat.read(notebook, as_version=4).cells
    return [
        line.lstrip("#").strip()
        for cell in cells if cell.cell_type == "markdown"
        for line in cell.source.splitlines() if line.startswith("#")
    ]


def table_problems() -> list[str]:
    """Where the exercise table, the region markers and the notebook headings disagree."""
    problems = []
    regions = {}
    for path in python_files(REFERENCE):
        rel = str(path.relative_to(REFERENCE))
        for region in find_regions(path.read_text(), rel):
            regions.setdefault(region.exercise, set()).add(rel)
    known = {ex.id for ex in EXERCISES}
    problems += [f"region {i} in {sorted(f)} is not in checks/exercises.py"
                 for i, f in regions.items() if i not in known]
    for ex in EXERCISES:
        files = regions.get(ex.id, set())
        if not files:
            problems.append(f"exercise {ex.id} has no solution region")
        if files - set(ex.files):
            problems.append(f"exercise {ex.id} has regions in {sorted(files - set(ex.files))}, "
                            f"but the table lists {list(ex.files)}")
        ids = [e.id for e in EXERCISES]
        problems += [f"exercise {ex.id} uses {used}, which is not an earlier exercise"
                     for used in ex.uses if used not in ids[:ids.index(ex.id)]]
        if '"' in ex.stub_message() or "\\" in ex.stub_message():
            problems.append(f"exercise {ex.id}: no quotes or backslashes in title and heading")
    for ch in CHAPTERS.values():
        if not ch.in_course:
            continue
        if sum(ex.points for ex in ch.exercises) != 100:
            problems.append(f"chapter {ch.number}'s points do not total 100")
        notebook = NOTEBOOKS / ch.notebook
        if not notebook.exists():
            problems.append(f"chapter {ch.number} has no notebook solutions/{ch.notebook}")
            continue
        headings = markdown_headings(notebook)
        positions = []
        for ex in ch.exercises:
            if ex.heading not in headings:
                problems.append(f"{ch.notebook} has no heading {ex.heading!r} ({ex.id})")
            else:
                positions.append(headings.index(ex.heading))
        if positions != sorted(positions):
            problems.append(f"{ch.notebook}: exercise headings are not in table order")
    return problems


def uncommitted_learner_edits() -> list[str]:
    done = subprocess.run(
        ["git", "status", "--porcelain", "--", "framework", "chapters"],
        cwd=ROOT, capture_output=True, text=True,
    )
    return done.stdout.splitlines() if done.returncode == 0 else []


def _current(path: Path, like: str | bytes) -> str | bytes:
    return path.read_bytes() if isinstance(like, bytes) else path.read_text()


def check() -> int:
    problems = table_problems() + registered.problems()
    for path, content in generated_files().items():
        if not path.exists() or content != _current(path, content):
            problems.append(f"{path.relative_to(ROOT)} differs from what `make student` writes")
    problems += [f"{p.relative_to(ROOT)} has no reference in solutions/" for p in stale_files()]
    for problem in problems:
        print("✗", problem)
    print("learner files, exercise table, markers, headings and ids agree" if not problems else
          f"{len(problems)} problem(s); fix solutions/ or checks/exercises.py, then make student")
    return 1 if problems else 0


def write() -> int:
    for problem in table_problems():
        print("warning:", problem)
    edits = uncommitted_learner_edits()
    if edits and os.environ.get("FORCE") != "1":
        print("refusing to overwrite uncommitted edits (commit them, or FORCE=1):")
        print("\n".join("  " + e for e in edits))
        return 1
    for path, content in generated_files().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or content != _current(path, content):
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)
            print("wrote", path.relative_to(ROOT))
    for path in stale_files():
        path.unlink()
        print("removed", path.relative_to(ROOT))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report differences")
    args = parser.parse_args(argv)
    return check() if args.check else write()


if __name__ == "__main__":
    sys.exit(main())
