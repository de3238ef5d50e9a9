"""nn.MultiheadAttention with keys and values of another width (kdim, vdim): not supported, a
loud error naming the argument.
"""

import numpy as np
import torch
import torch.nn as nn

DIFFERENCE = r"MultiheadAttention: kdim= is not supported"


def run():
    attention = nn.MultiheadAttention(8, 2, kdim=4, vdim=4, batch_first=True)
    query = torch.tensor(np.zeros((2, 3, 8), dtype=np.float32))
    memory = torch.tensor(np.zeros((2, 5, 4), dtype=np.float32))
    out, _ = attention(query, memory, memory)
    return {"shape": list(out.shape)}
