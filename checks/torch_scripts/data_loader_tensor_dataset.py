"""A DataLoader over a TensorDataset: batches, shuffle with a seeded generator, drop_last, len().

The shuffled order depends on the backend's random numbers: only order-free numbers are
returned (what each epoch covers, the batch shapes, the sums), and the order is checked to
be repeatable with the same seed and new at each epoch.
"""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split


class Squares(Dataset):
    def __len__(self):
        return 7

    def __getitem__(self, i):
        return torch.tensor(np.array([i, i * i], dtype=np.float32)), i % 2


def epoch_targets(loader):
    return [yb.numpy().tolist() for _, yb in loader]


def run():
    X = np.arange(30, dtype=np.float32).reshape(10, 3)
    y = np.arange(10, dtype=np.int64)
    dataset = TensorDataset(torch.tensor(X), torch.tensor(y))
    assert len(dataset) == 10 and dataset[3][1].item() == 3

    plain = DataLoader(dataset, batch_size=4)
    batches = list(plain)
    assert len(plain) == 3 and [tuple(xb.shape) for xb, _ in batches] == [(4, 3), (4, 3), (2, 3)]
    assert epoch_targets(plain) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][1].numpy().dtype == np.int64 and batches[0][0].numpy().dtype == np.float32

    def shuffled(seed):
        return DataLoader(dataset, batch_size=3, shuffle=True, drop_last=True,
                          generator=torch.Generator().manual_seed(seed))

    loader = shuffled(0)
    first, second = epoch_targets(loader), epoch_targets(loader)
    assert first == epoch_targets(shuffled(0)), "the same seed gives the same order"
    assert first != second, "each epoch draws a new order"
    assert len(loader) == 3 and all(len(batch) == 3 for batch in first)
    covered = sorted(sum(first, []))
    assert len(set(covered)) == 9, covered

    custom = DataLoader(Squares(), batch_size=3)
    xb, yb = next(iter(custom))
    assert tuple(xb.shape) == (3, 2) and yb.numpy().tolist() == [0, 1, 0]
    assert yb.numpy().dtype == np.int64

    train, test = random_split(dataset, [7, 3], generator=torch.Generator().manual_seed(0))
    split = [train[i][1].item() for i in range(7)] + [test[i][1].item() for i in range(3)]
    assert sorted(split) == list(range(10)), split
    total = sum(xb.sum().item() for xb, _ in DataLoader(dataset, batch_size=3, shuffle=True))
    return {"len_plain": len(plain), "len_shuffled": len(loader), "plain_targets": epoch_targets(plain),
            "epoch_size": len(covered), "total": total, "split": [len(train), len(test)],
            "custom_x": xb.numpy().tolist()}
