"""Chapter 5: the Transformer, as in `torch.nn` (batch first, pre-LayerNorm).

Token ids become vectors (`Embedding`), positions are added (`PositionalEncoding`),
and attention lets every position read from every other: `MultiheadAttention`
(`attention.py`) inside `TransformerEncoderLayer` and `TransformerDecoderLayer`, stacked into an
encoder-decoder `Transformer` that translates one sequence into another.
"""

from __future__ import annotations

import copy
import inspect
import math
from collections.abc import Callable

import numpy as np

from ..autodiff import no_grad
from ..function import unwrap
from ..tensor import Tensor
from . import functional as F
from . import init
from .attention import MultiheadAttention
from .dropout import Dropout
from .modules import Linear, Module, ModuleList
from .normalization import LayerNorm
from .sparse import Embedding

__all__ = [
    "PositionalEncoding",
    "Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
    "TransformerEncoderLayer", "seq2seq_loss", "shift_right", "sinusoidal_positional_encoding",
]


# -- exercise 5.1: positions ----------------------------------------------------------------------


def sinusoidal_positional_encoding(length: int, d_model: int) -> np.ndarray:
    """The (length, d_model) float32 table PE[p, 2i] = sin(p / 10000^(2i/d)),
    PE[p, 2i+1] = cos(p / 10000^(2i/d)): each pair of columns a wave of its own frequency.
    """
    ### BEGIN SOLUTION 5.1
    position = np.arange(length, dtype=np.float64)[:, None]
    frequency = np.exp(-math.log(10000.0) * np.arange(0, d_model, 2) / d_model)
    angles = position * frequency  # (length, ⌈d_model/2⌉)
    table = np.zeros((length, d_model))
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return table.astype(np.float32)
    ### END SOLUTION


# -- positions (provided) ----------------------------------------------------------------------


class PositionalEncoding(Module):
    """Adds the sinusoidal table to a batch (N, T, d_model), T <= max_len; no scaling, no weights."""

    def __init__(self, d_model: int, max_len: int = 512) -> None:
        super().__init__()
        self.d_model, self.max_len = d_model, max_len
        # a plain attribute, not a buffer: the table is recomputed, never saved or learned
        self.table = sinusoidal_positional_encoding(max_len, d_model)

    def forward(self, x: Tensor) -> Tensor:
        if x.ndim < 2 or x.shape[-1] != self.d_model or x.shape[-2] > self.max_len:
            raise ValueError(
                f"PositionalEncoding: input of shape {tuple(x.shape)}: expected (..., T, {self.d_model}) "
                f"with T <= max_len={self.max_len}"
            )
        return x + self.table[: x.shape[-2]].astype(x.dtype, copy=False)

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, max_len={self.max_len}"


# -- exercises 5.5 and 5.6: the layers ------------------------------------------------------------

_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


def _activation(name: str):
    if name not in _ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(_ACTIVATIONS)}, got {name!r}")
    return _ACTIVATIONS[name]


def _check_layout(layer: str, batch_first, norm_first) -> None:
    """The layers are batch first and pre-LN only, where PyTorch's defaults are the opposite:
    the caller says so (batch_first=True, norm_first=True), so no PyTorch code that relies on
    the defaults runs here with a silently different layer.
    """
    if batch_first is not True or norm_first is not True:
        raise ValueError(
            f"{layer}: pass batch_first=True and norm_first=True (got batch_first={batch_first}, "
            f"norm_first={norm_first}). This course's layers are batch first, (N, T, E), and "
            "pre-LayerNorm, x + f(norm(x)); PyTorch's defaults, batch_first=False (sequence first) "
            "and norm_first=False (post-LayerNorm), are not implemented"
        )


class TransformerEncoderLayer(Module):
    """Pre-LN encoder layer, batch first: x + Dropout(SelfAttention(LN₁ x)), then
    x + Dropout(FFN(LN₂ x)) with FFN(h) = linear2(Dropout(activation(linear1 h))).

    batch_first=True and norm_first=True must be passed: PyTorch's defaults are False.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str = "relu", batch_first: bool | None = None,
                 norm_first: bool | None = None) -> None:
        _check_layout(type(self).__name__, batch_first, norm_first)
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=True)
        self.linear1 = Linear(d_model, dim_feedforward)
        self.linear2 = Linear(dim_feedforward, d_model)
        self.norm1, self.norm2 = LayerNorm(d_model), LayerNorm(d_model)
        self.dropout, self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout), Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, src: Tensor, src_mask=None, src_key_padding_mask=None) -> Tensor:
        ### BEGIN SOLUTION 5.5
        x = src
        h = self.norm1(x)
        attended, _ = self.self_attn(h, h, h, key_padding_mask=src_key_padding_mask,
                                     attn_mask=src_mask, need_weights=False)
        x = x + self.dropout1(attended)
        hidden = self.dropout(self.activation(self.linear1(self.norm2(x))))
        return x + self.dropout2(self.linear2(hidden))
        ### END SOLUTION


class TransformerDecoderLayer(Module):
    """Pre-LN decoder layer, batch first: y + causal SelfAttention(LN₁ y), then
    y + CrossAttention(LN₂ y, memory), then y + FFN(LN₃ y), each branch through Dropout.

    tgt_is_causal defaults to True here (PyTorch's default is False): a decoder that can
    see the future while training learns to copy it and fails when generating.
    batch_first=True and norm_first=True must be passed: PyTorch's defaults are False.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str = "relu", batch_first: bool | None = None,
                 norm_first: bool | None = None) -> None:
        _check_layout(type(self).__name__, batch_first, norm_first)
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=True)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=True)
        self.linear1 = Linear(d_model, dim_feedforward)
        self.linear2 = Linear(dim_feedforward, d_model)
        self.norm1, self.norm2, self.norm3 = LayerNorm(d_model), LayerNorm(d_model), LayerNorm(d_model)
        self.dropout = Dropout(dropout)
        self.dropout1, self.dropout2, self.dropout3 = Dropout(dropout), Dropout(dropout), Dropout(dropout)
        self.activation = _activation(activation)

    def forward(
        self, tgt: Tensor, memory: Tensor, tgt_mask=None, memory_mask=None,
        tgt_key_padding_mask=None, memory_key_padding_mask=None, tgt_is_causal: bool = True,
    ) -> Tensor:
        ### BEGIN SOLUTION 5.6
        y = tgt
        h = self.norm1(y)
        attended, _ = self.self_attn(h, h, h, key_padding_mask=tgt_key_padding_mask, need_weights=False,
                                     attn_mask=tgt_mask, is_causal=tgt_is_causal)
        y = y + self.dropout1(attended)
        read, _ = self.multihead_attn(self.norm2(y), memory, memory, need_weights=False,
                                      key_padding_mask=memory_key_padding_mask,
                                      attn_mask=memory_mask)
        y = y + self.dropout2(read)
        hidden = self.dropout(self.activation(self.linear1(self.norm3(y))))
        return y + self.dropout3(self.linear2(hidden))
        ### END SOLUTION


# -- the stacks (provided) ----------------------------------------------------------------------


class TransformerEncoder(Module):
    """`num_layers` copies of `encoder_layer`, run in order, then `norm` if given, as in PyTorch.

    The copies start with equal weights; `Transformer` gives each layer weights of its own.
    """

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int,
                 norm: Module | None = None) -> None:
        super().__init__()
        self.layers = ModuleList(copy.deepcopy(encoder_layer) for _ in range(num_layers))
        self.norm = norm

    def forward(self, src: Tensor, mask=None, src_key_padding_mask=None) -> Tensor:
        for layer in self.layers:
            src = layer(src, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
        return src if self.norm is None else self.norm(src)


class TransformerDecoder(Module):
    """`num_layers` copies of `decoder_layer`, run in order, then `norm` if given, as in PyTorch.

    The copies start with equal weights; `Transformer` gives each layer weights of its own.
    """

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int,
                 norm: Module | None = None) -> None:
        super().__init__()
        self.layers = ModuleList(copy.deepcopy(decoder_layer) for _ in range(num_layers))
        self.norm = norm

    def forward(
        self, tgt: Tensor, memory: Tensor, tgt_mask=None, memory_mask=None,
        tgt_key_padding_mask=None, memory_key_padding_mask=None, tgt_is_causal: bool = True,
    ) -> Tensor:
        for layer in self.layers:
            tgt = layer(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=tgt_is_causal)
        return tgt if self.norm is None else self.norm(tgt)


def _modes(model: Module) -> list[tuple[Module, bool]]:
    """Every module of the tree with its own `training` flag (they may differ)."""
    return [(module, module.training) for module in model.modules()]


def _restore_modes(modes: list[tuple[Module, bool]]) -> None:
    """Put back the flags `_modes` found: a method that switches to eval leaves no trace."""
    for module, training in modes:
        object.__setattr__(module, "training", training)


# -- exercise 5.7: the Transformer -----------------------------------------------------------------


class Transformer(Module):
    """Encoder-decoder: source ids (N, S) and target ids (N, T) → logits (N, T, tgt_vocab_size).

    Separate source and target embeddings, sinusoidal positions added (no scaling), pre-LN
    stacks with a final LayerNorm each, and a Linear to the target vocabulary. The defaults
    make a model of 236,816 parameters for vocabularies of 16.
    """

    def __init__(
        self, src_vocab_size: int, tgt_vocab_size: int, d_model: int = 64, nhead: int = 4,
        num_encoder_layers: int = 2, num_decoder_layers: int = 2, dim_feedforward: int = 256,
        dropout: float = 0.0, activation: str = "relu", max_len: int = 512,
        padding_idx: int | None = None,
    ) -> None:
        super().__init__()
        self.src_embedding = Embedding(src_vocab_size, d_model, padding_idx)
        self.tgt_embedding = Embedding(tgt_vocab_size, d_model, padding_idx)
        self.positional = PositionalEncoding(d_model, max_len)
        layer = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                     dropout=dropout, activation=activation, batch_first=True, norm_first=True)
        self.encoder = TransformerEncoder(TransformerEncoderLayer(**layer), num_encoder_layers,
                                          LayerNorm(d_model))
        self.decoder = TransformerDecoder(TransformerDecoderLayer(**layer), num_decoder_layers,
                                          LayerNorm(d_model))
        self.output = Linear(d_model, tgt_vocab_size)
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """Give each copy in the stacks weights of its own: every Linear of every layer redrawn
        from its default, U(-1/√in, 1/√in). (`torch.nn.Transformer` redraws the weight
        matrices with xavier_uniform_ instead, and leaves the copies' biases equal.)"""
        for stack in (self.encoder, self.decoder):
            for module in stack.layers.modules():
                if isinstance(module, Linear):
                    bound = 1 / math.sqrt(module.in_features)
                    for p in (module.weight, module.bias):
                        if p is not None:
                            init.uniform_(p, -bound, bound)

    def source_padding_mask(self, src, src_key_padding_mask=None) -> np.ndarray | None:
        """The mask forward and generate use: an explicit one wins; else, with a padding_idx,
        True where src holds it (None when no position does: the same result, less work)."""
        if src_key_padding_mask is not None or self.src_embedding.padding_idx is None:
            return src_key_padding_mask
        padding = np.asarray(unwrap(src)) == self.src_embedding.padding_idx
        return padding if padding.any() else None

    def encode(self, src, src_key_padding_mask=None) -> Tensor:
        """Source ids (N, S) → memory (N, S, d_model)."""
        ### BEGIN SOLUTION 5.7
        x = self.src_embedding(src)
        x = self.positional(x)  # added, not scaled
        return self.encoder(x, src_key_padding_mask=src_key_padding_mask)
        ### END SOLUTION

    def decode(self, tgt, memory: Tensor, tgt_key_padding_mask=None,
               memory_key_padding_mask=None) -> Tensor:
        """Target ids (N, T) read causally, with the memory → logits (N, T, tgt_vocab_size)."""
        ### BEGIN SOLUTION 5.7
        y = self.positional(self.tgt_embedding(tgt))
        y = self.decoder(y, memory, tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask)
        return self.output(y)
        ### END SOLUTION

    def forward(self, src, tgt, src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None) -> Tensor:
        """Logits (N, T, tgt_vocab_size); memory_key_padding_mask defaults to the source's.

        src_key_padding_mask defaults to src == padding_idx when the model has one (pass an
        all-False mask to attend to padding anyway)."""
        src_key_padding_mask = self.source_padding_mask(src, src_key_padding_mask)
        ### BEGIN SOLUTION 5.7
        if memory_key_padding_mask is None:
            memory_key_padding_mask = src_key_padding_mask
        memory = self.encode(src, src_key_padding_mask)
        return self.decode(tgt, memory, tgt_key_padding_mask, memory_key_padding_mask)
        ### END SOLUTION

    def generate(self, src, bos_id: int, eos_id: int, max_len: int,
                 src_key_padding_mask=None) -> np.ndarray:
        """Greedy decoding: from BOS, append the most likely next token until every row has
        produced EOS, or max_len tokens. Returns the tokens after BOS, int64 (N, <= max_len);
        a row that is done is filled with EOS. Runs in eval mode, without a graph. The source
        mask defaults as in forward.
        """
        if isinstance(max_len, bool) or not isinstance(max_len, (int, np.integer)) or max_len < 0:
            raise ValueError(f"generate: max_len={max_len!r} must be a number of tokens, an int "
                             ">= 0 (the longest output to produce after BOS)")
        src_key_padding_mask = self.source_padding_mask(src, src_key_padding_mask)
        modes = _modes(self)
        self.eval()
        try:
            with no_grad():
                ### BEGIN SOLUTION 5.7
                memory = self.encode(src, src_key_padding_mask)  # the encoder runs once
                n = memory.shape[0]
                tokens = np.full((n, 1), bos_id, dtype=np.int64)
                done = np.zeros(n, dtype=bool)
                for _ in range(max_len):
                    logits = self.decode(tokens, memory, memory_key_padding_mask=src_key_padding_mask)
                    next_token = np.where(done, eos_id, logits.data[:, -1].argmax(axis=-1))
                    tokens = np.concatenate([tokens, next_token[:, None]], axis=1)
                    done |= next_token == eos_id
                    if done.all():
                        break
                return tokens[:, 1:]
                ### END SOLUTION
        finally:
            _restore_modes(modes)

    def cross_attention_weights(self, src, tgt, src_key_padding_mask=None,
                                tgt_key_padding_mask=None) -> list[np.ndarray]:
        """Per decoder layer, the cross-attention weights (N, nhead, T, S) under teacher
        forcing: where each target position reads in the source. Eval mode, no graph. The
        source mask defaults as in forward.
        """
        found: list[np.ndarray] = []
        attentions = [layer.multihead_attn for layer in self.decoder.layers]
        modes = _modes(self)
        self.eval()
        try:
            # the model's own forward (exercises 5.6 and 5.7), each cross-attention asked for
            # its weights on its layer's behalf, which needs none
            for attention in attentions:
                object.__setattr__(attention, "forward", _keeping_weights(attention, found))
            with no_grad():
                self(src, tgt, src_key_padding_mask=src_key_padding_mask,
                     tgt_key_padding_mask=tgt_key_padding_mask)
            return found
        finally:
            for attention in attentions:
                vars(attention).pop("forward", None)
            _restore_modes(modes)


def _keeping_weights(attention: MultiheadAttention, found: list) -> Callable:
    """`attention.forward` that computes the weights of every head, whatever it is asked, and
    appends them to `found`; its caller gets what it asked for."""
    forward = attention.forward
    signature = inspect.signature(forward)

    def keeping(*args, **kwargs):
        call = signature.bind(*args, **kwargs)
        call.apply_defaults()
        asked, average = call.arguments["need_weights"], call.arguments["average_attn_weights"]
        call.arguments.update(need_weights=True, average_attn_weights=False)
        out, weights = forward(*call.args, **call.kwargs)
        found.append(weights.data)
        if not asked:
            return out, None
        return out, weights.mean(axis=1) if average else weights

    return keeping


# -- exercise 5.8: training with teacher forcing -----------------------------------------------------


def shift_right(tgt_out: np.ndarray, bos_id: int) -> np.ndarray:
    """The decoder's input under teacher forcing: BOS, then tgt_out without its last token."""
    ### BEGIN SOLUTION 5.8
    tgt_out = np.asarray(tgt_out.data if isinstance(tgt_out, Tensor) else tgt_out)
    bos = np.full((len(tgt_out), 1), bos_id, dtype=tgt_out.dtype)
    return np.concatenate([bos, tgt_out[:, :-1]], axis=1)
    ### END SOLUTION


def seq2seq_loss(
    model: Transformer, src, tgt_out, bos_id: int, pad_id: int, src_key_padding_mask=None,
    label_smoothing: float = 0.0,
) -> Tensor:
    """Mean cross-entropy of predicting tgt_out (N, T) from src (N, S), the decoder reading
    shift_right(tgt_out): every position learns its next token at once. Padding (pad_id)
    is masked as a key and ignored as a target; the source mask defaults to src == pad_id,
    and an explicit one (all False: attend to every source position) is used as given.
    A tgt_out of padding only leaves no token to average over: the loss is NaN, as PyTorch's
    cross_entropy gives when every target is ignore_index.
    """
    ### BEGIN SOLUTION 5.8
    src, tgt_out = (np.asarray(a.data if isinstance(a, Tensor) else a) for a in (src, tgt_out))
    tgt_in = shift_right(tgt_out, bos_id)
    if src_key_padding_mask is None:
        src_key_padding_mask = src == pad_id
    src_mask = np.asarray(getattr(src_key_padding_mask, "data", src_key_padding_mask))
    tgt_mask = tgt_in == pad_id
    # the source mask always goes in: given None, the model would put its own default in its
    # place; a target mask that blocks nothing is left out (the same result, less work)
    logits = model(src, tgt_in, src_key_padding_mask=src_mask,
                   tgt_key_padding_mask=tgt_mask if tgt_mask.any() else None)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1),
                           ignore_index=pad_id, label_smoothing=label_smoothing)
    ### END SOLUTION
