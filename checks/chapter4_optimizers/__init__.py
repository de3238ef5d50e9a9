"""Chapter 4 grader: optimizers, gradient clipping and the warm-up + cosine schedule.

Every optimizer is driven over several steps with gradients drawn by hypothesis (set
on `.grad` directly, some left None), and its parameters and state are compared, step
by step, with the update formulas of PyTorch written out here again, in float64. Then
properties that single out the classic mistakes: convergence on a convex quadratic (SGD,
momentum; Adam and AdamW, which hover near the minimum at a constant lr, follow their rule
step by step for 300 steps down one), Adam's first steps under a constant gradient (bias
correction), AdamW under a zero gradient (decoupled decay), clipping on drawn gradient sets,
and the schedule at its landmarks. One check runs the whole chain: a tiny SGD step lowers a small network's
loss by lr·|g|², to first order. The checks use tensors only, not `nn`.
"""

from __future__ import annotations

import importlib
import math
import textwrap
from types import SimpleNamespace

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from checks.harness import assert_close, check, framework, probe

fw = framework()


def optim():
    """The `optim` module of the framework under test (imported on first use)."""
    return importlib.import_module("framework.optim")


seeds = st.integers(0, 2**32 - 1)
shapes = array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=4)
values = st.floats(-2.0, 2.0, allow_subnormal=False)
lrs = st.floats(0.01, 0.5)
decays = st.sampled_from([0.0]) | st.floats(0.01, 0.5)
momenta = st.floats(0.1, 0.95)
dampenings = st.sampled_from([0.0]) | st.floats(0.05, 0.9)
beta_pairs = st.tuples(st.floats(0.0, 0.99), st.floats(0.0, 0.999))
epsilons = st.sampled_from([1e-8]) | st.floats(1e-3, 1.0)
RTOL, ATOL = 1e-7, 1e-10  # float64 formulas: only the order of operations may differ


@st.composite
def problems(draw, max_steps: int = 5):
    """Initial parameters and, for each step, a gradient per parameter (None: no .grad).

    The first parameter always has a gradient, so every step does something.
    """
    param_shapes = draw(st.lists(shapes, min_size=1, max_size=3))
    init = [draw(arrays(np.float64, s, elements=values)) for s in param_shapes]
    steps = []
    for _ in range(draw(st.integers(1, max_steps))):
        row = []
        for i, shape in enumerate(param_shapes):
            skipped = i > 0 and draw(st.integers(0, 3)) == 0
            row.append(None if skipped else draw(arrays(np.float64, shape, elements=values)))
        steps.append(row)
    return init, steps


def drive(make_optimizer, init, steps):
    """Set each step's gradients, call step(), record the parameters; .grad must stay as set."""
    params = [fw.Tensor(a.copy(), requires_grad=True) for a in init]
    opt = make_optimizer(params)
    path = []
    for k, row in enumerate(steps):
        for p, g in zip(params, row):
            p.grad = None if g is None else g.copy()
        opt.step()
        for i, (p, g) in enumerate(zip(params, row)):
            assert g is None or np.array_equal(p.grad, g), (
                f"step {k + 1} changed parameter {i}'s .grad; an optimizer reads the gradient "
                "and never writes it (compute g + λθ into a new array)"
            )
        path.append([p.data.copy() for p in params])
    return params, opt, path


def compare_paths(path, expected, what: str) -> None:
    for k, (got_row, want_row) in enumerate(zip(path, expected)):
        for i, (got, want) in enumerate(zip(got_row, want_row)):
            assert_close(got, want, f"{what}: parameter {i} (shape {want.shape}) after step "
                         f"{k + 1}", rtol=RTOL, atol=ATOL)


def sgd_formula(init, steps, lr, momentum=0.0, dampening=0.0, nesterov=False, weight_decay=0.0):
    """torch.optim.SGD, written out: the parameters after each step, and the final buffers."""
    theta = [a.copy() for a in init]
    buffers = [None] * len(init)
    path = []
    for row in steps:
        for i, g in enumerate(row):
            if g is None:
                continue
            d = g + weight_decay * theta[i]
            if momentum != 0:
                if buffers[i] is None:
                    buffers[i] = d.copy()
                else:
                    buffers[i] = momentum * buffers[i] + (1 - dampening) * d
                d = d + momentum * buffers[i] if nesterov else buffers[i]
            theta[i] = theta[i] - lr * d
        path.append([t.copy() for t in theta])
    return path, buffers


def adam_formula(init, steps, lr, betas, eps, weight_decay=0.0, decoupled=False):
    """torch.optim.Adam (decoupled=False) or AdamW, written out: path and final (t, m, v)."""
    beta1, beta2 = betas
    theta = [a.copy() for a in init]
    moments = [(0, np.zeros_like(a), np.zeros_like(a)) for a in init]
    path = []
    for row in steps:
        for i, g in enumerate(row):
            if g is None:
                continue
            if decoupled:
                theta[i] = theta[i] - lr * weight_decay * theta[i]
            else:
                g = g + weight_decay * theta[i]
            t, m, v = moments[i]
            t, m, v = t + 1, beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * g * g
            m_hat, v_hat = m / (1 - beta1**t), v / (1 - beta2**t)
            theta[i] = theta[i] - lr * m_hat / (np.sqrt(v_hat) + eps)
            moments[i] = (t, m, v)
        path.append([t.copy() for t in theta])
    return path, moments


def quadratic(seed: int, n: int = 3):
    """f(θ) = ½ θᵀAθ − bᵀθ with A symmetric, eigenvalues 0.5 … 4; and a starting point."""
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = q @ np.diag(np.linspace(0.5, 4.0, n)) @ q.T
    return A, rng.standard_normal(n), rng.standard_normal(n)


def descend(make_optimizer, seed: int, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run an optimizer on a quadratic, the gradient Aθ − b computed here; (θ, A, b)."""
    A, b, start = quadratic(seed)
    x = fw.Tensor(start.copy(), requires_grad=True)
    opt = make_optimizer([x])
    for _ in range(steps):
        x.grad = A @ x.data - b
        opt.step()
    return x.data, A, b


def describe(name: str, **hyperparameters) -> str:
    settings_ = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                          for k, v in hyperparameters.items())
    return f"{name}({settings_})"


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
    grads = data.draw(st.lists(arrays(np.float64, shape, elements=values), min_size=1, max_size=5))
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


# -- 4.3 Adam with bias correction -----------------------------------------------------------------


@probe("4.3")
def probe_adam(fw):
    w = fw.Tensor(np.array([1.0, -2.0]), requires_grad=True)
    opt = optim().Adam([w], lr=0.1)
    for _ in range(2):
        w.grad = np.array([0.5, -4.0])
        opt.step()
    return {"[1, -2] after two Adam(lr=0.1) steps with grad [0.5, -4]": w.data}


def check_adam_state(params, opt, moments, what: str) -> None:
    for i, (p, (t, m, v)) in enumerate(zip(params, moments)):
        if t == 0:
            continue
        state = opt.state[p]
        assert state.get("step") == t, (
            f"{what}: parameter {i} has state['step'] = {state.get('step')!r} after {t} steps "
            "with a gradient; count each parameter's own steps"
        )
        for key, want in (("exp_avg", m), ("exp_avg_sq", v)):
            assert key in state, f"{what}: no state[{key!r}] for parameter {i}"
            assert_close(state[key], want, f"{what}: state[{key!r}] of parameter {i}", RTOL, ATOL)


@check("4.3")
@given(problem=problems(), lr=lrs, betas=beta_pairs, eps=epsilons, weight_decay=decays)
def test_adam_trajectory_matches_the_update_rule(problem, lr, betas, eps, weight_decay):
    """Adam over several steps: moments, bias correction, ε outside the root, coupled decay."""
    init, steps = problem
    params, opt, path = drive(lambda ps: optim().Adam(
        ps, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay), init, steps)
    expected, moments = adam_formula(init, steps, lr, betas, eps, weight_decay)
    what = describe("Adam", lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
    compare_paths(path, expected, what)
    check_adam_state(params, opt, moments, what)


@check("4.3")
@given(shape=shapes, data=st.data(), lr=lrs, beta1=st.floats(0.5, 0.99),
       beta2=st.floats(0.9, 0.999), steps=st.integers(2, 6))
def test_adam_moves_by_lr_under_a_constant_gradient(shape, data, lr, beta1, beta2, steps):
    """Bias correction: under a constant gradient every Adam step moves each weight by lr·sign(g)."""
    magnitudes = data.draw(arrays(np.float64, shape, elements=st.floats(0.1, 2.0)))
    g = magnitudes * data.draw(arrays(np.float64, shape, elements=st.sampled_from([-1.0, 1.0])))
    w = fw.Tensor(np.zeros(shape), requires_grad=True)
    opt = optim().Adam([w], lr=lr, betas=(beta1, beta2))
    for k in range(steps):
        w.grad = g.copy()
        opt.step()
        assert_close(w.data, -(k + 1) * lr * np.sign(g),
                     f"{describe('Adam', lr=lr, betas=(beta1, beta2))} with the constant gradient "
                     f"{g.tolist()}: θ after step {k + 1} (m̂ = g and v̂ = g² exactly, once "
                     "divided by 1 − β₁ᵗ and 1 − β₂ᵗ)", rtol=1e-6, atol=1e-9)


@check("4.3")
@given(shape=shapes, data=st.data(), lr=lrs, eps=st.floats(1e-3, 0.1))
def test_adam_adds_eps_outside_the_square_root(shape, data, lr, eps):
    """Adam's first step is lr·g / (|g| + ε): ε is added to √v̂, not put under the root."""
    magnitudes = data.draw(arrays(np.float64, shape, elements=st.floats(1e-3, 0.1)))
    g = magnitudes * data.draw(arrays(np.float64, shape, elements=st.sampled_from([-1.0, 1.0])))
    w = fw.Tensor(np.zeros(shape), requires_grad=True)
    w.grad = g.copy()
    optim().Adam([w], lr=lr, eps=eps).step()
    assert_close(w.data, -lr * g / (np.abs(g) + eps),
                 f"{describe('Adam', lr=lr, eps=eps)}: θ after one step from 0 with the small "
                 f"gradient {g.tolist()}", rtol=1e-6, atol=1e-12)


def adam_follows_its_rule_down_a_quadratic(seed: int, weight_decay: float, decoupled: bool):
    """300 steps of Adam or AdamW (lr 0.1) on ½θᵀAθ − bᵀθ; each step checked against the update
    rule recomputed here in float64 from the same θ and gradient.

    Each expected step starts from the θ the optimizer reached, so rounding never accumulates
    into a tolerance. (Adam at a constant lr does not settle on the minimiser: it can hover
    1e-3 away or more, so "reaches the minimum" would fail a correct Adam for some draws.)
    """
    name, lr, (beta1, beta2), eps = ("AdamW" if decoupled else "Adam"), 0.1, (0.9, 0.999), 1e-8
    A, b, start = quadratic(seed)
    x = fw.Tensor(start.copy(), requires_grad=True)
    opt = getattr(optim(), name)([x], lr=lr, weight_decay=weight_decay)
    m = v = np.zeros_like(start)
    what = describe(name, lr=lr, weight_decay=weight_decay)
    for t in range(1, 301):
        theta, grad = x.data.copy(), A @ x.data - b
        x.grad = grad.copy()
        opt.step()
        g = grad if decoupled else grad + weight_decay * theta
        shrunk = theta * (1 - lr * weight_decay) if decoupled else theta
        m, v = beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * g * g
        expected = shrunk - lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
        assert_close(x.data, expected, f"{what} on a convex quadratic: θ after step {t} against "
                     "the update rule applied to θ after step " + str(t - 1), rtol=RTOL, atol=ATOL)


@check("4.3")
@given(seed=seeds, weight_decay=decays)
def test_adam_follows_its_update_rule_for_300_steps_down_a_convex_quadratic(seed, weight_decay):
    """300 Adam steps (lr 0.1) down a quadratic, each the rule with g + λθ, t counting to 300."""
    adam_follows_its_rule_down_a_quadratic(seed, weight_decay, decoupled=False)


# -- 4.4 AdamW's decoupled decay ----------------------------------------------------------------------


@probe("4.4")
def probe_adamw(fw):
    w = fw.Tensor(np.array([1.0, -2.0]), requires_grad=True)
    opt = optim().AdamW([w], lr=0.1, weight_decay=0.5)
    for _ in range(2):
        w.grad = np.array([0.5, -4.0])
        opt.step()
    return {"[1, -2] after two AdamW(lr=0.1, weight_decay=0.5) steps with grad [0.5, -4]": w.data}


@check("4.4")
@given(problem=problems(), lr=lrs, betas=beta_pairs, eps=epsilons, weight_decay=decays)
def test_adamw_trajectory_matches_the_update_rule(problem, lr, betas, eps, weight_decay):
    """AdamW over several steps: θ ← θ − lr·λ·θ, then the Adam step on the plain gradient."""
    init, steps = problem
    params, opt, path = drive(lambda ps: optim().AdamW(
        ps, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay), init, steps)
    expected, moments = adam_formula(init, steps, lr, betas, eps, weight_decay, decoupled=True)
    what = describe("AdamW", lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
    compare_paths(path, expected, what)
    check_adam_state(params, opt, moments, what)


@check("4.4")
@given(init=shapes.flatmap(lambda s: arrays(np.float64, s, elements=values)), lr=lrs,
       weight_decay=st.floats(0.01, 0.5), steps=st.integers(1, 5))
def test_adamw_shrinks_weights_by_1_minus_lr_lambda_under_a_zero_gradient(
        init, lr, weight_decay, steps):
    """Decoupled: with a zero gradient AdamW multiplies θ by (1 − lr·λ) each step, and nothing else."""
    w = fw.Tensor(init.copy(), requires_grad=True)
    opt = optim().AdamW([w], lr=lr, weight_decay=weight_decay)
    for k in range(steps):
        w.grad = np.zeros_like(init)
        opt.step()
        assert_close(w.data, init * (1 - lr * weight_decay) ** (k + 1),
                     f"{describe('AdamW', lr=lr, weight_decay=weight_decay)} with a zero gradient: "
                     f"θ after step {k + 1} (decay added to the gradient would move θ by about lr "
                     "per step instead)", rtol=1e-9, atol=1e-12)


@check("4.4")
@given(seed=seeds, weight_decay=decays)
def test_adamw_follows_its_update_rule_for_300_steps_down_a_convex_quadratic(seed, weight_decay):
    """300 AdamW steps (lr 0.1) down a quadratic, each θ(1 − lr·λ) then the Adam step on g."""
    adam_follows_its_rule_down_a_quadratic(seed, weight_decay, decoupled=True)


# -- 4.5 clip_grad_norm_ ------------------------------------------------------------------------------


@st.composite
def gradient_sets(draw):
    """1–4 parameters, each with a drawn gradient or none (at least one has one)."""
    grads = draw(st.lists(arrays(np.float64, shapes, elements=st.floats(-3.0, 3.0,
                                                                         allow_subnormal=False)),
                          min_size=1, max_size=4))
    missing = draw(st.lists(st.booleans(), min_size=len(grads), max_size=len(grads)))
    return [None if gone and i > 0 else g for i, (g, gone) in enumerate(zip(grads, missing))]


def with_grads(grads):
    params = []
    for g in grads:
        p = fw.Tensor(np.zeros(np.shape(g) if g is not None else (2,)), requires_grad=True)
        p.grad = None if g is None else g.copy()
        params.append(p)
    return params


def global_norm(grads, norm_type: float) -> float:
    flat = np.concatenate([g.ravel() for g in grads if g is not None])
    if norm_type == math.inf:
        return float(np.max(np.abs(flat)))
    return float(np.sum(np.abs(flat) ** norm_type) ** (1 / norm_type))


@probe("4.5")
def probe_clip(fw):
    params = with_grads([np.array([3.0, 4.0]), np.array([12.0])])
    total = optim().clip_grad_norm_(params, max_norm=1.0)
    return {"total norm of [3, 4] and [12]": total, "clipped to 1": [p.grad for p in params]}


@check("4.5")
@given(grads=gradient_sets(), max_norm=st.floats(0.05, 5.0),
       norm_type=st.sampled_from([2.0, 1.0, 3.0, math.inf]))
@example(grads=[np.array([3.0, 4.0]), np.array([[0.0, 12.0]])], max_norm=1.0, norm_type=2.0)
def test_clip_grad_norm_scales_all_gradients_by_one_factor(grads, max_norm, norm_type):
    """The total norm of all gradients together is returned, and all are scaled by one factor."""
    params = with_grads(grads)
    total = optim().clip_grad_norm_(params, max_norm, norm_type=norm_type)
    expected_total = global_norm(grads, norm_type)
    what = f"clip_grad_norm_(max_norm={max_norm:.4g}, norm_type={norm_type})"
    assert total is not None, f"{what} returned None; return the total norm (before clipping)"
    assert_close(float(total), expected_total, f"{what}: the returned total norm of "
                 f"{[None if g is None else g.tolist() for g in grads]}", rtol=1e-9, atol=1e-12)
    factor = min(1.0, max_norm / (expected_total + 1e-6))
    for i, (p, g) in enumerate(zip(params, grads)):
        if g is None:
            assert p.grad is None, f"{what}: parameter {i} had no .grad and got one"
        else:
            assert_close(p.grad, g * factor, f"{what}: gradient {i} after clipping (every "
                         f"gradient is scaled by min(1, max_norm / (total + 1e-6)) = {factor:.6g})",
                         rtol=1e-5, atol=1e-9)


@check("4.5")
@given(grads=gradient_sets(), headroom=st.floats(1.01, 3.0),
       norm_type=st.sampled_from([2.0, 1.0, math.inf]))
def test_clip_grad_norm_leaves_gradients_within_max_norm_alone(grads, headroom, norm_type):
    """When the total norm is below max_norm, nothing changes (no gradient is scaled up)."""
    expected_total = global_norm(grads, norm_type)
    max_norm = headroom * expected_total + 1e-3
    params = with_grads(grads)
    total = optim().clip_grad_norm_(params, max_norm, norm_type=norm_type)
    what = f"clip_grad_norm_(max_norm={max_norm:.4g}, norm_type={norm_type})"
    assert total is not None and math.isclose(float(total), expected_total, rel_tol=1e-9,
                                              abs_tol=1e-12), (
        f"{what} returned {total!r}; the total norm is {expected_total:.6g}")
    for i, (p, g) in enumerate(zip(params, grads)):
        if g is not None:
            assert_close(p.grad, g, f"{what}: gradient {i}, whose total norm {expected_total:.4g} "
                         "is already within max_norm", rtol=1e-12, atol=0)


@check("4.5")
@given(scales=st.lists(st.floats(0.5, 20.0), min_size=2, max_size=4, unique=True),
       seed=seeds, max_norm=st.floats(0.05, 0.4))
def test_clipping_is_global_not_per_tensor(scales, seed, max_norm):
    """After clipping, all gradients keep their relative sizes and the whole set has norm max_norm."""
    rng = np.random.default_rng(seed)
    grads = []
    for s in scales:
        g = rng.standard_normal(3)
        grads.append(s * g / np.linalg.norm(g))  # norm s: the tensors differ in size
    params = with_grads(grads)
    optim().clip_grad_norm_(params, max_norm)
    norms = [float(np.linalg.norm(p.grad)) for p in params]
    assert_close(norms, np.array(scales) * max_norm / (np.linalg.norm(scales) + 1e-6),
                 f"norms of gradients of norms {[round(s, 3) for s in scales]} after "
                 f"clip_grad_norm_(max_norm={max_norm:.3g}): one factor for all, from the global norm",
                 rtol=1e-6, atol=1e-12)


# -- 4.6 warm-up + cosine schedule ----------------------------------------------------------------------


def schedule_formula(base: float, t: int, warmup: int, total: int, min_lr: float) -> float:
    if t < warmup:
        return base * t / warmup
    if t >= total:
        return min_lr
    return min_lr + (base - min_lr) * (1 + math.cos(math.pi * (t - warmup) / (total - warmup))) / 2


@st.composite
def schedules(draw):
    warmup = draw(st.integers(0, 8))
    total = warmup + draw(st.integers(1, 16))
    base = draw(st.floats(0.01, 1.0))
    min_lr = draw(st.sampled_from([0.0]) | st.floats(0.0, 0.5).map(lambda f: f * base))
    return warmup, total, base, min_lr


def scheduled_lrs(warmup, total, min_lr, base_lrs, steps):
    """get_last_lr() at steps 0..steps-1, and each group's lr as the optimizer sees it."""
    params = [fw.Tensor(np.zeros(2), requires_grad=True) for _ in base_lrs]
    # the provided base, not SGD: a half-written optim.py does not block exercise 4.6
    optimizer = importlib.import_module("framework.optimizer").Optimizer
    opt = optimizer([{"params": [p], "lr": lr} for p, lr in zip(params, base_lrs)], {"lr": 1.0})
    scheduler = importlib.import_module("framework.lr_scheduler").WarmupCosineLR(
        opt, warmup, total, min_lr=min_lr)
    got, seen = [], []
    for _ in range(steps):
        got.append(list(scheduler.get_last_lr()))
        seen.append([g["lr"] for g in opt.param_groups])
        scheduler.step()
    return got, seen


@probe("4.6")
def probe_schedule(fw):
    got, _ = scheduled_lrs(2, 6, 0.0, [1.0], 8)
    return {"lr at steps 0..7, warm-up 2, total 6": [round(r[0], 6) for r in got]}


@check("4.6")
@given(schedule=schedules())
@example(schedule=(4, 10, 1.0, 0.1))
@example(schedule=(0, 4, 0.5, 0.0))
def test_warmup_cosine_at_its_landmarks(schedule):
    """lr is 0 at step 0 (base with no warm-up), base at the end of warm-up, min_lr at the end."""
    warmup, total, base, min_lr = schedule
    got, _ = scheduled_lrs(warmup, total, min_lr, [base], total + 3)
    lrs_ = [row[0] for row in got]
    what = f"WarmupCosineLR(warmup_steps={warmup}, total_steps={total}, min_lr={min_lr:.4g}), lr {base:.4g}"
    landmarks = {0: 0.0 if warmup else base, warmup: base, total: min_lr, total + 2: min_lr}
    if (total - warmup) % 2 == 0:
        landmarks[(warmup + total) // 2] = (base + min_lr) / 2  # half way down the cosine
    for t, want in sorted(landmarks.items()):
        assert_close(lrs_[t], want, f"{what}: the lr at step {t}", rtol=1e-9, atol=1e-12)


@check("4.6")
@given(schedule=schedules(), second=st.floats(0.01, 1.0))
def test_warmup_cosine_schedule_matches_the_formula_in_every_group(schedule, second):
    """Every step's lr, for two groups with their own base lr, also set in the optimizer."""
    warmup, total, base, min_lr = schedule
    got, seen = scheduled_lrs(warmup, total, min_lr, [base, second], total + 2)
    what = f"WarmupCosineLR(warmup_steps={warmup}, total_steps={total}, min_lr={min_lr:.4g})"
    expected = [[schedule_formula(b, t, warmup, total, min_lr) for b in (base, second)]
                for t in range(total + 2)]
    assert_close(got, expected, f"{what}: get_last_lr() at steps 0..{total + 1} for base lrs "
                 f"{base:.4g} and {second:.4g}", rtol=1e-9, atol=1e-12)
    assert_close(seen, expected, f"{what}: the optimizer's group lrs", rtol=1e-9, atol=1e-12)


@check("4.6")
@given(schedule=schedules())
def test_warmup_rises_and_cosine_falls(schedule):
    """The lr rises linearly during warm-up, then never rises again and stays within [min_lr, base]."""
    warmup, total, base, min_lr = schedule
    got, _ = scheduled_lrs(warmup, total, min_lr, [base], total + 2)
    lrs_ = np.array([row[0] for row in got])
    what = f"WarmupCosineLR(warmup_steps={warmup}, total_steps={total}, min_lr={min_lr:.4g})"
    if warmup:
        assert_close(np.diff(lrs_[: warmup + 1]), np.full(warmup, base / warmup),
                     f"{what}: the rise per step during warm-up (lr {base:.4g})", rtol=1e-9)
    falls = np.diff(lrs_[warmup:])
    assert np.all(falls <= 1e-12), f"{what}: the lr rises after warm-up: {lrs_.round(5).tolist()}"
    assert np.all(lrs_[warmup:] >= min_lr - 1e-12) and np.all(lrs_ <= base + 1e-12), (
        f"{what}: lrs outside [min_lr, base]: {lrs_.round(5).tolist()}")


# -- bonus track: graded apart from the 100 points ---------------------------------------------


def extra():
    """`framework.optim_extra`, the bonus optimizers (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.optim_extra")


# -- 4.7 (bonus) RMSprop -------------------------------------------------------------------------


def rmsprop_formula(init, steps, lr, alpha, eps, weight_decay):
    """torch.optim.RMSprop (no momentum, not centered), written out: path and final v."""
    theta = [a.copy() for a in init]
    v = [np.zeros_like(a) for a in init]
    path = []
    for row in steps:
        for i, g in enumerate(row):
            if g is None:
                continue
            g = g + weight_decay * theta[i]
            v[i] = alpha * v[i] + (1 - alpha) * g * g
            theta[i] = theta[i] - lr * g / (np.sqrt(v[i]) + eps)
        path.append([t.copy() for t in theta])
    return path, v


@probe("4.7")
def probe_rmsprop(fw):
    def two_steps():
        w = fw.Tensor(np.array([1.0, -2.0]), requires_grad=True)
        opt = extra().RMSprop([w], lr=0.1)
        for _ in range(2):
            w.grad = np.array([0.5, -4.0])
            opt.step()
        return w.data
    return {"w after 2 steps, lr 0.1": two_steps}


# α ≥ 0.01 here: with α = 0, √v + ε is |g| + ε, and a parameter that decay pulls to within ε
# of zero makes the path hang on its last bits (two correct orders of the same arithmetic
# parted by 3e-10 at step 4); α = 0 has an exact check of its own below
@check("4.7")
@given(problem=problems(), lr=lrs, alpha=st.floats(0.01, 0.99), eps=epsilons, weight_decay=decays)
def test_rmsprop_trajectory_matches_the_update_rule(problem, lr, alpha, eps, weight_decay):
    """Every step: v ← αv + (1 − α)g², θ ← θ − lr·g/(√v + ε), g with L2 decay; v kept per parameter."""
    init, steps = problem
    what = describe("RMSprop", lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay)
    params, opt, path = drive(lambda ps: extra().RMSprop(ps, lr=lr, alpha=alpha, eps=eps,
                                                         weight_decay=weight_decay), init, steps)
    expected, _ = rmsprop_formula(init, steps, lr, alpha, eps, weight_decay)
    compare_paths(path, expected, what)


@check("4.7")
@given(shape=shapes, data=st.data(), lr=lrs, alpha=st.floats(0.5, 0.99))
def test_rmsprop_first_step_moves_by_lr_over_root_one_minus_alpha(shape, data, lr, alpha):
    """From v = 0, the first step moves each coordinate by lr/√(1 − α) against its gradient's sign."""
    g = data.draw(arrays(np.float64, shape, elements=st.floats(0.5, 2.0) | st.floats(-2.0, -0.5)))
    w = fw.Tensor(np.zeros(shape), requires_grad=True)
    w.grad = g.copy()
    extra().RMSprop([w], lr=lr, alpha=alpha, eps=0.0).step()
    assert_close(w.data, -np.sign(g) * lr / np.sqrt(1 - alpha),
                 f"RMSprop(lr={lr:.4g}, alpha={alpha:.4g}, eps=0): the first step from zero",
                 rtol=1e-9, atol=1e-12)


@check("4.7")
@given(shape=shapes, data=st.data(), lr=lrs)
def test_rmsprop_with_alpha_0_keeps_no_history(shape, data, lr):
    """α = 0: v = g² of this step alone, so each step moves by lr·g/(|g| + ε)."""
    sizable = st.floats(0.5, 2.0) | st.floats(-2.0, -0.5)
    theta = data.draw(arrays(np.float64, shape, elements=st.floats(-2.0, 2.0)))
    grads = [data.draw(arrays(np.float64, shape, elements=sizable)) for _ in range(2)]
    w = fw.Tensor(theta.copy(), requires_grad=True)
    opt = extra().RMSprop([w], lr=lr, alpha=0.0, eps=1e-8)
    expected = theta.copy()
    for k, g in enumerate(grads):
        w.grad = g.copy()
        opt.step()
        expected = expected - lr * g / (np.abs(g) + 1e-8)
        assert_close(w.data, expected, f"RMSprop(lr={lr:.4g}, alpha=0): after step {k + 1}",
                     rtol=1e-9, atol=1e-12)


# -- 4.8 (bonus) Lion ----------------------------------------------------------------------------


def lion_formula(init, steps, lr, betas, weight_decay):
    """Lion, Algorithm 2 of Chen et al. (2023), written out: path and final m."""
    beta1, beta2 = betas
    theta = [a.copy() for a in init]
    m = [np.zeros_like(a) for a in init]
    path = []
    for row in steps:
        for i, g in enumerate(row):
            if g is None:
                continue
            c = beta1 * m[i] + (1 - beta1) * g
            theta[i] = theta[i] - lr * (np.sign(c) + weight_decay * theta[i])
            m[i] = beta2 * m[i] + (1 - beta2) * g
        path.append([t.copy() for t in theta])
    return path, m


@probe("4.8")
def probe_lion(fw):
    def two_steps():
        w = fw.Tensor(np.array([1.0, -2.0]), requires_grad=True)
        opt = extra().Lion([w], lr=0.1)
        for g in ([0.5, -4.0], [-1.0, 1.0]):
            w.grad = np.array(g)
            opt.step()
        return w.data
    return {"w after 2 steps, lr 0.1": two_steps}


@check("4.8")
@given(problem=problems(), lr=lrs, betas=st.tuples(st.floats(0.0, 0.99), st.floats(0.0, 0.999)),
       weight_decay=decays)
def test_lion_trajectory_matches_the_papers_update(problem, lr, betas, weight_decay):
    """Every step: c = β₁m + (1 − β₁)g, θ ← θ − lr·(sign c + λθ), then m ← β₂m + (1 − β₂)g."""
    init, steps = problem
    what = describe("Lion", lr=lr, betas=betas, weight_decay=weight_decay)
    params, opt, path = drive(lambda ps: extra().Lion(ps, lr=lr, betas=betas,
                                                      weight_decay=weight_decay), init, steps)
    expected, _ = lion_formula(init, steps, lr, betas, weight_decay)
    compare_paths(path, expected, what)


@check("4.8")
@given(seed=seeds, lr=st.floats(0.001, 0.1))
def test_lion_moves_every_coordinate_by_exactly_lr(seed, lr):
    """With no decay, each step changes every coordinate by ±lr (where the direction is not 0)."""
    rng = np.random.default_rng(seed)
    w = fw.Tensor(rng.standard_normal(5), requires_grad=True)
    opt = extra().Lion([w], lr=lr, betas=(0.9, 0.99))
    for step in range(3):
        before = w.data.copy()
        w.grad = rng.standard_normal(5) + np.sign(rng.standard_normal(5))
        opt.step()
        assert_close(np.abs(w.data - before), np.full(5, lr),
                     f"Lion(lr={lr:.4g}): |change| of each coordinate at step {step + 1}",
                     rtol=1e-9, atol=1e-12)


# -- 4.9 (bonus) a property test of your own, graded by mutation ---------------------------------

KILL_SHARE = 0.8  # of the 4.6 bug zoo the learner's test must catch

# exactly the body of 4.6's region in optim.py (a selftest keeps them equal): the bug zoo's
# 4.6 mutants apply to it as they apply to the reference
SCHEDULE_REGION = (
    "        if step < self.warmup_steps:\n"
    "            return base_lr * step / self.warmup_steps\n"
    "        if step >= self.total_steps:\n"
    "            return self.min_lr\n"
    "        progress = (step - self.warmup_steps) / (self.total_steps - self.warmup_steps)\n"
    "        return self.min_lr + (base_lr - self.min_lr) * 0.5 * (1.0 + math.cos(math.pi * progress))\n"
)


def schedule_from(body: str):
    """lr_at(base_lr, step, warmup_steps, total_steps, min_lr) running a 4.6 region's body."""
    source = ("def lr_at(base_lr, step, warmup_steps, total_steps, min_lr):\n"
              "    self = SimpleNamespace(warmup_steps=warmup_steps, total_steps=total_steps, "
              "min_lr=min_lr)\n" + textwrap.indent(textwrap.dedent(body), "    "))
    namespace = {"math": math, "SimpleNamespace": SimpleNamespace}
    exec(compile(source, "<4.6's schedule>", "exec"), namespace)
    return namespace["lr_at"]


def correct_schedules() -> dict:
    """The reference schedule, and the same function written another way (cos² of half the angle)."""
    def halved(base_lr, step, warmup_steps, total_steps, min_lr):
        if step < warmup_steps:
            return step / warmup_steps * base_lr
        p = min(1.0, (step - warmup_steps) / (total_steps - warmup_steps))
        return min_lr + (base_lr - min_lr) * math.cos(math.pi * p / 2) ** 2
    return {"the reference": schedule_from(SCHEDULE_REGION), "cos² of half the angle": halved}


def bug_zoo() -> dict:
    """{name: buggy schedule}: each of chapter 4's 4.6 mutants applied to the reference schedule."""
    from checks.mutants.chapter4 import MUTANTS

    zoo = {}
    for mutant in (m for m in MUTANTS if m.exercise == "4.6"):
        assert SCHEDULE_REGION.count(mutant.find) == 1, f"4.6 mutant {mutant.name!r} does not apply"
        zoo[mutant.name] = schedule_from(SCHEDULE_REGION.replace(mutant.find, mutant.replace))
    return zoo


def properties():
    """`framework.property_tests`, the learner's test (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.property_tests")


def outcome(schedule) -> BaseException | None:
    """What the learner's test raised on `schedule`, or None when it passed."""
    try:
        properties().check_warmup_cosine(schedule)
    except NotImplementedError:  # the stub: nothing caught, nothing passed
        raise
    except Exception as error:  # an AssertionError, or hypothesis's report of several
        return error
    return None


@probe("4.9")
def probe_property_test(fw):
    return {"your test on the reference schedule": lambda: properties().check_warmup_cosine(
        schedule_from(SCHEDULE_REGION)) or "passes"}


@check("4.9")
def test_your_property_test_passes_correct_schedules():
    """Your test passes the reference schedule and the same schedule written another way."""
    for name, schedule in correct_schedules().items():
        error = outcome(schedule)
        assert error is None, (
            f"check_warmup_cosine failed a correct schedule ({name}): "
            f"{type(error).__name__}: {str(error)[:300]}. A property test must pass every correct "
            "implementation: compare floats with a tolerance (math.isclose), and test only what "
            "4.6's contract promises")


@check("4.9")
def test_your_property_test_catches_the_4_6_bug_zoo():
    """Your test fails at least 80% of chapter 4's wrong schedules (the 4.6 bug zoo)."""
    zoo = bug_zoo()
    survivors = [name for name, schedule in zoo.items() if outcome(schedule) is None]
    caught = len(zoo) - len(survivors)
    assert caught >= KILL_SHARE * len(zoo), (
        f"check_warmup_cosine caught {caught} of the {len(zoo)} wrong schedules, at least "
        f"{math.ceil(KILL_SHARE * len(zoo))} needed; it passed these: {'; '.join(survivors)}. "
        "Assert what the contract promises at the landmarks (step 0, the end of warm-up, the "
        "middle and the end of the cosine, after total_steps) and between them")
