"""Provided `framework.utils.data` (the reference): Dataset, TensorDataset, DataLoader with
PyTorch's default collate, random_split; and `framework.Generator`.
"""

import importlib

import numpy as np
import pytest

from checks.loader import load_framework

fw = load_framework("solutions")
data = importlib.import_module("framework.utils.data")


def dataset(n=10):
    X = fw.Tensor(np.arange(3 * n, dtype=np.float32).reshape(n, 3))
    return data.TensorDataset(X, fw.Tensor(np.arange(n)))


def targets(loader):
    return [yb.data.tolist() for _, yb in loader]


def test_tensor_dataset_gives_the_rows_side_by_side():
    ds = dataset()
    x, y = ds[4]
    assert len(ds) == 10 and x.data.tolist() == [12.0, 13.0, 14.0] and y.item() == 4
    with pytest.raises(ValueError, match=r"TensorDataset: the tensors have \[10, 9\] rows"):
        data.TensorDataset(fw.Tensor(np.zeros(10)), fw.Tensor(np.zeros(9)))


def test_loader_batches_in_order_by_default():
    loader = data.DataLoader(dataset(), batch_size=4)
    batches = list(loader)
    assert len(loader) == 3 and targets(loader) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    xb, yb = batches[0]
    assert isinstance(batches[0], list) and xb.shape == (4, 3) and xb.data.dtype == np.float32
    assert yb.data.dtype == np.int64


def test_loader_batch_size_1_is_pytorchs_default():
    loader = data.DataLoader(dataset(3))
    assert len(loader) == 3 and targets(loader) == [[0], [1], [2]]


def test_drop_last_leaves_out_the_short_batch():
    loader = data.DataLoader(dataset(), batch_size=4, drop_last=True)
    assert len(loader) == 2 and targets(loader) == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_shuffle_with_a_seeded_generator_is_repeatable_and_new_each_epoch():
    def loader(seed):
        return data.DataLoader(dataset(), batch_size=5, shuffle=True,
                               generator=fw.Generator().manual_seed(seed))
    one = loader(0)
    first, second = targets(one), targets(one)
    assert first == targets(loader(0)) and first != second
    assert sorted(sum(first, [])) == list(range(10)) and sorted(sum(second, [])) == list(range(10))


def test_shuffle_without_a_generator_follows_manual_seed():
    fw.manual_seed(3)
    first = targets(data.DataLoader(dataset(), batch_size=10, shuffle=True))
    fw.manual_seed(3)
    assert targets(data.DataLoader(dataset(), batch_size=10, shuffle=True)) == first


class Examples(data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {"x": np.full(2, i, np.float32), "label": i, "weight": 0.5 * i, "name": f"n{i}",
                "pair": (fw.Tensor(np.array([i, -i])), i > 1)}


def test_default_collate_as_pytorch():
    batch = next(iter(data.DataLoader(Examples(), batch_size=3)))
    assert batch["x"].shape == (3, 2) and batch["x"].data.dtype == np.float32
    assert batch["label"].data.dtype == np.int64 and batch["label"].data.tolist() == [0, 1, 2]
    assert batch["weight"].data.dtype == np.float64 and batch["name"] == ["n0", "n1", "n2"]
    pair, flags = batch["pair"]
    assert pair.shape == (3, 2) and flags.data.tolist() == [False, False, True]


def test_collate_fn_replaces_the_default():
    loader = data.DataLoader(dataset(4), batch_size=2, collate_fn=lambda items: len(items))
    assert list(loader) == [2, 2]


def test_a_dataset_must_define_its_items():
    with pytest.raises(NotImplementedError, match=r"Dataset defines no __getitem__"):
        data.Dataset()[0]


@pytest.mark.parametrize("arguments, message", [
    (dict(sampler=[0, 1]), r"DataLoader: sampler= is not supported"),
    (dict(batch_sampler=[[0, 1]]), r"DataLoader: batch_sampler= is not supported"),
    (dict(batch_size=None), r"DataLoader: batch_size=None \(no batching\) is not supported"),
    (dict(batch_size=0), r"DataLoader: batch_size=0 must be a whole number, at least 1"),
    (dict(prefetch_factor=2), r"DataLoader: \['prefetch_factor'\] not supported"),
])
def test_unsupported_loader_arguments_raise_naming_them(arguments, message):
    with pytest.raises((NotImplementedError, ValueError), match=message):
        data.DataLoader(dataset(), **arguments)


def test_random_split_by_counts_or_fractions():
    parts = data.random_split(dataset(), [0.5, 0.3, 0.2], generator=fw.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [5, 3, 2]
    seen = sorted(p[i][1].item() for p in parts for i in range(len(p)))
    assert seen == list(range(10))
    assert [len(p) for p in data.random_split(dataset(), [0.34, 0.33, 0.33])] == [4, 3, 3]
    with pytest.raises(ValueError, match=r"random_split: lengths \[4, 4\] must be counts summing"):
        data.random_split(dataset(), [4, 4])


def test_generator_as_pytorch():
    g = fw.Generator()
    assert g.initial_seed() == 67280421310721
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    with pytest.raises(ValueError, match=r"Generator: device='cuda'"):
        fw.Generator("cuda")
