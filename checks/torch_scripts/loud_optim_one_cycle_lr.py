"""OneCycleLR (which also cycles the momentum) is not provided: the import fails naming it."""

import numpy as np
import torch
import torch.optim as optim

DIFFERENCE = r"cannot import name 'OneCycleLR'"


def run():
    from torch.optim.lr_scheduler import OneCycleLR

    w = torch.tensor(np.zeros(3, dtype=np.float32), requires_grad=True)
    optimizer = optim.SGD([w], lr=0.1, momentum=0.9)
    scheduler = OneCycleLR(optimizer, max_lr=1.0, total_steps=10)
    return {"lr": scheduler.get_last_lr()}
