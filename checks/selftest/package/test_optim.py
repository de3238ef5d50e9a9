"""Provided parts of chapter 4 (the reference): groups, state, state_dict, schedulers, messages."""

import math

import numpy as np
import pytest

from checks.loader import load_framework

fw = load_framework("solutions")
from framework import optim  # noqa: E402  (the package chosen above)

Tensor = fw.Tensor


def param(*values, dtype=np.float64):
    return Tensor(np.array(values, dtype=dtype), requires_grad=True)


# -- bad hyperparameters are errors at construction, naming the value --------------------------

BAD = {
    "SGD negative lr": (lambda p: optim.SGD(p, lr=-0.1), r"SGD: lr=-0.1 is invalid"),
    "SGD nan lr": (lambda p: optim.SGD(p, lr=float("nan")), r"SGD: lr=nan is invalid"),
    "SGD negative momentum": (lambda p: optim.SGD(p, lr=0.1, momentum=-0.5),
                              r"SGD: momentum=-0.5 is invalid"),
    "SGD negative weight decay": (lambda p: optim.SGD(p, lr=0.1, weight_decay=-1e-4),
                                  r"SGD: weight_decay=-0.0001 is invalid"),
    "Nesterov without momentum": (lambda p: optim.SGD(p, lr=0.1, nesterov=True),
                                  r"nesterov=True needs momentum > 0 and dampening = 0, "
                                  r"got momentum=0.0, dampening=0.0"),
    "Nesterov with dampening": (lambda p: optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1,
                                                    nesterov=True), r"dampening=0.1"),
    "Adam negative lr": (lambda p: optim.Adam(p, lr=-1e-3), r"Adam: lr=-0.001 is invalid"),
    "Adam beta1 = 1": (lambda p: optim.Adam(p, betas=(1.0, 0.999)),
                       r"Adam: betas\[0\]=1.0 is outside \[0, 1\)"),
    "Adam beta2 negative": (lambda p: optim.Adam(p, betas=(0.9, -0.1)),
                            r"Adam: betas\[1\]=-0.1 is outside \[0, 1\)"),
    "Adam three betas": (lambda p: optim.Adam(p, betas=(0.9, 0.99, 0.999)), r"must be a pair"),
    "Adam negative eps": (lambda p: optim.Adam(p, eps=-1e-8), r"Adam: eps=-1e-08 is invalid"),
    "AdamW beta1 > 1": (lambda p: optim.AdamW(p, betas=(1.5, 0.999)),
                        r"AdamW: betas\[0\]=1.5 is outside \[0, 1\)"),
    "AdamW negative weight decay": (lambda p: optim.AdamW(p, weight_decay=-0.01),
                                    r"AdamW: weight_decay=-0.01 is invalid"),
    "a group's own bad lr": (lambda p: optim.SGD([{"params": p, "lr": -2.0}], lr=0.1),
                             r"SGD: lr=-2.0 is invalid"),
    "unknown hyperparameter": (lambda p: optim.SGD([{"params": p, "learning_rate": 0.1}], lr=0.1),
                               r"unknown hyperparameter\(s\) \['learning_rate'\]"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_hyperparameters_are_errors_naming_the_value(name):
    make, message = BAD[name]
    with pytest.raises(ValueError, match=message):
        make([param(1.0, 2.0)])


def test_parameters_must_be_a_list_of_floating_tensors():
    w = param(1.0)
    with pytest.raises(TypeError, match=r"got one Tensor; pass a list, e.g. SGD\(\[w\], ...\)"):
        optim.SGD(w, lr=0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(TypeError, match="can only optimize floating tensors"):
        optim.SGD([Tensor(np.array([1, 2]))], lr=0.1)
    with pytest.raises(ValueError, match="appears more than once"):
        optim.SGD([w, w], lr=0.1)
    with pytest.raises(ValueError, match="appears more than once"):
        optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)


def test_defaults_are_pytorchs():
    w = param(1.0)
    assert optim.Adam([w]).param_groups[0] | {"params": None} == {
        "params": None, "lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0,
        "foreach": None}
    assert optim.AdamW([w]).param_groups[0]["weight_decay"] == 1e-2
    assert optim.SGD([w], lr=0.1).param_groups[0] | {"params": None} == {
        "params": None, "lr": 0.1, "momentum": 0.0, "dampening": 0.0, "nesterov": False,
        "weight_decay": 0.0, "foreach": None}


def test_groups_take_their_own_values_and_the_defaults_for_the_rest():
    a, b = param(1.0), param(2.0)
    opt = optim.SGD([{"params": [a], "lr": 0.5}, {"params": b}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.5, 0.1]
    assert [g["momentum"] for g in opt.param_groups] == [0.9, 0.9]
    assert opt.param_groups[1]["params"] == [b]
    assert "group 0: 1 parameters, lr=0.5" in repr(opt)


# -- zero_grad and step ------------------------------------------------------------------------


def test_zero_grad_sets_none_or_fills_zeros_in_place():
    w = param(1.0, 2.0)
    opt = optim.SGD([w], lr=0.1)
    w.grad = np.array([3.0, 4.0])
    kept = w.grad
    opt.zero_grad(set_to_none=False)
    assert w.grad is kept and np.array_equal(kept, [0.0, 0.0])
    opt.zero_grad()
    assert w.grad is None


def test_step_skips_parameters_without_a_gradient_and_checks_shapes():
    a, b = param(1.0, 2.0), param(3.0)
    opt = optim.SGD([a, b], lr=0.5, momentum=0.9)
    a.grad = np.array([1.0, 1.0])
    opt.step()
    assert np.array_equal(b.data, [3.0]) and b not in opt.state
    b.grad = np.ones((2, 2))
    with pytest.raises(ValueError, match=r"shape \(1,\) has a .grad of shape \(2, 2\)"):
        opt.step()


@pytest.mark.parametrize("make", [
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1),
    lambda ps: optim.Adam(ps, lr=0.1, weight_decay=0.1),
    lambda ps: optim.AdamW(ps, lr=0.1),
])
def test_float32_parameters_stay_float32_and_are_updated_in_place(make):
    w = param(1.0, -2.0, 3.0, dtype=np.float32)
    array = w.data
    opt = make([w])
    for _ in range(3):
        w.grad = np.array([0.5, 0.25, -1.0], dtype=np.float32)
        opt.step()
    assert w.data is array and w.data.dtype == np.float32
    for state in opt.state.values():
        for value in state.values():
            assert not isinstance(value, np.ndarray) or value.dtype == np.float32


# -- the joined (foreach=True) step: one update on a whole group, the same numbers ------------------

JOINABLE = {
    "SGD momentum": lambda ps, **kw: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True,
                                               weight_decay=0.1, **kw),
    "Adam": lambda ps, **kw: optim.Adam(ps, lr=0.1, betas=(0.8, 0.9), weight_decay=0.1, **kw),
    "AdamW": lambda ps, **kw: optim.AdamW(ps, lr=0.1, **kw),
}


def joined_adam(params, lr=0.1):
    return optim.Adam(params, lr=lr, foreach=True)


class ShapeRecordingSGD(optim.SGD):
    """SGD whose update records the shape of every array it is given."""

    def __init__(self, params, **kwargs):
        super().__init__(params, lr=0.1, **kwargs)
        self.seen = []

    def update(self, param, grad, state, group):
        self.seen.append(param.shape)
        super().update(param, grad, state, group)


def test_update_sees_each_parameters_own_shape_by_default():
    params = [Tensor(np.zeros((2, 3)), requires_grad=True), Tensor(np.zeros(4), requires_grad=True)]
    for p in params:
        p.grad = np.ones_like(p.data)
    opt = ShapeRecordingSGD(params)
    opt.step()
    assert opt.seen == [(2, 3), (4,)]


def test_update_sees_one_joined_vector_with_foreach():
    params = [Tensor(np.zeros((2, 3)), requires_grad=True), Tensor(np.zeros(4), requires_grad=True)]
    for p in params:
        p.grad = np.ones_like(p.data)
    opt = ShapeRecordingSGD(params, foreach=True)
    opt.step()
    assert opt.seen == [(10,)]


def test_foreach_is_refused_for_an_update_that_is_not_elementwise():
    class Shaped(optim.SGD):
        elementwise = False

    with pytest.raises(ValueError, match=r"Shaped: foreach=True joins .* leave foreach off"):
        Shaped([param(1.0, 2.0)], lr=0.1, foreach=True)


def shapes_and_grads(seed=0, steps=4):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal((2, 3)), rng.standard_normal(4), rng.standard_normal(())]
    grads = [[rng.standard_normal(a.shape) for a in init] for _ in range(steps)]
    return init, grads


@pytest.mark.parametrize("make", JOINABLE.values(), ids=JOINABLE.keys())
def test_the_joined_step_moves_every_parameter_exactly_as_one_update_each(make):
    init, grads = shapes_and_grads()
    joined_params = [Tensor(a.copy(), requires_grad=True) for a in init]
    joined = make(joined_params, foreach=True)
    alone_params = [Tensor(a.copy(), requires_grad=True) for a in init]
    alone = make(alone_params)  # the default: one update per parameter
    for got, want in zip(run(joined, joined_params, grads), run(alone, alone_params, grads)):
        assert np.array_equal(got, want)
    saved, expected = joined.state_dict(), alone.state_dict()
    assert saved["state"].keys() == expected["state"].keys()
    for i, state in expected["state"].items():
        for key, value in state.items():
            assert np.array_equal(saved["state"][i][key], value), (i, key)


def test_a_parameter_that_missed_a_step_keeps_its_own_step_count():
    init, grads = shapes_and_grads()
    params = [Tensor(a.copy(), requires_grad=True) for a in init]
    alone_params = [Tensor(a.copy(), requires_grad=True) for a in init]
    joined, alone = joined_adam(params), optim.Adam(alone_params, lr=0.1)
    for k, g in enumerate(grads):
        for ps in (params, alone_params):
            for i, (p, gp) in enumerate(zip(ps, g)):
                p.grad = None if (k == 1 and i == 1) else gp.copy()
        joined.step()
        alone.step()
    assert [joined.state[p]["step"] for p in params] == [4, 3, 4]
    for got, want in zip(params, alone_params):
        assert np.array_equal(got.data, want.data)


def test_the_joined_state_is_the_per_parameter_state_seen_through_views():
    init, grads = shapes_and_grads(steps=2)
    params = [Tensor(a.copy(), requires_grad=True) for a in init]
    opt = joined_adam(params)
    run(opt, params, grads[:1])
    for p in params:  # a write through the per-parameter state reaches the next joined step
        opt.state[p]["exp_avg"][...] = 0.0
        opt.state[p]["exp_avg_sq"][...] = 1.0
    before = [p.data.copy() for p in params]
    run(opt, params, grads[1:])
    beta1, beta2 = 0.9, 0.999
    for p, b, g in zip(params, before, grads[1]):
        m, v = (1 - beta1) * g / (1 - beta1**2), (beta2 + (1 - beta2) * g**2) / (1 - beta2**2)
        np.testing.assert_allclose(p.data, b - 0.1 * m / (np.sqrt(v) + 1e-8), rtol=1e-12)


def test_a_state_loaded_into_the_same_optimizer_replaces_the_joined_state():
    init, grads = shapes_and_grads()
    params = [Tensor(a.copy(), requires_grad=True) for a in init]
    opt = joined_adam(params)
    run(opt, params, grads[:2])
    saved, saved_data = opt.state_dict(), [p.data.copy() for p in params]
    run(opt, params, grads[2:3])
    for p, data in zip(params, saved_data):
        p.data[...] = data
    opt.load_state_dict(saved)
    resumed = run(opt, params, grads[3:])
    fresh = [Tensor(a.copy(), requires_grad=True) for a in init]
    expected = run(optim.Adam(fresh, lr=0.1), fresh, grads[:2] + grads[3:])
    for got, want in zip(resumed, expected):
        assert np.array_equal(got, want)


def test_a_state_replaced_between_steps_is_joined_afresh():
    init, grads = shapes_and_grads()
    params = [Tensor(a.copy(), requires_grad=True) for a in init]
    alone_params = [Tensor(a.copy(), requires_grad=True) for a in init]
    joined, alone = joined_adam(params), optim.Adam(alone_params, lr=0.1)
    run(joined, params, grads[:2])
    run(alone, alone_params, grads[:2])
    # a copy holds the same arrays and numbers, but it is not the dict the join writes into
    joined.state[params[0]] = dict(joined.state[params[0]])
    run(joined, params, grads[2:])
    run(alone, alone_params, grads[2:])
    assert [joined.state[p]["step"] for p in params] == [4, 4, 4]
    for got, want in zip(params, alone_params):
        assert np.array_equal(got.data, want.data)


def test_a_parameter_given_new_data_of_another_shape_is_joined_afresh():
    params = [param(1.0, 2.0), param(3.0)]
    opt = optim.SGD(params, lr=0.5, foreach=True)
    for p in params:
        p.grad = np.ones_like(p.data)
    opt.step()
    params[1].data = np.array([3.0, 4.0, 5.0])
    for p in params:
        p.grad = np.ones_like(p.data)
    opt.step()
    np.testing.assert_array_equal(params[0].data, [0.0, 1.0])
    np.testing.assert_array_equal(params[1].data, [2.5, 3.5, 4.5])


def test_a_parameter_cast_to_float64_between_steps_is_joined_afresh():
    """Module.to swaps a parameter's array for one of another dtype: the joined float32 buffer
    must not keep stepping it, rounding every update to float32."""
    params = [param(1.0, 2.0, dtype=np.float32), param(3.0, dtype=np.float32)]
    opt = optim.SGD(params, lr=1.0, foreach=True)
    for p in params:
        p.grad = np.ones_like(p.data)
    opt.step()
    for p in params:
        p.data, p.grad = p.data.astype(np.float64), np.full(p.data.shape, 1e-9)
    opt.step()
    assert all(p.data.dtype == np.float64 for p in params)
    np.testing.assert_array_equal(params[0].data, np.array([0.0, 1.0]) - 1e-9)
    np.testing.assert_array_equal(params[1].data, np.array([2.0]) - 1e-9)


def test_parameters_of_different_dtypes_are_updated_one_by_one():
    a, b = param(1.0, 2.0, dtype=np.float32), param(3.0)
    opt = optim.Adam([a, b], lr=0.1, foreach=True)
    for _ in range(2):
        a.grad, b.grad = np.array([1.0, -1.0], dtype=np.float32), np.array([2.0])
        opt.step()
    assert a.data.dtype == opt.state[a]["exp_avg"].dtype == np.float32
    assert b.data.dtype == opt.state[b]["exp_avg"].dtype == np.float64
    np.testing.assert_allclose(a.data, [0.8, 2.2], rtol=1e-6)
    np.testing.assert_allclose(b.data, [2.8], rtol=1e-8)


# -- state_dict / load_state_dict ----------------------------------------------------------------


def run(opt, params, grads):
    for g in grads:
        for p, gp in zip(params, g):
            p.grad = gp.copy()
        opt.step()
    return [p.data.copy() for p in params]


@pytest.mark.parametrize("make", [
    lambda ps: optim.SGD([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.05}], lr=0.1, momentum=0.9),
    lambda ps: optim.Adam(ps, lr=0.1, betas=(0.8, 0.9)),
    lambda ps: optim.AdamW([{"params": ps[:1], "weight_decay": 0.5}, {"params": ps[1:]}], lr=0.1),
])
def test_a_loaded_state_continues_exactly_where_it_left_off(make):
    rng = np.random.default_rng(0)
    init = [rng.standard_normal((2, 3)), rng.standard_normal(4)]
    grads = [[rng.standard_normal(a.shape) for a in init] for _ in range(6)]
    params = [Tensor(a.copy(), requires_grad=True) for a in init]
    straight = run(make(params), params, grads)

    params = [Tensor(a.copy(), requires_grad=True) for a in init]
    first = make(params)
    after_three = run(first, params, grads[:3])
    saved = first.state_dict()
    run(first, params, grads[3:4])  # changes the optimizer's state, never the saved copy
    params = [Tensor(a, requires_grad=True) for a in after_three]
    second = make(params)
    second.load_state_dict(saved)
    resumed = run(second, params, grads[3:])
    for got, want in zip(resumed, straight):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_state_dict_numbers_parameters_and_holds_copies():
    a, b = param(1.0, 2.0), param(3.0)
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
    a.grad = np.array([1.0, -1.0])
    opt.step()
    saved = opt.state_dict()
    assert [g["params"] for g in saved["param_groups"]] == [[0], [1]]
    assert list(saved["state"]) == [0] and saved["param_groups"][1]["lr"] == 0.5
    saved["state"][0]["momentum_buffer"][:] = 99.0
    assert np.array_equal(opt.state[a]["momentum_buffer"], [1.0, -1.0])


def test_load_state_dict_refuses_a_different_layout():
    a, b = param(1.0, 2.0), param(3.0)
    opt = optim.Adam([a, b])
    a.grad = np.array([1.0, -1.0])
    opt.step()
    with pytest.raises(ValueError, match=r"the saved groups hold \[2\] parameters, this "
                       r"optimizer's \[1\]"):
        optim.Adam([a]).load_state_dict(opt.state_dict())
    other = optim.Adam([param(1.0, 2.0, 3.0), b])
    with pytest.raises(ValueError, match=r"state 'exp_avg' has shape \(2,\), its parameter \(3,\)"):
        other.load_state_dict(opt.state_dict())


# -- schedulers --------------------------------------------------------------------------------


def lrs_of(scheduler, steps):
    out = []
    for _ in range(steps):
        out.append(scheduler.get_last_lr()[0])
        scheduler.step()
    return out


def test_step_lr_decays_every_step_size_steps():
    opt = optim.SGD([param(1.0)], lr=1.0)
    scheduler = optim.StepLR(opt, step_size=2, gamma=0.5)
    assert lrs_of(scheduler, 7) == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.125]
    assert opt.param_groups[0]["lr"] == 0.125 and opt.param_groups[0]["initial_lr"] == 1.0


def test_schedulers_check_their_arguments():
    opt = optim.SGD([param(1.0)], lr=1.0)
    with pytest.raises(ValueError, match=r"StepLR: step_size=0 must be a whole number >= 1"):
        optim.StepLR(opt, 0)
    with pytest.raises(ValueError, match=r"StepLR: gamma=-0.5 must be > 0"):
        optim.StepLR(opt, 3, gamma=-0.5)
    with pytest.raises(ValueError, match=r"warmup_steps=10 and total_steps=10 must be whole "
                       r"numbers with 0 <= warmup_steps < total_steps"):
        optim.WarmupCosineLR(opt, 10, 10)
    with pytest.raises(ValueError, match=r"warmup_steps=-1"):
        optim.WarmupCosineLR(opt, -1, 10)
    with pytest.raises(ValueError, match=r"min_lr=-0.1 must be >= 0"):
        optim.WarmupCosineLR(opt, 2, 10, min_lr=-0.1)
    with pytest.raises(TypeError, match=r"the first argument is the optimizer to schedule, got list"):
        optim.StepLR([param(1.0)], 3)


def test_scheduler_state_dict_resumes_the_count():
    opt = optim.SGD([param(1.0)], lr=1.0)
    scheduler = optim.StepLR(opt, step_size=2, gamma=0.5)
    for _ in range(3):
        scheduler.step()
    saved = scheduler.state_dict()
    fresh_opt = optim.SGD([param(1.0)], lr=1.0)
    fresh = optim.StepLR(fresh_opt, step_size=2, gamma=0.5)
    fresh.load_state_dict(saved)
    assert fresh.last_epoch == 3 and fresh_opt.param_groups[0]["lr"] == 0.5
    assert lrs_of(fresh, 2) == [0.5, 0.25]


def test_get_last_lr_is_a_copy_per_group():
    opt = optim.SGD([{"params": [param(1.0)], "lr": 0.2}, {"params": [param(2.0)]}], lr=1.0)
    scheduler = optim.WarmupCosineLR(opt, 0, 4)
    lrs = scheduler.get_last_lr()
    lrs[0] = 123.0
    assert scheduler.get_last_lr() == [0.2, 1.0]


# -- clip_grad_norm_: the provided checks around the exercise ---------------------------------------


def test_clip_grad_norm_arguments():
    w = param(1.0, 2.0)
    with pytest.raises(ValueError, match=r"clip_grad_norm_: max_norm=-1.0 is invalid"):
        optim.clip_grad_norm_([w], -1.0)
    with pytest.raises(ValueError, match=r"norm_type=0.5 must be >= 1 or math.inf"):
        optim.clip_grad_norm_([w], 1.0, norm_type=0.5)
    assert optim.clip_grad_norm_([w], 1.0) == 0.0  # no gradients: nothing to clip
    w.grad = np.array([3.0, 4.0])
    assert math.isclose(optim.clip_grad_norm_(w, 1.0), 5.0)  # one tensor works too
    np.testing.assert_allclose(w.grad, [0.6, 0.8], rtol=1e-5)
