"""make gpu-check: without a GPU (or in the simulator) one line and exit 0, so make test never
depends on a GPU."""

import os
import subprocess
import sys

from checks.loader import ROOT
from checks.tools import gpu_check


def test_without_a_gpu_gpu_check_says_so_in_one_line_and_exits_0():
    # the simulator forced: the no-GPU path even on a machine with a GPU
    env = {**os.environ, "IMPL": "solutions", "NUMBA_ENABLE_CUDASIM": "1"}
    done = subprocess.run([sys.executable, "-m", "checks.tools.gpu_check"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == gpu_check.NO_GPU
    assert gpu_check.NO_GPU == ("no GPU visible: the simulator is the gate; make check-chapter8 "
                                "grades the kernels")


def test_the_makefile_has_the_target():
    makefile = (ROOT / "Makefile").read_text()
    assert "gpu-check:\n\t$(PY) -m checks.tools.gpu_check" in makefile
