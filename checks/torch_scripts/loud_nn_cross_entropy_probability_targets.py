"""CrossEntropyLoss with class probabilities as targets (N, C) floats: class indices only here."""

import numpy as np
import torch
import torch.nn as nn

DIFFERENCE = r"cross_entropy: targets must be integer class indices"


def run():
    logits = torch.tensor(np.zeros((2, 3), dtype=np.float32))
    soft = torch.tensor(np.array([[0.7, 0.2, 0.1], [0.0, 0.5, 0.5]], dtype=np.float32))
    return {"loss": nn.CrossEntropyLoss()(logits, soft).item()}
