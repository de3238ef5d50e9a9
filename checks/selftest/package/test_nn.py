"""Provided parts of chapter 3 (the reference): Module's machinery, containers, activations,
F.linear, save/load, the initialisers learners do not write, and the error messages."""

import importlib
import os
from pathlib import Path

import numpy as np
import pytest

from checks.loader import load_framework

fw = load_framework("solutions")
nn = importlib.import_module("framework.nn")
F = importlib.import_module("framework.nn.functional")
init = importlib.import_module("framework.nn.init")


def spaced(*shape, low=-2.0, high=2.0):
    """Distinct float64 values, shuffled."""
    size = int(np.prod(shape))
    values = np.linspace(low, high, size)
    return np.random.default_rng(size).permutation(values).reshape(shape)


class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(2, 3)
        self.second = nn.Linear(3, 1, bias=False)
        self.register_buffer("running", np.zeros(3))

    def forward(self, x):
        return self.second(F.relu(self.first(x)))


# -- Parameter ---------------------------------------------------------------------------------


def test_parameter_requires_grad_and_keeps_float32():
    p = nn.Parameter([1.0, 2.0])
    assert isinstance(p, fw.Tensor) and p.requires_grad and p.dtype == np.float32
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert not nn.Parameter(np.zeros(2), requires_grad=False).requires_grad


def test_parameter_must_be_floating():
    with pytest.raises(TypeError, match="Parameter: a parameter must be floating, this one is int64"):
        nn.Parameter(np.arange(3))


def test_results_of_ops_on_parameters_are_plain_tensors():
    p = nn.Parameter(np.ones(2))
    assert type(p * 2) is fw.Tensor and type(p.detach()) is fw.Tensor


# -- Module --------------------------------------------------------------------------------------


def test_assigning_before_super_init_is_a_clear_error():
    class Forgetful(nn.Module):
        def __init__(self):
            self.weight = nn.Parameter(np.ones(2))

    with pytest.raises(AttributeError, match=r"Forgetful: cannot assign 'weight' before "
                       r"Module.__init__\(\); call super\(\).__init__\(\) first"):
        Forgetful()


def test_a_module_without_forward_says_so():
    with pytest.raises(TypeError, match="Module has no forward"):
        nn.Module()(1.0)


def test_modules_children_and_apply_walk_the_tree():
    model = Pair()
    assert [name for name, _ in model.named_modules()] == ["", "first", "second"]
    assert [name for name, _ in model.named_children()] == ["first", "second"]
    assert list(model.children()) == [model.first, model.second]
    assert len(list(model.modules())) == 3
    visited = []
    assert model.apply(lambda m: visited.append(type(m).__name__)) is model
    assert visited == ["Linear", "Linear", "Pair"]


def test_delattr_unregisters():
    model = Pair()
    del model.second
    assert [n for n, _ in model.named_parameters()] == ["first.weight", "first.bias"]


def test_train_eval_return_self_and_propagate():
    model = Pair()
    assert model.eval() is model and not model.first.training
    assert model.train() is model and model.second.training


def test_to_casts_parameters_grads_and_buffers_in_place():
    model = Pair()
    model(fw.Tensor(np.ones((1, 2), np.float32))).sum().backward()
    weight = model.first.weight
    assert model.to(np.float64) is model and model.first.weight is weight
    assert all(p.dtype == np.float64 and p.grad.dtype == np.float64 for p in model.parameters())
    assert model.running.dtype == np.float64 and model.state_dict()["running"].dtype == np.float64
    with pytest.raises(TypeError, match="to: parameters must stay floating, got int64"):
        model.to(np.int64)


def test_state_dict_holds_copies_of_parameters_and_buffers():
    model = Pair()
    state = model.state_dict()
    assert list(state) == ["first.weight", "first.bias", "second.weight", "running"]
    state["first.weight"][...] = 7.0
    assert not np.any(model.first.weight.data == 7.0)


def test_load_state_dict_copies_in_place_keeping_dtype():
    model, other = Pair(), Pair()
    buffer = model.first.weight.data
    state = {k: np.asarray(v, dtype=np.float64) for k, v in other.state_dict().items()}
    state["first.bias"] = fw.Tensor(state["first.bias"])  # tensors are accepted too
    assert model.load_state_dict(state) == ([], [])
    assert model.first.weight.data is buffer and buffer.dtype == np.float32
    np.testing.assert_allclose(buffer, other.first.weight.data)


def test_strict_load_lists_every_problem_and_loads_nothing():
    model = Pair()
    before = model.first.weight.data.copy()
    state = model.state_dict()
    state["first.weight"] = np.zeros((3, 2)) + 5.0
    del state["second.weight"]
    state["extra"] = np.zeros(1)
    state["first.bias"] = np.zeros(4)
    with pytest.raises(RuntimeError, match=r"load_state_dict into Pair: missing keys "
                       r"\['second.weight'\]; unexpected keys \['extra'\]; 'first.bias' has shape "
                       r"\(4,\) in the state dict but \(3,\) in the model"):
        model.load_state_dict(state)
    np.testing.assert_array_equal(model.first.weight.data, before)


def test_non_strict_load_reports_the_keys_but_shapes_still_count():
    model = Pair()
    state = model.state_dict()
    del state["running"]
    state["extra"] = np.zeros(1)
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert missing == ["running"] and unexpected == ["extra"]
    with pytest.raises(RuntimeError, match="'second.weight' has shape"):
        model.load_state_dict({"second.weight": np.zeros((3, 1))}, strict=False)


def test_repr_shows_the_tree():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Tanh(), nn.GELU()),
                          nn.Linear(3, 1, bias=False))
    assert repr(model) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Sequential(\n"
        "    (0): Tanh()\n"
        "    (1): GELU()\n"
        "  )\n"
        "  (3): Linear(in_features=3, out_features=1, bias=False)\n"
        ")"
    )


# -- containers ------------------------------------------------------------------------------------


def test_module_list_registers_appends_indexes_and_slices():
    layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
    layers.append(nn.Linear(2, 1)).extend([nn.ReLU()])
    assert len(layers) == 4 and layers[-1] is list(layers)[3]
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    assert [n for n, _ in layers.named_parameters()][-2:] == ["2.weight", "2.bias"]
    with pytest.raises(TypeError, match="ModuleList has no forward"):
        layers(1.0)


def test_sequential_slices_and_empty():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    head = model[:2]
    assert isinstance(head, nn.Sequential) and head[0] is model[0]
    x = fw.Tensor(np.ones((4, 2), np.float32))
    assert nn.Sequential()(x) is x


def test_linear_dtype_and_repr():
    layer = nn.Linear(3, 2, dtype=np.float64)
    assert layer.weight.dtype == np.float64 and layer.bias.dtype == np.float64
    assert repr(layer) == "Linear(in_features=3, out_features=2, bias=True)"


# -- save and load -----------------------------------------------------------------------------------


def test_save_and_load_round_trip_at_the_exact_path(tmp_path):
    model, other = Pair(), Pair()
    path = tmp_path / "model.ckpt"
    nn.save(model, path)
    assert path.exists() and not (tmp_path / "model.ckpt.npz").exists()
    other.load_state_dict(nn.load(path))
    for (name, a), (_, b) in zip(model.named_parameters(), other.named_parameters()):
        np.testing.assert_array_equal(a.data, b.data, err_msg=name)
    nn.save({"x": np.arange(3.0)}, tmp_path / "dict.npz")
    np.testing.assert_array_equal(nn.load(tmp_path / "dict.npz")["x"], np.arange(3.0))


def saved_checkpoint(tmp_path):
    """A checkpoint on disk and its bytes: what a failed save must leave exactly as it was."""
    path = tmp_path / "model.npz"
    nn.save(Pair(), path)
    return path, path.read_bytes()


@pytest.mark.parametrize("value, message", [
    ([[1, 2], [3]], r"the value of 'w' is not rectangular .*give every row the same length"),
    (np.array([{"a": 1}], dtype=object), r"the value of 'w' holds object values, not real numbers"),
    (np.array(["a", "b"]), r"the value of 'w' holds <U1 values, not real numbers"),
    (np.array([1 + 2j]), r"the value of 'w' holds complex128 values, not real numbers"),
])
def test_save_refuses_a_value_that_is_not_an_array_of_real_numbers_and_writes_nothing(
        tmp_path, value, message):
    path, before = saved_checkpoint(tmp_path)
    with pytest.raises(ValueError, match=r"save: " + message + r".*nothing was written"):
        nn.save({"ok": np.ones(3), "w": value}, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["model.npz"]


@pytest.mark.parametrize("key", ["allow_pickle", "file", "args", "kwds", "x.npy", "a/b", "",
                                 "a b", 3])
def test_save_refuses_keys_that_savez_would_drop_or_rename(tmp_path, key):
    path, before = saved_checkpoint(tmp_path)
    with pytest.raises(ValueError, match=r"save: the key .* cannot be a checkpoint name: use "
                       r"letters, digits.*nothing was written"):
        nn.save({key: np.ones(2)}, path)
    assert path.read_bytes() == before


def test_save_keeps_dotted_names_as_they_are(tmp_path):
    state = {"encoder.layers.0.weight": np.ones((2, 2)), "step-count_1": np.array(3)}
    nn.save(state, tmp_path / "dotted.npz")
    loaded = nn.load(tmp_path / "dotted.npz")
    assert sorted(loaded) == sorted(state) and loaded["step-count_1"] == 3


def test_a_save_that_fails_midway_leaves_the_old_checkpoint_byte_identical(tmp_path, monkeypatch):
    path, before = saved_checkpoint(tmp_path)

    def savez_then_disk_full(file, **arrays):
        file.write(b"PK\x03\x04 half a zip")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", savez_then_disk_full)
    with pytest.raises(OSError, match="No space left"):
        nn.save({"x": np.ones(1000)}, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["model.npz"]


FILE_SIZE_LIMIT = """
import resource, signal, sys
import numpy as np
sys.path.insert(0, sys.argv[2])
from framework.nn import save
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, not the process
resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))
try:
    save({"big": np.ones(100_000)}, sys.argv[1])
except OSError as error:
    print("refused:", error)
"""


def test_a_file_size_limit_midway_leaves_the_old_checkpoint_byte_identical(tmp_path):
    pytest.importorskip("resource", reason="RLIMIT_FSIZE is POSIX only")
    import subprocess
    import sys

    path, before = saved_checkpoint(tmp_path)
    assert len(before) < 20_000
    done = subprocess.run([sys.executable, "-c", FILE_SIZE_LIMIT, str(path),
                           str(Path(nn.__file__).parents[2])],
                          capture_output=True, text=True, timeout=60)
    assert "refused: [Errno 27] File too large" in done.stdout, done.stdout + done.stderr
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["model.npz"]


def test_load_never_unpickles(tmp_path):
    path = tmp_path / "evil.npz"
    np.savez(path, x=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match="evil.npz holds Python objects, which only unpickling "
                       "could read, and load never unpickles .*allow_pickle"):
        nn.load(path)


def test_load_state_dict_checks_every_array_before_copying_any():
    model = Pair()
    before = model.state_dict()
    state = {name: np.full_like(array, 9.0) for name, array in before.items()}
    state["running"] = np.array(["a", "b", "c"])  # the last key: every other one came first
    with pytest.raises(RuntimeError, match=r"'running' holds <U1 values, not real numbers; "
                       "nothing was loaded"):
        model.load_state_dict(state)
    for name, array in model.state_dict().items():
        np.testing.assert_array_equal(array, before[name], err_msg=name)


@pytest.mark.parametrize("value, message", [
    (np.zeros(3, complex), "'running' holds complex128 values, not real numbers"),
    (np.array([None, 1, 2], dtype=object), "'running' holds object values"),
])
def test_load_state_dict_rejects_arrays_that_are_not_real_numbers(value, message):
    model = Pair()
    with pytest.raises(RuntimeError, match=message):
        model.load_state_dict({**model.state_dict(), "running": value})


def test_load_state_dict_rejects_floats_for_an_integer_buffer_and_accepts_ints_for_floats():
    model = Pair()
    model.register_buffer("steps", np.zeros(2, np.int64))
    state = model.state_dict()
    with pytest.raises(RuntimeError, match="'steps' is float64 in the state dict but int64 in the "
                       "model, and cannot be cast to it"):
        model.load_state_dict({**state, "steps": np.array([0.5, 1.0])})
    model.load_state_dict({**state, "running": np.array([1, 2, 3])})
    np.testing.assert_array_equal(model.running, [1.0, 2.0, 3.0])


def test_state_dict_round_trips_a_model_nested_in_module_lists_and_sequentials():
    def build():
        return nn.Sequential(nn.ModuleList([Pair(), nn.Sequential(nn.Linear(3, 2), nn.Tanh())]),
                             nn.Linear(2, 2))

    model, other = build(), build()
    for parameter in other.parameters():
        parameter.data[...] = 0.25
    state = model.state_dict()
    assert list(state) == ["0.0.first.weight", "0.0.first.bias", "0.0.second.weight",
                           "0.1.0.weight", "0.1.0.bias", "1.weight", "1.bias", "0.0.running"]
    assert other.load_state_dict(state) == ([], [])
    for name, array in other.state_dict().items():
        np.testing.assert_array_equal(array, state[name], err_msg=name)


def test_load_of_a_npy_file_says_it_is_one_array_not_a_checkpoint(tmp_path):
    path = tmp_path / "weights.npy"
    np.save(path, np.zeros(3))
    with pytest.raises(ValueError, match=r"weights.npy is a single NumPy array \(.npy\), not a "
                       "checkpoint"):
        nn.load(path)


def test_load_of_a_truncated_checkpoint_says_so_and_closes_the_file(tmp_path):
    path = tmp_path / "model.npz"
    nn.save(Pair(), path)
    path.write_bytes(path.read_bytes()[:200])
    before = open_files()
    with pytest.raises(ValueError, match="model.npz is truncated or damaged"):
        nn.load(path)
    assert open_files() == before


def open_files() -> set[str]:
    """The file descriptors this process holds (Linux's /proc, macOS's /dev/fd)."""
    return set(os.listdir("/proc/self/fd" if os.path.isdir("/proc/self/fd") else "/dev/fd"))


def test_load_of_a_file_that_is_no_checkpoint_says_what_it_begins_with(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    with pytest.raises(ValueError, match=r"notes.txt is not a checkpoint written by framework.save"):
        nn.load(path)


# -- activations and F.linear ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["relu", "sigmoid", "tanh", "gelu"])
def test_activations_gradcheck(name):
    x = spaced(3, 4) + 0.05  # no element at relu's kink
    assert fw.gradcheck(getattr(F, name), x)


def test_gelu_is_the_tanh_form():
    x = spaced(5, 3, low=-4.0, high=4.0)
    inner = np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)
    np.testing.assert_allclose(F.gelu(fw.Tensor(x)).data, 0.5 * x * (1 + np.tanh(inner)))
    for value in (np.float32(1.0), np.ones((2, 3), np.float32)):
        x32 = fw.Tensor(value, requires_grad=True)
        out = F.gelu(x32)
        out.backward(np.ones(out.shape, np.float32))
        assert out.dtype == np.float32 and x32.grad.dtype == np.float32


@pytest.mark.parametrize("module, function", [("ReLU", "relu"), ("Sigmoid", "sigmoid"),
                                              ("Tanh", "tanh"), ("GELU", "gelu")])
def test_activation_modules_call_the_functions(module, function):
    x = fw.Tensor(spaced(2, 3))
    np.testing.assert_array_equal(getattr(nn, module)()(x).data, getattr(F, function)(x).data)


@pytest.mark.parametrize("shape", [(4,), (2, 4), (2, 3, 4)])
def test_linear_function_gradcheck_with_and_without_bias(shape):
    assert fw.gradcheck(F.linear, spaced(*shape), spaced(3, 4), spaced(3))
    assert fw.gradcheck(lambda x, w: F.linear(x, w), spaced(*shape), spaced(3, 4))


def test_linear_names_a_wrong_input_width():
    with pytest.raises(ValueError, match=r"linear: input of shape \(2, 5\) for a weight of shape "
                       r"\(3, 4\): the input's last axis must be in_features = 4"):
        nn.Linear(4, 3)(fw.Tensor(np.ones((2, 5), np.float32)))


# -- loss argument checking ------------------------------------------------------------------------------


def test_cross_entropy_argument_errors():
    logits = fw.Tensor(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match=r"logits must be \(N, C\), got shape \(2, 3, 4\); reshape"):
        F.cross_entropy(fw.Tensor(np.zeros((2, 3, 4))), np.zeros((2, 3), np.int64))
    with pytest.raises(ValueError, match=r"targets must be integer class indices of shape \(3,\), "
                       r"got float64 of shape \(3,\)"):
        F.cross_entropy(logits, np.zeros(3))
    with pytest.raises(ValueError, match=r"of shape \(3,\), got int64 of shape \(2,\)"):
        F.cross_entropy(logits, np.zeros(2, np.int64))
    with pytest.raises(IndexError, match=r"target 4 is not a class of 0..3 \(nor ignore_index=-100\)"):
        F.cross_entropy(logits, np.array([0, 4, 1]))
    with pytest.raises(ValueError, match=r"cross_entropy: reduction must be one of"):
        F.cross_entropy(logits, np.array([0, 1, 2]), reduction="avg")
    with pytest.raises(ValueError, match=r"label_smoothing must be in \[0, 1\], got 1.5"):
        F.cross_entropy(logits, np.array([0, 1, 2]), label_smoothing=1.5)


def test_cross_entropy_takes_tensor_targets_and_every_row_ignored_is_nan():
    logits = fw.Tensor(spaced(3, 4), requires_grad=True)
    targets = fw.Tensor(np.array([1, -100, 3]))
    assert np.isfinite(F.cross_entropy(logits, targets).item())
    loss = F.cross_entropy(logits, np.full(3, -100))
    assert np.isnan(loss.item())  # as PyTorch: 0 / 0
    loss.backward()
    np.testing.assert_array_equal(logits.grad, np.zeros((3, 4)))


@pytest.mark.parametrize("loss", ["mse_loss", "binary_cross_entropy_with_logits"])
def test_elementwise_losses_want_equal_shapes_and_a_known_reduction(loss):
    fn = getattr(F, loss)
    with pytest.raises(ValueError, match=rf"{loss}: input of shape \(4, 1\) and target of shape "
                       r"\(4,\); .* same shape"):
        fn(fw.Tensor(np.zeros((4, 1))), fw.Tensor(np.zeros(4)))
    with pytest.raises(ValueError, match=rf"{loss}: reduction must be one of"):
        fn(fw.Tensor(np.zeros(2)), np.zeros(2), reduction="batchmean")


def test_losses_accept_arrays_as_targets():
    x = fw.Tensor(spaced(2, 3), requires_grad=True)
    F.mse_loss(x, np.zeros((2, 3))).backward()
    np.testing.assert_allclose(x.grad, 2 * x.data / 6)


# -- the initialisers learners do not write ------------------------------------------------------------


def test_calculate_gain_and_fans():
    assert init.calculate_gain("relu") == pytest.approx(np.sqrt(2))
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("leaky_relu") == pytest.approx(np.sqrt(2 / (1 + 0.01**2)))
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(np.sqrt(2 / 1.04))
    with pytest.raises(ValueError, match="calculate_gain: unknown nonlinearity 'selu'"):
        init.calculate_gain("selu")
    assert init.fan_in_and_fan_out((3, 4)) == (4, 3)
    assert init.fan_in_and_fan_out((8, 4, 3, 3)) == (36, 72)
    with pytest.raises(ValueError, match=r"needs at least 2 axes, got shape \(5,\)"):
        init.fan_in_and_fan_out((5,))


def test_simple_initialisers_fill_in_place_from_the_shared_generator():
    w = nn.Parameter(np.empty((200, 100), np.float32))
    data = w.data
    fw.manual_seed(3)
    assert init.normal_(w, mean=1.0, std=0.5) is w and w.data is data and w.dtype == np.float32
    expected = np.random.default_rng(3).normal(1.0, 0.5, (200, 100)).astype(np.float32)
    np.testing.assert_array_equal(w.data, expected)
    init.uniform_(w, -2.0, -1.0)
    assert w.data.min() >= -2.0 and w.data.max() <= -1.0
    np.testing.assert_array_equal(init.zeros_(w).data, 0.0)
    np.testing.assert_array_equal(init.ones_(w).data, 1.0)


def test_kaiming_mode_is_checked():
    with pytest.raises(ValueError, match="mode must be 'fan_in' or 'fan_out', got 'fan_avg'"):
        init.kaiming_uniform_(nn.Parameter(np.zeros((2, 2))), mode="fan_avg")
