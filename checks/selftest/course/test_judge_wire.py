"""The judge's wire carries plain data both ways and builds nothing else (checks/wire.py)."""

import math

import numpy as np
import pytest

from checks import wire


def channel(on_array=None) -> wire.Channel:
    """A channel without a socket: its codec only, lending everything else as a handle."""
    return wire.Channel(None, lambda value: {}, lambda key, meta: object(), None, None, None,
                        on_array)


def round_trip(value, on_array=None):
    codec, buffers = channel(on_array), []
    data = codec.encode(value, buffers)
    return codec.decode(data, [memoryview(b) for b in buffers])


VALUES = [None, True, 0, -(2**80), 1.5, -0.0, math.inf, "é\n", b"\x00\xff", 2 - 3j,
          (1, [2.0, {"a": (None,)}], {3}, frozenset({4})), {(1, 2): [3]}, slice(1, None, -2),
          Ellipsis, np.float32(1.25), np.int64(-7), np.dtype("complex64")]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_a_plain_value_comes_back_equal_and_of_its_type(value):
    back = round_trip(value)
    assert type(back) is type(value) and back == value
    if isinstance(value, float):
        assert math.copysign(1, back) == math.copysign(1, value)


def test_nan_comes_back_nan():
    assert math.isnan(round_trip(math.nan))


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "bool", "complex128"])
def test_an_array_keeps_dtype_shape_values_and_layout(dtype, order):
    array = np.asarray(np.arange(12).reshape(3, 4) % 3, dtype=dtype, order=order)
    back = round_trip(array)
    assert back.dtype == array.dtype and back.shape == array.shape
    assert np.array_equal(back, array) and back.flags.f_contiguous == array.flags.f_contiguous
    assert back.flags.writeable


def test_a_read_only_array_arrives_read_only():
    array = np.ones(3)
    array.flags.writeable = False
    seen = []
    back = round_trip(array, on_array=lambda a: seen.append(a) or a)
    assert not back.flags.writeable and seen == [back]


def test_an_array_of_python_objects_is_lent_not_copied():
    codec = channel()
    data = codec.encode(np.array([object()], dtype=object), [])
    assert data[0] == "M"


@pytest.mark.parametrize("data", [
    ["A", "|O", [1], 0, True, "C"],  # an array of objects would need pickle
    ["Q", 1],  # no such tag
    ["U", 12345],  # nothing lent under that key
    ["W", ["U", 1], "x"],  # the judge never looks a name up on a decoded object
    {"a": 1},  # a JSON object is no value
])
def test_a_malformed_value_is_refused(data):
    with pytest.raises(wire.ProtocolError):
        channel().decode(data, [memoryview(b"\x00" * 8)])


def test_an_error_comes_back_as_its_builtin_type_with_its_message_and_facts():
    record, (args, origin) = wire.exception_record(KeyError("missing"), {"frames": []})
    error = wire.rebuild_exception(record, [args, origin])
    assert type(error) is KeyError and str(error) == "'missing'"
    assert error.remote_facts["frames"] == []


def test_an_error_of_another_class_keeps_its_name_and_builtin_base():
    class ShapeError(ValueError):
        pass

    record, values = wire.exception_record(ShapeError("shapes (2,) and (3,)"))
    error = wire.rebuild_exception(record, list(values))
    assert isinstance(error, ValueError) and type(error).__name__ == "ShapeError"
    assert str(error) == "shapes (2,) and (3,)"
