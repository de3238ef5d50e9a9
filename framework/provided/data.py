"""Provided: the data sets and tasks the chapters train on, as plain NumPy arrays.

- 2-D classification sets: `make_moons` (a fixed recipe, so a seed gives the same points
  in any program that follows it), `make_circles`, `make_spirals`;
  and `iterate_minibatches` to walk through them (`batch_indices` picks the rows of each
  batch, for it and for `framework.utils.data.DataLoader`).
- Chapter 6's images: `load_digits`, the 8×8 handwritten digits shipped in `datasets/`,
  split into a fixed training and test set.
- Chapter 7's text: `load_shakespeare`, about 1 MB of eight plays shipped in `datasets/`,
  split into a fixed training and validation part.
- Chapter 5's digit-reversal task: `reversal_batch`.
- Chapter 5's date normalisation task (in `dates.py`, its names exported here): `format_date`
  writes a date in one of
  `DATE_FORMATS` (`tuesday, 3 march 1998`, `3.3.98`, ...), `normalise` writes it as
  `1998-03-03`; `CharTokenizer` turns text into ids, and `DateTask` serves padded
  `Seq2SeqBatch`es with a held-out set whose dates never appear in training.

Nothing here depends on the rest of the framework, and everything is deterministic
given its seed or generator. Where no generator is passed, draws come from the shared
`default_generator()`, so `framework.manual_seed` makes a run repeatable.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from .dates import *  # noqa: F403 (chapter 5's task, exported here: framework.data.DateTask)
from .generator import default_generator

# -- 2-D classification sets --------------------------------------------------------------


def _noisy_shuffled(
    points: np.ndarray,
    labels: np.ndarray,
    noise: float,
    rng: np.random.Generator,
    dtype: npt.DTypeLike,
) -> tuple[np.ndarray, np.ndarray]:
    """Add Gaussian noise to the points, shuffle points and labels together, cast."""
    n = len(points)
    # the noise is drawn before the permutation: part of the recipe, as the seed is
    X = points + rng.normal(0.0, noise, (n, 2))
    order = rng.permutation(n)
    return X[order].astype(dtype), labels[order]


def _two_class_labels(n_first: int, n_second: int) -> np.ndarray:
    """`n_first` zeros then `n_second` ones, int64."""
    return np.concatenate([np.zeros(n_first, np.int64), np.ones(n_second, np.int64)])


def make_moons(
    n: int, noise: float = 0.1, seed: int = 0, dtype: npt.DTypeLike = np.float32
) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaving half circles: `n` points `X` (n, 2) and labels `y` (n,) int64.

    The recipe: the upper moon `(cos t, sin t)` (label 0)
    holds `n // 2` points, the lower moon `(1 - cos t, 0.5 - sin t)` (label 1) the
    rest, `t` evenly spaced over [0, pi]; then noise N(0, noise²) and a shuffle, both
    from `np.random.default_rng(seed)`. Computed in float64, then cast to `dtype`.
    """
    rng = np.random.default_rng(seed)
    n_out = n // 2
    n_in = n - n_out
    t_out = np.linspace(0.0, np.pi, n_out)
    t_in = np.linspace(0.0, np.pi, n_in)
    upper = np.stack([np.cos(t_out), np.sin(t_out)], axis=1)
    lower = np.stack([1.0 - np.cos(t_in), 0.5 - np.sin(t_in)], axis=1)
    points = np.concatenate([upper, lower])
    return _noisy_shuffled(points, _two_class_labels(n_out, n_in), noise, rng, dtype)


def make_circles(
    n: int,
    noise: float = 0.05,
    factor: float = 0.5,
    seed: int = 0,
    dtype: npt.DTypeLike = np.float32,
) -> tuple[np.ndarray, np.ndarray]:
    """Two concentric circles: `n` points `X` (n, 2) and labels `y` (n,) int64.

    The outer circle (radius 1, label 0) holds `n // 2` points, the inner one (radius
    `factor`, label 1) the rest, evenly spaced in angle; then noise N(0, noise²) and a
    shuffle, both from `np.random.default_rng(seed)`. No straight line separates them.
    """
    if not 0.0 < factor < 1.0:
        raise ValueError(f"make_circles: factor={factor} must lie strictly between 0 and 1")
    rng = np.random.default_rng(seed)
    n_out = n // 2
    n_in = n - n_out
    points = np.concatenate([_circle(n_out, 1.0), _circle(n_in, factor)])
    return _noisy_shuffled(points, _two_class_labels(n_out, n_in), noise, rng, dtype)


def _circle(n: int, radius: float) -> np.ndarray:
    """`n` points evenly spaced on a circle around the origin, (n, 2)."""
    # endpoint=False: angle 2*pi is angle 0 again, which would put two points on one spot.
    angle = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    return radius * np.stack([np.cos(angle), np.sin(angle)], axis=1)


def make_spirals(
    n: int,
    noise: float = 0.1,
    turns: float = 1.5,
    seed: int = 0,
    dtype: npt.DTypeLike = np.float32,
) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaved spirals: `n` points `X` (n, 2) and labels `y` (n,) int64.

    Each arm winds `turns` times around the origin while its radius grows from 0.2 to
    2; the second arm (label 1, the last `n - n // 2` points) is the first (label 0)
    turned by half a circle. Then noise N(0, noise²) and a shuffle, both from
    `np.random.default_rng(seed)`. A classic that a linear model cannot begin to fit.
    """
    rng = np.random.default_rng(seed)
    n_first = n // 2
    n_second = n - n_first
    points = np.concatenate([_spiral_arm(n_first, turns, 0.0), _spiral_arm(n_second, turns, np.pi)])
    return _noisy_shuffled(points, _two_class_labels(n_first, n_second), noise, rng, dtype)


def _spiral_arm(n: int, turns: float, offset: float) -> np.ndarray:
    """`n` points along an arm of an Archimedean spiral, started at angle `offset`, (n, 2)."""
    # The radius starts at 0.2, not 0: at the origin the two arms would meet.
    radius = np.linspace(0.2, 2.0, n)
    angle = np.linspace(0.0, 2.0 * np.pi * turns, n) + offset
    return radius[:, None] * np.stack([np.cos(angle), np.sin(angle)], axis=1)


def iterate_minibatches(
    X: np.ndarray,
    y: np.ndarray,
    batch_size: int,
    shuffle: bool = True,
    generator: np.random.Generator | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Yield `(X_batch, y_batch)` pairs that together cover every row once.

    With `shuffle`, the order is a permutation drawn from `generator` (the shared
    `default_generator()` when None); the last batch is smaller when `batch_size`
    does not divide the number of rows.
    """
    if len(X) != len(y):
        raise ValueError(
            f"iterate_minibatches: X has {len(X)} rows but y has {len(y)}; pass one label per row"
        )
    for rows in batch_indices(len(X), batch_size, shuffle, generator, op="iterate_minibatches"):
        yield X[rows], y[rows]


def batch_indices(
    n: int,
    batch_size: int,
    shuffle: bool = True,
    generator: np.random.Generator | None = None,
    drop_last: bool = False,
    op: str = "batch_indices",
) -> Iterator[np.ndarray]:
    """The row indices of each minibatch of `n` rows: every row once, in order or shuffled.

    With `shuffle`, the order is a permutation drawn from `generator` (the shared
    `default_generator()` when None). The last batch is smaller when `batch_size` does not
    divide n, or left out with `drop_last`. (`framework.utils.data.DataLoader` walks these.)
    """
    if not (isinstance(batch_size, (int, np.integer)) and batch_size >= 1):
        raise ValueError(f"{op}: batch_size={batch_size!r} must be a whole number, at least 1")
    if shuffle:
        order = (default_generator() if generator is None else generator).permutation(n)
    else:
        order = np.arange(n)
    end = n - n % batch_size if drop_last else n
    for start in range(0, end, batch_size):
        yield order[start : start + batch_size]


# -- 8×8 handwritten digits (chapter 6) -----------------------------------------------------

DIGITS_FILE = pathlib.Path(__file__).parent / "datasets" / "digits.npz"


def load_digits(
    test_fraction: float = 0.2, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The 1,797 digits (UCI, CC BY 4.0; see datasets/README.md) as `(X_train, y_train,
    X_test, y_test)`: images float32 of shape (N, 1, 8, 8) scaled to [0, 1], labels int64.

    The split is stratified and fixed by `seed` (its own generator, not the shared one):
    of each digit, round(test_fraction · count) images go to the test set. Both sets
    come in a shuffled order, so a batch of consecutive images mixes the digits.
    """
    if not 0 < test_fraction < 1:
        raise ValueError(f"load_digits: test_fraction={test_fraction} must be between 0 and 1")
    with np.load(DIGITS_FILE, allow_pickle=False) as archive:
        images, labels = archive["images"], archive["labels"]
    rng = np.random.default_rng(seed)
    train, test = [], []
    for digit in range(10):
        rows = rng.permutation(np.flatnonzero(labels == digit))
        cut = round(test_fraction * len(rows))
        test.append(rows[:cut])
        train.append(rows[cut:])
    train, test = rng.permutation(np.concatenate(train)), rng.permutation(np.concatenate(test))
    X = np.divide(images[:, None], 16, dtype=np.float32)  # pixel values 0-16 become 0-1
    return X[train], labels[train], X[test], labels[test]


# -- Shakespeare's plays (chapter 7) ---------------------------------------------------------

SHAKESPEARE_FILE = pathlib.Path(__file__).parent / "datasets" / "shakespeare.txt"


def load_shakespeare(validation_fraction: float = 0.1) -> tuple[str, str]:
    """Eight plays (public domain; see datasets/README.md) as `(train, validation)` text: the
    first 1 - validation_fraction of the characters, then the rest. The split is fixed (no
    shuffling: a window of text must stay whole), so the validation text is never trained on.
    """
    if not 0 < validation_fraction < 1:
        raise ValueError(f"load_shakespeare: validation_fraction={validation_fraction} must be "
                         "between 0 and 1")
    text = SHAKESPEARE_FILE.read_text(encoding="ascii")
    cut = round(len(text) * (1 - validation_fraction))
    return text[:cut], text[cut:]


# -- the digit-reversal task ----------------------------------------------------------------

REVERSAL_VOCAB_SIZE = 16  # ids 0-9 are digits, 10 is BOS, 11-15 are unused
REVERSAL_BOS = 10


def reversal_batch(
    batch_size: int, length: int = 12, rng: np.random.Generator | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A batch of the digit-reversal task: `(src, tgt_in, tgt_out)`, int64 arrays (B, L).

    `src` holds random digits 0-9, `tgt_out` is `src` reversed along each row, and
    `tgt_in` is `tgt_out` shifted right behind `REVERSAL_BOS` (the decoder's input
    under teacher forcing). Digits come from `rng` (the shared `default_generator()`
    when None).
    """
    rng = default_generator() if rng is None else rng
    src = rng.integers(0, 10, size=(batch_size, length), dtype=np.int64)
    tgt_out = np.ascontiguousarray(src[:, ::-1])
    bos = np.full((batch_size, 1), REVERSAL_BOS, dtype=np.int64)
    tgt_in = np.concatenate([bos, tgt_out[:, :-1]], axis=1)
    return src, tgt_in, tgt_out
