"""Bad input for the engine's entry points (aos_env.core): init, step, observe, reset, refresh,
describe_illegal, the State's methods, and card files through core.init.

Every case asserts three things: the error type (ArgumentError, a ValueError, for a bad argument;
ValueError for an illegal action or a broken position; TypeError only where the project documents
it: a ``state`` that is no core.State), a message that names the argument (or the problem), and
that nothing changed: every byte of ``state.records`` (so every field, the random streams' keys
and counters included). Numpy scalars and non-contiguous arrays are valid controls. The shared
state and the check are in ``bad_input.py``; every case runs on both engines (conftest.py).
The envs' cases are in ``test_bad_input_envs.py``.
"""

from __future__ import annotations

import functools
import re
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from bad_input import (  # noqa: E402  (the shared state and check)
    CASES,
    FAST,
    HUGE_U64,
    NOT_STATES,
    VALID_GAMES,
    B,
    P,
    _valid_player,
    bad_games,
    bad_players,
    legal,
    played,
    refused,
    same_games,
)
from bad_values import not_ints, numpy_ints
from hypothesis import given, settings
from hypothesis import strategies as st

import aos_env
from aos_env import core
from aos_env.base import checks
from aos_env.base.checks import ArgumentError
from aos_env.core import api
from aos_env.core.cards import DEFAULT, DEFAULT_CARD_FILE, CardDataError
from aos_env.core.phases import Phase
from aos_env.tools.positions import position

# ---- state arguments -------------------------------------------------------------------------------


def _entry_points(state):
    return {
        "step": lambda: core.step(state, np.zeros(B, np.int64)),
        "observe": lambda: core.observe(state, 0),
        "refresh": lambda: core.refresh(state),
        "reset": lambda: core.reset(state, [0], 1),
        "final_scores": lambda: core.final_scores(state),
        "winners": lambda: core.winners(state),
        "score_lead": lambda: core.score_lead(state, [0], 0),
        "truncate": lambda: core.truncate(state, [0]),
        "global_state": lambda: core.global_state(state),
        "describe_illegal": lambda: core.describe_illegal(state, 0, 0),
    }


@pytest.mark.parametrize("name", list(_entry_points(None)))
@pytest.mark.parametrize("value", NOT_STATES, ids=lambda v: type(v).__name__)
def test_a_state_that_is_no_state_is_a_type_error(name, value) -> None:
    refused(None, _entry_points(value)[name], r"^state must be a core\.State", TypeError)


# ---- init ------------------------------------------------------------------------------------------


def init_rejects(pattern: str, error: type = ArgumentError, **kwargs) -> str:
    kwargs.setdefault("num_envs", 2)
    return refused(None, lambda: core.init(**kwargs), pattern, error)


@FAST
@given(not_ints | st.integers(max_value=0) | st.just(-(2**70)))
def test_init_num_envs(value) -> None:
    init_rejects(r"^num_envs must be an int >= 1, got ", num_envs=value)


@FAST
@given(not_ints | st.integers(max_value=1) | st.integers(min_value=5) | st.just(HUGE_U64))
def test_init_num_players(value) -> None:
    init_rejects(r"^num_players must be an int 2\.\.4, got ", num_players=value)


@FAST
@given(
    not_ints
    | st.integers(max_value=0)
    | st.integers(min_value=api.MAX_MAX_TURNS + 1)
    | st.sampled_from([2**31, 2**63, HUGE_U64, np.int64(2**62)])
)
def test_init_max_turns(value) -> None:
    """The turn counters are int32: a limit beyond them (or 2**63, which the compiled engine cannot even
    take) is refused, not an OverflowError and not a game that can never be truncated."""
    init_rejects(rf"^max_turns must be an int 1\.\.{api.MAX_MAX_TURNS}, got ", max_turns=value)


def _int_seed_array(value, count: int) -> bool:
    try:
        a = np.asarray(value)
    except (ValueError, TypeError):
        return False
    return a.shape == (count,) and a.dtype.kind in "iu" and (a.size == 0 or (a.min() >= 0 and a.max() < 2**63))


@FAST
@given(
    st.one_of(
        not_ints.filter(lambda v: not _int_seed_array(v, 2)),
        st.integers(max_value=-1),
        st.integers(min_value=2**63 - 1),  # 2 games: s and s+1 must both be seeds
        st.sampled_from(
            [
                HUGE_U64,
                np.array([0, 2**64 - 1], np.uint64),
                np.array([0.0, 1.0]),
                np.array([np.nan, 0]),
                np.zeros(2, bool),
                np.array([0, 1], object),
                np.array(["0", "1"]),
                np.zeros((2, 1), int),
                np.zeros(3, int),
                np.array([], int),
                [[0], [1, 2]],
                [-1, 0],
                [0, 2**63],
            ]
        ),
    )
)
def test_init_seed(value) -> None:
    init_rejects(r"^seed must ", seed=value)


@pytest.mark.parametrize(
    "value",
    [
        "jax",
        "",
        "NUMBA",
        " numpy",
        3,
        True,
        0.0,
        ["numba"],
        ("numpy",),
        np.array(["numba"]),
        np.array(["numba", "numpy"]),
        {"numba"},
        b"numba",
    ],
    ids=repr,
)
def test_init_backend(value) -> None:
    init_rejects(r"^backend must be one of None, 'numba', 'numpy', got ", backend=value)


@pytest.mark.parametrize("value", ["cards.toml", 3, {}, DEFAULT.names, DEFAULT_CARD_FILE], ids=repr)
def test_init_cards(value) -> None:
    init_rejects(r"^cards must be a CardSet \(from aos_env\.cards\.load_cards\) or None, got ", cards=value)


@pytest.mark.parametrize("value", [3, 2.5, True, ["cards.toml"], b"cards.toml", np.array(["x"])], ids=repr)
def test_init_card_file_type(value) -> None:
    init_rejects(r"^card_file must be a path", CardDataError, card_file=value)


def test_init_card_file_missing_folder_junk_and_both(tmp_path: Path) -> None:
    init_rejects(re.escape(str(tmp_path / "none.toml")), FileNotFoundError, card_file=tmp_path / "none.toml")
    init_rejects(r"must be a file, not a folder", CardDataError, card_file=tmp_path)
    (tmp_path / "junk.toml").write_text("[[card]]\nid = 3\n")
    init_rejects(r"junk\.toml", CardDataError, card_file=str(tmp_path / "junk.toml"))
    init_rejects(r"^give card_file or cards, not both", card_file=DEFAULT_CARD_FILE, cards=DEFAULT)


@pytest.mark.parametrize("value", ["jax", "", "Numba"])
def test_init_with_a_bad_aos_backend_variable(monkeypatch, value) -> None:
    monkeypatch.setenv(core.BACKEND_ENV, value)
    init_rejects(rf"^AOS_BACKEND must be one of numba, numpy, got {value!r}$", ValueError)
    assert core.init(1, backend="numpy").backend == "numpy"  # an explicit backend does not read it


def test_init_valid_controls() -> None:
    s = core.init(
        np.int8(3),
        np.uint8(4),
        seed=np.arange(10, dtype=np.uint16)[::3][:3],
        max_turns=np.int64(9),
        card_file=str(DEFAULT_CARD_FILE),
        backend=np.str_(core.default_backend()),
    )
    assert (s.batch_size, s.num_players, s.max_turns) == (3, 4, 9) and type(s.max_turns) is int
    assert same_games(s, core.init(3, 4, seed=[0, 3, 6], max_turns=9))
    assert core.init(1, max_turns=api.MAX_MAX_TURNS).max_turns == api.MAX_MAX_TURNS


def test_init_refuses_a_huge_batch_before_allocating() -> None:
    tracemalloc.start()
    try:
        msg = init_rejects(
            r"^num_envs=1000000000 would need about [0-9.]+ TB of memory \([0-9.]+ kB per game\); "
            r"this machine has .* use num_envs <= [0-9,]+$",
            num_envs=10**9,
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10**7, f"{peak} bytes allocated before refusing: {msg}"


def test_the_machine_memory_is_read_once(monkeypatch) -> None:
    """init checks the batch's memory on every call: the machine's total is read once and kept."""
    first = checks.total_memory()
    core.init(2)  # the engine loaded (the compiled one reads its cache files once)

    def no_reading(*args, **kwargs):
        raise AssertionError("total_memory read the machine's memory again")

    monkeypatch.setattr(checks.os, "sysconf", no_reading)
    monkeypatch.setattr(checks.Path, "read_text", no_reading)
    monkeypatch.setattr("builtins.open", no_reading)
    assert checks.total_memory() == first
    assert core.init(2).batch_size == 2


# ---- games= (step, observe, reset, final_scores, winners, score_lead, truncate, global_state) --------


def _games_calls(state: core.State, games):
    n = np.asarray(games).size if _sized(games) else 1
    return {
        "step": lambda: core.step(state, np.zeros(n, np.int64), games),
        "observe": lambda: core.observe(state, 0, games),
        "reset": lambda: core.reset(state, games, 7),
        "final_scores": lambda: core.final_scores(state, games),
        "winners": lambda: core.winners(state, games),
        "score_lead": lambda: core.score_lead(state, games, 0),
        "truncate": lambda: core.truncate(state, games),
        "global_state": lambda: core.global_state(state, games),
    }


def _sized(value) -> bool:
    try:
        return np.asarray(value).ndim == 1
    except (ValueError, TypeError):
        return False


GAMES_TAKERS = list(_games_calls(None, [0]))


@FAST
@given(st.sampled_from(GAMES_TAKERS), bad_games(B))
def test_games(name, games) -> None:
    state = played()
    msg = refused(state, _games_calls(state, games)[name], r"^games must ")
    if isinstance(games, np.ndarray) and games.dtype == np.uint64 and games.size and games.max() >= B:
        assert str(int(games.max())) in msg  # a uint64 index beyond int64 is named as given, not wrapped to -1


@pytest.mark.parametrize("name", ["reset", "score_lead", "truncate"])
def test_games_none_where_games_must_be_given(name) -> None:
    state = played()
    refused(state, _games_calls(state, None)[name], r"^games must be a 1-d array of game indices 0\.\.3, got None$")


@pytest.mark.parametrize("name", GAMES_TAKERS)
@pytest.mark.parametrize(
    "games,shown",
    [
        (HUGE_U64, "must be game indices 0..3, got 18446744073709551615"),
        ([2**63], "must be game indices 0..3, got 9223372036854775808"),
        (np.array([1, 2**64 - 1], np.uint64), "must be game indices 0..3, got 18446744073709551615"),
        ([[0], [1, 2]], "must be a 1-d array of game indices 0..3, got [[0], [1, 2]]"),
        ([0, 0], "must not repeat a game, got [0, 0]"),
    ],
    ids=repr,
)
def test_games_messages(name, games, shown) -> None:
    state = played()
    msg = refused(state, _games_calls(state, games)[name], r"^games must ")
    assert msg == "games " + shown


@pytest.mark.parametrize(
    "size,games",
    [(1000, [999, 3, 999]), (1000, [5, 5]), (3000, np.r_[np.arange(2000), 7]), (1000, np.r_[np.arange(1000), 0])],
)
def test_repeated_games_in_large_batches(size, games) -> None:
    state = core.init(size, 2, seed=0)
    before = state.records.tobytes()
    with pytest.raises(ArgumentError, match=r"^games must not repeat a game, got "):
        core.final_scores(state, games)
    with pytest.raises(ArgumentError, match=r"^games must not repeat a game, got "):
        core.truncate(state, games)
    assert state.records.tobytes() == before
    CASES["count"] += 2
    assert core.final_scores(state, np.unique(games)).shape == (np.unique(games).size, 2)


@pytest.mark.parametrize("games", VALID_GAMES, ids=repr)
def test_valid_games(games) -> None:
    state = played()
    g = np.atleast_1d(np.asarray(games)).astype(np.int64)
    assert core.final_scores(state, games).tolist() == core.final_scores(state)[g].tolist()
    assert core.observe(state, 1, games).shape == (g.size, core.OBS_DIM)
    assert core.global_state(state, games).shape == (g.size, core.STATE_DIM)
    core.step(state, legal(state)[g], games)


# ---- step: actions ---------------------------------------------------------------------------------


def _bad_action_arrays() -> st.SearchStrategy:
    wrong_shape = st.one_of(
        st.lists(st.integers(0, 43), max_size=B - 1),
        st.lists(st.integers(0, 43), min_size=B + 1, max_size=B + 3),
        st.integers(0, 43),
        numpy_ints(0, 43),
        st.none(),
        st.text(max_size=2),
        st.just([[0], [1, 2], [3], [4]]),
        st.just(np.zeros((B, 1), np.int64)),
        st.just(np.zeros((1, B), np.int64)),
        st.just(np.zeros((2, 2), np.int64)),
        st.just(np.zeros(0, np.int64)),
        st.just({0: 1}),
        st.just(object()),
    )
    wrong_dtype = st.one_of(
        st.lists(st.floats(), min_size=B, max_size=B),
        st.lists(st.booleans(), min_size=B, max_size=B),
        st.lists(st.text(max_size=1), min_size=B, max_size=B),
        st.sampled_from(
            [
                np.zeros(B),
                np.full(B, np.nan),
                np.zeros(B, bool),
                np.zeros(B, object),
                np.array(["1"] * B),
                np.zeros(B, np.complex64),
                np.zeros(B, np.float16),
                [0, 1.0, 2, 3],
            ]
        ),
    )
    return st.tuples(st.just("shape"), wrong_shape) | st.tuples(st.just("dtype"), wrong_dtype)


@FAST
@given(_bad_action_arrays())
def test_step_actions_of_the_wrong_shape_or_dtype(case) -> None:
    kind, actions = case
    state = played()
    if kind == "shape":
        refused(
            state,
            lambda: core.step(state, actions),
            r"^actions must (have shape|be an integer array of shape) "
            r"\(4,\)",
        )
    else:
        refused(state, lambda: core.step(state, actions), r"^actions must be (integers|an integer array)")


@FAST
@given(
    st.integers(0, B - 2),
    st.sampled_from([-1, -(2**40), 44, 99, 2**40, 2**63 - 1, 2**63, 2**64 - 1, 2**70, -(2**70)]),
    st.sampled_from([None, "int64", "uint64", "list"]),
)
def test_step_action_ids_out_of_range_are_named_as_given(game, value, form) -> None:
    state = played()
    actions = legal(state).tolist()
    actions[game] = value
    if form == "uint64":
        if not 0 <= value < 2**64:
            return
        actions = np.array(actions, dtype=np.uint64)
    elif form == "int64":
        if not -(2**63) <= value < 2**63:
            return
        actions = np.array(actions, dtype=np.int64)
    msg = refused(
        state,
        lambda: core.step(state, actions),
        rf"^illegal action: game {game}: action {value} "
        r"\(not an action id\) is not legal for player",
        ValueError,
    )
    assert "legal actions:" in msg


def test_step_uint64_max_names_that_value_not_minus_one() -> None:
    state = played()
    actions = legal(state).astype(np.uint64)
    actions[1] = HUGE_U64
    msg = refused(
        state, lambda: core.step(state, actions), r"^illegal action: game 1: action 18446744073709551615 ", ValueError
    )
    assert "action -1" not in msg
    refused(
        state, lambda: core.step(state, actions[[1]], games=np.uint8([1])), r"action 18446744073709551615 ", ValueError
    )


@FAST
@given(st.integers(0, B - 2), st.data())
def test_step_illegal_actions(game, data) -> None:
    state = played()
    actions = legal(state)
    actions[game] = data.draw(st.sampled_from(np.flatnonzero(~state.legal_action_mask[game]).tolist()))
    refused(
        state, lambda: core.step(state, actions), rf"^illegal action: game {game}: action {actions[game]} ", ValueError
    )


def test_step_valid_controls() -> None:
    for dtype in (np.int8, np.uint8, np.int16, np.uint32, np.int64, np.uint64):
        state = played()
        core.step(state, legal(state).astype(dtype))
    state = played()
    twice = np.repeat(legal(state), 2)[::2]  # not contiguous
    assert not twice.flags.c_contiguous
    core.step(state, twice)
    state = played()
    core.step(state, [np.uint8(a) for a in legal(state)])


# ---- observe and score_lead: player ----------------------------------------------------------------


@FAST
@given(bad_players)
def test_observe_player(player) -> None:
    state = played()
    msg = refused(state, lambda: core.observe(state, player), r"^player must ")
    if isinstance(player, (np.uint64, np.ndarray)) and np.asarray(player).dtype == np.uint64:
        assert str(int(np.max(player))) in msg, msg  # named as given, not wrapped


@FAST
@given(bad_players.filter(lambda v: not _valid_player(v, 2)))
def test_score_lead_player(player) -> None:
    state = played()
    refused(state, lambda: core.score_lead(state, [0, 2], player), r"^player must ")


def test_observe_player_valid_controls() -> None:
    state = played()
    want = core.observe(state, 2)
    for player in (
        np.int8(2),
        np.uint64(2),
        np.array(2, np.uint8),
        np.full(B, 2, np.uint16),
        np.full(2 * B, 2)[::2],
        [2] * B,
    ):
        np.testing.assert_array_equal(core.observe(state, player), want)
    np.testing.assert_array_equal(core.observe(state, np.uint8(1), games=np.int64(0)), core.observe(state, 1)[:1])


# ---- reset: seed ---------------------------------------------------------------------------------


@FAST
@given(
    st.one_of(
        not_ints.filter(lambda v: not _int_seed_array(v, 2)),
        st.integers(max_value=-1),
        st.integers(min_value=2**63 - 1),
        st.sampled_from([HUGE_U64, np.array([0, 2**64 - 1], np.uint64), np.zeros(2), np.zeros(3, int), [[1], [2, 3]]]),
    )
)
def test_reset_seed(seed) -> None:
    state = played()
    refused(state, lambda: core.reset(state, [0, 2], seed), r"^seed must ")


def test_reset_valid_controls() -> None:
    state = played()
    core.reset(state, np.array([2, 0], np.uint8), np.array([7, 8], np.uint64))
    ref = core.init(2, P, seed=[8, 7], max_turns=40)
    assert same_games(state.take([0, 2]), ref)


# ---- describe_illegal ----------------------------------------------------------------------------


@FAST
@given(not_ints | st.integers(max_value=-1) | st.integers(min_value=B))
def test_describe_illegal_game(b) -> None:
    state = played()
    refused(state, lambda: core.describe_illegal(state, b, 0), r"^b must be an int 0\.\.3, got ")


@FAST
@given(not_ints)
def test_describe_illegal_action(a) -> None:
    state = played()
    refused(state, lambda: core.describe_illegal(state, 0, a), r"^a must be an int, got ")


# ---- refresh: positions edited into bad values ----------------------------------------------------


@functools.cache
def _setup(backend: str) -> core.State:
    """Two identical games at the start of player 0's turn (player 1 has a head, a spirit, a stone)."""
    return position(
        2,
        [
            {"hand": ["Imp", "Angel"], "mana": ["Golem"], "vp": 3},
            {
                "hand": ["Sphinx"],
                "head": "Fairy",
                "mana": ["Giant"],
                "spirits": ["Giant"],
                "stones": ["Imp"],
                "faith": 4,
            },
        ],
        num_envs=2,
        max_turns=50,
        cards=DEFAULT,
    )


def setup() -> core.State:
    return _setup(core.default_backend()).copy()


IMP, FAIRY, GIANT = DEFAULT.kind("Imp"), DEFAULT.kind("Fairy"), DEFAULT.kind("Giant")


def _deck_to_offer(k: int):
    """An edit of game 1: one card of kind k from the deck onto the offer."""

    def edit(s):
        s.deck[1, k] -= 1
        s.offer[1, k] += 1

    return edit


def _set(field: str, index, value):
    """An edit of game 1: ``state.<field>[1, *index] = value`` (index None: a per-game field)."""
    where = (1,) + (index if isinstance(index, tuple) else () if index is None else (index,))

    def edit(s):
        getattr(s, field)[where] = value

    return edit


def _declared(turn: int, last_turn: int, declarer: int = 1):
    def edit(s):
        s.declarer[1], s.turn[1], s.last_turn[1] = declarer, turn, last_turn

    return edit


I32 = 2**31 - 1
REFRESH_CASES = {
    "hand -1": (_set("hand", (1, GIANT), -1), r"game 1: players\[1\]\.hand has -1 cards of Giant"),
    "deck -1": (_set("deck", GIANT, -1), r"game 1: deck has -1 cards of Giant"),
    "spirits -3": (_set("spirits", (0, IMP), -3), r"game 1: players\[0\]\.spirits has -3 cards of Imp"),
    "stones -1": (_set("stones", (1, IMP), -1), r"game 1: players\[1\]\.stones has -1 cards of Imp"),
    "mana -1 (not the head)": (_set("mana", (0, GIANT), -1), r"game 1: players\[0\]\.mana has -1 cards of Giant"),
    "discard -1": (_set("discard", IMP, -1), r"game 1: discard has -1 cards of Imp"),
    "offer not empty": (_deck_to_offer(GIANT), r"game 1: the offer holds 1 card; it must be empty"),
    "a card too many": (_set("deck", GIANT, 4), r"game 1 has .* cards of Giant \(AS\d+\) over all zones; it must be"),
    "a card missing": (_set("hand", (0, IMP), 0), r"game 1 has 3 cards of Imp \(AS001\) over all zones; it must be 4"),
    "faith 11": (_set("faith", 0, 11), r"game 1: players\[0\]\.faith is 11; it must be 0\.\.10"),
    "faith -1": (_set("faith", 1, -1), r"game 1: players\[1\]\.faith is -1; it must be 0\.\.10"),
    "vp -1": (_set("vp", 0, -1), r"game 1: players\[0\]\.vp is -1; it must be 0\.\.1000000"),
    "vp 1000001": (_set("vp", 1, 1_000_001), r"game 1: players\[1\]\.vp is 1000001; it must be 0\.\.1000000"),
    "vp near 2**31": (_set("vp", 1, I32 - 5), rf"game 1: players\[1\]\.vp is {I32 - 5}; it must be 0\.\.1000000"),
    "head not in mana": (
        _set("head", 0, FAIRY),
        r"game 1: players\[0\]\.head is Fairy \(AS\d+\), which is not "
        r"among the player's mana",
    ),
    "head 30": (_set("head", 1, 30), r"game 1: players\[1\]\.head is 30; it must be -1 \(none\) or a kind 0\.\.29"),
    "head -2": (_set("head", 1, -2), r"game 1: players\[1\]\.head is -2; it must be -1 \(none\) or a kind 0\.\.29"),
    "active_player 2": (_set("active_player", None, 2), r"game 1: active_player is 2; it must be 0\.\.1"),
    "active_player -1": (_set("active_player", None, -1), r"game 1: active_player is -1; it must be 0\.\.1"),
    "current_player 7": (_set("current_player", None, 7), r"game 1: current_player is 7; it must be 0\.\.1"),
    "declarer 2": (_set("declarer", None, 2), r"game 1: declarer is 2; it must be -1 \(none\) or 0\.\.1"),
    "declarer -5": (_set("declarer", None, -5), r"game 1: declarer is -5; it must be -1 \(none\) or 0\.\.1"),
    "turn -1": (_set("turn", None, -1), r"game 1: turn is -1; it must be 0\.\.49 \(max_turns 50, no declaration\)"),
    "turn max_turns": (_set("turn", None, 50), r"game 1: turn is 50; it must be 0\.\.49"),
    "turn near 2**31, declared": (
        _declared(I32 - 1, I32),
        rf"game 1: turn is {I32 - 1}; it must be 0\.\."
        rf"{I32 - 2} in a declared game",
    ),
    "last_turn before turn": (_declared(10, 9), r"game 1: last_turn is 9; it must be 11 \(player 1's last turn"),
    "last_turn too late": (_declared(10, 30), r"game 1: last_turn is 30; it must be 11 \(player 1's last turn"),
    "last_turn, declarer active": (_declared(10, 12, declarer=0), r"game 1: last_turn is 12; it must be 10 "),
    "phase": (_set("phase", None, int(Phase.PRAYER)), r"game 1 is in phase PRAYER; positions can only be set up"),
    "empty hand": (
        lambda s: (s.discard[1].__iadd__(s.hand[1, 0]), s.hand[1, 0].__imul__(0)),
        r"in game 1 the active player has no card in hand",
    ),
}


@pytest.mark.parametrize("case", list(REFRESH_CASES))
def test_refresh_refuses_a_bad_position_and_changes_nothing(case) -> None:
    edit, pattern = REFRESH_CASES[case]
    state = setup()
    edit(state)
    refused(state, lambda: core.refresh(state), r"^refresh: " + pattern, ValueError)
    state = setup()
    core.truncate(state, [0])  # a finished game beside it changes nothing
    edit(state)
    refused(state, lambda: core.refresh(state), r"^refresh: " + pattern, ValueError)


@FAST
@given(st.sampled_from(["faith", "vp", "head"]), st.integers(0, 1), st.integers(-(2**31), I32))
def test_refresh_per_player_values(field, player, value) -> None:
    low, high = {"faith": (0, 10), "vp": (0, 1_000_000), "head": (-1, -1)}[field]
    state = setup()
    getattr(state, field)[1, player] = value
    if low <= value <= high or (field == "head" and 0 <= value < 30 and state.mana[1, player, value] > 0):
        core.refresh(state)
        return
    refused(state, lambda: core.refresh(state), rf"^refresh: game 1: players\[{player}\]\.{field} is ", ValueError)


def test_refresh_of_a_good_position_and_finished_games() -> None:
    state = setup()
    core.refresh(state)
    assert same_games(state, setup())
    core.truncate(state, [0])
    state.spirits[0, 0, IMP] = 3  # a finished game is not a position to set up: refresh leaves it alone
    before = state.records[0].tobytes()
    core.refresh(state)
    assert state.records[0].tobytes() == before


def test_final_scores_cannot_overflow_from_an_accepted_position() -> None:
    state = setup()
    state.vp[:] = 1_000_000
    state.spirits[:, 0] += state.deck  # every card left in play for player 0
    state.deck[:] = 0
    core.refresh(state)
    assert (core.final_scores(state) >= 1_000_000).all()


# ---- State.take, State.put, State.with_backend --------------------------------------------------


@FAST
@given(
    bad_games(B).filter(lambda v: not (isinstance(v, list) and v and all(isinstance(x, int) and 0 <= x < B for x in v)))
)
def test_take(idx) -> None:
    state = played()
    refused(state, lambda: state.take(idx), r"^idx must be ")


@FAST
@given(bad_games(B))
def test_put_positions(idx) -> None:
    state = played()
    n = np.asarray(idx).size if _sized(idx) else 1
    other = played().take(np.zeros(max(n, 1), np.int64))
    refused(state, lambda: state.put(idx, other), r"^idx must ")


@pytest.mark.parametrize(
    "make,pattern,error",
    [
        (lambda s: None, r"^other must be a core\.State, got NoneType", TypeError),
        (lambda s: s.records[:2], r"^other must be a core\.State, got ndarray", TypeError),
        (
            lambda s: core.init(2, P + 1, max_turns=40),
            r"^other must hold games like this batch's \(3 players, max_turns 40",
            ArgumentError,
        ),
        (lambda s: core.init(2, P, max_turns=41), r"got 3 players, max_turns 41$", ArgumentError),
        (lambda s: s.take([0, 1, 2]), r"^idx must hold one position per game of other \(3\), got 2", ArgumentError),
    ],
)
def test_put_other(make, pattern, error) -> None:
    state = played()
    refused(state, lambda: state.put([0, 1], make(state)), pattern, error)


def test_put_cards_of_another_file(tmp_path: Path) -> None:
    text = DEFAULT_CARD_FILE.read_text(encoding="utf-8").replace("points = 0", "points = 1", 1)
    (tmp_path / "other.toml").write_text(text, encoding="utf-8")
    state, other = played(), core.init(1, P, max_turns=40, card_file=tmp_path / "other.toml")
    refused(state, lambda: state.put([0], other), r"cards from .*other\.toml$")


@pytest.mark.parametrize("value", ["jax", None, 3, np.array(["numpy"]), ["numpy"]], ids=repr)
def test_with_backend(value) -> None:
    state = played()
    refused(state, lambda: state.with_backend(value), r"^backend must be one of 'numba', 'numpy', got ")


def test_state_methods_valid_controls() -> None:
    import pickle

    state = played()
    part = state.take(np.array([2, 2, 0], np.uint8)[::2])  # not contiguous: games 2 and 0
    assert part.batch_size == 2 and same_games(part, state.take([2, 0]))
    state.put(np.uint16([3, 1]), pickle.loads(pickle.dumps(part)))  # an unpickled copy has equal cards
    assert same_games(state.take([3, 1]), part)
    assert state.take(np.int64(1)).batch_size == 1 and state.with_backend(np.str_("numpy")).backend == "numpy"


# ---- refresh: any one edit is checked, never half-applied -------------------------------------------

EDITABLE = {  # field: value range a hand edit may write (within the field's dtype)
    "hand": (-3, 6),
    "mana": (-3, 6),
    "spirits": (-3, 6),
    "stones": (-3, 6),
    "deck": (-3, 6),
    "discard": (-3, 6),
    "offer": (-1, 3),
    "head": (-3, 33),
    "vp": (-(2**31), I32),
    "faith": (-5, 15),
    "active_player": (-2, 4),
    "current_player": (-2, 4),
    "declarer": (-3, 4),
    "turn": (-5, 60),
    "last_turn": (-5, 60),
    "phase": (0, len(Phase) + 2),
}


def _consistent(state: core.State, b: int) -> None:
    """What an accepted position must be (docs: refresh's checks)."""
    totals = (
        state.hand[b].sum(0)
        + state.mana[b].sum(0)
        + state.spirits[b].sum(0)
        + state.stones[b].sum(0)
        + state.deck[b]
        + state.discard[b]
        + state.offer[b]
    )
    assert (totals == state.cards.copies).all() and not state.offer[b].any()
    assert 0 <= state.faith[b].min() and state.faith[b].max() <= 10 and 0 <= state.vp[b].min() <= 1_000_000
    assert state.legal_action_mask[b].any() and Phase(int(state.phase[b])) in (Phase.COMMAND, Phase.LEPRECHAUN)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(EDITABLE)), st.data())
def test_refresh_after_any_one_edit(field, data) -> None:
    state = setup()
    arr = getattr(state, field)
    index = tuple(data.draw(st.integers(0, n - 1)) for n in arr.shape[1:])
    low, high = EDITABLE[field]
    arr[(1, *index)] = data.draw(st.integers(low, high))
    before = state.records.tobytes()
    try:
        core.refresh(state)
    except ValueError as e:
        assert str(e).startswith("refresh: ") and "game 1" in str(e), str(e)
        assert state.records.tobytes() == before, f"refresh changed a position it refused: {e}"
        CASES["count"] += 1
    else:
        _consistent(state, 1)


def test_reset_no_games_still_checks_the_seed() -> None:
    state = played()
    for seed in (2**63, -1, HUGE_U64, 1.5, "0", None):
        refused(state, lambda seed=seed: core.reset(state, [], seed), r"^seed must ")
    core.reset(state, [], 2**63 - 1)  # a valid control: nothing to reset


# ---- card files through core.init and the env ------------------------------------------------------

_SHIPPED_LINES = DEFAULT_CARD_FILE.read_text(encoding="utf-8").splitlines()
_FIELD_LINES = [i for i, line in enumerate(_SHIPPED_LINES) if " = " in line and not line.lstrip().startswith("#")]


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(_FIELD_LINES),
    st.sampled_from(
        [
            '""',
            "-1",
            "1.5",
            "true",
            "[]",
            "{}",
            "nan",
            "99999999999",
            '"ZZ"',
            "{ vp = -1 }",
            "{ special = 3 }",
            "1e3",
            "inf",
        ]
    ),
    st.sampled_from(["init", "raw_env"]),
)
def test_a_broken_card_file_through_init_and_the_env(tmp_path_factory, line, value, entry) -> None:
    """One field of the shipped file set to junk: a CardDataError naming the file, or (junk that happens
    to be valid there) a game; never another exception."""
    lines = list(_SHIPPED_LINES)
    lines[line] = lines[line].split(" = ", 1)[0] + " = " + value
    path = tmp_path_factory.mktemp("cards") / "broken.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        made = core.init(2, card_file=path) if entry == "init" else aos_env.raw_env(card_file=str(path))
    except CardDataError as e:
        assert str(path.resolve()) in str(e), str(e)
        CASES["count"] += 1
    else:
        assert made is not None
