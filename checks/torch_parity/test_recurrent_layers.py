"""The recurrent layers against PyTorch's (needs the `compare` extra): PyTorch's weights copied
in, the same outputs, final states and gradients (of the input, the initial states and every
weight) to float32 tolerance; and, drawing from the runner's shared stream
(checks/external/runner.py), the same initial weights as PyTorch's.

    pip install -e '.[compare]' && python -m pytest checks/torch_parity/test_recurrent_layers.py
"""

import importlib

import numpy as np
import pytest
import torch

from checks.external.runner import _torch_draws_as_framework
from checks.loader import load_framework

fw = load_framework("solutions")
nn = importlib.import_module("framework.nn")
TOLERANCE = dict(rtol=1e-4, atol=1e-5)

LAYERS = {  # name: (class name, arguments)
    "LSTM": ("LSTM", dict(num_layers=2)),
    "LSTM, batch_first, no bias": ("LSTM", dict(num_layers=2, batch_first=True, bias=False)),
    "GRU": ("GRU", dict(num_layers=2)),
    "RNN tanh, batch_first": ("RNN", dict(num_layers=2, batch_first=True)),
    "RNN relu": ("RNN", dict(nonlinearity="relu")),
}
CELLS = {"LSTMCell": {}, "GRUCell": {}, "RNNCell": {}, "RNNCell relu": dict(nonlinearity="relu")}


def pair(name: str, arguments: dict, sizes=(3, 4)):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(*sizes, **arguments)
    ours = getattr(nn, name)(*sizes, **arguments)
    ours.load_state_dict({key: value.detach().numpy() for key, value in theirs.state_dict().items()})
    return theirs, ours


def leaves(*arrays):
    return ([torch.tensor(a, requires_grad=True) for a in arrays],
            [fw.Tensor(a, requires_grad=True) for a in arrays])


def flat(parts) -> list:
    """The tensors of a (output, state) result, states unpacked."""
    found = []
    for part in parts if isinstance(parts, tuple) else (parts,):
        found += flat(part) if isinstance(part, tuple) else [part]
    return found


def assert_same_values_and_gradients(theirs, ours, their_inputs, our_inputs, their_out, our_out):
    their_parts, our_parts = flat(their_out), flat(our_out)
    rng = np.random.default_rng(2)
    cotangents = [rng.standard_normal(tuple(p.shape)).astype(np.float32) for p in their_parts]
    for t, o in zip(their_parts, our_parts):
        np.testing.assert_allclose(o.data, t.detach().numpy(), **TOLERANCE)
    sum((t * torch.from_numpy(g)).sum() for t, g in zip(their_parts, cotangents)).backward()
    fw.cat([(o * g).reshape(-1) for o, g in zip(our_parts, cotangents)]).sum().backward()
    for i, (t, o) in enumerate(zip(their_inputs, our_inputs)):
        np.testing.assert_allclose(o.grad, t.grad.numpy(), **TOLERANCE, err_msg=f"input {i}")
    their_weights = dict(theirs.named_parameters())
    for key, parameter in ours.named_parameters():
        np.testing.assert_allclose(parameter.grad, their_weights[key].grad.numpy(), **TOLERANCE,
                                   err_msg=key)


@pytest.mark.parametrize("case", LAYERS)
def test_layers_agree_with_pytorchs(case):
    name, arguments = LAYERS[case]
    theirs, ours = pair(name, arguments)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 5, 3) if arguments.get("batch_first") else (5, 2, 3)).astype(np.float32)
    states = [rng.standard_normal((arguments.get("num_layers", 1), 2, 4)).astype(np.float32)
              for _ in range(2 if name == "LSTM" else 1)]
    their_inputs, our_inputs = leaves(x, *states)
    hx = (lambda s: tuple(s)) if name == "LSTM" else (lambda s: s[0])
    assert_same_values_and_gradients(theirs, ours, their_inputs, our_inputs,
                                     theirs(their_inputs[0], hx(their_inputs[1:])),
                                     ours(our_inputs[0], hx(our_inputs[1:])))


@pytest.mark.parametrize("case", CELLS)
def test_cells_agree_with_pytorchs(case):
    name = case.split()[0]
    theirs, ours = pair(name, CELLS[case])
    rng = np.random.default_rng(1)
    x, h, c = (rng.standard_normal(shape).astype(np.float32) for shape in ((2, 3), (2, 4), (2, 4)))
    their_inputs, our_inputs = leaves(x, h, c) if name == "LSTMCell" else leaves(x, h)
    hx = (lambda s: tuple(s)) if name == "LSTMCell" else (lambda s: s[0])
    assert_same_values_and_gradients(theirs, ours, their_inputs, our_inputs,
                                     theirs(their_inputs[0], hx(their_inputs[1:])),
                                     ours(our_inputs[0], hx(our_inputs[1:])))


def test_an_unbatched_sequence_agrees_with_pytorchs():
    theirs, ours = pair("LSTM", dict(num_layers=2))
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    their_out, (their_h, their_c) = theirs(torch.from_numpy(x))
    our_out, (our_h, our_c) = ours(fw.Tensor(x))
    for t, o in ((their_out, our_out), (their_h, our_h), (their_c, our_c)):
        assert o.shape == tuple(t.shape)
        np.testing.assert_allclose(o.data, t.detach().numpy(), **TOLERANCE)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"])
def test_the_initial_weights_are_pytorchs_from_the_same_random_stream(name):
    """PyTorch draws its weights in the order of its parameters; drawing from the stream the
    runner gives both, the framework's are the same numbers."""
    arguments = {"num_layers": 2} if "Cell" not in name else {}
    with _torch_draws_as_framework() as bound:
        bound.manual_seed(7)
        theirs = getattr(torch.nn, name)(3, 4, **arguments)
    fw.manual_seed(7)
    ours = getattr(nn, name)(3, 4, **arguments)
    their_state = theirs.state_dict()
    assert list(their_state) == [key for key, _ in ours.named_parameters()]
    for key, parameter in ours.named_parameters():
        np.testing.assert_array_equal(parameter.data, their_state[key].numpy(), err_msg=key)
