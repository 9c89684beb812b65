"""Hypothesis strategies of bad (and good) argument values, shared by the bad-input tests."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

INT_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


def numpy_ints(low: int, high: int) -> st.SearchStrategy:
    """Numpy integer scalars in low..high, of every dtype that holds the value (valid ints)."""

    def as_numpy(v: int) -> st.SearchStrategy:
        fits = [dt for dt in INT_DTYPES if np.iinfo(dt).min <= v <= np.iinfo(dt).max]
        return st.sampled_from(fits).map(lambda dt: dt(v))

    return st.integers(low, high).flatmap(as_numpy)


def ints(low: int, high: int) -> st.SearchStrategy:
    """Valid ints: Python ints and numpy integer scalars in low..high."""
    return st.integers(low, high) | numpy_ints(low, high)


#: Values that are no number at all: bools, strings, None, containers, arrays, bytes.
not_numbers = st.one_of(
    st.booleans(),
    st.sampled_from([np.True_, np.False_]),
    st.text(max_size=5),
    st.none(),
    st.lists(st.integers(0, 3), max_size=3),
    st.tuples(st.integers(0, 3)),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.binary(max_size=3),
    st.integers(0, 3).map(lambda v: np.array([v])),
    st.integers(0, 3).map(lambda v: np.array(v)),  # a 0-d array is an array, not a scalar
    st.complex_numbers(max_magnitude=10, allow_nan=False),
)

#: Floats, including whole ones (2.0) and numpy floats: never ints.
floats_as_ints = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-10, 10).map(float),
    st.integers(-10, 10).map(np.float64),
    st.integers(-10, 10).map(np.float32),
)

#: Everything that is not an int.
not_ints = not_numbers | floats_as_ints

#: Non-finite floats.
non_finite = st.sampled_from([float("nan"), float("inf"), -float("inf"), np.float32("nan"), np.float64("inf")])
