"""The external corpus on both backends (needs the `compare` extra): every program of
checks/external runs on PyTorch, and each that runs on the framework prints PyTorch's values
(float32 tolerances), both drawing the same random numbers (see checks/external/runner.py).

    pip install -e '.[compare]' && python -m pytest checks/torch_parity/test_external.py
"""

import pytest
import torch  # noqa: F401  (PyTorch itself must be importable: the programs' `import torch`)

from checks.external.runner import differences, expected, name, programs, run_program

RUNS = [p for p in programs() if expected()[name(p)] is None]


@pytest.mark.parametrize("path", programs(), ids=name)
def test_program_runs_on_pytorch(path):
    outcome = run_program(path, "torch")
    assert outcome.ran, f"{outcome.error} ({outcome.where})"


@pytest.mark.parametrize("path", RUNS, ids=name)
def test_program_prints_pytorchs_values(path):
    ours, theirs = run_program(path, "framework"), run_program(path, "torch")
    assert ours.ran and theirs.ran, (ours.error, theirs.error)
    assert differences(ours.output, theirs.output) == []
