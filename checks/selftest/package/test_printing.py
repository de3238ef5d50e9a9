"""A tensor, its shape and a module print as PyTorch prints them (framework/provided/printing.py).

Each expected string is what PyTorch 2.13 prints for the same values; checks/torch_parity/
test_printing.py compares with PyTorch itself on drawn arrays.
"""

import numpy as np

from checks.loader import load_framework

fw = load_framework("solutions")
from framework import nn  # noqa: E402  (the package chosen above)

Tensor = fw.Tensor


# -- tensors ---------------------------------------------------------------------------------------


def test_whole_floats_print_with_a_point():
    assert repr(Tensor([1.0, 2.0])) == "tensor([1., 2.])"


def test_other_floats_print_four_decimals_at_one_width():
    x = Tensor([[0.1234, -1.0]], requires_grad=True)
    assert repr(x) == "tensor([[ 0.1234, -1.0000]], requires_grad=True)"


def test_a_wide_range_of_magnitudes_prints_in_scientific_notation():
    assert repr(Tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"


def test_nan_and_inf_print_as_words_beside_whole_floats():
    assert repr(Tensor([np.nan, 1.0, np.inf])) == "tensor([nan, 1., inf])"


def test_a_tensor_of_no_axes_prints_its_number():
    assert repr(Tensor(3.5)) == "tensor(3.5000)"


def test_bools_print_aligned():
    assert repr(Tensor([True, False])) == "tensor([ True, False])"


def test_the_default_dtypes_print_no_suffix_and_the_others_their_torch_name():
    assert repr(Tensor([1, 2])) == "tensor([1, 2])"
    assert repr(Tensor(np.int32([1, 2]))) == "tensor([1, 2], dtype=torch.int32)"
    assert repr(Tensor(np.float64([0.5]))) == "tensor([0.5000], dtype=torch.float64)"


def test_an_empty_tensor_names_its_size_and_a_dtype_that_is_not_float32():
    assert repr(Tensor([])) == "tensor([])"
    assert repr(Tensor(np.zeros((0, 3), np.int64))) == "tensor([], size=(0, 3), dtype=torch.int64)"


def test_a_long_row_wraps_at_80_columns():
    assert repr(Tensor(np.arange(15, dtype=np.float32) / 7)) == (
        "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
        "        1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000])")


def test_the_blocks_of_a_3d_tensor_are_separated_by_a_blank_line():
    assert repr(Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))) == (
        "tensor([[[ 0.,  1.,  2.,  3.],\n"
        "         [ 4.,  5.,  6.,  7.],\n"
        "         [ 8.,  9., 10., 11.]],\n"
        "\n"
        "        [[12., 13., 14., 15.],\n"
        "         [16., 17., 18., 19.],\n"
        "         [20., 21., 22., 23.]]])")


def test_more_than_1000_elements_print_three_at_each_edge():
    assert repr(Tensor(np.arange(2000))) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"


def test_a_result_names_its_node_also_after_backward():
    x = Tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    assert repr(y) == "tensor(5., grad_fn=<SumBackward>)"
    y.backward()
    assert repr(y) == "tensor(5., grad_fn=<SumBackward>)"


def test_a_parameter_prints_as_pytorchs():
    assert repr(nn.Parameter([1.0, 2.0])) == (
        "Parameter containing:\ntensor([1., 2.], requires_grad=True)")


# -- shapes ----------------------------------------------------------------------------------------


def test_a_shape_prints_as_torch_size_and_equals_the_tuple():
    x = Tensor(np.zeros((2, 3)))
    assert repr(x.shape) == str(x.size()) == f"{x.shape}" == "torch.Size([2, 3])"
    assert x.shape == (2, 3) and isinstance(x.shape, tuple)
    assert repr(Tensor(1.0).shape) == "torch.Size([])"


def test_a_shape_counts_its_elements():
    assert Tensor(np.zeros((2, 3))).shape.numel() == 6 and Tensor(1.0).shape.numel() == 1


def test_slices_and_sums_of_a_shape_stay_shapes():
    shape = Tensor(np.zeros((2, 3))).shape
    assert repr(shape[1:]) == "torch.Size([3])" and shape[0] == 2
    assert repr(shape + (4,)) == "torch.Size([2, 3, 4])" and repr((4,) + shape) == "torch.Size([4, 2, 3])"


def test_numpy_takes_a_shape():
    assert np.zeros(Tensor(np.zeros((2, 3))).shape).shape == (2, 3)


# -- modules ---------------------------------------------------------------------------------------


def test_a_run_of_equal_modules_in_a_module_list_prints_once():
    blocks = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh()])
    assert repr(blocks) == "ModuleList(\n  (0-1): 2 x ReLU()\n  (2): Tanh()\n)"


def test_modules_print_pytorchs_arguments():
    assert repr(nn.LayerNorm(4)) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"
    assert repr(nn.BatchNorm1d(3)) == (
        "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)")
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    assert repr(nn.MSELoss()) == "MSELoss()"
