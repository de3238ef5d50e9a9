"""A custom nn.Module: registration, named_parameters, a parameter count, a state dict's keys."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoTower(nn.Module):
    def __init__(self, d_in, d_hidden, classes):
        super().__init__()
        self.left = nn.Linear(d_in, d_hidden)
        self.right = nn.Linear(d_in, d_hidden, bias=False)
        self.scale = nn.Parameter(torch.tensor(np.ones(d_hidden, dtype=np.float32)))
        self.head = nn.Sequential(nn.Tanh(), nn.Linear(d_hidden, classes))

    def forward(self, x):
        return self.head(F.relu(self.left(x)) * self.scale + self.right(x))


def run():
    model = TwoTower(5, 7, 3)
    names = [name for name, _ in model.named_parameters()]
    shapes = [list(p.shape) for p in model.parameters()]
    count = sum(int(np.prod(p.shape)) for p in model.parameters())
    assert count == (5 * 7 + 7) + 5 * 7 + 7 + (7 * 3 + 3), count
    # a module's own parameters first, then its children's, in the order they were assigned
    assert names == ["scale", "left.weight", "left.bias", "right.weight", "head.1.weight",
                     "head.1.bias"], names
    children = [name for name, _ in model.named_children()]
    out = model(torch.tensor(np.ones((2, 5), dtype=np.float32)))
    assert tuple(out.shape) == (2, 3)
    return {"names": names, "shapes": shapes, "count": count, "children": children,
            "state_keys": list(model.state_dict().keys()), "modules": len(list(model.modules()))}
