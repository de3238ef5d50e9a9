"""Logistic regression with nn.BCEWithLogitsLoss, and the same probabilities through nn.BCELoss."""

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


def run():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((40, 2)).astype(np.float32)
    y = (X @ np.array([2.0, -1.0]) > 0.3).astype(np.float32).reshape(-1, 1)
    model = nn.Linear(2, 1)
    model.load_state_dict({"weight": torch.tensor(np.array([[0.1, 0.2]], dtype=np.float32)),
                           "bias": torch.tensor(np.array([0.0], dtype=np.float32))})
    criterion = nn.BCEWithLogitsLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.5)
    inputs, targets = torch.tensor(X), torch.tensor(y)
    z = X.astype(np.float64) @ np.array([0.1, 0.2])[:, None]
    expected = np.mean(np.logaddexp(0, z) - y * z)  # -[y log σ(z) + (1-y) log(1-σ(z))]
    losses = []
    for _ in range(30):
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert abs(losses[0] - expected) < 1e-5, (losses[0], expected)
    assert losses[-1] < 0.6 * losses[0]
    with torch.no_grad():
        logits = model(inputs)
        through_probabilities = nn.BCELoss()(logits.sigmoid(), targets).item()
        summed = nn.BCEWithLogitsLoss(reduction="sum")(logits, targets).item()
    assert abs(through_probabilities - criterion(logits, targets).item()) < 1e-5
    return {"losses": losses, "bce": through_probabilities, "summed": summed,
            "weight": model.weight.detach().numpy().tolist()}
