"""Chapter 5, exercise 5.4: multi-head attention."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st

from checks.chapter5_transformer.common import (
    COMPOSITE,
    fw,
    nn,
    np_multihead,
    padding_mask,
    probe_first,
    seeds,
    values,
)
from checks.harness import assert_close, check, check_gradients, probe

# -- 5.4 multi-head attention -------------------------------------------------------------------------


@probe("5.4")
def probe_multihead(fw):
    x = np.linspace(-1, 1, 8).reshape(1, 2, 4)
    probe_first(nn.MultiheadAttention, "forward", fw.Tensor(x), fw.Tensor(x), fw.Tensor(x),
                embed_dim=4, num_heads=2, head_dim=2, batch_first=True)
    fw.manual_seed(0)
    out, _ = nn.MultiheadAttention(4, 2, batch_first=True)(fw.Tensor(x), fw.Tensor(x), fw.Tensor(x))
    return {"MultiheadAttention(4, 2) output": out.data}


class MultiheadCase(NamedTuple):
    """A drawn attention case; a failing one prints with its fields named."""

    n: int
    length: int
    source: int
    heads: int
    head_dim: int
    cross: bool
    seed: int


@st.composite
def multihead_cases(draw, cross: bool | None = None):
    """Sizes (N, L, S, H, D), whether key/value differ from query, a seed."""
    n, heads, head_dim = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    length = draw(st.integers(1, 4))
    cross = draw(st.booleans()) if cross is None else cross
    source = draw(st.integers(1, 4)) if cross else length
    return MultiheadCase(n, length, source, heads, head_dim, cross, draw(seeds))


def multihead_setup(case, dtype=np.float64):
    """A seeded float64 MultiheadAttention and query, key, value arrays for a case."""
    n, length, source, heads, head_dim, cross, seed = case
    embed = heads * head_dim
    fw.manual_seed(seed)
    m = nn.MultiheadAttention(embed, heads, batch_first=True).to(dtype)
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, length, embed))
    if cross:
        k, v = rng.standard_normal((n, source, embed)), rng.standard_normal((n, source, embed))
    else:
        k = v = q
    return m, q, k, v, rng


def mha_what(case, *options: str) -> str:
    n, length, source, heads, head_dim, cross, _ = case
    kind = "cross" if cross else "self"
    return (f"MultiheadAttention({heads * head_dim}, {heads}) {kind}-attention, query "
            f"({n}, {length}, {heads * head_dim}), key/value length {source}"
            + "".join(f", {option}" for option in options))


def tensors(*arrays):
    return [fw.Tensor(a) for a in arrays]


@check("5.4")
@given(case=multihead_cases())
@example(case=MultiheadCase(2, 3, 3, 2, 2, False, 0))
@example(case=MultiheadCase(1, 2, 4, 3, 1, True, 1))
def test_multihead_matches_numpy_with_the_modules_weights(case):
    """Project, split E into H heads of E/H (head h = features h·D…), attend, merge, project."""
    m, q, k, v, _ = multihead_setup(case)
    out, weights = m(*tensors(q, k, v), need_weights=False)
    assert weights is None, "need_weights=False returns (output, None)"
    assert_close(values(out), np_multihead(m, case[3], q, k, v)[0], mha_what(case))


@check("5.4")
@given(case=multihead_cases())
@example(case=MultiheadCase(2, 4, 4, 2, 2, False, 3))
def test_key_padding_mask_blocks_keys_not_queries(case):
    """key_padding_mask (N, S), True = padding: no query looks at those keys; every query answers."""
    m, q, k, v, rng = multihead_setup(case)
    mask = padding_mask(rng, case[0], case[2])
    out, _ = m(*tensors(q, k, v), key_padding_mask=mask)
    assert_close(values(out), np_multihead(m, case[3], q, k, v, key_padding_mask=mask)[0],
                 mha_what(case, f"key_padding_mask {mask.tolist()}"))


@check("5.4")
@given(case=multihead_cases(cross=True))
def test_changing_padded_keys_and_values_changes_nothing(case):
    """Keys and values under key_padding_mask can be anything: the output stays the same."""
    m, q, k, v, rng = multihead_setup(case)
    mask = padding_mask(rng, case[0], case[2])
    before = values(m(*tensors(q, k, v), key_padding_mask=mask))
    k2, v2 = k.copy(), v.copy()
    k2[mask] = 10 * rng.standard_normal(k2[mask].shape)
    v2[mask] = 10 * rng.standard_normal(v2[mask].shape)
    after = values(m(*tensors(q, k2, v2), key_padding_mask=mask))
    assert_close(after, before, mha_what(case) + f": padded keys and values changed under mask "
                 f"{mask.tolist()}")


@check("5.4")
@given(case=multihead_cases(), per_head=st.booleans(), padded=st.booleans())
@example(case=MultiheadCase(2, 3, 3, 2, 2, False, 0), per_head=False, padded=False)
@example(case=MultiheadCase(2, 2, 4, 2, 1, True, 1), per_head=True, padded=True)
def test_boolean_attn_mask_true_means_blocked(case, per_head, padded):
    """attn_mask (L, S) or (N·H, L, S), True = BLOCKED (the opposite of sdpa's), ± padding."""
    m, q, k, v, rng = multihead_setup(case)
    n, length, source, heads = case[:4]
    shape = (n * heads, length, source) if per_head else (length, source)
    attn_mask = rng.random(shape) < 0.4
    padding = padding_mask(rng, n, source) if padded else None
    out, _ = m(*tensors(q, k, v), key_padding_mask=padding, attn_mask=attn_mask)
    assert np.all(np.isfinite(values(out))), (
        f"{mha_what(case)}: not finite with a fully blocked row (it must give zeros): {out}"
    )
    expected = np_multihead(m, heads, q, k, v, key_padding_mask=padding, attn_mask=attn_mask)[0]
    assert_close(values(out), expected, mha_what(case, f"attn_mask of shape {shape} (True = "
                                          f"blocked) {attn_mask.astype(int).tolist()}",
                                          f"key_padding_mask {padded}"))


@check("5.4")
@given(case=multihead_cases(cross=False))
def test_is_causal_in_multihead_attention(case):
    """is_causal=True: position i attends to positions j <= i in every head."""
    m, q, k, v, _ = multihead_setup(case)
    out, _ = m(*tensors(q, k, v), is_causal=True)
    assert_close(values(out), np_multihead(m, case[3], q, k, v, is_causal=True)[0],
                 mha_what(case, "is_causal=True"))


@check("5.4")
@given(case=multihead_cases(), average=st.booleans())
def test_attention_weights_per_head_or_averaged(case, average):
    """need_weights: (N, H, L, S) per head, or (N, L, S) averaged over heads; rows sum to 1."""
    m, q, k, v, rng = multihead_setup(case)
    mask = padding_mask(rng, case[0], case[2])
    out, weights = m(*tensors(q, k, v), key_padding_mask=mask, need_weights=True,
                     average_attn_weights=average)
    assert weights is not None, "need_weights=True must return the attention weights"
    expected_out, expected = np_multihead(m, case[3], q, k, v, key_padding_mask=mask)
    expected = expected.mean(axis=1) if average else expected
    got = values(weights)
    assert_close(got.sum(axis=-1), np.ones(got.shape[:-1]), mha_what(case) +
                 ": the attention weights' rows sum to 1")
    assert_close(got, expected, mha_what(case, f"average_attn_weights={average}") +
                 ": the attention weights")
    assert_close(values(out), expected_out, mha_what(case) + " with need_weights=True")


@check("5.4")
@given(case=multihead_cases(), masked=st.booleans())
@example(case=MultiheadCase(2, 3, 3, 2, 2, False, 0), masked=True)
def test_multihead_gradient(case, masked):
    """Gradients of query, key, value and every weight, along a random direction (float64)."""
    m, q, k, v, rng = multihead_setup(case)
    mask = padding_mask(rng, case[0], case[2]) if masked else None
    if case[5]:
        leaves = [fw.Tensor(a, requires_grad=True) for a in (q, k, v)]
        inputs = leaves
    else:
        leaves = [fw.Tensor(q, requires_grad=True)]
        inputs = leaves * 3
    check_gradients(lambda: m(*inputs, key_padding_mask=mask)[0],
                    leaves + list(m.parameters()), case[6] % 2**32,
                    mha_what(case, f"key_padding_mask {mask is not None}"), directional=True, **COMPOSITE)


@check("5.4")
def test_multihead_shape_errors_name_the_culprit():
    """Wrong shapes fail with an error naming query, key, value or key_padding_mask."""
    fw.manual_seed(0)
    m = nn.MultiheadAttention(4, 2, batch_first=True)
    good = np.zeros((2, 3, 4), dtype=np.float32)
    out, _ = m(*tensors(good, good, good))
    assert out.shape == (2, 3, 4), f"query, key, value (2, 3, 4) gave an output {out.shape}"
    bad = {
        "query": (np.zeros((2, 3, 5), np.float32), good, good, None),
        "key": (good, np.zeros((2, 3, 6), np.float32), good, None),
        "value": (good, good, np.zeros((2, 2, 4), np.float32), None),
        "key_padding_mask": (good, good, good, np.zeros((2, 4), dtype=bool)),
    }
    for culprit, (q, k, v, mask) in bad.items():
        shape = {"query": q.shape, "key": k.shape, "value": v.shape}.get(
            culprit, None if mask is None else mask.shape)
        try:
            m(*tensors(q, k, v), key_padding_mask=mask)
        except (ValueError, RuntimeError, IndexError) as error:
            message = str(error)
            assert culprit in message and str(shape) in message, (
                f"a {culprit} of the wrong shape {shape}: the error should name {culprit!r} and "
                f"its shape; it says: {message}"
            )
        else:
            raise AssertionError(
                f"MultiheadAttention(4, 2) accepted query {q.shape}, key {k.shape}, value "
                f"{v.shape}, key_padding_mask {None if mask is None else mask.shape}"
            )
