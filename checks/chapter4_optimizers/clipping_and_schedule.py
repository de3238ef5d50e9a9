"""Chapter 4, exercises 4.5–4.6: clip_grad_norm_ (global norm), and the warm-up + cosine schedule."""

from __future__ import annotations

import importlib
import math

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.chapter4_optimizers.common import fw, optim, seeds, shapes
from checks.harness import assert_close, check, probe

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
    optim().clip_grad_norm_(params, max_norm=max_norm)
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
