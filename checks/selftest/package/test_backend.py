"""framework.set_backend: chapter 8's fused kernels under F.layer_norm, F.softmax and F.gelu
train chapter 3's MLP and chapter 7's GPT to the NumPy backend's losses and gradients."""

import importlib

import numpy as np
import pytest

from checks.loader import load_framework

pytest.importorskip("numba")

fw = load_framework("solutions")
nn = importlib.import_module("framework.nn")
F = importlib.import_module("framework.nn.functional")
optim = importlib.import_module("framework.optim")
gpt = importlib.import_module("framework.nn.gpt")
backend = importlib.import_module("framework.provided.backend")
launch = importlib.import_module("framework.provided.launch")


@pytest.fixture(autouse=True)
def numpy_afterwards():
    yield
    fw.set_backend("numpy")


def on(name, run):
    fw.set_backend(name)
    try:
        return run()
    finally:
        fw.set_backend("numpy")


def mlp_run(steps=5):
    """Chapter 3's MLP (W2's two moons, Adam) with GELU, a LayerNorm and a softmax in the loss,
    so that all three fused ops are in the graph: the losses and the first step's gradients."""
    X, y = fw.data.make_moons(256, 0.1, seed=0)
    fw.manual_seed(1)
    model = nn.Sequential(nn.Linear(2, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, 64),
                          nn.GELU(), nn.Linear(64, 2))
    opt = optim.Adam(model.parameters(), lr=1e-2)
    inputs, onehot = fw.Tensor(X), np.eye(2, dtype=np.float32)[y]
    losses, grads = [], None
    for _ in range(steps):
        opt.zero_grad()
        p = F.softmax(model(inputs), axis=-1)
        loss = -((p * onehot).sum(axis=-1) + 1e-6).log().mean()
        loss.backward()
        grads = grads or [q.grad.copy() for q in model.parameters()]
        opt.step()
        losses.append(float(loss.item()))
    return losses, grads


def gpt_run(steps=3):
    """Chapter 7's GPT, small, on Shakespeare, AdamW and clipping as W5."""
    train, validation = fw.data.load_shakespeare()
    vocab = gpt.CharVocab(train + validation)
    ids, rng = vocab.encode(train[:20000]), np.random.default_rng(0)
    fw.manual_seed(0)
    model = nn.GPT(vocab.vocab_size, block_size=32, n_layer=2, n_head=2, n_embd=32)
    opt = optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99), weight_decay=0.1)
    losses, grads = [], None
    for _ in range(steps):
        x, y = gpt.get_batch(ids, 8, 32, rng)
        opt.zero_grad()
        loss = model.loss(x, y)
        loss.backward()
        grads = grads or [q.grad.copy() for q in model.parameters()]
        optim.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.item()))
    return losses, grads


@pytest.mark.parametrize("run", [mlp_run, gpt_run], ids=["chapter 3 MLP", "chapter 7 GPT"])
def test_the_kernels_backend_trains_to_the_numpy_losses_and_gradients(run):
    numpy_losses, numpy_grads = on("numpy", run)
    kernel_losses, kernel_grads = on("kernels", run)
    np.testing.assert_allclose(kernel_losses, numpy_losses, rtol=2e-5)
    for ours, theirs in zip(kernel_grads, numpy_grads):
        assert ours.dtype == theirs.dtype == np.float32
        np.testing.assert_allclose(ours, theirs, rtol=1e-3, atol=2e-5)


def test_the_kernels_backend_uses_the_fused_functions_and_numpy_brings_the_old_ones_back():
    x = fw.Tensor(np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32),
                  requires_grad=True)
    w, b = fw.Tensor(np.ones(8, np.float32)), fw.Tensor(np.zeros(8, np.float32))

    def nodes():
        return [f(x).grad_fn.function.__name__
                for f in (F.gelu, lambda t: F.softmax(t, axis=-1),
                          lambda t: F.layer_norm(t, 8, w, b))]

    assert fw.get_backend() == "numpy"
    assert nodes() == ["GELU", "Softmax", "LayerNormFunction"]
    fw.set_backend("kernels")
    assert fw.get_backend() == "kernels"
    assert nodes() == ["FusedGELU", "FusedSoftmax", "FusedLayerNorm"]
    fw.set_backend("numpy")
    assert fw.get_backend() == "numpy"
    assert nodes() == ["GELU", "Softmax", "LayerNormFunction"]


@pytest.mark.filterwarnings("ignore:invalid value encountered")
def test_where_a_fused_kernel_does_not_apply_the_numpy_op_runs_with_the_same_result():
    rng = np.random.default_rng(1)
    x32 = rng.standard_normal((3, 4, 5)).astype(np.float32)
    cases = {
        "softmax over axis 0": lambda x: F.softmax(x, axis=0),
        "layer_norm over 2 axes": lambda x: F.layer_norm(x, (4, 5), fw.Tensor(np.ones((4, 5), np.float32)),
                                                         fw.Tensor(np.zeros((4, 5), np.float32))),
        "layer_norm without weight": lambda x: F.layer_norm(x, 5),
        "float16 gelu": F.gelu,
        "softmax of inf": lambda x: F.softmax(x, axis=-1),
    }
    inputs = {"float16 gelu": x32.astype(np.float16),
              "softmax of inf": np.where(x32 > 1, np.inf, x32)}
    for name, op in cases.items():  # (inf in softmax: NumPy's nan, warned about)
        data = inputs.get(name, x32)
        expected = on("numpy", lambda op=op, data=data: op(fw.Tensor(data, requires_grad=True)))
        got = on("kernels", lambda op=op, data=data: op(fw.Tensor(data, requires_grad=True)))
        assert got.grad_fn.function.__name__ == expected.grad_fn.function.__name__, name
        np.testing.assert_array_equal(got.data, expected.data, err_msg=name)


def test_an_unknown_backend_names_the_choices():
    with pytest.raises(ValueError, match="unknown backend 'cuda'.*'numpy', 'kernels'"):
        fw.set_backend("cuda")
    assert fw.get_backend() == "numpy"


def test_importing_the_framework_does_not_import_numba():
    import subprocess
    import sys

    from checks.loader import ROOT

    code = ("import sys; sys.path.insert(0, 'solutions'); import framework; "
            "framework.nn.functional.gelu; framework.get_backend(); "
            "assert 'numba' not in sys.modules, 'numba imported'")
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0
