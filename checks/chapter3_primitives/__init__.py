"""Chapter 3 grader: modules, layers, losses, initialisers, and a first trained network.

Every function, loss and layer is gradient-checked through its `grad_fn` with the
graders' own walk and a random cotangent, against float64 central differences;
forward values are compared with NumPy formulas written here; softmax and the losses
are run at logits of ±1e4. The module checks (3.1) use modules defined here, and
3.3–3.6 call the functions directly, so each exercise is graded on its own; 3.7
builds on the learner's Module, Linear and cross-entropy, as a network does.
"""

from __future__ import annotations

import importlib
import math
import os
import tempfile

import numpy as np
from hypothesis import assume, example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from checks.harness import (
    assert_close,
    backprop,
    check,
    check_gradients,
    framework,
    gradient_check,
    probe,
)

fw = framework()
nn = importlib.import_module(f"{fw.__name__}.nn")
F = importlib.import_module(f"{fw.__name__}.nn.functional")
init = importlib.import_module(f"{fw.__name__}.nn.init")

seeds = st.integers(0, 2**32 - 1)
reals = st.floats(-3.0, 3.0)
small_shapes = array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)
REDUCTIONS = ["mean", "sum", "none"]


def array_of(shape, elements=reals):
    return arrays(np.float64, shape, elements=elements)


def names(module) -> list[str]:
    return [name for name, _ in module.named_parameters()]


# -- modules written here, so 3.1 is graded without Linear or Sequential -----------------------


class Affine(nn.Module):
    """x · weight + bias, elementwise, with known starting values."""

    def __init__(self, size: int = 3, start: float = 0.0) -> None:
        super().__init__()
        self.weight = nn.Parameter(np.linspace(start + 0.5, start + 1.5, size))
        self.bias = nn.Parameter(np.linspace(start - 0.5, start + 0.5, size))
        self.label = "not a parameter"

    def forward(self, x):
        return x * self.weight + self.bias


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


# -- 3.3 softmax and log-softmax ----------------------------------------------------------------------


@probe("3.3")
def probe_softmax(fw):
    x = fw.Tensor([1.0, 2.0, 3.0])
    return {"softmax([1, 2, 3])": lambda: F.softmax(x).data,
            "log_softmax([1, 2, 3])": lambda: F.log_softmax(x).data}


def reference_log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


@st.composite
def with_axis(draw, elements=reals):
    x = draw(small_shapes.flatmap(lambda s: array_of(s, elements)))
    return x, draw(st.integers(-x.ndim, x.ndim - 1))


HUGE = np.array([[1e4, 0.0, -1e4], [1e4, 1e4, 1e4], [-1e4, -1e4, 1e4 - 1], [-1e4, 3.0, -1e4]])


@check("3.3")
@given(case=with_axis())
@example(case=(np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]), 0))
def test_softmax_and_log_softmax_forward_match_numpy(case):
    """softmax = exp(log_softmax) with log_softmax = x - log Σ eˣ along any axis, float32 kept."""
    x, axis = case
    expected = reference_log_softmax(x, axis)
    assert_close(F.log_softmax(fw.Tensor(x), axis=axis).data, expected,
                 f"log_softmax of shape {x.shape} along axis {axis}")
    assert_close(F.softmax(fw.Tensor(x), axis=axis).data, np.exp(expected),
                 f"softmax of shape {x.shape} along axis {axis}")
    x32 = fw.Tensor(x.astype(np.float32))
    for name, fn in (("softmax", F.softmax), ("log_softmax", F.log_softmax)):
        dtype = fn(x32, axis=axis).dtype
        assert dtype == np.float32, f"{name} of float32 logits gave {dtype}"


@check("3.3")
@given(case=with_axis(), seed=seeds)
@example(case=(np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]]), -1), seed=0)
@example(case=(np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]]), 0), seed=1)
def test_softmax_gradient(case, seed):
    """softmax's backward s ⊙ (g - Σ g ⊙ s) matches central differences along any axis."""
    x, axis = case
    gradient_check(lambda t: F.softmax(t, axis=axis), [x], seed,
                   f"softmax of shape {x.shape} along axis {axis}")


@check("3.3")
@given(case=with_axis(), seed=seeds)
@example(case=(np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]]), -1), seed=0)
@example(case=(np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]]), 0), seed=1)
def test_log_softmax_gradient(case, seed):
    """log_softmax's backward g - softmax ⊙ Σ g matches central differences along any axis."""
    x, axis = case
    gradient_check(lambda t: F.log_softmax(t, axis=axis), [x], seed,
                   f"log_softmax of shape {x.shape} along axis {axis}")


@check("3.3")
@given(axis=st.sampled_from([0, 1, -1]), seed=seeds, dtype=st.sampled_from([np.float32, np.float64]))
def test_softmax_and_log_softmax_are_stable_at_1e4(axis, seed, dtype):
    """At logits of ±1e4 both are finite and exact, and so are their backward passes.

    Exact to a few units in the last place of 1e4 in the input's dtype (float32's are 1e-3):
    x - (max + log Σ e^(x - max)) is as right as (x - max) - log Σ e^(x - max).
    """
    x = HUGE.astype(dtype)
    atol = max(1e-4, 4 * float(np.finfo(dtype).eps) * 1e4)
    expected = reference_log_softmax(HUGE, axis)
    cotangent = np.random.default_rng(seed).standard_normal(x.shape)
    s = np.exp(expected)
    for name, fn, out_expected, grad_expected in (
        ("softmax", F.softmax, s, s * (cotangent - (cotangent * s).sum(axis=axis, keepdims=True))),
        ("log_softmax", F.log_softmax, expected,
         cotangent - s * cotangent.sum(axis=axis, keepdims=True)),
    ):
        leaf = fw.Tensor(x, requires_grad=True)
        out = fn(leaf, axis=axis)
        assert np.all(np.isfinite(out.data)), (
            f"{name} of logits ±1e4 along axis {axis} ({np.dtype(dtype)}) is not finite: "
            f"{out.data} (subtract the max before exponentiating; never take log of a softmax)"
        )
        assert_close(out.data, out_expected, f"{name} of logits ±1e4 along axis {axis}",
                     rtol=1e-5, atol=atol)
        grad = backprop(out, cotangent.astype(dtype)).get(id(leaf))
        assert grad is not None and np.all(np.isfinite(grad)), (
            f"{name}'s gradient at logits ±1e4 is not finite: {grad}"
        )
        assert grad.dtype == dtype, f"{name}: a {np.dtype(dtype)} input got a {grad.dtype} gradient"
        assert_close(grad, grad_expected, f"{name}'s gradient at logits ±1e4 along axis {axis}",
                     rtol=1e-4, atol=atol)


# -- 3.4 cross-entropy -------------------------------------------------------------------------------


@probe("3.4")
def probe_cross_entropy(fw):
    logits = fw.Tensor([[2.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
    return {"cross_entropy": F.cross_entropy(logits, np.array([0, 2])).item()}


def reference_cross_entropy(x, targets, ignore_index, reduction, smoothing):
    """PyTorch's definition, in float64."""
    log_p = reference_log_softmax(x, 1)
    keep = targets != ignore_index
    picked = -log_p[np.arange(len(targets)), np.where(keep, targets, 0)]
    losses = np.where(keep, (1 - smoothing) * picked - smoothing * log_p.mean(axis=1), 0.0)
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / keep.sum()


@st.composite
def classification(draw, ignoring: bool = True):
    """Logits (N, C), row-major or column-major (a transposed array's layout), targets (N,), and
    an ignore_index that some rows (never all) carry."""
    n, c = draw(st.integers(1, 5)), draw(st.integers(2, 5))
    logits = draw(array_of((n, c)))
    if draw(st.booleans()):
        logits = np.asfortranarray(logits)
    targets = draw(arrays(np.int64, (n,), elements=st.integers(0, c - 1)))
    ignore_index = draw(st.sampled_from([-100, -1, 0]))
    if ignoring:
        dropped = draw(arrays(np.bool_, (n,)))
        dropped[0] = False
        targets[dropped] = ignore_index
    if targets[0] == ignore_index:
        targets[0] = c - 1
    return logits, targets, ignore_index


smoothings = st.sampled_from([0.0, 0.0, 0.1, 0.3])
PINNED = (np.array([[2.0, 0.0, -1.0], [0.0, 1.0, 0.5], [1.0, -2.0, 0.0], [0.3, 0.2, 0.1]]),
          np.array([0, -100, 2, 1]), -100)


@check("3.4")
@given(case=classification(), reduction=st.sampled_from(REDUCTIONS), smoothing=smoothings)
@example(case=PINNED, reduction="mean", smoothing=0.0)
@example(case=PINNED, reduction="none", smoothing=0.1)
def test_cross_entropy_matches_numpy(case, reduction, smoothing):
    """-log softmax[target] per row, ignored rows 0, label smoothing; mean/sum/none as PyTorch."""
    logits, targets, ignore_index = case
    out = F.cross_entropy(fw.Tensor(logits), targets, ignore_index=ignore_index,
                          reduction=reduction, label_smoothing=smoothing)
    expected = reference_cross_entropy(logits, targets, ignore_index, reduction, smoothing)
    assert_close(out.data, expected, f"cross_entropy(logits {logits.shape}, targets "
                 f"{targets.tolist()}, ignore_index={ignore_index}, reduction={reduction!r}, "
                 f"label_smoothing={smoothing})")


@check("3.4")
def test_mean_divides_by_the_rows_not_ignored():
    """With 2 of 4 rows ignored, "mean" is the sum over the other 2 divided by 2, not by 4."""
    logits, targets = PINNED[0], np.array([0, -100, -100, 1])
    total = reference_cross_entropy(logits, targets, -100, "sum", 0.0)
    got = F.cross_entropy(fw.Tensor(logits), targets).item()
    assert_close(got, total / 2, "mean cross-entropy with 2 rows of 4 ignored (sum / 2)")
    for ignore_index in (-100, 0, 2):
        targets = np.array([0, 2, 1, ignore_index])
        logits32 = fw.Tensor(logits.astype(np.float32))
        out = F.cross_entropy(logits32, targets, ignore_index=ignore_index, reduction="none")
        assert out.dtype == np.float32, f"float32 logits gave {out.dtype} losses"
        expected = reference_cross_entropy(logits, targets, ignore_index, "none", 0.0)
        assert_close(out.data, expected, f"per-row losses with ignore_index={ignore_index}",
                     atol=1e-5)


@check("3.4")
@given(case=classification(ignoring=False), reduction=st.sampled_from(REDUCTIONS), seed=seeds)
def test_cross_entropy_gradient(case, reduction, seed):
    """(softmax - onehot) · gᵢ per row, for each reduction, without ignored rows."""
    logits, targets, _ = case
    gradient_check(lambda z: F.cross_entropy(z, targets, reduction=reduction), [logits], seed,
                   f"cross_entropy(reduction={reduction!r}), targets {targets.tolist()}")


@check("3.4")
@given(case=classification(), reduction=st.sampled_from(REDUCTIONS), smoothing=smoothings,
       seed=seeds)
@example(case=PINNED, reduction="mean", smoothing=0.0, seed=0)
@example(case=PINNED, reduction="sum", smoothing=0.3, seed=1)
def test_cross_entropy_gradient_with_ignore_index_and_smoothing(case, reduction, smoothing, seed):
    """Ignored rows get zero gradient; smoothing ε gives softmax - (1-ε)·onehot - ε/C."""
    logits, targets, ignore_index = case
    gradient_check(
        lambda z: F.cross_entropy(z, targets, ignore_index=ignore_index, reduction=reduction,
                                  label_smoothing=smoothing),
        [logits], seed, f"cross_entropy(targets {targets.tolist()}, ignore_index={ignore_index}, "
        f"reduction={reduction!r}, label_smoothing={smoothing})")


@check("3.4")
@given(smoothing=st.sampled_from([0.0, 0.1]), dtype=st.sampled_from([np.float32, np.float64]))
def test_cross_entropy_is_stable_at_1e4_and_extreme_one_hot(smoothing, dtype):
    """Logits of ±1e4 give exact finite losses and gradients, right or confidently wrong."""
    logits = np.array([[1e4, 0.0, -1e4], [-1e4, 1e4, 0.0], [1e4, -1e4, -1e4], [0.0, 0.0, 0.0]])
    targets = np.array([0, 0, 0, 2])
    leaf = fw.Tensor(logits.astype(dtype), requires_grad=True)
    out = F.cross_entropy(leaf, targets, reduction="none", label_smoothing=smoothing)
    expected = reference_cross_entropy(logits, targets, -100, "none", smoothing)
    assert np.all(np.isfinite(out.data)), f"cross_entropy at logits ±1e4 is not finite: {out.data}"
    assert_close(out.data, expected, f"cross_entropy at logits ±1e4 ({np.dtype(dtype)}), "
                 f"label_smoothing={smoothing}", rtol=1e-5, atol=1e-3)
    grad = backprop(out, np.ones(4, dtype=dtype)).get(id(leaf))
    q = (1 - smoothing) * np.eye(3)[targets] + smoothing / 3
    assert grad is not None and np.all(np.isfinite(grad)), f"gradient at ±1e4: {grad}"
    assert grad.dtype == dtype, f"{np.dtype(dtype)} logits got a {grad.dtype} gradient"
    assert_close(grad, np.exp(reference_log_softmax(logits, 1)) - q,
                 "cross_entropy's gradient at logits ±1e4 (softmax - target distribution)",
                 atol=1e-5)


# -- 3.5 MSE and binary cross-entropy ------------------------------------------------------------------


@probe("3.5")
def probe_mse_and_bce(fw):
    x, y = fw.Tensor([0.5, -1.0, 2.0]), fw.Tensor([1.0, 0.0, 1.0])
    return {"mse_loss": lambda: F.mse_loss(x, y).item(),
            "binary_cross_entropy_with_logits":
                lambda: F.binary_cross_entropy_with_logits(x, y).item()}


def reduce(losses: np.ndarray, reduction: str):
    return losses if reduction == "none" else losses.sum() if reduction == "sum" else losses.mean()


@st.composite
def pairs(draw, second=reals):
    shape = draw(array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4))
    return draw(array_of(shape)), draw(array_of(shape, second))


probabilities = st.floats(0.0, 1.0)


@check("3.5")
@given(xy=pairs(), reduction=st.sampled_from(REDUCTIONS))
def test_mse_loss_matches_numpy(xy, reduction):
    """(x - y)², then mean, sum or nothing; float32 kept."""
    x, y = xy
    out = F.mse_loss(fw.Tensor(x), fw.Tensor(y), reduction=reduction)
    assert_close(out.data, reduce((x - y) ** 2, reduction), f"mse_loss(reduction={reduction!r}) "
                 f"of shape {x.shape}")
    out32 = F.mse_loss(fw.Tensor(x.astype(np.float32)), fw.Tensor(y.astype(np.float32)))
    assert out32.dtype == np.float32, f"float32 inputs gave a {out32.dtype} loss"


@check("3.5")
@given(xy=pairs(), reduction=st.sampled_from(REDUCTIONS), seed=seeds)
@example(xy=(np.array([[0.5, -1.0], [2.0, 0.0]]), np.array([[1.0, 0.0], [1.5, -0.5]])),
         reduction="mean", seed=0)
def test_mse_loss_gradient(xy, reduction, seed):
    """∂x = 2(x - y)·g (÷ size for mean) and ∂y = -∂x, against central differences."""
    gradient_check(lambda a, b: F.mse_loss(a, b, reduction=reduction), list(xy), seed,
                   f"mse_loss(reduction={reduction!r})")


@check("3.5")
@given(xy=pairs(probabilities), reduction=st.sampled_from(REDUCTIONS))
def test_bce_with_logits_matches_numpy(xy, reduction):
    """-[y log σ(x) + (1 - y) log(1 - σ(x))] = log(1 + eˣ) - x·y, then reduced."""
    x, y = xy
    out = F.binary_cross_entropy_with_logits(fw.Tensor(x), fw.Tensor(y), reduction=reduction)
    expected = reduce(np.logaddexp(0.0, x) - x * y, reduction)
    assert_close(out.data, expected, f"binary_cross_entropy_with_logits(reduction={reduction!r})")
    out32 = F.binary_cross_entropy_with_logits(fw.Tensor(x.astype(np.float32)),
                                               fw.Tensor(y.astype(np.float32)))
    assert out32.dtype == np.float32, f"float32 inputs gave a {out32.dtype} loss"


@check("3.5")
@given(xy=pairs(probabilities), reduction=st.sampled_from(REDUCTIONS), seed=seeds)
@example(xy=(np.array([[0.5, -1.0], [2.0, 0.0]]), np.array([[1.0, 0.0], [0.3, 0.5]])),
         reduction="mean", seed=0)
def test_bce_with_logits_gradient(xy, reduction, seed):
    """∂x = (σ(x) - y)·g and ∂y = -x·g (÷ size for mean), against central differences."""
    gradient_check(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction),
                   list(xy), seed, f"binary_cross_entropy_with_logits(reduction={reduction!r})")


@check("3.5")
@given(reduction=st.sampled_from(REDUCTIONS), dtype=st.sampled_from([np.float32, np.float64]))
def test_bce_with_logits_is_stable_at_1e4(reduction, dtype):
    """At logits ±1e4 the loss is 0 when right and 1e4 when wrong, the gradient σ(x) - y."""
    x = np.array([1e4, -1e4, 1e4, -1e4, 0.0])
    y = np.array([1.0, 0.0, 0.0, 1.0, 0.5])
    leaf = fw.Tensor(x.astype(dtype), requires_grad=True)
    out = F.binary_cross_entropy_with_logits(leaf, fw.Tensor(y.astype(dtype)), reduction=reduction)
    expected = reduce(np.array([0.0, 0.0, 1e4, 1e4, math.log(2.0)]), reduction)
    assert np.all(np.isfinite(out.data)), f"BCE with logits at ±1e4 is not finite: {out.data}"
    assert_close(out.data, expected, f"BCE with logits at ±1e4 (reduction={reduction!r})",
                 rtol=1e-6, atol=1e-4)
    cotangent = np.ones(out.data.shape, dtype=dtype)
    grad = backprop(out, cotangent).get(id(leaf))
    scale = 1 / 5 if reduction == "mean" else 1.0
    assert grad.dtype == dtype, f"{np.dtype(dtype)} logits got a {grad.dtype} gradient"
    assert_close(grad, scale * np.array([0.0, 0.0, 1.0, -1.0, 0.0]),
                 f"BCE with logits' gradient at ±1e4 (reduction={reduction!r})")


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
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    expected = np.random.default_rng(seed).uniform(-bound, bound, shape).astype(np.float32)
    assert returned is weight and weight.dtype == np.float32, (
        "initialisers fill the tensor in place, keep its dtype, and return it"
    )
    assert_close(weight.data, expected, f"xavier_uniform_ of shape {shape}, gain {gain:.3g} "
                 f"(bound {bound:.4g}), after manual_seed({seed})")


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


# -- bonus track: graded apart from the 100 points ---------------------------------------------


def smooth():
    """`framework.nn.smooth`, the bonus file (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.nn.smooth")


def softplus_formula(x, beta):
    z = beta * np.asarray(x, dtype=np.float64)
    return (np.maximum(z, 0) + np.log1p(np.exp(-np.abs(z)))) / beta


betas = st.sampled_from([1.0, 1.0, 0.5, 2.0, 3.0])


# -- 3.8 (bonus) softplus ------------------------------------------------------------------------


@probe("3.8")
def probe_softplus(fw):
    x = fw.Tensor([-2.0, 0.0, 2.0])
    return {"softplus([-2, 0, 2])": lambda: smooth().softplus(x).data,
            "with beta 2": lambda: smooth().softplus(x, beta=2.0).data}


@check("3.8")
@given(x=small_shapes.flatmap(array_of), beta=betas, seed=seeds)
@example(x=np.array([-2.0, 0.0, 2.0]), beta=2.0, seed=0)
def test_softplus_value_and_gradient(x, beta, seed):
    """(1/β) ln(1 + e^(βx)) and its gradient g · σ(βx), by central differences."""
    what = f"softplus(beta={beta}) of shape {x.shape}"
    assert_close(smooth().softplus(fw.Tensor(x), beta=beta).data, softplus_formula(x, beta), what)
    gradient_check(lambda t: smooth().softplus(t, beta=beta), [x], seed, what)


@check("3.8")
@given(beta=betas, dtype=st.sampled_from([np.float32, np.float64]), seed=seeds)
def test_softplus_is_finite_and_exact_at_1e4(beta, dtype, seed):
    """At ±1e4: values 1e4 and 0, gradient g and 0, in the input's dtype, no inf or nan."""
    x = fw.Tensor(np.array([-1e4, 1e4], dtype=dtype), requires_grad=True)
    out = smooth().softplus(x, beta=beta)
    assert out.data.dtype == dtype, f"softplus of {np.dtype(dtype)} gave {out.data.dtype}"
    assert_close(out.data, [0.0, 1e4], f"softplus(beta={beta}) of [-1e4, 1e4]", rtol=1e-6)
    g = np.random.default_rng(seed).standard_normal(2).astype(dtype)
    grad = backprop(out, g).get(id(x))
    assert_close(grad, [0.0, g[1]], f"softplus(beta={beta})'s gradient at [-1e4, 1e4]")


# -- 3.9 (bonus) Huber loss ----------------------------------------------------------------------


def huber_formula(x, y, reduction, delta):
    d = np.asarray(x, dtype=np.float64) - y
    losses = np.where(np.abs(d) <= delta, 0.5 * d * d, delta * (np.abs(d) - 0.5 * delta))
    return {"none": losses, "sum": losses.sum(), "mean": losses.mean()}[reduction]


@st.composite
def huber_cases(draw):
    """x, y of one shape, a reduction and δ; no difference within 1e-3 of the kink at ±δ."""
    shape = draw(small_shapes)
    x, y = draw(array_of(shape)), draw(array_of(shape))
    delta = draw(st.sampled_from([1.0, 0.5, 2.0]) | st.floats(0.1, 3.0))
    assume(np.all(np.abs(np.abs(x - y) - delta) > 1e-3))
    return x, y, draw(st.sampled_from(["mean", "sum", "none"])), delta


@probe("3.9")
def probe_huber(fw):
    x, y = fw.Tensor([0.5, 3.0, -2.0]), fw.Tensor([0.0, 0.0, 0.0])
    return {"huber_loss([0.5, 3, -2], 0, 'none')":
            lambda: smooth().huber_loss(x, y, reduction="none").data}


@check("3.9")
@given(case=huber_cases(), seed=seeds)
@example(case=(np.array([0.5, 3.0, -2.0]), np.zeros(3), "none", 1.0), seed=0)
def test_huber_loss_value_and_gradients(case, seed):
    """½d² inside ±δ, δ(|d| − ½δ) outside, reduced; gradients of input and target by differences."""
    x, y, reduction, delta = case
    what = f"huber_loss(reduction={reduction!r}, delta={delta:.4g}) of shape {x.shape}"
    got = smooth().huber_loss(fw.Tensor(x), fw.Tensor(y), reduction=reduction, delta=delta)
    assert_close(got.data, huber_formula(x, y, reduction, delta), what)
    gradient_check(lambda a, b: smooth().huber_loss(a, b, reduction=reduction, delta=delta),
                   [x, y], seed, what)


@check("3.9")
@given(d=st.floats(-50.0, 50.0), delta=st.floats(0.1, 3.0))
def test_huber_gradient_is_the_difference_clipped_to_delta(d, delta):
    """One element, 'sum': the gradient is d inside ±δ and ±δ outside, never more."""
    x = fw.Tensor(np.array([d]), requires_grad=True)
    out = smooth().huber_loss(x, fw.Tensor(np.zeros(1)), reduction="sum", delta=delta)
    grad = backprop(out, np.array(1.0)).get(id(x))
    assert_close(grad, [min(max(d, -delta), delta)],
                 f"huber_loss(reduction='sum', delta={delta:.4g})'s gradient at d = {d:.4g}")
