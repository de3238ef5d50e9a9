"""An MLP with nn.ReLU(inplace=True) trains with the same losses as with nn.ReLU(): the in-place
ReLU is recorded in the graph (its input, a Linear's output, is needed by no backward)."""

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


def train(inplace: bool, X, y) -> list:
    rng = np.random.default_rng(1)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(inplace=inplace), nn.Linear(16, 16),
                          nn.ReLU(inplace=inplace), nn.Linear(16, 3))
    model.load_state_dict({
        name: torch.tensor((0.5 * rng.standard_normal(tuple(value.shape))).astype(np.float32))
        for name, value in model.state_dict().items()})
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    inputs, targets = torch.tensor(X), torch.tensor(y)
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def run() -> dict:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 4)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 1).astype(np.int64)
    in_place, out_of_place = train(True, X, y), train(False, X, y)
    assert in_place == out_of_place, (in_place, out_of_place)
    assert in_place[-1] < 0.7 * in_place[0], in_place
    return {"losses": in_place}
