"""Provided `framework.optim.lr_scheduler` (the reference): PyTorch's schedules as closed forms,
reachable under PyTorch's module path, writing each group's lr; and the optimizers' surface
they rely on (param_groups, zero_grad(set_to_none), state_dict).
"""

import importlib
import math

import numpy as np
import pytest

from checks.loader import load_framework

fw = load_framework("solutions")
from framework import optim  # noqa: E402  (the package chosen above)

lr_scheduler = importlib.import_module("framework.optim.lr_scheduler")


def optimizer(lr=1.0, groups=1):
    params = [{"params": [fw.Tensor(np.zeros(2), requires_grad=True)]} for _ in range(groups)]
    return optim.SGD(params, lr=lr)


def lrs(scheduler, steps):
    """The lr of the first group at steps 0, 1, ..., steps - 1 (stepping after each read)."""
    seen = []
    for _ in range(steps):
        seen.append(scheduler.optimizer.param_groups[0]["lr"])
        scheduler.optimizer.step()
        scheduler.step()
    return seen


def test_lr_scheduler_is_reachable_as_pytorchs_module():
    assert optim.lr_scheduler is lr_scheduler
    assert lr_scheduler.StepLR is optim.StepLR and lr_scheduler.LRScheduler is optim.LRScheduler


def test_multistep_lr_decays_at_each_milestone():
    got = lrs(lr_scheduler.MultiStepLR(optimizer(), milestones=[4, 2], gamma=0.5), 6)
    assert got == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]


def test_exponential_lr():
    got = lrs(lr_scheduler.ExponentialLR(optimizer(2.0), gamma=0.9), 4)
    np.testing.assert_allclose(got, [2.0, 1.8, 1.62, 1.458])


def test_cosine_annealing_lr_reaches_eta_min_at_t_max_and_comes_back_up():
    got = lrs(lr_scheduler.CosineAnnealingLR(optimizer(), T_max=4, eta_min=0.1), 9)
    expected = [0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t / 4)) for t in range(9)]
    np.testing.assert_allclose(got, expected)
    assert got[4] == pytest.approx(0.1) and got[8] == pytest.approx(1.0)


def test_lambda_lr_takes_one_function_per_group():
    opt = optimizer(groups=2)
    scheduler = lr_scheduler.LambdaLR(opt, [lambda t: 0.5**t, lambda t: t + 1])
    scheduler.step()
    scheduler.step()
    assert scheduler.get_last_lr() == [0.25, 3.0]
    assert [g["lr"] for g in opt.param_groups] == [0.25, 3.0]
    assert "lr_lambdas" not in scheduler.state_dict()
    with pytest.raises(ValueError, match=r"LambdaLR: 3 lr_lambda functions for 2 parameter groups"):
        lr_scheduler.LambdaLR(opt, [abs] * 3)


def test_linear_lr_and_constant_lr():
    np.testing.assert_allclose(lrs(lr_scheduler.LinearLR(optimizer(), start_factor=0.25, total_iters=3), 5),
                               [0.25, 0.5, 0.75, 1.0, 1.0])
    np.testing.assert_allclose(lrs(lr_scheduler.ConstantLR(optimizer(), factor=0.5, total_iters=2), 4),
                               [0.5, 0.5, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"LinearLR: start_factor=0 must be in \(0, 1\]"):
        lr_scheduler.LinearLR(optimizer(), start_factor=0)


def test_sequential_lr_restarts_each_schedule_at_its_milestone():
    opt = optimizer()
    warmup = lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    cosine = lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    got = lrs(lr_scheduler.SequentialLR(opt, [warmup, cosine], milestones=[2]), 7)
    expected = [0.5, 0.75] + [0.5 * (1 + math.cos(math.pi * t / 4)) for t in range(5)]
    np.testing.assert_allclose(got, expected, atol=1e-15)


def test_sequential_lr_checks_its_schedulers_and_milestones():
    opt, other = optimizer(), optimizer()
    first = lr_scheduler.ExponentialLR(opt, 0.9)
    with pytest.raises(ValueError, match=r"2 schedulers need 1 increasing milestones"):
        lr_scheduler.SequentialLR(opt, [first, lr_scheduler.ExponentialLR(opt, 0.5)], milestones=[])
    with pytest.raises(ValueError, match=r"the ExponentialLR schedules another optimizer"):
        lr_scheduler.SequentialLR(opt, [first, lr_scheduler.ExponentialLR(other, 0.5)], milestones=[3])


def test_one_cycle_lr_rises_to_max_lr_then_falls_to_its_minimum():
    opt = optim.SGD([fw.Tensor(np.zeros(2), requires_grad=True)], lr=123.0, momentum=0.5)
    scheduler = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=0.3)
    lr, momentum = [], []
    for _ in range(10):
        lr.append(opt.param_groups[0]["lr"])
        momentum.append(opt.param_groups[0]["momentum"])
        scheduler.step()
    up = [0.04 + 0.96 * (1 - math.cos(math.pi * t / 2)) / 2 for t in range(3)]
    down = [4e-6 + (1 - 4e-6) * (1 + math.cos(math.pi * (t - 2) / 7)) / 2 for t in range(3, 10)]
    np.testing.assert_allclose(lr, up + down, rtol=1e-12)
    np.testing.assert_allclose([momentum[0], momentum[2], momentum[-1]], [0.95, 0.85, 0.95])
    assert scheduler.last_epoch == 10  # step total_steps itself is allowed, as in PyTorch; one more is not
    with pytest.raises(ValueError, match=r"OneCycleLR: step 11 of a cycle of total_steps=10"):
        scheduler.step()


def test_one_cycle_lr_cycles_adams_beta1_and_needs_a_momentum():
    w = fw.Tensor(np.zeros(2), requires_grad=True)
    opt = optim.Adam([w], lr=0.1, betas=(0.9, 0.99))
    lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=2, steps_per_epoch=5)
    assert opt.param_groups[0]["betas"] == (0.95, 0.99)

    class Plain(optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, dict(lr=0.1))

    with pytest.raises(ValueError, match=r"cycle_momentum=True needs an optimizer with momentum or betas"):
        lr_scheduler.OneCycleLR(Plain([w]), max_lr=0.1, total_steps=5)


def test_scheduler_state_dict_resumes_the_schedule():
    opt = optimizer()
    scheduler = lr_scheduler.SequentialLR(
        opt, [lr_scheduler.ConstantLR(opt, 0.1, 2), lr_scheduler.ExponentialLR(opt, 0.5)], [2])
    lrs(scheduler, 3)
    saved = scheduler.state_dict()
    expected = lrs(scheduler, 3)
    opt2 = optimizer()
    resumed = lr_scheduler.SequentialLR(
        opt2, [lr_scheduler.ConstantLR(opt2, 0.1, 2), lr_scheduler.ExponentialLR(opt2, 0.5)], [2])
    resumed.load_state_dict(saved)
    assert lrs(resumed, 3) == expected


def test_optimizers_expose_pytorchs_param_groups_and_zero_grad():
    w = fw.Tensor(np.ones(2, np.float32), requires_grad=True)
    opt = optim.AdamW([w], lr=0.01)
    group = opt.param_groups[0]
    assert group["params"] == [w] and group["lr"] == 0.01 and group["weight_decay"] == 0.01
    w.grad = np.ones(2, np.float32)
    opt.zero_grad(set_to_none=False)
    assert np.all(w.grad == 0)
    opt.zero_grad()
    assert w.grad is None
