"""`checkpoint` of a function with several outputs gives what PyTorch's
`torch.utils.checkpoint.checkpoint(..., use_reentrant=False)` gives: the outputs, and the
gradients of the inputs and of the parameters inside (needs the `compare` extra).

    pip install -e '.[compare]' && python -m pytest checks/torch_parity
"""

import numpy as np
import pytest

from checks.loader import load_framework

torch = pytest.importorskip("torch")
fw = load_framework("solutions")


def linear_weights(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"weight": rng.standard_normal((4, 3)), "bias": rng.standard_normal(4)}


def run(lib, checkpoint, linear, as_list: bool):
    """Outputs of f(x, y) = (tanh(linear(x)) · y, exp(Σ rows), 7) and the gradients of
    x, y and the linear's weight and bias, for the loss Σ out₀² + 3 Σ out₁."""
    rng = np.random.default_rng(1)
    x = lib.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    y = lib.tensor(rng.standard_normal((2, 4)), requires_grad=True)

    def f(x, y):
        h = linear(x).tanh()
        outputs = (h * y, (h.sum(1) + x.sum(1)).exp(), 7)
        return list(outputs) if as_list else outputs

    outputs = checkpoint(f, x, y, use_reentrant=False)
    ((outputs[0] * outputs[0]).sum() + 3 * outputs[1].sum()).backward()
    grads = [x.grad, y.grad, linear.weight.grad, linear.bias.grad]
    return type(outputs), outputs[2], [np.asarray(o.detach().numpy()) for o in outputs[:2]], [
        np.asarray(g) for g in grads]


@pytest.mark.parametrize("as_list", [False, True], ids=["tuple", "list"])
def test_several_outputs_give_pytorchs_values_and_gradients(as_list):
    weights = linear_weights(0)
    theirs_linear = torch.nn.Linear(3, 4).double()
    theirs_linear.load_state_dict({k: torch.tensor(v) for k, v in weights.items()})
    ours_linear = fw.nn.Linear(3, 4).to(np.float64)
    ours_linear.load_state_dict(weights)
    theirs = run(torch, torch.utils.checkpoint.checkpoint, theirs_linear, as_list)
    ours = run(fw, fw.utils.checkpoint.checkpoint, ours_linear, as_list)
    assert ours[0] is theirs[0] and ours[1] == theirs[1] == 7
    for got, expected in zip(ours[2] + ours[3], theirs[2] + theirs[3]):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
