"""torch.save(model.state_dict(), path), then load_state_dict(torch.load(path)) into a new model."""

import os
import tempfile

import numpy as np
import torch
import torch.nn as nn


def make():
    return nn.Sequential(nn.Linear(3, 6), nn.GELU(), nn.Linear(6, 2))


def run():
    torch.manual_seed(0)
    model = make()
    x = torch.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.pt")
        torch.save(model.state_dict(), path)
        torch.manual_seed(1)
        other = make()
        with torch.no_grad():
            assert not np.allclose(other(x).numpy(), model(x).numpy())
        result = other.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    assert list(result.missing_keys) == [] and list(result.unexpected_keys) == []
    with torch.no_grad():
        assert np.array_equal(other(x).numpy(), model(x).numpy())
    return {"keys": list(model.state_dict().keys()), "loaded": True}
