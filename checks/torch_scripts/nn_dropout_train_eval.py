"""Dropout in train and eval mode: zeros and a 1/(1-p) scale while training, the identity in eval."""

import numpy as np
import torch
import torch.nn as nn


def run():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(p=0.25))
    rng = np.random.default_rng(1)  # the same weights on both backends
    model.load_state_dict({"0.weight": torch.tensor(rng.standard_normal((8, 8)).astype(np.float32)),
                           "0.bias": torch.tensor(rng.standard_normal(8).astype(np.float32))})
    x = torch.tensor(np.random.default_rng(0).standard_normal((200, 8)).astype(np.float32))
    model.eval()
    assert not model[1].training and not model.training
    with torch.no_grad():
        plain = model[0](x)
        evaluated = model(x)
    assert np.array_equal(evaluated.numpy(), plain.numpy()), "eval: dropout is the identity"
    model.train()
    with torch.no_grad():
        trained = model(x).numpy()
    ratio = trained / plain.numpy()
    kept = np.isclose(ratio, 1 / 0.75, rtol=1e-5)
    zeroed = trained == 0
    assert np.all(kept | zeroed), "train: each element is zeroed or scaled by 1/(1-p)"
    fraction = zeroed.mean()
    assert 0.2 < fraction < 0.3, fraction
    return {"eval_equal": True, "train_mode": model.training, "eval_sum": float(plain.sum().item())}
