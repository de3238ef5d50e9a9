"""CrossEntropyLoss(weight=...) (per-class weights) is not supported: a loud error naming it."""

import numpy as np
import torch
import torch.nn as nn

DIFFERENCE = r"CrossEntropyLoss: the argument weight= is not supported"


def run():
    criterion = nn.CrossEntropyLoss(weight=torch.tensor(np.array([1.0, 2.0, 0.5], dtype=np.float32)))
    logits = torch.tensor(np.zeros((2, 3), dtype=np.float32))
    return {"loss": criterion(logits, torch.tensor(np.array([0, 1]))).item()}
