"""Chapter 4's bonus track, graded apart from the 100 points: 4.7 RMSprop, 4.8 Lion, 4.9 a property test."""

from __future__ import annotations

import importlib
import math
import textwrap
from types import SimpleNamespace

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.chapter4_optimizers.common import (
    compare_paths,
    decays,
    describe,
    drive,
    epsilons,
    fw,
    lrs,
    problems,
    seeds,
    shapes,
)
from checks.harness import assert_close, check, probe

# -- bonus track: graded apart from the 100 points ---------------------------------------------


def extra():
    """`framework.bonus.chapter4_optimizers`, the bonus optimizers (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.bonus.chapter4_optimizers")


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
    g = data.draw(arrays(np.float64, shape, elements=st.floats(0.5, 2.0) | st.floats(-2.0, -0.5)),
                  label="g")
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
    theta = data.draw(arrays(np.float64, shape, elements=st.floats(-2.0, 2.0)), label="theta")
    grads = [data.draw(arrays(np.float64, shape, elements=sizable), label=f"grads[{i}]")
             for i in range(2)]
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

MAY_MISS = 1  # wrong schedules of the 4.6 bug zoo the learner's test may let pass

NO_ZOO = ("4.9 is graded with chapter 4's bug zoo, which stays with your instructor: it is not "
          "in this release, and your instructor's grader grades 4.9")


def zoo_schedule() -> tuple[str, list]:
    """4.6's region as the bug zoo holds it, and the zoo's 4.6 mutants, which apply to it.
    The zoo stays with the instructor: the Gradescope zip has it, a learner's release not."""
    try:
        from checks.mutants.chapter4 import MUTANTS, SCHEDULE_REGION
    except ModuleNotFoundError as error:
        if not error.name.startswith("checks.mutants"):
            raise
        raise RuntimeError(NO_ZOO) from None
    return SCHEDULE_REGION, [m for m in MUTANTS if m.exercise == "4.6"]


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
    return {"the reference": schedule_from(zoo_schedule()[0]), "cos² of half the angle": halved}


def bug_zoo() -> dict:
    """{name: buggy schedule}: each of chapter 4's 4.6 mutants applied to the reference schedule."""
    (region, mutants), zoo = zoo_schedule(), {}
    for mutant in mutants:
        assert region.count(mutant.find) == 1, f"4.6 mutant {mutant.name!r} does not apply"
        zoo[mutant.name] = schedule_from(region.replace(mutant.find, mutant.replace))
    return zoo


def properties():
    """`framework.bonus.chapter4_optimizers`, the learner's test (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.bonus.chapter4_optimizers")


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
        schedule_from(zoo_schedule()[0])) or "passes",
            "wrong schedules your test catches": lambda: kill_count()}


def kill_count() -> str:
    """How many of the 4.6 bug zoo's schedules the learner's test fails, as "7 of 8"."""
    zoo = bug_zoo()
    return f"{sum(outcome(s) is not None for s in zoo.values())} of {len(zoo)}"


@check("4.9")
def test_your_property_test_passes_correct_schedules():
    """Your test passes the reference schedule and the same schedule written another way."""
    for name, schedule in correct_schedules().items():
        error = outcome(schedule)
        assert error is None, (
            f"check_warmup_cosine failed a correct schedule ({name}). A property test must pass "
            "every correct implementation: compare floats with a tolerance (math.isclose), and "
            f"test only what 4.6's contract promises. Your test raised:\n{raised(error)}")


def raised(error: BaseException) -> str:
    """What the learner's test raised, as the grader shows a failure: the error, the line of
    their file, their failing input (hypothesis's notes for a test's author left out)."""
    from checks.tools.run_exercise import counterexample, describe, raised_in, shown
    from checks.tools.run_exercise import in_package as package_path

    first = shown(error)[0]
    text = describe(error)[:300]
    where = raised_in(first)
    if where and "raised in " not in text:
        text += f"\n  raised in {package_path(where.filename)}, line {where.lineno}: {where.line}"
    return textwrap.indent("\n".join(filter(None, [text, counterexample(error)])), "  ")


@check("4.9")
def test_your_property_test_catches_the_4_6_bug_zoo():
    """Your test fails all but one of chapter 4's wrong schedules (the 4.6 bug zoo, 8 of them)."""
    zoo = bug_zoo()
    survivors = [name for name, schedule in zoo.items() if outcome(schedule) is None]
    caught = len(zoo) - len(survivors)
    assert caught >= len(zoo) - MAY_MISS, (
        f"check_warmup_cosine caught {caught} of the {len(zoo)} wrong schedules, at least "
        f"{len(zoo) - MAY_MISS} needed; it passed these: {'; '.join(survivors)}. "
        "Assert what the contract promises at the landmarks (step 0, the end of warm-up, the "
        "middle and the end of the cosine, after total_steps) and between them (a quarter of "
        "the way down the cosine tells it from a straight line)")
