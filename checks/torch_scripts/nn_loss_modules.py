"""The loss modules against float64 NumPy: values and gradients, each reduction, ignore_index,
label_smoothing; CrossEntropyLoss is NLLLoss after log_softmax.
"""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def log_softmax(x):
    shifted = x - x.max(1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(1, keepdims=True))


def close(got, expected, what):
    got = np.asarray(got, dtype=np.float64)
    assert np.allclose(got, expected, rtol=1e-5, atol=1e-6), f"{what}: {got} vs {expected}"


def run():
    rng = np.random.default_rng(8)
    logits_np = rng.standard_normal((6, 4)).astype(np.float32)
    targets_np = np.array([0, 3, -100, 1, 2, 3], dtype=np.int64)
    x64 = logits_np.astype(np.float64)
    lp = log_softmax(x64)
    kept = targets_np != -100
    per_row = np.where(kept, -lp[np.arange(6), np.where(kept, targets_np, 0)], 0.0)
    results = {}

    logits = torch.tensor(logits_np, requires_grad=True)
    targets = torch.tensor(targets_np)
    loss = nn.CrossEntropyLoss()(logits, targets)
    loss.backward()
    close(loss.item(), per_row.sum() / kept.sum(), "CrossEntropyLoss mean over kept rows")
    p = np.exp(lp)
    onehot = np.zeros_like(p)
    onehot[np.flatnonzero(kept), targets_np[kept]] = 1
    close(np.asarray(logits.grad), (p - onehot) * kept[:, None] / kept.sum(), "its gradient")
    results["ce_mean"] = loss.item()
    results["ce_none"] = nn.CrossEntropyLoss(reduction="none")(logits, targets).detach().numpy().tolist()
    close(results["ce_none"], per_row, "CrossEntropyLoss(reduction='none')")
    smooth = nn.CrossEntropyLoss(label_smoothing=0.2, reduction="sum")(logits, targets).item()
    close(smooth, ((0.8 * per_row + 0.2 * -lp.mean(1)) * kept).sum(), "label_smoothing=0.2")
    results["ce_smooth"] = smooth
    nll = nn.NLLLoss()(F.log_softmax(logits, 1), targets).item()
    close(nll, results["ce_mean"], "NLLLoss(log_softmax) = CrossEntropyLoss")
    results["nll"] = nll

    a_np = rng.standard_normal((3, 5)).astype(np.float32)
    b_np = rng.standard_normal((3, 5)).astype(np.float32)
    a = torch.tensor(a_np, requires_grad=True)
    b = torch.tensor(b_np)
    mse = nn.MSELoss()(a, b)
    mse.backward()
    close(mse.item(), ((a_np - b_np).astype(np.float64) ** 2).mean(), "MSELoss")
    close(np.asarray(a.grad), 2 * (a_np - b_np) / a_np.size, "MSELoss gradient")
    a.grad = None
    l1 = nn.L1Loss(reduction="sum")(a, b)
    l1.backward()
    close(l1.item(), np.abs(a_np - b_np).sum(), "L1Loss(sum)")
    close(np.asarray(a.grad), np.sign(a_np - b_np), "L1Loss gradient")
    results.update(mse=mse.item(), l1=l1.item())

    probabilities = torch.tensor(np.array([0.1, 0.5, 0.9, 1.0], dtype=np.float32))
    labels = torch.tensor(np.array([0.0, 1.0, 1.0, 0.0], dtype=np.float32))
    bce = nn.BCELoss(reduction="none")(probabilities, labels).numpy()
    close(bce, [-np.log(0.9), -np.log(0.5), -np.log(0.9), 100.0], "BCELoss, log clamped at -100")
    results["bce"] = bce.tolist()
    signs = torch.tensor((b_np > 0).astype(np.float32))
    results["bce_logits"] = nn.BCEWithLogitsLoss()(torch.tensor(a_np), signs).item()
    return results
