"""The pinned floors of the benchmark spec (README.md here), the shared inputs, the thread count.

Everything that the framework, the floors and PyTorch must share is defined here once:
the data, the initial weights and the order in which they are drawn.

- W2 floor: the whole training step written directly in NumPy (float32 forward,
  hand-derived backward, Adam on one flat buffer), so it is the best a NumPy program
  can do on that step.
- W3 floor: the step's matrix products alone (forward and both backward products of
  every Linear, the batched attention products), contiguous float32 operands written
  into preallocated outputs: 1.10 GFLOP. `w3_loss` is W3's forward in plain NumPy,
  recording the products it makes, so a test can prove the floor is the same math.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable

import numpy as np

from checks.loader import ROOT

# -- timing and threads ------------------------------------------------------------------


def median_ms(step: Callable[[], object], steps: int, warmup: int) -> tuple[float | None, list]:
    """Median milliseconds of `steps` timed calls after `warmup` untimed ones, and the results."""
    return interleaved_ms({"step": step}, steps, warmup)["step"]


def interleaved_ms(steps_of: dict[str, Callable[[], object]], steps: int,
                   warmup: int) -> dict[str, tuple[float | None, list]]:
    """For each contender, the median ms of `steps` timed calls after `warmup`, and the
    results of all its calls, in order; the contenders take turns step by step.
    """
    results = {name: [step() for _ in range(warmup)] for name, step in steps_of.items()}
    times = take_turns(steps_of, steps, results)
    return {name: (median_of(times[name]), results[name]) for name in steps_of}


def take_turns(steps_of: dict[str, Callable[[], object]], steps: int,
               results: dict[str, list]) -> dict[str, list[float]]:
    """`steps` rounds of one step of each contender, the order rotating from round to round;
    the seconds of each step, by contender. Each step's result goes onto `results`.

    A machine drifts (other processes, clock speed) within a fraction of a second: when
    W2's framework and floor took blocks of 50 steps in turn, their ratio moved between
    1.2 and 1.55 from run to run; step by step, both meet the same moments.
    """
    names = list(steps_of)
    times: dict[str, list[float]] = {name: [] for name in names}
    for round_index in range(steps):
        for name in rotated(names, round_index):
            start = time.perf_counter()
            results[name].append(steps_of[name]())
            times[name].append(time.perf_counter() - start)
    return times


def rotated(names: list[str], round_index: int) -> list[str]:
    """The order of the contenders in a round: each round starts one further along."""
    shift = round_index % len(names)
    return names[shift:] + names[:shift]


def blocks(steps: int, rounds: int) -> list[int]:
    """`steps` split into `rounds` blocks as even as can be, the larger ones first."""
    return [steps // rounds + (r < steps % rounds) for r in range(rounds)]


def median_of(seconds: list[float]) -> float | None:
    """The median in milliseconds, None for no steps."""
    return 1000 * float(np.median(seconds)) if seconds else None


def _runtime():
    """The framework's `provided/runtime.py`, which finds NumPy's OpenBLAS (the lookup is
    written there once); the same provided code in whichever copy of the package is loaded."""
    return importlib.import_module("framework.provided.runtime")


def blas_threads() -> int:
    """The number of threads NumPy's BLAS uses: asked of OpenBLAS, else from the environment."""
    asked = _runtime().blas_threads()
    if asked is not None:
        return asked
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        if os.environ.get(variable, "").isdigit():
            return int(os.environ[variable])
    return os.cpu_count() or 1


_given: list[int] = []  # the thread count of the bench's current pass, once one is given


def give_threads(count: int) -> None:
    """Give the workloads `count` threads: NumPy's BLAS may use them (until the framework's
    `memory.tune()` chooses fewer for its small products), PyTorch takes them all."""
    _runtime().set_blas_threads(count)
    _given[:] = [count]


def threads() -> int:
    """The threads given to this pass (`give_threads`), else the count NumPy's BLAS uses."""
    return _given[0] if _given else blas_threads()


# -- W2: data, weights, and the NumPy floor --------------------------------------------------

W2_SIZES = (2, 64, 64, 2)
W2_LR, W2_BETAS, W2_EPS = 1e-2, (0.9, 0.999), 1e-8


def make_moons(n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The spec's two moons, written out so every framework sees the same points."""
    rng = np.random.default_rng(seed)
    n_out = n // 2
    n_in = n - n_out
    t_out, t_in = np.linspace(0, np.pi, n_out), np.linspace(0, np.pi, n_in)
    points = np.concatenate([np.stack([np.cos(t_out), np.sin(t_out)], axis=1),
                             np.stack([1 - np.cos(t_in), 0.5 - np.sin(t_in)], axis=1)])
    labels = np.concatenate([np.zeros(n_out, np.int64), np.ones(n_in, np.int64)])
    points = points + rng.normal(0, noise, (n, 2))
    order = rng.permutation(n)
    return points[order], labels[order]


def w2_data() -> tuple[np.ndarray, np.ndarray]:
    """make_moons(1024, 0.1, seed=0) as float32 points and int64 labels."""
    X, y = make_moons(1024, 0.1, seed=0)
    return X.astype(np.float32), y


def w2_parameters() -> list[tuple[np.ndarray, np.ndarray]]:
    """Per layer (weight (out, in), bias (out,)), both U(-1/√in, 1/√in), from default_rng(1).

    The draw order, shared by the framework, the floor and PyTorch: layer by layer,
    the weight (PyTorch's (out, in) layout, row by row) then the bias; drawn in
    float64, then cast to float32.
    """
    rng = np.random.default_rng(1)
    layers = []
    for n_in, n_out in zip(W2_SIZES[:-1], W2_SIZES[1:]):
        bound = 1 / np.sqrt(n_in)
        weight = rng.uniform(-bound, bound, size=(n_out, n_in)).astype(np.float32)
        bias = rng.uniform(-bound, bound, size=n_out).astype(np.float32)
        layers.append((weight, bias))
    return layers


class W2Floor:
    """The W2 step on plain arrays: float32 forward, hand-derived backward, flat Adam.

    With `new_arrays`, every activation and gradient is written into a new array instead of
    a buffer kept across steps, and the pre-activations stay alive until the step ends, as a
    graph of tensors keeps them: the framework's memory, without its Python. The floor is
    the default; the variant measures how much of the framework's distance is memory.
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, layers, new_arrays: bool = False):
        self.X, self.y, self.n, self.new_arrays = X, y, len(y), new_arrays
        classes = W2_SIZES[-1]
        self.picked = np.arange(self.n) * classes + y  # flat index of each target logit
        self.onehot = np.eye(classes, dtype=np.float32)[y]
        self.ones = np.ones(self.n, np.float32)
        # activations and their gradients live in buffers kept across steps: the floor pays
        # for arithmetic only, never for allocating memory or for a footprint beyond the caches
        hidden = (self.n, W2_SIZES[1]), (self.n, W2_SIZES[2]), (self.n, classes)
        self.buffers = [np.empty(s, np.float32) for s in (*hidden, hidden[1], hidden[0])]
        # weights stored (in, out) so that forward is x @ W; all parameters in one buffer
        shapes = [s for w, b in layers for s in (w.T.shape, b.shape)]
        sizes = [int(np.prod(s)) for s in shapes]
        self.flat = np.concatenate([a.ravel() for w, b in layers for a in (w.T, b)])
        self.grad = np.zeros_like(self.flat)
        self.m, self.v = np.zeros_like(self.flat), np.zeros_like(self.flat)
        offsets = np.cumsum([0, *sizes])
        self.params = [self.flat[o:o + n].reshape(s) for o, n, s in zip(offsets, sizes, shapes)]
        self.grads = [self.grad[o:o + n].reshape(s) for o, n, s in zip(offsets, sizes, shapes)]
        self.t = 0

    def step(self) -> float:
        W1, b1, W2, b2, W3, b3 = self.params
        gW1, gb1, gW2, gb2, gW3, gb3 = self.grads
        # with new_arrays every out= below is None: NumPy writes the result into a new array
        h1, h2, z, d2, d1 = (None,) * 5 if self.new_arrays else self.buffers
        a1 = np.matmul(self.X, W1, out=h1)
        a1 += b1
        r1 = np.maximum(a1, 0, out=h1)
        a2 = np.matmul(r1, W2, out=h2)
        a2 += b2
        r2 = np.maximum(a2, 0, out=h2)
        z = np.matmul(r2, W3, out=z)
        z += b3
        # softmax cross-entropy, mean over the batch; its gradient (softmax - onehot) / n
        z -= z.max(axis=1, keepdims=True)
        target = z.ravel()[self.picked]
        e = np.exp(z, out=z)
        sums = e.sum(axis=1, keepdims=True)
        loss = float(np.log(sums).mean() - target.mean())
        e /= sums
        e -= self.onehot
        e *= 1 / self.n
        # column sums as a product with a ones vector (several times faster than .sum(axis=0))
        np.matmul(r2.T, e, out=gW3)
        np.matmul(self.ones, e, out=gb3)
        g2 = np.matmul(e, W3.T, out=d2)
        g2 = np.multiply(g2, r2 > 0, out=d2)
        np.matmul(r1.T, g2, out=gW2)
        np.matmul(self.ones, g2, out=gb2)
        g1 = np.matmul(g2, W2.T, out=d1)
        g1 = np.multiply(g1, r1 > 0, out=d1)
        np.matmul(self.X.T, g1, out=gW1)
        np.matmul(self.ones, g1, out=gb1)
        self.adam()
        return loss

    def adam(self) -> None:
        """PyTorch's Adam: p -= lr/(1-β1ᵗ) · m / (√v/√(1-β2ᵗ) + ε), on the flat buffers."""
        (beta1, beta2), g = W2_BETAS, self.grad
        self.t += 1
        self.m *= beta1
        self.m += (1 - beta1) * g
        self.v *= beta2
        g *= g
        g *= 1 - beta2
        self.v += g
        denom = np.sqrt(self.v)
        denom *= 1 / np.sqrt(1 - beta2 ** self.t)
        denom += W2_EPS
        np.divide(self.m, denom, out=denom)
        denom *= W2_LR / (1 - beta1 ** self.t)
        self.flat -= denom


def w2_floor_step(new_arrays: bool = False) -> Callable[[], float]:
    """The floor's training step (or its `new_arrays` variant, see `W2Floor`), from the shared
    data and weights, returning the loss."""
    X, y = w2_data()
    return W2Floor(X, y, w2_parameters(), new_arrays).step


def w2_floor(steps: int, warmup: int) -> dict:
    ms, losses = median_ms(w2_floor_step(), steps, warmup)
    return {"ms_per_step": ms, "losses": losses}


# -- W3: data, weights, the NumPy forward, and the matmul floor ------------------------------

D_MODEL, HEADS, FFN, LAYERS, VOCAB, LENGTH, BATCH = 64, 4, 256, 2, 16, 12, 64
W3_LR, W3_BETAS, W3_EPS = 1e-3, (0.9, 0.999), 1e-8
W3_PARAMETERS = 236_816


def w3_batches(steps: int, batch_size: int = BATCH) -> list[tuple[np.ndarray, ...]]:
    """Each step's `(src, tgt_in, tgt_out)`, drawn in turn from default_rng(1234)."""
    rng = np.random.default_rng(1234)
    return [_reversal_batch(batch_size, rng) for _ in range(steps)]


def _reversal_batch(batch_size: int, rng: np.random.Generator):
    """framework.data.reversal_batch, written out so every framework sees the same digits."""
    src = rng.integers(0, 10, size=(batch_size, LENGTH), dtype=np.int64)
    tgt_out = np.ascontiguousarray(src[:, ::-1])
    tgt_in = np.concatenate([np.full((batch_size, 1), 10, np.int64), tgt_out[:, :-1]], axis=1)
    return src, tgt_in, tgt_out


def w3_layout() -> list[tuple[str, tuple[int, ...], str]]:
    """W3's parameters as (name, shape, init), in the order they are drawn from default_rng(0).

    Names follow PyTorch's `nn.Transformer`, with q/k/v projections separate:
    source and target embeddings; then each encoder layer (self_attn q, k, v, out;
    linear1; linear2; norm1; norm2); the encoder's final norm; each decoder layer
    (self_attn q, k, v, out; cross_attn q, k, v, out; linear1; linear2; norm1-3);
    the decoder's final norm; the output Linear. Each Linear draws its weight
    (out, in) then its bias; LayerNorms draw nothing (gain 1, bias 0).
    """
    layout = [("src_embedding", (VOCAB, D_MODEL), "normal"),
              ("tgt_embedding", (VOCAB, D_MODEL), "normal")]

    def linear(name, n_in, n_out):
        layout.extend([(f"{name}.weight", (n_out, n_in), "uniform"),
                       (f"{name}.bias", (n_out,), "uniform")])

    def norm(name):
        layout.extend([(f"{name}.weight", (D_MODEL,), "ones"), (f"{name}.bias", (D_MODEL,), "zeros")])

    def attention(name):
        for projection in ("q", "k", "v", "out"):
            linear(f"{name}.{projection}", D_MODEL, D_MODEL)

    for stack, blocks in (("encoder", ("self_attn",)), ("decoder", ("self_attn", "cross_attn"))):
        for i in range(LAYERS):
            for block in blocks:
                attention(f"{stack}.{i}.{block}")
            linear(f"{stack}.{i}.linear1", D_MODEL, FFN)
            linear(f"{stack}.{i}.linear2", FFN, D_MODEL)
            for k in range(1, len(blocks) + 2):
                norm(f"{stack}.{i}.norm{k}")
        norm(f"{stack}.norm")
    linear("output", D_MODEL, VOCAB)
    return layout


def w3_parameters() -> dict[str, np.ndarray]:
    """W3's initial weights, float32: N(0, 1) embeddings, U(-1/√fan_in, 1/√fan_in) Linears."""
    rng = np.random.default_rng(0)
    params = {}
    for name, shape, init in w3_layout():
        if init == "normal":
            values = rng.standard_normal(shape)
        elif init == "uniform":
            bound = 1 / np.sqrt(shape[-1] if len(shape) == 2 else _fan_in(params, name))
            values = rng.uniform(-bound, bound, size=shape)
        else:
            values = np.ones(shape) if init == "ones" else np.zeros(shape)
        params[name] = values.astype(np.float32)
    assert sum(p.size for p in params.values()) == W3_PARAMETERS
    return params


def _fan_in(params: dict, bias_name: str) -> int:
    """A bias's fan-in is its Linear's (the weight is drawn just before it)."""
    return params[bias_name[: -len("bias")] + "weight"].shape[1]


def positional_encoding(length: int, d_model: int) -> np.ndarray:
    """Sinusoidal positions: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(same)."""
    position = np.arange(length)[:, None]
    frequency = np.exp(-np.log(10000.0) * np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((length, d_model))
    pe[:, 0::2] = np.sin(position * frequency)
    pe[:, 1::2] = np.cos(position * frequency)
    return pe.astype(np.float32)


def w3_loss(params: dict, src: np.ndarray, tgt_in: np.ndarray, tgt_out: np.ndarray,
            products: list | None = None) -> float:
    """W3's forward in plain NumPy (float64 for accuracy): the mean cross-entropy.

    Every matrix product it makes is appended to `products` as (shape a, shape b),
    in the operands' logical shapes, so its list can be compared with the floor's.
    """
    p = {name: value.astype(np.float64) for name, value in params.items()}
    record = products if products is not None else []

    def matmul(a, b):
        record.append((a.shape, b.shape))
        return a @ b

    def linear(name, x):
        flat = x.reshape(-1, x.shape[-1])
        return (matmul(flat, p[f"{name}.weight"].T) + p[f"{name}.bias"]).reshape(*x.shape[:-1], -1)

    def norm(name, x):
        centred = x - x.mean(axis=-1, keepdims=True)
        scale = 1 / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + 1e-5)
        return centred * scale * p[f"{name}.weight"] + p[f"{name}.bias"]

    def heads(x):
        batch, length, _ = x.shape
        x = x.reshape(batch, length, HEADS, D_MODEL // HEADS).transpose(0, 2, 1, 3)
        return x.reshape(batch * HEADS, length, D_MODEL // HEADS)

    def attention(name, x, memory, causal):
        q, k, v = (heads(linear(f"{name}.{n}", y)) for n, y in (("q", x), ("k", memory), ("v", memory)))
        scores = matmul(q, k.transpose(0, 2, 1)) / np.sqrt(D_MODEL // HEADS)
        if causal:
            scores = np.where(np.triu(np.ones(scores.shape[1:], bool), 1), -np.inf, scores)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        out = matmul(weights, v).reshape(x.shape[0], HEADS, x.shape[1], -1)
        return linear(f"{name}.out", out.transpose(0, 2, 1, 3).reshape(x.shape))

    def feed_forward(name, x):
        return linear(f"{name}.linear2", np.maximum(linear(f"{name}.linear1", x), 0))

    pe = positional_encoding(LENGTH, D_MODEL)
    x = p["src_embedding"][src] + pe
    for i in range(LAYERS):
        h = norm(f"encoder.{i}.norm1", x)
        x = x + attention(f"encoder.{i}.self_attn", h, h, causal=False)
        x = x + feed_forward(f"encoder.{i}", norm(f"encoder.{i}.norm2", x))
    memory = norm("encoder.norm", x)
    y = p["tgt_embedding"][tgt_in] + pe
    for i in range(LAYERS):
        h = norm(f"decoder.{i}.norm1", y)
        y = y + attention(f"decoder.{i}.self_attn", h, h, causal=True)
        y = y + attention(f"decoder.{i}.cross_attn", norm(f"decoder.{i}.norm2", y), memory, False)
        y = y + feed_forward(f"decoder.{i}", norm(f"decoder.{i}.norm3", y))
    logits = linear("output", norm("decoder.norm", y)).reshape(-1, VOCAB)
    centred = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = centred - np.log(np.exp(centred).sum(axis=1, keepdims=True))
    return float(-log_probs[np.arange(len(logits)), tgt_out.ravel()].mean())


def w3_forward_products() -> list[tuple[str, tuple[int, ...], tuple[int, ...]]]:
    """The forward products of one W3 step as (kind, shape a, shape b), in logical shapes."""
    rows, bh, d_head = BATCH * LENGTH, BATCH * HEADS, D_MODEL // HEADS
    projection = ("linear", (rows, D_MODEL), (D_MODEL, D_MODEL))
    scores = ("scores", (bh, LENGTH, d_head), (bh, d_head, LENGTH))
    mixing = ("mixing", (bh, LENGTH, LENGTH), (bh, LENGTH, d_head))
    attention = [projection] * 3 + [scores, mixing, projection]
    ffn = [("linear", (rows, D_MODEL), (D_MODEL, FFN)), ("linear", (rows, FFN), (FFN, D_MODEL))]
    encoder = (attention + ffn) * LAYERS
    decoder = (attention * 2 + ffn) * LAYERS
    return encoder + decoder + [("linear", (rows, D_MODEL), (D_MODEL, VOCAB))]


def w3_products() -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Forward and backward products of one step (the spec's list, 1.10 GFLOP).

    A Linear x·W adds dY·Wᵀ and xᵀ·dY; the scores Q·Kᵀ add dS·K and dSᵀ·Q; the
    mixing P·V adds dO·Vᵀ and Pᵀ·dO.
    """
    products = []
    for kind, a, b in w3_forward_products():
        products.append((a, b))
        if kind == "linear":
            (n, k), (_, m) = a, b
            products += [((n, m), (m, k)), ((k, n), (n, m))]
        elif kind == "scores":
            bh, length, d = a
            products += [((bh, length, length), (bh, length, d))] * 2
        else:
            bh, length, d = b
            products += [((bh, length, d), (bh, d, length)), ((bh, length, length), (bh, length, d))]
    return products


def flops(products) -> int:
    """2·n·k·m per product (times the batch for stacked ones)."""
    return sum(2 * int(np.prod(a)) * b[-1] for a, b in products)


def w3_floor_step() -> Callable[[], None]:
    """The step's products alone: contiguous float32 operands, preallocated outputs."""
    rng = np.random.default_rng(0)
    operands = []
    for a, b in w3_products():
        left = rng.standard_normal(a, dtype=np.float32)
        right = rng.standard_normal(b, dtype=np.float32)
        operands.append((left, right, np.empty(a[:-1] + b[-1:], np.float32)))

    def step() -> None:
        for left, right, out in operands:
            np.matmul(left, right, out=out)

    return step


def w3_floor(steps: int, warmup: int) -> dict:
    """Median ms of the matmul floor's step, and its GFLOP."""
    ms, _ = median_ms(w3_floor_step(), steps, warmup)
    return {"ms_per_step": ms, "gflop": w3_gflop()}


def w3_gflop() -> float:
    return flops(w3_products()) / 1e9


# -- side by side: the floor, PyTorch and the loss agreement ----------------------------------


def agreement(losses: list[float], others: list[float], count: int = 10) -> float:
    """The largest relative difference of the first `count` losses both sides have."""
    count = min(count, len(losses), len(others))  # a quick run may take fewer steps than count
    if count == 0:
        raise ValueError(f"agreement: no losses to compare ({len(losses)} against {len(others)})")
    a, b = np.array(losses[:count]), np.array(others[:count])
    return float(np.max(np.abs(a - b) / np.abs(b)))


BLOCK = 10  # the steps a side takes in a row in `timed_with_floor_and_torch`


def timed_with_floor_and_torch(framework: Callable, floor: Callable, torch: Callable | None,
                               steps: int, warmup: int, block: int = BLOCK,
                               torch_version: str | None = None,
                               variants: dict[str, Callable] | None = None,
                               ) -> tuple[dict, dict, dict | None]:
    """The three sides of a workload timed alike: each takes `block` steps in a row, the
    order rotating from round to round, until each has taken `steps`. `variants` (name →
    step) of the floor take their turns among them; their median ms are the floor result's
    "variants".

    Blocks, for every side, because each leaves something behind for the next: PyTorch's
    worker threads, DataParallel's worker and NumPy's BLAS threads keep spinning a while after
    a call, and a side's own arrays stay in the caches for its next step. Step by step (W4 at
    two threads on the 2-core machine) each side met the others' leftovers: the framework
    took 4.74 ms against 3.06 alone, PyTorch 3.76 against 3.16; in blocks of 10, 3.26 and
    3.27. The median passes over a block's first step, the one that meets them. Short blocks
    in rotation still meet a drifting machine alike (see `take_turns`).
    """
    variants = variants or {}
    sides = {"framework": framework, "floor": floor, **variants}
    if torch is not None:
        sides["torch"] = torch
    results = {name: [step() for _ in range(warmup)] for name, step in sides.items()}
    times: dict[str, list[float]] = {name: [] for name in sides}
    for round_index, size in enumerate(blocks(steps, -(-steps // block))):
        for name in rotated(list(sides), round_index):
            times[name] += take_turns({name: sides[name]}, size, results)[name]
    result = {"ms_per_step": median_of(times["framework"]), "losses": results["framework"]}
    floor_result = {"ms_per_step": median_of(times["floor"]),
                    "variants": {name: median_of(times[name]) for name in variants}}
    floor_losses = results["floor"]
    if floor_losses and floor_losses[0] is not None:  # the matmul floor computes no loss
        floor_result["losses"] = floor_losses
    torch_result = None
    if torch is not None:
        torch_result = {"ms_per_step": median_of(times["torch"]), "losses": results["torch"],
                        "version": torch_version}
    return result, floor_result, torch_result


def side_by_side(result: dict, torch_result: dict | None, floor: dict) -> None:
    """Add the floor's and PyTorch's figures and the loss agreement to a workload's result."""
    result["floor_ms"] = floor["ms_per_step"]
    result["threads"], result["blas_threads"] = threads(), blas_threads()
    notes = [f"threads given: {result['threads']}" + (" (PyTorch uses them all)" if torch_result else "")
             + f"; NumPy's BLAS, after memory.tune(): {result['blas_threads']}"]
    if "losses" in floor:
        notes[0] += f"; the floor's losses agree to {agreement(result['losses'], floor['losses']):.1e}"
    if torch_result is not None:
        difference = agreement(result["losses"], torch_result["losses"])
        verdict = "within rtol 1e-4" if difference <= 1e-4 else "NOT within rtol 1e-4"
        result.update(torch_ms=torch_result["ms_per_step"], torch_losses=torch_result["losses"][:10],
                      torch_version=torch_result["version"], torch_loss_rel_diff=difference)
        notes += [f"PyTorch {torch_result['version']} eager: "
                  f"{torch_result['ms_per_step'] / floor['ms_per_step']:.2f}× the floor; first 10 "
                  f"losses: max rel. diff {difference:.1e} ({verdict})",
                  "  framework: " + " ".join(f"{v:.5f}" for v in result["losses"][:10]),
                  "  PyTorch:   " + " ".join(f"{v:.5f}" for v in torch_result["losses"][:10])]
    result["notes"] = notes + result.get("notes", [])


# -- W4: chapter 6's CNN on 256 digits --------------------------------------------------------

W4_BATCH = 256
# (in, out) channels of the two 3×3 convolutions (padding 1, each followed by ReLU and a 2×2
# max pool), then the Linear layer (128 → 10): the CNN of chapter 6, 6,090 parameters
W4_CONVS, W4_LINEAR = ((1, 16), (16, 32)), (128, 10)
W4_PARAMETERS = 6_090
DIGITS = ROOT / "framework" / "provided" / "datasets" / "digits.npz"


def w4_data() -> tuple[np.ndarray, np.ndarray]:
    """The first 256 images of digits.npz, in file order: float32 (256, 1, 8, 8) in [0, 1], labels."""
    with np.load(DIGITS, allow_pickle=False) as archive:
        images, labels = archive["images"][:W4_BATCH], archive["labels"][:W4_BATCH]
    return np.divide(images[:, None], 16, dtype=np.float32), labels


def w4_parameters() -> list[tuple[np.ndarray, np.ndarray]]:
    """Per layer (weight, bias), both U(±1/√fan_in), from default_rng(2): conv1, conv2, linear.

    Layer by layer, the weight (PyTorch's layout: (out, in, 3, 3) or (out, in)) then the
    bias, drawn in float64 and cast to float32; fan_in = in · 9 for a convolution.
    """
    rng = np.random.default_rng(2)
    shapes = [((o, i, 3, 3), o) for i, o in W4_CONVS] + [((W4_LINEAR[1], W4_LINEAR[0]), W4_LINEAR[1])]
    layers = []
    for weight_shape, n_out in shapes:
        bound = 1 / np.sqrt(np.prod(weight_shape[1:]))
        weight = rng.uniform(-bound, bound, weight_shape).astype(np.float32)
        layers.append((weight, rng.uniform(-bound, bound, n_out).astype(np.float32)))
    return layers
