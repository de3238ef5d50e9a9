"""Provided: the recurrent layers of `torch.nn` (PyTorch keeps them in torch/nn/modules/rnn.py):
`RNN` (tanh or relu), `LSTM` and `GRU` over a sequence, and their one-step cells `RNNCell`,
`LSTMCell` and `GRUCell`. A step is written with tensor ops (`F.linear`, `sigmoid`, `tanh`,
slices), so autograd differentiates it through time: no backward of their own.

The parameters have PyTorch's names and layout, so a PyTorch state dict loads as it is: layer k
holds `weight_ih_l{k}` (G·H, input), `weight_hh_l{k}` (G·H, H), `bias_ih_l{k}` and
`bias_hh_l{k}` (G·H,), where G = 1 (RNN), 4 (LSTM: the gates i, f, g, o stacked in that order)
or 3 (GRU: r, z, n). All start U(-1/√H, 1/√H), drawn in that order, as PyTorch draws them.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..provided.generator import default_generator
from ..shape_ops import Stack
from ..tensor import Tensor
from . import functional as F
from .modules import Module, Parameter

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNCell"]

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


# -- one time step: the input's part of the gates (x Wᵢₕᵀ + bᵢₕ) and the state → the new state --


def _rnn_tanh_step(gates_x: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """h' = tanh(x Wᵢₕᵀ + bᵢₕ + h Wₕₕᵀ + bₕₕ)."""
    return (gates_x + F.linear(h, w_hh, b_hh)).tanh()


def _rnn_relu_step(gates_x: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """h' = relu(x Wᵢₕᵀ + bᵢₕ + h Wₕₕᵀ + bₕₕ)."""
    return (gates_x + F.linear(h, w_hh, b_hh)).relu()


def _lstm_step(gates_x: Tensor, state: tuple, w_hh: Tensor, b_hh: Tensor | None) -> tuple:
    """c' = σ(f)·c + σ(i)·tanh(g), h' = σ(o)·tanh(c'), from the gates i, f, g, o of x and h."""
    h, c = state
    i, f, g, o = (gates_x + F.linear(h, w_hh, b_hh)).chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def _gru_step(gates_x: Tensor, h: Tensor, w_hh: Tensor, b_hh: Tensor | None) -> Tensor:
    """r, z = σ(x's part + h's part), n = tanh(x's part + r·(h's part)), h' = (1 - z)·n + z·h."""
    x_r, x_z, x_n = gates_x.chunk(3, -1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r, z = (x_r + h_r).sigmoid(), (x_z + h_z).sigmoid()
    n = (x_n + r * h_n).tanh()
    return n + z * (h - n)


STEPS = {"RNN_TANH": _rnn_tanh_step, "RNN_RELU": _rnn_relu_step, "LSTM": _lstm_step, "GRU": _gru_step}


def _mode(name: str, nonlinearity: str) -> str:
    if nonlinearity not in ("tanh", "relu"):
        raise ValueError(f"{name}: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
    return f"RNN_{nonlinearity.upper()}"


def _check_sizes(name: str, **sizes: int) -> None:
    for argument, size in sizes.items():
        if not isinstance(size, (int, np.integer)) or isinstance(size, bool) or size <= 0:
            raise ValueError(f"{name}: {argument} must be a positive int, got {size!r}")


def _uniform_parameters(module: Module, shapes: dict, hidden_size: int, dtype) -> None:
    """Register each parameter U(-1/√H, 1/√H), drawn in the order of `shapes` (PyTorch's)."""
    bound = 1 / math.sqrt(hidden_size)
    rng = default_generator()
    for name, shape in shapes.items():
        setattr(module, name, Parameter(rng.uniform(-bound, bound, shape).astype(dtype)))


def _state(name: str, label: str, value, expected: tuple) -> Tensor:
    """A given initial state, checked to have the shape PyTorch expects."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}: {label} must be a Tensor, got {type(value).__name__}")
    if value.shape != expected:
        raise ValueError(f"{name}: {label} has shape {tuple(value.shape)}; for this input it must be "
                         f"{expected} (num_layers, batch, hidden_size), without batch for an "
                         "unbatched input")
    return value


def _check_input(name: str, input, input_size: int, ndims: tuple, layouts: str) -> None:  # noqa: A002
    """A tensor of one of `ndims` axes (batched, unbatched), the last of input_size features."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}; wrap it: "
                        "torch.tensor(x)")
    if input.ndim not in ndims:
        raise ValueError(f"{name}: input has shape {tuple(input.shape)}; expected {layouts}")
    if input.shape[-1] != input_size or 0 in input.shape:
        raise ValueError(f"{name}: input has shape {tuple(input.shape)}: {input.shape[-1]} features, "
                         f"expected input_size={input_size} (and no empty axis)")


class _RNNBase(Module):
    """A stack of num_layers recurrent layers over a sequence; each layer's outputs are the
    next layer's inputs (after dropout, while training, but for the last layer's)."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, dtype=np.float32) -> None:
        super().__init__()
        name = type(self).__name__
        _check_sizes(name, input_size=input_size, hidden_size=hidden_size, num_layers=num_layers)
        if bidirectional:
            raise NotImplementedError(
                f"{name}: bidirectional=True is not supported here; run a second {name} on "
                "the reversed sequence (input.flip(time axis)) and concatenate the outputs")
        if proj_size:
            raise NotImplementedError(
                f"{name}: proj_size={proj_size} is not supported here; apply an nn.Linear "
                "to the outputs instead (without feeding it back), or use proj_size=0")
        if not 0.0 <= dropout <= 1.0:
            raise ValueError(f"{name}: dropout={dropout} must be a probability in [0, 1]")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"{name}: dropout={dropout} acts between layers only, and this one has "
                          "num_layers=1, so nothing is dropped", UserWarning, stacklevel=2)
        self.mode, self.input_size, self.hidden_size, self.num_layers = (
            mode, input_size, hidden_size, num_layers)
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = False, 0
        gates = GATES[mode] * hidden_size
        shapes = {}
        for k in range(num_layers):
            shapes[f"weight_ih_l{k}"] = (gates, input_size if k == 0 else hidden_size)
            shapes[f"weight_hh_l{k}"] = (gates, hidden_size)
            if bias:
                shapes[f"bias_ih_l{k}"] = shapes[f"bias_hh_l{k}"] = (gates,)
        _uniform_parameters(self, shapes, hidden_size, dtype)

    def flatten_parameters(self) -> None:
        """PyTorch packs the weights into one buffer for cuDNN; here they stay apart: no-op."""

    def _layer(self, k: int) -> tuple:
        """(weight_ih, weight_hh, bias_ih, bias_hh) of layer k; the biases None without bias."""
        return tuple(getattr(self, f"{kind}_l{k}", None)
                     for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))

    def _initial(self, hx, x: Tensor, batched: bool) -> list:
        """Each layer's initial state for the time-major x: from hx ((num_layers, batch, H)
        tensors, (num_layers, H) for an unbatched input; (h0, c0) for an LSTM), or zeros."""
        name, lstm = type(self).__name__, self.mode == "LSTM"
        shape = (self.num_layers, x.shape[1], self.hidden_size)
        if hx is None:
            zeros = Tensor(np.zeros(shape, x.dtype))
            return [(zeros[k], zeros[k]) if lstm else zeros[k] for k in range(self.num_layers)]
        expected = shape if batched else (self.num_layers, self.hidden_size)
        if lstm:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(f"{name}: hx must be a tuple (h0, c0) of two tensors, got "
                                f"{type(hx).__name__}")
            h0, c0 = (_state(name, label, s, expected) for label, s in zip(("h0", "c0"), hx))
            if not batched:
                h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
            return [(h0[k], c0[k]) for k in range(self.num_layers)]
        h0 = _state(name, "h0", hx, expected)
        h0 = h0 if batched else h0.unsqueeze(1)
        return [h0[k] for k in range(self.num_layers)]

    def forward(self, input: Tensor, hx=None):  # noqa: A002 (PyTorch's name)
        """(output, h_n), (output, (h_n, c_n)) for an LSTM: output (L, N, H) ((N, L, H) with
        batch_first) holds the last layer's h at every step, h_n (num_layers, N, H) the
        last step's of every layer. An unbatched (L, input_size) input drops the N axes."""
        name = type(self).__name__
        layout = "(batch, L, input_size)" if self.batch_first else "(L, batch, input_size)"
        _check_input(name, input, self.input_size, (3, 2), f"{layout} or, unbatched, (L, input_size)")
        batched = input.ndim == 3
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)
        states = self._initial(hx, x, batched)
        # step by step, each layer's outputs are the next one's inputs, never stacked between
        # layers: a slice of a stacked tensor would give its whole shape a gradient at each step
        step, finals, inputs = STEPS[self.mode], [], [x[t] for t in range(x.shape[0])]
        for k in range(self.num_layers):
            w_ih, w_hh, b_ih, b_hh = self._layer(k)
            if k and self.dropout and self.training:
                inputs = [F.dropout(x_t, self.dropout) for x_t in inputs]
            state, outputs = states[k], []
            for x_t in inputs:
                state = step(F.linear(x_t, w_ih, b_ih), state, w_hh, b_hh)
                outputs.append(state[0] if self.mode == "LSTM" else state)
            finals.append(state)
            inputs = outputs
        return self._results(Stack.apply(*inputs, axis=0), finals, batched)

    def _results(self, x: Tensor, finals: list, batched: bool):
        if self.mode == "LSTM":
            final = tuple(Stack.apply(*parts, axis=0) for parts in zip(*finals))
        else:
            final = Stack.apply(*finals, axis=0)
        if not batched:
            x = x.squeeze(1)
            final = tuple(f.squeeze(1) for f in final) if self.mode == "LSTM" else final.squeeze(1)
        elif self.batch_first:
            x = x.transpose(0, 1)
        return x, final

    def extra_repr(self) -> str:
        shown = f"{self.input_size}, {self.hidden_size}"
        options = {"num_layers": (self.num_layers, 1), "bias": (self.bias, True),
                   "batch_first": (self.batch_first, False), "dropout": (self.dropout, 0.0)}
        return shown + "".join(f", {key}={value}" for key, (value, default) in options.items()
                               if value != default)


class RNN(_RNNBase):
    """h_t = tanh(x_t Wᵢₕᵀ + bᵢₕ + h_{t-1} Wₕₕᵀ + bₕₕ) (or relu), over a sequence, as torch.nn.RNN."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, dtype=np.float32) -> None:
        super().__init__(_mode("RNN", nonlinearity), input_size, hidden_size, num_layers, bias,
                         batch_first, dropout, bidirectional, dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTM(_RNNBase):
    """Long short-term memory over a sequence, as torch.nn.LSTM: each step's gates i, f, g, o
    make c_t = σ(f)·c_{t-1} + σ(i)·tanh(g) and h_t = σ(o)·tanh(c_t)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, dtype=np.float32) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, dtype)


class GRU(_RNNBase):
    """Gated recurrent unit over a sequence, as torch.nn.GRU: h_t = (1 - z)·n + z·h_{t-1}, with
    the reset gate r, update gate z and candidate n = tanh(x's part + r·(h's part))."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 dtype=np.float32) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, dtype=dtype)


# -- the cells: one step, on (N, input_size) or unbatched (input_size,) ----------------------------


class _CellBase(Module):
    """One step of a recurrent layer: weight_ih (G·H, input), weight_hh (G·H, H), bias_ih and
    bias_hh (G·H,), all U(-1/√H, 1/√H) as PyTorch's."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, bias: bool, dtype) -> None:
        super().__init__()
        _check_sizes(type(self).__name__, input_size=input_size, hidden_size=hidden_size)
        self.mode, self.input_size, self.hidden_size, self.bias = mode, input_size, hidden_size, bias
        gates = GATES[mode] * hidden_size
        shapes = {"weight_ih": (gates, input_size), "weight_hh": (gates, hidden_size)}
        if bias:
            shapes["bias_ih"] = shapes["bias_hh"] = (gates,)
        _uniform_parameters(self, shapes, hidden_size, dtype)

    def forward(self, input: Tensor, hx=None):  # noqa: A002 (PyTorch's name)
        """The next state: h' ((h', c') for an LSTMCell), (N, H), or (H,) for an unbatched input."""
        name, lstm = type(self).__name__, self.mode == "LSTM"
        _check_input(name, input, self.input_size, (2, 1), "(batch, input_size) or (input_size,)")
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        shape = (x.shape[0], self.hidden_size)
        if hx is None:
            zeros = Tensor(np.zeros(shape, x.dtype))
            state = (zeros, zeros) if lstm else zeros
        elif lstm:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(f"{name}: hx must be a tuple (h, c) of two tensors, got "
                                f"{type(hx).__name__}")
            state = tuple(self._given(label, s, shape, batched) for label, s in zip("hc", hx))
        else:
            state = self._given("hx", hx, shape, batched)
        bias_ih, bias_hh = getattr(self, "bias_ih", None), getattr(self, "bias_hh", None)
        new = STEPS[self.mode](F.linear(x, self.weight_ih, bias_ih), state, self.weight_hh, bias_hh)
        if batched:
            return new
        return tuple(s.squeeze(0) for s in new) if lstm else new.squeeze(0)

    def _given(self, label: str, value, shape: tuple, batched: bool) -> Tensor:
        state = _state(type(self).__name__, label, value, shape if batched else shape[1:])
        return state if batched else state.unsqueeze(0)

    def extra_repr(self) -> str:
        shown = f"{self.input_size}, {self.hidden_size}"
        shown += "" if self.bias else ", bias=False"
        return shown + (", nonlinearity=relu" if self.mode == "RNN_RELU" else "")


class RNNCell(_CellBase):
    """h' = tanh(x Wᵢₕᵀ + bᵢₕ + h Wₕₕᵀ + bₕₕ) (or relu), as torch.nn.RNNCell."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", dtype=np.float32) -> None:
        super().__init__(_mode("RNNCell", nonlinearity), input_size, hidden_size, bias, dtype)
        self.nonlinearity = nonlinearity


class LSTMCell(_CellBase):
    """One LSTM step, as torch.nn.LSTMCell: (x, (h, c)) → (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 dtype=np.float32) -> None:
        super().__init__("LSTM", input_size, hidden_size, bias, dtype)


class GRUCell(_CellBase):
    """One GRU step, as torch.nn.GRUCell: (x, h) → h'."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 dtype=np.float32) -> None:
        super().__init__("GRU", input_size, hidden_size, bias, dtype)
