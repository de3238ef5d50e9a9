"""OneCycleLR with SGD (momentum cycled) and with Adam (β₁ cycled), three phases or two."""

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim.lr_scheduler import OneCycleLR


def train(make_optimizer, **schedule):
    rng = np.random.default_rng(11)
    X = torch.tensor(rng.standard_normal((24, 3)).astype(np.float32))
    y = torch.tensor((rng.standard_normal(24) > 0).astype(np.int64))
    model = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 2))
    model.load_state_dict({k: torch.tensor(rng.standard_normal(tuple(v.shape)).astype(np.float32))
                           for k, v in model.state_dict().items()})
    optimizer = make_optimizer(model.parameters())
    scheduler = OneCycleLR(optimizer, **schedule)
    lrs, momenta, losses = [], [], []
    for _ in range(schedule.get("total_steps", 0) or schedule["epochs"] * schedule["steps_per_epoch"]):
        group = optimizer.param_groups[0]
        lrs.append(group["lr"])
        momenta.append(group["betas"][0] if "betas" in group else group["momentum"])
        optimizer.zero_grad()
        loss = nn.CrossEntropyLoss()(model(X), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return {"lrs": lrs, "momenta": momenta, "losses": losses}


def run():
    sgd = train(lambda p: optim.SGD(p, lr=0.1, momentum=0.9), max_lr=0.5, total_steps=12)
    assert abs(sgd["lrs"][0] - 0.5 / 25) < 1e-12 and max(sgd["lrs"]) <= 0.5 + 1e-12
    assert abs(sgd["momenta"][0] - 0.95) < 1e-12 and min(sgd["momenta"]) >= 0.85 - 1e-12
    adam = train(lambda p: optim.Adam(p, lr=0.01), max_lr=0.05, epochs=3, steps_per_epoch=4,
                 pct_start=0.25, three_phase=True, anneal_strategy="linear")
    return {"sgd": sgd, "adam": adam}
