"""Provided parts of chapter 6 (the reference): fold, the argument checks and their messages,
the pooling and Flatten modules, where the ops are reachable, and the digits data."""

import importlib

import numpy as np
import pytest

from checks.loader import load_framework

fw = load_framework("solutions")
nn = importlib.import_module("framework.nn")
F = importlib.import_module("framework.nn.functional")
conv = importlib.import_module("framework.nn.conv")


@pytest.mark.parametrize("kernel, stride, padding", [((3, 3), (1, 1), (1, 1)),
                                                     ((2, 3), (2, 1), (0, 2)),
                                                     ((3, 2), (1, 3), (2, 0))])
def test_fold_is_the_adjoint_of_unfold(kernel, stride, padding):
    """⟨unfold(x), w⟩ = ⟨x, fold(w)⟩ for random x and w: fold is unfold's transpose."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 6, 5))
    windows = conv.unfold(x, kernel, stride, padding)
    w = rng.standard_normal(windows.shape)
    folded = conv.fold(w, x.shape, stride, padding)
    assert folded.shape == x.shape
    assert np.isclose(np.sum(windows * w), np.sum(x * folded))


def test_pair_takes_an_int_or_a_pair():
    assert conv.pair(3, "stride", "op") == (3, 3) and conv.pair((2, 1), "stride", "op") == (2, 1)
    with pytest.raises(TypeError, match="op: stride must be an int or a pair of ints, got 1.5"):
        conv.pair(1.5, "stride", "op")
    with pytest.raises(TypeError, match=r"got \(1, 2, 3\)"):
        conv.pair((1, 2, 3), "stride", "op")


def conv_call(x_shape, w_shape, bias_shape=None, **options):
    bias = None if bias_shape is None else fw.Tensor(np.zeros(bias_shape))
    return F.conv2d(fw.Tensor(np.zeros(x_shape)), fw.Tensor(np.zeros(w_shape)), bias, **options)


@pytest.mark.parametrize("x_shape, w_shape, bias_shape, options, message", [
    ((3, 8, 8), (4, 3, 3, 3), None, {}, r"conv2d: the input must be 4-D \(N, C, H, W\), got shape "
     r"\(3, 8, 8\); for one image"),
    ((1, 3, 8, 8), (4, 3, 3), None, {}, r"conv2d: the weight must be 4-D \(out_channels, "
     r"in_channels, kH, kW\), got shape \(4, 3, 3\); for one input channel give it shape "
     r"\(C_out, 1, kH, kW\)$"),
    ((1, 2, 8, 8), (4, 3, 3, 3), None, {}, r"conv2d: the input of shape \(1, 2, 8, 8\) has 2 "
     r"channels, the weight of shape \(4, 3, 3, 3\) expects 3"),
    ((1, 3, 8, 8), (4, 3, 3, 3), (3,), {}, r"conv2d: bias of shape \(3,\) for 4 output channels"),
    ((1, 3, 2, 8), (4, 3, 5, 3), None, {"padding": 1}, r"conv2d: a 5×3 kernel does not fit in the "
     r"input of shape \(1, 3, 2, 8\) padded by \(1, 1\) \(4×10\); use a smaller kernel or more "
     "padding"),
    ((1, 3, 8, 8), (4, 3, 3, 3), None, {"stride": 0}, r"conv2d: kernel size \(3, 3\) and stride "
     r"\(0, 0\) must be ≥ 1, padding \(0, 0\) ≥ 0"),
])
def test_conv2d_errors_name_the_shapes_and_what_to_do(x_shape, w_shape, bias_shape, options,
                                                     message):
    with pytest.raises(ValueError, match=message):
        conv_call(x_shape, w_shape, bias_shape, **options)


def test_pooling_errors_name_the_op_and_shapes():
    with pytest.raises(ValueError, match=r"max_pool2d: the input must be 4-D"):
        F.max_pool2d(fw.Tensor(np.zeros((4, 4))), 2)
    with pytest.raises(ValueError, match=r"avg_pool2d: a 3×3 kernel does not fit in the input of "
                       r"shape \(1, 1, 2, 4\)"):
        F.avg_pool2d(fw.Tensor(np.zeros((1, 1, 2, 4))), 3)


def test_pooling_stride_defaults_to_the_kernel_size():
    x = fw.Tensor(np.arange(36.0).reshape(1, 1, 6, 6))
    assert F.max_pool2d(x, 2).shape == (1, 1, 3, 3) and F.max_pool2d(x, 2, 1).shape == (1, 1, 5, 5)
    assert F.avg_pool2d(x, (3, 2)).shape == (1, 1, 2, 3)


def test_pooling_modules_and_flatten():
    x = fw.Tensor(np.arange(32.0).reshape(2, 1, 4, 4))
    assert np.array_equal(nn.MaxPool2d(2)(x).data, F.max_pool2d(x, 2).data)
    assert np.array_equal(nn.AvgPool2d(2, 1)(x).data, F.avg_pool2d(x, 2, 1).data)
    assert nn.Flatten()(x).shape == (2, 16) and nn.Flatten(0)(x).shape == (32,)
    assert nn.Flatten(1, 2)(x).shape == (2, 4, 4)
    assert repr(nn.MaxPool2d(2)) == (
        "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)")
    assert not list(nn.MaxPool2d(2).parameters()) and not list(nn.Flatten().parameters())


def test_average_pooling_is_not_a_kind_of_max_pooling():
    assert not isinstance(nn.AvgPool2d(2), nn.MaxPool2d)
    assert not isinstance(nn.MaxPool2d(2), nn.AvgPool2d)
    assert repr(nn.AvgPool2d(2, 1)) == "AvgPool2d(kernel_size=2, stride=1, padding=0)"


def test_the_ops_are_where_pytorch_has_them():
    assert F.conv2d is conv.conv2d and F.max_pool2d is conv.max_pool2d
    assert F.avg_pool2d is conv.avg_pool2d
    assert all(hasattr(nn, name) for name in ("Conv2d", "MaxPool2d", "AvgPool2d", "Flatten"))


def test_conv2d_layer_repr():
    assert repr(nn.Conv2d(1, 8, 3, padding=1)) == (
        "Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))")


# -- the digits --------------------------------------------------------------------------------


def test_digits_file_holds_1797_images_of_0_to_16():
    with np.load(fw.data.DIGITS_FILE, allow_pickle=False) as archive:
        images, labels = archive["images"], archive["labels"]
    assert images.shape == (1797, 8, 8) and images.dtype == np.uint8 and images.max() == 16
    assert labels.dtype == np.int64 and np.bincount(labels).tolist() == [
        178, 182, 177, 183, 181, 182, 181, 179, 174, 180]


def test_load_digits_split_is_stratified_disjoint_and_complete():
    X_train, y_train, X_test, y_test = fw.data.load_digits()
    assert X_train.shape == (1438, 1, 8, 8) and X_test.shape == (359, 1, 8, 8)
    assert X_train.dtype == np.float32 and y_train.dtype == np.int64
    assert X_train.min() == 0.0 and X_train.max() == 1.0
    counts = np.bincount(y_test)
    assert counts.min() >= 35 and counts.max() <= 37  # a fifth of 174 to 183 images per digit
    # train and test together are the file's images, each exactly once (as rows, sorted)
    split = np.concatenate([X_train, X_test]).reshape(1797, 64) * 16
    with np.load(fw.data.DIGITS_FILE) as archive:
        original = archive["images"].reshape(1797, 64)
    assert np.array_equal(np.unique(split.round().astype(np.uint8), axis=0, return_counts=True)[1],
                          np.unique(original, axis=0, return_counts=True)[1])
    assert np.array_equal(np.unique(split.round().astype(np.uint8), axis=0), np.unique(original, axis=0))


def test_load_digits_is_fixed_by_its_seed_and_leaves_the_shared_generator_alone():
    fw.manual_seed(0)
    expected = fw.default_generator().random()
    fw.manual_seed(0)
    first, second, other = fw.data.load_digits(), fw.data.load_digits(), fw.data.load_digits(seed=1)
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
    assert not np.array_equal(first[1], other[1])
    assert fw.default_generator().random() == expected


def test_load_digits_rejects_a_bad_fraction():
    with pytest.raises(ValueError, match="load_digits: test_fraction=1.5 must be between 0 and 1"):
        fw.data.load_digits(test_fraction=1.5)


def test_digits_readme_names_source_and_licence():
    text = (fw.data.DIGITS_FILE.parent / "README.md").read_text()
    assert "Optical Recognition of Handwritten Digits" in text and "CC BY 4.0" in text
