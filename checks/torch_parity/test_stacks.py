"""The Transformer stacks take PyTorch's arguments and compute what PyTorch's compute
(needs the `compare` extra).

    pip install -e '.[compare]' && python -m pytest checks/torch_parity
"""

import numpy as np
import pytest
import torch

from checks.loader import load_framework

fw = load_framework("solutions")
nn = fw.nn
LAYER = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True, norm_first=True)


def our_state(theirs: torch.nn.Module, ours) -> dict[str, np.ndarray]:
    """PyTorch's weights under our names: its packed in_proj splits into q, k and v."""
    state = {name: tensor.detach().numpy() for name, tensor in theirs.state_dict().items()}
    mapped = {}
    for name, _ in ours.named_parameters():
        *attention, projection, leaf = name.split(".")
        if projection in ("q_proj", "k_proj", "v_proj"):
            packed = state[".".join([*attention, f"in_proj_{leaf}"])]
            mapped[name] = np.split(packed, 3)["qkv".index(projection[0])]
        else:
            mapped[name] = state[name]
    return mapped


def stacks(kind: str):
    torch.manual_seed(0)
    pytorch_layer = LAYER
    if kind == "encoder":
        theirs = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(**pytorch_layer),
                                             2, torch.nn.LayerNorm(8), enable_nested_tensor=False)
        ours = nn.TransformerEncoder(nn.TransformerEncoderLayer(**LAYER), 2, nn.LayerNorm(8))
    else:
        theirs = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(**pytorch_layer),
                                             2, torch.nn.LayerNorm(8))
        ours = nn.TransformerDecoder(nn.TransformerDecoderLayer(**LAYER), 2, nn.LayerNorm(8))
    ours.load_state_dict(our_state(theirs, ours))
    return theirs, ours


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_the_stacks_take_pytorchs_arguments_and_agree_with_pytorchs(kind):
    theirs, ours = stacks(kind)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, 8)).astype(np.float32)
    memory = rng.standard_normal((2, 6, 8)).astype(np.float32)
    with torch.no_grad():
        if kind == "encoder":
            expected = theirs(torch.from_numpy(x))
            got = ours(fw.Tensor(x))
        else:
            causal = torch.nn.Transformer.generate_square_subsequent_mask(5)
            expected = theirs(torch.from_numpy(x), torch.from_numpy(memory), tgt_mask=causal,
                              tgt_is_causal=True)
            got = ours(fw.Tensor(x), fw.Tensor(memory), tgt_is_causal=True)
    np.testing.assert_allclose(got.data, expected.numpy(), rtol=1e-5, atol=1e-5)
