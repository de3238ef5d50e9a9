"""Provided: chapter 5's date normalisation task, exported by `framework.data`.

`format_date` writes a date in one of `DATE_FORMATS` (`tuesday, 3 march 1998`, `3.3.98`,
...), `normalise` writes it as `1998-03-03`; `CharTokenizer` turns text into ids,
`pad_sequences` and `Seq2SeqBatch` make padded batches, and `DateTask` serves them with a
held-out set whose dates never appear in training.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .generator import default_generator

__all__ = [
    "CharTokenizer", "DATE_CHARACTERS", "DATE_FORMATS", "date_tokenizer", "DateExample",
    "DateTask", "FIRST_DATE", "format_date", "LAST_DATE", "MONTH_ABBREVIATIONS", "MONTH_NAMES",
    "normalise", "pad_sequences", "Seq2SeqBatch", "WEEKDAY_ABBREVIATIONS", "WEEKDAY_NAMES",
]


# -- dates written in many ways ------------------------------------------------------------

# English names are written out here, never taken from the locale or strftime, so the
# task is the same on every machine.
MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# English abbreviates both to their first three letters (sep, not sept).
MONTH_ABBREVIATIONS = tuple(name[:3] for name in MONTH_NAMES)
WEEKDAY_ABBREVIATIONS = tuple(name[:3] for name in WEEKDAY_NAMES)

FIRST_DATE = datetime.date(1950, 1, 1)
LAST_DATE = datetime.date(2049, 12, 31)  # two-digit years 50-99 read as 19xx, 00-49 as 20xx


def _month(date: datetime.date) -> str:
    """`march`."""
    return MONTH_NAMES[date.month - 1]


def _month_short(date: datetime.date) -> str:
    """`mar`."""
    return MONTH_ABBREVIATIONS[date.month - 1]


def _month_abbreviated(date: datetime.date) -> str:
    """`mar.`, with the full stop that marks an abbreviation; `may` is not one."""
    short = _month_short(date)
    return short if short == _month(date) else short + "."


def _weekday(date: datetime.date) -> str:
    """`tuesday`."""
    return WEEKDAY_NAMES[date.weekday()]  # weekday(): Monday is 0


def _weekday_short(date: datetime.date) -> str:
    """`tue`."""
    return WEEKDAY_ABBREVIATIONS[date.weekday()]


def _two_digit_year(date: datetime.date) -> str:
    """`98` for 1998, `03` for 2003."""
    return f"{date.year % 100:02d}"


# Every numeric format puts the day first, so no source string is ambiguous.
_FORMATTERS: dict[str, Callable[[datetime.date], str]] = {
    "weekday_long": lambda d: f"{_weekday(d)}, {d.day} {_month(d)} {d.year}",
    "weekday_short": lambda d: f"{_weekday_short(d)} {d.day} {_month_short(d)} {d.year}",
    "day_month_long": lambda d: f"{d.day} {_month(d)} {d.year}",
    "day_month_short": lambda d: f"{d.day} {_month_abbreviated(d)} {d.year}",
    "month_first_long": lambda d: f"{_month(d)} {d.day}, {d.year}",
    "year_first_long": lambda d: f"{d.year} {_month(d)} {d.day}",
    "slash_padded": lambda d: f"{d.day:02d}/{d.month:02d}/{d.year}",
    "dash_padded": lambda d: f"{d.day:02d}-{d.month:02d}-{d.year}",
    "slash_short": lambda d: f"{d.day}/{d.month}/{_two_digit_year(d)}",
    "dot_short": lambda d: f"{d.day}.{d.month}.{_two_digit_year(d)}",
}
DATE_FORMATS: tuple[str, ...] = tuple(_FORMATTERS)
_SEPARATORS = " ,-./"  # every character the formats put between the parts


def format_date(date: datetime.date, fmt: str) -> str:
    """`date` written in the format named `fmt` (one of `DATE_FORMATS`), lower case.

    For 1998-03-03: `tuesday, 3 march 1998`, `tue 3 mar 1998`, `3 march 1998`,
    `3 mar. 1998`, `march 3, 1998`, `1998 march 3`, `03/03/1998`, `03-03-1998`,
    `3/3/98`, `3.3.98`. Dates must lie in 1950-2049, where two-digit years are unambiguous.
    """
    if fmt not in _FORMATTERS:
        raise ValueError(f"format_date: unknown format {fmt!r}; choose one of {DATE_FORMATS}")
    if not FIRST_DATE <= date <= LAST_DATE:
        raise ValueError(
            f"format_date: {date} lies outside {FIRST_DATE} to {LAST_DATE}, "
            "the range where a two-digit year names one year"
        )
    return _FORMATTERS[fmt](date)


def normalise(date: datetime.date) -> str:
    """`date` as `YYYY-MM-DD`, the target every format is translated into."""
    return f"{date.year:04d}-{date.month:02d}-{date.day:02d}"


# -- characters to ids ---------------------------------------------------------------------


class CharTokenizer:
    """Maps text to ids one character at a time, and back.

    Ids 0, 1 and 2 are the special tokens PAD (filler after a short sequence), BOS
    (start of a sequence) and EOS (its end); the characters follow in sorted order,
    so the same characters always get the same ids.
    """

    PAD = 0
    BOS = 1
    EOS = 2
    SPECIALS = ("<pad>", "<bos>", "<eos>")

    def __init__(self, characters: Iterable[str]):
        chars = sorted(set(characters))
        if any(len(ch) != 1 for ch in chars):
            raise ValueError("CharTokenizer: every vocabulary entry must be a single character")
        self.itos: list[str] = [*self.SPECIALS, *chars]
        self.stoi: dict[str, int] = {ch: i for i, ch in enumerate(chars, start=len(self.SPECIALS))}

    @property
    def vocab_size(self) -> int:
        """The number of ids, special tokens included (the embedding's first dimension)."""
        return len(self.itos)

    def encode(self, text: str, add_bos: bool = False, add_eos: bool = True) -> list[int]:
        """The ids of `text`'s characters, after BOS and before EOS when asked for."""
        ids = [self.BOS] if add_bos else []
        for position, ch in enumerate(text):
            if ch not in self.stoi:
                raise ValueError(
                    f"CharTokenizer.encode: character {ch!r} at position {position} of {text!r} "
                    f"is not in the vocabulary {''.join(self.itos[len(self.SPECIALS) :])!r}"
                )
            ids.append(self.stoi[ch])
        if add_eos:
            ids.append(self.EOS)
        return ids

    def decode(self, ids: Iterable[int]) -> str:
        """The text that `ids` spell: stops at the first EOS, skips PAD and BOS."""
        chars = []
        for i in ids:
            i = int(i)  # accept NumPy integers, e.g. a row of a batch
            if i == self.EOS:
                break
            if not 0 <= i < self.vocab_size:
                raise ValueError(
                    f"CharTokenizer.decode: id {i} is outside the vocabulary, "
                    f"ids 0..{self.vocab_size - 1}"
                )
            if i not in (self.PAD, self.BOS):
                chars.append(self.itos[i])
        return "".join(chars)


# Every character a source or target can hold: the abbreviations are prefixes of the
# names, so the names' letters cover them; the targets need only digits and "-".
DATE_CHARACTERS = "".join(
    sorted(set("".join(MONTH_NAMES + WEEKDAY_NAMES) + "0123456789" + _SEPARATORS))
)


def date_tokenizer() -> CharTokenizer:
    """The one tokenizer of the date task, for sources and targets alike."""
    return CharTokenizer(DATE_CHARACTERS)


# -- padded batches ------------------------------------------------------------------------


def pad_sequences(seqs: Sequence[Sequence[int]], pad_id: int = 0) -> np.ndarray:
    """Sequences of ids as one int64 array (N, longest length), filled up with `pad_id`."""
    out = np.full((len(seqs), max((len(s) for s in seqs), default=0)), pad_id, dtype=np.int64)
    for row, seq in enumerate(seqs):
        out[row, : len(seq)] = seq
    return out


@dataclass(frozen=True)
class Seq2SeqBatch:
    """A padded batch for an encoder-decoder, with the texts it was made from.

    - `src` (B, S): source ids then EOS, PAD after.
    - `tgt_in` (B, T): BOS then target ids, the decoder's input (teacher forcing).
    - `tgt_out` (B, T): target ids then EOS, what the decoder must predict; shifted by
      one, so `tgt_in[:, 1:] == tgt_out[:, :-1]` wherever a row has no padding.
    - `src_key_padding_mask` (B, S), `tgt_key_padding_mask` (B, T): True at padding,
      as PyTorch's `key_padding_mask` arguments expect.
    """

    src: np.ndarray
    tgt_in: np.ndarray
    tgt_out: np.ndarray
    src_key_padding_mask: np.ndarray
    tgt_key_padding_mask: np.ndarray
    sources: list[str]
    targets: list[str]

    @classmethod
    def from_texts(
        cls, sources: Sequence[str], targets: Sequence[str], tokenizer: CharTokenizer
    ) -> Seq2SeqBatch:
        """Encode and pad source and target texts (pairs in the same order)."""
        target_ids = [tokenizer.encode(t, add_eos=False) for t in targets]
        src = pad_sequences([tokenizer.encode(s) for s in sources], tokenizer.PAD)
        tgt_in = pad_sequences([[tokenizer.BOS, *ids] for ids in target_ids], tokenizer.PAD)
        tgt_out = pad_sequences([[*ids, tokenizer.EOS] for ids in target_ids], tokenizer.PAD)
        return cls(
            src=src,
            tgt_in=tgt_in,
            tgt_out=tgt_out,
            src_key_padding_mask=src == tokenizer.PAD,
            tgt_key_padding_mask=tgt_out == tokenizer.PAD,
            sources=list(sources),
            targets=list(targets),
        )


# -- the date normalisation task (chapter 5) -----------------------------------------------


class DateExample(NamedTuple):
    """One pair of the task: a date, the format it is written in, and both texts."""

    date: datetime.date
    fmt: str
    source: str
    target: str


def _example(day_number: int, fmt: str) -> DateExample:
    """The example for a proleptic Gregorian day number (`date.toordinal()`)."""
    date = datetime.date.fromordinal(int(day_number))
    return DateExample(date, fmt, format_date(date, fmt), normalise(date))


class DateTask:
    """Translate a date written in any of `DATE_FORMATS` into `YYYY-MM-DD`.

    The held-out set is `n_held_out` distinct dates drawn with `seed`, their formats
    taken in turn from `DATE_FORMATS` (so each format gets `n_held_out // len(DATE_FORMATS)`
    of them, the first formats one more when it does not divide). Those dates never
    appear in training, in any format: a model must generalise to new dates, not
    merely to new ways of writing dates it has seen.

    `held_out` lists the held-out `DateExample`s; `train_days` holds the training dates
    as sorted day numbers (`date.toordinal()`); `tokenizer` is `date_tokenizer()`.
    """

    def __init__(self, seed: int = 0, n_held_out: int = 1000):
        first, last = FIRST_DATE.toordinal(), LAST_DATE.toordinal()
        all_days = np.arange(first, last + 1)
        if not 0 <= n_held_out < len(all_days):
            raise ValueError(
                f"DateTask: n_held_out={n_held_out} must lie in 0..{len(all_days) - 1}, "
                "so some dates are left for training"
            )
        rng = np.random.default_rng(seed)
        held_out_days = rng.choice(all_days, size=n_held_out, replace=False)
        self.tokenizer = date_tokenizer()
        self.held_out: list[DateExample] = [
            _example(day, DATE_FORMATS[i % len(DATE_FORMATS)])
            for i, day in enumerate(held_out_days)
        ]
        # The pool of training days, computed once: a draw is one index into it, never a
        # loop that rejects held-out dates until it finds another.
        self.train_days = np.setdiff1d(all_days, held_out_days)

    def train_batch(self, batch_size: int, rng: np.random.Generator | None = None) -> Seq2SeqBatch:
        """`batch_size` random training pairs, drawn from `rng` (the shared generator when None).

        Each pair's date is uniform over `train_days`, its format uniform over `DATE_FORMATS`.
        """
        rng = default_generator() if rng is None else rng
        days = self.train_days[rng.integers(0, len(self.train_days), size=batch_size)]
        fmts = rng.integers(0, len(DATE_FORMATS), size=batch_size)
        pairs = zip(days, fmts, strict=True)
        return self._batch([_example(day, DATE_FORMATS[f]) for day, f in pairs])

    def held_out_batches(self, batch_size: int) -> Iterator[Seq2SeqBatch]:
        """The held-out set in order, `batch_size` pairs at a time (the last may be smaller)."""
        for start in range(0, len(self.held_out), batch_size):
            yield self._batch(self.held_out[start : start + batch_size])

    def _batch(self, examples: Sequence[DateExample]) -> Seq2SeqBatch:
        """Encode and pad the examples' texts."""
        sources = [ex.source for ex in examples]
        targets = [ex.target for ex in examples]
        return Seq2SeqBatch.from_texts(sources, targets, self.tokenizer)
