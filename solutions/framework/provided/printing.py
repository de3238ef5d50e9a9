"""Provided: how a tensor and its shape print, as PyTorch prints them (`print(x)`, `x.shape`).

PyTorch's rules, at its default print options (4 digits, summary above 1000 elements with 3
items at each edge, lines of 80 characters), in our words:

- One format serves every element, chosen from the values shown. Integers and bools print as
  Python prints them. Floating values are judged by their finite nonzero ones: when all are
  whole numbers they print as `2.` (nan and inf as they are); otherwise with 4 decimals,
  `0.1235`. Scientific notation, `1.2346e-05`, replaces either when the largest magnitude is
  above 1e8 or over 1000 times the smallest, or (not all whole) the smallest is below 1e-4.
  Each element is right-aligned to the widest of those nonzero finite values.
- A tensor of more than 1000 elements is summarised: along each axis longer than 6, only the
  first 3 and the last 3 entries print, with `...` between; its format is chosen from them.
- Rows wrap to 80 columns, each nested level indented one more under the first bracket; the
  blocks of an n-D tensor are separated by n - 2 blank lines.
- After the values come `dtype=torch.float64` (for every dtype but the defaults: float32,
  int64 and bool), then `grad_fn=<...>` or `requires_grad=True`. An empty tensor prints `[]`,
  its size when it is not 1-D and its dtype when it is not float32. A suffix that would
  reach column 80 goes on a new line.

`Size` is a tensor's shape: a tuple, which prints as `torch.Size([2, 3])`. A module prints
as `Linear(in_features=2, out_features=3, bias=True)`, its extra_repr in the parentheses;
with children, each child and each line of extra_repr on a line of its own, indented by two
spaces; a ModuleList prints a run of equal modules once, as `(0-3): 4 x Block(...)`.
"""

from __future__ import annotations

import math

import numpy as np

PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 4, 1000, 3, 80
#: Dtypes printed without a `dtype=` suffix (PyTorch's default floating dtype, int64, bool).
UNNAMED = (np.dtype(np.float32), np.dtype(np.int64), np.dtype(np.bool_))


class Size(tuple):
    """A tensor's shape, as PyTorch's `torch.Size`: a tuple of ints (equal to the plain tuple,
    accepted by NumPy) that prints as `torch.Size([2, 3])`; slices and sums stay `Size`s."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def numel(self) -> int:
        """The number of elements of a tensor of this shape (1 for the shape ())."""
        return math.prod(self)

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        return Size(tuple.__add__(self, other)) if isinstance(other, tuple) else NotImplemented

    def __radd__(self, other):
        return Size(other + tuple(self)) if isinstance(other, tuple) else NotImplemented

    def __mul__(self, times):
        return Size(tuple.__mul__(self, times))

    __rmul__ = __mul__


def dtype_name(dtype) -> str:
    """PyTorch's name of a NumPy dtype: `torch.float32`, `torch.int64`, `torch.bool`."""
    return f"torch.{np.dtype(dtype).name}"


def tensor_repr(data: np.ndarray, grad_fn: str | None = None, requires_grad: bool = False) -> str:
    """`tensor([...], dtype=..., grad_fn=...)`: what PyTorch prints for `data` (the module's
    docstring gives the rules); `grad_fn` is the node's printed name, as `<MulBackward>`."""
    prefix = "tensor("
    suffixes = []
    if data.size == 0:
        body = "[]"
        if data.ndim != 1:
            suffixes.append(f"size={tuple(data.shape)}")
        if data.dtype != np.float32:  # no value shows whether it holds integers
            suffixes.append(f"dtype={dtype_name(data.dtype)}")
    else:
        if data.dtype not in UNNAMED:
            suffixes.append(f"dtype={dtype_name(data.dtype)}")
        summarise = data.size > THRESHOLD
        element = ElementFormat(_shown(data) if summarise else data)
        body = _nested(data, len(prefix), summarise, element)
    if grad_fn is not None:
        suffixes.append(f"grad_fn={grad_fn}")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _closed(prefix + body, suffixes, len(prefix))


class ElementFormat:
    """The one format of every element of a tensor, chosen from the values it shows."""

    def __init__(self, shown: np.ndarray) -> None:
        self.floating = shown.dtype.kind == "f"
        self.scientific, self.whole = False, True
        if not self.floating:
            self.width = max(len(str(v)) for v in shown.ravel().tolist())
            return
        judged = shown[np.isfinite(shown) & (shown != 0)].astype(np.float64)
        self.width = 1
        if judged.size == 0:
            return
        largest, smallest = np.abs(judged).max(), np.abs(judged).min()
        self.whole = bool(np.all(judged == np.ceil(judged)))
        self.scientific = bool(largest / smallest > 1000.0 or largest > 1e8
                               or (not self.whole and smallest < 1e-4))
        self.width = max(len(self._text(v)) for v in judged.tolist())

    def _text(self, value: float) -> str:
        if not self.floating:
            return str(value)
        if self.scientific:
            return f"{value:.{PRECISION}e}"
        if self.whole:
            return f"{value:.0f}" + ("" if math.isnan(value) or math.isinf(value) else ".")
        return f"{value:.{PRECISION}f}"

    def __call__(self, value) -> str:
        """`value` (a Python number) in this format, right-aligned to the common width."""
        return self._text(value).rjust(self.width)


def _shown(data: np.ndarray) -> np.ndarray:
    """The elements a summarised print shows: along each axis longer than 2·EDGEITEMS, its
    first and last EDGEITEMS entries."""
    for axis, n in enumerate(data.shape):
        if n > 2 * EDGEITEMS:
            data = data.take(np.r_[:EDGEITEMS, n - EDGEITEMS:n], axis=axis)
    return data


def _nested(data: np.ndarray, indent: int, summarise: bool, element: ElementFormat) -> str:
    """`data`'s brackets and values, its rows starting at column `indent` + 1."""
    if data.ndim == 0:
        return element(data.item())
    n = len(data)
    cut = summarise and n > 2 * EDGEITEMS
    if data.ndim == 1:
        if cut:
            items = ([element(v) for v in data[:EDGEITEMS].tolist()] + [" ..."]
                     + [element(v) for v in data[n - EDGEITEMS:].tolist()])
        else:
            items = [element(v) for v in data.tolist()]
        per_line = max(1, (LINEWIDTH - indent) // (element.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(EDGEITEMS) if cut else range(n)
    parts = [_nested(data[i], indent + 1, summarise, element) for i in rows]
    if cut:
        parts += ["..."] + [_nested(data[i], indent + 1, summarise, element)
                            for i in range(n - EDGEITEMS, n)]
    return "[" + ("," + "\n" * (data.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def module_repr(name: str, extra: str, children) -> str:
    """A module named `name`, with its extra_repr and its (key, module) children."""
    if name == "ModuleList":
        return _module_list_repr([repr(child) for _, child in children])
    lines = extra.split("\n") if extra else []
    if not children and len(lines) <= 1:
        return f"{name}({extra})"
    return _block(name, lines + [f"({key}): {child!r}" for key, child in children])


def _module_list_repr(texts: list[str]) -> str:
    """A ModuleList of modules printed as `texts`: each run of equal ones once."""
    runs: list[list] = []  # [first index, last index, text]
    for i, text in enumerate(texts):
        if runs and runs[-1][2] == text:
            runs[-1][1] = i
        else:
            runs.append([i, i, text])
    if not runs:
        return "ModuleList()"
    return _block("ModuleList", [f"({a}): {text}" if a == b else f"({a}-{b}): {b - a + 1} x {text}"
                                 for a, b, text in runs])


def _block(name: str, lines: list[str]) -> str:
    """`name(` and `)` around `lines`, each on a line of its own, indented by two spaces."""
    return f"{name}(\n" + "".join(f"  {line}".replace("\n", "\n  ") + "\n" for line in lines) + ")"


def _closed(text: str, suffixes: list[str], indent: int) -> str:
    """`text`, its suffixes after commas, and `)`; a suffix that does not fit in LINEWIDTH
    (PyTorch counts the last line 2 longer than it is) starts a line at `indent`."""
    column = len(text.rsplit("\n", 1)[-1]) + 2
    for suffix in suffixes:
        if column + len(suffix) + 2 > LINEWIDTH:
            text += ",\n" + " " * indent + suffix
            column = indent + len(suffix)
        else:
            text += ", " + suffix
            column += len(suffix) + 2
    return text + ")"
