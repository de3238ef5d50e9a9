"""`framework.utils`, as `torch.utils`: only `data` (datasets and the data loader), provided."""

from . import data

__all__ = ["data"]
