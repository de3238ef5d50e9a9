"""The README's table of exercises, written from the exercise table (maintainers).

    python -m checks.tools.readme            # rewrite the table in README.md
    python -m checks.tools.readme --check    # fail if README.md's table is stale

The table sits between two HTML comments, so the rest of the README is never touched;
a selftest fails while it differs from what `checks/exercises.py` says.
"""

from __future__ import annotations

import argparse
import sys

from checks.exercises import EXERCISES
from checks.loader import ROOT

README = ROOT / "README.md"
BEGIN = "<!-- exercise ids: written from checks/exercises.py by python -m checks.tools.readme -->"
END = "<!-- end of exercise ids -->"


def table() -> str:
    """One row per exercise: id, title, points, the files to write in, the section to read."""
    rows = ["| id | exercise | points | you write in | notebook section |",
            "| --- | --- | ---: | --- | --- |"]
    for ex in EXERCISES:
        files = ", ".join(f"`framework/{name}`" for name in ex.files)
        points = "bonus" if ex.bonus else ex.points  # graded apart, worth none of the 100
        rows.append(f"| {ex.id} | {ex.title} | {points} | {files} | "
                    f"`chapters/{ex.notebook}`, {ex.heading} |")
    return "\n".join(rows)


def with_table(text: str) -> str:
    """`text` with the part between the markers replaced by the current table."""
    if text.count(BEGIN) != 1 or text.count(END) != 1 or text.index(BEGIN) > text.index(END):
        raise SystemExit(f"README.md needs one line {BEGIN!r}, then one line {END!r}")
    before, rest = text.split(BEGIN)
    _, after = rest.split(END)
    return f"{before}{BEGIN}\n{table()}\n{END}{after}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report whether it is stale")
    args = parser.parse_args(argv)
    text = README.read_text()
    wanted = with_table(text)
    if args.check:
        print("README.md's exercise table is current" if wanted == text else
              "README.md's exercise table is stale: python -m checks.tools.readme")
        return 0 if wanted == text else 1
    if wanted != text:
        README.write_text(wanted)
        print("wrote the exercise table of README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
