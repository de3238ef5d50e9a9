"""`framework.nn`, as `torch.nn`: layers, their functional ops, initialisers.

Chapter 3 writes `modules.py` (`Module`, `Parameter`, `Linear`, activations, containers),
`functional.py` and `init.py`; chapter 5 `transformer.py`; chapter 6 `conv.py` (and
`Conv2d` in `modules.py`); chapter 7 `gpt.py`. This file only gathers their names, so every module imports
its neighbours directly and none waits for this package to finish initialising.
"""

from . import conv, functional, gpt, init, transformer
from . import functional as F
from .gpt import GPT, KVCache
from .modules import (
    GELU,
    AvgPool2d,
    Conv2d,
    Flatten,
    Linear,
    MaxPool2d,
    Module,
    ModuleList,
    Parameter,
    ReLU,
    Sequential,
    Sigmoid,
    Tanh,
    load,
    save,
)
from .transformer import (
    Dropout,
    Embedding,
    LayerNorm,
    MultiheadAttention,
    PositionalEncoding,
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = [
    "GELU", "GPT", "AvgPool2d", "Conv2d", "Dropout", "Embedding", "F", "Flatten", "KVCache",
    "LayerNorm", "Linear", "MaxPool2d", "Module", "ModuleList", "MultiheadAttention", "Parameter",
    "PositionalEncoding", "ReLU", "Sequential", "Sigmoid", "Tanh", "Transformer",
    "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
    "TransformerEncoderLayer", "conv", "functional", "gpt", "init", "load", "save", "transformer",
]
