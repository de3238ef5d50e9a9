"""The PyTorch-scripts suite on the framework: every plain PyTorch script of checks/torch_scripts
runs unchanged on the reference, asserting what it can know on its own; each loud_*.py script
fails with an error matching its DIFFERENCE. (With PyTorch installed, checks/torch_parity runs
them on both and compares the numbers.)
"""

import math

import pytest

from checks.torch_scripts.runner import difference, run_script, scripts

PLAIN = [p for p in scripts() if difference(p) is None]
LOUD = [p for p in scripts() if difference(p) is not None]


def numbers(value):
    """Every number in a script's result, flattened."""
    if isinstance(value, dict):
        return [n for v in value.values() for n in numbers(v)]
    if isinstance(value, (list, tuple)):
        return [n for v in value for n in numbers(v)]
    return [value] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


def test_the_suite_has_scripts_of_both_kinds():
    assert len(PLAIN) >= 10 and len(LOUD) >= 3


@pytest.mark.parametrize("path", PLAIN, ids=lambda p: p.stem)
def test_script_runs_on_the_framework(path):
    result = run_script(path, "framework")
    assert isinstance(result, dict) and result, f"{path.name}: run() returns the numbers it computed"
    assert all(math.isfinite(n) for n in numbers(result)), f"{path.name}: {result}"


@pytest.mark.parametrize("path", LOUD, ids=lambda p: p.stem)
def test_loud_script_fails_naming_the_difference(path):
    with pytest.raises(Exception, match=difference(path)):
        run_script(path, "framework")
