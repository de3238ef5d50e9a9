"""framework.runtime: the BLAS thread count, set at run time, and training progress as lines."""

import re

import numpy as np
import pytest

from checks.loader import load_framework

fw = load_framework("solutions")


def test_set_blas_threads_changes_the_count_numpy_uses_and_can_set_it_back():
    before = fw.runtime.blas_threads()
    assert before is not None  # NumPy's wheels ship OpenBLAS: CI must be able to ask it
    try:
        assert fw.runtime.set_blas_threads(1) == 1 == fw.runtime.blas_threads()
        a = np.random.default_rng(0).standard_normal((200, 200))
        np.testing.assert_allclose(a @ np.eye(200), a)  # BLAS still works with one thread
    finally:
        fw.runtime.set_blas_threads(before)
    assert fw.runtime.blas_threads() == before


def test_set_blas_threads_rejects_a_count_below_one():
    with pytest.raises(ValueError, match="set_blas_threads: count must be at least 1, got 0"):
        fw.runtime.set_blas_threads(0)


def test_machine_names_the_cores_and_the_blas_threads():
    assert re.search(r"\d+ cores, \d+ BLAS threads?$", fw.runtime.machine())


def test_progress_prints_the_measured_step_time_the_projection_the_loss_and_the_total(capsys):
    progress = fw.runtime.Progress(40, label="demo", measure=4, lines=4)
    for step in range(40):
        progress.step(1.0 / (step + 1))
    ms = progress.done()
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"demo: [\d.e+-]+ ms/step over the first 4 steps, measured on this machine "
                        r"\(.+\): 40 steps should take about [\d.]+ (s|min)", lines[0])
    assert [line.split(",")[0] for line in lines[1:4]] == [
        "demo: step 10/40", "demo: step 20/40", "demo: step 30/40"]
    assert f"loss {np.mean(1 / np.arange(21, 31)):.4f}" in lines[3]  # the last 10 losses' mean
    assert re.fullmatch(r"demo: 40 steps in [\d.]+ s, [\d.e+-]+ ms/step", lines[4]) and ms >= 0
    assert len(lines) == 5


def test_progress_gives_a_sub_millisecond_step_its_digits(capsys):
    """A step of a fraction of a millisecond reads 0.05 ms/step, not 0 ms/step."""
    progress = fw.runtime.Progress(2, label="fast", measure=1)
    progress.step(0.0)
    progress.step(0.0)
    progress.done()
    first, last = capsys.readouterr().out.splitlines()
    assert not re.search(r"\b0 ms/step", first + last) and "ms/step" in last
