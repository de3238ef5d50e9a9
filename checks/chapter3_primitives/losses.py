"""Chapter 3, exercises 3.3–3.5: softmax and log-softmax, cross-entropy, MSE and binary cross-entropy."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from checks.chapter3_primitives.common import REDUCTIONS, F, array_of, fw, reals, seeds, small_shapes
from checks.harness import assert_close, backprop, check, gradient_check, probe

# -- 3.3 softmax and log-softmax ----------------------------------------------------------------------


@probe("3.3")
def probe_softmax(fw):
    x = fw.Tensor([1.0, 2.0, 3.0])
    return {"softmax([1, 2, 3])": lambda: F.softmax(x).data,
            "log_softmax([1, 2, 3])": lambda: F.log_softmax(x).data}


def reference_log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    centred = x - np.max(x, axis=axis, keepdims=True)
    return centred - np.log(np.exp(centred).sum(axis=axis, keepdims=True))


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
