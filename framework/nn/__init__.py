"""`framework.nn`, as `torch.nn`: layers, their functional ops, initialisers.

Chapter 3 writes `modules.py` (`Module`, `Parameter`, `Linear`, activations, containers),
`functional.py` and `init.py`; chapter 5 `transformer.py`; chapter 6 `conv.py` (and
`Conv2d` in `modules.py`). Provided: `loss.py` (the loss modules, over `functional`'s
losses) and `utils.py` (`clip_grad_norm_` and friends, as `torch.nn.utils`). This file only
gathers their names, so every module imports its neighbours directly and none waits for this
package to finish initialising.
"""

from . import conv, functional, init, transformer, utils
from . import functional as F
from .loss import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, L1Loss, MSELoss, NLLLoss
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
    "GELU", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "Conv2d", "CrossEntropyLoss", "Dropout",
    "Embedding", "F", "Flatten", "L1Loss", "LayerNorm", "Linear", "MSELoss", "MaxPool2d", "Module",
    "ModuleList", "MultiheadAttention", "NLLLoss", "Parameter", "PositionalEncoding", "ReLU",
    "Sequential", "Sigmoid", "Tanh", "Transformer", "TransformerDecoder", "TransformerDecoderLayer",
    "TransformerEncoder", "TransformerEncoderLayer", "conv", "functional", "init", "load", "save",
    "transformer", "utils",
]
