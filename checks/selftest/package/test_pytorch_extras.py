"""PyTorch's names the provided code adds so that outside PyTorch programs run unchanged
(checks/external): elementwise math, comparisons and logic, reductions and scans, ordering,
splitting, multinomial (provided/math_ops.py), the factories' `device=`, the accelerator
queries and legacy constructors (provided/surface.py), and the layers LeakyReLU, SiLU,
Dropout2d, BatchNorm1d/2d, ModuleDict, Identity, with `Module.to(device)` and
`zero_grad(set_to_none=False)`. Every op with a gradient: float32 in, float32 out and
gradients, and a float64 gradient check on drawn inputs (as test_provided_ops.py).
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
MathMethods = importlib.import_module("framework.provided.math_ops").MathMethods
F_EXTRAS = ("leaky_relu", "silu", "dropout2d")


def leaf(*shape, low=-2.0, high=2.0):
    """A float32 leaf of distinct values, none at 0."""
    size = int(np.prod(shape))
    values = np.random.default_rng(size).permutation(np.linspace(low, high, size) + 0.013)
    return Tensor(values.reshape(shape).astype(np.float32), requires_grad=True)


def seeded(op, seed=5):
    def run(*args):
        fw.manual_seed(seed)  # the same random mask on every call
        return op(*args)
    return run


# name → (inputs, op): the op's output and every input's gradient must be float32
FLOAT32_OPS = {
    "sin": (lambda: [leaf(2, 3)], lambda a: a.sin()),
    "cos": (lambda: [leaf(2, 3)], lambda a: a.cos()),
    "log1p": (lambda: [leaf(2, 3, low=0.0, high=2.0)], lambda a: a.log1p()),
    "expm1": (lambda: [leaf(2, 3)], lambda a: a.expm1()),
    "rsqrt": (lambda: [leaf(2, 3, low=0.5, high=3.0)], lambda a: a.rsqrt()),
    "square": (lambda: [leaf(2, 3)], lambda a: a.square()),
    "var": (lambda: [leaf(2, 3)], lambda a: a.var(1)),
    "std": (lambda: [leaf(2, 3)], lambda a: a.std(dim=0, keepdim=True)),
    "norm": (lambda: [leaf(2, 3)], lambda a: a.norm()),
    "prod": (lambda: [leaf(2, 3)], lambda a: a.prod(1)),
    "sort": (lambda: [leaf(2, 3)], lambda a: a.sort(descending=True).values),
    "topk": (lambda: [leaf(2, 4)], lambda a: a.topk(2).values),
    "split": (lambda: [leaf(5, 2)], lambda a: a.split(2)[2]),
    "chunk": (lambda: [leaf(2, 5)], lambda a: a.chunk(2, dim=1)[0]),
    "mm": (lambda: [leaf(2, 3), leaf(3, 4)], lambda a, b: a.mm(b)),
    "view_as": (lambda: [leaf(2, 3)], lambda a: a.view_as(leaf(3, 2))),
    "reshape_as": (lambda: [leaf(2, 3)], lambda a: a.reshape_as(leaf(6))),
    "expand_as": (lambda: [leaf(3, 1)], lambda a: a.expand_as(leaf(2, 3, 4))),
    "F.leaky_relu": (lambda: [leaf(2, 3)], lambda a: F.leaky_relu(a, 0.2)),
    "F.silu": (lambda: [leaf(2, 3)], F.silu),
    "F.dropout2d": (lambda: [leaf(2, 3, 2, 2)], seeded(lambda a: F.dropout2d(a, 0.5))),
}
# bool or int64 results, no gradient (as PyTorch's): tested below
NOT_FLOAT_OPS = {"eq", "ne", "gt", "ge", "lt", "le", "logical_and", "logical_or", "logical_not",
                 "isnan", "isfinite", "argsort", "multinomial"}
# refused in our words: bonus exercises' answers (tested below)
REFUSED = {"cumsum"}


def test_every_extra_has_a_dtype_entry():
    names = {n for n in vars(MathMethods) if not n.startswith("_")} | {f"F.{n}" for n in F_EXTRAS}
    assert names == set(FLOAT32_OPS) | NOT_FLOAT_OPS | REFUSED


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


# name → a function of the drawn data giving (op, inputs), checked in float64
GRADIENT_CASES = {
    "sin": lambda d: (lambda a: a.sin(), [drawn(d, d.draw(shapes))]),
    "cos": lambda d: (lambda a: a.cos(), [drawn(d, d.draw(shapes))]),
    "log1p": lambda d: (lambda a: a.log1p(), [drawn(d, d.draw(shapes), -0.5, 2.0)]),
    "expm1": lambda d: (lambda a: a.expm1(), [drawn(d, d.draw(shapes))]),
    "rsqrt": lambda d: (lambda a: a.rsqrt(), [drawn(d, d.draw(shapes), 0.3, 3.0)]),
    "square": lambda d: (lambda a: a.square(), [drawn(d, d.draw(shapes))]),
    "var, unbiased": lambda d: (lambda a: a.var(-1), [drawn(d, (3, 4))]),
    "std over all": lambda d: (lambda a: a.std(), [drawn(d, (2, 3))]),
    "norm": lambda d: (lambda a: a.norm(dim=1), [drawn(d, (2, 3))]),
    "prod": lambda d: (lambda a: a.prod(0), [drawn(d, (3, 2), 0.2, 2.0)]),
    "sort": lambda d: (lambda a: a.sort(dim=0).values, [drawn(d, (3, 2))]),
    "topk": lambda d: (lambda a: a.topk(2, largest=False).values, [drawn(d, (2, 4))]),
    "split": lambda d: (lambda a: a.split([1, 3], dim=1)[1], [drawn(d, (2, 4))]),
    "mm": lambda d: (lambda a, b: a.mm(b), [drawn(d, (2, 3)), drawn(d, (3, 2))]),
    "F.leaky_relu": lambda d: (lambda a: F.leaky_relu(a, 0.1), [drawn(d, d.draw(shapes))]),
    "F.silu": lambda d: (F.silu, [drawn(d, d.draw(shapes))]),
    "F.dropout2d (one draw of the mask)": lambda d: (seeded(lambda a: F.dropout2d(a, 0.4)),
                                                     [drawn(d, (2, 3, 2, 2))]),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_extra_op_gradients_match_central_differences(name, data, seed):
    op, inputs = GRADIENT_CASES[name](data)
    assert fw.gradcheck(op, *inputs, seed=seed)


# -- values, against NumPy ------------------------------------------------------------------------


def test_var_and_std_are_unbiased_by_default_as_pytorchs():
    x = np.arange(12.0).reshape(3, 4) ** 1.5
    np.testing.assert_allclose(Tensor(x).var(1).data, x.var(1, ddof=1))
    np.testing.assert_allclose(Tensor(x).std(0, correction=0).data, x.std(0))


def test_sort_argsort_and_topk_give_values_and_indices():
    x = Tensor(np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]))
    values, indices = x.sort(dim=1, descending=True)
    np.testing.assert_array_equal(values.data, [[3, 2, 1], [5, 4, 0]])
    np.testing.assert_array_equal(indices.data, [[0, 2, 1], [1, 2, 0]])
    np.testing.assert_array_equal(fw.argsort(x, dim=0).data, [[1, 0, 0], [0, 1, 1]])
    top = fw.topk(x, 2)
    assert top.indices.dtype == np.int64 and top.indices.data.tolist() == [[0, 2], [1, 2]]


def test_split_and_chunk_give_pytorchs_pieces():
    x = Tensor(np.arange(10.0))
    assert [p.shape for p in x.split(4)] == [(4,), (4,), (2,)]
    assert [p.shape for p in fw.split(x, [3, 7])] == [(3,), (7,)]
    assert [p.shape for p in x.chunk(3)] == [(4,), (4,), (2,)]
    with pytest.raises(ValueError, match=r"split: sizes \[3, 3\] sum to 6, but dim 0 has size 10"):
        x.split([3, 3])


def test_comparisons_and_logic_by_name_are_the_operators():
    a, b = Tensor(np.array([1.0, 2.0, np.nan])), Tensor(np.array([1.0, 3.0, 0.0]))
    assert fw.eq(a, b).data.tolist() == [True, False, False] and a.lt(b).data.tolist()[1]
    assert fw.isnan(a).data.tolist() == [False, False, True]
    assert fw.logical_and(a.ge(1), b.gt(0)).data.tolist() == [True, True, False]
    assert not fw.isfinite(a).data[2] and fw.logical_not(a.eq(b)).data[1]


def test_prod_matches_numpy():
    x = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
    np.testing.assert_allclose(Tensor(x).prod().data, np.prod(x))


@pytest.mark.parametrize("call, exercise", [
    (lambda x: fw.cumsum(x, dim=1), "2.11"),
    (lambda x: x.cumsum(0), "2.11"),
    (lambda x: F.smooth_l1_loss(x, x), "3.9"),
    (lambda x: fw.optim.RMSprop([x]), "4.7"),
])
def test_a_bonus_exercises_answer_is_not_provided_and_says_which(call, exercise):
    with pytest.raises((NotImplementedError, AttributeError), match=f"bonus exercise {exercise}"):
        call(Tensor(np.ones((2, 3)), requires_grad=True))


def test_multinomial_draws_ids_in_proportion_to_the_weights():
    fw.manual_seed(0)
    ids = fw.multinomial(Tensor(np.array([0.1, 0.0, 0.9])), 4000, replacement=True)
    assert ids.dtype == np.int64 and ids.shape == (4000,) and not np.any(ids.data == 1)
    assert abs((ids.data == 2).mean() - 0.9) < 0.03


def test_multinomial_without_replacement_never_repeats_an_id():
    ids = Tensor(np.ones((3, 5))).multinomial(5)
    assert all(sorted(row) == [0, 1, 2, 3, 4] for row in ids.data.tolist())
    with pytest.raises(ValueError, match="6 samples without replacement from 5 categories"):
        Tensor(np.ones(5)).multinomial(6)
    with pytest.raises(ValueError, match="multinomial: expects 1-D or 2-D weights, non-negative"):
        Tensor(np.array([0.5, -0.1])).multinomial(1)


def test_mm_takes_matrices_only():
    with pytest.raises(ValueError, match=r"mm: expects two matrices, got shapes \(2, 3, 4\)"):
        fw.mm(Tensor(np.ones((2, 3, 4))), Tensor(np.ones((4, 2))))


# -- the surface: devices, accelerators, legacy constructors, formatting -----------------------------


@pytest.mark.parametrize("make", [lambda d: fw.randn(2, 3, device=d), lambda d: fw.zeros(2, device=d),
                                  lambda d: fw.linspace(0, 1, 5, device=d),
                                  lambda d: fw.tensor([1.0], device=d), lambda d: fw.arange(3, device=d),
                                  lambda d: fw.full((2,), 1.0, device=d)])
def test_factories_accept_the_cpu_and_name_any_other_device(make):
    assert make("cpu").device == fw.device("cpu") and make(fw.device("cpu")).shape
    with pytest.raises(RuntimeError, match=r"device 'cuda:0': the framework computes with NumPy on the CPU"):
        make("cuda:0")


def test_no_accelerator_is_available_as_pytorch_answers_without_one():
    assert not fw.cuda.is_available() and not fw.accelerator.is_available()
    assert fw.accelerator.current_accelerator() is None
    assert not fw.backends.mps.is_available() and not fw.backends.cudnn.is_available()
    fw.set_default_device("cpu")
    with pytest.raises(RuntimeError, match="set_default_device: device 'mps'"):
        fw.set_default_device("mps")


def test_legacy_constructors_take_a_shape_or_data():
    assert fw.LongTensor(3).data.tolist() == [0, 0, 0] and fw.LongTensor(3).dtype == np.int64
    assert fw.FloatTensor([1, 2]).dtype == np.float32 and fw.FloatTensor(2, 3).shape == (2, 3)


def test_a_tensor_of_no_axes_formats_and_indexes_as_its_number():
    assert f"{Tensor(np.float32(0.25)):.3f}" == "0.250" and f"{Tensor(9.0)}" == "9.0"
    assert list(range(10))[Tensor(np.int64(3)):Tensor(np.int64(5))] == [3, 4]
    with pytest.raises(TypeError, match="__index__: only a one-element integer tensor"):
        [1, 2][Tensor(1.0)]


# -- layers -------------------------------------------------------------------------------------


def test_module_to_accepts_a_device_a_dtype_or_both():
    model = nn.Sequential(nn.Linear(2, 3))
    assert model.to("cpu") is model and model.to(fw.device("cpu")).cpu() is model
    assert model.to("cpu", np.float64)[0].weight.dtype == np.float64
    with pytest.raises(RuntimeError, match="Module.to: device 'cuda'"):
        model.to("cuda")


def test_zero_grad_set_to_none_false_keeps_zeros():
    layer = nn.Linear(2, 1)
    layer(Tensor(np.ones((1, 2), np.float32))).sum().backward()
    layer.zero_grad(set_to_none=False)
    assert layer.weight.grad is not None and not layer.weight.grad.any()
    layer.zero_grad()
    assert layer.weight.grad is None


def test_batchnorm2d_normalises_each_channel_and_follows_running_statistics():
    x = Tensor(np.random.default_rng(0).normal(3.0, 2.0, (8, 2, 3, 3)).astype(np.float32))
    bn = nn.BatchNorm2d(2)
    y = bn(x).data
    np.testing.assert_allclose(y.mean((0, 2, 3)), 0, atol=1e-5)
    np.testing.assert_allclose(y.var((0, 2, 3)), 1, atol=1e-3)
    mean, var = x.data.mean((0, 2, 3)), x.data.var((0, 2, 3), ddof=1)
    np.testing.assert_allclose(bn.running_mean, 0.1 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.running_var, 0.9 + 0.1 * var, rtol=1e-5)
    assert sorted(bn.state_dict()) == ["bias", "num_batches_tracked", "running_mean", "running_var",
                                       "weight"]
    expected = (x.data - bn.running_mean[:, None, None]) / np.sqrt(bn.running_var[:, None, None] + 1e-5)
    np.testing.assert_allclose(bn.eval()(x).data, expected, rtol=1e-5)


def test_batchnorm_names_the_shape_it_expects():
    with pytest.raises(ValueError, match=r"BatchNorm1d: input of shape \(4, 3, 2, 2\); expected 2 or 3 axes"):
        nn.BatchNorm1d(3)(Tensor(np.ones((4, 3, 2, 2))))


def test_dropout2d_zeroes_whole_channels_and_leaky_relu_keeps_a_slope():
    fw.manual_seed(1)
    out = nn.Dropout2d(0.5)(Tensor(np.ones((4, 6, 3, 3), np.float32))).data
    per_channel = out.reshape(4, 6, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    assert nn.LeakyReLU(0.2)(Tensor(np.array([-1.0, 2.0]))).data.tolist() == [-0.2, 2.0]


def test_module_dict_registers_its_modules():
    layers = nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.Identity()})
    layers["c"] = nn.Linear(2, 1)
    assert list(layers) == ["a", "b", "c"] and "c" in layers and len(layers) == 3
    assert sorted(dict(layers.named_parameters())) == ["a.bias", "a.weight", "c.bias", "c.weight"]


def test_adadelta_takes_pytorchs_first_step():
    w = fw.nn.Parameter(np.array([1.0, -2.0]))
    w.grad = np.array([0.5, -1.0])
    fw.optim.Adadelta([w], lr=1.0).step()  # v = 0.1 g², Δ = √1e-6/√(v + 1e-6) · g
    np.testing.assert_allclose(w.data, [1.0, -2.0] - np.sqrt(1e-6 / (0.1 * w.grad**2 + 1e-6)) * w.grad)


def test_adadelta_minimises_a_quadratic():
    w = fw.nn.Parameter(np.array([3.0, -2.0]))
    optimizer = fw.optim.Adadelta([w], lr=1.0)
    for _ in range(300):
        optimizer.zero_grad()
        (w * w).sum().backward()
        optimizer.step()
    assert np.abs(w.data).max() < np.abs([3.0, -2.0]).max() * 0.9, w.data


def test_rmsprop_is_not_provided_it_is_bonus_exercise_4_7():
    with pytest.raises(AttributeError, match="bonus exercise 4.7"):
        fw.optim.RMSprop  # noqa: B018

