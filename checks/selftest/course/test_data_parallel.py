"""checks/benchmarks/data_parallel.py: the batch split between this process and forked workers.

Its contract: the same output and the same gradients as the
unsplit module (to rounding), for every batch size and chunk count; the module's current
state (parameters, train/eval, grad mode) in every chunk; errors raised here, the pipe kept
in step after them; workers that end with the module.
"""

from __future__ import annotations

import gc
import importlib
import os
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.loader import load_framework

fw = load_framework("solutions")
nn = importlib.import_module("framework.nn")
F = importlib.import_module("framework.nn.functional")
parallel = importlib.import_module("checks.benchmarks.data_parallel")
Tensor = fw.Tensor


def mlp() -> nn.Module:
    fw.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2)).to(np.float64)


def output_and_gradients(model, forward, x: np.ndarray):
    """forward(x) and the gradients of a random cotangent through it: parameters', then x's."""
    for parameter in model.parameters():
        parameter.grad = None
    leaf = Tensor(x, requires_grad=True)
    out = forward(leaf)
    cotangent = np.random.default_rng(len(x)).normal(size=out.shape)
    (out * Tensor(cotangent)).sum().backward()
    return out.data, [p.grad for p in model.parameters()] + [leaf.grad]


MODEL = mlp()
SPLIT = {count: parallel.DataParallel(MODEL, count) for count in (2, 3)}


@given(processes=st.sampled_from([2, 3]),
       x=st.integers(2, 7).flatmap(lambda n: arrays(np.float64, (n, 3),
                                                    elements=st.floats(-3, 3, width=64))))
def test_output_and_gradients_equal_the_unsplit_modules(processes, x):
    expected = output_and_gradients(MODEL, MODEL, x)
    found = output_and_gradients(MODEL, SPLIT[processes], x)
    np.testing.assert_allclose(found[0], expected[0], rtol=1e-12, atol=1e-12)
    for got, want in zip(found[1], expected[1]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_messages_longer_than_the_mailbox_go_down_the_pipe_whole(monkeypatch):
    monkeypatch.setattr(parallel, "MAILBOX_BYTES", 64)  # every message longer than its block
    split = parallel.DataParallel(MODEL, 2)
    x = np.random.default_rng(6).normal(size=(40, 3))
    expected = output_and_gradients(MODEL, MODEL, x)
    found = output_and_gradients(MODEL, split, x)
    assert len(split._workers[0].requests.block) == 64
    np.testing.assert_allclose(found[0], expected[0], rtol=1e-12, atol=1e-12)
    for got, want in zip(found[1], expected[1]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_the_workers_compute_with_the_parameters_of_the_moment():
    model = mlp()
    split = parallel.DataParallel(model, 2)
    x = np.random.default_rng(0).normal(size=(6, 3))
    split(Tensor(x))  # the workers start here, with these weights
    with fw.no_grad():
        for parameter in model.parameters():
            parameter.data = parameter.data * 0.5 + 0.25
    np.testing.assert_allclose(split(Tensor(x)).data, model(Tensor(x)).data, rtol=1e-12)


def test_parameters_cast_after_the_workers_started_reach_them_and_their_gradients_return():
    """A new dtype leaves the shared block's layout: values and gradients take the pipe."""
    model = mlp()
    split = parallel.DataParallel(model, 2)
    x = np.random.default_rng(3).normal(size=(6, 3))
    split(Tensor(x))
    model.to(np.float32)
    expected = output_and_gradients(model, model, x.astype(np.float32))
    found = output_and_gradients(model, split, x.astype(np.float32))
    for got, want in zip([found[0], *found[1]], [expected[0], *expected[1]]):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_graph_kept_with_retain_graph_is_walked_twice():
    model = mlp()
    split = parallel.DataParallel(model, 2)
    x = np.random.default_rng(1).normal(size=(5, 3))
    loss = split(Tensor(x)).sum()
    loss.backward(retain_graph=True)
    once = [p.grad.copy() for p in model.parameters()]
    loss.backward()
    for parameter, first in zip(model.parameters(), once):
        np.testing.assert_allclose(parameter.grad, 2 * first, rtol=1e-12)


def small_transformer():
    fw.manual_seed(0)
    return nn.Transformer(6, 6, d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                          dim_feedforward=16, dropout=0.0, padding_idx=0).to(np.float64)


def test_every_batch_long_argument_is_cut_keyword_ones_too():
    model = small_transformer()
    src = np.array([[3, 4, 5, 0], [2, 3, 0, 0], [1, 2, 3, 4]])
    tgt = np.array([[1, 2, 3], [1, 4, 0], [5, 5, 5]])
    padding = src == 0

    def loss_and_gradients(forward):
        for parameter in model.parameters():
            parameter.grad = None
        loss = forward(Tensor(src), Tensor(tgt), src_key_padding_mask=padding).sum()
        loss.backward()
        return loss.item(), [p.grad for p in model.parameters()]

    expected = loss_and_gradients(model)
    found = loss_and_gradients(parallel.DataParallel(model, 2))
    assert found[0] == pytest.approx(expected[0], rel=1e-12)
    for got, want in zip(found[1], expected[1]):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_under_no_grad_the_chunks_run_split_and_record_nothing():
    x = Tensor(np.random.default_rng(2).normal(size=(4, 3)))
    with fw.no_grad():
        out = SPLIT[2](x)
    assert out.grad_fn is None and not out.requires_grad
    np.testing.assert_allclose(out.data, MODEL(x).data, rtol=1e-12)


def test_eval_mode_reaches_the_workers():
    fw.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 16), nn.Dropout(0.5), nn.Linear(16, 2))
    split = parallel.DataParallel(model, 2)
    x = Tensor(np.ones((6, 3), np.float32))
    split(x)  # started in train mode
    split.eval()
    np.testing.assert_allclose(split(x).data, model(x).data, rtol=1e-6)


def test_dropout_differs_between_chunks_and_repeats_after_manual_seed():
    fw.manual_seed(0)
    model = nn.Sequential(nn.Dropout(0.5))
    split = parallel.DataParallel(model, 2)
    x = Tensor(np.ones((2, 64), np.float32))
    fw.manual_seed(7)
    first = split(x).data
    fw.manual_seed(7)
    assert np.array_equal(split(x).data, first)
    assert not np.array_equal(first[0], first[1])


class FailsOnNegativeRows(nn.Module):
    def forward(self, x):
        if (x.data < 0).any():
            raise ValueError("a negative row reached this chunk")
        return x * 2.0


def test_an_error_in_a_worker_is_raised_here_with_its_traceback_and_the_next_call_works():
    split = parallel.DataParallel(FailsOnNegativeRows(), 2)
    with pytest.raises(RuntimeError, match="worker process's chunk failed") as error:
        split(Tensor(np.array([[1.0], [1.0], [-1.0], [-1.0]])))
    assert "ValueError: a negative row reached this chunk" in str(error.value)
    np.testing.assert_array_equal(split(Tensor(np.ones((4, 1)))).data, 2 * np.ones((4, 1)))


def test_an_error_in_this_process_leaves_the_workers_in_step():
    split = parallel.DataParallel(FailsOnNegativeRows(), 2)
    with pytest.raises(ValueError, match="negative row"):
        split(Tensor(np.array([[-1.0], [-1.0], [1.0], [1.0]])))
    np.testing.assert_array_equal(split(Tensor(np.ones((4, 1)))).data, 2 * np.ones((4, 1)))


class Total(nn.Module):
    def forward(self, x):
        return x.sum()


def test_a_module_that_returns_a_scalar_is_told_to_compute_the_loss_after():
    with pytest.raises(TypeError, match="Total.forward returned a 0-d tensor.*loss after"):
        parallel.DataParallel(Total(), 2)(Tensor(np.ones((4, 2))))


def test_an_argument_without_the_batch_axis_that_requires_grad_is_refused():
    class Scaled(nn.Module):
        def forward(self, x, scale):
            return x * scale

    scale = Tensor(np.ones(3), requires_grad=True)
    with pytest.raises(ValueError, match=r"shape \(3,\) requires grad but has no batch axis"):
        parallel.DataParallel(Scaled(), 2)(Tensor(np.ones((4, 3))), scale)


def test_one_process_or_one_row_runs_the_module_here_without_workers():
    for split, rows in ((parallel.DataParallel(MODEL, 1), 4), (parallel.DataParallel(MODEL, 2), 1)):
        x = Tensor(np.ones((rows, 3)))
        np.testing.assert_array_equal(split(x).data, MODEL(x).data)
        assert split._workers == []


def test_a_module_changed_after_the_workers_started_says_to_build_a_new_one():
    model = mlp()
    split = parallel.DataParallel(model, 2)
    split(Tensor(np.ones((4, 3))))
    model.extra = nn.Linear(2, 2).to(np.float64)  # a parameter more than the workers know
    with pytest.raises(RuntimeError, match="build a new DataParallel"):
        split(Tensor(np.ones((4, 3))))


def test_the_workers_end_with_the_module():
    split = parallel.DataParallel(mlp(), 3)
    split(Tensor(np.ones((6, 3))))
    processes = [worker.process for worker in split._workers]
    assert len(processes) == 2 and all(p.is_alive() for p in processes)
    del split
    gc.collect()
    for process in processes:
        process.join(timeout=10)
        assert process.exitcode == 0, "a worker had to be stopped: it never read the pipe's end"


def cpu_seconds(pid: int) -> float:
    """The user and system CPU time process `pid` has used so far (Linux's /proc)."""
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()  # after the name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_an_idle_worker_polls_for_spin_seconds_then_sleeps():
    split = parallel.DataParallel(mlp(), 2)
    split(Tensor(np.ones((4, 3))))
    pid = split._workers[0].process.pid
    time.sleep(10 * parallel.SPIN_SECONDS)  # past its polling
    before = cpu_seconds(pid)
    time.sleep(0.5)
    used = cpu_seconds(pid) - before
    assert used < 0.1, f"an idle worker used {used:.2f} s of CPU in 0.5 s: it never stops polling"


def test_where_workers_cannot_be_forked_the_module_runs_unsplit_with_a_warning(monkeypatch):
    monkeypatch.setattr(parallel, "forks_workers",
                        lambda: False)
    split = parallel.DataParallel(MODEL, 2)
    x = Tensor(np.ones((4, 3)))
    with pytest.warns(RuntimeWarning, match="on Linux only"):
        np.testing.assert_array_equal(split(x).data, MODEL(x).data)
    assert split._workers == []


def test_two_split_outputs_walked_in_one_backward_give_the_unsplit_gradients():
    model = mlp()
    split = parallel.DataParallel(model, 2)
    a, b = (np.random.default_rng(seed).normal(size=(5, 3)) for seed in (4, 5))

    def gradients(forward):
        for parameter in model.parameters():
            parameter.grad = None
        (forward(Tensor(a)).sum() + (forward(Tensor(b)) ** 2).sum()).backward()
        return [p.grad for p in model.parameters()]

    for got, want in zip(gradients(split), gradients(model)):
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_a_graph_walked_after_a_later_forward_froze_a_parameter_keeps_its_own_parameters():
    model = mlp()
    split = parallel.DataParallel(model, 2)
    x = np.random.default_rng(6).normal(size=(4, 3))
    loss = split(Tensor(x)).sum()
    model[0].weight.requires_grad = False
    split(Tensor(x))
    model[0].weight.requires_grad = True
    loss.backward()
    found = [p.grad.copy() for p in model.parameters()]
    for parameter in model.parameters():
        parameter.grad = None
    model(Tensor(x)).sum().backward()
    for got, parameter in zip(found, model.parameters()):
        np.testing.assert_allclose(got, parameter.grad, rtol=1e-10)


def test_a_frozen_parameter_gets_no_gradient_and_the_others_get_theirs():
    model = mlp()
    model[2].bias.requires_grad = False
    x = np.random.default_rng(7).normal(size=(5, 3))
    expected = output_and_gradients(model, model, x)[1]
    found = output_and_gradients(model, parallel.DataParallel(model, 2), x)[1]
    for got, want in zip(found, expected):
        if want is None:
            assert got is None
        else:
            np.testing.assert_allclose(got, want, rtol=1e-10)


class LinearOnPositiveChunks(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(2, 2).to(np.float64)

    def forward(self, x):
        return self.linear(x) if (x.data > 0).all() else x * 2.0


def test_a_chunk_that_does_not_use_the_parameters_sends_none_back():
    module = LinearOnPositiveChunks()
    x = np.array([[1.0, 2.0], [3.0, 4.0], [-1.0, -2.0], [-3.0, -4.0]])
    parallel.DataParallel(module, 2)(Tensor(x)).sum().backward()
    found = [p.grad.copy() for p in module.parameters()]
    for parameter in module.parameters():
        parameter.grad = None
    module(Tensor(x[:2])).sum().backward()
    for got, parameter in zip(found, module.parameters()):
        np.testing.assert_allclose(got, parameter.grad, rtol=1e-12)


class DoubledFailingBackwardOnNegatives(fw.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.negative = bool((x.data < 0).any())
        return x * 2.0

    @staticmethod
    def backward(ctx, grad):
        if ctx.negative:
            raise ValueError("a negative chunk's backward")
        return grad * 2.0


class Doubled(nn.Module):
    def forward(self, x):
        return DoubledFailingBackwardOnNegatives.apply(x)


def test_an_error_in_a_workers_backward_is_raised_here_and_the_next_step_works():
    split = parallel.DataParallel(Doubled(), 2)
    x = Tensor(np.array([[1.0], [1.0], [-1.0], [-1.0]]), requires_grad=True)
    with pytest.raises(RuntimeError, match="a negative chunk's backward"):
        split(x).sum().backward()
    x = Tensor(np.ones((4, 1)), requires_grad=True)
    split(x).sum().backward()
    np.testing.assert_array_equal(x.grad, 2 * np.ones((4, 1)))


def test_a_worker_that_ended_fails_the_call_and_the_next_call_starts_new_workers():
    split = parallel.DataParallel(mlp(), 2)
    x = Tensor(np.ones((4, 3)))
    split(x)
    split._workers[0].process.kill()
    split._workers[0].process.join(timeout=10)
    with pytest.raises(RuntimeError, match="worker process ended"):
        split(x)
    np.testing.assert_allclose(split(x).data, split.module(x).data, rtol=1e-12)
    assert split._workers[0].process.is_alive()


def test_an_output_without_the_batch_on_axis_0_is_refused():
    class Transposed(nn.Module):
        def forward(self, x):
            return x.T

    with pytest.raises(ValueError, match=r"shape \(3, 2\) for a chunk of 2 rows"):
        parallel.DataParallel(Transposed(), 2)(Tensor(np.ones((4, 3))))


def test_a_keyword_tensor_that_requires_grad_is_refused():
    class Added(nn.Module):
        def forward(self, x, y=None):
            return x + y

    with pytest.raises(ValueError, match="keyword argument 'y' requires grad"):
        parallel.DataParallel(Added(), 2)(Tensor(np.ones((4, 3))),
                                     y=Tensor(np.ones((4, 3)), requires_grad=True))


@pytest.mark.parametrize("processes", [0, -1, 1.5])
def test_processes_must_be_a_positive_int(processes):
    with pytest.raises(ValueError, match="processes must be a positive int"):
        parallel.DataParallel(MODEL, processes)
