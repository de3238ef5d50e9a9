"""Chapter 5: `MultiheadAttention`, as in `torch.nn` (exercise 5.4): several attentions side by
side, each on its own slice of the features, over `F.scaled_dot_product_attention`.
"""

from __future__ import annotations

import numpy as np

from ..autodiff import no_grad
from ..function import unwrap
from ..tensor import Tensor
from . import functional as F
from .modules import Linear, Module

__all__ = ["MultiheadAttention"]


# -- exercise 5.4: multi-head attention -----------------------------------------------------------


def _boolean(mask, name: str) -> np.ndarray:
    mask = np.asarray(unwrap(mask))
    if mask.dtype != bool:
        raise TypeError(f"MultiheadAttention: {name} must be boolean (True = blocked), got "
                        f"{mask.dtype}; compare ids with the padding id, e.g. src == pad_id")
    return mask


class MultiheadAttention(Module):
    """num_heads attentions side by side, each on its own embed_dim/num_heads slice.

    As PyTorch's: sequence first by default, query (L, N, E), key and value (S, N, E) →
    output (L, N, E); with batch_first=True (what this chapter's layers use) query (N, L, E),
    key and value (N, S, E) → (N, L, E). key_padding_mask (N, S): True = that key is padding.
    attn_mask (L, S) or (N·num_heads, L, S): boolean True = BLOCKED (PyTorch's convention
    here, the opposite of scaled_dot_product_attention's), or float, added to the scores.
    is_causal: query i sees keys j <= i. need_weights (default True, as PyTorch): also the
    attention weights (N, L, S) averaged over heads, or (N, num_heads, L, S) when
    average_attn_weights=False; else None. Layers pass need_weights=False: they need only
    the output, which is then one fused op.

    The projections are four Linear layers, `q_proj`, `k_proj`, `v_proj`, `out_proj`:
    PyTorch packs the first three into `in_proj_weight` (3E, E) and `in_proj_bias` (3E,).
    `load_state_dict` accepts either naming (`translate_state`); `state_dict` writes ours.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False) -> None:
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"MultiheadAttention: embed_dim={embed_dim} is not divisible by "
                             f"num_heads={num_heads}; each head takes embed_dim/num_heads features")
        unsupported = {"add_bias_kv": add_bias_kv, "add_zero_attn": add_zero_attn,
                       "kdim": kdim not in (None, embed_dim), "vdim": vdim not in (None, embed_dim)}
        for name, given in unsupported.items():
            if given:
                raise NotImplementedError(f"MultiheadAttention: {name}= is not supported; keys and "
                                          "values have embed_dim features, and no bias or zero "
                                          "attention is appended to them")
        self.embed_dim, self.num_heads, self.head_dim = embed_dim, num_heads, embed_dim // num_heads
        self.dropout, self.batch_first = dropout, batch_first
        self.q_proj = Linear(embed_dim, embed_dim, bias=bias)
        self.k_proj = Linear(embed_dim, embed_dim, bias=bias)
        self.v_proj = Linear(embed_dim, embed_dim, bias=bias)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias)

    def check_shapes(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask,
                     attn_mask) -> None:
        """Raise ValueError naming which of query, key, value or a mask disagrees, and how
        (shapes as given, in the module's layout).
        """
        name = "MultiheadAttention"
        layout = ("(N, T, embed_dim={}) (batch first)" if self.batch_first else
                  "(T, N, embed_dim={}) (sequence first: batch_first=False, PyTorch's default)")
        for which, x in (("query", query), ("key", key), ("value", value)):
            if x.ndim != 3 or x.shape[-1] != self.embed_dim:
                raise ValueError(f"{name}: {which} has shape {tuple(x.shape)}; expected "
                                 + layout.format(self.embed_dim))
        if key.shape[:2] != value.shape[:2]:
            raise ValueError(f"{name}: key {tuple(key.shape)} and value {tuple(value.shape)} must agree on "
                             "(N, S): one value per key")
        batch = 0 if self.batch_first else 1
        if query.shape[batch] != key.shape[batch]:
            raise ValueError(f"{name}: query {tuple(query.shape)} and key {tuple(key.shape)} have different "
                             f"batch sizes N ({query.shape[batch]} vs {key.shape[batch]})")
        n, length, source = query.shape[batch], query.shape[1 - batch], key.shape[1 - batch]
        if key_padding_mask is not None and np.shape(key_padding_mask) != (n, source):
            raise ValueError(f"{name}: key_padding_mask has shape {np.shape(key_padding_mask)}; "
                             f"expected (N, S) = {(n, source)}, one flag per key")
        if attn_mask is not None and np.shape(attn_mask) not in (
                (length, source), (n * self.num_heads, length, source)):
            raise ValueError(f"{name}: attn_mask has shape {np.shape(attn_mask)}; expected "
                             f"(L, S) = {(length, source)} or (N·num_heads, L, S) = "
                             f"{(n * self.num_heads, length, source)}")

    def forward(
        self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask=None,
        need_weights: bool = True, attn_mask=None, average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        self.check_shapes(query, key, value, key_padding_mask, attn_mask)
        if not self.batch_first:  # (T, N, E) → (N, T, E): the heads below work batch first
            query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        ### BEGIN SOLUTION 5.4
        (n, length, _), source = query.shape, key.shape[1]
        mask = self.sdpa_mask(n, length, source, key_padding_mask, attn_mask)
        q = self.split_heads(self.q_proj(query))
        k = self.split_heads(self.k_proj(key))
        v = self.split_heads(self.v_proj(value))
        heads, weights = self.attend(q, k, v, mask, is_causal, need_weights)
        out = self.out_proj(self.merge_heads(heads))
        ### END SOLUTION
        if not self.batch_first:
            out = out.transpose(0, 1)
        if need_weights:
            return out, weights.mean(axis=1) if average_attn_weights else weights
        return out, None

    def attend(self, q: Tensor, k: Tensor, v: Tensor, mask, is_causal: bool,
               need_weights: bool) -> tuple[Tensor, Tensor | None]:
        """Attention of every head at once, (N, H, L, head_dim), and the weights (N, H, L, S)
        when asked for (outside the graph, as PyTorch returns them). Dropout, when training,
        acts on the weights, as in PyTorch.
        """
        # the weights are attention applied to one-hot values: P = attention(Q, K, I)
        eye = np.eye(k.shape[-2], dtype=q.dtype)
        if self.training and self.dropout > 0:
            weights = F.scaled_dot_product_attention(q, k, eye, mask, is_causal)
            heads = F.dropout(weights, self.dropout, self.training) @ v
            return heads, weights.detach() if need_weights else None
        heads = F.scaled_dot_product_attention(q, k, v, mask, is_causal)
        if not need_weights:
            return heads, None
        with no_grad():
            return heads, F.scaled_dot_product_attention(q, k, eye, mask, is_causal)

    def split_heads(self, x: Tensor) -> Tensor:
        """(N, T, E) → (N, num_heads, T, head_dim): head h holds features h·head_dim onwards."""
        ### BEGIN SOLUTION 5.4
        n, t, _ = x.shape
        x = x.reshape(n, t, self.num_heads, self.head_dim)
        return x.transpose(1, 2)  # swap the T and head axes
        ### END SOLUTION

    def merge_heads(self, x: Tensor) -> Tensor:
        """(N, num_heads, T, head_dim) → (N, T, E): the inverse of split_heads."""
        ### BEGIN SOLUTION 5.4
        n, _, t, _ = x.shape
        x = x.transpose(1, 2)  # (N, T, H, head_dim): each position's heads side by side
        return x.reshape(n, t, self.embed_dim)
        ### END SOLUTION

    def sdpa_mask(self, n: int, length: int, source: int, key_padding_mask,
                  attn_mask) -> np.ndarray | None:
        """The masks as one for scaled_dot_product_attention, broadcasting to (N, H, L, S):
        boolean True = MAY attend (so the blocked-masks are negated), or float, added.
        """
        ### BEGIN SOLUTION 5.4
        if attn_mask is not None:
            attn_mask = np.asarray(attn_mask.data if isinstance(attn_mask, Tensor) else attn_mask)
            if attn_mask.ndim == 3:  # (N·H, L, S): one mask per batch element and head
                attn_mask = attn_mask.reshape(n, self.num_heads, length, source)
        if key_padding_mask is None:
            return attn_mask if attn_mask is None or attn_mask.dtype != bool else ~attn_mask
        padding = _boolean(key_padding_mask, "key_padding_mask")[:, None, None, :]  # (N, 1, 1, S)
        if attn_mask is None:
            return ~padding
        if attn_mask.dtype != bool:
            return attn_mask + np.where(padding, -np.inf, 0).astype(attn_mask.dtype)
        return ~(attn_mask | padding)
        ### END SOLUTION

    def translate_state(self, prefix: str, state: dict) -> dict:
        """A state dict with PyTorch's packed names for this module (`in_proj_weight` (3E, E),
        `in_proj_bias` (3E,)) split into q_proj, k_proj and v_proj; any other as it is.
        """
        if f"{prefix}in_proj_weight" not in state:
            return state
        state = dict(state)
        for leaf in ("weight", "bias"):
            packed = state.pop(f"{prefix}in_proj_{leaf}", None)
            if packed is not None:
                parts = np.split(np.asarray(unwrap(packed)), 3)
                for projection, part in zip(("q_proj", "k_proj", "v_proj"), parts):
                    state[f"{prefix}{projection}.{leaf}"] = part
        return state

    def extra_repr(self) -> str:
        layout = ", batch_first=True" if self.batch_first else ""
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout={self.dropout}{layout}"
