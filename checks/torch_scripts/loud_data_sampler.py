"""DataLoader(sampler=...) is not supported (shuffle and batch_size are): a loud error naming it."""

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

DIFFERENCE = r"DataLoader: sampler= is not supported"


def run():
    dataset = TensorDataset(torch.tensor(np.arange(6, dtype=np.float32)))
    loader = DataLoader(dataset, batch_size=2, sampler=[5, 4, 3, 2, 1, 0])
    return {"first": next(iter(loader))[0].numpy().tolist()}
