"""`framework.utils`, as `torch.utils`: `data` (datasets and the data loader, provided) and
`checkpoint` (activation checkpointing, exercise 8.7), loaded when first used, so a
checkpoint.py that does not import yet breaks nothing else."""

import importlib

from ..provided.loud import missing
from . import data

__all__ = ["data"]


def __getattr__(name: str):
    if name == "checkpoint":
        return importlib.import_module(f"{__name__}.checkpoint")
    raise missing(__name__, name)
