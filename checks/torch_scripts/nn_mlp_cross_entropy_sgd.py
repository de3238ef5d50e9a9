"""An MLP trained with nn.CrossEntropyLoss and SGD with momentum: the loop of PyTorch's tutorials."""

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


def seeded_state(model, seed, scale=0.5):
    """The same starting weights on both backends: one seeded NumPy array per state entry."""
    rng = np.random.default_rng(seed)
    return {name: torch.tensor((scale * rng.standard_normal(tuple(value.shape))).astype(np.float32))
            for name, value in model.state_dict().items()}


def run():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 4)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 1).astype(np.int64)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
    model.load_state_dict(seeded_state(model, 1))
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    inputs, targets = torch.tensor(X), torch.tensor(y)

    # the first loss, from the same weights in float64 NumPy
    state = {k: v.numpy().astype(np.float64) for k, v in seeded_state(model, 1).items()}
    hidden = np.maximum(X @ state["0.weight"].T + state["0.bias"], 0)
    logits = hidden @ state["2.weight"].T + state["2.bias"]
    log_p = logits - logits.max(1, keepdims=True)
    log_p -= np.log(np.exp(log_p).sum(1, keepdims=True))
    expected_first = -log_p[np.arange(len(y)), y].mean()

    losses = []
    for _ in range(25):
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert abs(losses[0] - expected_first) < 1e-4 * abs(expected_first), (losses[0], expected_first)
    assert losses[-1] < 0.7 * losses[0], losses
    with torch.no_grad():
        correct = (model(inputs).argmax(1) == targets).sum().item()
    return {"losses": losses, "correct": correct}
