"""`framework.nn`, as `torch.nn`: layers, their functional ops, initialisers.

Chapter 3 writes `modules.py` (`Module`, `Parameter`, `Linear`, activations, containers),
`functional.py` and `init.py`; chapter 5 `transformer.py`, `attention.py` and
`functional_transformer.py` (its functions, exported by `functional`); chapter 6 `conv.py`
(and `Conv2d` in `modules.py`); chapter 7 `gpt.py` and `sampling.py`. Provided: `loss.py`
(the loss modules, over `functional`'s losses), chapter 5's generic layers where `torch.nn` keeps them
(`normalization.py`: `LayerNorm`, `dropout.py`: `Dropout`, `sparse.py`: `Embedding`), the
recurrent layers (`rnn.py`: `LSTM`, `GRU`, `RNN` and their cells),
`utils.py` (`clip_grad_norm_` and friends, as `torch.nn.utils`) and `parallel.py`
(`DataParallel`, as PyTorch's on a machine without GPUs). The bonus exercises of chapters 3, 5,
6 and 7 are in `framework/bonus/`.
This file only says where each name lives; a name loads its file when it is first used, so
chapter 5's transformer.py does not have to import for chapter 3's layers to work. Every
module imports its neighbours directly.
"""

from ..provided.lazy import attach

__all__, __getattr__, __dir__ = attach(
    __name__,
    names={  # submodule: the names it exports here
        "activation": ["CELU", "CosineSimilarity", "ELU", "GLU", "Hardshrink", "Hardsigmoid",
                       "Hardswish", "Hardtanh", "Identity", "LeakyReLU", "LogSigmoid",
                       "LogSoftmax", "Mish", "PairwiseDistance", "ReLU6", "SELU", "SiLU",
                       "Softmax", "Softmin", "Softplus", "Softshrink", "Softsign", "Tanhshrink",
                       "Threshold"],
        "attention": ["MultiheadAttention"],
        "container": ["ModuleDict", "ParameterDict", "ParameterList"],
        "dropout": ["Dropout", "Dropout2d"],
        "gpt": ["GPT", "KVCache"],
        "loss": ["BCELoss", "BCEWithLogitsLoss", "CosineEmbeddingLoss", "CrossEntropyLoss",
                 "GaussianNLLLoss", "HingeEmbeddingLoss", "HuberLoss", "KLDivLoss", "L1Loss",
                 "MSELoss", "MarginRankingLoss", "NLLLoss", "PoissonNLLLoss", "SmoothL1Loss",
                 "SoftMarginLoss", "TripletMarginLoss"],
        "modules": ["GELU", "AvgPool2d", "Conv2d", "Flatten", "Linear", "MaxPool2d", "Module",
                    "ModuleList", "Parameter", "ReLU", "Sequential", "Sigmoid", "Tanh"],
        "normalization": ["BatchNorm1d", "BatchNorm2d", "LayerNorm"],
        "parallel": ["DataParallel"],
        "rnn": ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNCell"],
        "serialization": ["load", "save"],
        "sparse": ["Embedding"],
        "transformer": ["PositionalEncoding", "Transformer", "TransformerDecoder",
                        "TransformerDecoderLayer", "TransformerEncoder",
                        "TransformerEncoderLayer"],
    },
    submodules=["conv", "functional", "gpt", "init", "sampling", "transformer", "utils"],
    aliases={"F": "functional"},
)
del attach  # a helper of this file, not a name of the package
