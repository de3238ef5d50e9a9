"""Provided: `framework.utils.data`, as `torch.utils.data`: datasets and the loader that batches them.

A `Dataset` is anything with `len(ds)` and `ds[i]` (one example, e.g. an `(x, y)` pair);
`TensorDataset(X, y)` is the one for tensors already in memory. A `DataLoader` walks a
dataset in minibatches (`framework.data.batch_indices` picks the rows, in order or shuffled)
and stacks each batch's examples as PyTorch's default collate does: a pair of examples
becomes a list `[X_batch, y_batch]` of tensors, Python numbers become 1-d tensors (int64,
float64 or bool), dicts are collated key by key.

The shuffle draws from NumPy: `generator` is a `framework.Generator`, a NumPy generator, or
None for the shared one (`framework.manual_seed` makes it repeatable). The same seed gives
another order than PyTorch's; every epoch still sees every example once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from ..provided.data import batch_indices
from ..provided.generator import Generator, numpy_generator
from ..provided.loud import missing
from ..provided.surface import stack
from ..tensor import Tensor


class Dataset:
    """Base class of map-style datasets: subclass and define `__getitem__` and `__len__`."""

    def __getitem__(self, index: int):
        raise NotImplementedError(f"{type(self).__name__} defines no __getitem__; a Dataset subclass "
                                  "returns its example number `index`")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} defines no __len__; a Dataset subclass "
                                  "returns its number of examples")


class TensorDataset(Dataset):
    """Example i is `(t[i] for t in tensors)`: the tensors' rows, side by side."""

    def __init__(self, *tensors: Tensor) -> None:
        sizes = [len(t) for t in tensors]
        if not tensors or len(set(sizes)) != 1:
            raise ValueError(f"TensorDataset: the tensors have {sizes} rows; give one or more "
                             "tensors with the same number of rows (one per example)")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return len(self.tensors[0])


class Subset(Dataset):
    """The examples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index):
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[int | float],
                 generator: Generator | np.random.Generator | None = None) -> list[Subset]:
    """Split into non-overlapping random Subsets of the given lengths, or fractions summing to 1
    (floored, the remainder handed out one by one from the first, as PyTorch).
    """
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= n:  # fractions (PyTorch's test)
        counts = [math.floor(n * f) for f in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n or any(length < 0 for length in lengths):
        raise ValueError(f"random_split: lengths {lengths} must be counts summing to the dataset's "
                         f"{n} examples, or fractions summing to 1")
    order = numpy_generator(generator).permutation(n).tolist()
    starts = np.cumsum([0, *lengths])
    return [Subset(dataset, order[a:b]) for a, b in zip(starts[:-1], starts[1:])]


def default_collate(batch: list) -> Any:
    """A list of examples → one batch, as PyTorch's default: tensors and arrays stacked along a
    new first axis, numbers into a 1-d tensor, tuples and lists field by field (a list), dicts
    key by key; strings stay a list.
    """
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(batch, axis=0)
    if isinstance(first, np.ndarray | np.generic):
        return Tensor(np.stack([np.asarray(b) for b in batch]))
    if isinstance(first, bool):
        return Tensor(np.array(batch, dtype=bool))
    if isinstance(first, int):
        return Tensor(np.array(batch, dtype=np.int64))
    if isinstance(first, float):
        return Tensor(np.array(batch, dtype=np.float64))
    if isinstance(first, str | bytes):
        return list(batch)
    if isinstance(first, Mapping):
        return {key: default_collate([b[key] for b in batch]) for key in first}
    if isinstance(first, Sequence):
        if len({len(b) for b in batch}) != 1:
            raise RuntimeError("default_collate: the examples of a batch have different lengths "
                               f"{sorted({len(b) for b in batch})}; each must have the same fields")
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(f"default_collate: cannot batch examples of type {type(first).__name__}; "
                    "return tensors, arrays, numbers, strings, or tuples/lists/dicts of those, "
                    "or pass your own collate_fn")


class DataLoader:
    """Batches of a dataset, as `torch.utils.data.DataLoader`: `for xb, yb in loader: ...`.

    Each pass (epoch) covers every example once, in order or, with `shuffle`, in a new random
    order; `len(loader)` is the number of batches. num_workers and pin_memory are accepted and
    change nothing (the examples are read in this process, the numbers are the same).
    """

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool = False,
                 sampler=None, batch_sampler=None, num_workers: int = 0,
                 collate_fn: Callable[[list], Any] | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None,
                 generator: Generator | np.random.Generator | None = None, **options) -> None:
        for name, value in (("sampler", sampler), ("batch_sampler", batch_sampler),
                            ("worker_init_fn", worker_init_fn)):
            if value is not None:
                raise NotImplementedError(f"DataLoader: {name}= is not supported; give shuffle=True "
                                          "(or False) and batch_size, or index the dataset yourself")
        if batch_size is None:
            raise NotImplementedError("DataLoader: batch_size=None (no batching) is not supported; "
                                      "iterate over the dataset itself for one example at a time")
        if options:
            raise NotImplementedError(f"DataLoader: {sorted(options)} not supported; the loader "
                                      "takes dataset, batch_size, shuffle, drop_last, collate_fn, "
                                      "generator (num_workers, pin_memory, timeout change nothing)")
        next(batch_indices(1, batch_size, op="DataLoader"))  # checks batch_size now, not at the first batch
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, shuffle
        self.drop_last, self.generator = drop_last, generator
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.collate_fn = default_collate if collate_fn is None else collate_fn

    def __len__(self) -> int:
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

    def __iter__(self) -> Iterator:
        rng = numpy_generator(self.generator) if self.shuffle else None
        for rows in batch_indices(len(self.dataset), self.batch_size, self.shuffle, rng,
                                  self.drop_last, op="DataLoader"):
            if isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate:
                # the same batch as stacking rows one by one, in one indexing per tensor
                yield [t[rows] for t in self.dataset.tensors]
            else:
                yield self.collate_fn([self.dataset[int(i)] for i in rows])


def __getattr__(name: str):
    """A name this module lacks: the error that says so in our words (`provided/loud.py`)."""
    raise missing(__name__, name)
