"""Chapter 6's CNN, in PyTorch's words: Conv2d, ReLU, MaxPool2d, Flatten, Linear; a few SGD steps."""

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


def run():
    rng = np.random.default_rng(4)
    images = rng.standard_normal((8, 1, 8, 8)).astype(np.float32)
    labels = rng.integers(0, 10, 8).astype(np.int64)
    model = nn.Sequential(
        nn.Conv2d(1, 4, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 8, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(8 * 2 * 2, 10),
    )
    model.load_state_dict({k: torch.tensor((0.3 * rng.standard_normal(tuple(v.shape))).astype(np.float32))
                           for k, v in model.state_dict().items()})
    count = sum(int(np.prod(p.shape)) for p in model.parameters())
    assert count == (4 * 9 + 4) + (8 * 4 * 9 + 8) + (32 * 10 + 10), count
    x = torch.tensor(images)
    shapes = []
    h = x
    for layer in model:
        h = layer(h)
        shapes.append(list(h.shape))
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    losses = []
    for _ in range(6):
        optimizer.zero_grad()
        loss = criterion(model(x), torch.tensor(labels))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0], losses
    return {"shapes": shapes, "count": count, "losses": losses}
