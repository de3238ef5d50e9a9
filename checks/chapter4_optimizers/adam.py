"""Chapter 4, exercises 4.3–4.4: Adam with bias correction, and AdamW's decoupled decay."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.chapter4_optimizers.common import (
    ATOL,
    RTOL,
    adam_formula,
    beta_pairs,
    compare_paths,
    decays,
    describe,
    drive,
    epsilons,
    fw,
    lrs,
    optim,
    problems,
    quadratic,
    seeds,
    shapes,
    values,
)
from checks.harness import assert_close, check, probe

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
    magnitudes = data.draw(arrays(np.float64, shape, elements=st.floats(0.1, 2.0)), label="magnitudes")
    signs = data.draw(arrays(np.float64, shape, elements=st.sampled_from([-1.0, 1.0])), label="signs")
    g = magnitudes * signs
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
    magnitudes = data.draw(arrays(np.float64, shape, elements=st.floats(1e-3, 0.1)), label="magnitudes")
    signs = data.draw(arrays(np.float64, shape, elements=st.sampled_from([-1.0, 1.0])), label="signs")
    g = magnitudes * signs
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
