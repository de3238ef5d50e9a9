"""What chapter 4's parts share: the strategies, the optimizers' driver and their formulas."""

from __future__ import annotations

import importlib

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from checks.harness import assert_close, framework

fw = framework()


def optim():
    """The `optim` module of the framework under test (imported on first use)."""
    return importlib.import_module("framework.optim")


seeds = st.integers(0, 2**32 - 1)
shapes = array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=4)
values = st.floats(-2.0, 2.0, allow_subnormal=False)
lrs = st.floats(0.01, 0.5)
decays = st.sampled_from([0.0]) | st.floats(0.01, 0.5)
momenta = st.floats(0.1, 0.95)
dampenings = st.sampled_from([0.0]) | st.floats(0.05, 0.9)
beta_pairs = st.tuples(st.floats(0.0, 0.99), st.floats(0.0, 0.999))
epsilons = st.sampled_from([1e-8]) | st.floats(1e-3, 1.0)
RTOL, ATOL = 1e-7, 1e-10  # float64 formulas: only the order of operations may differ


@st.composite
def problems(draw, max_steps: int = 5):
    """Initial parameters and, for each step, a gradient per parameter (None: no .grad).

    The first parameter always has a gradient, so every step does something.
    """
    param_shapes = draw(st.lists(shapes, min_size=1, max_size=3))
    init = [draw(arrays(np.float64, s, elements=values)) for s in param_shapes]
    steps = []
    for _ in range(draw(st.integers(1, max_steps))):
        row = []
        for i, shape in enumerate(param_shapes):
            skipped = i > 0 and draw(st.integers(0, 3)) == 0
            row.append(None if skipped else draw(arrays(np.float64, shape, elements=values)))
        steps.append(row)
    return init, steps


def drive(make_optimizer, init, steps):
    """Set each step's gradients, call step(), record the parameters; .grad must stay as set."""
    params = [fw.Tensor(a.copy(), requires_grad=True) for a in init]
    opt = make_optimizer(params)
    path = []
    for k, row in enumerate(steps):
        for p, g in zip(params, row):
            p.grad = None if g is None else g.copy()
        opt.step()
        for i, (p, g) in enumerate(zip(params, row)):
            assert g is None or np.array_equal(p.grad, g), (
                f"step {k + 1} changed parameter {i}'s .grad; an optimizer reads the gradient "
                "and never writes it (compute g + λθ into a new array)"
            )
        path.append([p.data.copy() for p in params])
    return params, opt, path


def compare_paths(path, expected, what: str) -> None:
    for k, (got_row, want_row) in enumerate(zip(path, expected)):
        for i, (got, want) in enumerate(zip(got_row, want_row)):
            assert_close(got, want, f"{what}: parameter {i} (shape {want.shape}) after step "
                         f"{k + 1}", rtol=RTOL, atol=ATOL)


def sgd_formula(init, steps, lr, momentum=0.0, dampening=0.0, nesterov=False, weight_decay=0.0):
    """torch.optim.SGD, written out: the parameters after each step, and the final buffers."""
    theta = [a.copy() for a in init]
    buffers = [None] * len(init)
    path = []
    for row in steps:
        for i, g in enumerate(row):
            if g is None:
                continue
            d = g + weight_decay * theta[i]
            if momentum != 0:
                if buffers[i] is None:
                    buffers[i] = d.copy()
                else:
                    buffers[i] = momentum * buffers[i] + (1 - dampening) * d
                d = d + momentum * buffers[i] if nesterov else buffers[i]
            theta[i] = theta[i] - lr * d
        path.append([t.copy() for t in theta])
    return path, buffers


def adam_formula(init, steps, lr, betas, eps, weight_decay=0.0, decoupled=False):
    """torch.optim.Adam (decoupled=False) or AdamW, written out: path and final (t, m, v)."""
    beta1, beta2 = betas
    theta = [a.copy() for a in init]
    moments = [(0, np.zeros_like(a), np.zeros_like(a)) for a in init]
    path = []
    for row in steps:
        for i, g in enumerate(row):
            if g is None:
                continue
            if decoupled:
                theta[i] = theta[i] - lr * weight_decay * theta[i]
            else:
                g = g + weight_decay * theta[i]
            t, m, v = moments[i]
            t, m, v = t + 1, beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * g * g
            m_hat, v_hat = m / (1 - beta1**t), v / (1 - beta2**t)
            theta[i] = theta[i] - lr * m_hat / (np.sqrt(v_hat) + eps)
            moments[i] = (t, m, v)
        path.append([t.copy() for t in theta])
    return path, moments


def quadratic(seed: int, n: int = 3):
    """f(θ) = ½ θᵀAθ − bᵀθ with A symmetric, eigenvalues 0.5 … 4; and a starting point."""
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = q @ np.diag(np.linspace(0.5, 4.0, n)) @ q.T
    return A, rng.standard_normal(n), rng.standard_normal(n)


def descend(make_optimizer, seed: int, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run an optimizer on a quadratic, the gradient Aθ − b computed here; (θ, A, b)."""
    A, b, start = quadratic(seed)
    x = fw.Tensor(start.copy(), requires_grad=True)
    opt = make_optimizer([x])
    for _ in range(steps):
        x.grad = A @ x.data - b
        opt.step()
    return x.data, A, b


def describe(name: str, **hyperparameters) -> str:
    settings_ = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                          for k, v in hyperparameters.items())
    return f"{name}({settings_})"
