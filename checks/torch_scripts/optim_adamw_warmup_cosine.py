"""AdamW with a warm-up then cosine schedule, PyTorch's two ways: LambdaLR, and SequentialLR of
LinearLR and CosineAnnealingLR; two parameter groups, one without weight decay.
"""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim.lr_scheduler import CosineAnnealingLR, LambdaLR, LinearLR, SequentialLR

WARMUP, TOTAL = 3, 10


def train(make_scheduler):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((16, 4)).astype(np.float32)
    y = (X.sum(1) > 0).astype(np.int64)
    model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
    model.load_state_dict({k: torch.tensor(rng.standard_normal(tuple(v.shape)).astype(np.float32))
                           for k, v in model.state_dict().items()})
    decay = [p for name, p in model.named_parameters() if name.endswith("weight")]
    no_decay = [p for name, p in model.named_parameters() if name.endswith("bias")]
    optimizer = optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}], lr=0.02)
    scheduler = make_scheduler(optimizer)
    lrs, losses = [], []
    for _ in range(TOTAL):
        lrs.append([group["lr"] for group in optimizer.param_groups])
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(torch.tensor(X)), torch.tensor(y))
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return lrs, losses


def warmup_cosine(step):
    if step < WARMUP:
        return (step + 1) / WARMUP
    return 0.5 * (1 + math.cos(math.pi * (step - WARMUP) / (TOTAL - WARMUP)))


def run():
    lambda_lrs, lambda_losses = train(lambda o: LambdaLR(o, warmup_cosine))
    expected = [0.02 * warmup_cosine(step) for step in range(TOTAL)]
    assert all(math.isclose(a, e) and math.isclose(b, e) for (a, b), e in zip(lambda_lrs, expected))
    sequential_lrs, sequential_losses = train(lambda o: SequentialLR(
        o, [LinearLR(o, start_factor=1 / WARMUP, total_iters=WARMUP - 1),
            CosineAnnealingLR(o, T_max=TOTAL - WARMUP)], milestones=[WARMUP]))
    for (a, _), e in zip(sequential_lrs, expected):
        assert math.isclose(a, e, rel_tol=1e-9, abs_tol=1e-12), (sequential_lrs, expected)
    return {"lambda_lrs": lambda_lrs, "lambda_losses": lambda_losses,
            "sequential_lrs": sequential_lrs, "sequential_losses": sequential_losses}
