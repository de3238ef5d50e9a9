"""Adam with StepLR and nn.utils.clip_grad_norm_: scheduler.step() after optimizer.step()."""

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.nn.utils import clip_grad_norm_
from torch.optim.lr_scheduler import StepLR


def run():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((32, 3)).astype(np.float32)
    Y = (X @ np.array([[1.0], [-2.0], [0.5]]) + 0.1).astype(np.float32)
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    model.load_state_dict({k: torch.tensor(rng.standard_normal(tuple(v.shape)).astype(np.float32))
                           for k, v in model.state_dict().items()})
    optimizer = optim.Adam(model.parameters(), lr=0.05)
    scheduler = StepLR(optimizer, step_size=4, gamma=0.5)
    criterion = nn.MSELoss()
    inputs, targets = torch.tensor(X), torch.tensor(Y)
    losses, norms, lrs = [], [], []
    for _ in range(12):
        optimizer.zero_grad(set_to_none=True)
        loss = criterion(model(inputs), targets)
        loss.backward()
        grads = np.concatenate([np.asarray(p.grad).ravel() for p in model.parameters()])
        total = clip_grad_norm_(model.parameters(), max_norm=1.0)
        assert abs(total.item() - np.linalg.norm(grads.astype(np.float64))) < 1e-4 * total.item()
        clipped = np.concatenate([np.asarray(p.grad).ravel() for p in model.parameters()])
        assert np.linalg.norm(clipped) <= 1.0 + 1e-4
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        norms.append(total.item())
        lrs.append(scheduler.get_last_lr()[0])
    assert lrs == [0.05 * 0.5 ** ((step + 1) // 4) for step in range(12)], lrs
    assert optimizer.param_groups[0]["lr"] == lrs[-1] and scheduler.last_epoch == 12
    assert losses[-1] < losses[0]
    return {"losses": losses, "norms": norms, "lrs": lrs}
