"""Resume training from the model's, the optimizer's and the scheduler's state dicts: the
resumed run takes exactly the steps the uninterrupted one takes.
"""

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim.lr_scheduler import ExponentialLR


def setup():
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))
    rng = np.random.default_rng(9)
    model.load_state_dict({k: torch.tensor(rng.standard_normal(tuple(v.shape)).astype(np.float32))
                           for k, v in model.state_dict().items()})
    optimizer = optim.Adam(model.parameters(), lr=0.05, betas=(0.8, 0.99))
    scheduler = ExponentialLR(optimizer, gamma=0.9)
    return model, optimizer, scheduler


def steps(model, optimizer, scheduler, count, X, Y):
    losses = []
    for _ in range(count):
        optimizer.zero_grad()
        loss = nn.MSELoss()(model(X), Y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses


def run():
    rng = np.random.default_rng(10)
    X = torch.tensor(rng.standard_normal((20, 3)).astype(np.float32))
    Y = torch.tensor(rng.standard_normal((20, 1)).astype(np.float32))
    straight = steps(*setup(), 8, X, Y)

    model, optimizer, scheduler = setup()
    first = steps(model, optimizer, scheduler, 4, X, Y)
    saved = (model.state_dict(), optimizer.state_dict(), scheduler.state_dict())
    model2, optimizer2, scheduler2 = setup()
    model2.load_state_dict(saved[0])
    optimizer2.load_state_dict(saved[1])
    scheduler2.load_state_dict(saved[2])
    resumed = first + steps(model2, optimizer2, scheduler2, 4, X, Y)
    assert np.allclose(resumed, straight, rtol=1e-6), (resumed, straight)
    assert scheduler2.last_epoch == 8 and abs(scheduler2.get_last_lr()[0] - 0.05 * 0.9**8) < 1e-12
    state = optimizer.state_dict()
    return {"losses": resumed, "groups": len(state["param_groups"]), "state_entries": len(state["state"]),
            "lr": optimizer2.param_groups[0]["lr"]}
