"""Chapter 5, exercise 5.3: scaled dot-product attention."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays, mutually_broadcastable_shapes

from checks.chapter5_transformer.common import F, array_of, fw, np_attention, reals, seeds
from checks.harness import assert_close, backprop, check, gradient_check, probe

# -- 5.3 scaled dot-product attention -------------------------------------------------------------


@probe("5.3")
def probe_attention(fw):
    q = fw.Tensor([[1.0, 0.0], [0.0, 1.0]])
    k = fw.Tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    v = fw.Tensor([[1.0], [2.0], [3.0]])
    return {"attention": lambda: F.scaled_dot_product_attention(q, k, v).data,
            "causal": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True).data}


@st.composite
def attention_inputs(draw, mask: str = "none", elements=reals):
    """query (…, L, E), key (…, S, E), value (…, S, Ev) with broadcasting batch axes, a mask.

    mask: "none", "bool" (True = may attend), "float" (added) or "any" (one of these).
    """
    batches = draw(mutually_broadcastable_shapes(num_shapes=3, max_dims=2, max_side=2))
    length, source = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    width, width_v = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    qb, kb, vb = batches.input_shapes
    q = draw(array_of(qb + (length, width), elements))
    k = draw(array_of(kb + (source, width), elements))
    v = draw(array_of(vb + (source, width_v)))
    kind = draw(st.sampled_from(["none", "bool", "float"])) if mask == "any" else mask
    scores = np.broadcast_shapes(qb, kb) + (length, source)
    mask_shape = draw(st.sampled_from([(length, source), (1, source), (length, 1), scores]))
    attn_mask = None
    if kind == "bool":
        attn_mask = draw(arrays(np.bool_, mask_shape))
    elif kind == "float":
        attn_mask = draw(array_of(mask_shape, st.floats(-3.0, 3.0)))
    return q, k, v, attn_mask


def attention_what(q, k, v, mask, is_causal=False) -> str:
    described = "no mask" if mask is None else f"a {mask.dtype} mask of shape {mask.shape}"
    return (f"scaled_dot_product_attention(query {q.shape}, key {k.shape}, value {v.shape}, "
            f"{described}, is_causal={is_causal})")


PINNED_QKV = (np.array([[0.5, -1.0], [1.5, 0.25], [-0.5, 2.0]]),
              np.array([[1.0, 0.5], [-1.0, 2.0], [0.25, -0.75], [2.0, 1.0]]),
              np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [3.0, -2.0, 0.5], [0.5, 0.5, 0.5]]))


@check("5.3")
@given(case=attention_inputs())
@example(case=PINNED_QKV + (None,))
def test_attention_matches_numpy_with_the_1_over_sqrt_e_scale(case):
    """softmax(Q Kᵀ / √E) V along the keys, batch axes broadcast; float32 kept."""
    q, k, v, _ = case
    out = F.scaled_dot_product_attention(fw.Tensor(q), fw.Tensor(k), fw.Tensor(v))
    assert_close(out.data, np_attention(q, k, v)[0], attention_what(q, k, v, None))
    out32 = F.scaled_dot_product_attention(*(fw.Tensor(a.astype(np.float32)) for a in (q, k, v)))
    assert out32.dtype == np.float32, f"float32 query, key, value gave {out32.dtype}"


@check("5.3")
@given(case=attention_inputs("bool"))
@example(case=PINNED_QKV + (np.array([[True, False, True, False], [False, False, False, False],
                                      [True, True, True, False]]),))
def test_boolean_mask_true_means_may_attend(case):
    """A boolean mask keeps the keys where it is True; a query with none left gets zeros."""
    q, k, v, mask = case
    out = F.scaled_dot_product_attention(fw.Tensor(q), fw.Tensor(k), fw.Tensor(v), attn_mask=mask)
    assert np.all(np.isfinite(out.data)), (
        f"{attention_what(q, k, v, mask)} is not finite (a fully masked row must give zeros, "
        f"never NaN): {out.data}"
    )
    assert_close(out.data, np_attention(q, k, v, mask)[0], attention_what(q, k, v, mask))


@check("5.3")
@given(case=attention_inputs("float"))
def test_float_mask_is_added_to_the_scores(case):
    """A float mask M gives softmax(Q Kᵀ / √E + M) V."""
    q, k, v, mask = case
    out = F.scaled_dot_product_attention(fw.Tensor(q), fw.Tensor(k), fw.Tensor(v), attn_mask=mask)
    assert_close(out.data, np_attention(q, k, v, mask)[0], attention_what(q, k, v, mask))


@check("5.3")
@given(case=attention_inputs("any"))
@example(case=PINNED_QKV + (None,))
def test_is_causal_lets_query_i_see_keys_up_to_i(case):
    """is_causal: query i attends to keys j <= i only (L ≠ S too), with or without a mask."""
    q, k, v, mask = case
    out = F.scaled_dot_product_attention(fw.Tensor(q), fw.Tensor(k), fw.Tensor(v), attn_mask=mask,
                                         is_causal=True)
    assert np.all(np.isfinite(out.data)), f"{attention_what(q, k, v, mask, True)}: {out.data}"
    assert_close(out.data, np_attention(q, k, v, mask, True)[0],
                 attention_what(q, k, v, mask, True))


@check("5.3")
@given(case=attention_inputs("bool", st.floats(-4.0, 4.0)), is_causal=st.booleans())
def test_attention_rows_sum_to_one_and_fully_masked_rows_are_zero(case, is_causal):
    """With V = I the output is the weights: each row sums to 1, or is all 0 if fully masked."""
    q, k, _, mask = case
    source = k.shape[-2]
    out = F.scaled_dot_product_attention(fw.Tensor(q), fw.Tensor(k), fw.Tensor(np.eye(source)),
                                         attn_mask=mask, is_causal=is_causal).data
    expected = np_attention(q, k, np.eye(source), mask, is_causal)[1]
    what = attention_what(q, k, np.eye(source), mask, is_causal) + " (value = identity)"
    assert np.all(np.isfinite(out)), f"{what}: {out}"
    sums, expected_sums = out.sum(axis=-1), expected.sum(axis=-1)
    assert_close(sums, expected_sums, f"{what}: the weights' row sums (1, or 0 for a query that "
                 "may see no key)")
    assert np.all(out >= -1e-12), f"{what}: negative attention weights {out}"
    assert_close(out, expected, f"{what}: the attention weights")


@check("5.3")
@given(case=attention_inputs(), seed=seeds)
@example(case=PINNED_QKV + (None,), seed=0)
def test_attention_gradient(case, seed):
    """∂Q, ∂K, ∂V of softmax(Q Kᵀ/√E) V against central differences (full Jacobian)."""
    q, k, v, _ = case
    gradient_check(F.scaled_dot_product_attention, [q, k, v], seed, attention_what(q, k, v, None))


@check("5.3")
@given(case=attention_inputs("any"), is_causal=st.booleans(), seed=seeds)
@example(case=PINNED_QKV + (np.array([[True, False, True, False], [False, False, False, False],
                                      [True, True, True, False]]),), is_causal=False, seed=0)
def test_attention_gradient_with_masks(case, is_causal, seed):
    """Masked keys get no gradient, a fully masked query row gets zeros, a float mask adds."""
    q, k, v, mask = case
    gradient_check(
        lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=mask,
                                                       is_causal=is_causal),
        [q, k, v], seed, attention_what(q, k, v, mask, is_causal))


@check("5.3")
@given(seed=seeds, dtype=st.sampled_from([np.float32, np.float64]))
def test_attention_is_stable_at_scores_of_1e4(seed, dtype):
    """Scores of ±1e4 give finite outputs and gradients, the softmax of the scaled scores."""
    rng = np.random.default_rng(seed)
    q = np.array([[100.0, 0.0], [0.0, -100.0], [100.0, 100.0]])
    k = np.array([[100.0, 1.0], [-100.0, 0.0], [0.0, 100.0]])
    v = rng.standard_normal((3, 2))
    leaves = [fw.Tensor(a.astype(dtype), requires_grad=True) for a in (q, k, v)]
    out = F.scaled_dot_product_attention(*leaves)
    assert np.all(np.isfinite(out.data)), f"attention at scores ±1e4 is not finite: {out.data}"
    assert_close(out.data, np_attention(q, k, v)[0], f"attention at scores ±1e4 ({np.dtype(dtype)})",
                 rtol=1e-4, atol=1e-4)
    grads = backprop(out, rng.standard_normal(out.data.shape).astype(dtype))
    for name, leaf in zip("QKV", leaves):
        grad = grads.get(id(leaf))
        assert grad is not None and np.all(np.isfinite(grad)), (
            f"∂{name} at scores ±1e4 is not finite: {grad}"
        )
