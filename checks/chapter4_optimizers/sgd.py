"""Chapter 4, exercises 4.1–4.2: SGD with weight decay, momentum and Nesterov."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.chapter4_optimizers.common import (
    ATOL,
    RTOL,
    compare_paths,
    dampenings,
    decays,
    descend,
    describe,
    drive,
    fw,
    lrs,
    momenta,
    optim,
    problems,
    seeds,
    sgd_formula,
    shapes,
    values,
)
from checks.harness import assert_close, check, probe

# -- 4.1 SGD with weight decay -------------------------------------------------------------------


@probe("4.1")
def probe_sgd(fw):
    w = fw.Tensor(np.array([1.0, -2.0]), requires_grad=True)
    w.grad = np.array([0.5, 0.5])
    optim().SGD([w], lr=0.1, weight_decay=0.5).step()
    return {"[1, -2] after SGD(lr=0.1, weight_decay=0.5) with grad [0.5, 0.5]": w.data}


@check("4.1")
@given(problem=problems(), lr=lrs, weight_decay=decays)
def test_sgd_trajectory_matches_the_update_rule(problem, lr, weight_decay):
    """Over several steps SGD does θ ← θ − lr·(g + λθ), skipping parameters without a .grad."""
    init, steps = problem
    _, _, path = drive(lambda ps: optim().SGD(ps, lr=lr, weight_decay=weight_decay), init, steps)
    expected, _ = sgd_formula(init, steps, lr, weight_decay=weight_decay)
    compare_paths(path, expected, describe("SGD", lr=lr, weight_decay=weight_decay))


@check("4.1")
@given(seed=seeds, weight_decay=st.sampled_from([0.0]) | st.floats(0.01, 0.2))
def test_one_sgd_step_lowers_a_networks_loss_by_lr_times_g_squared(seed, weight_decay):
    """Loss, backward, SGD: a tiny step lowers a small network's loss by lr·g·(g + λθ)."""
    rng = np.random.default_rng(seed)
    x, y = fw.Tensor(rng.standard_normal((8, 3))), fw.Tensor(rng.standard_normal((8, 1)))
    params = [fw.Tensor(0.8 * rng.standard_normal(s), requires_grad=True)
              for s in [(3, 4), (4,), (4, 1), (1,)]]

    def loss():
        w1, b1, w2, b2 = params
        return (((x @ w1 + b1).tanh() @ w2 + b2 - y) ** 2).mean()

    before = loss()
    before.backward()
    grads = [np.array(p.grad, dtype=np.float64) for p in params]
    directions = [g + weight_decay * p.data for g, p in zip(grads, params)]
    lr = 1e-6
    optim().SGD(params, lr=lr, weight_decay=weight_decay).step()
    with fw.no_grad():
        after = float(loss().data)
    predicted = lr * sum(float(np.sum(g * d)) for g, d in zip(grads, directions))
    scale = lr * math.sqrt(sum(float(np.sum(g * g)) for g in grads)
                           * sum(float(np.sum(d * d)) for d in directions))
    assert_close(float(before.data) - after, predicted,
                 f"loss(θ) − loss(θ after one SGD step, lr={lr}, weight_decay={weight_decay:.3g}) "
                 "against lr·Σ g·(g + λθ) (the first-order Taylor term)", rtol=1e-3, atol=1e-3 * scale)


@check("4.1")
@given(seed=seeds, weight_decay=decays)
def test_sgd_converges_on_a_convex_quadratic(seed, weight_decay):
    """On ½θᵀAθ − bᵀθ, SGD with weight decay λ reaches the minimum of f + ½λ|θ|², (A + λI)⁻¹b."""
    theta, A, b = descend(lambda ps: optim().SGD(ps, lr=0.2, weight_decay=weight_decay), seed, 150)
    target = np.linalg.solve(A + weight_decay * np.eye(len(b)), b)
    assert_close(theta, target, describe("SGD", lr=0.2, weight_decay=weight_decay)
                 + ": θ after 150 steps against the minimizer", rtol=0, atol=1e-5)


@check("4.1")
@given(problem=problems(max_steps=3), lrs_=st.tuples(lrs, lrs), decays_=st.tuples(decays, decays))
def test_sgd_uses_each_groups_own_hyperparameters(problem, lrs_, decays_):
    """Two parameter groups, each stepped with its own lr and weight decay."""
    init, steps = problem
    first, second = [0], list(range(1, len(init)))

    def make(ps):
        return optim().SGD([
            {"params": [ps[i] for i in first], "lr": lrs_[0], "weight_decay": decays_[0]},
            {"params": [ps[i] for i in second], "lr": lrs_[1]},
        ], lr=0.5, weight_decay=decays_[1])

    _, _, path = drive(make, init, steps)
    for group, lr, decay in ((first, lrs_[0], decays_[0]), (second, lrs_[1], decays_[1])):
        expected, _ = sgd_formula([init[i] for i in group],
                                  [[row[i] for i in group] for row in steps], lr, weight_decay=decay)
        compare_paths([[row[i] for i in group] for row in path], expected,
                      f"parameter group {0 if group is first else 1}: "
                      + describe("SGD", lr=lr, weight_decay=decay))


# -- 4.2 momentum and Nesterov -------------------------------------------------------------------


@st.composite
def momentum_settings(draw):
    nesterov = draw(st.booleans())
    return dict(momentum=draw(momenta), nesterov=nesterov,
                dampening=0.0 if nesterov else draw(dampenings))


@probe("4.2")
def probe_momentum(fw):
    state = {}
    group = dict(lr=0.1, momentum=0.9, dampening=0.0, nesterov=False, weight_decay=0.0)
    directions = [optim().SGD.momentum_direction(np.array([1.0, -1.0]), state, group).copy()
                  for _ in range(2)]
    return {"directions of g = [1, -1] twice, momentum 0.9": directions}


@check("4.2")
@given(shape=shapes, data=st.data(), hyper=momentum_settings())
def test_momentum_direction_keeps_its_buffer(shape, data, hyper):
    """b = g, then b ← μb + (1 − τ)g; direction b, or g + μb (Nesterov); b is its own array."""
    grads = data.draw(st.lists(arrays(np.float64, shape, elements=values), min_size=1, max_size=5),
                      label="grads")
    group = dict(lr=0.1, weight_decay=0.0, **hyper)
    mu, tau = hyper["momentum"], hyper["dampening"]
    what = describe("momentum_direction", **hyper)
    state, buffer = {}, None
    grad = np.empty(shape)  # one array, refilled in place, as zero_grad(set_to_none=False) does
    for k, g in enumerate(grads):
        grad[...] = g
        direction = optim().SGD.momentum_direction(grad, state, group)
        buffer = g.copy() if buffer is None else mu * buffer + (1 - tau) * g
        expected = g + mu * buffer if hyper["nesterov"] else buffer
        assert_close(direction, expected, f"{what}: direction at step {k + 1}", RTOL, ATOL)
        assert "momentum_buffer" in state, f"{what}: no state['momentum_buffer'] after a step"
        assert_close(state["momentum_buffer"], buffer, f"{what}: state['momentum_buffer'] after "
                     f"step {k + 1} (the buffer must be a copy, not the gradient array itself)",
                     RTOL, ATOL)
        assert np.array_equal(grad, g), f"{what}: step {k + 1} changed the gradient it was given"


@check("4.2")
@given(problem=problems(), lr=lrs, weight_decay=decays, hyper=momentum_settings())
def test_sgd_with_momentum_trajectory_matches_the_update_rule(problem, lr, weight_decay, hyper):
    """SGD(momentum, dampening, nesterov, weight_decay) over several steps, buffers per parameter."""
    init, steps = problem
    params, opt, path = drive(
        lambda ps: optim().SGD(ps, lr=lr, weight_decay=weight_decay, **hyper), init, steps)
    expected, buffers = sgd_formula(init, steps, lr, weight_decay=weight_decay, **hyper)
    what = describe("SGD", lr=lr, weight_decay=weight_decay, **hyper)
    compare_paths(path, expected, what)
    for i, (p, buffer) in enumerate(zip(params, buffers)):
        if buffer is not None:
            assert_close(opt.state[p]["momentum_buffer"], buffer,
                         f"{what}: the momentum buffer of parameter {i} at the end", RTOL, ATOL)


@check("4.2")
@given(seed=seeds, nesterov=st.booleans())
def test_momentum_converges_on_a_convex_quadratic(seed, nesterov):
    """Heavy-ball and Nesterov momentum (μ = 0.8, lr 0.05) reach the minimum A⁻¹b."""
    theta, A, b = descend(
        lambda ps: optim().SGD(ps, lr=0.05, momentum=0.8, nesterov=nesterov), seed, 150)
    assert_close(theta, np.linalg.solve(A, b), describe("SGD", lr=0.05, momentum=0.8,
                 nesterov=nesterov) + ": θ after 150 steps against the minimizer", rtol=0, atol=1e-5)


@check("4.2")
@given(seed=seeds)
def test_momentum_is_faster_than_plain_sgd_down_a_narrow_valley(seed):
    """With condition number 100, 100 steps of momentum 0.9 get far closer than plain SGD."""
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((2, 2)))
    A = q @ np.diag([1.0, 100.0]) @ q.T
    start = q @ np.array([1.0, 0.01])  # mostly along the flat direction

    def distance(**hyper):
        x = fw.Tensor(start.copy(), requires_grad=True)
        opt = optim().SGD([x], lr=0.01, **hyper)
        for _ in range(100):
            x.grad = A @ x.data
            opt.step()
        return float(np.linalg.norm(x.data))

    plain, heavy, nesterov = distance(), distance(momentum=0.9), distance(momentum=0.9, nesterov=True)
    assert heavy < 0.1 * plain and nesterov < 0.1 * plain, (
        f"distance to the minimum after 100 steps: plain SGD {plain:.3g}, momentum 0.9 "
        f"{heavy:.3g}, Nesterov {nesterov:.3g}; momentum should be far closer (is the buffer kept?)"
    )
