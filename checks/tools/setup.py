"""Create .venv with the package (editable), the dev tools and a Jupyter kernel.

    python3 -m checks.tools.setup

Standard library only, so it runs before anything is installed. Safe to re-run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv"
KERNEL = "framework-course"


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def run(*command: str) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True)


def main() -> int:
    if sys.version_info < (3, 10):  # noqa: UP036 (runs on whatever python3 a learner has)
        print(f"Python 3.10 or newer is needed; this is {sys.version.split()[0]}")
        return 1
    if not venv_python().exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    python = str(venv_python())
    run(python, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(python, "-m", "pip", "install", "--quiet", "-e", ".[dev]")
    kernels = subprocess.run([python, "-m", "pip", "install", "--quiet", "-e", ".[kernels]"],
                             cwd=ROOT)
    if kernels.returncode:
        print("\nNumba and numba-cuda did not install: chapters 1-7 work without them; chapter 8 "
              "needs them (see the README's section on chapter 8).", flush=True)
    # Build matplotlib's font cache now, not in the middle of the first plot.
    run(python, "-c", "import matplotlib.font_manager")
    run(python, "-m", "ipykernel", "install", "--sys-prefix", "--name", KERNEL,
        "--display-name", "Python (framework course)")
    print(f"\nReady. Start with: make lab   (or {python} -m checks.tools.lab)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
