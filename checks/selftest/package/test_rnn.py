"""The recurrent layers of nn/rnn.py (provided, PyTorch's surface): `RNN`, `LSTM`, `GRU` and
their cells. Values against a NumPy reference written here, float64 gradient checks through a
random cotangent on drawn inputs, states and weights, float32 in → float32 out and gradients,
PyTorch's names, initialisation and layouts, and the errors a bad input gets.
(checks/torch_parity/test_recurrent_layers.py compares them with PyTorch's.)
"""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.loader import load_framework

fw = load_framework("solutions")
Tensor = fw.Tensor
nn = importlib.import_module("framework.nn")
default_generator = importlib.import_module("framework.provided.generator").default_generator

LAYERS = ("RNN", "LSTM", "GRU")
CELLS = ("RNNCell", "LSTMCell", "GRUCell")
GATES = {"RNN": 1, "LSTM": 4, "GRU": 3}


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def numpy_step(kind, x, state, w_ih, w_hh, b_ih, b_hh, relu=False):
    """One step of PyTorch's equations, in NumPy: the state after x."""
    h = state[0] if kind == "LSTM" else state
    gates_x, gates_h = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
    if kind == "RNN":
        z = gates_x + gates_h
        return np.maximum(z, 0) if relu else np.tanh(z)
    if kind == "LSTM":
        i, f, g, o = np.split(gates_x + gates_h, 4, axis=-1)
        c = sigmoid(f) * state[1] + sigmoid(i) * np.tanh(g)
        return sigmoid(o) * np.tanh(c), c
    (x_r, x_z, x_n), (h_r, h_z, h_n) = np.split(gates_x, 3, -1), np.split(gates_h, 3, -1)
    r, z = sigmoid(x_r + h_r), sigmoid(x_z + h_z)
    n = np.tanh(x_n + r * h_n)
    return (1 - z) * n + z * h


def numpy_layers(kind, module, x, states, relu=False):
    """(output, final states per layer) of a time-major input, layer after layer."""
    finals = []
    for k in range(module.num_layers):
        weights = [getattr(module, f"{name}_l{k}").data.astype(np.float64)
                   for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        state, outputs = states[k], []
        for x_t in x:
            state = numpy_step(kind, x_t, state, *weights, relu=relu)
            outputs.append(state[0] if kind == "LSTM" else state)
        x = np.stack(outputs)
        finals.append(state)
    return x, finals


def layer(kind, *args, **kwargs):
    fw.manual_seed(0)
    return getattr(nn, kind)(*args, **kwargs)


def random(*shape, seed=1):
    return np.random.default_rng(seed).uniform(-1, 1, shape)


# -- PyTorch's parameters: names, shapes, initialisation -------------------------------------------


@pytest.mark.parametrize("kind", LAYERS)
def test_layer_parameters_have_pytorchs_names_and_shapes(kind):
    module = layer(kind, 3, 5, num_layers=2)
    gates = GATES[kind] * 5
    assert {name: p.shape for name, p in module.named_parameters()} == {
        "weight_ih_l0": (gates, 3), "weight_hh_l0": (gates, 5), "bias_ih_l0": (gates,),
        "bias_hh_l0": (gates,), "weight_ih_l1": (gates, 5), "weight_hh_l1": (gates, 5),
        "bias_ih_l1": (gates,), "bias_hh_l1": (gates,)}
    assert [name for name, _ in layer(kind, 3, 5, bias=False).named_parameters()] == [
        "weight_ih_l0", "weight_hh_l0"]


@pytest.mark.parametrize("kind", LAYERS + CELLS)
def test_parameters_start_uniform_in_one_over_root_hidden_drawn_in_pytorchs_order(kind):
    module = layer(kind, 3, 4, **({"num_layers": 2} if kind in LAYERS else {}))
    fw.manual_seed(0)
    for name, parameter in module.named_parameters():
        expected = default_generator().uniform(-0.5, 0.5, parameter.shape).astype(np.float32)
        np.testing.assert_array_equal(parameter.data, expected, err_msg=name)


def test_cells_have_pytorchs_parameter_names():
    assert [name for name, _ in layer("LSTMCell", 3, 4).named_parameters()] == [
        "weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    assert [name for name, _ in layer("GRUCell", 3, 4, bias=False).named_parameters()] == [
        "weight_ih", "weight_hh"]


def test_reprs_read_as_pytorchs():
    assert repr(layer("LSTM", 28, 128, 2, batch_first=True)) == (
        "LSTM(28, 128, num_layers=2, batch_first=True)")
    assert repr(layer("GRU", 3, 4, bias=False, dropout=0.5, num_layers=2)) == (
        "GRU(3, 4, num_layers=2, bias=False, dropout=0.5)")
    assert repr(layer("RNNCell", 3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"


# -- values: PyTorch's equations --------------------------------------------------------------------


@pytest.mark.parametrize("kind, relu", [("RNN", False), ("RNN", True), ("LSTM", False), ("GRU", False)])
def test_layers_compute_pytorchs_equations_step_by_step(kind, relu):
    module = layer(kind, 3, 4, num_layers=2, dtype=np.float64, **({"nonlinearity": "relu"} if relu else {}))
    x, h0, c0 = random(5, 2, 3), random(2, 2, 4, seed=2), random(2, 2, 4, seed=3)
    hx = (Tensor(h0), Tensor(c0)) if kind == "LSTM" else Tensor(h0)
    output, final = module(Tensor(x), hx)
    states = list(zip(h0, c0)) if kind == "LSTM" else list(h0)
    expected, finals = numpy_layers(kind, module, x, states, relu)
    np.testing.assert_allclose(output.data, expected, rtol=1e-12)
    if kind == "LSTM":
        np.testing.assert_allclose(final[0].data, [h for h, _ in finals], rtol=1e-12)
        np.testing.assert_allclose(final[1].data, [c for _, c in finals], rtol=1e-12)
    else:
        np.testing.assert_allclose(final.data, finals, rtol=1e-12)


@pytest.mark.parametrize("kind", LAYERS)
def test_the_last_state_is_the_last_output_of_the_last_layer(kind):
    output, final = layer(kind, 3, 4, num_layers=3)(Tensor(random(6, 2, 3).astype(np.float32)))
    h_n = final[0] if kind == "LSTM" else final
    assert output.shape == (6, 2, 4) and h_n.shape == (3, 2, 4)
    np.testing.assert_array_equal(h_n.data[-1], output.data[-1])


@pytest.mark.parametrize("kind", LAYERS)
def test_no_initial_state_is_zeros(kind):
    module, x = layer(kind, 3, 4, num_layers=2), Tensor(random(5, 2, 3).astype(np.float32))
    zeros = Tensor(np.zeros((2, 2, 4), np.float32))
    given_zeros = module(x, (zeros, zeros) if kind == "LSTM" else zeros)[0]
    np.testing.assert_array_equal(module(x)[0].data, given_zeros.data)


@pytest.mark.parametrize("kind", LAYERS)
def test_batch_first_takes_and_gives_batch_then_time(kind):
    x = random(5, 2, 3).astype(np.float32)
    time_major = layer(kind, 3, 4)(Tensor(x))
    batch_major = layer(kind, 3, 4, batch_first=True)(Tensor(x.transpose(1, 0, 2)))
    np.testing.assert_allclose(batch_major[0].data, time_major[0].data.transpose(1, 0, 2), rtol=1e-6)
    first, second = (s[0] if kind == "LSTM" else s for s in (time_major[1], batch_major[1]))
    np.testing.assert_allclose(second.data, first.data, rtol=1e-6)  # states stay (layers, N, H)


@pytest.mark.parametrize("kind", LAYERS)
def test_an_unbatched_sequence_drops_the_batch_axis(kind):
    module, x = layer(kind, 3, 4, num_layers=2, batch_first=True), random(5, 3).astype(np.float32)
    h0 = Tensor(random(2, 4, seed=2).astype(np.float32))
    output, final = module(Tensor(x), (h0, h0) if kind == "LSTM" else h0)
    batched = module(Tensor(x[None]), (h0[:, None], h0[:, None]) if kind == "LSTM" else h0[:, None])
    np.testing.assert_allclose(output.data, batched[0].data[0], rtol=1e-6)
    h_n = final[0] if kind == "LSTM" else final
    assert output.shape == (5, 4) and h_n.shape == (2, 4)
    np.testing.assert_array_equal(module(Tensor(x))[0].data, module(Tensor(x[None]))[0].data[0])


@pytest.mark.parametrize("cell, kind", list(zip(CELLS, LAYERS)))
def test_a_cell_is_one_step_of_its_layer(cell, kind):
    one_step = layer(cell, 3, 4)
    sequence = layer(kind, 3, 4)  # drawn from the same seed: the same weights
    x, h = random(2, 3).astype(np.float32), random(2, 4, seed=2).astype(np.float32)
    state = (Tensor(h), Tensor(h)) if kind == "LSTM" else Tensor(h)
    stepped = one_step(Tensor(x), state)
    h0 = Tensor(h[None])
    _, final = sequence(Tensor(x[None]), (h0, h0) if kind == "LSTM" else h0)
    if kind == "LSTM":
        np.testing.assert_allclose(stepped[1].data, final[1].data[0], rtol=1e-6)
        stepped, final = stepped[0], final[0]
    np.testing.assert_allclose(stepped.data, final.data[0], rtol=1e-6)
    unbatched = one_step(Tensor(x[0]), tuple(s[0] for s in state) if kind == "LSTM" else state[0])
    assert (unbatched[0] if kind == "LSTM" else unbatched).shape == (4,)


def test_dropout_acts_between_layers_while_training_only():
    module, x = layer("GRU", 3, 4, num_layers=2, dropout=1.0), Tensor(random(5, 2, 3).astype(np.float32))
    second = layer("GRU", 4, 4, dtype=np.float32)  # layer 1 alone, on the zeros dropout leaves
    second.load_state_dict({name.replace("l1", "l0"): p.data for name, p in module.named_parameters()
                            if name.endswith("l1")})
    np.testing.assert_allclose(module(x)[0].data, second(Tensor(np.zeros((5, 2, 4), np.float32)))[0].data)
    assert not np.allclose(module.eval()(x)[0].data, module.train()(x)[0].data)


# -- gradients: float64, central differences through a random cotangent ---------------------------


def drawn(draw, shape):
    return draw(arrays(np.float64, shape, elements=st.floats(-1, 1, width=64)))


def as_module_weights(module, names, weights):
    """The module computing with these tensors as its weights (the gradient check's leaves)."""
    for name, weight in zip(names, weights):
        setattr(module, name, weight)


@pytest.mark.parametrize("kind", LAYERS)
@settings(max_examples=10)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_layer_gradients_match_central_differences(kind, data, seed):
    """Inputs, initial states and every weight of a 2-layer stack, output and final states."""
    module = layer(kind, 2, 2, num_layers=2, dtype=np.float64)
    names = [name for name, _ in module.named_parameters()]
    x, h0, c0 = drawn(data.draw, (3, 2, 2)), drawn(data.draw, (2, 2, 2)), drawn(data.draw, (2, 2, 2))
    weights = [drawn(data.draw, p.shape) for _, p in module.named_parameters()]

    def run(x, h0, c0, *weights):
        as_module_weights(module, names, weights)
        output, final = module(x, (h0, c0) if kind == "LSTM" else h0 + 0 * c0)
        states = final if kind == "LSTM" else (final,)
        return fw.cat([output.reshape(-1), *(s.reshape(-1) for s in states)])

    assert fw.gradcheck(run, x, h0, c0, *weights, seed=seed)


@pytest.mark.parametrize("kind", CELLS)
@settings(max_examples=10)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_cell_gradients_match_central_differences(kind, data, seed):
    module = layer(kind, 3, 2, dtype=np.float64)
    names = [name for name, _ in module.named_parameters()]
    x, h, c = drawn(data.draw, (2, 3)), drawn(data.draw, (2, 2)), drawn(data.draw, (2, 2))
    weights = [drawn(data.draw, p.shape) for _, p in module.named_parameters()]

    def run(x, h, c, *weights):
        as_module_weights(module, names, weights)
        if kind == "LSTMCell":
            return fw.cat(module(x, (h, c)), dim=1)
        return module(x, h) + 0 * c

    assert fw.gradcheck(run, x, h, c, *weights, seed=seed)


# -- float32 in, float32 out and gradients -----------------------------------------------------------


@pytest.mark.parametrize("kind", LAYERS + CELLS)
def test_float32_inputs_give_float32_outputs_states_and_gradients(kind):
    module = layer(kind, 3, 4)
    shape = (5, 2, 3) if kind in LAYERS else (2, 3)
    x = Tensor(random(*shape).astype(np.float32), requires_grad=True)
    h = Tensor(np.zeros(((1,) if kind in LAYERS else ()) + (2, 4), np.float32), requires_grad=True)
    out = module(x, (h, h) if "LSTM" in kind else h)
    parts = [out[0], *(out[1] if kind == "LSTM" else [out[1]])] if kind in LAYERS else (
        list(out) if kind == "LSTMCell" else [out])
    assert all(part.dtype == np.float32 for part in parts)
    fw.cat([part.reshape(-1) for part in parts]).sum().backward()
    for name, tensor in [("input", x), ("state", h), *module.named_parameters()]:
        assert tensor.grad is not None and tensor.grad.dtype == np.float32, name


# -- what PyTorch does not share: refused in our words --------------------------------------------


@pytest.mark.parametrize("kind, arguments, message", [
    ("LSTM", {"bidirectional": True}, r"LSTM: bidirectional=True is not supported here; run a second"),
    ("LSTM", {"proj_size": 2}, r"LSTM: proj_size=2 is not supported here; apply an nn.Linear"),
    ("GRU", {"bidirectional": True}, r"GRU: bidirectional=True is not supported here"),
])
def test_unsupported_arguments_are_refused_naming_them(kind, arguments, message):
    with pytest.raises(NotImplementedError, match=message):
        getattr(nn, kind)(3, 4, **arguments)


@pytest.mark.parametrize("make, error, message", [
    (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError,
     r"RNN: nonlinearity must be 'tanh' or 'relu', got 'sigmoid'"),
    (lambda: nn.LSTM(3, 0), ValueError, r"LSTM: hidden_size must be a positive int, got 0"),
    (lambda: nn.GRU(3, 4, num_layers=2, dropout=1.5), ValueError,
     r"GRU: dropout=1.5 must be a probability in \[0, 1\]"),
])
def test_bad_arguments_are_errors_naming_them(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_dropout_on_one_layer_warns_that_it_drops_nothing():
    with pytest.warns(UserWarning, match=r"LSTM: dropout=0.5 acts between layers only"):
        nn.LSTM(3, 4, dropout=0.5)


@pytest.mark.parametrize("call, error, message", [
    (lambda m: m(np.zeros((5, 2, 3), np.float32)), TypeError,
     r"LSTM: input must be a Tensor, got ndarray; wrap it"),
    (lambda m: m(Tensor(np.zeros((5, 2, 3, 1), np.float32))), ValueError,
     r"LSTM: input has shape \(5, 2, 3, 1\); expected \(batch, L, input_size\) or, unbatched"),
    (lambda m: m(Tensor(np.zeros((2, 5, 6), np.float32))), ValueError,
     r"LSTM: input has shape \(2, 5, 6\): 6 features, expected input_size=3"),
    (lambda m: m(Tensor(np.zeros((2, 5, 3), np.float32)), Tensor(np.zeros((2, 2, 4), np.float32))),
     TypeError, r"LSTM: hx must be a tuple \(h0, c0\) of two tensors, got Tensor"),
    (lambda m: m(Tensor(np.zeros((2, 5, 3), np.float32)),
                 (Tensor(np.zeros((2, 5, 4), np.float32)),) * 2), ValueError,
     r"LSTM: h0 has shape \(2, 5, 4\); for this input it must be \(2, 2, 4\)"),
    (lambda m: m(Tensor(np.zeros((5, 3), np.float32)), (Tensor(np.zeros((2, 1, 4), np.float32)),) * 2),
     ValueError, r"LSTM: h0 has shape \(2, 1, 4\); for this input it must be \(2, 4\)"),
])
def test_bad_inputs_are_errors_naming_the_module_and_shapes(call, error, message):
    with pytest.raises(error, match=message):
        call(nn.LSTM(3, 4, num_layers=2, batch_first=True))


def test_a_cells_bad_state_is_an_error_naming_it():
    wrong_state = r"GRUCell: hx has shape \(3, 4\); for this input it must be \(2, 4\)"
    with pytest.raises(ValueError, match=wrong_state):
        nn.GRUCell(3, 4)(Tensor(np.zeros((2, 3), np.float32)), Tensor(np.zeros((3, 4), np.float32)))
    wrong_axes = r"RNNCell: input has shape \(2, 3, 3\); expected \(batch, input_size\)"
    with pytest.raises(ValueError, match=wrong_axes):
        nn.RNNCell(3, 4)(Tensor(np.zeros((2, 3, 3), np.float32)))


def test_flatten_parameters_is_accepted_and_changes_nothing():
    module = layer("LSTM", 3, 4)
    before = {name: p.data.copy() for name, p in module.named_parameters()}
    assert module.flatten_parameters() is None
    assert all(np.array_equal(p.data, before[name]) for name, p in module.named_parameters())
