"""Chapter 7's bonus track, graded apart from the 100 points: 7.10 perplexity, 7.11 repetition penalty."""

from __future__ import annotations

import importlib
import math

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from checks.chapter7_gpt.common import fw
from checks.harness import assert_close, check, probe, read_only

# -- bonus track: graded apart from the 100 points ---------------------------------------------


def metrics():
    """`framework.bonus.chapter7_gpt`, the bonus file (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.bonus.chapter7_gpt")


# -- 7.10 (bonus) perplexity -----------------------------------------------------------------------


@st.composite
def predictions(draw):
    """logits (N, T, V) or (M, V), targets of the leading shape, some of them ignored (-100)."""
    leading = draw(st.sampled_from([(1,), (3,), (2, 3), (1, 4)]))
    v = draw(st.integers(1, 6))
    logits = draw(arrays(np.float64, leading + (v,), elements=st.floats(-1.0, 1.0)))
    logits = logits * draw(st.floats(0.1, 5.0))
    targets = draw(arrays(np.int64, leading, elements=st.integers(0, v - 1)))
    ignored = draw(arrays(np.bool_, leading))
    ignored.flat[0] = False  # one position at least counts
    return logits, np.where(ignored, -100, targets)


def perplexity_formula(logits, targets):
    keep = targets != -100
    rows, ids = logits[keep], targets[keep]
    log_probs = rows - rows.max(-1, keepdims=True)
    log_probs = log_probs - np.log(np.exp(log_probs).sum(-1, keepdims=True))
    return math.exp(-np.mean(log_probs[np.arange(len(ids)), ids]))


@probe("7.10")
def probe_perplexity(fw):
    return {"perplexity of even bets over 4 ids": lambda: metrics().perplexity(
        np.zeros((2, 4)), np.array([1, 3]))}


@check("7.10")
@given(case=predictions())
@example(case=(np.zeros((2, 4)), np.array([1, 3])))
def test_perplexity_is_e_to_the_mean_cross_entropy(case):
    """exp(mean −log softmax[target]) over the positions not ignored (targets -100)."""
    logits, targets = case
    got = metrics().perplexity(read_only(logits), read_only(targets))
    assert_close(got, perplexity_formula(logits, targets),
                 f"perplexity of logits {logits.shape}, targets {targets.tolist()}", rtol=1e-9)


@check("7.10")
@given(case=predictions(), offset=st.sampled_from([1e4, -1e4, 1e3]))
def test_perplexity_is_the_same_when_every_logit_of_a_row_moves_by_1e4(case, offset):
    """softmax ignores a constant added to a row: logits + 1e4 give the same perplexity, no nan."""
    logits, targets = case
    got = metrics().perplexity(logits + offset, targets)
    assert math.isfinite(got), (
        f"perplexity of logits + {offset:g} is {got}: shift each row by its max before exp")
    assert_close(got, perplexity_formula(logits, targets),
                 f"perplexity of logits {logits.shape} + {offset:g}", rtol=1e-6)


# -- 7.11 (bonus) repetition penalty ---------------------------------------------------------------


def penalty_formula(logits, previous, penalty):
    out = logits.copy()
    for n in range(out.shape[0]):
        for i in set(previous[n].tolist()):
            out[n, i] = out[n, i] / penalty if out[n, i] > 0 else out[n, i] * penalty
    return out


@st.composite
def penalty_cases(draw):
    n, v, t = draw(st.integers(1, 3)), draw(st.integers(1, 8)), draw(st.integers(1, 6))
    logits = draw(arrays(np.float64, (n, v), elements=st.floats(-3.0, 3.0)))
    previous = draw(arrays(np.int64, (n, t), elements=st.integers(0, v - 1)))
    return logits, previous, draw(st.sampled_from([1.2, 2.0]) | st.floats(0.5, 3.0))


@probe("7.11")
def probe_repetition_penalty(fw):
    return {"penalty 2 on ids 0 and 2 of [2, -1, -2, 3]": lambda: metrics().repetition_penalty(
        np.array([[2.0, -1.0, -2.0, 3.0]]), np.array([[0, 2, 0]]), 2.0)}


@check("7.11")
@given(case=penalty_cases())
@example(case=(np.array([[2.0, -1.0, -2.0, 3.0]]), np.array([[0, 2, 0]]), 2.0))
def test_repetition_penalty_divides_positive_and_multiplies_negative_logits_once(case):
    """Each id seen in a row: a positive logit ÷ penalty, another × penalty, once; others unchanged."""
    logits, previous, penalty = case
    got = metrics().repetition_penalty(read_only(logits), read_only(previous), penalty)
    assert_close(got, penalty_formula(logits, previous, penalty),
                 f"repetition_penalty(logits {logits.tolist()}, previous {previous.tolist()}, "
                 f"penalty={penalty:.4g})", rtol=1e-12, atol=1e-12)


@check("7.11")
@given(case=penalty_cases(), dtype=st.sampled_from([np.float32, np.float64]))
def test_repetition_penalty_keeps_the_dtype_and_makes_seen_ids_less_likely(case, dtype):
    """With penalty > 1 the probability of every id seen falls (or stays) and the dtype is kept."""
    logits, previous, penalty = case
    penalty = 1.0 + abs(penalty)
    got = metrics().repetition_penalty(logits.astype(dtype), previous, penalty)
    assert got.dtype == dtype, f"repetition_penalty of {np.dtype(dtype)} logits gave {got.dtype}"
    seen = np.zeros(logits.shape, dtype=bool)
    np.put_along_axis(seen, previous, True, axis=1)
    assert np.all(got[seen] <= logits.astype(dtype)[seen]), (
        f"repetition_penalty(penalty={penalty:.4g}) raised the logit of an id already seen: "
        f"{logits.tolist()} → {got.tolist()}")
