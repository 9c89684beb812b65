"""What the bad-input tests share: a played state per engine, fresh copies of it, and ``refused``,
the check every case makes (the error, its message and an unchanged state)."""

from __future__ import annotations

import functools
import re
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from bad_values import floats_as_ints, not_ints, numpy_ints
from hypothesis import given, settings
from hypothesis import strategies as st

import aos_env
from aos_env import core
from aos_env.base import checks
from aos_env.base.checks import ArgumentError
from aos_env.core import api
from aos_env.core.cards import DEFAULT, DEFAULT_CARD_FILE, CardDataError
from aos_env.core.phases import Phase
from aos_env.envs.aec import ClassicWrapper
from aos_env.tools.determinise import determinise, fresh_streams
from aos_env.tools.positions import position

FAST = settings(max_examples=25, deadline=None)
B, P = 4, 3  # games and players of the shared state
HUGE_U64 = np.uint64(2**64 - 1)


# ---- shared states and the check every case makes -------------------------------------------------


@functools.cache
def _played(backend: str) -> core.State:
    """B games of P players after a few random legal steps; game B-1 finished (truncated)."""
    state = core.init(B, P, seed=5, max_turns=40, backend=backend)
    rng = np.random.default_rng(0)
    for _ in range(12):
        core.step(state, (rng.random(state.legal_action_mask.shape) * state.legal_action_mask).argmax(1))
    core.truncate(state, [B - 1])
    assert not (state.terminated[:-1] | state.truncated[:-1]).any()
    return state


def played() -> core.State:
    """A fresh copy of the shared state, for the engine under test."""
    return _played(core.default_backend()).copy()


def same_games(a: core.State, b: core.State) -> bool:
    """Every field of every game equal (the records' padding bytes are not part of a game)."""
    return all(np.array_equal(a.records[name], b.records[name]) for name in a.records.dtype.names)


def legal(state: core.State) -> np.ndarray:
    """One legal action per game (0 for the finished one)."""
    return state.legal_action_mask.argmax(1).astype(np.int64)


#: Bad calls checked so far in this session (every helper below counts its case): the issue asks for
#: more than 300; read it at the session's end, e.g. from a pytest_sessionfinish hook.
CASES = {"count": 0}


def refused(state: core.State | None, call, pattern: str, error: type = ArgumentError) -> str:
    """``call()`` raises ``error`` (exactly that class or a subclass) matching ``pattern`` and leaves every
    byte of ``state.records`` as it was; returns the message."""
    before = None if state is None else state.records.tobytes()
    with pytest.raises(error, match=pattern) as e:
        call()
    if state is not None:
        assert state.records.tobytes() == before, f"a refused call changed the state: {e.value}"
    CASES["count"] += 1
    return str(e.value)


def _as_index_array(value, size: int) -> bool:
    """True if ``value`` is a valid ``games`` argument for a batch of ``size`` games."""
    try:
        a = np.asarray(value)
    except (ValueError, TypeError):
        return False
    if a.ndim == 0 and a.dtype != object:
        a = a.reshape(1)
    if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
        return False
    return bool(a.size == 0 or (a.min() >= 0 and a.max() < size and np.unique(a).size == a.size))


def bad_games(size: int) -> st.SearchStrategy:
    """Values that are no list of distinct game indices 0..size-1 (nor None, which some entry points take)."""
    candidates = st.one_of(
        st.booleans(),
        st.sampled_from([np.True_, np.False_]),
        st.text(max_size=3),
        st.binary(max_size=2),
        st.dictionaries(st.text(max_size=1), st.integers(), max_size=1),
        st.complex_numbers(max_magnitude=3),
        floats_as_ints,
        st.lists(st.floats(), min_size=1, max_size=3),
        st.lists(st.booleans(), min_size=1, max_size=3),
        st.lists(st.integers(0, size - 1), min_size=2, max_size=6),  # often repeats
        st.integers(max_value=-1),
        st.integers(min_value=size),
        st.lists(st.integers(min_value=size), min_size=1),
        st.lists(st.integers(max_value=-1), min_size=1, max_size=2),
        st.sampled_from(
            [
                [[0], [1, 2]],
                [[0, 1]],
                np.zeros((2, 2), np.int64),
                np.array([0.5]),
                np.array([np.nan]),
                np.zeros(2, bool),
                np.array([0, 1], dtype=object),
                np.array(["0"]),
                np.array(["0", "1"]),
                HUGE_U64,
                [2**63],
                np.array([0, 2**64 - 1], dtype=np.uint64),
                np.array([2**63], dtype=np.uint64),
                -(2**70),
                [2**70],
                np.int64(-1),
                np.uint8(size),
                [0, 0],
                [size - 1, 0, size - 1],
                object(),
                {0, 1},
                slice(0, 2),
            ]
        ),
    )
    return candidates.filter(lambda v: not _as_index_array(v, size))


#: valid ``games`` arguments of the shared state: numpy scalars, numpy dtypes, non-contiguous arrays
VALID_GAMES = [
    np.int64(1),
    np.uint8(0),
    [np.int16(2), 0],
    np.arange(B, dtype=np.uint16)[::-2],
    np.arange(3)[::-1],
    np.array([], dtype=np.int64),
    [],
]


NOT_STATES = [None, 3, "state", {}, np.zeros(B), core.State]


def _valid_player(value, n: int) -> bool:
    try:
        a = np.asarray(value)
    except (ValueError, TypeError):
        return False
    if isinstance(value, (bool, np.bool_)) or a.dtype.kind not in "iu" or a.shape not in ((), (n,)):
        return False
    return bool(a.size == 0 or (a.min() >= 0 and a.max() < P))


bad_players = st.one_of(
    not_ints,
    st.integers(max_value=-1),
    st.integers(min_value=P),
    st.lists(st.integers(-2, P + 1), min_size=0, max_size=B + 1),
    st.sampled_from(
        [
            HUGE_U64,
            np.uint64(2**63),
            np.array([0, 1, 2, 2**64 - 1], np.uint64),
            np.zeros(B),
            np.zeros(B, bool),
            np.zeros((B, 1), int),
            np.array(["0"] * B),
            np.zeros(B, object),
            [[0], [1, 2], [0], [0]],
            -(2**70),
            [2**70] * B,
            np.full(B, np.nan),
        ]
    ),
).filter(lambda v: not _valid_player(v, B))
