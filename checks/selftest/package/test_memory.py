"""framework.memory: freed buffers stay in the process, so a repeated step faults in no new pages.

The tuning is an explicit call (`memory.tune()`); importing the framework changes nothing.
"""

import gc
import os
import resource
import subprocess
import sys

import numpy as np
import pytest

from checks.loader import ROOT, load_framework

fw = load_framework("solutions")


def test_keep_freed_memory_applies_on_glibc_and_is_a_no_op_elsewhere():
    assert fw.memory.keep_freed_memory() is sys.platform.startswith("linux")


def test_a_repeated_step_of_large_arrays_faults_in_no_new_pages():
    fw.memory.keep_freed_memory()
    weight = fw.Tensor(np.ones((256, 256), np.float32), requires_grad=True)
    x = fw.Tensor(np.ones((1024, 256), np.float32))

    def step():  # every array here is 1 MiB, far above malloc's default mmap threshold
        weight.grad = None
        ((x @ weight).relu() * 2.0).sum().backward()

    for _ in range(3):
        step()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        step()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    # without the thresholds each step maps and faults in ~6 MiB afresh: about 1,500 faults
    assert faults < 100, f"{faults} page faults in 10 steps: freed buffers were not reused"


def test_importing_the_framework_leaves_the_collector_at_pythons_defaults():
    """In a fresh interpreter: this one's pytest plugins and other tests may have tuned it."""
    script = "import gc; d = gc.get_threshold(); import framework; print(d, gc.get_threshold())"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "solutions")}
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT / "solutions",
                         capture_output=True, text=True, check=True).stdout
    before, after = out.strip().split(") (")
    assert before + ")" == "(" + after, f"importing framework changed gc's thresholds: {out}"
    # the defaults differ by version ((700, 10, 10) before 3.13, (2000, 10, 10) in 3.13)
    defaults = subprocess.run([sys.executable, "-I", "-c", "import gc; print(gc.get_threshold())"],
                              capture_output=True, text=True, check=True).stdout.strip()
    assert before + ")" == defaults, f"not a fresh interpreter's thresholds {defaults}: {out}"


def test_tune_makes_the_collector_scan_less_often_and_keeps_freed_memory_on_glibc():
    saved, threads = gc.get_threshold(), fw.runtime.blas_threads()
    try:
        gc.set_threshold(700, 10, 10)
        assert fw.memory.tune() is sys.platform.startswith("linux")
        assert gc.get_threshold() == (fw.memory.YOUNG_THRESHOLD, 10, 10)
    finally:
        gc.set_threshold(*saved)
        if threads is not None:
            fw.runtime.set_blas_threads(threads)


def test_tune_leaves_numpys_blas_one_thread_for_small_work():
    threads = fw.runtime.blas_threads()
    if threads is None:
        pytest.skip("NumPy's BLAS is not OpenBLAS: its threads cannot be set at run time")
    try:
        fw.runtime.set_blas_threads(2)
        fw.memory.tune()
        assert fw.runtime.blas_threads() == fw.runtime.SMALL_WORK_THREADS == 1
    finally:
        fw.runtime.set_blas_threads(threads)


def test_collect_cycles_less_often_never_lowers_a_threshold_nor_restarts_a_disabled_collector():
    saved = gc.get_threshold()
    try:
        gc.set_threshold(10 * fw.memory.YOUNG_THRESHOLD, 10, 10)
        fw.memory.collect_cycles_less_often()
        assert gc.get_threshold()[0] == 10 * fw.memory.YOUNG_THRESHOLD
        gc.set_threshold(0)
        fw.memory.collect_cycles_less_often()
        assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*saved)


def test_a_graph_the_size_of_a_w1_step_comes_and_goes_without_a_collection_once_tuned():
    """Some 300,000 objects built and freed by reference counting: the collector never starts."""
    started = []
    saved = gc.get_threshold()
    fw.memory.collect_cycles_less_often()

    def count(phase, info):
        if phase == "start":
            started.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    try:
        x, total = fw.Value(0.5), fw.Value(0.0)
        for _ in range(30_000):
            total = total + x * 0.5
        total.backward()
        del total
    finally:
        gc.callbacks.remove(count)
        gc.set_threshold(*saved)
    assert started == [], f"the collector ran {len(started)} times on a graph without cycles"


def test_peak_bytes_counts_what_a_step_held_at_once_not_what_it_freed_before():
    def step():
        for _ in range(3):  # three 8 MB arrays, one at a time
            np.ones(2**20)
        a, b = np.ones(2**20), np.ones(2**20)
        return a + b  # three at once

    peak = fw.memory.peak_bytes(step)
    assert 3 * 8 * 2**20 <= peak < 4 * 8 * 2**20


def test_checkpointing_the_blocks_of_a_small_gpt_lowers_its_peak_memory():
    """A training step's peak, measured by peak_bytes: the blocks' activations are what
    checkpointing (exercise 8.7) stops keeping; the gradients stay the same."""
    checkpoint = fw.utils.checkpoint.checkpoint
    fw.manual_seed(0)
    model = fw.nn.gpt.GPT(11, block_size=32, n_layer=3, n_head=2, n_embd=32)
    ids = np.random.default_rng(0).integers(0, 11, (4, 33))

    def step():
        for p in model.parameters():
            p.grad = None
        logits = model(ids[:, :-1])
        fw.nn.functional.cross_entropy(logits.reshape(-1, 11), ids[:, 1:].reshape(-1)).backward()

    plain = fw.memory.peak_bytes(step)
    grads = [p.grad for p in model.parameters()]
    for block in model.blocks:
        block.forward = (lambda f: lambda x, cache=None, layer=0: checkpoint(f, x))(block.forward)
    checkpointed = fw.memory.peak_bytes(step)
    assert checkpointed < 0.75 * plain, f"peak {checkpointed} B checkpointed, {plain} B plain"
    for p, grad in zip(model.parameters(), grads):
        np.testing.assert_allclose(p.grad, grad, rtol=1e-5, atol=1e-7)
