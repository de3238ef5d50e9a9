"""Selftests of the provided `framework.data`: 2-D sets, batching, the reversal and date tasks."""

from __future__ import annotations

import datetime
import importlib

import numpy as np
import pytest

from checks.loader import load_framework

fw = load_framework("solutions")
data = fw.data
generator = importlib.import_module(f"{fw.__name__}.generator")

EXAMPLE = datetime.date(1998, 3, 3)  # a Tuesday
EXAMPLE_RENDERINGS = {
    "weekday_long": "tuesday, 3 march 1998",
    "weekday_short": "tue 3 mar 1998",
    "day_month_long": "3 march 1998",
    "day_month_short": "3 mar. 1998",
    "month_first_long": "march 3, 1998",
    "year_first_long": "1998 march 3",
    "slash_padded": "03/03/1998",
    "dash_padded": "03-03-1998",
    "slash_short": "3/3/98",
    "dot_short": "3.3.98",
}
# The test's own English names, indexed as `date.weekday()` counts (Monday is 0).
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def days_between(first: datetime.date, last: datetime.date) -> list[datetime.date]:
    """Every date from `first` to `last`, both included."""
    return [datetime.date.fromordinal(d) for d in range(first.toordinal(), last.toordinal() + 1)]


@pytest.fixture(scope="module")
def task():
    return data.DateTask()


# -- make_moons and the other 2-D sets ------------------------------------------------------


def benchmark_moons(n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The benchmark spec's recipe for the two moons, written out again, in float64."""
    rng = np.random.default_rng(seed)
    n_out, n_in = n // 2, n - n // 2
    t_out, t_in = np.linspace(0, np.pi, n_out), np.linspace(0, np.pi, n_in)
    X = np.concatenate(
        [
            np.column_stack([np.cos(t_out), np.sin(t_out)]),
            np.column_stack([1 - np.cos(t_in), 0.5 - np.sin(t_in)]),
        ]
    )
    y = np.array([0] * n_out + [1] * n_in)
    X = X + rng.normal(0, noise, (n, 2))
    order = rng.permutation(n)
    return X[order], y[order]


@pytest.mark.parametrize("n, noise, seed", [(100, 0.1, 0), (1024, 0.1, 0), (7, 0.3, 5)])
def test_make_moons_is_the_benchmark_recipe(n, noise, seed):
    X_expected, y_expected = benchmark_moons(n, noise, seed)
    X, y = data.make_moons(n, noise, seed=seed, dtype=np.float64)
    np.testing.assert_array_equal(X, X_expected)
    np.testing.assert_array_equal(y, y_expected)


def test_make_moons_computes_in_float64_then_casts():
    X64, _ = data.make_moons(1024, 0.1, seed=0, dtype=np.float64)
    X32, _ = data.make_moons(1024, 0.1, seed=0)
    assert X32.dtype == np.float32
    np.testing.assert_array_equal(X32, X64.astype(np.float32))


@pytest.mark.parametrize("make", ["make_moons", "make_circles", "make_spirals"])
def test_2d_sets_have_shapes_dtypes_and_balanced_labels(make):
    X, y = getattr(data, make)(101)
    assert X.shape == (101, 2) and X.dtype == np.float32
    assert y.shape == (101,) and y.dtype == np.int64
    assert np.bincount(y).tolist() == [50, 51]  # n // 2 of label 0, the rest label 1


@pytest.mark.parametrize("make", ["make_moons", "make_circles", "make_spirals"])
def test_2d_sets_are_deterministic_given_the_seed(make):
    first, again, other = (getattr(data, make)(200, seed=s) for s in (3, 3, 4))
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_array_equal(first[1], again[1])
    assert not np.array_equal(first[0], other[0])


@pytest.mark.parametrize("make", ["make_moons", "make_circles", "make_spirals"])
def test_2d_sets_leave_the_shared_generator_alone(make):
    before = generator.default_generator().bit_generator.state
    getattr(data, make)(50)
    assert generator.default_generator().bit_generator.state == before


def test_make_circles_without_noise_lies_on_two_circles():
    X, y = data.make_circles(200, noise=0.0, factor=0.3, dtype=np.float64)
    radius = np.linalg.norm(X, axis=1)
    np.testing.assert_allclose(radius[y == 0], 1.0)
    np.testing.assert_allclose(radius[y == 1], 0.3)


@pytest.mark.parametrize("factor", [0.0, 1.0, 1.5])
def test_make_circles_rejects_a_factor_outside_0_1(factor):
    with pytest.raises(ValueError, match="factor"):
        data.make_circles(10, factor=factor)


def test_make_spirals_second_arm_is_the_first_turned_half_a_circle():
    X, y = data.make_spirals(300, noise=0.0, dtype=np.float64)
    # Every point of the first arm has a point of the second arm at its mirror image.
    gaps = np.linalg.norm(X[y == 0][:, None, :] + X[y == 1][None, :, :], axis=2)
    assert gaps.min(axis=1).max() < 1e-12
    radius = np.linalg.norm(X, axis=1)
    assert radius.min() == pytest.approx(0.2) and radius.max() == pytest.approx(2.0)


# -- iterate_minibatches --------------------------------------------------------------------


def test_minibatches_cover_every_row_once_and_keep_pairs_together():
    X = np.arange(20).reshape(10, 2)
    y = np.arange(10)
    batches = list(data.iterate_minibatches(X, y, 4, generator=np.random.default_rng(0)))
    assert [len(yb) for _, yb in batches] == [4, 4, 2]
    for Xb, yb in batches:
        np.testing.assert_array_equal(Xb[:, 0], 2 * yb)
    assert sorted(np.concatenate([yb for _, yb in batches]).tolist()) == list(range(10))


def test_minibatches_without_shuffle_keep_the_order():
    X, y = np.arange(10.0)[:, None], np.arange(10)
    ys = [yb.tolist() for _, yb in data.iterate_minibatches(X, y, 3, shuffle=False)]
    assert ys == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]


def test_minibatches_shuffle_with_the_given_generator():
    X, y = np.zeros((10, 2)), np.arange(10)
    ys = [yb for _, yb in data.iterate_minibatches(X, y, 10, generator=np.random.default_rng(7))]
    np.testing.assert_array_equal(ys[0], np.random.default_rng(7).permutation(10))


def test_minibatches_shuffle_with_the_shared_generator_by_default():
    X, y = np.zeros((10, 2)), np.arange(10)
    generator.manual_seed(11)
    first = [yb.tolist() for _, yb in data.iterate_minibatches(X, y, 5)]
    generator.manual_seed(11)
    again = [yb.tolist() for _, yb in data.iterate_minibatches(X, y, 5)]
    assert first == again
    assert sum(first, []) == np.random.default_rng(11).permutation(10).tolist()


def test_minibatches_reject_unpaired_arrays():
    with pytest.raises(ValueError, match="10 rows but y has 9"):
        next(data.iterate_minibatches(np.zeros((10, 2)), np.zeros(9), 4))


# -- the reversal task (benchmark W3) -------------------------------------------------------


def test_reversal_vocabulary_constants():
    assert data.REVERSAL_VOCAB_SIZE == 16
    assert data.REVERSAL_BOS == 10


def test_reversal_batch_shapes_and_shift():
    src, tgt_in, tgt_out = data.reversal_batch(64, rng=np.random.default_rng(1234))
    for a in (src, tgt_in, tgt_out):
        assert a.shape == (64, 12) and a.dtype == np.int64
    np.testing.assert_array_equal(tgt_out, src[:, ::-1])
    assert (tgt_in[:, 0] == data.REVERSAL_BOS).all()
    np.testing.assert_array_equal(tgt_in[:, 1:], tgt_out[:, :-1])
    assert src.min() >= 0 and src.max() <= 9


def test_reversal_held_out_set_is_the_benchmarks():
    src, _, _ = data.reversal_batch(1000, rng=np.random.default_rng(999))
    expected = np.random.default_rng(999).integers(0, 10, size=(1000, 12))
    np.testing.assert_array_equal(src, expected)


def test_reversal_training_batches_are_successive_draws_of_one_generator():
    rng = np.random.default_rng(1234)
    batches = [data.reversal_batch(64, rng=rng)[0] for _ in range(3)]
    expected = np.random.default_rng(1234)
    for src in batches:
        np.testing.assert_array_equal(src, expected.integers(0, 10, size=(64, 12)))


def test_reversal_batch_draws_from_the_shared_generator_by_default():
    generator.manual_seed(5)
    src, _, _ = data.reversal_batch(8, length=5)
    assert src.shape == (8, 5)
    np.testing.assert_array_equal(src, np.random.default_rng(5).integers(0, 10, size=(8, 5)))


# -- writing dates --------------------------------------------------------------------------


def test_every_format_has_its_example_here():
    assert set(data.DATE_FORMATS) == set(EXAMPLE_RENDERINGS)
    assert len(data.DATE_FORMATS) >= 8


@pytest.mark.parametrize("fmt, expected", EXAMPLE_RENDERINGS.items())
def test_format_renders_the_example_date(fmt, expected):
    assert data.format_date(EXAMPLE, fmt) == expected


def test_normalise_writes_year_month_day():
    assert data.normalise(EXAMPLE) == "1998-03-03"
    assert data.normalise(datetime.date(2049, 12, 31)) == "2049-12-31"


@pytest.mark.parametrize(
    "date, weekday",
    [
        (datetime.date(1950, 1, 1), "sunday"),
        (datetime.date(1969, 7, 20), "sunday"),
        (datetime.date(2000, 1, 1), "saturday"),
        (datetime.date(2000, 2, 29), "tuesday"),
        (datetime.date(2049, 12, 31), "friday"),
    ],
)
def test_weekday_of_known_dates(date, weekday):
    assert data.format_date(date, "weekday_long").startswith(weekday + ", ")
    assert data.format_date(date, "weekday_short").startswith(weekday[:3] + " ")


def test_weekday_agrees_with_the_calendar_for_every_day_of_a_leap_year():
    for date in days_between(datetime.date(2024, 1, 1), datetime.date(2024, 12, 31)):
        assert data.format_date(date, "weekday_long").split(",")[0] == WEEKDAYS[date.weekday()]


def test_month_abbreviations_take_a_full_stop_unless_nothing_was_cut():
    assert data.format_date(datetime.date(1998, 5, 3), "day_month_short") == "3 may 1998"
    assert data.format_date(datetime.date(1998, 9, 3), "day_month_short") == "3 sep. 1998"
    assert data.format_date(datetime.date(1998, 9, 3), "weekday_short") == "thu 3 sep 1998"


def test_numeric_formats_put_the_day_first():
    date = datetime.date(2007, 3, 12)
    assert data.format_date(date, "slash_padded") == "12/03/2007"
    assert data.format_date(date, "dash_padded") == "12-03-2007"
    assert data.format_date(date, "slash_short") == "12/3/07"
    assert data.format_date(date, "dot_short") == "12.3.07"


def test_two_digit_years_read_back_as_1950_to_2049():
    for year in range(1950, 2050):
        yy = data.format_date(datetime.date(year, 6, 1), "dot_short").split(".")[-1]
        assert len(yy) == 2
        assert (1900 if int(yy) >= 50 else 2000) + int(yy) == year


def test_no_text_names_two_dates():
    seen: dict[str, datetime.date] = {}
    for date in days_between(datetime.date(1998, 1, 1), datetime.date(2003, 12, 31)):
        for fmt in data.DATE_FORMATS:
            assert seen.setdefault(data.format_date(date, fmt), date) == date


def test_format_date_rejects_an_unknown_format():
    with pytest.raises(ValueError, match="unknown format 'iso'"):
        data.format_date(EXAMPLE, "iso")


@pytest.mark.parametrize("date", [datetime.date(1949, 12, 31), datetime.date(2050, 1, 1)])
def test_format_date_rejects_dates_outside_1950_2049(date):
    with pytest.raises(ValueError, match=str(date)):
        data.format_date(date, "weekday_long")


# -- the character tokenizer ----------------------------------------------------------------


def test_tokenizer_special_ids_come_first():
    tok = data.date_tokenizer()
    assert (tok.PAD, tok.BOS, tok.EOS) == (0, 1, 2)
    assert tok.itos[:3] == ["<pad>", "<bos>", "<eos>"]


def test_tokenizer_vocabulary_is_sorted_and_consistent():
    tok = data.date_tokenizer()
    chars = tok.itos[3:]
    assert chars == sorted(chars) and len(set(chars)) == len(chars)
    assert tok.vocab_size == len(tok.itos)
    assert all(tok.itos[i] == ch for ch, i in tok.stoi.items())
    assert data.date_tokenizer().itos == tok.itos  # deterministic


def test_tokenizer_vocabulary_is_exactly_what_the_formats_write():
    written = set("0123456789-")
    for date in days_between(datetime.date(1998, 1, 1), datetime.date(2001, 12, 31)):
        for fmt in data.DATE_FORMATS:
            written |= set(data.format_date(date, fmt))
    assert set(data.date_tokenizer().itos[3:]) == written


@pytest.mark.parametrize("text", [*EXAMPLE_RENDERINGS.values(), "1998-03-03", ""])
def test_tokenizer_round_trip(text):
    tok = data.date_tokenizer()
    ids = tok.encode(text)
    assert ids[-1] == tok.EOS and len(ids) == len(text) + 1
    assert tok.decode(ids) == text
    assert tok.decode(tok.encode(text, add_bos=True)) == text
    assert tok.encode(text, add_eos=False) == ids[:-1]


def test_tokenizer_decode_stops_at_eos_and_skips_pad_and_bos():
    tok = data.date_tokenizer()
    a, b = tok.stoi["a"], tok.stoi["b"]
    assert tok.decode(np.array([tok.BOS, a, tok.PAD, b, tok.EOS, a, a])) == "ab"


def test_tokenizer_names_an_unknown_character():
    with pytest.raises(ValueError, match="'T' at position 0"):
        data.date_tokenizer().encode("Tuesday, 3 march 1998")


def test_tokenizer_rejects_an_id_outside_the_vocabulary():
    tok = data.date_tokenizer()
    with pytest.raises(ValueError, match=f"id {tok.vocab_size} is outside"):
        tok.decode([tok.vocab_size])


# -- padded batches -------------------------------------------------------------------------


def test_pad_sequences_fills_up_to_the_longest():
    out = data.pad_sequences([[5, 6, 7], [8], []], pad_id=9)
    assert out.dtype == np.int64
    assert out.tolist() == [[5, 6, 7], [8, 9, 9], [9, 9, 9]]
    assert data.pad_sequences([]).shape == (0, 0)


def test_batch_from_texts_of_different_lengths():
    tok = data.CharTokenizer("abc")
    a, b, c = tok.stoi["a"], tok.stoi["b"], tok.stoi["c"]
    batch = data.Seq2SeqBatch.from_texts(["ab", "c"], ["abc", "a"], tok)
    P, B, E = tok.PAD, tok.BOS, tok.EOS
    assert batch.src.tolist() == [[a, b, E], [c, E, P]]
    assert batch.tgt_in.tolist() == [[B, a, b, c], [B, a, P, P]]
    assert batch.tgt_out.tolist() == [[a, b, c, E], [a, E, P, P]]
    assert batch.src_key_padding_mask.tolist() == [[False] * 3, [False, False, True]]
    assert batch.tgt_key_padding_mask.tolist() == [[False] * 4, [False, False, True, True]]
    assert (batch.sources, batch.targets) == (["ab", "c"], ["abc", "a"])


def test_date_batch_shift_padding_and_masks(task):
    tok = task.tokenizer
    batch = task.train_batch(128, rng=np.random.default_rng(0))
    assert batch.src.dtype == batch.tgt_in.dtype == batch.tgt_out.dtype == np.int64
    assert batch.src_key_padding_mask.dtype == batch.tgt_key_padding_mask.dtype == np.bool_
    assert batch.tgt_in.shape == batch.tgt_out.shape == (128, 11)  # "YYYY-MM-DD" and EOS
    assert batch.src.shape == (128, max(len(s) for s in batch.sources) + 1)
    assert (batch.tgt_in[:, 0] == tok.BOS).all()
    np.testing.assert_array_equal(batch.tgt_in[:, 1:], batch.tgt_out[:, :-1])
    assert (batch.tgt_out[:, -1] == tok.EOS).all()
    np.testing.assert_array_equal(batch.src_key_padding_mask, batch.src == tok.PAD)
    np.testing.assert_array_equal(batch.tgt_key_padding_mask, batch.tgt_out == tok.PAD)
    lengths = (~batch.src_key_padding_mask).sum(axis=1)
    assert (batch.src[np.arange(128), lengths - 1] == tok.EOS).all()
    assert [tok.decode(row) for row in batch.src] == batch.sources
    assert [tok.decode(row) for row in batch.tgt_out] == batch.targets


# -- the date task --------------------------------------------------------------------------


def test_held_out_is_spread_evenly_over_formats(task):
    counts = {fmt: 0 for fmt in data.DATE_FORMATS}
    for example in task.held_out:
        counts[example.fmt] += 1
    assert len(task.held_out) == 1000
    assert set(counts.values()) == {1000 // len(data.DATE_FORMATS)}


def test_held_out_remainder_goes_to_the_first_formats():
    n_formats = len(data.DATE_FORMATS)
    small = data.DateTask(n_held_out=2 * n_formats + 3)
    counts = [sum(ex.fmt == fmt for ex in small.held_out) for fmt in data.DATE_FORMATS]
    assert counts == [3, 3, 3] + [2] * (n_formats - 3)


def test_held_out_dates_are_distinct_and_their_texts_match(task):
    assert len({ex.date for ex in task.held_out}) == len(task.held_out)
    for ex in task.held_out:
        assert data.FIRST_DATE <= ex.date <= data.LAST_DATE
        assert ex.source == data.format_date(ex.date, ex.fmt)
        assert ex.target == data.normalise(ex.date)


def test_training_pool_is_every_other_date_of_the_range(task):
    held_out = {ex.date.toordinal() for ex in task.held_out}
    n_days = data.LAST_DATE.toordinal() - data.FIRST_DATE.toordinal() + 1
    assert len(task.train_days) == n_days - 1000
    assert held_out.isdisjoint(task.train_days.tolist())


def test_no_held_out_date_reaches_a_training_batch(task):
    held_out = {ex.target for ex in task.held_out}
    rng = np.random.default_rng(0)
    fmts_seen = set()
    for _ in range(40):
        batch = task.train_batch(256, rng=rng)
        targets = {task.tokenizer.decode(row) for row in batch.tgt_out}
        assert targets.isdisjoint(held_out)
        fmts_seen |= {
            fmt
            for source, target in zip(batch.sources, batch.targets, strict=True)
            for fmt in data.DATE_FORMATS
            if data.format_date(datetime.date.fromisoformat(target), fmt) == source
        }
    assert fmts_seen == set(data.DATE_FORMATS)


def test_held_out_batches_walk_the_held_out_set_in_order(task):
    batches = list(task.held_out_batches(300))
    assert [len(b.sources) for b in batches] == [300, 300, 300, 100]
    assert sum((b.sources for b in batches), []) == [ex.source for ex in task.held_out]
    assert sum((b.targets for b in batches), []) == [ex.target for ex in task.held_out]


def test_date_task_is_deterministic_given_its_seed():
    first, again, other = data.DateTask(seed=1), data.DateTask(seed=1), data.DateTask(seed=2)
    assert first.held_out == again.held_out
    assert first.held_out != other.held_out
    one = first.train_batch(16, rng=np.random.default_rng(3))
    two = again.train_batch(16, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(one.src, two.src)
    assert one.sources == two.sources


def test_train_batch_draws_from_the_shared_generator_by_default(task):
    generator.manual_seed(21)
    first = task.train_batch(16).sources
    generator.manual_seed(21)
    assert task.train_batch(16).sources == first
