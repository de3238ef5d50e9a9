"""The PyTorch-scripts suite on both backends (needs the `compare` extra): each plain script of
checks/torch_scripts returns the same numbers on the framework and on PyTorch (float32
tolerances), and each loud_*.py script, which fails on the framework, runs on PyTorch.

    pip install -e '.[compare]' && python -m pytest checks/torch_parity

Not part of `make test`: PyTorch is optional, and a suite that skips is no proof.
"""

import numpy as np
import pytest
import torch  # noqa: F401  (PyTorch itself must be importable: the scripts' `import torch`)

from checks.torch_scripts.runner import difference, run_script, scripts

PLAIN = [p for p in scripts() if difference(p) is None]
LOUD = [p for p in scripts() if difference(p) is not None]


def assert_same(ours, theirs, where: str) -> None:
    """Equal structure, equal strings and booleans, numbers within float32 tolerances."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and sorted(ours) == sorted(theirs), f"{where}: keys {ours} vs {theirs}"
        for key in theirs:
            assert_same(ours[key], theirs[key], f"{where}[{key!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)) and len(ours) == len(theirs), f"{where}: {ours} vs {theirs}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(theirs, (bool, str)) or theirs is None:
        assert ours == theirs, f"{where}: framework {ours!r}, PyTorch {theirs!r}"
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5, err_msg=where)


@pytest.mark.parametrize("path", PLAIN, ids=lambda p: p.stem)
def test_script_gives_pytorchs_numbers(path):
    theirs = run_script(path, "torch")
    ours = run_script(path, "framework")
    assert_same(ours, theirs, path.name)


@pytest.mark.parametrize("path", LOUD, ids=lambda p: p.stem)
def test_loud_script_runs_on_pytorch(path):
    run_script(path, "torch")
