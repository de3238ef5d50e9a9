"""Chapter 8, exercise 8.5: fused LayerNorm, softmax and GELU kernels, forward and backward.

The forwards are compared with the definitions written here in NumPy (float64). Each backward
is checked twice in float64 on inputs drawn with hypothesis.extra.numpy: against central
differences of Σ cotangent · forward (the NumPy definition) for a random cotangent, and against
the backward's formula. Softmax must stay finite and right for logits of magnitude 1e4, and
float32 in gives float32 out, close to the float64 definition.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.chapter8_kernels.common import kernels, seeds
from checks.harness import assert_close, central_difference, check, probe

EPS = 1e-5
GRADIENT = {"rtol": 1e-5, "atol": 1e-6}


# -- the definitions, in NumPy ------------------------------------------------------------------


def layer_norm(x, weight, bias, eps=EPS):
    """(y, mean, rstd) per row: biased variance, rstd = 1/√(σ² + ε)."""
    mean = x.mean(axis=1)
    rstd = 1 / np.sqrt(((x - mean[:, None]) ** 2).mean(axis=1) + eps)
    return (x - mean[:, None]) * rstd[:, None] * weight + bias, mean, rstd


def layer_norm_grads(grad, x, weight, eps=EPS):
    """(∂x, ∂w, ∂b) by the formula: ∂x = r · (ĝ - mean ĝ - x̂ · mean(ĝ · x̂)), ĝ = g · w."""
    _, mean, rstd = layer_norm(x, weight, 0 * weight, eps)
    x_hat = (x - mean[:, None]) * rstd[:, None]
    g_hat = grad * weight
    dx = rstd[:, None] * (g_hat - g_hat.mean(axis=1, keepdims=True)
                          - x_hat * (g_hat * x_hat).mean(axis=1, keepdims=True))
    return dx, (grad * x_hat).sum(axis=0), grad.sum(axis=0)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def gelu_slope(x):
    t = np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * math.sqrt(2 / math.pi) * (1 + 3 * 0.044715 * x**2)


def differences(f, x, cotangent):
    """∂(Σ cotangent · f(x))/∂x by central differences, float64."""
    return central_difference(lambda v: float(np.sum(f(v) * cotangent)), x)


def called(kernel, *arrays_in):
    """kernel(*arrays_in) on copies; the inputs must come back untouched."""
    copies = [np.array(a) if isinstance(a, np.ndarray) else a for a in arrays_in]
    result = kernel(*copies)
    for position, (a, c) in enumerate(zip(arrays_in, copies)):
        if isinstance(a, np.ndarray) and not np.array_equal(a, c, equal_nan=True):
            raise AssertionError(
                f"{kernel.__name__}: argument {position} (shape {a.shape}) was changed by the "
                "call; a kernel returns new arrays and leaves its inputs as they were (a buffer "
                "written before it is read again gives wrong results)")
    return result


reals = st.floats(-3.0, 3.0)


@st.composite
def matrices(draw, dtype=np.float64):
    rows, size = draw(st.integers(1, 9)), draw(st.integers(1, 17))
    return draw(arrays(dtype, (rows, size), elements=reals))


@st.composite
def norm_cases(draw):
    x = draw(matrices())
    size = x.shape[1]
    weight = draw(arrays(np.float64, (size,), elements=reals))
    bias = draw(arrays(np.float64, (size,), elements=reals))
    return x, weight, bias


def pinned(rows, size, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((rows, size)) * 2, rng.uniform(0.5, 1.5, size),
            rng.standard_normal(size))


# -- LayerNorm -----------------------------------------------------------------------------------


@probe("8.5")
def probe_fused(fw):
    x = np.array([[1.0, 2.0, 4.0], [-1.0, 0.0, 3.0]])
    return {"layer_norm_forward(x 2×3, w 1, b 0, 1e-5)":
                lambda: called(kernels.layer_norm_forward, x, np.ones(3), np.zeros(3), EPS),
            "softmax_forward(x 2×3)": lambda: called(kernels.softmax_forward, x),
            "gelu_forward([-1, 0, 2])": lambda: called(kernels.gelu_forward,
                                                       np.array([-1.0, 0.0, 2.0]))}


@check("8.5")
@given(case=norm_cases())
@example(case=pinned(3, 5, 0))
@example(case=pinned(1, 1, 1))
@example(case=(np.array([[2.0, 2.0, 2.0], [1.0, -1.0, 0.0]]), np.ones(3), np.zeros(3)))
def test_layer_norm_forward_gives_y_mean_and_rstd(case):
    """y = (x - μ)·r·w + b per row, σ² biased (÷ D), r = 1/√(σ² + ε); mean and rstd returned too."""
    x, weight, bias = case
    got = called(kernels.layer_norm_forward, x, weight, bias, EPS)
    assert isinstance(got, tuple) and len(got) == 3, (
        f"layer_norm_forward returned {type(got).__name__}; expected (y, mean, rstd)")
    what = f"layer_norm_forward of x {x.shape}, eps {EPS}"
    for name, value, expected in zip(("y", "mean", "rstd"), got, layer_norm(x, weight, bias)):
        assert_close(value, expected, f"{what}: {name}", rtol=1e-9, atol=1e-9)


@check("8.5")
@given(case=norm_cases(), seed=seeds)
@example(case=pinned(3, 5, 2), seed=0)
@example(case=pinned(4, 1, 3), seed=1)
def test_layer_norm_backward_matches_central_differences(case, seed):
    """∂x, ∂w, ∂b of Σ cotangent · y: central differences of the NumPy LayerNorm, float64."""
    x, weight, bias = case
    grad = np.random.default_rng(seed).standard_normal(x.shape)
    _, mean, rstd = layer_norm(x, weight, bias)
    got = called(kernels.layer_norm_backward, grad, x, weight, mean, rstd)
    assert isinstance(got, tuple) and len(got) == 3, (
        f"layer_norm_backward returned {type(got).__name__}; expected (dx, dweight, dbias)")
    expected = (differences(lambda v: layer_norm(v, weight, bias)[0], x, grad),
                differences(lambda v: layer_norm(x, v, bias)[0], weight, grad),
                differences(lambda v: layer_norm(x, weight, v)[0], bias, grad))
    scale = {"rtol": 1e-5, "atol": 1e-6 * (1 + float(np.abs(expected[0]).max()))}
    for name, value, want in zip(("dx", "dweight", "dbias"), got, expected):
        assert_close(value, want, f"layer_norm_backward of x {x.shape}: {name} against central "
                     "differences", **scale)


@check("8.5")
@given(case=norm_cases(), seed=seeds)
@example(case=pinned(5, 7, 4), seed=2)
def test_layer_norm_backward_matches_the_formula(case, seed):
    """∂x = r·(ĝ - mean ĝ - x̂·mean(ĝ·x̂)), ĝ = g·w; ∂w = Σ_rows g·x̂, ∂b = Σ_rows g."""
    x, weight, bias = case
    grad = np.random.default_rng(seed).standard_normal(x.shape)
    _, mean, rstd = layer_norm(x, weight, bias)
    got = called(kernels.layer_norm_backward, grad, x, weight, mean, rstd)
    for name, value, want in zip(("dx", "dweight", "dbias"), got,
                                 layer_norm_grads(grad, x, weight)):
        assert_close(value, want, f"layer_norm_backward of x {x.shape}: {name}", rtol=1e-9,
                     atol=1e-9)


# -- softmax -------------------------------------------------------------------------------------


@check("8.5")
@given(x=matrices())
@example(x=np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
@example(x=np.array([[5.0]]))
def test_softmax_forward_matches_the_definition(x):
    """y = exp(x - max) / Σ exp(x - max) per row."""
    assert_close(called(kernels.softmax_forward, x), softmax(x),
                 f"softmax_forward of x {x.shape}", rtol=1e-10, atol=1e-12)


@check("8.5")
def test_softmax_forward_is_finite_for_logits_of_magnitude_1e4():
    """Logits of ±1e4 (exp overflows float64 past 709): subtracting the row's max keeps it right."""
    rng = np.random.default_rng(8)
    x = np.concatenate([rng.uniform(-1e4, 1e4, (3, 6)), [[1e4, 1e4 - 1, 1e4 - 2, -1e4, 0, 9e3]]])
    got = np.asarray(called(kernels.softmax_forward, x))
    assert np.isfinite(got).all(), (
        f"softmax_forward of logits up to ±1e4 gave {np.count_nonzero(~np.isfinite(got))} "
        "non-finite values (exp(1e4) overflows): subtract each row's max before exp")
    assert_close(got, softmax(x), "softmax_forward of logits up to ±1e4", rtol=1e-10, atol=1e-12)


@check("8.5")
@given(x=matrices(), seed=seeds)
@example(x=np.array([[1.0, 2.0, 3.0], [0.5, -0.5, 0.0]]), seed=0)
def test_softmax_backward_matches_central_differences_and_the_formula(x, seed):
    """∂x = y·(g - Σ_j g_j y_j) per row: central differences of Σ g·softmax(x), and the formula."""
    grad = np.random.default_rng(seed).standard_normal(x.shape)
    y = softmax(x)
    got = called(kernels.softmax_backward, grad, y)
    what = f"softmax_backward of x {x.shape}"
    assert_close(got, differences(softmax, x, grad), f"{what} against central differences",
                 **GRADIENT)
    assert_close(got, y * (grad - (grad * y).sum(axis=1, keepdims=True)), what, rtol=1e-10,
                 atol=1e-12)


# -- GELU ----------------------------------------------------------------------------------------


vectors = st.integers(1, 40).flatmap(lambda n: arrays(np.float64, (n,), elements=st.floats(-5, 5)))


@check("8.5")
@given(x=vectors)
@example(x=np.array([-3.0, -1.0, 0.0, 0.5, 2.0]))
def test_gelu_forward_is_the_tanh_form(x):
    """y = x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))."""
    assert_close(called(kernels.gelu_forward, x), gelu(x), f"gelu_forward of x {x.shape}",
                 rtol=1e-10, atol=1e-12)


@check("8.5")
@given(x=vectors, seed=seeds)
@example(x=np.array([-3.0, -1.0, 0.0, 0.5, 2.0]), seed=0)
def test_gelu_backward_matches_central_differences_and_the_formula(x, seed):
    """∂x = g · GELU'(x): central differences of Σ g·gelu(x), and the derivative's formula."""
    grad = np.random.default_rng(seed).standard_normal(x.shape)
    got = called(kernels.gelu_backward, grad, x)
    what = f"gelu_backward of x {x.shape}"
    assert_close(got, differences(gelu, x, grad), f"{what} against central differences",
                 **GRADIENT)
    assert_close(got, grad * gelu_slope(x), what, rtol=1e-10, atol=1e-12)


# -- float32 -------------------------------------------------------------------------------------


@check("8.5")
def test_float32_in_gives_float32_out_close_to_float64():
    """Every fused kernel given float32 returns float32 (y, mean, rstd, dx, dw, db too), ≈ float64."""
    x64, w64, b64 = pinned(4, 9, 5)
    g64 = np.random.default_rng(6).standard_normal(x64.shape)
    x, w, b, g = (v.astype(np.float32) for v in (x64, w64, b64, g64))
    _, mean, rstd = layer_norm(x64, w64, b64)
    results = {
        "layer_norm_forward": (called(kernels.layer_norm_forward, x, w, b, EPS),
                               layer_norm(x64, w64, b64)),
        "layer_norm_backward": (called(kernels.layer_norm_backward, g, x, w,
                                       mean.astype(np.float32), rstd.astype(np.float32)),
                                layer_norm_grads(g64, x64, w64)),
        "softmax_forward": ((called(kernels.softmax_forward, x),), (softmax(x64),)),
        "softmax_backward": ((called(kernels.softmax_backward, g, softmax(x64).astype(np.float32)),),
                             (softmax(x64) * (g64 - (g64 * softmax(x64)).sum(1, keepdims=True)),)),
        "gelu_forward": ((called(kernels.gelu_forward, x[0]),), (gelu(x64[0]),)),
        "gelu_backward": ((called(kernels.gelu_backward, g[0], x[0]),),
                          (g64[0] * gelu_slope(x64[0]),)),
    }
    for name, (got, expected) in results.items():
        for position, (value, want) in enumerate(zip(got, expected)):
            dtype = np.asarray(value).dtype
            assert dtype == np.float32, (
                f"{name} of float32 inputs: output {position} is {dtype}; allocate outputs in the "
                "input's dtype (np.empty_like(x), np.empty(n, x.dtype))")
            assert_close(value, want, f"{name} in float32: output {position}", rtol=1e-4,
                         atol=1e-4)
