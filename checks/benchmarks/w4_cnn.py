"""W4: chapter 6's CNN on a batch of 256 digits, Adam (checks/benchmarks/README.md).

Everything the framework, the floor and PyTorch share is in floors.py: the batch, the
weights and the order they are drawn in. The floor is the step written directly in NumPy,
channels-last: each convolution one product of its columns with the kernel, its output already
the next layer's layout; the input gradient a convolution of the padded output gradient with
the flipped kernel (no col2im); 2×2 pooling on the four corners of each window; the same Adam
on one flat buffer as W2's floor.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from checks.benchmarks import floors, with_torch
from checks.benchmarks.floors import W4_CONVS, W4_LINEAR, w4_data, w4_parameters
from checks.benchmarks.w2_mlp import adam_trainer, load_weights, split_batch, submodule


class W4Floor:
    """The W4 step on plain arrays: float32, channels-last, hand-derived backward, flat Adam.

    Activations are (N, H, W, C) so that every product's output is already the next step's
    layout: no transpose anywhere. A convolution is one product of its columns (N·H·W, 9·C),
    the nine shifted views of the padded input side by side (offset-major, channel-minor),
    with the kernel stored (9·C, C_out) in the same order. Its input gradient is a convolution
    too: the padded output gradient's columns times the kernel flipped in both spatial axes
    with its channel axes swapped (9·C_out, C). The weights are kept in these layouts, and the
    Linear's columns in (y, x, c) order: Adam is elementwise, so the order of its buffer does
    not change a step, and the losses are PyTorch's.
    """

    adam = floors.W2Floor.adam  # W4 uses W2's Adam hyperparameters

    def __init__(self, X: np.ndarray, y: np.ndarray, layers):
        self.X, self.y = np.ascontiguousarray(X.transpose(0, 2, 3, 1)), y
        self.onehot = np.eye(W4_LINEAR[1], dtype=np.float32)[y]
        (W1, b1), (W2, b2), (W3, b3) = layers
        classes, features = W3.shape
        channels = W2.shape[0]
        side = int(np.sqrt(features // channels))
        W3 = W3.reshape(classes, channels, side, side).transpose(0, 2, 3, 1).reshape(classes, -1)
        arrays = [self.kernel(W1), b1, self.kernel(W2), b2, np.ascontiguousarray(W3.T), b3]
        self.flat = np.concatenate([a.ravel() for a in arrays])
        self.grad = np.zeros_like(self.flat)
        self.m, self.v = np.zeros_like(self.flat), np.zeros_like(self.flat)
        offsets = np.cumsum([0, *(a.size for a in arrays)])
        self.params = [self.flat[o:o + a.size].reshape(a.shape) for o, a in zip(offsets, arrays)]
        self.grads = [self.grad[o:o + a.size].reshape(a.shape) for o, a in zip(offsets, arrays)]
        self.t = 0

    @staticmethod
    def kernel(weight):
        """(C_out, C, 3, 3) → (9·C, C_out), rows in (i, j, c) order, as the columns."""
        return np.ascontiguousarray(weight.transpose(2, 3, 1, 0).reshape(-1, len(weight)))

    @staticmethod
    def columns(x):
        """x (N, H, W, C) padded by 1 → columns (N·H·W, 9·C): the nine 3×3 offsets' views.

        One copy of a strided view, each row three runs of 3·C neighbouring numbers (a window's
        rows); with one channel, a copy per offset instead, each reading runs of W (image rows).
        """
        n, h, w, c = x.shape
        padded = np.zeros((n, h + 2, w + 2, c), np.float32)
        padded[:, 1:-1, 1:-1] = x
        if c == 1:
            cols = np.empty((n, h, w, 9), np.float32)
            for k in range(9):
                cols[..., k] = padded[:, k // 3:k // 3 + h, k % 3:k % 3 + w, 0]
            return cols.reshape(n * h * w, 9)
        s_n, s_h, s_w, s_c = padded.strides
        rows = np.lib.stride_tricks.as_strided(padded, (n, h, w, 3, 3 * c), (s_n, s_h, s_w, s_h, s_c),
                                               writeable=False)
        return rows.reshape(n * h * w, 9 * c)

    @staticmethod
    def flipped(kernel, c):
        """The input gradient's kernel: offsets reversed, channel axes swapped: (9·C_out, C)."""
        o = kernel.shape[1]
        return np.ascontiguousarray(kernel.reshape(9, c, o)[::-1].transpose(0, 2, 1).reshape(9 * o, c))

    @staticmethod
    def relu_pool(z):
        """relu, then 2×2 max pooling: (pooled, the four corners' views, their maximum).

        Pooling before relu gives the same maps (both take maxima) on a quarter of the numbers.
        """
        corners = [z[:, u::2, v::2] for u in (0, 1) for v in (0, 1)]
        top = np.maximum(np.maximum(corners[0], corners[1]), np.maximum(corners[2], corners[3]))
        return np.maximum(top, 0), corners, top

    @staticmethod
    def unpool_relu(grad, corners, top, pooled):
        """The pooled gradient to each window's winner, zero where relu cut (pooled 0).

        One winner per window, the first maximum in row-major order (PyTorch's rule): a patch
        of empty background gives four equal outputs, b > 0 after the first convolution. A
        corner that wins takes what is left of its window's gradient, and leaves 0.
        """
        remaining = grad * (pooled > 0)
        n, h, w, c = remaining.shape
        full = np.empty((n, 2 * h, 2 * w, c), np.float32)  # the windows tile it: all written
        for (u, v), corner in zip(((0, 0), (0, 1), (1, 0), (1, 1)), corners):
            remaining -= np.multiply(remaining, corner == top, out=full[:, u::2, v::2])
        return full

    def step(self) -> float:
        (W1, b1, W2, b2, W3, b3), (gW1, gb1, gW2, gb2, gW3, gb3) = self.params, self.grads
        n, h, w, _ = self.X.shape
        cols1 = self.columns(self.X)
        z1 = (cols1 @ W1).reshape(n, h, w, -1)
        z1 += b1
        p1, corners1, top1 = self.relu_pool(z1)
        cols2 = self.columns(p1)
        z2 = (cols2 @ W2).reshape(n, h // 2, w // 2, -1)
        z2 += b2
        p2, corners2, top2 = self.relu_pool(z2)
        flat = p2.reshape(n, -1)
        logits = flat @ W3 + b3
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        sums = e.sum(axis=1, keepdims=True)
        loss = float(np.log(sums).mean() - logits[np.arange(n), self.y].mean())
        d = (e / sums - self.onehot) / n
        gW3[...], gb3[...] = flat.T @ d, column_sums(d)
        g2 = self.unpool_relu((d @ W3.T).reshape(p2.shape), corners2, top2, p2)
        g2flat = g2.reshape(-1, W2.shape[1])
        gW2[...], gb2[...] = cols2.T @ g2flat, column_sums(g2flat)
        grad_p1 = (self.columns(g2) @ self.flipped(W2, p1.shape[-1])).reshape(p1.shape)
        g1 = self.unpool_relu(grad_p1, corners1, top1, p1).reshape(-1, W1.shape[1])
        gW1[...], gb1[...] = cols1.T @ g1, column_sums(g1)
        self.adam()
        return loss


def column_sums(g: np.ndarray) -> np.ndarray:
    """Σ over the rows, as a product with ones: NumPy's sum down a (16384, 16) array's columns
    took 0.26 ms, the product 0.015."""
    return np.ones(len(g), g.dtype) @ g


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
    return adam_trainer(fw, split_batch(fw, make_model(fw)), *w4_data())


def run(fw, steps: int, warmup: int) -> dict:
    """The framework's step, the NumPy floor and PyTorch, taking turns in one run."""
    if steps < 5:  # quick mode: a smoke run, untimed, without the floor or PyTorch
        ms, losses = floors.median_ms(trainer(fw), steps, warmup)
        return {"ms_per_step": ms, "losses": losses}
    steps = max(steps, 60)  # a step is a few milliseconds: 60 of each take under a second
    torch_side = with_torch.torch_side()
    result, floor, torch_result = floors.timed_with_floor_and_torch(
        trainer(fw), w4_floor_step(), torch_side.w4_step() if torch_side else None, steps, warmup,
        torch_version=torch_side.version() if torch_side else None)
    floors.side_by_side(result, torch_result, floor)
    return result
