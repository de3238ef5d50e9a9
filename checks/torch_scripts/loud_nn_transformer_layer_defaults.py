"""nn.TransformerEncoderLayer with PyTorch's defaults (sequence first, post-LayerNorm): the
framework's layers are batch first and pre-LayerNorm only, and require both said.
"""

import numpy as np
import torch
import torch.nn as nn

DIFFERENCE = r"TransformerEncoderLayer: pass batch_first=True and norm_first=True"


def run():
    layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
    x = torch.tensor(np.zeros((5, 2, 8), dtype=np.float32))  # (T, N, E): sequence first
    return {"shape": list(layer(x).shape)}
