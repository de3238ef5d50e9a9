"""The benchmark's PyTorch side starts from the same weights and data (needs the `compare` extra).

    pip install -e '.[compare]' && python -m pytest checks/torch_parity
"""

import numpy as np
import torch

from checks.benchmarks import floors, w4_cnn, with_torch


def test_the_torch_side_starts_from_the_same_weights():
    model = with_torch.torch_side().w3_model()
    src, tgt_in, tgt_out = floors.w3_batches(1)[0]
    with torch.no_grad():
        logits = model(torch.from_numpy(src), torch.from_numpy(tgt_in))
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 16), torch.from_numpy(tgt_out.ravel()))
    expected = floors.w3_loss(floors.w3_parameters(), src, tgt_in, tgt_out)
    np.testing.assert_allclose(loss.item(), expected, rtol=1e-5)
    w2 = with_torch.torch_side().w2(2, 0)["losses"]
    np.testing.assert_allclose(w2, floors.w2_floor(2, 0)["losses"], rtol=1e-5)


def test_the_torch_w4_trains_as_the_floor():
    """W4 in PyTorch from the shared batch and weights: the floor's losses, step for step."""
    step, floor = with_torch.torch_side().w4_step(), w4_cnn.w4_floor_step()
    np.testing.assert_allclose([step() for _ in range(5)], [floor() for _ in range(5)], rtol=1e-5)
