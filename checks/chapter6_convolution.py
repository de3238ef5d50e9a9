"""Chapter 6 grader: unfold, convolution and its gradients, pooling, the Conv2d layer.

Forward values are compared with loops over output positions written here (the
textbook definitions); every gradient is checked in float64 through the graders' own
walk with a random cotangent, element by element, on inputs drawn by hypothesis with
strides 1–3, padding 0–2, non-square kernels and images, several channels and
batches. The three gradients of a convolution are checked apart (6.3: weight and
bias, with an input that needs no gradient; 6.4: the input, with a weight that needs
none), so each exercise is graded on its own. Max pooling is checked on tie-free
inputs, and its tie rule (one winner, the first maximum) directly. 6.7 trains a small
CNN of the learner's parts on the digits.
"""

from __future__ import annotations

import contextlib
import importlib
import math
from typing import NamedTuple

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

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
conv = importlib.import_module(f"{fw.__name__}.nn.conv")
optim = importlib.import_module(f"{fw.__name__}.optim")

seeds = st.integers(0, 2**32 - 1)
reals = st.floats(-2.0, 2.0)


# -- the definitions, written as loops ---------------------------------------------------------------


def padded(x: np.ndarray, padding) -> np.ndarray:
    return np.pad(x, ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])))


def out_size(size: int, kernel: int, stride: int, padding: int) -> int:
    return (size + 2 * padding - kernel) // stride + 1


def loop_windows(x, kernel, stride, padding) -> np.ndarray:
    """windows[n, c, i, j] = x_padded[n, c, i·sH : i·sH + kH, j·sW : j·sW + kW], slice by slice."""
    xp = padded(x, padding)
    oh = out_size(x.shape[2], kernel[0], stride[0], padding[0])
    ow = out_size(x.shape[3], kernel[1], stride[1], padding[1])
    out = np.zeros(x.shape[:2] + (oh, ow) + tuple(kernel), x.dtype)
    for i in range(oh):
        for j in range(ow):
            top, left = i * stride[0], j * stride[1]
            out[:, :, i, j] = xp[:, :, top:top + kernel[0], left:left + kernel[1]]
    return out


def loop_conv2d(x, weight, bias, stride, padding) -> np.ndarray:
    """y[n, o, i, j] = b[o] + Σ_{c,u,v} W[o, c, u, v] · x_padded[n, c, i·sH + u, j·sW + v]."""
    windows = loop_windows(x, weight.shape[2:], stride, padding)
    out = np.zeros((x.shape[0], weight.shape[0]) + windows.shape[2:4])
    for i in range(windows.shape[2]):
        for j in range(windows.shape[3]):
            out[:, :, i, j] = np.tensordot(windows[:, :, i, j], weight, axes=([1, 2, 3], [1, 2, 3]))
    return out if bias is None else out + bias[None, :, None, None]


def loop_pool(x, kernel, stride, reduce) -> np.ndarray:
    windows = loop_windows(x, kernel, stride, (0, 0))
    return reduce(windows.reshape(windows.shape[:4] + (-1,)), axis=-1)


# -- the cases ----------------------------------------------------------------------------------------


class ConvCase(NamedTuple):
    x: np.ndarray
    weight: np.ndarray
    bias: np.ndarray | None
    stride: tuple[int, int]
    padding: tuple[int, int]

    def __repr__(self) -> str:
        bias = "no bias" if self.bias is None else f"bias {self.bias.shape}"
        return (f"x {self.x.shape}, weight {self.weight.shape}, {bias}, stride {self.stride}, "
                f"padding {self.padding}")


EITHER = st.booleans()


@st.composite
def conv_cases(draw, bias=EITHER):
    """N, C_in, C_out 1–3; kernels 1–3 × 1–3; strides 1–3; padding 0–2; images up to 6×6."""
    n, c, o = (draw(st.integers(1, 3)) for _ in range(3))
    kernel = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    stride = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    padding = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    h = draw(st.integers(max(1, kernel[0] - 2 * padding[0]), 6))
    w = draw(st.integers(max(1, kernel[1] - 2 * padding[1]), 6))
    x = draw(arrays(np.float64, (n, c, h, w), elements=reals))
    weight = draw(arrays(np.float64, (o, c) + kernel, elements=reals))
    b = draw(arrays(np.float64, (o,), elements=reals)) if draw(bias) else None
    return ConvCase(x, weight, b, stride, padding)


def case_of(seed: int, x_shape, weight_shape, stride, padding, bias: bool = True) -> ConvCase:
    rng = np.random.default_rng(seed)
    b = rng.standard_normal(weight_shape[0]) if bias else None
    return ConvCase(rng.standard_normal(x_shape), rng.standard_normal(weight_shape), b,
                    stride, padding)


# stride 2 and padding 1 with a 2×3 kernel on a 5×7 image, 2 → 3 channels, a batch of 2
CLASSIC = case_of(0, (2, 2, 5, 7), (3, 2, 2, 3), (2, 1), (1, 1))
# a stride that leaves the last row and column unread: 6 + 2 - 3 = 5 is not a multiple of 2
UNREAD = case_of(1, (1, 2, 6, 6), (2, 2, 3, 3), (2, 2), (1, 1))
SQUARE = case_of(2, (3, 1, 4, 4), (2, 1, 3, 3), (1, 1), (0, 0), bias=False)


@st.composite
def pool_cases(draw):
    """Tie-free images (distinct values 0.1 apart) with kernels 1–3 and strides 1–3 (overlap too)."""
    n, c = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kernel = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    stride = draw(st.none() | st.tuples(st.integers(1, 3), st.integers(1, 3)))
    h, w = draw(st.integers(kernel[0], 7)), draw(st.integers(kernel[1], 7))
    order = np.random.default_rng(draw(seeds)).permutation(n * c * h * w)
    return (0.1 * order - 1.0).reshape(n, c, h, w), kernel, stride


def as_tensor(array, requires_grad: bool = False):
    return None if array is None else fw.Tensor(np.array(array), requires_grad=requires_grad)


@contextlib.contextmanager
def graders_unfold():
    """conv.unfold replaced by the graders' loops, so that a probe reaches its own exercise's code."""
    learners = conv.unfold
    conv.unfold = lambda x, kernel, stride=(1, 1), padding=(0, 0): loop_windows(
        x, kernel, stride, padding)
    try:
        yield
    finally:
        conv.unfold = learners


# -- 6.1 unfold ---------------------------------------------------------------------------------------


@probe("6.1")
def probe_unfold(fw):
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    return {"unfold(arange(16) as 4×4, (2, 2), stride (2, 2))[0, 0]":
            conv.unfold(x, (2, 2), (2, 2), (0, 0))[0, 0]}


@check("6.1")
@given(case=conv_cases(bias=st.just(False)))
@example(case=CLASSIC)
@example(case=UNREAD)
def test_unfold_gives_every_window_of_the_padded_input(case):
    """windows[n, c, i, j] is the kH×kW patch of the zero-padded x at (i·sH, j·sW), for every i, j."""
    kernel = case.weight.shape[2:]
    got = np.asarray(conv.unfold(case.x, kernel, case.stride, case.padding))
    assert_close(got, loop_windows(case.x, kernel, case.stride, case.padding),
                 f"unfold of x {case.x.shape} with kernel {kernel}, stride {case.stride}, "
                 f"padding {case.padding}", rtol=0, atol=0)


@check("6.1")
def test_unfold_window_counts_follow_the_output_size_formula():
    """OH = ⌊(H + 2p - k) / s⌋ + 1 windows: a 7×7 input, 3×3 kernel, stride 2, padding 1 gives 4×4."""
    x = np.ones((1, 1, 7, 7))
    for kernel, stride, padding, expected in (((3, 3), (2, 2), (1, 1), (4, 4)),
                                              ((3, 3), (1, 1), (0, 0), (5, 5)),
                                              ((2, 3), (3, 2), (0, 2), (2, 5))):
        shape = np.shape(conv.unfold(x, kernel, stride, padding))
        assert shape == (1, 1) + expected + kernel, (
            f"unfold of a 7×7 input, kernel {kernel}, stride {stride}, padding {padding}: windows "
            f"of shape {shape}, expected {(1, 1) + expected + kernel}"
        )


@check("6.1")
def test_unfold_windows_overlap_in_memory():
    """The windows are a strided view: neighbouring windows share memory, no 9× copy is made."""
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8))
    windows = conv.unfold(x, (3, 3), (1, 1), (0, 0))
    strides = np.asarray(windows).strides
    assert strides[2] == strides[4] and strides[3] == strides[5], (
        f"windows of strides {strides}: one step to the next window should be one step to the "
        "next pixel (axes 2 and 4, 3 and 5), as in a view; a copy of every window was made. "
        "sliding_window_view (or as_strided) gives the windows without copying"
    )
    assert_close(windows[1, 2, 4, 5], x[1, 2, 4:7, 5:8], "the window at (4, 5)", rtol=0, atol=0)


# -- 6.2 convolution forward ----------------------------------------------------------------------


@probe("6.2")
def probe_conv2d(fw):
    x = fw.Tensor(np.arange(16.0).reshape(1, 1, 4, 4))
    weight = fw.Tensor(np.array([[[[1.0, 0.0], [0.0, -1.0]]]]))
    with graders_unfold():
        out = F.conv2d(x, weight, fw.Tensor(np.array([0.5])), stride=2)
    return {"conv2d(arange(16) as 4×4, [[1, 0], [0, -1]], bias 0.5, stride 2)": out.data}


@check("6.2")
@given(case=conv_cases())
@example(case=CLASSIC)
@example(case=UNREAD)
@example(case=SQUARE)
def test_conv2d_matches_the_definition(case):
    """y[n, o, i, j] = b[o] + Σ W[o, c, u, v] · x_pad[n, c, i·sH + u, j·sW + v] (no kernel flip)."""
    out = F.conv2d(fw.Tensor(case.x), fw.Tensor(case.weight), as_tensor(case.bias),
                   stride=case.stride, padding=case.padding)
    assert_close(out.data, loop_conv2d(*case), f"conv2d({case!r})")


@check("6.2")
def test_conv2d_takes_ints_and_keeps_float32():
    """stride=2, padding=1 as ints mean (2, 2) and (1, 1); float32 in, float32 out."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    weight = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    out = F.conv2d(fw.Tensor(x), fw.Tensor(weight), None, stride=2, padding=1)
    assert out.data.dtype == np.float32, f"float32 input and weight gave {out.data.dtype}"
    assert_close(out.data, loop_conv2d(x, weight, None, (2, 2), (1, 1)),
                 "conv2d(x (2, 3, 7, 6), weight (4, 3, 3, 3), stride=2, padding=1)",
                 rtol=1e-4, atol=1e-4)


@check("6.2")
def test_conv2d_of_a_one_hot_kernel_shifts_the_image():
    """A 3×3 kernel with a single 1 at (0, 2) and padding 1 reads each pixel's upper-right neighbour."""
    x = np.random.default_rng(4).standard_normal((1, 1, 5, 5))
    weight = np.zeros((1, 1, 3, 3))
    weight[0, 0, 0, 2] = 1.0
    out = F.conv2d(fw.Tensor(x), fw.Tensor(weight), None, stride=1, padding=1).data
    expected = padded(x, (1, 1))[:, :, 0:5, 2:7]
    assert_close(out, expected, "conv2d with a one-hot kernel at (0, 2): x shifted, not flipped")


@check("6.2")
@given(case=conv_cases())
@example(case=CLASSIC)
def test_conv2d_reads_a_channels_last_input_as_any_other(case):
    """The same values give the same output whether x's memory is NCHW or channels-last (the
    layout the CNN's second convolution receives from the first)."""
    channels_last = np.ascontiguousarray(case.x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    out = F.conv2d(fw.Tensor(channels_last), fw.Tensor(case.weight), as_tensor(case.bias),
                   stride=case.stride, padding=case.padding)
    assert_close(out.data, loop_conv2d(*case), f"conv2d({case!r}) of a channels-last x")


# -- 6.3 weight and bias gradients ----------------------------------------------------------------


@probe("6.3")
def probe_weight_grad(fw):
    grad = np.ones((1, 1, 2, 2))
    columns = np.arange(8.0).reshape(4, 2)
    return {"conv2d_weight_grad(ones (1, 1, 2, 2), columns arange(8) (4, 2))":
            conv.conv2d_weight_grad(grad, columns, (1, 2, 1, 1)),
            "conv2d_bias_grad(ones (2, 3, 2, 2))": conv.conv2d_bias_grad(np.ones((2, 3, 2, 2)))}


@check("6.3")
@given(case=conv_cases(bias=st.just(True)), seed=seeds)
@example(case=CLASSIC, seed=0)
@example(case=UNREAD, seed=1)
def test_conv2d_weight_and_bias_gradients(case, seed):
    """∂W = the correlation of x with G, ∂b = Σ_{n,i,j} G (the input needs no gradient here)."""
    x = fw.Tensor(case.x)
    weight, bias = as_tensor(case.weight, True), as_tensor(case.bias, True)
    check_gradients(lambda: F.conv2d(x, weight, bias, stride=case.stride, padding=case.padding),
                    [weight, bias], seed, f"conv2d({case!r})")


@check("6.3")
def test_bias_gradient_counts_every_position_of_every_image():
    """With G all ones, ∂b[o] = N · OH · OW: 2 images of 3×4 outputs give 24 per channel."""
    x = fw.Tensor(np.ones((2, 1, 5, 4)))
    weight = fw.Tensor(np.ones((3, 1, 3, 1)))
    bias = fw.Tensor(np.zeros(3), requires_grad=True)
    out = F.conv2d(x, weight, bias, stride=1, padding=0)
    grad = backprop(out, np.ones(out.data.shape))[id(bias)]
    assert_close(grad, np.full(3, 24.0), "∂b of conv2d with G = 1 on 2 images, 3×4 outputs")


# -- 6.4 the input gradient ------------------------------------------------------------------------


@probe("6.4")
def probe_input_grad(fw):
    weight = np.array([[[[1.0, 2.0], [3.0, 4.0]]]])
    return {"conv2d_input_grad(ones (1, 1, 2, 2), [[1, 2], [3, 4]], x (1, 1, 3, 3))":
            conv.conv2d_input_grad(np.ones((1, 1, 2, 2)), weight, (1, 1, 3, 3), (1, 1), (0, 0))}


@check("6.4")
@given(case=conv_cases(), seed=seeds)
@example(case=CLASSIC, seed=0)
@example(case=UNREAD, seed=1)
@example(case=SQUARE, seed=2)
def test_conv2d_input_gradient(case, seed):
    """∂x is the transposed convolution of G: stride, padding, flipped kernel (weight needs none)."""
    x = as_tensor(case.x, True)
    weight, bias = fw.Tensor(case.weight), as_tensor(case.bias)
    check_gradients(lambda: F.conv2d(x, weight, bias, stride=case.stride, padding=case.padding),
                    [x], seed, f"conv2d({case!r})")


@check("6.4")
def test_unread_pixels_get_zero_gradient():
    """Stride 3 with a 2×2 kernel skips every third row and column: their gradient is exactly 0."""
    x = fw.Tensor(np.random.default_rng(5).standard_normal((1, 2, 6, 6)), requires_grad=True)
    weight = fw.Tensor(np.random.default_rng(6).standard_normal((3, 2, 2, 2)))
    out = F.conv2d(x, weight, None, stride=3, padding=0)
    grad = backprop(out, np.random.default_rng(7).standard_normal(out.data.shape))[id(x)]
    assert np.asarray(grad).shape == (1, 2, 6, 6), f"∂x of shape {np.shape(grad)}"
    assert np.all(grad[:, :, 2::3, :] == 0) and np.all(grad[:, :, :, 2::3] == 0), (
        f"rows and columns 2 and 5 are in no window, yet got gradient\n{grad[0, 0]}"
    )


@check("6.4")
@given(case=conv_cases(bias=st.just(True)), seed=seeds)
@example(case=CLASSIC, seed=3)
def test_all_three_gradients_together(case, seed):
    """x, W and b all require grad: one backward gives the three gradients at once."""
    x, weight, bias = (as_tensor(a, True) for a in (case.x, case.weight, case.bias))
    check_gradients(lambda: F.conv2d(x, weight, bias, stride=case.stride, padding=case.padding),
                    [x, weight, bias], seed, f"conv2d({case!r})")


# -- 6.5 max pooling ---------------------------------------------------------------------------------


@probe("6.5")
def probe_max_pool(fw):
    x = fw.Tensor(np.array([[[[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 8.0, 7.0]]]]), requires_grad=True)
    with graders_unfold():
        out = F.max_pool2d(x, 2)
    return {"max_pool2d([[1, 5, 2, 0], [3, 4, 8, 7]], 2)": out.data,
            "its gradient for G = [[1, 2]]": backprop(out, np.array([[[[1.0, 2.0]]]]))[id(x)]}


def pooled(function, x, kernel, stride):
    return function(fw.Tensor(x), kernel, stride)


@check("6.5")
@given(case=pool_cases())
@example(case=(np.arange(24.0).reshape(1, 2, 3, 4)[:, :, :, ::-1], (2, 2), None))
def test_max_pool_forward_is_the_maximum_of_each_window(case):
    """y[n, c, i, j] = max of the window at (i·sH, j·sW); stride defaults to the kernel size."""
    x, kernel, stride = case
    out = pooled(F.max_pool2d, x, kernel, stride)
    assert_close(out.data, loop_pool(x, kernel, stride or kernel, np.max),
                 f"max_pool2d of x {x.shape}, kernel {kernel}, stride {stride}")


@check("6.5")
@given(case=pool_cases(), seed=seeds)
@example(case=(0.1 * np.random.default_rng(0).permutation(36).reshape(1, 1, 6, 6), (3, 3), (1, 2)),
         seed=0)
def test_max_pool_gradient_goes_to_each_windows_maximum(case, seed):
    """Tie-free inputs: G reaches only each window's maximum; a pixel winning two windows gets both."""
    x, kernel, stride = case
    leaf = as_tensor(x, True)
    check_gradients(lambda: F.max_pool2d(leaf, kernel, stride), [leaf], seed,
                    f"max_pool2d of x {x.shape}, kernel {kernel}, stride {stride}")


@check("6.5")
def test_max_pool_routes_a_tie_to_the_first_maximum():
    """A window of equal values sends all of G to its first maximum in row-major order (PyTorch's)."""
    x = np.array([[[[2.0, 2.0, 1.0, 3.0], [2.0, 2.0, 3.0, 0.0]]]])
    leaf = fw.Tensor(x, requires_grad=True)
    out = F.max_pool2d(leaf, 2)
    grad = backprop(out, np.array([[[[1.0, 10.0]]]]))[id(leaf)]
    expected = np.array([[[[1.0, 0.0, 0.0, 10.0], [0.0, 0.0, 0.0, 0.0]]]])
    assert_close(out.data, [[[[2.0, 3.0]]]], "max_pool2d of two windows with ties")
    assert_close(grad, expected, "max_pool2d's gradient at ties: one winner per window, the first")


@check("6.5")
def test_max_pool_routes_ties_in_overlapping_windows_window_by_window():
    """2×2 windows at stride 1 with ties: each window sends its G to its own first maximum, so a
    pixel that is first in both windows gets both shares and the tied others get nothing."""
    x = np.array([[[[1.0, 3.0, 3.0], [0.0, 3.0, 1.0]]]])
    leaf = fw.Tensor(x, requires_grad=True)
    out = F.max_pool2d(leaf, (2, 2), (1, 1))
    grad = backprop(out, np.array([[[[1.0, 10.0]]]]))[id(leaf)]
    expected = np.array([[[[0.0, 11.0, 0.0], [0.0, 0.0, 0.0]]]])
    assert_close(grad, expected, "max_pool2d's gradient, 2×2 windows at stride 1 with ties")


# -- 6.6 average pooling -----------------------------------------------------------------------------


@probe("6.6")
def probe_avg_pool(fw):
    x = fw.Tensor(np.arange(8.0).reshape(1, 1, 2, 4), requires_grad=True)
    with graders_unfold():
        out = F.avg_pool2d(x, 2)
    return {"avg_pool2d([[0, 1, 2, 3], [4, 5, 6, 7]], 2)": out.data,
            "its gradient for G = [[1, 2]]": backprop(out, np.array([[[[1.0, 2.0]]]]))[id(x)]}


@check("6.6")
@given(case=pool_cases())
def test_avg_pool_forward_is_the_mean_of_each_window(case):
    """y[n, c, i, j] = the mean of the window at (i·sH, j·sW); stride defaults to the kernel size."""
    x, kernel, stride = case
    out = pooled(F.avg_pool2d, x, kernel, stride)
    assert_close(out.data, loop_pool(x, kernel, stride or kernel, np.mean),
                 f"avg_pool2d of x {x.shape}, kernel {kernel}, stride {stride}")


@check("6.6")
@given(case=pool_cases(), seed=seeds)
@example(case=(np.ones((1, 1, 5, 5)), (3, 2), (1, 1)), seed=0)
def test_avg_pool_gradient_shares_g_equally(case, seed):
    """Each pixel gets G / (kH·kW) from every window it is in, overlapping windows added."""
    x, kernel, stride = case
    leaf = as_tensor(x, True)
    check_gradients(lambda: F.avg_pool2d(leaf, kernel, stride), [leaf], seed,
                    f"avg_pool2d of x {x.shape}, kernel {kernel}, stride {stride}")


# -- 6.7 the Conv2d layer -----------------------------------------------------------------------------


@probe("6.7")
def probe_conv_layer(fw):
    fw.manual_seed(0)
    layer = nn.Conv2d(1, 2, 3, padding=1)
    return {"Conv2d(1, 2, 3) weight shape": layer.weight.shape,
            "its output shape on (1, 1, 4, 4)": layer(fw.Tensor(np.ones((1, 1, 4, 4)))).shape}


def names(module) -> list[str]:
    return [name for name, _ in module.named_parameters()]


@check("6.7")
def test_conv2d_layer_has_out_in_kh_kw_weight_and_out_bias():
    """Conv2d(3, 5, (2, 4)): weight (5, 3, 2, 4) and bias (5,), float32 Parameters; bias=False: none."""
    layer = nn.Conv2d(3, 5, (2, 4))
    assert names(layer) == ["weight", "bias"], f"parameters {names(layer)}"
    assert layer.weight.shape == (5, 3, 2, 4), f"weight {layer.weight.shape}, expected (out, in, kH, kW)"
    assert layer.bias.shape == (5,), f"bias {layer.bias.shape}, expected (out_channels,)"
    assert layer.weight.dtype == np.float32 and layer.bias.dtype == np.float32, "float32"
    assert isinstance(layer.weight, nn.Parameter) and isinstance(layer.bias, nn.Parameter)
    plain = nn.Conv2d(3, 5, 3, bias=False)
    assert plain.bias is None and names(plain) == ["weight"], (
        f"Conv2d(..., bias=False): bias {plain.bias!r}, parameters {names(plain)}"
    )


@check("6.7")
@given(seed=seeds, c_in=st.integers(1, 4), c_out=st.integers(1, 4),
       kernel=st.tuples(st.integers(1, 3), st.integers(1, 3)), bias=st.booleans())
@example(seed=0, c_in=1, c_out=8, kernel=(3, 3), bias=True)
def test_conv2d_layer_init_is_pytorchs(seed, c_in, c_out, kernel, bias):
    """After manual_seed(s): weight, then bias, are default_rng(s).uniform(±1/√(in·kH·kW))."""
    fw.manual_seed(seed)
    layer = nn.Conv2d(c_in, c_out, kernel, bias=bias)
    rng = np.random.default_rng(seed)
    bound = 1 / math.sqrt(c_in * kernel[0] * kernel[1])
    weight = rng.uniform(-bound, bound, (c_out, c_in) + kernel).astype(np.float32)
    assert_close(layer.weight.data, weight, f"Conv2d({c_in}, {c_out}, {kernel}) weight after "
                 f"manual_seed({seed}): kaiming_uniform_ with a = √5, drawn first")
    if bias:
        expected = rng.uniform(-bound, bound, c_out).astype(np.float32)
        assert_close(layer.bias.data, expected, f"Conv2d({c_in}, {c_out}, {kernel}) bias: "
                     f"U(±1/√fan_in), drawn right after the weight")


@check("6.7")
@given(seed=seeds, stride=st.integers(1, 3), padding=st.integers(0, 2), bias=st.booleans())
@example(seed=0, stride=2, padding=1, bias=True)
def test_conv2d_layer_uses_its_stride_and_padding(seed, stride, padding, bias):
    """Conv2d(2, 3, (3, 2), stride, padding)(x) = conv2d(x, weight, bias, stride, padding)."""
    fw.manual_seed(seed)
    layer = nn.Conv2d(2, 3, (3, 2), stride=stride, padding=padding, bias=bias).to(np.float64)
    x = np.random.default_rng(seed).standard_normal((2, 2, 5, 6))
    bias_data = layer.bias.data if bias else None
    assert_close(layer(fw.Tensor(x)).data,
                 loop_conv2d(x, layer.weight.data, bias_data, (stride, stride), (padding, padding)),
                 f"Conv2d(2, 3, (3, 2), stride={stride}, padding={padding}, bias={bias})")


@check("6.7")
def test_a_small_cnn_learns_the_digits():
    """Conv2d → ReLU → MaxPool2d → Flatten → Linear, Adam, 150 steps: ≥ 90% on 300 test digits."""
    X_train, y_train, X_test, y_test = fw.data.load_digits()
    X_train, y_train, X_test, y_test = X_train[:600], y_train[:600], X_test[:300], y_test[:300]
    fw.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(96, 10))
    optimizer = optim.Adam(model.parameters(), lr=0.02)
    rng = np.random.default_rng(0)
    for _ in range(150):
        rows = rng.integers(0, len(X_train), 64)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(fw.Tensor(X_train[rows])), y_train[rows])
        loss.backward()
        optimizer.step()
    with fw.no_grad():
        accuracy = float((model(fw.Tensor(X_test)).data.argmax(axis=1) == y_test).mean())
    assert accuracy >= 0.9, (
        f"a CNN of your Conv2d reached {accuracy:.1%} on 300 test digits after 150 Adam steps "
        f"(the reference: about 95%); last loss {loss.item():.3f}"
    )


# -- bonus track: graded apart from the 100 points ---------------------------------------------


def variants():
    """`framework.bonus.chapter6_convolution`, the bonus file (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.bonus.chapter6_convolution")


def loop_dilated_conv2d(x, weight, bias, stride, padding, dilation) -> np.ndarray:
    """y[n, o, i, j] = b[o] + Σ_{c,u,v} W[o, c, u, v] · x_padded[n, c, i·sH + d·u, j·sW + d·v]."""
    xp = padded(x, padding)
    kh, kw = weight.shape[-2:]
    oh = out_size(x.shape[2], dilation * (kh - 1) + 1, stride[0], padding[0])
    ow = out_size(x.shape[3], dilation * (kw - 1) + 1, stride[1], padding[1])
    out = np.zeros((x.shape[0], weight.shape[0], oh, ow))
    for i in range(oh):
        for j in range(ow):
            for u in range(kh):
                for v in range(kw):
                    pixel = xp[:, :, i * stride[0] + dilation * u, j * stride[1] + dilation * v]
                    out[:, :, i, j] += pixel @ weight[:, :, u, v].T
    return out if bias is None else out + bias[None, :, None, None]


@st.composite
def dilated_cases(draw):
    """A convolution case whose image fits the kernel spread out by a dilation of 1–3."""
    dilation = draw(st.integers(1, 3))
    case = draw(conv_cases())
    kh, kw = case.weight.shape[2:]
    need = (dilation * (kh - 1) + 1 - 2 * case.padding[0], dilation * (kw - 1) + 1 - 2 * case.padding[1])
    grow = [max(0, n - size) for n, size in zip(need, case.x.shape[2:])]
    x = np.pad(case.x, ((0, 0), (0, 0), (0, grow[0]), (0, grow[1])), constant_values=0.5)
    return case._replace(x=x), dilation


# -- 6.8 (bonus) dilation ------------------------------------------------------------------------


@probe("6.8")
def probe_dilate(fw):
    w = fw.Tensor(np.arange(4.0).reshape(1, 1, 2, 2))
    return {"dilate([[0, 1], [2, 3]], 2)": lambda: variants().dilate(w, 2).data[0, 0]}


@check("6.8")
@given(shape=st.tuples(*(st.integers(1, 3),) * 4), dilation=st.integers(1, 3), seed=seeds)
@example(shape=(1, 1, 2, 2), dilation=2, seed=0)
def test_dilate_spreads_the_taps_and_reads_their_gradient_back(shape, dilation, seed):
    """dilate: tap (u, v) at (d·u, d·v), zeros between, the dtype kept; its gradient by differences."""
    w = np.random.default_rng(seed).standard_normal(shape)
    got = variants().dilate(fw.Tensor(w.astype(np.float32)), dilation).data
    spread = (dilation * (shape[2] - 1) + 1, dilation * (shape[3] - 1) + 1)
    expected = np.zeros(shape[:2] + spread)
    expected[:, :, ::dilation, ::dilation] = w
    what = f"dilate(weight {shape}, {dilation})"
    assert got.dtype == np.float32, f"{what} of float32 gave {got.dtype}"
    assert_close(got, expected, what)
    gradient_check(lambda t: variants().dilate(t, dilation), [w], seed, what)


@check("6.8")
@given(case=dilated_cases())
@example(case=(CLASSIC, 2))
def test_dilated_convolution_matches_its_loops(case):
    """conv2d_dilated reads x_padded[i·s + d·u, j·s + d·v] for tap (u, v): against loops."""
    (x, weight, bias, stride, padding), dilation = case
    got = variants().conv2d_dilated(fw.Tensor(x), fw.Tensor(weight), as_tensor(bias), stride,
                                    padding, dilation)
    assert_close(got.data, loop_dilated_conv2d(x, weight, bias, stride, padding, dilation),
                 f"conv2d_dilated({case[0]}, dilation {dilation})")


# -- 6.9 (bonus) depthwise convolution -----------------------------------------------------------


@st.composite
def depthwise_cases(draw):
    """A convolution case made depthwise: weight (C, 1, kH, kW), bias (C,) or None."""
    case = draw(conv_cases())
    c = case.x.shape[1]
    weight = draw(arrays(np.float64, (c, 1) + case.weight.shape[2:], elements=reals))
    bias = draw(arrays(np.float64, (c,), elements=reals)) if draw(st.booleans()) else None
    return case._replace(weight=weight, bias=bias)


def loop_depthwise(x, weight, bias, stride, padding) -> np.ndarray:
    """Each channel on its own: channel c of loop_conv2d(x[:, c:c+1], weight[c:c+1])."""
    out = np.concatenate([loop_conv2d(x[:, c:c + 1], weight[c:c + 1], None, stride, padding)
                          for c in range(x.shape[1])], axis=1)
    return out if bias is None else out + bias[None, :, None, None]


@probe("6.9")
def probe_depthwise(fw):
    x = fw.Tensor(np.arange(18.0).reshape(1, 2, 3, 3))
    w = fw.Tensor(np.stack([np.ones((1, 2, 2)), -np.ones((1, 2, 2))]))
    return {"depthwise_conv2d, kernels of 1s and -1s": lambda: variants().depthwise_conv2d(x, w).data}


@check("6.9")
@given(case=depthwise_cases())
@example(case=CLASSIC._replace(weight=CLASSIC.weight[:2, :1], bias=CLASSIC.bias[:2]))
def test_depthwise_convolution_matches_its_loops(case):
    """Channel c of the output is channel c of x convolved with weight[c] alone, plus bias[c]."""
    got = variants().depthwise_conv2d(fw.Tensor(case.x), fw.Tensor(case.weight),
                                      as_tensor(case.bias), case.stride, case.padding)
    assert_close(got.data, loop_depthwise(*case), f"depthwise_conv2d({case})")


@check("6.9")
@given(case=depthwise_cases(), seed=seeds)
def test_depthwise_convolution_gradients(case, seed):
    """The gradients of x, the weight and the bias, against central differences."""
    arrays_in = [case.x, case.weight] + ([] if case.bias is None else [case.bias])
    gradient_check(lambda x, w, *b: variants().depthwise_conv2d(x, w, b[0] if b else None,
                                                                case.stride, case.padding),
                   arrays_in, seed, f"depthwise_conv2d({case})")
