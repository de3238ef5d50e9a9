"""W4: chapter 6's CNN on a batch of 256 digits, Adam (checks/benchmarks/README.md).

Everything the framework, the floor and PyTorch share is in floors.py: the batch, the
weights and the order they are drawn in. The floor is the step written directly in NumPy: each
convolution unfolded with `sliding_window_view` into columns and multiplied (forward and
weight gradient), the input gradient as the columns' gradient folded back (col2im), 2×2
pooling by reshaping, and the same Adam on one flat buffer as W2's floor.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from checks.benchmarks import floors, with_torch
from checks.benchmarks.floors import W4_CONVS, W4_LINEAR, w4_data, w4_parameters
from checks.benchmarks.w2_mlp import adam_trainer, load_weights, submodule


class W4Floor:
    """The W4 step on plain arrays: float32, forward and hand-derived backward, flat Adam."""

    adam = floors.W2Floor.adam  # W4 uses W2's Adam hyperparameters

    def __init__(self, X: np.ndarray, y: np.ndarray, layers):
        self.X, self.y = X, y
        self.onehot = np.eye(W4_LINEAR[1], dtype=np.float32)[y]
        sizes = [a.size for pair in layers for a in pair]
        self.flat = np.concatenate([a.ravel() for pair in layers for a in pair])
        self.grad = np.zeros_like(self.flat)
        self.m, self.v = np.zeros_like(self.flat), np.zeros_like(self.flat)
        offsets = np.cumsum([0, *sizes])
        shapes = [a.shape for pair in layers for a in pair]
        self.params = [self.flat[o:o + n].reshape(s) for o, n, s in zip(offsets, sizes, shapes)]
        self.grads = [self.grad[o:o + n].reshape(s) for o, n, s in zip(offsets, sizes, shapes)]
        self.t = 0

    @staticmethod
    def conv(x, weight, bias):
        """3×3, padding 1: (columns (N·H·W, C·9), output (N, O, H, W))."""
        n, _, h, w = x.shape
        windows = sliding_window_view(np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))), (3, 3), axis=(2, 3))
        columns = windows.transpose(0, 2, 3, 1, 4, 5).reshape(n * h * w, -1)
        out = columns @ weight.reshape(len(weight), -1).T
        out += bias
        return columns, out.reshape(n, h, w, -1).transpose(0, 3, 1, 2)

    @staticmethod
    def conv_input_grad(g2, weight, shape):
        """col2im: the columns' gradient G₂ W₂, each kernel offset added back into the image."""
        n, c, h, w = shape
        grad_columns = (g2 @ weight.reshape(len(weight), -1)).reshape(n, h, w, c, 3, 3)
        grad = np.zeros((n, c, h + 2, w + 2), np.float32)
        for i in range(3):
            for j in range(3):
                grad[:, :, i:i + h, j:j + w] += grad_columns[:, :, :, :, i, j].transpose(0, 3, 1, 2)
        return grad[:, :, 1:-1, 1:-1]

    @staticmethod
    def relu_pool(z):
        """relu, then 2×2 max pooling by reshaping: (pooled, the winners' mask).

        One winner per window, the first maximum in row-major order (PyTorch's rule): a patch
        of empty background gives four equal outputs, b > 0 after the first convolution.
        """
        n, c, h, w = z.shape
        blocks = np.maximum(z, 0).reshape(n, c, h // 2, 2, w // 2, 2)
        pooled = blocks.max(axis=(3, 5))
        mask = blocks == pooled[:, :, :, None, :, None]
        taken = np.zeros(pooled.shape, bool)
        for u in range(2):
            for v in range(2):
                mask[:, :, :, u, :, v] &= ~taken
                taken |= mask[:, :, :, u, :, v]
        return pooled, mask

    @staticmethod
    def unpool_relu(grad, mask, z):
        """The pooled gradient back to the winners, then through relu (zero where z ≤ 0)."""
        n, c, h, w = z.shape
        full = (mask * grad[:, :, :, None, :, None]).reshape(n, c, h, w)
        full *= z > 0
        return full

    def step(self) -> float:
        (W1, b1, W2, b2, W3, b3), (gW1, gb1, gW2, gb2, gW3, gb3) = self.params, self.grads
        cols1, z1 = self.conv(self.X, W1, b1)
        p1, mask1 = self.relu_pool(z1)
        cols2, z2 = self.conv(p1, W2, b2)
        p2, mask2 = self.relu_pool(z2)
        flat = p2.reshape(len(p2), -1)
        logits = flat @ W3.T + b3
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        total = e.sum(axis=1, keepdims=True)
        loss = float(np.log(total).mean() - logits[np.arange(len(self.y)), self.y].mean())
        d = (e / total - self.onehot) / len(self.y)
        gW3[...], gb3[...] = d.T @ flat, d.sum(axis=0)
        g2 = self.unpool_relu((d @ W3).reshape(p2.shape), mask2, z2)
        g2 = g2.transpose(0, 2, 3, 1).reshape(-1, len(W2))
        gW2[...], gb2[...] = (g2.T @ cols2).reshape(W2.shape), g2.sum(axis=0)
        g1 = self.unpool_relu(self.conv_input_grad(g2, W2, p1.shape), mask1, z1)
        g1 = g1.transpose(0, 2, 3, 1).reshape(-1, len(W1))
        gW1[...], gb1[...] = (g1.T @ cols1).reshape(W1.shape), g1.sum(axis=0)
        self.adam()
        return loss


def w4_floor_step() -> Callable[[], float]:
    """The floor's training step, from the shared batch and weights, returning the loss."""
    X, y = w4_data()
    return W4Floor(X, y, w4_parameters()).step


def make_model(fw):
    """The framework's CNN of chapter 6, with w4_parameters()."""
    nn = submodule(fw, "nn")
    (i1, o1), (i2, o2) = W4_CONVS
    model = nn.Sequential(nn.Conv2d(i1, o1, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(i2, o2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(*W4_LINEAR))
    layers = [m for m in model if hasattr(m, "weight")]
    load_weights([p for layer in layers for p in (layer.weight, layer.bias)],
                 [a for pair in w4_parameters() for a in pair])
    return model


def trainer(fw):
    """One W4 training step of the framework as a closure returning the loss."""
    return adam_trainer(fw, make_model(fw), *w4_data())


def run(fw, steps: int, warmup: int) -> dict:
    """The framework's step, the NumPy floor and PyTorch, taking turns in one run."""
    if steps < 5:  # quick mode: a smoke run, untimed, without the floor or PyTorch
        ms, losses = floors.median_ms(trainer(fw), steps, warmup)
        return {"ms_per_step": ms, "losses": losses}
    steps = max(steps, 60)  # a step is tens of milliseconds: 60 of each take a few seconds
    torch_side = with_torch.torch_side()
    result, floor, torch_result = floors.timed_with_floor_and_torch(
        trainer(fw), w4_floor_step(), torch_side.w4_step() if torch_side else None, steps, warmup,
        torch_version=torch_side.version() if torch_side else None)
    floors.side_by_side(result, torch_result, floor)
    return result
