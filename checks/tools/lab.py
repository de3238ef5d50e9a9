"""Open JupyterLab at chapter 1, with the repository as its root.

    python -m checks.tools.lab
"""

from __future__ import annotations

import subprocess
import sys

from checks.loader import ROOT


def main() -> int:
    command = [sys.executable, "-m", "jupyter", "lab", "chapters/01_autodiff.ipynb"]
    return subprocess.call(command, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
