"""Scenario tests for the 30 spirit abilities (docs/cards.md) and R10 (docs/rules.md).

Every test sets up a position with ``aos_env.tools.positions.position`` (player 0
to move, at the start of their turn), steps the game with named actions and
checks the exact outcome: VP, faith, zones by card name, phase, legal actions
and, for the game-end abilities, ``core.final_scores`` of a finished game.

Conventions used below (tests/helpers.py, docs/api.md):
- command number = head + command card (black 1, green 2, red 3, yellow 4,
  blue 5): Nightmare+Fairy = 3 Conquest, Fairy+Fairy = 4 Research,
  Imp+Golem = 5 Alchemy, Salamander+Salamander = 6 Prayer, Fairy+Angel = 7
  Festival, Golem+Golem = 8 Inquisition, Angel+Unicorn = 10 Pilgrimage;
- ``deck=[...]`` fixes the draw pile exactly (the rest is in the discard
  pile). Draws are uniformly random from the deck, so a deck of one kind
  makes every draw known; with different kinds the tests check the multiset;
- a decision with a single legal action is taken by the engine itself, so
  the next player always gets two different cards in hand (their command
  card is then a real decision and the game stops there);
- the two Phase III draws of the same kind are kept without asking, the
  other one goes to the right neighbour (player p-1) as their new head.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import legal, phase, play, position, total_cards, zone

from aos_env import core
from aos_env.core import Phase
from aos_env.core.cards import DEFAULT as CARDS

YES_NO = ["YES", "NO"]


# ---- small helpers --------------------------------------------------------------


def added(before: dict, after: dict) -> dict:
    """Cards in ``after`` that were not in ``before`` (multiset difference)."""
    c = Counter(after)
    c.subtract(before)
    return {k: v for k, v in c.items() if v > 0}


def n_cards(z: dict) -> int:
    return sum(z.values())


def kind(name: str) -> int:
    return CARDS.kind(name)


def assert_turn_of(state: core.State, player: int, command_cards: list[str]) -> None:
    """The game waits for ``player``'s command card (a new turn has begun)."""
    assert phase(state) == Phase.COMMAND
    assert int(state.active_player[0]) == player
    assert int(state.current_player[0]) == player
    assert legal(state) == command_cards
    assert int(total_cards(state)[0]) == 110


def vp(state: core.State) -> list[int]:
    return [int(v) for v in state.vp[0]]


def faith(state: core.State) -> list[int]:
    return [int(f) for f in state.faith[0]]


def scores(state: core.State) -> list[int]:
    return [int(x) for x in core.final_scores(state)[0]]


def last_turn_position(num_players: int, players: list[dict], deck: list[str]) -> core.State:
    """Player 0 declared the end and now plays the very last turn of the game (R7.2)."""
    return position(num_players, players=players, deck=deck, turn=9, declarer=0, last_turn=9)


def assert_game_over(state: core.State, winner: int) -> None:
    assert phase(state) == Phase.GAME_OVER
    assert bool(state.terminated[0]) and not bool(state.truncated[0])
    assert legal(state) == []
    P = state.num_players
    expected = np.full(P, -1.0 / (P - 1), dtype=np.float32)
    expected[winner] = 1.0
    np.testing.assert_allclose(state.rewards[0], expected)


# ---- AS001 Imp -------------------------------------------------------------------


def test_AS001_imp_conquest_gains_one_more_vp():
    s = position(
        2,
        players=[
            {"hand": ["Fairy", "Dryad"], "head": "Nightmare", "spirits": ["Imp"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem", "vp": 3},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Fairy")  # 1 + 2 = 3: Conquest
    assert int(s.command_number[0]) == 3
    assert legal(s) == ["Dryad", "ACT"]
    s = play(s, "ACT")
    # 1 axe + 1 (Imp) + 1 stolen from the only other player
    assert vp(s) == [3, 2]
    assert zone(s, "hand", 0) == {"Dryad": 1, "Pegasus": 1}
    assert zone(s, "mana", 0) == {"Nightmare": 1, "Fairy": 1}
    assert int(s.head[0, 1]) == kind("Pegasus")
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


# ---- AS002 Asmodai ---------------------------------------------------------------


@pytest.mark.parametrize("copies", [1, 2])
def test_AS002_asmodai_counts_only_the_hand_card_as_zero_never_the_head(copies):
    # head Unicorn (5) + command card Imp (1) = 6 (Prayer). Asmodai makes the Imp
    # count 0: 5 (Alchemy). The assisted head is never zeroed: not 1 (Conquest),
    # not 0. Several copies do nothing more.
    s = position(
        2,
        players=[
            {"hand": ["Imp", "Fairy"], "head": "Unicorn", "spirits": ["Asmodai"] * copies},
            {"hand": ["Angel", "Golem"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 4,
    )
    s = play(s, "Imp")
    assert phase(s) == Phase.ASMODAI
    assert legal(s) == YES_NO
    assert int(s.command_number[0]) == 6
    assert zone(s, "mana", 0) == {"Imp": 1, "Unicorn": 1}  # both ordinary mana now
    assert int(s.head[0, 0]) == -1
    s = play(s, "YES")  # Fairy cannot be paid (no green): the action is taken at once
    assert int(s.command_number[0]) == 5
    assert phase(s) == Phase.ALCHEMY
    assert legal(s) == ["OPTION_A", "OPTION_B"]


def test_AS002_asmodai_declined_keeps_the_number():
    s = position(
        2,
        players=[
            {"hand": ["Imp", "Fairy"], "head": "Unicorn", "spirits": ["Asmodai"]},
            {"hand": ["Angel", "Golem"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 4,
    )
    s = play(s, "Imp", "NO")
    assert int(s.command_number[0]) == 6
    assert phase(s) == Phase.PRAYER


def test_AS002_asmodai_with_no_head_gives_zero_conquest():
    # R3.1.3: a row without head counts 0, so Asmodai can make the number 0 (<= 3: Conquest, R10.3)
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Fairy"], "spirits": ["Asmodai"]},
            {"hand": ["Unicorn", "Golem"], "head": "Golem", "vp": 2},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Angel")
    assert int(s.command_number[0]) == 5
    s = play(s, "YES")
    assert int(s.command_number[0]) == 0
    # Conquest: 1 axe + 1 stolen
    assert vp(s) == [2, 1]
    assert_turn_of(s, 1, ["Golem", "Unicorn"])


# ---- AS003 Nightmare -------------------------------------------------------------


def test_AS003_nightmare_affects_its_summoner_and_a_waiting_head_cannot_be_discarded():
    s = position(
        2,
        players=[
            {
                "hand": ["Nightmare", "Belial", "Imp", "Imp", "Fairy", "Fairy", "Dryad", "Dryad", "Treant"],
                "head": "Succubus",
                "mana": ["Golem"] * 4 + ["Undine"] * 3,
                "stones": ["Cerberus"] * 2,
            },
            # player 1: 8 cards, 8 mana whose only blue one is the waiting head (Angel)
            {"hand": ["Salamander"] * 4 + ["Ifrit"] * 4, "head": "Angel", "mana": ["Phoenix"] * 4 + ["Gargoyle"] * 3},
        ],
        deck=["Titania"] * 2,
    )
    discard0 = zone(s, "discard")
    s = play(s, "Belial", "Nightmare")
    assert phase(s) == Phase.PAY
    s = play(s, "MANA_BLACK", "MANA_BLACK", "MANA_BLUE")  # KK* paid with Succubus, Belial, an Undine

    # R10.1: the summoner decides first, all of it or none
    assert zone(s, "spirits", 0) == {"Nightmare": 1}
    assert phase(s) == Phase.NIGHTMARE and legal(s) == ["YES", "NO"]
    assert int(s.current_player[0]) == 0
    s = play(s, "YES")
    # the summoner first: 7 cards -> 6, then 8 mana (stones included) -> 7
    assert phase(s) == Phase.NIGHTMARE_HAND
    assert int(s.current_player[0]) == 0 and int(s.active_player[0]) == 0
    assert legal(s) == ["Imp", "Dryad", "Treant", "Fairy"]
    s = play(s, "Treant")
    assert phase(s) == Phase.NIGHTMARE_MANA
    assert int(s.current_player[0]) == 0
    assert legal(s) == ["MANA_YELLOW", "MANA_BLUE", "STONE"]
    s = play(s, "STONE")

    # then clockwise: player 1, 8 cards -> 6, then 8 mana -> 7
    assert phase(s) == Phase.NIGHTMARE_HAND
    assert int(s.current_player[0]) == 1
    assert legal(s) == ["Salamander", "Ifrit"]
    s = play(s, "Salamander")
    assert legal(s) == ["Salamander", "Ifrit"]
    s = play(s, "Ifrit")
    assert phase(s) == Phase.NIGHTMARE_MANA
    assert int(s.current_player[0]) == 1
    # the waiting head Angel is player 1's only blue mana: blue may not be chosen
    assert legal(s) == ["MANA_RED", "MANA_YELLOW"]
    s = play(s, "MANA_RED")

    # Phase III of player 0 (two Titanias: one kept, one assisted to player 1)
    assert zone(s, "hand", 0) == {"Imp": 2, "Dryad": 2, "Fairy": 2, "Titania": 1}
    assert zone(s, "mana", 0) == {"Golem": 4, "Undine": 2}
    assert zone(s, "stones", 0) == {"Cerberus": 1}
    assert zone(s, "hand", 1) == {"Salamander": 3, "Ifrit": 3}
    assert zone(s, "mana", 1) == {"Angel": 1, "Phoenix": 3, "Gargoyle": 3, "Titania": 1}
    assert int(s.head[0, 1]) == kind("Titania")
    assert added(discard0, zone(s, "discard")) == {
        "Succubus": 1,
        "Belial": 1,
        "Undine": 1,
        "Treant": 1,
        "Cerberus": 1,
        "Salamander": 1,
        "Ifrit": 1,
        "Phoenix": 1,
    }
    assert_turn_of(s, 1, ["Salamander", "Ifrit"])


def _nightmare_summoned(hand1: list[str] | None = None) -> core.State:
    """Player 0 summons Nightmare with 7 cards left and 8 mana; player 1 holds ``hand1``."""
    s = position(
        2,
        players=[
            {
                "hand": ["Nightmare", "Belial", "Imp", "Imp", "Fairy", "Fairy", "Dryad", "Dryad", "Treant"],
                "head": "Succubus",
                "mana": ["Golem"] * 4 + ["Undine"] * 3,
                "stones": ["Cerberus"] * 2,
            },
            {
                "hand": hand1 or ["Salamander"] * 4 + ["Ifrit"] * 4,
                "head": "Angel",
                "mana": ["Phoenix"] * 4 + ["Gargoyle"] * 3,
            },
        ],
        deck=["Titania"] * 2,
    )
    return play(s, "Belial", "Nightmare", "MANA_BLACK", "MANA_BLACK", "MANA_BLUE")


def test_AS003_R10_1_nightmare_may_be_declined_and_then_nobody_discards():
    s = _nightmare_summoned()
    assert phase(s) == Phase.NIGHTMARE and legal(s) == ["YES", "NO"]
    s = play(s, "NO")
    # nobody discarded: Phase III of player 0 (one Titania kept, one assisted), then player 1's turn
    assert zone(s, "hand", 0) == {"Imp": 2, "Fairy": 2, "Dryad": 2, "Treant": 1, "Titania": 1}
    assert zone(s, "mana", 0) == {"Golem": 4, "Undine": 2}
    assert zone(s, "stones", 0) == {"Cerberus": 2}
    assert zone(s, "hand", 1) == {"Salamander": 4, "Ifrit": 4}
    assert zone(s, "spirits", 0) == {"Nightmare": 1}
    assert int(s.active_player[0]) == 1


def test_AS003_R10_1_nightmare_asks_only_when_someone_would_discard():
    """Nobody holds more than 6 cards or 7 mana: the ability would change nothing, so its
    summoner is not asked and Phase III follows at once."""
    s = position(
        2,
        players=[
            {"hand": ["Nightmare", "Belial", "Imp"], "head": "Succubus", "mana": ["Imp"]},
            {"hand": ["Salamander", "Ifrit"], "head": "Angel"},
        ],
        deck=["Titania"] * 2,
    )
    s = play(s, "Belial", "Nightmare")  # KK* paid with Succubus, Belial and the Imp: forced
    assert zone(s, "spirits", 0) == {"Nightmare": 1}
    assert zone(s, "hand", 0) == {"Imp": 1, "Titania": 1}
    assert_turn_of(s, 1, ["Salamander", "Ifrit"])


def test_AS003_R10_1_nightmare_is_asked_when_only_another_player_is_over():
    s = position(
        2,
        players=[
            {"hand": ["Nightmare", "Belial", "Imp"], "head": "Succubus", "mana": ["Imp"]},
            {"hand": ["Salamander"] * 4 + ["Ifrit"] * 4, "head": "Angel"},
        ],
        deck=["Titania"] * 2,
    )
    s = play(s, "Belial", "Nightmare")
    assert phase(s) == Phase.NIGHTMARE and int(s.current_player[0]) == 0 and legal(s) == ["YES", "NO"]
    s = play(s, "YES")
    # the summoner has nothing to discard; player 1 goes from 8 cards to 6
    assert phase(s) == Phase.NIGHTMARE_HAND and int(s.current_player[0]) == 1
    s = play(s, "Salamander", "Ifrit")
    assert zone(s, "hand", 1) == {"Salamander": 3, "Ifrit": 3}
    assert zone(s, "hand", 0) == {"Imp": 1, "Titania": 1}
    assert int(s.active_player[0]) == 1


def test_AS003_nightmare_asks_nobody_within_the_limits():
    s = position(
        2,
        players=[
            {"hand": ["Nightmare", "Belial", "Fairy"], "head": "Succubus", "mana": ["Imp"]},
            {"hand": ["Salamander", "Ifrit"], "head": "Angel", "mana": ["Phoenix"] * 4 + ["Gargoyle"] * 2},
        ],
        deck=["Titania"] * 2,
    )
    s = play(s, "Belial", "Nightmare")  # KK* from exactly 3 black mana: paid without asking
    assert zone(s, "spirits", 0) == {"Nightmare": 1}
    assert zone(s, "mana", 1) == {"Angel": 1, "Phoenix": 4, "Gargoyle": 2, "Titania": 1}
    assert zone(s, "hand", 0) == {"Fairy": 1, "Titania": 1}
    assert_turn_of(s, 1, ["Salamander", "Ifrit"])


# ---- AS004 Belial ------------------------------------------------------------------


def test_AS004_belial_may_be_paid_with_a_stone():
    s = position(
        2,
        players=[
            {"hand": ["Fairy", "Dryad"], "head": "Golem", "stones": ["Imp"], "spirits": ["Belial"]},
            {"hand": ["Angel", "Unicorn"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 4,
    )
    discard0 = zone(s, "discard")
    s = play(s, "Fairy", "ACT")  # 4 + 2 = 6: Prayer
    s = play(s, "OPTION_A")  # draw 2, then Phase III
    assert phase(s) == Phase.BELIAL
    assert legal(s) == ["STONE", "NO"]  # no Lightning mana: the stone pays
    s = play(s, "STONE")
    assert vp(s) == [2, 0]
    assert zone(s, "stones", 0) == {}
    assert zone(s, "mana", 0) == {"Golem": 1, "Fairy": 1}
    assert added(discard0, zone(s, "discard")) == {"Imp": 1}
    assert zone(s, "hand", 0) == {"Dryad": 1, "Pegasus": 3}
    assert_turn_of(s, 1, ["Angel", "Unicorn"])


def test_AS004_belial_each_copy_once_per_turn():
    s = position(
        2,
        players=[
            {
                "hand": ["Fairy", "Dryad"],
                "head": "Golem",
                "mana": ["Imp"],
                "stones": ["Asmodai"],
                "spirits": ["Belial", "Belial"],
            },
            {"hand": ["Angel", "Unicorn"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 4,
    )
    s = play(s, "Fairy", "ACT", "OPTION_A")
    assert phase(s) == Phase.BELIAL
    assert legal(s) == ["MANA_BLACK", "STONE", "NO"]
    s = play(s, "MANA_BLACK")
    assert vp(s) == [2, 0]
    assert phase(s) == Phase.BELIAL
    assert legal(s) == ["STONE", "NO"]
    s = play(s, "STONE")
    assert vp(s) == [4, 0]  # two copies, two uses, then the turn passes
    assert zone(s, "mana", 0) == {"Golem": 1, "Fairy": 1}
    assert zone(s, "stones", 0) == {}
    assert_turn_of(s, 1, ["Angel", "Unicorn"])


def test_AS004_belial_works_the_turn_it_is_summoned():
    # R5.3: a spirit's ability works from the moment it is summoned
    s = position(
        2,
        players=[
            {"hand": ["Belial", "Succubus"], "head": "Imp", "mana": ["Nightmare", "Asmodai"]},
            {"hand": ["Angel", "Unicorn"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Succubus", "Belial")  # 4 black mana, KK*: 3 paid, one Lightning left
    assert zone(s, "spirits", 0) == {"Belial": 1}
    assert phase(s) == Phase.BELIAL
    assert legal(s) == ["MANA_BLACK", "NO"]
    s = play(s, "MANA_BLACK")
    assert vp(s) == [2, 0]
    assert zone(s, "mana", 0) == {}
    assert_turn_of(s, 1, ["Angel", "Unicorn"])


# ---- AS005 Succubus ----------------------------------------------------------------


def test_AS005_succubus_one_vp_per_card_given():
    # 4 players: Inquisition draws 2. Givers (lower faith than 3): players 1 and 3.
    s = position(
        4,
        players=[
            {"hand": ["Golem", "Angel"], "head": "Golem", "faith": 3, "spirits": ["Succubus"]},
            {"hand": ["Unicorn", "Undine", "Undine"], "faith": 1},
            {"hand": ["Angel", "Seraph"], "faith": 5},
            {"hand": ["Valkyrie", "Seraph"], "faith": 0},
        ],
        deck=["Pegasus"] * 4,
    )
    s = play(s, "Golem")  # 4 + 4 = 8; Angel cannot be paid: Inquisition at once
    assert phase(s) == Phase.INQUISITION_GIFT
    assert int(s.current_player[0]) == 1
    assert legal(s) == ["Undine", "Unicorn"]
    s = play(s, "Undine")
    assert vp(s) == [1, 0, 0, 0]
    assert int(s.current_player[0]) == 3
    assert legal(s) == ["Valkyrie", "Seraph"]
    s = play(s, "Valkyrie")
    assert vp(s) == [2, 0, 0, 0]
    assert zone(s, "hand", 0) == {"Angel": 1, "Pegasus": 3, "Undine": 1, "Valkyrie": 1}
    assert zone(s, "hand", 2) == {"Angel": 1, "Seraph": 1}
    assert int(s.head[0, 3]) == kind("Pegasus")  # the right neighbour of player 0
    assert_turn_of(s, 1, ["Undine", "Unicorn"])


def test_AS005_succubus_counts_a_gift_from_the_deck_of_a_player_with_no_cards():
    # R8.2: player 1 has no card, so gives the top card of the deck: still a card given
    deck = ["Pegasus", "Unicorn", "Seraph", "Titania", "Chimera"]
    s = position(
        4,
        players=[
            {"hand": ["Golem", "Angel"], "head": "Golem", "faith": 3, "spirits": ["Succubus"]},
            {"hand": [], "faith": 1},
            {"hand": ["Angel", "Seraph"], "faith": 5},
            {"hand": ["Valkyrie", "Ouroboros"], "faith": 5},
        ],
        deck=deck,
    )
    s = play(s, "Golem")  # Inquisition: 2 drawn, 1 given from the deck, then Phase III
    assert vp(s) == [1, 0, 0, 0]
    assert phase(s) == Phase.KEEP
    new = added({"Angel": 1}, zone(s, "hand", 0))
    assert n_cards(new) == 3
    assert Counter(new) + Counter(zone(s, "offer")) == Counter(deck)


# ---- AS006 Leprechaun --------------------------------------------------------------


def test_AS006_leprechaun_several_copies_draw_all_then_discard_as_many():
    s = position(
        2,
        players=[
            {"hand": ["Fairy", "Salamander"], "head": "Imp", "spirits": ["Leprechaun", "Leprechaun"]},
            {"hand": ["Unicorn", "Golem"], "head": "Golem"},
        ],
        deck=["Angel"] * 4,
    )
    discard0 = zone(s, "discard")
    assert phase(s) == Phase.LEPRECHAUN
    assert legal(s) == YES_NO  # all or none: no way to use only one copy
    s = play(s, "YES")
    assert zone(s, "hand", 0) == {"Fairy": 1, "Salamander": 1, "Angel": 2}
    assert zone(s, "deck") == {"Angel": 2}
    assert phase(s) == Phase.LEPRECHAUN_DISCARD
    assert legal(s) == ["Fairy", "Salamander", "Angel"]
    s = play(s, "Fairy")
    assert phase(s) == Phase.LEPRECHAUN_DISCARD  # a second discard for the second copy
    assert legal(s) == ["Salamander", "Angel"]
    s = play(s, "Angel")
    assert zone(s, "hand", 0) == {"Salamander": 1, "Angel": 1}
    assert added(discard0, zone(s, "discard")) == {"Fairy": 1, "Angel": 1}
    assert phase(s) == Phase.COMMAND
    assert legal(s) == ["Salamander", "Angel"]


def test_AS006_leprechaun_declined():
    s = position(
        2,
        players=[
            {"hand": ["Fairy", "Salamander"], "head": "Imp", "spirits": ["Leprechaun"]},
            {"hand": ["Unicorn", "Golem"], "head": "Golem"},
        ],
        deck=["Angel"] * 4,
    )
    s = play(s, "NO")
    assert phase(s) == Phase.COMMAND
    assert zone(s, "hand", 0) == {"Fairy": 1, "Salamander": 1}
    assert zone(s, "deck") == {"Angel": 4}


# ---- AS007 Baldanders --------------------------------------------------------------


def test_AS007_baldanders_may_place_a_card_the_summon_does_not_need():
    s = position(
        2,
        players=[
            {"hand": ["Fairy", "Angel", "Imp"], "head": "Treant", "spirits": ["Baldanders"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=["Golem"] * 2,
    )
    s = play(s, "Imp")
    assert legal(s) == ["Fairy", "ACT"]
    s = play(s, "Fairy")  # costs G: the Treant pays it
    assert phase(s) == Phase.BALDANDERS
    assert legal(s) == ["Angel", "NO"]  # Angel (blue) is of no use to this summon: still allowed
    s = play(s, "Angel")
    assert zone(s, "spirits", 0) == {"Baldanders": 1, "Fairy": 1}
    assert zone(s, "mana", 0) == {"Imp": 1, "Angel": 1}
    assert zone(s, "hand", 0) == {"Golem": 1}
    assert int(s.head[0, 0]) == -1  # the placed card is ordinary mana, not a head
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


def test_AS007_baldanders_placement_makes_a_summon_payable():
    s = position(
        2,
        players=[
            {"hand": ["Imp", "Succubus", "Fairy"], "head": "Fairy", "spirits": ["Baldanders"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=["Golem"] * 2,
    )
    s = play(s, "Fairy")  # mana: 2 green, no Lightning
    assert legal(s) == ["Imp", "Succubus", "ACT"]  # each K* spirit payable by placing the other
    s = play(s, "Imp")
    # placing the Succubus was the only way to pay (NO was not legal): done by the engine
    assert zone(s, "spirits", 0) == {"Imp": 1, "Baldanders": 1}
    assert zone(s, "mana", 0) == {"Fairy": 1}
    assert zone(s, "hand", 0) == {"Golem": 1}
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


def test_AS007_baldanders_without_it_the_summon_is_impossible():
    s = position(
        2,
        players=[
            {"hand": ["Imp", "Succubus", "Fairy"], "head": "Fairy"},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=["Golem"] * 2,
    )
    s = play(s, "Fairy")
    # no summon possible: the action (2 + 2 = 4, Research) is performed at once,
    # its flip is forced (green only)
    assert zone(s, "spirits", 0) == {}
    assert zone(s, "stones", 0) == {"Fairy": 1}
    assert zone(s, "mana", 0) == {"Fairy": 1}
    assert zone(s, "hand", 0) == {"Imp": 1, "Succubus": 1, "Golem": 1}
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


# ---- AS008 Dryad -------------------------------------------------------------------


def test_AS008_dryad_prayer_b_refills_to_five_then_one_more():
    s = position(
        2,
        players=[
            {"hand": ["Salamander", "Imp", "Imp", "Golem", "Angel"], "head": "Salamander", "spirits": ["Dryad"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 4,
    )
    s = play(s, "Salamander")  # 3 + 3 = 6; nothing payable: Prayer
    assert phase(s) == Phase.PRAYER
    s = play(s, "OPTION_B")
    assert phase(s) == Phase.PRAYER_DISCARD
    assert legal(s) == ["Imp", "Golem", "Angel", "NO"]
    s = play(s, "NO")  # discard nothing: 4 cards, refill to 5, then Dryad's card; then keep 1 in Phase III
    assert zone(s, "hand", 0) == {"Imp": 2, "Golem": 1, "Angel": 1, "Pegasus": 3}
    assert zone(s, "deck") == {}
    assert int(s.head[0, 1]) == kind("Pegasus")
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


def test_AS008_dryad_prayer_a_draws_three():
    deck = ["Pegasus", "Unicorn", "Seraph", "Titania", "Chimera"]
    s = position(
        2,
        players=[
            {"hand": ["Salamander", "Imp", "Imp", "Golem", "Angel"], "head": "Salamander", "spirits": ["Dryad"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=deck,
    )
    hand0 = zone(s, "hand", 0)
    s = play(s, "Salamander", "OPTION_A")
    assert phase(s) == Phase.KEEP  # Phase III: the last two cards of the deck, of different kinds
    new = added(hand0, zone(s, "hand", 0))
    assert n_cards(new) == 3
    assert zone(s, "hand", 0) == dict(Counter({"Imp": 2, "Golem": 1, "Angel": 1}) + Counter(new))
    assert n_cards(zone(s, "offer")) == 2
    assert Counter(new) + Counter(zone(s, "offer")) == Counter(deck)


# ---- AS009 Treant ------------------------------------------------------------------


@pytest.mark.parametrize("treant", [True, False])
def test_AS009_treant_festival_both_cards_whatever_the_faith(treant):
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Unicorn"], "head": "Fairy", "faith": 1, "spirits": ["Treant"] if treant else []},
            {"hand": ["Golem", "Seraph"], "head": "Golem", "faith": 5},
        ],
        deck=["Imp"] * 4,
    )
    discard0 = zone(s, "discard")
    s = play(s, "Angel")  # 2 + 5 = 7; Unicorn not payable: Festival
    assert faith(s) == [2, 5]  # player 1 is not lower
    if treant:
        assert zone(s, "mana", 0) == {"Fairy": 1, "Angel": 1, "Imp": 2}
        assert added(discard0, zone(s, "discard")) == {}
    else:  # R6.5: one card (two Imps: the pick is forced), the other discarded
        assert zone(s, "mana", 0) == {"Fairy": 1, "Angel": 1, "Imp": 1}
        assert added(discard0, zone(s, "discard")) == {"Imp": 1}
    assert zone(s, "hand", 0) == {"Unicorn": 1, "Imp": 1}
    assert_turn_of(s, 1, ["Golem", "Seraph"])


# ---- AS010 Fairy -------------------------------------------------------------------


def test_AS010_fairy_alchemy_a_draws_one_more():
    deck = ["Pegasus", "Unicorn", "Seraph", "Titania", "Chimera"]
    s = position(
        2,
        players=[
            {"hand": ["Golem", "Angel"], "head": "Imp", "spirits": ["Fairy"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=deck,
    )
    s = play(s, "Golem")  # 1 + 4 = 5: Alchemy
    assert phase(s) == Phase.ALCHEMY
    s = play(s, "OPTION_A")
    assert phase(s) == Phase.KEEP
    new = added({"Angel": 1}, zone(s, "hand", 0))
    assert n_cards(new) == 2  # 1 + 1 (Fairy)
    assert n_cards(zone(s, "stones", 0)) == 1
    assert faith(s) == [1, 1]
    assert Counter(new) + Counter(zone(s, "stones", 0)) + Counter(zone(s, "offer")) == Counter(deck)


def test_AS010_fairy_alchemy_b_draws_one_card_too():
    # engine decision (brief): Fairy's card comes with either Alchemy choice
    s = position(
        2,
        players=[
            {"hand": ["Golem", "Angel"], "head": "Imp", "spirits": ["Fairy"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 4,
    )
    s = play(s, "Golem", "OPTION_B")
    assert faith(s) == [2, 1]
    assert zone(s, "stones", 0) == {"Pegasus": 1}
    assert zone(s, "hand", 0) == {"Angel": 1, "Pegasus": 2}  # Fairy's card + the one kept
    assert zone(s, "deck") == {}
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


# ---- AS011 Salamander --------------------------------------------------------------


def test_AS011_salamander_festival_gains_one_vp():
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Unicorn"], "head": "Fairy", "faith": 1, "spirits": ["Salamander"]},
            {"hand": ["Golem", "Seraph"], "head": "Golem", "faith": 5},
        ],
        deck=["Imp"] * 4,
    )
    s = play(s, "Angel")
    assert vp(s) == [1, 0]
    assert faith(s) == [2, 5]
    assert zone(s, "mana", 0) == {"Fairy": 1, "Angel": 1, "Imp": 1}
    assert_turn_of(s, 1, ["Golem", "Seraph"])


# ---- AS012 Cerberus ----------------------------------------------------------------


@pytest.mark.parametrize(
    "deck, keep, assisted, gain",
    [
        (["Angel", "Imp"], "Imp", "Angel", 1),  # number 5
        (["Golem", "Imp"], "Imp", "Golem", 1),  # number 4
        (["Angel", "Imp"], "Angel", "Imp", 0),  # number 1
        (["Salamander", "Golem"], "Golem", "Salamander", 0),  # number 3
    ],
)
def test_AS012_cerberus_counts_the_card_assisted_to_the_right_neighbour(deck, keep, assisted, gain):
    # 3 players: player 0's right neighbour is player 2
    s = position(
        3,
        players=[
            {"hand": ["Fairy", "Imp"], "head": "Dryad", "spirits": ["Cerberus"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Treant"},
            {"hand": ["Unicorn", "Seraph"], "head": "Baal"},
        ],
        deck=deck,
    )
    s = play(s, "Imp", "Fairy")  # summon Fairy (G paid by the Dryad)
    assert phase(s) == Phase.KEEP
    assert zone(s, "offer") == dict(Counter(deck))
    s = play(s, keep)
    assert vp(s) == [gain, 0, 0]
    assert zone(s, "hand", 0) == {keep: 1}
    assert int(s.head[0, 2]) == kind(assisted)
    assert zone(s, "mana", 2) == dict(Counter(["Baal", assisted]))
    assert zone(s, "mana", 1) == {"Treant": 1}
    assert int(s.head[0, 1]) == kind("Treant")
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


def test_AS012_cerberus_works_the_turn_it_is_summoned():
    s = position(
        2,
        players=[
            {"hand": ["Cerberus", "Salamander"], "head": "Salamander", "mana": ["Ifrit"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=["Angel", "Angel"],
    )
    s = play(s, "Salamander", "Cerberus")  # RR* from three red mana
    assert zone(s, "spirits", 0) == {"Cerberus": 1}
    assert vp(s) == [1, 0]
    assert int(s.head[0, 1]) == kind("Angel")
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


# ---- AS013 Ifrit ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "victim_vp, expected",
    [
        (5, [3, 3]),  # 1 sword + 2 stolen
        (1, [2, 0]),  # only 1 to steal: the extra one needs a chip left
        (0, [2, 0]),  # nobody to steal from: 1 from the supply, Ifrit adds nothing
    ],
)
def test_AS013_ifrit_steals_one_more_if_the_victim_still_has_one(victim_vp, expected):
    s = position(
        2,
        players=[
            {"hand": ["Fairy", "Dryad"], "head": "Nightmare", "spirits": ["Ifrit"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem", "vp": victim_vp},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Fairy", "ACT")
    assert vp(s) == expected
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


# ---- AS014 Will-o'-wisp ----------------------------------------------------------------


@pytest.mark.parametrize("option", ["OPTION_A", "OPTION_B"])
def test_AS014_will_o_wisp_alchemy_gains_one_vp(option):
    s = position(
        2,
        players=[
            {"hand": ["Golem", "Angel"], "head": "Imp", "spirits": ["Will-o'-wisp"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 4,
    )
    s = play(s, "Golem")
    assert phase(s) == Phase.ALCHEMY
    s = play(s, option)
    assert vp(s) == [1, 0]
    assert zone(s, "stones", 0) == {"Pegasus": 1}
    if option == "OPTION_A":
        assert faith(s) == [1, 1]
        assert zone(s, "hand", 0) == {"Angel": 1, "Pegasus": 2}
        assert zone(s, "deck") == {}
    else:
        assert faith(s) == [2, 1]
        assert zone(s, "hand", 0) == {"Angel": 1, "Pegasus": 1}
        assert zone(s, "deck") == {"Pegasus": 1}
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


# ---- AS015 Phoenix -----------------------------------------------------------------


def test_AS015_phoenix_when_summoned_one_faith_and_two_cards():
    s = position(
        2,
        players=[
            {"hand": ["Phoenix", "Salamander"], "head": "Salamander", "mana": ["Imp", "Imp"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 4,
    )
    s = play(s, "Salamander")
    assert legal(s) == ["Phoenix", "ACT"]
    s = play(s, "Phoenix")  # RR** from exactly 2 red + 2 black: paid without asking
    assert zone(s, "spirits", 0) == {"Phoenix": 1}
    assert zone(s, "mana", 0) == {}
    assert faith(s) == [2, 1]
    assert zone(s, "hand", 0) == {"Pegasus": 3}  # 2 (Phoenix) + 1 kept
    assert zone(s, "deck") == {}
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


# ---- AS016 Gargoyle ------------------------------------------------------------------


def test_AS016_gargoyle_reduces_the_spirits_own_colour():
    s = position(
        2,
        players=[
            {"hand": ["Imp", "Fairy"], "head": "Fairy", "spirits": ["Gargoyle"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Fairy")  # mana: 2 green, no Lightning
    assert legal(s) == ["Imp", "ACT"]  # Imp K* costs just * now
    s = play(s, "Imp")  # one green pays it: no choice
    assert zone(s, "spirits", 0) == {"Imp": 1, "Gargoyle": 1}
    assert zone(s, "mana", 0) == {"Fairy": 1}
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


def test_AS016_gargoyle_never_reduces_an_any_symbol():
    # Three Gargoyles: Phoenix RR** -> ** (never below 2), Imp K* -> *, Fairy G -> nothing.
    players = [
        {"hand": ["Phoenix", "Imp", "Fairy"], "spirits": ["Gargoyle"] * 3},  # no head: 1 mana after the command card
        {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
    ]
    s = position(2, players=players, deck=["Pegasus"] * 4)
    s = play(s, "Imp")
    assert zone(s, "mana", 0) == {"Imp": 1}
    assert legal(s) == ["Fairy", "ACT"]  # Phoenix needs 2 mana; Imp is the command card now

    players[0] = {"hand": ["Phoenix", "Imp", "Fairy"], "head": "Imp", "spirits": ["Gargoyle"] * 3}
    s = position(2, players=players, deck=["Pegasus"] * 4)
    s = play(s, "Imp")  # 2 Lightning mana
    assert legal(s) == ["Fairy", "Phoenix", "ACT"]
    s = play(s, "Phoenix")  # both mana are paid for the two 'any' symbols
    assert zone(s, "mana", 0) == {}
    assert zone(s, "spirits", 0) == {"Phoenix": 1, "Gargoyle": 3}
    assert zone(s, "hand", 0) == {"Fairy": 1, "Pegasus": 3}


def test_AS016_gargoyle_free_summon_asks_for_no_payment():
    s = position(
        2,
        players=[
            {"hand": ["Fairy", "Imp"], "head": "Nightmare", "spirits": ["Gargoyle"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Imp")
    assert legal(s) == ["Fairy", "ACT"]
    s = play(s, "Fairy")  # G - 1 = nothing to pay
    assert zone(s, "spirits", 0) == {"Fairy": 1, "Gargoyle": 1}
    assert zone(s, "mana", 0) == {"Imp": 1, "Nightmare": 1}
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


# ---- AS017 Golem ---------------------------------------------------------------------


def test_AS017_golem_alchemy_one_more_stone():
    s = position(
        2,
        players=[
            {"hand": ["Golem", "Angel"], "head": "Imp", "spirits": ["Golem"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 4,
    )
    s = play(s, "Golem", "OPTION_B")
    assert faith(s) == [2, 1]
    assert zone(s, "stones", 0) == {"Pegasus": 2}
    assert zone(s, "hand", 0) == {"Angel": 1, "Pegasus": 1}
    assert zone(s, "deck") == {}
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


# ---- AS018 Sphinx ----------------------------------------------------------------------


def test_AS018_sphinx_five_shields_three_to_hand_two_to_mana():
    # Giant (2) + Homunculus (1) + Golem (1) + the Sphinx itself (1) = 5 shield icons
    deck = ["Pegasus", "Unicorn", "Seraph", "Titania", "Chimera", "Ouroboros", "Baal"]
    s = position(
        2,
        players=[
            {
                "hand": ["Sphinx", "Imp"],
                "head": "Imp",
                "mana": ["Golem", "Golem"],
                "spirits": ["Giant", "Homunculus", "Golem"],
            },
            {"hand": ["Unicorn", "Seraph"], "head": "Fairy"},
        ],
        deck=deck,
    )
    s = play(s, "Imp")
    assert legal(s) == ["Sphinx", "ACT"]
    s = play(s, "Sphinx")  # YY* from Golem, Golem, Imp: no choice
    assert zone(s, "spirits", 0) == {"Giant": 1, "Homunculus": 1, "Golem": 1, "Sphinx": 1}
    assert phase(s) == Phase.KEEP  # Phase III: the deck's last 2 cards, 2 different kinds
    to_hand = zone(s, "hand", 0)
    to_mana = added({"Imp": 1}, zone(s, "mana", 0))
    assert n_cards(to_hand) == 3
    assert n_cards(to_mana) == 2
    assert zone(s, "stones", 0) == {}
    assert int(s.head[0, 0]) == -1  # the revealed cards are ordinary mana
    assert n_cards(zone(s, "offer")) == 2
    assert Counter(to_hand) + Counter(to_mana) + Counter(zone(s, "offer")) == Counter(deck)


def test_AS018_sphinx_counts_itself_and_only_shields():
    s = position(
        2,
        players=[
            {"hand": ["Sphinx", "Golem"], "head": "Golem", "mana": ["Imp"], "spirits": ["Imp", "Angel", "Fairy"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Fairy"},
        ],
        deck=["Pegasus"] * 3,
    )
    s = play(s, "Golem", "Sphinx")
    assert zone(s, "hand", 0) == {"Pegasus": 2}  # 1 (its own shield) + 1 kept
    assert zone(s, "mana", 0) == {}
    assert zone(s, "deck") == {}
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


# ---- AS019 Homunculus ---------------------------------------------------------------


def _research_with_homunculus(homunculi: int = 1) -> core.State:
    """Player 0 plays Research with 2 stones and green, green (Fairy, the head) and blue mana."""
    s = position(
        2,
        players=[
            {
                "hand": ["Fairy", "Angel"],
                "head": "Fairy",
                "mana": ["Unicorn"],
                "stones": ["Imp", "Imp"],
                "spirits": ["Homunculus"] * homunculi,
            },
            {"hand": ["Golem", "Seraph"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Fairy")  # 2 + 2 = 4: Research
    assert legal(s) == ["Angel", "ACT"]
    return play(s, "ACT")


def test_AS019_R6_2_homunculus_research_scores_then_flips_two():
    s = _research_with_homunculus()
    assert vp(s) == [2, 0]  # the 2 stones, counted before flipping
    # Research's own flip is not optional: green or blue
    assert phase(s) == Phase.RESEARCH_FLIP and legal(s) == ["MANA_GREEN", "MANA_BLUE"]
    s = play(s, "MANA_GREEN")
    assert zone(s, "stones", 0) == {"Imp": 2, "Fairy": 1}
    # Homunculus: one more, which may be declined (R10.1); flips go in ascending order
    assert phase(s) == Phase.HOMUNCULUS_FLIP and legal(s) == ["MANA_GREEN", "MANA_BLUE", "NO"]
    s = play(s, "MANA_BLUE")
    assert vp(s) == [2, 0]
    assert zone(s, "mana", 0) == {"Fairy": 1}
    assert zone(s, "stones", 0) == {"Imp": 2, "Fairy": 1, "Unicorn": 1}
    assert_turn_of(s, 1, ["Golem", "Seraph"])


def test_AS019_R10_1_homunculus_flip_may_be_declined():
    s = play(_research_with_homunculus(), "MANA_GREEN")
    assert phase(s) == Phase.HOMUNCULUS_FLIP
    s = play(s, "NO")
    assert zone(s, "mana", 0) == {"Fairy": 1, "Unicorn": 1}
    assert zone(s, "stones", 0) == {"Imp": 2, "Fairy": 1}
    assert_turn_of(s, 1, ["Golem", "Seraph"])


def test_AS019_R10_1_each_homunculus_is_its_own_choice():
    """Two Homunculi: two optional flips; the first taken, the second declined."""
    s = play(_research_with_homunculus(homunculi=2), "MANA_GREEN")
    assert phase(s) == Phase.HOMUNCULUS_FLIP and int(s.choice_left[0]) == 2
    s = play(s, "MANA_GREEN")
    assert phase(s) == Phase.HOMUNCULUS_FLIP and legal(s) == ["MANA_BLUE", "NO"]
    s = play(s, "NO")
    assert zone(s, "mana", 0) == {"Unicorn": 1}
    assert zone(s, "stones", 0) == {"Imp": 2, "Fairy": 2}
    assert_turn_of(s, 1, ["Golem", "Seraph"])


def test_AS019_R6_2_no_homunculus_question_once_no_open_mana_is_left():
    """Blue flipped first: no face-up mana at blue or above is left, so the Homunculus flip has
    only NO (it is taken by the engine) and the turn goes on."""
    s = play(_research_with_homunculus(), "MANA_BLUE")
    assert zone(s, "stones", 0) == {"Imp": 2, "Unicorn": 1}
    assert zone(s, "mana", 0) == {"Fairy": 2}
    assert_turn_of(s, 1, ["Golem", "Seraph"])


# ---- AS020 Giant ---------------------------------------------------------------------


def test_AS020_giant_costs_one_less_silica_per_shield_in_play():
    # one shield in play (Golem): YYY** -> YY**, 4 mana
    s = position(
        2,
        players=[
            {"hand": ["Giant", "Imp"], "head": "Golem", "mana": ["Golem", "Imp"], "spirits": ["Golem"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Fairy"},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Imp")
    assert legal(s) == ["Giant", "ACT"]
    s = play(s, "Giant")  # all 4 mana paid, no choice
    assert zone(s, "spirits", 0) == {"Golem": 1, "Giant": 1}
    assert zone(s, "mana", 0) == {}
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


def test_AS020_giant_no_reduction_of_any_kind_for_another_giant():
    # Giant + Gargoyle in play: 3 shields and a Gargoyle would bring YYY** down to **,
    # but with a Giant already in play the second one costs its full 5 mana.
    players = [
        {
            "hand": ["Giant", "Fairy", "Ouroboros"],
            "head": "Golem",
            "mana": ["Golem", "Golem"],
            "spirits": ["Giant", "Gargoyle"],
        },
        {"hand": ["Unicorn", "Seraph"], "head": "Fairy"},
    ]
    s = position(2, players=players, deck=["Pegasus"] * 2)
    s = play(s, "Ouroboros")  # 4 yellow mana
    assert legal(s) == ["Fairy", "ACT"]  # the Fairy is free (Gargoyle), the Giant is not payable

    players[0] = dict(players[0], mana=["Golem", "Golem", "Imp"])
    s = position(2, players=players, deck=["Pegasus"] * 2)
    s = play(s, "Ouroboros")  # 5 mana
    assert legal(s) == ["Fairy", "Giant", "ACT"]
    s = play(s, "Giant")
    assert zone(s, "mana", 0) == {}  # all five paid
    assert zone(s, "spirits", 0) == {"Giant": 2, "Gargoyle": 1}
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


def test_AS020_gargoyle_reduces_the_first_giant():
    # no Giant in play yet: 1 shield (Gargoyle's) + 1 (Gargoyle's reduction) -> Y**
    s = position(
        2,
        players=[
            {"hand": ["Giant", "Imp"], "head": "Golem", "mana": ["Imp"], "spirits": ["Gargoyle"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Fairy"},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Imp")
    assert legal(s) == ["Giant", "ACT"]
    s = play(s, "Giant")
    assert zone(s, "mana", 0) == {}
    assert zone(s, "spirits", 0) == {"Gargoyle": 1, "Giant": 1}


# ---- AS021 Undine ---------------------------------------------------------------------


def test_AS021_undine_one_faith_before_the_pilgrimage_choice():
    s = position(
        2,
        players=[
            {"hand": ["Unicorn", "Seraph"], "head": "Angel", "faith": 3, "spirits": ["Undine"]},
            {"hand": ["Golem", "Titania"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Unicorn")  # 5 + 5 = 10: Pilgrimage
    assert phase(s) == Phase.PILGRIMAGE
    assert faith(s) == [4, 1]  # already gained when choosing
    s = play(s, "OPTION_A")
    assert vp(s) == [4, 0]
    assert faith(s) == [4, 1]
    assert_turn_of(s, 1, ["Golem", "Titania"])


def test_AS021_undine_faith_is_capped_at_ten():
    s = position(
        2,
        players=[
            {"hand": ["Unicorn", "Seraph"], "head": "Angel", "faith": 10, "spirits": ["Undine"]},
            {"hand": ["Golem", "Titania"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Unicorn", "OPTION_A")
    assert faith(s) == [10, 1]
    assert vp(s) == [10, 0]


# ---- AS022 Angel ----------------------------------------------------------------------


@pytest.mark.parametrize("before, after", [(1, 3), (9, 10)])
def test_AS022_angel_when_summoned_two_faith(before, after):
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Pegasus"], "head": "Unicorn", "faith": before},
            {"hand": ["Golem", "Seraph"], "head": "Golem"},
        ],
        deck=["Imp"] * 2,
    )
    s = play(s, "Pegasus")
    assert legal(s) == ["Angel", "ACT"]
    s = play(s, "Angel")  # UU from two blue mana
    assert zone(s, "spirits", 0) == {"Angel": 1}
    assert faith(s) == [after, 1]
    assert_turn_of(s, 1, ["Golem", "Seraph"])


# ---- AS023 Unicorn --------------------------------------------------------------------


@pytest.mark.parametrize(
    "option, exp_vp, exp_faith, exp_hand",
    [
        ("OPTION_A", 5, 3, {"Seraph": 1, "Pegasus": 1}),  # faith 3 + 2
        ("OPTION_B", 2, 4, {"Seraph": 1, "Pegasus": 2}),  # draw 1, faith +1, and still +2
    ],
)
def test_AS023_unicorn_pilgrimage_gains_two_vp(option, exp_vp, exp_faith, exp_hand):
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Seraph"], "head": "Angel", "faith": 3, "spirits": ["Unicorn"]},
            {"hand": ["Golem", "Titania"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 3,
    )
    s = play(s, "Angel")
    assert phase(s) == Phase.PILGRIMAGE
    s = play(s, option)
    assert vp(s) == [exp_vp, 0]
    assert faith(s) == [exp_faith, 1]
    assert zone(s, "hand", 0) == exp_hand
    assert_turn_of(s, 1, ["Golem", "Titania"])


# ---- AS024 Pegasus ---------------------------------------------------------------------


@pytest.mark.parametrize("pegasus_1, both", [(0, True), (1, False)])
def test_AS024_pegasus_festival_compares_faith_two_higher(pegasus_1, both):
    # player 0: faith 2 -> 3 with Festival, compared as 5; player 1: faith 4 (6 with a Pegasus)
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Seraph"], "head": "Fairy", "faith": 2, "spirits": ["Pegasus"]},
            {"hand": ["Golem", "Titania"], "head": "Golem", "faith": 4, "spirits": ["Pegasus"] * pegasus_1},
        ],
        deck=["Imp"] * 4,
    )
    s = play(s, "Angel")  # 7: Festival
    assert faith(s) == [3, 4]  # the chips themselves do not change
    imps = 2 if both else 1
    assert zone(s, "mana", 0) == {"Fairy": 1, "Angel": 1, "Imp": imps}
    assert_turn_of(s, 1, ["Golem", "Titania"])


def test_AS024_pegasus_inquisition_compares_faith_two_higher():
    # player 0: faith 3 + Pegasus = 5. Player 1 (4) gives; player 2 (1 + two Pegasus = 5)
    # and player 3 (5) are not lower.
    s = position(
        4,
        players=[
            {"hand": ["Golem", "Angel"], "head": "Golem", "faith": 3, "spirits": ["Pegasus"]},
            {"hand": ["Unicorn", "Undine", "Valkyrie"], "faith": 4},
            {"hand": ["Angel", "Seraph"], "faith": 1, "spirits": ["Pegasus", "Pegasus"]},
            {"hand": ["Titania", "Seraph"], "faith": 5},
        ],
        deck=["Imp"] * 4,
    )
    s = play(s, "Golem")  # 8: Inquisition (Angel not payable)
    assert phase(s) == Phase.INQUISITION_GIFT
    assert int(s.current_player[0]) == 1
    assert legal(s) == ["Undine", "Unicorn", "Valkyrie"]
    s = play(s, "Unicorn")
    assert zone(s, "hand", 0) == {"Imp": 3, "Angel": 1, "Unicorn": 1}  # 2 drawn + 1 given + 1 kept
    assert zone(s, "hand", 2) == {"Angel": 1, "Seraph": 1}
    assert zone(s, "hand", 3) == {"Titania": 1, "Seraph": 1}
    assert faith(s) == [3, 4, 1, 5]
    assert_turn_of(s, 1, ["Undine", "Valkyrie"])


# ---- AS025 Valkyrie --------------------------------------------------------------------


def test_AS025_valkyrie_cannot_be_stolen_from_by_conquest():
    s = position(
        4,
        players=[
            {"hand": ["Fairy", "Dryad"], "head": "Nightmare"},
            {"hand": ["Unicorn", "Seraph"], "vp": 5, "spirits": ["Valkyrie"]},
            {"hand": ["Unicorn", "Seraph"], "vp": 2},
            {"hand": ["Golem", "Titania"], "vp": 3},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Fairy", "ACT")  # 3: Conquest, no icons
    assert phase(s) == Phase.CONQUEST_TARGET
    assert legal(s) == ["TARGET_2", "TARGET_3"]  # player 1 (TARGET_1) is protected
    s = play(s, "TARGET_2")
    assert vp(s) == [1, 5, 1, 3]
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


def test_AS025_valkyrie_protects_only_against_other_players():
    # the Valkyrie's owner steals normally
    s = position(
        2,
        players=[
            {"hand": ["Fairy", "Dryad"], "head": "Nightmare", "spirits": ["Valkyrie"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem", "vp": 2, "spirits": ["Valkyrie"]},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Fairy", "ACT")
    # player 1 is not robbed and no target is asked for; docs/rules.md R6.1 [decision]:
    # a protected player counts as having none, so the VP comes from the supply
    # (the rulebook's R6.1 alone would say "only if no other player has any").
    assert vp(s) == [1, 2]
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])

    s = position(
        2,
        players=[
            {"hand": ["Fairy", "Dryad"], "head": "Nightmare", "spirits": ["Valkyrie"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem", "vp": 2},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Fairy", "ACT")
    assert vp(s) == [1, 1]


# ---- AS026 Baal -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spirits, others, vps",
    [
        (["Baal"], [{}, {}, {}], [4, 2, 0, 0]),  # 2 axes + 1 from players 1 and 3
        (["Baal", "Ifrit"], [{}, {}, {}], [6, 1, 0, 0]),  # 3 icons + 2 from player 1, 1 from player 3
        (["Baal"], [{"spirits": ["Valkyrie"]}, {}, {}], [3, 3, 0, 0]),  # player 1 protected
        (["Baal", "Baal"], [{}, {}, {}], [7, 1, 0, 0]),  # 4 axes, 2 from each (brief: n copies steal n)
    ],
)
def test_AS026_baal_steals_from_every_other_player(spirits, others, vps):
    start = [3, 0, 1]
    players = [{"hand": ["Fairy", "Dryad"], "head": "Nightmare", "spirits": spirits}]
    hands = [["Unicorn", "Seraph"], ["Unicorn", "Seraph"], ["Golem", "Titania"]]
    for i in range(3):
        players.append(dict(others[i], hand=hands[i], vp=start[i]))
    s = position(4, players=players, deck=["Pegasus"] * 2)
    s = play(s, "Fairy", "ACT")  # no target to choose
    assert vp(s) == vps
    assert int(s.head[0, 3]) == kind("Pegasus")
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


def test_AS026_baal_from_the_supply_if_nobody_has_any():
    s = position(
        3,
        players=[
            {"hand": ["Fairy", "Dryad"], "head": "Nightmare", "spirits": ["Baal"]},
            {"hand": ["Unicorn", "Seraph"]},
            {"hand": ["Unicorn", "Seraph"]},
        ],
        deck=["Pegasus"] * 2,
    )
    s = play(s, "Fairy", "ACT")
    assert vp(s) == [3, 0, 0]


# ---- AS027 Titania (game end) -------------------------------------------------------------


def test_AS027_titania_one_vp_per_staff_icon_at_game_end():
    s = last_turn_position(
        2,
        players=[
            {"hand": ["Fairy", "Imp"], "head": "Treant", "spirits": ["Titania", "Dryad"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem", "vp": 6},
        ],
        deck=["Pegasus"] * 2,
    )
    # now: points 2 + 1, staves 2 + 1 -> 6, a tie the declarer loses
    assert scores(s) == [6, 6]
    s = play(s, "Imp", "Fairy")  # the last turn: summon a third staff spirit
    assert zone(s, "spirits", 0) == {"Titania": 1, "Dryad": 1, "Fairy": 1}
    assert vp(s) == [0, 6]
    assert scores(s) == [2 + 1 + 0 + 4, 6]
    assert_game_over(s, winner=0)


# ---- AS028 Chimera (game end) -------------------------------------------------------------


def test_AS028_chimera_two_full_icon_sets_score_14():
    # axes: Imp x2; staves: Fairy x2; swords: Chimera + Salamander; shields: Homunculus x2;
    # armour: Angel, and the second Angel is summoned in the last turn.
    spirits = ["Chimera", "Salamander", "Imp", "Imp", "Fairy", "Fairy", "Homunculus", "Homunculus", "Angel"]
    s = last_turn_position(
        2,
        players=[
            {"hand": ["Angel", "Pegasus"], "head": "Unicorn", "spirits": spirits},
            {"hand": ["Golem", "Seraph"], "head": "Golem", "vp": 20},
        ],
        deck=["Imp"] * 2,
    )
    printed = 2 + 1 + 1 + 1 + 0 + 0 + 0 + 0 + 1
    assert scores(s) == [printed + 7, 20]  # one full set
    s = play(s, "Pegasus", "Angel")
    printed += 1
    assert zone(s, "spirits", 0)["Angel"] == 2
    assert vp(s) == [0, 20]
    assert printed == 7
    assert scores(s) == [printed + 14, 20]  # 21: two full sets score 14, and win
    assert_game_over(s, winner=0)


def test_AS028_chimera_copies_add_up():
    # R10.1: two Chimeras, one full set of icons: 7 each
    spirits = ["Chimera", "Chimera", "Imp", "Fairy", "Homunculus", "Angel"]
    s = last_turn_position(
        2,
        players=[
            {"hand": ["Salamander", "Golem"], "head": "Salamander", "spirits": spirits},
            {"hand": ["Golem", "Seraph"], "head": "Golem", "vp": 19},
        ],
        deck=["Pegasus"] * 4,
    )
    s = play(s, "Salamander", "OPTION_A")  # 3 + 3 = 6: Prayer (a), the game's last action
    assert zone(s, "hand", 0) == {"Golem": 1, "Pegasus": 3}
    printed = 2 + 2 + 1 + 0 + 0 + 1
    assert scores(s) == [printed + 14, 19]
    assert_game_over(s, winner=0)


# ---- AS029 Ouroboros (game end) ------------------------------------------------------------


def test_AS029_ouroboros_one_vp_per_stone_at_game_end():
    s = last_turn_position(
        2,
        players=[
            {"hand": ["Fairy", "Angel"], "head": "Fairy", "stones": ["Imp", "Imp"], "spirits": ["Ouroboros"]},
            {"hand": ["Golem", "Seraph"], "head": "Golem", "vp": 6},
        ],
        deck=["Pegasus"] * 2,
    )
    assert scores(s) == [2 + 2, 6]
    s = play(s, "Fairy", "ACT")  # Research: 2 VP for the stones, then one green mana flipped
    assert vp(s) == [2, 6]
    assert n_cards(zone(s, "stones", 0)) == 3
    assert scores(s) == [2 + 2 + 3, 6]
    assert_game_over(s, winner=0)


# ---- AS030 Seraph (game end) ----------------------------------------------------------------


def test_AS030_seraph_vp_equal_to_faith_at_game_end():
    s = last_turn_position(
        2,
        players=[
            {"hand": ["Unicorn", "Pegasus"], "head": "Angel", "faith": 5, "spirits": ["Seraph"]},
            {"hand": ["Golem", "Titania"], "head": "Golem", "vp": 7},
        ],
        deck=["Imp"] * 3,
    )
    assert scores(s) == [2 + 5, 7]
    s = play(s, "Unicorn")
    assert legal(s) == ["Pegasus", "ACT"]
    s = play(s, "ACT", "OPTION_B")  # Pilgrimage (b): draw 1, faith 6
    assert faith(s) == [6, 1]
    assert vp(s) == [0, 7]
    assert scores(s) == [2 + 6, 7]
    assert_game_over(s, winner=0)


# ---- R10.1 -------------------------------------------------------------------------------


def test_R10_1_copies_add_up():
    # three Imps (3 axes, +3), two Cerberus (2 swords, +1 each for an assisted 5)
    s = position(
        2,
        players=[
            {"hand": ["Fairy", "Dryad"], "head": "Nightmare", "spirits": ["Imp"] * 3 + ["Cerberus"] * 2},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem", "vp": 2},
        ],
        deck=["Angel", "Pegasus"],
    )
    s = play(s, "Fairy", "ACT")
    assert vp(s) == [3 + 2 + 3 + 1, 1]
    assert phase(s) == Phase.KEEP
    s = play(s, "Pegasus")  # the Angel (5) is assisted
    assert vp(s) == [3 + 2 + 3 + 1 + 2, 1]
    assert int(s.head[0, 1]) == kind("Angel")
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


def test_R10_1_optional_abilities_may_be_declined():
    # Leprechaun, Asmodai, Baldanders and Belial each asked, each declined: the turn
    # goes exactly as without them.
    s = position(
        2,
        players=[
            {
                "hand": ["Fairy", "Golem", "Angel"],
                "head": "Unicorn",
                "mana": ["Dryad", "Imp"],
                "spirits": ["Leprechaun", "Asmodai", "Baldanders", "Belial"],
            },
            {"hand": ["Golem", "Seraph"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 2,
    )
    assert phase(s) == Phase.LEPRECHAUN and legal(s) == YES_NO
    s = play(s, "NO")
    assert phase(s) == Phase.COMMAND
    assert zone(s, "hand", 0) == {"Fairy": 1, "Golem": 1, "Angel": 1}
    s = play(s, "Golem")  # 5 + 4 = 9
    assert phase(s) == Phase.ASMODAI and legal(s) == YES_NO
    s = play(s, "NO")
    assert int(s.command_number[0]) == 9
    assert phase(s) == Phase.MAIN
    s = play(s, "Fairy")
    assert phase(s) == Phase.BALDANDERS and legal(s) == ["Angel", "NO"]
    s = play(s, "NO")  # then G paid by the Dryad, Phase III
    assert phase(s) == Phase.BELIAL and legal(s) == ["MANA_BLACK", "NO"]
    s = play(s, "NO")
    assert vp(s) == [0, 0]
    assert zone(s, "spirits", 0) == {"Leprechaun": 1, "Asmodai": 1, "Baldanders": 1, "Belial": 1, "Fairy": 1}
    assert zone(s, "mana", 0) == {"Imp": 1, "Golem": 1, "Unicorn": 1}
    assert zone(s, "hand", 0) == {"Angel": 1, "Pegasus": 1}
    assert_turn_of(s, 1, ["Golem", "Seraph"])


def test_R10_1_abilities_that_only_gain_are_automatic():
    # Alchemy (b) with Golem and Will-o'-wisp, then the next player's turn: nobody is
    # asked anything about the abilities.
    s = position(
        2,
        players=[
            {"hand": ["Golem", "Angel"], "head": "Imp", "spirits": ["Golem", "Will-o'-wisp"]},
            {"hand": ["Unicorn", "Seraph"], "head": "Golem"},
        ],
        deck=["Pegasus"] * 4,
    )
    s = play(s, "Golem")
    assert phase(s) == Phase.ALCHEMY and legal(s) == ["OPTION_A", "OPTION_B"]
    s = play(s, "OPTION_B")
    assert vp(s) == [1, 0]
    assert faith(s) == [2, 1]
    assert zone(s, "stones", 0) == {"Pegasus": 2}
    assert_turn_of(s, 1, ["Unicorn", "Seraph"])


def test_abilities_work_only_for_their_owner():
    # player 1's spirits do nothing on player 0's turn: no Gargoyle reduction, no
    # Imp VP, no Cerberus VP, no Belial / Leprechaun / Asmodai / Baldanders prompt.
    s = position(
        2,
        players=[
            {"hand": ["Fairy", "Imp", "Treant"], "head": "Nightmare"},
            {
                "hand": ["Unicorn", "Seraph"],
                "head": "Golem",
                "vp": 2,
                "mana": ["Succubus"],
                "spirits": ["Imp", "Cerberus", "Belial", "Leprechaun", "Asmodai", "Baldanders", "Gargoyle"],
            },
        ],
        deck=["Angel", "Pegasus"],
    )
    assert phase(s) == Phase.COMMAND
    s = play(s, "Fairy")
    assert phase(s) == Phase.MAIN
    # mana: Nightmare, Fairy. Treant GG* would cost G* (payable) with a Gargoyle of one's own
    assert legal(s) == ["Imp", "ACT"]
    s = play(s, "ACT")  # Conquest: no icons, 1 stolen
    assert vp(s) == [1, 1]
    assert phase(s) == Phase.KEEP
    s = play(s, "Pegasus")  # the Angel (5) goes to player 1
    assert vp(s) == [1, 1]
    # player 1's turn starts with their own Leprechaun
    assert phase(s) == Phase.LEPRECHAUN
    assert int(s.active_player[0]) == 1 and int(s.current_player[0]) == 1
    assert legal(s) == YES_NO
