"""Chapter 3, exercises 3.1–3.2: Module registration, and the Linear layer."""

from __future__ import annotations

import math
import os
import tempfile

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from checks.chapter3_primitives.common import Affine, fw, names, nn, seeds
from checks.harness import assert_close, check, check_gradients, probe

# -- modules written here, so 3.1 is graded without Linear or Sequential -----------------------


class Block(nn.Module):
    """A parameter of its own, then two submodules."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(np.array([2.0, 3.0, 4.0]))
        self.inner = Affine(3, 1.0)
        self.head = Affine(3, 2.0)

    def forward(self, x):
        return self.head(self.inner(x * self.scale))


class Deep(nn.Module):
    """A submodule assigned before a parameter: parameters of self still come first."""

    def __init__(self) -> None:
        super().__init__()
        self.block = Block()
        self.gain = nn.Parameter(np.array([0.5, 0.25, 0.125]))

    def forward(self, x):
        return self.block(x) * self.gain


DEEP_NAMES = ["gain", "block.scale", "block.inner.weight", "block.inner.bias",
              "block.head.weight", "block.head.bias"]


class Node(nn.Module):
    """A tree from a spec (number of parameters, [child specs]); p0, p1, … then c0, c1, …."""

    def __init__(self, spec) -> None:
        super().__init__()
        count, children = spec
        for i in range(count):
            setattr(self, f"p{i}", nn.Parameter(np.full(2, float(i))))
        for i, child in enumerate(children):
            setattr(self, f"c{i}", Node(child))


def expected_names(spec, prefix: str = "") -> list[str]:
    count, children = spec
    own = [f"{prefix}p{i}" for i in range(count)]
    return own + [n for i, c in enumerate(children) for n in expected_names(c, f"{prefix}c{i}.")]


trees = st.recursive(
    st.tuples(st.integers(0, 2), st.just([])),
    lambda kids: st.tuples(st.integers(0, 2), st.lists(kids, max_size=3)),
    max_leaves=8,
)


# -- 3.1 Module registration -------------------------------------------------------------------


@probe("3.1")
def probe_registration(fw):
    return {"named_parameters of Deep": names(Deep())}


@check("3.1")
def test_assigned_parameters_are_registered_in_order():
    """self.weight = Parameter(...) registers it under "weight", the object itself, unchanged."""
    module = Affine(3)
    listed = dict(module.named_parameters())
    assert list(listed) == ["weight", "bias"], (
        f"Affine assigns weight then bias; named_parameters gave {list(listed)}"
    )
    assert listed["weight"] is module.weight and listed["bias"] is module.bias, (
        "named_parameters must yield the Parameter objects themselves, not copies"
    )
    assert_close(listed["weight"].data, np.linspace(0.5, 1.5, 3), "the registered weight's data")
    assert_close(listed["bias"].data, np.linspace(-0.5, 0.5, 3), "the registered bias's data")
    assert module.label == "not a parameter", "a plain attribute keeps its value"


@check("3.1")
def test_nested_parameters_have_dotted_names():
    """Parameters of submodules are found at any depth, named by their dotted path."""
    model = Deep()
    assert names(model) == DEEP_NAMES, (
        f"expected {DEEP_NAMES} (own parameters first, then each submodule's with the prefix "
        f"'name.'), got {names(model)}"
    )
    listed = dict(model.named_parameters())
    assert listed["block.inner.bias"] is model.block.inner.bias, "the nested objects themselves"


@check("3.1")
@given(spec=trees)
@example(spec=(1, [(0, [(2, [])]), (1, [])]))
def test_named_parameters_of_any_tree(spec):
    """For a random tree of modules, the names are a pre-order walk: own parameters, then children."""
    got = names(Node(spec))
    assert got == expected_names(spec), f"tree {spec}: expected {expected_names(spec)}, got {got}"


@check("3.1")
def test_parameters_yields_the_same_objects_as_named_parameters():
    """parameters() lists every parameter of the tree, the same objects in the same order."""
    model = Deep()
    listed = list(model.parameters())
    named = [p for _, p in model.named_parameters()]
    assert len(listed) == len(DEEP_NAMES), f"expected {len(DEEP_NAMES)} parameters, got {len(listed)}"
    assert all(a is b for a, b in zip(listed, named)), "parameters() and named_parameters() differ"
    assert all(isinstance(p, nn.Parameter) for p in listed), "parameters() yields Parameters"


@check("3.1")
def test_only_parameters_and_modules_are_registered():
    """A plain Tensor (even one that requires grad), an array or a number is not a parameter."""
    module = Affine(2)
    module.buffer = fw.Tensor(np.ones(2), requires_grad=True)
    module.table = np.ones(3)
    module.rate = 0.5
    assert names(module) == ["weight", "bias"], (
        f"only Parameters are parameters; got {names(module)}"
    )
    assert isinstance(module.buffer, fw.Tensor) and module.rate == 0.5, "attributes still work"


@check("3.1")
def test_reassigning_a_name_unregisters_the_old_value():
    """Assigning None or a plain value to a parameter's or module's name unregisters it."""
    model = Block()
    model.scale = None
    assert model.scale is None and "scale" not in names(model), (
        f"after model.scale = None, 'scale' should be gone: {names(model)}"
    )
    model.inner = "replaced"
    assert names(model) == ["head.weight", "head.bias"], (
        f"after model.inner = 'replaced', only head's parameters remain: {names(model)}"
    )
    model.scale = nn.Parameter(np.zeros(3))
    assert names(model) == ["scale", "head.weight", "head.bias"], (
        f"a re-registered parameter comes back: {names(model)}"
    )


@check("3.1")
def test_shared_parameter_is_listed_once():
    """A Parameter used by two submodules appears once, under its first name (as PyTorch)."""
    model = Block()
    model.head.weight = model.inner.weight
    assert names(model) == ["scale", "inner.weight", "inner.bias", "head.bias"], (
        f"a shared parameter must be listed once (an optimizer would step it twice): "
        f"{names(model)}"
    )


class Twice(nn.Module):
    """One module registered under two names, as in Sequential(layer, Tanh(), layer)."""

    def __init__(self) -> None:
        super().__init__()
        self.first = Affine(3)
        self.gain = nn.Parameter(np.array([0.5, 0.25, 0.125]))
        self.again = self.first

    def forward(self, x):
        return self.again(self.first(x) * self.gain)


@check("3.1")
def test_parameters_yields_a_shared_parameter_once():
    """parameters() itself, on a model that uses one module twice: each parameter once."""
    model = Twice()
    listed = list(model.parameters())
    expected = [model.gain, model.first.weight, model.first.bias]
    assert len(listed) == 3 and all(a is b for a, b in zip(listed, expected)), (
        f"a model with one Affine used twice has 3 parameters; parameters() gave {len(listed)} "
        "(an optimizer would step a shared weight twice: skip a parameter already yielded)"
    )


@check("3.1")
def test_state_dict_round_trip_through_a_file():
    """state_dict has every dotted name; save, load and load_state_dict restore the values."""
    source, target = Deep(), Deep()
    for parameter in target.parameters():
        parameter.data = parameter.data * 0
    state = source.state_dict()
    assert list(state) == DEEP_NAMES, f"state_dict keys: {list(state)}"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.npz")
        nn.save(source, path)
        target.load_state_dict(nn.load(path))
    for name, parameter in target.named_parameters():
        assert_close(parameter.data, state[name], f"{name} after loading")


@check("3.1")
def test_strict_loading_names_the_bad_keys():
    """Loading with a key missing, an unexpected key or a wrong shape fails and names the key."""
    model = Deep()
    state = model.state_dict()
    bad_states = {
        "missing": ({k: v for k, v in state.items() if k != "block.inner.bias"},
                    "block.inner.bias"),
        "unexpected": ({**state, "block.extra": np.zeros(3)}, "block.extra"),
        "mis-shaped": ({**state, "block.head.weight": np.zeros((3, 1))}, "block.head.weight"),
    }
    for kind, (bad, key) in bad_states.items():
        try:
            model.load_state_dict(bad)
        except (RuntimeError, KeyError, ValueError) as error:
            assert key in str(error), f"the {kind} key error should name {key!r}: {error}"
        else:
            raise AssertionError(f"load_state_dict accepted a state dict with a {kind} key {key!r}")


@check("3.1")
def test_train_and_eval_reach_every_submodule():
    """eval() and train() set `training` on the module and every descendant."""
    model = Deep()
    model.eval()
    flags = [m.training for m in (model, model.block, model.block.inner, model.block.head)]
    assert flags == [False] * 4, f"after eval(), training flags {flags}"
    model.train()
    flags = [m.training for m in (model, model.block, model.block.inner, model.block.head)]
    assert flags == [True] * 4, f"after train(), training flags {flags}"


@check("3.1")
def test_zero_grad_and_to_reach_nested_parameters():
    """zero_grad() clears every nested grad; to(np.float32) casts every nested parameter."""
    model = Deep()
    model(fw.Tensor(np.ones(3))).sum().backward()
    assert all(p.grad is not None for p in model.parameters()), "backward filled every grad"
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters()), "zero_grad() sets every .grad to None"
    model.to(np.float32)
    dtypes = {name: p.data.dtype for name, p in model.named_parameters()}
    assert all(d == np.float32 for d in dtypes.values()), f"after to(np.float32): {dtypes}"


# -- 3.2 the Linear layer -------------------------------------------------------------------------


@probe("3.2")
def probe_linear(fw):
    fw.manual_seed(0)
    layer = nn.Linear(3, 2)
    return {"weight shape": layer.weight.shape,
            "Linear(3, 2)([1, 2, 3])": layer(fw.Tensor([1.0, 2.0, 3.0])).data}


def seeded_linear(seed: int, n_in: int, n_out: int, bias: bool = True):
    fw.manual_seed(seed)
    return nn.Linear(n_in, n_out, bias=bias)


@check("3.2")
def test_linear_weight_is_out_by_in_and_bias_out():
    """Linear(4, 3): weight (3, 4) and bias (3,), float32 Parameters named weight and bias."""
    layer = nn.Linear(4, 3)
    assert isinstance(layer.weight, nn.Parameter) and isinstance(layer.bias, nn.Parameter), (
        "weight and bias must be Parameters"
    )
    assert layer.weight.shape == (3, 4), f"weight shape {layer.weight.shape}, expected (out, in)"
    assert layer.bias.shape == (3,), f"bias shape {layer.bias.shape}, expected (out,)"
    assert layer.weight.dtype == np.float32 and layer.bias.dtype == np.float32, "float32"
    assert names(layer) == ["weight", "bias"], f"parameters {names(layer)}"


@check("3.2")
@given(seed=seeds, n_in=st.integers(1, 5), n_out=st.integers(1, 5))
def test_linear_without_bias_has_no_bias(seed, n_in, n_out):
    """Linear(..., bias=False): bias is None, only the weight is a parameter, y = x Wᵀ."""
    layer = seeded_linear(seed, n_in, n_out, bias=False)
    assert layer.bias is None and names(layer) == ["weight"], (
        f"with bias=False: bias {layer.bias!r}, parameters {names(layer)}"
    )
    x = np.random.default_rng(seed).standard_normal((2, n_in)).astype(np.float32)
    assert_close(layer(fw.Tensor(x)).data, x @ layer.weight.data.T, "Linear without bias: x Wᵀ")


@check("3.2")
@given(seed=seeds, n_in=st.integers(1, 6), n_out=st.integers(1, 6), bias=st.booleans())
@example(seed=0, n_in=3, n_out=5, bias=True)
def test_linear_init_draws_from_the_shared_generator(seed, n_in, n_out, bias):
    """After manual_seed(s): weight, then bias, are default_rng(s).uniform(-1/√in, 1/√in, shape)."""
    layer = seeded_linear(seed, n_in, n_out, bias)
    rng, bound = np.random.default_rng(seed), 1 / math.sqrt(n_in)
    weight = rng.uniform(-bound, bound, (n_out, n_in)).astype(np.float32)
    assert_close(layer.weight.data, weight, f"Linear({n_in}, {n_out}) weight after "
                 f"manual_seed({seed}): draw it first, from default_generator()")
    if bias:
        expected = rng.uniform(-bound, bound, n_out).astype(np.float32)
        assert_close(layer.bias.data, expected, f"Linear({n_in}, {n_out}) bias after "
                     f"manual_seed({seed}): drawn right after the weight")


@check("3.2")
def test_linear_init_bound_is_one_over_sqrt_fan_in():
    """Weights and biases fill U(-1/√in, 1/√in): within the bound, reaching it, variance b²/3."""
    for n_in, n_out in ((16, 400), (400, 16)):
        fw.manual_seed(n_in)
        layer = nn.Linear(n_in, n_out)
        bound = 1 / math.sqrt(n_in)
        for what, values in (("weight", layer.weight.data), ("bias", layer.bias.data)):
            largest = float(np.abs(values).max())
            reaches = largest > 0.9 * bound or values.size < 100  # 16 draws may stay short
            assert largest <= bound * (1 + 1e-6) and reaches, (
                f"Linear({n_in}, {n_out}).{what}: largest |value| {largest:.4g}, expected just "
                f"under 1/√in_features = {bound:.4g}"
            )
        variance = float(layer.weight.data.var())
        assert abs(variance / (bound**2 / 3) - 1) < 0.1, (
            f"Linear({n_in}, {n_out}).weight variance {variance:.4g}, U(-b, b) has b²/3 = "
            f"{bound**2 / 3:.4g}"
        )


batch_shapes = array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)


@check("3.2")
@given(seed=seeds, batch=batch_shapes, n_in=st.integers(1, 4), n_out=st.integers(1, 4),
       bias=st.booleans())
@example(seed=0, batch=(), n_in=3, n_out=2, bias=True)
@example(seed=1, batch=(2, 3), n_in=4, n_out=2, bias=True)
def test_linear_forward_matches_numpy(seed, batch, n_in, n_out, bias):
    """y = x Wᵀ + b for x of shape (..., in): any number of batch axes, float32 in and out."""
    layer = seeded_linear(seed, n_in, n_out, bias)
    x = np.random.default_rng(seed).standard_normal(batch + (n_in,)).astype(np.float32)
    out = layer(fw.Tensor(x))
    expected = x.astype(np.float64) @ layer.weight.data.T.astype(np.float64)
    if bias:
        expected = expected + layer.bias.data
    assert out.dtype == np.float32, f"float32 input and weights gave {out.dtype}"
    assert_close(out.data, expected, f"Linear({n_in}, {n_out}, bias={bias}) on x of shape "
                 f"{x.shape}", rtol=1e-5, atol=1e-5)


@check("3.2")
@given(seed=seeds, batch=batch_shapes, n_in=st.integers(1, 4), n_out=st.integers(1, 4),
       bias=st.booleans())
@example(seed=0, batch=(), n_in=3, n_out=2, bias=True)
@example(seed=1, batch=(2, 3), n_in=4, n_out=2, bias=True)
def test_linear_gradients(seed, batch, n_in, n_out, bias):
    """∂x = G W, ∂W = Gᵀ x and ∂b = Σ G, summed over every batch axis (float64)."""
    layer = seeded_linear(seed, n_in, n_out, bias).to(np.float64)
    x = fw.Tensor(np.random.default_rng(seed).standard_normal(batch + (n_in,)), requires_grad=True)
    leaves = [x] + list(layer.parameters())
    check_gradients(lambda: layer(x), leaves, seed,
                    f"Linear({n_in}, {n_out}, bias={bias}) on x of shape {x.shape}")
