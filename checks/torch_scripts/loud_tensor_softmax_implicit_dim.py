"""softmax without dim on a 3-D input: PyTorch picks an implicit dim (0, deprecated) with a warning.

The framework's default is the last axis, the one PyTorch picks only up to 2 axes; beyond,
it asks for dim= rather than normalise along another axis.
"""

import warnings

import torch
import torch.nn.functional as F

DIFFERENCE = r"softmax: no dim given for an input of 3 axes.*pass dim= explicitly"


def run() -> dict:
    x = torch.ones(2, 3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = F.softmax(x)
    assert abs(p[:, 0, 0].sum().item() - 1.0) < 1e-6  # along dim 0
    return {"p": p[:, 0, 0].tolist()}
