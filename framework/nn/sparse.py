"""Provided: `Embedding`, a table of learned vectors looked up by token id, as in `torch.nn`
(PyTorch keeps it in torch/nn/modules/sparse.py). Chapter 5 turns tokens into vectors with it.
"""

from __future__ import annotations

import numpy as np

from ..function import Function, unwrap
from ..provided.generator import default_generator
from ..tensor import Tensor
from .modules import Module, Parameter

__all__ = ["Embedding"]


def _ids(tokens, op: str, count: int) -> np.ndarray:
    """Token ids as an int array, checked to lie in 0..count-1."""
    ids = np.asarray(unwrap(tokens))
    if not np.issubdtype(ids.dtype, np.integer):
        raise TypeError(f"{op}: token ids must be integers, got {ids.dtype}; pass an int array")
    if ids.size and (ids.min() < 0 or ids.max() >= count):
        bad = ids[(ids < 0) | (ids >= count)][0]
        raise IndexError(f"{op}: token id {bad} is outside 0..{count - 1} (num_embeddings={count})")
    return ids


class EmbeddingFunction(Function):
    """out = W[ids]; ∂W[v] = Σ of the gradients of the positions holding id v (none for padding)."""

    @staticmethod
    def forward(ctx, weight, ids, padding_idx=None):
        ctx.ids, ctx.shape, ctx.padding_idx = ids, weight.shape, padding_idx
        return weight[ids]

    @staticmethod
    def backward(ctx, grad):
        # sort the positions by id, then add up each id's run of rows in one reduceat:
        # several times faster than np.add.at, for any vocabulary size
        ids = ctx.ids.ravel()
        order = np.argsort(ids, kind="stable")
        sorted_ids = ids[order]
        starts = np.flatnonzero(np.diff(sorted_ids, prepend=-1))
        grad_w = np.zeros(ctx.shape, dtype=grad.dtype)
        if len(ids):
            rows = grad.reshape(-1, ctx.shape[1])[order]
            grad_w[sorted_ids[starts]] = np.add.reduceat(rows, starts, axis=0)
        if ctx.padding_idx is not None:
            grad_w[ctx.padding_idx] = 0
        return grad_w, None


class Embedding(Module):
    """A table of num_embeddings learned vectors: ids (...) → vectors (..., embedding_dim).

    Rows start N(0, 1) (PyTorch's init); the row padding_idx starts at zero and is never
    updated, so padding contributes nothing.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 dtype=np.float32) -> None:
        super().__init__()
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise ValueError(f"Embedding: padding_idx={padding_idx} is not a row of "
                             f"0..{num_embeddings - 1}")
        weight = default_generator().standard_normal((num_embeddings, embedding_dim))
        if padding_idx is not None:
            padding_idx %= num_embeddings
            weight[padding_idx] = 0
        self.weight = Parameter(weight.astype(dtype))
        self.num_embeddings, self.embedding_dim, self.padding_idx = (
            num_embeddings, embedding_dim, padding_idx)

    def forward(self, tokens) -> Tensor:
        ids = _ids(tokens, "Embedding", self.num_embeddings)
        return EmbeddingFunction.apply(self.weight, ids, padding_idx=self.padding_idx)

    def extra_repr(self) -> str:
        padding = f", padding_idx={self.padding_idx}" if self.padding_idx is not None else ""
        return f"{self.num_embeddings}, {self.embedding_dim}{padding}"
