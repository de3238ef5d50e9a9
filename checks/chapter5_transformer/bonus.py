"""Chapter 5's bonus track, graded apart from the 100 points: 5.9 a beam search step, 5.10 RMSNorm."""

from __future__ import annotations

import importlib

import numpy as np
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from checks.chapter5_transformer.common import array_of, fw, seeds
from checks.harness import assert_close, check, gradient_check, probe, read_only

# -- bonus track: graded apart from the 100 points ---------------------------------------------


def bonus_module():
    """`framework.bonus.chapter5_transformer`, the chapter's bonus file (imported on first use)."""
    return importlib.import_module(f"{fw.__name__}.bonus.chapter5_transformer")


# -- 5.9 (bonus) one step of beam search ----------------------------------------------------------


def np_beam_step(scores, log_probs, beam_size):
    """Every candidate, sorted by score (best first), then by beam, then by token."""
    candidates = sorted((-(scores[b] + log_probs[b, v]), b, v)
                         for b in range(log_probs.shape[0]) for v in range(log_probs.shape[1]))
    kept = candidates[:beam_size]
    return (np.array([-c[0] for c in kept]), np.array([c[1] for c in kept]),
            np.array([c[2] for c in kept]))


@st.composite
def beams(draw):
    """scores (B,) and log-probabilities (B, V); whole numbers about half the time, so ties occur."""
    b, v = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    values = st.integers(-4, 0).map(float) if draw(st.booleans()) else st.floats(-6.0, 0.0)
    scores = draw(arrays(np.float64, (b,), elements=values))
    log_probs = draw(arrays(np.float64, (b, v), elements=values))
    return scores, log_probs, draw(st.integers(1, b * v + 2))


@probe("5.9")
def probe_beam_step(fw):
    scores, log_probs = np.array([-1.0, -0.5]), np.log(np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]]))
    return {"beam_step(2 beams, 3 tokens, beam_size 3)":
            lambda: bonus_module().beam_step(scores, log_probs, 3)}


@check("5.9")
@given(case=beams())
@example(case=(np.array([-1.0, -0.5]), np.log(np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])), 3))
@example(case=(np.zeros(2), np.zeros((2, 2)), 3))
def test_beam_step_keeps_the_best_candidates_best_first(case):
    """The beam_size best of scores[b] + log_probs[b, v], best first, ties to the lower b then v."""
    scores, log_probs, beam_size = case
    got = bonus_module().beam_step(read_only(scores), read_only(log_probs), beam_size)
    want = np_beam_step(scores, log_probs, beam_size)
    what = f"beam_step(scores {scores.tolist()}, log_probs {log_probs.tolist()}, beam_size={beam_size})"
    assert isinstance(got, tuple) and len(got) == 3, f"{what} returned {got!r}, expected 3 arrays"
    for name, g, w in zip(("scores", "beams", "tokens"), got, want):
        assert_close(g, w, f"{what}: {name}", rtol=1e-12, atol=1e-12)
    for name, g in zip(("beams", "tokens"), got[1:]):
        assert np.issubdtype(np.asarray(g).dtype, np.integer), (
            f"{what}: {name} are {np.asarray(g).dtype}, expected integers (indices)")


@check("5.9")
@given(case=beams())
def test_beam_step_scores_are_the_sum_of_the_beam_and_its_token(case):
    """Each kept candidate's score is scores[beam] + log_probs[beam, token], and no pair repeats."""
    scores, log_probs, beam_size = case
    new, beam, token = bonus_module().beam_step(scores, log_probs, beam_size)
    what = f"beam_step(scores {scores.tolist()}, log_probs {log_probs.tolist()}, beam_size={beam_size})"
    assert_close(new, scores[beam] + log_probs[beam, token],
                 f"{what}: the scores against scores[beams] + log_probs[beams, tokens]")
    assert len(set(zip(beam.tolist(), token.tolist()))) == len(beam), (
        f"{what}: a (beam, token) pair kept twice: {list(zip(beam.tolist(), token.tolist()))}")


# -- 5.10 (bonus) RMSNorm -------------------------------------------------------------------------


def np_rms_norm(x, weight, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


@st.composite
def rms_cases(draw):
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    return draw(array_of(shape)), draw(array_of(shape[-1:], st.floats(0.5, 2.0)))


@probe("5.10")
def probe_rms_norm(fw):
    x, w = fw.Tensor([[1.0, 2.0, 2.0], [3.0, 0.0, 4.0]]), fw.Tensor([1.0, 1.0, 2.0])
    return {"rms_norm of [[1, 2, 2], [3, 0, 4]]": lambda: bonus_module().rms_norm(x, w).data}


@check("5.10")
@given(case=rms_cases(), eps=st.sampled_from([1e-6, 1e-3, 0.5]))
@example(case=(np.array([[1.0, 2.0, 2.0], [3.0, 0.0, 4.0]]), np.array([1.0, 1.0, 2.0])), eps=1e-6)
def test_rms_norm_matches_numpy(case, eps):
    """x / √(mean(x²) + eps) · w over the last axis, with no mean subtracted; float32 kept."""
    x, weight = case
    rms = bonus_module()
    out = rms.rms_norm(fw.Tensor(x), fw.Tensor(weight), eps)
    assert_close(out.data, np_rms_norm(x, weight, eps),
                 f"rms_norm of shape {x.shape}, eps={eps}", rtol=1e-6, atol=1e-8)
    out32 = rms.rms_norm(fw.Tensor(x.astype(np.float32)), fw.Tensor(weight.astype(np.float32)))
    assert out32.dtype == np.float32, f"rms_norm of float32 gave {out32.dtype}"


@check("5.10")
@given(case=rms_cases(), seed=seeds)
def test_rms_norm_gradient(case, seed):
    """∂x = r·(ĝ − x̂·mean(ĝ·x̂)) with ĝ = g·w, ∂w = Σ g·x̂: against central differences."""
    x, weight = case
    gradient_check(lambda t, w: bonus_module().rms_norm(t, w, 1e-3), [x, weight], seed,
                   f"rms_norm of shape {x.shape} (inputs: x, weight)")


@check("5.10")
def test_rms_norm_module_scales_rows_to_unit_root_mean_square():
    """RMSNorm(4)'s weight starts at ones: each output row has mean(y²) = 1 (up to eps)."""
    x = np.random.default_rng(0).standard_normal((3, 4)) * 10
    out = bonus_module().RMSNorm(4, eps=1e-12)(fw.Tensor(x))
    assert_close(np.mean(out.data.astype(np.float64) ** 2, axis=-1), np.ones(3),
                 "RMSNorm(4): mean(y²) of each row", rtol=1e-4)
