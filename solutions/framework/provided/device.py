"""The device: the CPU only, as `torch.device` names it (provided).

Below `tensor.py` (`Tensor.to`), `tensor_methods.py` (`.device`, `.cuda()`) and `surface.py`
(`framework.device`), so none imports another for it.
"""

from __future__ import annotations


class device:
    """A device name, as `torch.device`; the framework has only "cpu"."""

    def __init__(self, type: str) -> None:  # noqa: A002 (PyTorch's name)
        self.type = str(type).split(":")[0]

    def __eq__(self, other) -> bool:
        return self.type == (other.type if isinstance(other, device) else str(other))

    def __hash__(self) -> int:
        return hash(self.type)

    def __repr__(self) -> str:
        return f"device(type={self.type!r})"

    def __str__(self) -> str:  # str(torch.device("cpu")) == "cpu"
        return self.type


def check_device(op: str, where) -> None:
    """Accept the CPU; any other device is a loud difference."""
    name = where.type if isinstance(where, device) else str(where).split(":")[0]
    if name != "cpu":
        raise RuntimeError(
            f"{op}: device {where!r}: the framework computes with NumPy on the CPU only; "
            "use 'cpu' (or leave the tensor where it is)"
        )
