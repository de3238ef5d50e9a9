"""view(dtype) reinterprets a tensor's bytes as another dtype in PyTorch.

The framework's view is a reshape; it refuses a dtype rather than convert the values.
"""

import torch

DIFFERENCE = r"view\(dtype\): reinterpreting the bytes.*use \.to\(dtype\)"


def run() -> dict:
    x = torch.tensor([1.0, -2.0])
    bits = x.view(torch.int32)
    assert bits.tolist() == [1065353216, -1073741824]
    return {"bits": bits.tolist()}
