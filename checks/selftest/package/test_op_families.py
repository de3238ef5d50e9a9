"""PyTorch's families of tensor ops that the provided code fills (issue 38): elementwise math
(provided/elementwise.py), comparison and logic (logic.py), reductions, scans, sorting and
selection (selection.py), joining, splitting, indexing and scattering (indexing.py,
functions.py), sampling (random_ops.py), the activations and their module forms
(nn/functional_activation.py, nn/activation.py) and the parameter containers. Every op with a
gradient: float32 in, float32 out and gradients, and a float64 gradient check on drawn inputs
(as test_pytorch_extras.py); every in-place form equals its op; the ops without a gradient
against NumPy or PyTorch's documented values.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from checks.loader import load_framework

fw = load_framework("solutions")
Tensor = fw.Tensor
F = importlib.import_module("framework.nn.functional")
nn = importlib.import_module("framework.nn")
elementwise = importlib.import_module("framework.provided.elementwise")
MIXINS = [getattr(importlib.import_module(f"framework.provided.{module}"), name) for module, name in (
    ("elementwise", "ElementwiseMethods"), ("logic", "LogicMethods"),
    ("selection", "SelectionMethods"), ("indexing", "IndexingMethods"),
    ("random_ops", "RandomMethods"))]
BONUS_3_8 = ("softplus", "logsigmoid", "mish", "soft_margin_loss")  # refused: softplus is 3.8's
ACTIVATIONS = [n for n in importlib.import_module("framework.nn.functional_activation").NAMES
               if n not in BONUS_3_8]
LOSSES = [n for n in importlib.import_module("framework.nn.functional_loss_extra").NAMES
          if n not in (*BONUS_3_8, "huber_loss")]
MODULE_FORMS = importlib.import_module("framework.nn.activation").MODULE_FORMS
LOSS_FORMS = importlib.import_module("framework.nn.loss").LOSS_FORMS
#: where the inputs of an op must lie (the rest draw from [-2, 2))
DOMAINS = {"tan": (-1.2, 1.2), "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atanh": (-0.9, 0.9),
           "acosh": (1.1, 3.0),
           "log2": (0.2, 3.0), "log10": (0.2, 3.0), "reciprocal": (0.2, 3.0), "logit": (0.05, 0.95),
           "fmod": (0.5, 2.0), "remainder": (0.5, 2.0), "xlogy": (0.2, 3.0)}


def leaf(*shape, low=-2.0, high=2.0, offset=0.013):
    """A float32 leaf of distinct values, none at 0."""
    size = int(np.prod(shape))
    values = np.random.default_rng(size).permutation(np.linspace(low, high, size) + offset)
    return Tensor(values.reshape(shape).astype(np.float32), requires_grad=True)


def domain_leaf(name, *shape, offset=0.013):
    low, high = DOMAINS.get(name, (-2.0, 2.0))
    return leaf(*shape, low=low, high=high - 0.05, offset=offset)


INDEX = np.array([[0, 2], [1, 0]])
SIGNS = np.array([1.0, -1.0, -1.0, 1.0], np.float32)
#: each loss's tensor inputs (shapes) and then its fixed arguments (targets)
LOSS_INPUTS = {"kl_div": [(4,)], "margin_ranking_loss": [(4,), (4,)], "hinge_embedding_loss": [(4,)],
               "cosine_embedding_loss": [(4, 3), (4, 3)], "poisson_nll_loss": [(4,)],
               "gaussian_nll_loss": [(4,)], "triplet_margin_loss": [(4, 3), (4, 3), (4, 3)]}
LOSS_TARGETS = {"kl_div": (np.float32([0.1, 0.2, 0.3, 0.4]),), "margin_ranking_loss": (SIGNS,),
                "hinge_embedding_loss": (SIGNS,), "cosine_embedding_loss": (SIGNS,),
                "poisson_nll_loss": (np.float32([0, 1, 2, 3]),),
                "gaussian_nll_loss": (np.float32([0.5, 0, 1, 2]), np.float32([0.5, 1, 2, 1])),
                "triplet_margin_loss": ()}
MASK = np.array([[True, False, True], [False, True, False]])

# name → (inputs, op) for the ops that are no row of elementwise.UNARY or BINARY
FLOAT32_OPS = {
    "clamp_min": (lambda: [leaf(2, 3)], lambda a: a.clamp_min(0.1)),
    "clamp_max": (lambda: [leaf(2, 3)], lambda a: a.clamp_max(0.1)),
    "round": (lambda: [leaf(2, 3)], lambda a: a.round(decimals=1)),
    "nan_to_num": (lambda: [leaf(2, 3)], lambda a: a.nan_to_num()),
    "lerp": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: a.lerp(b, 0.3)),
    "addcmul": (lambda: [leaf(2, 3), leaf(3), leaf(2, 1)], lambda a, b, c: a.addcmul(b, c, value=0.5)),
    "addcdiv": (lambda: [leaf(2, 3), leaf(3), leaf(2, 1, low=0.5)], lambda a, b, c: a.addcdiv(b, c)),
    "rsub": (lambda: [leaf(2, 3)], lambda a: a.rsub(1.5, alpha=2.0)),
    "ldexp": (lambda: [leaf(2, 3)], lambda a: a.ldexp(np.array([1.0, 2.0, -1.0], np.float32))),
    "maximum": (lambda: [leaf(2, 3), leaf(3, offset=0.02)], lambda a, b: a.maximum(b)),
    "minimum": (lambda: [leaf(2, 3), leaf(3, offset=0.02)], lambda a, b: a.minimum(b)),
    "nansum": (lambda: [leaf(2, 3)], lambda a: a.nansum(1)),
    "nanmean": (lambda: [leaf(2, 3)], lambda a: a.nanmean(dim=0, keepdim=True)),
    "aminmax": (lambda: [leaf(2, 3)], lambda a: a.aminmax(dim=1).max - a.aminmax(dim=1).min),
    "diff": (lambda: [leaf(2, 4)], lambda a: a.diff(n=2)),
    "dist": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: a.dist(b)),
    "cummax": (lambda: [leaf(2, 4)], lambda a: a.cummax(1).values),
    "cummin": (lambda: [leaf(4, 2)], lambda a: a.cummin(0).values),
    "msort": (lambda: [leaf(3, 2)], lambda a: a.msort()),
    "kthvalue": (lambda: [leaf(2, 4)], lambda a: a.kthvalue(2).values),
    "median": (lambda: [leaf(2, 5)], lambda a: a.median(dim=1).values),
    "nanmedian": (lambda: [leaf(2, 5)], lambda a: a.nanmedian()),
    "mode": (lambda: [leaf(2, 4)], lambda a: a.mode(1).values),
    "quantile": (lambda: [leaf(2, 5)], lambda a: a.quantile(0.3, dim=1)),
    "nanquantile": (lambda: [leaf(2, 5)], lambda a: a.nanquantile(np.array([0.3, 0.8]))),
    "unbind": (lambda: [leaf(2, 3)], lambda a: a.unbind(1)[2]),
    "tensor_split": (lambda: [leaf(5, 2)], lambda a: a.tensor_split(3)[0]),
    "hsplit": (lambda: [leaf(2, 4)], lambda a: a.hsplit(2)[1]),
    "vsplit": (lambda: [leaf(4, 2)], lambda a: a.vsplit([1])[1]),
    "dsplit": (lambda: [leaf(2, 2, 4)], lambda a: a.dsplit(2)[0]),
    "index_select": (lambda: [leaf(3, 4)], lambda a: a.index_select(1, np.array([3, 0, 3]))),
    "narrow": (lambda: [leaf(3, 4)], lambda a: a.narrow(1, 1, 2)),
    "select": (lambda: [leaf(3, 4)], lambda a: a.select(0, -1)),
    "masked_select": (lambda: [leaf(2, 3)], lambda a: a.masked_select(MASK)),
    "take": (lambda: [leaf(2, 3)], lambda a: a.take(np.array([[5, 0], [0, 2]]))),
    "take_along_dim": (lambda: [leaf(2, 3)], lambda a: a.take_along_dim(INDEX, 1)),
    "where": (lambda: [leaf(2, 3), leaf(3)], lambda a, b: a.where(MASK, b)),
    "scatter": (lambda: [leaf(2, 3), leaf(2, 2)], lambda a, s: a.scatter(1, INDEX, s)),
    "scatter_add": (lambda: [leaf(2, 3), leaf(2, 2)], lambda a, s: a.scatter_add(1, INDEX, s)),
    "scatter_reduce": (lambda: [leaf(2, 3), leaf(2, 2)],
                       lambda a, s: a.scatter_reduce(1, INDEX, s, "sum")),
    "index_add": (lambda: [leaf(3, 2), leaf(2, 2)],
                  lambda a, s: a.index_add(0, np.array([2, 2]), s, alpha=2.0)),
    "index_copy": (lambda: [leaf(3, 2), leaf(3, 1)], lambda a, s: a.index_copy(1, np.array([1]), s)),
    "index_fill": (lambda: [leaf(3, 2)], lambda a: a.index_fill(0, np.array([0, 2]), -1.0)),
    "index_put": (lambda: [leaf(3, 2), leaf(2)],
                  lambda a, v: a.index_put((np.array([0, 2]), np.array([1, 0])), v)),
    "put": (lambda: [leaf(2, 3), leaf(2)], lambda a, s: a.put(np.array([4, 1]), s, accumulate=True)),
    "masked_scatter": (lambda: [leaf(2, 3), leaf(4)], lambda a, s: a.masked_scatter(MASK, s)),
    **{f"F.{name}": (lambda: [leaf(2, 4)], getattr(F, name))
       for name in ACTIVATIONS if name not in ("cosine_similarity", "pairwise_distance", "threshold")},
    "F.threshold": (lambda: [leaf(2, 4)], lambda a: F.threshold(a, 0.1, 20.0)),
    **{f"F.{name}": (lambda n=name: [leaf(*shape) for shape in LOSS_INPUTS[n]],
                     lambda *inputs, n=name: getattr(F, n)(*inputs, *LOSS_TARGETS[n]))
       for name in LOSSES},
    "F.cosine_similarity": (lambda: [leaf(2, 3), leaf(2, 3, offset=0.2)], F.cosine_similarity),
    "F.pairwise_distance": (lambda: [leaf(2, 3), leaf(2, 3, offset=0.2)], F.pairwise_distance),
}
FLOAT32_OPS |= {name: (lambda n=name: [domain_leaf(n, 2, 3)], lambda a, n=name: getattr(a, n)())
                for name in elementwise.UNARY}
FLOAT32_OPS |= {name: (lambda n=name: [domain_leaf(n, 2, 3), domain_leaf(n, 3, offset=0.018)],
                       lambda a, b, n=name: getattr(a, n)(b)) for name in elementwise.BINARY}
FLOAT32_OPS |= {alias: FLOAT32_OPS[name] for alias, name in elementwise.ALIASES.items()
                if name in FLOAT32_OPS}
FLOAT32_OPS |= {alias: (lambda: [leaf(2, 3), leaf(3, low=0.5)], lambda a, b, n=alias: getattr(a, n)(b))
                for alias in ("multiply", "subtract", "divide", "true_divide")}
FLOAT32_OPS |= {alias: (lambda: [leaf(2, 3)], lambda a, n=alias: getattr(a, n)())
                for alias in ("absolute", "negative")}
# float64 by definition (float_power) or no gradient (PyTorch's too): tested for values below
NOT_FLOAT_OPS = {
    "float_power", "frexp", "isclose", "allclose", "equal", "isinf", "isposinf", "isneginf",
    "isreal", "signbit", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm", "heaviside", "nextafter",
    "floor_divide", "not_equal", "greater", "greater_equal", "less", "less_equal", "count_nonzero",
    "unique", "unique_consecutive", "nonzero", "argwhere", "bernoulli",
}
# refused in our words (a bonus exercise's answer): test_loud.py
REFUSED = {"cumprod", "logcumsumexp", "cumprod_", "cumsum_", "logsumexp", "F.huber_loss",
           *(f"F.{n}" for n in BONUS_3_8)}
# in-place random fills: tested with the draws below
FILLS = {"bernoulli_", "uniform_", "normal_", "exponential_", "geometric_", "cauchy_",
         "log_normal_", "random_"}


def family_names() -> set[str]:
    names = {n for mixin in MIXINS for n in vars(mixin) if not n.startswith("_")}
    extras = (importlib.import_module(f"framework.nn.{module}").NAMES
              for module in ("functional_activation", "functional_loss_extra"))
    return names | {f"F.{n}" for names_ in extras for n in names_}


def test_every_family_op_is_tested_here():
    """An op of the families without a dtype entry (or a reason to have none) fails here; the
    in-place forms are each tested against their op below."""
    in_place = {n for n in family_names() if n.endswith("_")} - REFUSED - FILLS
    untested = family_names() - set(FLOAT32_OPS) - NOT_FLOAT_OPS - REFUSED - FILLS - in_place
    assert not untested, f"family ops without a dtype entry: {sorted(untested)}"


@pytest.mark.parametrize("name", sorted(FLOAT32_OPS))
def test_float32_inputs_give_float32_outputs_and_gradients(name):
    make_inputs, op = FLOAT32_OPS[name]
    inputs = make_inputs()
    out = op(*inputs)
    assert out.dtype == np.float32, f"{name}: float32 inputs gave a {out.dtype} output"
    out.backward(np.linspace(-1, 1, out.data.size, dtype=np.float32).reshape(out.shape))
    for i, x in enumerate(inputs):
        assert x.grad is not None and x.grad.dtype == np.float32, f"{name}: input {i}'s gradient"


shapes = array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)


def drawn(data, shape, low=-2.0, high=2.0, offset=0.001):
    """Distinct float64 values on a 0.01 grid shifted by `offset` (no ties, none at a kink)."""
    grid = st.integers(int(low * 100), int(high * 100) - 1).map(lambda k: k / 100 + offset)
    return data.draw(arrays(np.float64, shape, elements=grid, unique=True))


def unary_case(name):
    low, high = DOMAINS.get(name, (-2.0, 2.0))
    return lambda d: (lambda a: getattr(a, name)(), [drawn(d, d.draw(shapes), low, high)])


def binary_case(name):
    """Two grids 0.005 apart: no ties (fmax), no quotient at an integer (fmod)."""
    low, high = DOMAINS.get(name, (-2.0, 2.0))
    return lambda d: (lambda a, b: getattr(a, name)(b),
                      [drawn(d, (2, 3), -2.0, 2.0), drawn(d, (3,), low, high, offset=0.006)])


def one(make_op, *shape):
    """A case of one drawn input of `shape` through `make_op`."""
    return lambda d: (make_op, [drawn(d, shape)])


GRADIENT_CASES = {
    **{name: unary_case(name) for name in elementwise.UNARY},
    **{name: binary_case(name) for name in elementwise.BINARY},
    "round(decimals=1)": one(lambda a: a.round(decimals=1), 2, 3),
    "clamp_min": one(lambda a: a.clamp_min(0.105), 2, 3),
    "lerp": lambda d: (lambda a, b: a.lerp(b, 0.3), [drawn(d, (2, 3)), drawn(d, (3,))]),
    "addcdiv": lambda d: (lambda a, b, c: a.addcdiv(b, c, value=0.5),
                          [drawn(d, (2, 3)), drawn(d, (3,)), drawn(d, (2, 1), 0.5, 2.0)]),
    "ldexp": one(lambda a: a.ldexp(np.array([1.0, -2.0, 0.0])), 2, 3),
    "nansum": one(lambda a: a.nansum(0), 3, 2),
    "diff": one(lambda a: a.diff(dim=0), 4, 2),
    "dist": lambda d: (lambda a, b: a.dist(b), [drawn(d, (2, 3)), drawn(d, (2, 3), offset=0.006)]),
    "cummax": one(lambda a: a.cummax(1).values, 2, 5),
    "kthvalue": one(lambda a: a.kthvalue(3, dim=0).values, 4, 2),
    "median over all": one(lambda a: a.median(), 3, 3),
    "nanmedian": one(lambda a: a.nanmedian(1).values, 2, 4),
    "mode": one(lambda a: a.mode(0).values, 3, 2),
    "quantile": one(lambda a: a.quantile(np.array([0.1, 0.5, 0.95]), dim=1), 2, 5),
    "unbind": one(lambda a: a.unbind(-1)[1], 3, 2),
    "tensor_split": one(lambda a: a.tensor_split([1, 3], dim=1)[1], 2, 4),
    "index_select": one(lambda a: a.index_select(0, np.array([2, 0, 2])), 3, 2),
    "masked_select": one(lambda a: a.masked_select(MASK), 2, 3),
    "take_along_dim": one(lambda a: a.take_along_dim(np.array([[1], [0]]), 1), 2, 3),
    "scatter": lambda d: (lambda a, s: a.scatter(1, INDEX, s), [drawn(d, (2, 3)), drawn(d, (2, 2))]),
    "scatter_add": lambda d: (lambda a, s: a.scatter_add(0, np.array([[1, 1, 0]]), s),
                              [drawn(d, (2, 3)), drawn(d, (1, 3))]),
    "index_add": lambda d: (lambda a, s: a.index_add(1, np.array([0, 0]), s),
                            [drawn(d, (2, 3)), drawn(d, (2, 2))]),
    "index_put, accumulate": lambda d: (
        lambda a, v: a.index_put((np.array([1, 1]),), v, accumulate=True),
        [drawn(d, (2, 3)), drawn(d, (3,))]),
    "masked_scatter": lambda d: (lambda a, s: a.masked_scatter(MASK, s),
                                 [drawn(d, (2, 3)), drawn(d, (5,))]),
    "hstack": lambda d: (lambda a, b: fw.hstack([a, b]), [drawn(d, (2, 1)), drawn(d, (2, 2))]),
    "dstack": lambda d: (lambda a, b: fw.dstack([a, b]), [drawn(d, (2,)), drawn(d, (2,))]),
    "std_mean": one(lambda a: fw.std_mean(a, 1)[0] * fw.std_mean(a, 1)[1], 2, 3),
    **{f"F.{name}": one(getattr(F, name), 2, 4) for name in ACTIVATIONS
       if name not in ("cosine_similarity", "pairwise_distance", "threshold")},
    "F.threshold": one(lambda a: F.threshold(a, 0.105, -3.0), 2, 4),
    **{f"F.{name}": lambda d, n=name: (
        lambda *inputs: getattr(F, n)(*inputs, *LOSS_TARGETS[n], reduction="sum"),
        [drawn(d, shape, offset=0.001 + 0.003 * i) for i, shape in enumerate(LOSS_INPUTS[n])])
       for name in LOSSES},
    "F.cosine_similarity": lambda d: (F.cosine_similarity, [drawn(d, (2, 3)), drawn(d, (2, 3))]),
    "F.pairwise_distance": lambda d: (F.pairwise_distance,  # apart: no distance near 0 (a kink)
                                      [drawn(d, (2, 3)), drawn(d, (2, 3), offset=0.006)]),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_family_op_gradients_match_central_differences(name, data, seed):
    op, inputs = GRADIENT_CASES[name](data)
    assert fw.gradcheck(op, *inputs, seed=seed)


# -- in-place forms: x.name_(...) is x.name(...), values and gradient ----------------------------

IN_PLACE_ARGS = {
    "pow": (2.0,), "clamp_min": (0.1,), "clamp_max": (0.1,), "lerp": (0.5, 0.25),
    "addcmul": (np.float32(2.0), np.float32(3.0)), "addcdiv": (np.float32(2.0), np.float32(4.0)),
    "ldexp": (2.0,), "multiply": (3.0,), "subtract": (3.0,), "divide": (3.0,), "true_divide": (3.0,),
    "scatter": (1, INDEX, np.float32(5.0)), "scatter_add": (1, INDEX, np.ones((2, 2), np.float32)),
    "scatter_reduce": (1, INDEX, np.ones((2, 2), np.float32), "sum"),
    "index_add": (0, np.array([1]), np.ones((1, 3), np.float32)),
    "index_copy": (0, np.array([1]), np.ones((1, 3), np.float32)),
    "index_fill": (1, np.array([0]), 2.0), "index_put": ((np.array([0]), np.array([2])), 7.0),
    "put": (np.array([1, 4]), np.ones(2, np.float32)),
    "masked_scatter": (MASK, np.arange(6.0, dtype=np.float32)),
    **{name: (1.5,) for name in (*elementwise.BINARY, "arctan2")},
}
COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
               "not_equal", "logical_and", "logical_or", "logical_xor", "floor_divide", "heaviside",
               "nextafter")
INTEGER_OPS = ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
               "bitwise_right_shift", "gcd", "lcm")


def in_place_names(differentiable: bool) -> list[str]:
    names = {n for mixin in MIXINS for n in vars(mixin) if n.endswith("_") and not n.startswith("_")}
    names -= REFUSED | FILLS | {"float_power_"}
    plain = {f"{n}_" for n in (*COMPARISONS, *INTEGER_OPS, "logical_not", "bitwise_not")}
    return sorted(names - plain if differentiable else names & plain)


@pytest.mark.parametrize("name", in_place_names(differentiable=True))
def test_an_in_place_form_gives_its_ops_values_and_gradient(name):
    op = name.removesuffix("_")
    args = IN_PLACE_ARGS.get(op, ())
    a, b = domain_leaf(op, 2, 3), domain_leaf(op, 2, 3)
    expected = getattr(a, op)(*args)
    changed = b * 1
    assert getattr(changed, name)(*args) is changed
    np.testing.assert_allclose(changed.data, expected.data, rtol=1e-6)
    expected.sum().backward()
    changed.sum().backward()
    np.testing.assert_allclose(b.grad, a.grad, rtol=1e-6)


@pytest.mark.parametrize("name", in_place_names(differentiable=False))
def test_an_in_place_comparison_or_integer_op_writes_its_result_in_the_tensors_dtype(name):
    op = name.removesuffix("_")
    if op in (*INTEGER_OPS, "bitwise_not"):
        x, other = np.array([12, 5, 7]), (np.array([3, 2, 1]),) * (op != "bitwise_not")
    else:
        x, other = np.array([0.5, -1.0, 2.0], np.float32), (0.5,) * (op != "logical_not")
    changed = Tensor(x.copy())
    getattr(changed, name)(*other)
    assert changed.dtype == x.dtype
    np.testing.assert_array_equal(changed.data, getattr(Tensor(x), op)(*other).data.astype(x.dtype))


def test_float_power_is_float64_and_its_in_place_form_needs_a_float64_tensor():
    x = Tensor(np.array([1.5, 2.0], np.float32))
    assert x.float_power(2).dtype == np.float64
    np.testing.assert_allclose(x.double().float_power_(2).data, [2.25, 4.0])
    with pytest.raises(RuntimeError, match=r"float_power_: the result is float64.*float32"):
        x.float_power_(2)


# -- values of the ops without a gradient, and of the families' choices ----------------------------

X = np.array([[1.5, -np.inf, np.nan], [0.0, -0.0, np.inf]])


def test_the_predicates_match_numpy():
    for name, numpy_function in (("isinf", np.isinf), ("isposinf", np.isposinf),
                                 ("isneginf", np.isneginf), ("signbit", np.signbit),
                                 ("isreal", np.isreal)):
        np.testing.assert_array_equal(getattr(Tensor(X), name)().data, numpy_function(X), name)


def test_isclose_allclose_and_equal_answer_as_pytorchs():
    a = Tensor(np.array([1.0, 2.0, np.nan]))
    np.testing.assert_array_equal(a.isclose(a + 1e-9).data, [True, True, False])
    assert a.isclose(a, equal_nan=True).data.all() and fw.allclose(a, a, equal_nan=True) is True
    assert fw.equal(Tensor(np.arange(3)), Tensor(np.arange(3))) is True
    assert fw.equal(Tensor(np.arange(3)), Tensor(np.arange(2))) is False


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                                  "bitwise_right_shift", "gcd", "lcm", "floor_divide", "logical_xor",
                                  "greater_equal", "less", "not_equal", "heaviside"])
def test_the_binary_ops_without_a_gradient_match_numpy(name):
    a, b = np.array([12, 5, 0, 7]), np.array([3, 2, 1, 7])
    numpy_name = {"bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift",
                  "greater_equal": "greater_equal", "less": "less", "not_equal": "not_equal"}
    expected = getattr(np, numpy_name.get(name, name))(a, b)
    np.testing.assert_array_equal(getattr(fw, name)(Tensor(a), Tensor(b)).data, expected)


def test_nextafter_frexp_and_count_nonzero():
    x = Tensor(np.array([1.0, 0.5], np.float32))
    assert x.nextafter(Tensor(np.array([2.0, 0.0], np.float32))).data[0] == np.nextafter(np.float32(1), 2)
    mantissa, exponent = Tensor(np.array([8.0, 0.75])).frexp()
    np.testing.assert_array_equal(mantissa.data * 2.0**exponent.data, [8.0, 0.75])
    assert fw.count_nonzero(Tensor(np.array([[0, 1], [2, 0]])), dim=0).tolist() == [1, 1]


def test_median_is_the_lower_median_and_nanmedian_skips_nans_as_pytorchs():
    assert Tensor(np.array([4.0, 1.0, 3.0, 2.0])).median().item() == 2.0
    values, indices = Tensor(np.array([[1.0, np.nan, 3.0, 2.0]])).nanmedian(1)
    assert values.tolist() == [2.0] and indices.tolist() == [3]


def test_mode_is_the_smallest_most_frequent_at_its_last_index_as_pytorchs():
    values, indices = fw.mode(Tensor(np.array([[3.0, 1, 3, 1, 2], [5, 5, 4, 4, 4]])), 1)
    assert values.tolist() == [1.0, 4.0] and indices.tolist() == [3, 4]


def test_quantile_interpolates_and_a_nan_makes_it_nan_but_not_nanquantile():
    x = np.array([1.0, 5.0, 3.0, 2.0])
    got = Tensor(x).quantile(np.array([0.25, 0.5]), dim=0, keepdim=True)
    assert got.shape == (2, 1) and np.allclose(got.data.ravel(), np.quantile(x, [0.25, 0.5]))
    with_nan = Tensor(np.array([1.0, np.nan, 3.0, 2.0]))
    assert np.isnan(with_nan.quantile(0.5).item()) and with_nan.nanquantile(0.5).item() == 2.0


def test_cummax_points_at_the_last_place_the_maximum_was_reached():
    values, indices = Tensor(np.array([1.0, 3.0, 2.0, 3.0, 0.5])).cummax(0)
    assert values.tolist() == [1, 3, 3, 3, 3] and indices.tolist() == [0, 1, 1, 3, 3]


def test_unique_and_unique_consecutive_give_pytorchs_inverse_and_counts():
    values, inverse, counts = Tensor(np.array([2, 1, 2, 3])).unique(return_inverse=True,
                                                                      return_counts=True)
    assert (values.tolist(), inverse.tolist(), counts.tolist()) == ([1, 2, 3], [1, 0, 1, 2], [1, 2, 1])
    values, inverse, counts = fw.unique_consecutive(Tensor(np.array([1, 1, 2, 2, 3, 1])),
                                                    return_inverse=True, return_counts=True)
    assert values.tolist() == [1, 2, 3, 1] and inverse.tolist() == [0, 0, 1, 1, 2, 3]
    assert counts.tolist() == [2, 2, 1, 1]


def test_nonzero_argwhere_and_as_tuple():
    x = Tensor(np.array([[0, 1], [2, 0]]))
    assert fw.nonzero(x).tolist() == [[0, 1], [1, 0]] == fw.argwhere(x).tolist()
    assert [i.tolist() for i in x.nonzero(as_tuple=True)] == [[0, 1], [1, 0]]


def test_the_stacking_functions_match_numpy():
    a, b = np.arange(3.0), np.arange(3.0, 6.0)
    for name in ("hstack", "vstack", "dstack", "column_stack", "row_stack"):
        numpy_name = "vstack" if name == "row_stack" else name
        np.testing.assert_array_equal(getattr(fw, name)([Tensor(a), Tensor(b)]).data,
                                      getattr(np, numpy_name)([a, b]), name)
    assert fw.concat([Tensor(a), Tensor(b)]).shape == (6,)


def test_the_splits_match_numpy_array_split():
    x = np.arange(14.0).reshape(7, 2)
    for pieces in (3, [2, 5]):
        got = [p.data for p in Tensor(x).tensor_split(pieces)]
        for g, expected in zip(got, np.array_split(x, pieces), strict=True):
            np.testing.assert_array_equal(g, expected)


def test_scatter_writes_and_scatter_add_adds_repeats():
    x = Tensor(np.zeros((2, 3)))
    np.testing.assert_array_equal(x.scatter(1, INDEX, 5.0).data, [[5, 0, 5], [5, 5, 0]])
    added = x.scatter_add(1, np.array([[0, 0]]), Tensor(np.array([[1.0, 2.0]])))
    np.testing.assert_array_equal(added.data, [[3, 0, 0], [0, 0, 0]])


def test_search_and_bucketize_and_isin():
    edges = Tensor(np.array([1.0, 3.0, 5.0]))
    assert fw.searchsorted(edges, Tensor(np.array([3.0, 6.0]))).tolist() == [1, 3]
    assert fw.bucketize(Tensor(np.array([3.0, 0.0])), edges, right=True).tolist() == [2, 0]
    assert fw.isin(Tensor(np.array([1, 2])), Tensor(np.array([2]))).tolist() == [False, True]


# -- sampling ---------------------------------------------------------------------------------

FILL_CALLS = {
    "bernoulli_": (lambda x: x.bernoulli_(0.3), lambda v: set(np.unique(v)) <= {0.0, 1.0}),
    "uniform_": (lambda x: x.uniform_(-1.0, 2.0), lambda v: v.min() >= -1 and v.max() < 2),
    "normal_": (lambda x: x.normal_(3.0, 0.5), lambda v: abs(v.mean() - 3) < 0.1),
    "exponential_": (lambda x: x.exponential_(2.0), lambda v: v.min() >= 0 and abs(v.mean() - 0.5) < 0.1),
    "geometric_": (lambda x: x.geometric_(0.5), lambda v: v.min() >= 1 and np.all(v == np.round(v))),
    "cauchy_": (lambda x: x.cauchy_(), lambda v: abs(np.median(v)) < 0.2),
    "log_normal_": (lambda x: x.log_normal_(0.0, 0.5), lambda v: v.min() > 0),
    "random_": (lambda x: x.random_(2, 5), lambda v: set(np.unique(v)) <= {2.0, 3.0, 4.0}),
}


@pytest.mark.parametrize("name", sorted(FILLS))
def test_a_random_fill_changes_the_tensor_in_place_repeatably(name):
    fill, holds = FILL_CALLS[name]
    fw.manual_seed(0)
    x = fw.zeros(1000)
    assert fill(x) is x and x.dtype == np.float32 and holds(x.data) and x._version == 1
    fw.manual_seed(0)
    np.testing.assert_array_equal(fill(fw.zeros(1000)).data, x.data)


def test_the_draws_of_torch_have_their_shapes_and_dtypes():
    fw.manual_seed(1)
    assert set(np.unique(fw.bernoulli(fw.full((50,), 0.5)).data)) == {0.0, 1.0}
    assert fw.normal(fw.zeros(3), 1.0).shape == (3,) and fw.normal(0.0, 1.0, (2, 2)).shape == (2, 2)
    assert fw.poisson(fw.full((4,), 2.0)).dtype == np.float32
    assert fw.randint_like(fw.zeros(5), 3).dtype == np.float32
    assert isinstance(fw.seed(), int)


# -- module forms and containers ---------------------------------------------------------------


@pytest.mark.parametrize("name", MODULE_FORMS)
def test_each_module_form_is_its_function_with_its_options(name):
    options = {"Threshold": (0.1, 20.0)}.get(name, ())
    module = getattr(nn, name)(*options)
    inputs = [leaf(2, 4)] + ([leaf(2, 4, offset=0.2)] if name in ("CosineSimilarity",
                                                                  "PairwiseDistance") else [])
    function = getattr(F, _function_of(name))
    np.testing.assert_array_equal(module(*inputs).data, function(*inputs, *options).data)
    assert repr(module).startswith(f"{name}(")


def _function_of(name: str) -> str:
    return {n.lower().replace("_", ""): n for n in ACTIVATIONS}[name.lower()]


@pytest.mark.parametrize("name", LOSS_FORMS)
def test_each_loss_form_is_its_function_with_its_reduction(name):
    function = {n.replace("_", "").removesuffix("loss"): n for n in LOSSES}[
        name.lower().removesuffix("loss")]
    inputs = [leaf(*shape) for shape in LOSS_INPUTS[function]]
    for reduction in ("mean", "sum", "none"):
        module = getattr(nn, name)(reduction=reduction)
        expected = getattr(F, function)(*inputs, *LOSS_TARGETS[function], reduction=reduction)
        np.testing.assert_allclose(module(*inputs, *LOSS_TARGETS[function]).data, expected.data)
    assert repr(getattr(nn, name)()) == f"{name}()"  # PyTorch's: the default is not shown
    with pytest.warns(UserWarning, match=r"size_average= and reduce= are deprecated"):
        assert getattr(nn, name)(size_average=False).reduction == "sum"


def test_kl_div_matches_its_definition_and_batchmean_divides_by_the_batch():
    p, q = np.float32([0.2, 0.3, 0.5]), np.float32([0.1, 0.6, 0.3])
    expected = np.sum(p * (np.log(p) - np.log(q)))
    assert np.isclose(F.kl_div(Tensor(np.log(q)), p, reduction="sum").item(), expected)
    assert np.isclose(F.kl_div(Tensor(np.log(q)), np.log(p), reduction="sum", log_target=True).item(),
                      expected)
    assert np.isclose(nn.KLDivLoss(reduction="batchmean")(Tensor(np.log(q)), p).item(), expected / 3)


def test_a_module_forms_options_reach_its_function_and_its_repr():
    x = leaf(2, 3)
    np.testing.assert_array_equal(nn.ELU(2.0)(x).data, F.elu(x, alpha=2.0).data)
    np.testing.assert_array_equal(nn.Softshrink(lambd=0.3)(x).data, F.softshrink(x, 0.3).data)
    assert repr(nn.Hardtanh(-2.0, 2.0)) == "Hardtanh(min_val=-2.0, max_val=2.0)"
    with pytest.raises(TypeError, match=r"ELU: takes \['alpha'\]"):
        nn.ELU(beta=2.0)


def test_parameter_list_and_dict_register_their_parameters():
    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.listed = nn.ParameterList([np.ones(2, np.float32)]).append(np.zeros(3, np.float32))
            self.named = nn.ParameterDict({"scale": np.ones(1, np.float32)})

    holder = Holder()
    assert [n for n, _ in holder.named_parameters()] == ["listed.0", "listed.1", "named.scale"]
    assert holder.listed[1].shape == (3,) and len(holder.listed) == 2 and "scale" in holder.named
