"""A tensor prints what PyTorch prints for the same values (needs the `compare` extra; skips
without PyTorch): drawn arrays of up to 3 axes, floats of magnitudes 1e-6 to 1e9 with zeros,
whole numbers, nan and inf among them, integers and bools, long ones summarised.

    pip install -e '.[compare]' && python -m pytest checks/torch_parity/test_printing.py
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from checks.loader import load_framework

torch = pytest.importorskip("torch")
fw = load_framework("solutions")

DTYPES = (np.float32, np.float64, np.int64, np.int32, np.bool_)
DRAWS = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.large_base_example])


def _magnitude() -> st.SearchStrategy[float]:
    """sign · m · 10^e with e from -6 to 9: each decade as likely as the next."""
    return st.builds(lambda sign, m, e: sign * m * 10.0 ** e, st.sampled_from((-1, 1)),
                     st.floats(1, 10, exclude_max=True), st.integers(-6, 9))


def _elements(dtype) -> st.SearchStrategy:
    if dtype == np.bool_:
        return st.booleans()
    if np.issubdtype(dtype, np.integer):
        return st.one_of(st.integers(-9, 9), st.integers(-10**9, 10**9))
    specials = st.sampled_from((0.0, -0.0, np.nan, np.inf, -np.inf))
    return st.one_of(_magnitude(), st.integers(-10**6, 10**6).map(float), specials)


@st.composite
def arrays(draw, shapes) -> np.ndarray:
    dtype = draw(st.sampled_from(DTYPES))
    return draw(hnp.arrays(dtype, draw(shapes), elements=_elements(dtype)))


SMALL = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=12)  # 12³ is summarised
#: Shapes of about 1000 elements or more (more is summarised), of 1, 2 and 3 axes.
LONG = st.one_of(st.tuples(st.integers(990, 1100)),
                 st.tuples(st.integers(26, 60), st.integers(40, 60)),
                 st.tuples(st.integers(10, 14), st.integers(10, 14), st.integers(11, 14)))


@DRAWS
@given(arrays(SMALL), st.booleans())
def test_a_tensor_prints_as_pytorchs(values, requires_grad):
    requires_grad = requires_grad and values.dtype.kind == "f"
    ours = fw.Tensor(values, requires_grad=requires_grad)
    theirs = torch.tensor(values, requires_grad=requires_grad)
    assert repr(ours) == repr(theirs)


@settings(DRAWS, max_examples=60)
@given(LONG, st.sampled_from(DTYPES), st.integers(-6, 9), st.integers(0, 2**32 - 1))
def test_a_long_tensor_is_summarised_as_pytorchs(shape, dtype, exponent, seed):
    # values from a seeded generator: hypothesis fills most of a large array with one value
    values = np.random.default_rng(seed).standard_normal(shape) * 10.0 ** exponent
    values = np.clip(values, -2e9, 2e9).astype(dtype)  # within int32
    assert repr(fw.Tensor(values)) == repr(torch.tensor(values))


@DRAWS
@given(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0))
def test_a_shape_prints_as_pytorchs(shape):
    assert repr(fw.Tensor(np.zeros(shape)).shape) == repr(torch.zeros(shape).shape)
