"""Bad input (issue 14): ``aos_env.tools.positions.position`` and card files.

position() checks every argument before it builds anything: a bad one raises a
ValueError naming it, and no state is returned. load_cards() turns every problem with
a file into a CardDataError naming the file (FileNotFoundError for a missing one).
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from bad_values import floats_as_ints, not_ints
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aos_env.core.cards import DEFAULT, DEFAULT_CARD_FILE, CardDataError, load_cards
from aos_env.tools.positions import position

FAST = settings(max_examples=60, deadline=None)
SHIPPED = DEFAULT_CARD_FILE.read_text(encoding="utf-8")
HAND = {"hand": ["Imp"]}  # the active player needs a command card


def two_players(**first) -> list[dict]:
    return [dict(HAND, **first), {}]


def rejects(name: str, **kwargs) -> ValueError:
    """position(**kwargs) raises a ValueError whose message names ``name``; returns it."""
    kwargs.setdefault("players", two_players())
    with pytest.raises(ValueError) as err:
        position(**kwargs)
    assert name in str(err.value), (name, str(err.value))
    return err.value


def test_valid_controls_with_numpy_scalars() -> None:
    s = position(
        np.int64(3),
        [
            {"hand": [np.int8(0), "sphinx", "AS018"], "vp": np.uint16(7), "faith": np.int32(10)},
            {"head": np.int64(5)},
            {},
        ],
        active=np.int8(0),
        turn=np.int16(4),
        declarer=np.int64(2),
        last_turn=np.int64(6),
        seed=np.uint64(5),
        num_envs=np.int32(2),
        max_turns=np.int64(50),
    )
    assert s.batch_size == 2 and s.vp[0, 0] == 7 and s.faith[0, 0] == 10 and s.last_turn[0] == 6
    assert s.hand[0, 0, DEFAULT.kind("Sphinx")] == 2 and s.head[0, 1] == 5


# ---- scalar arguments --------------------------------------------------------------------


@FAST
@given(not_ints | st.sampled_from([1, 5, -1, 0]))
def test_num_players(value) -> None:
    rejects("num_players", num_players=value, players=None)


@FAST
@given(not_ints | st.sampled_from([-1, 2, 3, 10**20]))
def test_active(value) -> None:
    rejects("active", active=value)


@FAST
@given(not_ints | st.sampled_from([-5, -1, 200, 10**9]))
def test_turn(value) -> None:
    rejects("turn", turn=value)


@FAST
@given(not_ints | st.sampled_from([-2, 2, 7]))
def test_declarer(value) -> None:
    rejects("declarer", declarer=value)


@FAST
@given(not_ints.filter(lambda v: v is not None) | st.sampled_from([-1, 0, 2, 3, 5, 10**6]))
def test_last_turn(value) -> None:
    # turn 3, player 0 active, player 1 declared: the declarer's last turn is turn 4
    rejects("last_turn", turn=3, declarer=1, last_turn=value)


def test_last_turn_needs_a_declarer_and_follows_from_it() -> None:
    rejects("last_turn", last_turn=5)
    for active, declarer in itertools.product(range(3), range(3)):
        players = [{}, {}, {}]
        players[active] = dict(HAND)
        s = position(3, players, active=active, turn=10, declarer=declarer)
        assert s.last_turn[0] == 10 + (declarer - active) % 3  # R7.2: the declarer plays last


def _one_int_seed_array(v) -> bool:  # [0] or np.array([0]) is a valid seed array for one game
    try:
        a = np.asarray(v)
    except ValueError:
        return False
    return a.shape == (1,) and a.dtype.kind in "iu"


@FAST
@given(
    not_ints.filter(lambda v: not _one_int_seed_array(v))
    | st.sampled_from([-1, 2**63, 2**64 - 1])
    | st.just(np.uint64(2**64 - 1))
    | st.just(np.array([2**64 - 1], dtype=np.uint64))
)
def test_seed(value) -> None:
    rejects("seed", seed=value)


def test_seed_range_covers_the_whole_batch() -> None:
    rejects("seed", seed=2**63 - 2, num_envs=4)
    assert position(players=two_players(), seed=2**63 - 4, num_envs=4).batch_size == 4


@FAST
@given(not_ints | st.sampled_from([0, -3, 10**12]))
def test_num_envs(value) -> None:
    rejects("num_envs", num_envs=value)


@FAST
@given(not_ints | st.sampled_from([0, -1]))
def test_max_turns(value) -> None:
    rejects("max_turns", max_turns=value)


@pytest.mark.parametrize("value", ["cards.toml", 3, {"card": []}, DEFAULT.names])
def test_cards_argument(value) -> None:
    rejects("cards", cards=value)


# ---- players -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,message",
    [
        ("ab", "players must be a list"),
        ({0: {}, 1: {}}, "players must be a list"),
        (5, "players must be a list"),
        ([{}], r"one entry per player \(2\), got 1"),
        ([{}, {}, {}], r"one entry per player \(2\), got 3"),
        ([HAND, "hand"], r"players\[1\] must be a dict"),
        ([HAND, None], r"players\[1\] must be a dict"),
        ([HAND, [("hand", ["Imp"])]], r"players\[1\] must be a dict"),
        ([dict(HAND, hnd=["Imp"]), {}], r"players\[0\]: unknown key\(s\) 'hnd'; allowed: hand, mana, head"),
        ([dict(HAND, VP=3), {}], r"players\[0\]: unknown key\(s\) 'VP'"),
    ],
)
def test_players_shape_and_keys(value, message) -> None:
    assert re.search(message, str(rejects("players", players=value)))


@FAST
@given(st.sampled_from(["vp", "faith"]), not_ints | st.sampled_from([-1, -100]))
def test_vp_and_faith_must_be_ints_in_range(key, value) -> None:
    rejects(f"players[0].{key}", players=two_players(**{key: value}))


@pytest.mark.parametrize("value", [11, 2**31, 2.0, 10.5])
def test_faith_is_at_most_10(value) -> None:
    rejects("players[0].faith", players=two_players(faith=value))


def test_vp_beyond_the_int32_range_is_refused() -> None:
    rejects("players[0].vp", players=two_players(vp=2**31))
    assert position(players=two_players(vp=np.int64(1_000_000))).vp[0, 0] == 1_000_000


# ---- card references -----------------------------------------------------------------------

bad_refs = st.one_of(
    st.booleans(),
    st.sampled_from([np.True_, np.False_]),
    floats_as_ints,
    st.none(),
    st.sampled_from([-1, 30, 10**9, -(2**70)]),
    st.lists(st.integers(0, 3), max_size=2),
    st.binary(max_size=2),
    st.integers(0, 3).map(lambda v: np.array([v])),
)


@FAST
@given(st.sampled_from(["hand", "mana", "spirits", "stones"]), bad_refs, st.integers(0, 2))
def test_a_bad_card_reference_is_named_by_zone_and_index(zone, ref, index) -> None:
    refs = ["Imp"] * index + [ref]
    players = [{"hand": ["Imp"], zone: refs} if zone != "hand" else {"hand": refs}, {"hand": ["Angel"]}]
    rejects(f"players[0].{zone}[{index}]", players=players)


@FAST
@given(bad_refs)
def test_a_bad_head_deck_or_discard_reference(ref) -> None:
    rejects("players[1].head", players=[dict(HAND), {"head": ref}] if ref is not None else [HAND, {"head": True}])
    rejects("deck[1]", deck=["Imp", ref])
    rejects("discard[0]", discard=[ref])


def test_true_is_not_one_card_of_every_kind() -> None:
    rejects("players[0].hand[0]", players=[{"hand": [True]}, {}])


@pytest.mark.parametrize("zone_value", ["Imp", "ImpImp", 3, {"Imp": 2}, {"Imp"}, np.zeros((2, 2), dtype=int)])
def test_a_zone_must_be_a_list(zone_value) -> None:
    rejects("players[0].mana", players=two_players(mana=zone_value))
    rejects("deck", deck=zone_value)


@FAST
@given(
    st.text(min_size=1, max_size=12).filter(
        lambda t: t.strip().lower() not in {n.lower() for n in DEFAULT.names + DEFAULT.ids}
    )
)
def test_unknown_card_names(name) -> None:
    err = rejects("players[0].spirits[0]", players=two_players(spirits=[name]))
    assert "did you mean" in str(err) or "known: Imp, Asmodai" in str(err)


def test_a_typo_gets_a_suggestion() -> None:
    err = rejects("players[0].hand[0]", players=[{"hand": ["Sphynx"]}, {}])
    assert "did you mean 'Sphinx'" in str(err)


def test_more_copies_than_exist() -> None:
    rejects("Imp (AS001)", players=[{"hand": ["Imp"] * 5}, {}])


def test_numpy_kinds_and_any_case_are_valid_references() -> None:
    s = position(players=[{"hand": np.array([0, 1]), "mana": ("IMP", "as002")}, {}], deck=range(5))
    assert s.hand[0, 0, :2].tolist() == [1, 1] and s.mana[0, 0, :2].tolist() == [1, 1]


# ---- card files ----------------------------------------------------------------------------


def test_invalid_utf8_is_a_card_data_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(SHIPPED.replace("Imp", "Imp\xe9", 1).encode("latin-1", errors="replace"))
    with pytest.raises(CardDataError, match=rf"{re.escape(str(path))}: not valid UTF-8"):
        load_cards(path)


@pytest.mark.parametrize("value", [3, 2.5, True, ["cards.toml"], b"cards.toml"])
def test_card_file_argument_type(value) -> None:
    with pytest.raises(CardDataError, match="card_file must be a path"):
        load_cards(value)


def test_card_file_folder_and_missing(tmp_path: Path) -> None:
    with pytest.raises(CardDataError, match="must be a file, not a folder"):
        load_cards(tmp_path)
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "nothere.toml"))):
        load_cards(tmp_path / "nothere.toml")


def test_duplicate_card_names(tmp_path: Path) -> None:
    path = tmp_path / "dup.toml"
    path.write_text(SHIPPED.replace('name = "Asmodai"', 'name = "imp"', 1), encoding="utf-8")
    with pytest.raises(CardDataError, match=r"dup\.toml: card AS002.*'name'.*also the name of AS001"):
        load_cards(path)


_counter = itertools.count()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=200) | st.text(max_size=200).map(lambda t: t.encode("utf-8")))
def test_random_bytes_are_a_card_data_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / f"random{next(_counter)}.toml"
    path.write_bytes(data)
    with pytest.raises(CardDataError, match=re.escape(str(path.resolve()))):
        load_cards(path)


_LINES = SHIPPED.splitlines()
_VALUE_LINES = [i for i, line in enumerate(_LINES) if " = " in line and not line.lstrip().startswith("#")]
junk_values = st.one_of(
    st.sampled_from(
        [
            '""',
            "-1",
            "0",
            "1.5",
            "true",
            "[]",
            "{}",
            '"x"',
            "nan",
            "99999999999",
            "{ vp = -1 }",
            "{ special = 3 }",
            "[1, 2]",
            "{ axe = 1.5 }",
            '{ score_per = "axe" }',
            '"KKKKKKKKKK"',
        ]
    ),
    st.integers(-5, 300).map(str),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(_VALUE_LINES), junk_values)
def test_a_broken_field_is_a_card_data_error_or_a_valid_file(tmp_path: Path, line: int, value: str) -> None:
    """Any one field of the shipped file set to junk: a CardDataError naming the file, or (when the
    junk happens to be valid there, e.g. another text) a card set; never another exception."""
    lines = list(_LINES)
    key = lines[line].split(" = ", 1)[0]
    lines[line] = f"{key} = {value}"
    path = tmp_path / f"broken{next(_counter)}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        load_cards(path)
    except CardDataError as e:
        assert str(path.resolve()) in str(e)


# ---- huge and unsigned values (issue 14, the core suite's additions) --------------------------------

U64_MAX = np.uint64(2**64 - 1)


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("num_players", {"num_players": U64_MAX, "players": None}),
        ("num_envs", {"num_envs": U64_MAX}),
        ("max_turns", {"max_turns": U64_MAX}),
        ("max_turns", {"max_turns": 2**31}),
        ("max_turns", {"max_turns": 2**63}),
        ("active", {"active": U64_MAX}),
        ("turn", {"turn": U64_MAX}),
        ("turn", {"turn": 2**31, "declarer": 1}),
        ("declarer", {"declarer": U64_MAX}),
        ("last_turn", {"declarer": 1, "last_turn": U64_MAX}),
        ("seed", {"seed": U64_MAX}),
        ("players[0].vp", {"players": two_players(vp=U64_MAX)}),
        ("players[0].vp", {"players": two_players(vp=1_000_001)}),
        ("players[0].faith", {"players": two_players(faith=U64_MAX)}),
        ("players[0].head", {"players": two_players(head=U64_MAX)}),
        ("deck[0]", {"deck": [U64_MAX]}),
        ("players[0].hand[1]", {"players": [{"hand": ["Imp", np.uint64(2**63)]}, {}]}),
    ],
)
def test_huge_and_uint64_values_are_named_not_wrapped(name, kwargs) -> None:
    err = rejects(name, **kwargs)
    assert "-1" not in str(err).split("got ")[-1], str(err)  # shown as given, never wrapped to -1


def test_max_turns_upper_bound_is_the_engines() -> None:
    from aos_env.core.api import MAX_MAX_TURNS, MAX_VP

    err = rejects("max_turns", max_turns=MAX_MAX_TURNS + 1)
    assert str(err).startswith(f"max_turns must be an int 1..{MAX_MAX_TURNS}, got ")
    assert position(players=two_players(vp=MAX_VP), max_turns=np.int64(MAX_MAX_TURNS)).max_turns == MAX_MAX_TURNS
