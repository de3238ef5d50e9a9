"""Provided: `DataParallel`, as `torch.nn.DataParallel` runs on a machine without GPUs.

PyTorch's `DataParallel` copies a module to each GPU and splits the batch between them; with no
GPU it keeps the module as it is and calls it. The framework runs on the CPU only, so this is
that case: a wrapper whose forward is the module's, whose parameters are the module's under
the prefix `module.` (as in PyTorch's state dicts). A version that really splits the batch,
between processes on the CPU's cores, is in `checks/benchmarks/data_parallel.py`, for `make
bench` and the performance appendix.
"""

from __future__ import annotations

from .modules import Module


class DataParallel(Module):
    """y = module(x). `device_ids`, `output_device` and `dim` are accepted and, with no GPU,
    unused, as in PyTorch."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list = []
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
