"""Execute the reference notebooks in place, keeping their outputs (maintainers).

    python -m checks.tools.execute [solutions/02_tensor.ipynb ...]

Then `make student` regenerates chapters/ from them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from checks.loader import ROOT
from checks.tools.processes import ONE_BLAS_THREAD


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
