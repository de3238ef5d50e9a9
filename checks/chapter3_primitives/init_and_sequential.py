"""Chapter 3, exercises 3.6–3.7: initialisation, and Sequential with a first trained network."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from checks.chapter3_primitives.common import Affine, F, array_of, fw, init, names, nn, seeds, small_shapes
from checks.harness import assert_close, check, check_gradients, probe

# -- 3.6 initialisation ---------------------------------------------------------------------------


@probe("3.6")
def probe_init(fw):
    fw.manual_seed(0)
    weight = nn.Parameter(np.zeros((2, 3), dtype=np.float32))
    return {"kaiming_uniform_ of (2, 3)": init.kaiming_uniform_(weight).data}


weight_shapes = st.one_of(
    st.tuples(st.integers(1, 6), st.integers(1, 6)),
    st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 3), st.integers(1, 3)),
)
GAINS = {"linear": lambda a: 1.0, "tanh": lambda a: 5 / 3, "relu": lambda a: math.sqrt(2.0),
         "leaky_relu": lambda a: math.sqrt(2.0 / (1 + a * a))}


def fans(shape) -> tuple[int, int]:
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


def fresh_weight(shape):
    return nn.Parameter(np.zeros(shape, dtype=np.float32))


@check("3.6")
@given(shape=weight_shapes, seed=seeds, gain=st.sampled_from([1.0, 5 / 3, 0.5]))
@example(shape=(3, 5), seed=0, gain=1.0)
def test_xavier_uniform_draws_from_the_shared_generator(shape, seed, gain):
    """xavier_uniform_(w, gain) fills w in place with U(±gain·√(6/(fan_in + fan_out)))."""
    weight = fresh_weight(shape)
    fw.manual_seed(seed)
    returned = init.xavier_uniform_(weight, gain=gain)
    fan_in, fan_out = fans(shape)
    limit = gain * math.sqrt(6.0 / (fan_in + fan_out))
    expected = np.random.default_rng(seed).uniform(-limit, limit, shape).astype(np.float32)
    assert returned is weight and weight.dtype == np.float32, (
        "initialisers fill the tensor in place, keep its dtype, and return it"
    )
    assert_close(weight.data, expected, f"xavier_uniform_ of shape {shape}, gain {gain:.3g} "
                 f"(bound {limit:.4g}), after manual_seed({seed})")


@check("3.6")
@given(shape=weight_shapes, seed=seeds, mode=st.sampled_from(["fan_in", "fan_out"]),
       nonlinearity=st.sampled_from(sorted(GAINS)), a=st.sampled_from([0.0, 0.01, 0.2]))
@example(shape=(3, 5), seed=0, mode="fan_in", nonlinearity="relu", a=0.0)
@example(shape=(3, 5), seed=0, mode="fan_out", nonlinearity="leaky_relu", a=0.2)
def test_kaiming_uniform_draws_from_the_shared_generator(shape, seed, mode, nonlinearity, a):
    """kaiming_uniform_ fills w in place with U(±gain·√(3/fan)), fan_in or fan_out by mode."""
    weight = fresh_weight(shape)
    fw.manual_seed(seed)
    returned = init.kaiming_uniform_(weight, a=a, mode=mode, nonlinearity=nonlinearity)
    fan = fans(shape)[0 if mode == "fan_in" else 1]
    bound = GAINS[nonlinearity](a) * math.sqrt(3.0 / fan)
    expected = np.random.default_rng(seed).uniform(-bound, bound, shape).astype(np.float32)
    assert returned is weight and weight.dtype == np.float32, (
        "initialisers fill the tensor in place, keep its dtype, and return it"
    )
    assert_close(weight.data, expected, f"kaiming_uniform_(shape {shape}, a={a}, mode={mode!r}, "
                 f"nonlinearity={nonlinearity!r}): bound {bound:.4g}, after manual_seed({seed})")


@check("3.6")
def test_init_bounds_and_variance_on_large_weights():
    """On a (64, 400) and a (400, 64) weight: values within the bound, reaching it, variance b²/3."""
    for shape in ((64, 400), (400, 64)):
        fan_in, fan_out = shape[1], shape[0]
        for name, fill, bound in (
            ("xavier_uniform_", init.xavier_uniform_, math.sqrt(6.0 / (fan_in + fan_out))),
            ("kaiming_uniform_ (relu, fan_in)",
             lambda w: init.kaiming_uniform_(w, nonlinearity="relu"), math.sqrt(6.0 / fan_in)),
            ("kaiming_uniform_ (relu, fan_out)",
             lambda w: init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu"),
             math.sqrt(6.0 / fan_out)),
        ):
            values = fill(fresh_weight(shape)).data
            largest, variance = float(np.abs(values).max()), float(values.var())
            assert 0.95 * bound < largest <= bound * (1 + 1e-6), (
                f"{name} of shape {shape}: largest |value| {largest:.4g}, bound {bound:.4g}"
            )
            assert abs(variance / (bound**2 / 3) - 1) < 0.1, (
                f"{name} of shape {shape}: variance {variance:.4g}, expected b²/3 = "
                f"{bound**2 / 3:.4g}"
            )


# -- 3.7 Sequential, and a first trained network --------------------------------------------------------


class AddOne(nn.Module):
    def forward(self, x):
        return x + 1.0


class Double(nn.Module):
    def forward(self, x):
        return x * 2.0


@probe("3.7")
def probe_sequential(fw):
    model = nn.Sequential(AddOne(), Double())
    return {"Sequential(AddOne, Double)([1, 2])": model(fw.Tensor([1.0, 2.0])).data}


@check("3.7")
@given(x=small_shapes.flatmap(array_of))
def test_sequential_applies_its_modules_in_order(x):
    """Sequential(a, b, c)(x) = c(b(a(x))): (x + 1)·2 is not x·2 + 1."""
    t = fw.Tensor(x)
    assert_close(nn.Sequential(AddOne(), Double())(t).data, (x + 1) * 2,
                 "Sequential(AddOne(), Double())")
    assert_close(nn.Sequential(Double(), AddOne(), Double())(t).data, (x * 2 + 1) * 2,
                 "Sequential(Double(), AddOne(), Double())")
    assert_close(nn.Sequential(AddOne())(t).data, x + 1, "Sequential(AddOne())")


@check("3.7")
def test_sequential_registers_its_modules_as_0_1_2():
    """Sequential's modules are its children "0", "1", …: parameters, indexing, len, iteration."""
    first, second = Affine(3), Affine(3, 1.0)
    model = nn.Sequential(first, AddOne(), second)
    expected = ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert names(model) == expected, f"parameter names {names(model)}, expected {expected}"
    assert len(model) == 3 and model[0] is first and model[2] is second, "len and indexing"
    assert [type(m).__name__ for m in model] == ["Affine", "AddOne", "Affine"], "iteration"
    assert list(model.state_dict()) == expected, f"state_dict keys {list(model.state_dict())}"


@check("3.7")
@given(seed=seeds)
def test_gradients_flow_through_a_sequential(seed):
    """The gradient of Sequential(Affine, Tanh, Affine) with respect to x and every parameter."""
    model = nn.Sequential(Affine(3), nn.Tanh(), Affine(3, 1.0)).to(np.float64)
    x = fw.Tensor(np.random.default_rng(seed).standard_normal((2, 3)), requires_grad=True)
    check_gradients(lambda: model(x), [x] + list(model.parameters()), seed,
                    "Sequential(Affine, Tanh, Affine)", rtol=1e-3, atol=1e-5)


@check("3.7")
def test_mlp_learns_two_moons():
    """An MLP of the learner's Linear, ReLU and Sequential reaches 97% on two moons in 500 steps."""
    X, y = fw.data.make_moons(200, noise=0.1, seed=0)
    fw.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                          nn.Linear(16, 2))
    inputs, best, losses = fw.Tensor(X), 0.0, []
    for _ in range(500):
        model.zero_grad()
        logits = model(inputs)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        for p in model.parameters():
            p.data -= 0.5 * p.grad
        losses.append(loss.item())
        best = max(best, float((logits.data.argmax(axis=1) == y).mean()))
        if best >= 0.97:
            break
    assert best >= 0.97, (
        f"after {len(losses)} plain gradient steps (lr 0.5) the MLP reached {best:.1%} accuracy; "
        f"losses went {losses[0]:.3f} → {losses[-1]:.3f}"
    )
