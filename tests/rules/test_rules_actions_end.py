"""Scenario tests for docs/rules.md R6 (the seven actions), R7 (end of the game),
R8 (exceptions: empty deck, empty hand, nothing to draw) and R1.4 (chips).

Every test sets up a position with ``aos_env.tools.positions.position`` and checks
the exact outcome. ``deck=[...]`` fixes the cards that will be drawn (the
deck is a multiset, so a deck of one kind makes the order irrelevant); the
cards the position does not place go to the discard pile. Command numbers
are head + command card (black 1, green 2, red 3, yellow 4, blue 5).

Reminder of the engine conventions used here: a decision with a single legal
action is taken by the engine, so a step runs on to the next real choice
(often the next player's command card); ``TARGET_i`` is the player i seats to
the left; repeated choices are made in ascending action order.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import CARDS, action_id, legal, phase, play, position, total_cards, zone

from aos_env import core
from aos_env.core import Phase

# ---- helpers ----------------------------------------------------------------------------


def kind(name: str) -> int:
    return CARDS.kind(name)


def rest_of_cards(*groups) -> list[str]:
    """Every card of the 110 that is not in ``groups`` (lists of card names), as names."""
    used = Counter()
    for g in groups:
        used.update(g)
    out = []
    for k, name in enumerate(CARDS.names):
        n = int(CARDS.copies[k]) - used[name]
        assert n >= 0, f"too many {name}"
        out += [name] * n
    return out


def over(state: core.State) -> bool:
    return bool(state.terminated[0] or state.truncated[0])


def command(state: core.State, card: str, number: int) -> core.State:
    """Phase I with ``card`` (checking the command number), then Phase II: the action.

    If a summon was possible too, Phase II is a real decision and ACT is chosen;
    otherwise the engine has taken ACT by itself.
    """
    turn = int(state.turn[0])
    state = play(state, card)
    if phase(state) == Phase.MAIN:
        assert int(state.command_number[0]) == number
        state = play(state, "ACT")
    elif int(state.turn[0]) == turn and not over(state):
        assert int(state.command_number[0]) == number
    return state


def finish_turn(state: core.State, declare: str | None = None, turn: int | None = None) -> core.State:
    """Play a turn to its end: ACT in Phase II, the first legal action elsewhere.

    ``turn``: the turn (``state.turn`` value) to finish, by default the current one; nothing is
    played if it is already over. ``declare``: the answer if the end declaration is offered;
    None means it must not be offered (the test fails if it is).
    """
    turn = int(state.turn[0]) if turn is None else turn
    while not over(state) and int(state.turn[0]) == turn:
        ph = phase(state)
        if ph == Phase.MAIN:
            a = "ACT"
        elif ph == Phase.DECLARE:
            assert declare is not None, f"player {int(state.active_player[0])} was offered the end declaration"
            a = declare
        else:
            a = int(np.argmax(state.legal_action_mask[0]))
        state = play(state, a)
    return state


def hand_size(state: core.State, p: int) -> int:
    return int(state.hand[0, p].sum())


# =========================================================================================
# R6.1 Conquest
# =========================================================================================


def test_R6_1_conquest_scores_axe_and_sword_icons_then_steals_from_chosen_player() -> None:
    """R6.1: gain 1 VP per axe and sword icon on your spirits (staff, shield, armour do not
    count), then steal 1 VP chip from one other player of your choice who has one."""
    s = position(
        3,
        players=[
            {
                "hand": ["Imp", "Angel"],
                "head": "Leprechaun",
                "vp": 1,
                "spirits": ["Nightmare", "Succubus", "Phoenix", "Fairy", "Golem", "Angel"],
            },  # 2 axes, 1 sword
            {"hand": ["Imp", "Angel"], "vp": 4},
            {"hand": ["Imp", "Angel"], "vp": 2},
        ],
        deck=["Golem"] * 2,
    )
    s = command(s, "Imp", 3)  # Leprechaun 2 + Imp 1: "3 or less"
    assert phase(s) == Phase.CONQUEST_TARGET and int(s.current_player[0]) == 0
    assert s.vp[0].tolist() == [4, 4, 2], "icons are scored before the steal: +3"
    assert legal(s) == ["TARGET_1", "TARGET_2"]
    s = play(s, "TARGET_2")  # player 2
    assert s.vp[0].tolist() == [5, 4, 1]
    # Phase III: one Golem kept, the other assisted to the right neighbour (player 2)
    assert int(s.active_player[0]) == 1 and phase(s) == Phase.COMMAND
    assert zone(s, "hand", 0) == {"Angel": 1, "Golem": 1}
    assert int(s.head[0, 2]) == kind("Golem")


def test_R6_1_conquest_only_players_with_vp_can_be_stolen_from() -> None:
    """R6.1: the victim must have at least one VP chip; among those the player chooses (4 players)."""
    s = position(
        4,
        players=[
            {"hand": ["Imp", "Angel"], "head": "Imp"},
            {"hand": ["Imp", "Angel"], "vp": 0},
            {"hand": ["Imp", "Angel"], "vp": 3},
            {"hand": ["Fairy", "Angel"], "vp": 1},
        ],
        deck=["Golem"] * 2,
    )
    s = command(s, "Imp", 2)
    assert phase(s) == Phase.CONQUEST_TARGET
    assert legal(s) == ["TARGET_2", "TARGET_3"], "player 1 has no VP chip"
    s = play(s, "TARGET_3")
    assert s.vp[0].tolist() == [1, 0, 3, 0]
    assert int(s.active_player[0]) == 1 and phase(s) == Phase.COMMAND


def test_R6_1_conquest_takes_from_supply_when_no_other_player_has_vp() -> None:
    """R6.1: if no other player has a VP chip, 1 VP comes from the supply (your own chips do not count)."""
    s = position(
        2,
        players=[
            {"hand": ["Imp", "Angel"], "head": "Imp", "vp": 3, "spirits": ["Salamander"]},
            {"hand": ["Imp", "Fairy"], "vp": 0},
        ],
        deck=["Golem"] * 2,
    )
    s = command(s, "Imp", 2)
    # no target decision: 1 sword + 1 from the supply, the opponent keeps 0
    assert s.vp[0].tolist() == [5, 0]
    assert int(s.active_player[0]) == 1 and phase(s) == Phase.COMMAND


def test_R6_1_conquest_cannot_steal_from_valkyrie_protected_player() -> None:
    """R6.1 with Valkyrie: a protected player is never a victim; if only protected players have
    VP, the chip comes from the supply [decision]."""
    s = position(
        3,
        players=[
            {"hand": ["Imp", "Angel"], "head": "Imp"},
            {"hand": ["Imp", "Angel"], "vp": 5, "spirits": ["Valkyrie"]},
            {"hand": ["Imp", "Fairy"], "vp": 2},
        ],
        deck=["Golem"] * 2,
    )
    s = command(s, "Imp", 2)  # the only possible victim (player 2) is taken automatically
    assert s.vp[0].tolist() == [1, 5, 1]

    s = position(
        2,
        players=[
            {"hand": ["Imp", "Angel"], "head": "Imp"},
            {"hand": ["Imp", "Fairy"], "vp": 5, "spirits": ["Valkyrie"]},
        ],
        deck=["Golem"] * 2,
    )
    s = command(s, "Imp", 2)
    assert s.vp[0].tolist() == [1, 5]


@pytest.mark.parametrize("head, number", [(None, 1), ("Imp", 2), ("Leprechaun", 3)])
def test_R6_1_command_number_3_or_less_is_conquest(head, number) -> None:
    """R6 table / R10.3: every command number of 3 or less is Conquest (no head counts 0, R3.1.3)."""
    s = position(
        2,
        players=[
            {"hand": ["Imp", "Angel"], "head": head},
            {"hand": ["Imp", "Fairy"]},
        ],
        deck=["Golem"] * 2,
    )
    s = command(s, "Imp", number)
    assert s.vp[0].tolist() == [1, 0], "Conquest with no icons and no victim: 1 VP from the supply"
    assert int(s.active_player[0]) == 1


# =========================================================================================
# R6.2 Research
# =========================================================================================


def test_R6_2_research_scores_before_flipping() -> None:
    """R6.2 (rulebook example): gain 1 VP per stone FIRST, then turn one face-up mana of your
    choice into a stone; the flip is mandatory."""
    s = position(
        2,
        players=[
            {"hand": ["Salamander", "Angel"], "head": "Imp", "mana": ["Angel", "Fairy"], "stones": ["Golem", "Golem"]},
            {"hand": ["Imp", "Fairy"]},
        ],
        deck=["Golem"] * 2,
    )
    s = play(s, "Salamander")  # Imp 1 + Salamander 3 = 4
    assert phase(s) == Phase.MAIN and int(s.command_number[0]) == 4  # Angel (UU) could be summoned
    s = play(s, "ACT")
    assert phase(s) == Phase.RESEARCH_FLIP
    assert int(s.vp[0, 0]) == 2, "2 stones before the flip, not 3"
    assert legal(s) == ["MANA_BLACK", "MANA_GREEN", "MANA_RED", "MANA_BLUE"], "no way to skip the flip"
    s = play(s, "MANA_BLUE")
    assert s.vp[0].tolist() == [2, 0]
    assert zone(s, "stones", 0) == {"Golem": 2, "Angel": 1}
    assert zone(s, "mana", 0) == {"Imp": 1, "Fairy": 1, "Salamander": 1}
    assert int(s.active_player[0]) == 1 and phase(s) == Phase.COMMAND


def test_R6_2_research_with_one_face_up_mana_flips_it_and_scores_zero() -> None:
    """R6.2: with no stone, Research scores 0 even though a stone is made by the flip;
    the only face-up mana (here the command card, no head: R3.1.3) is flipped."""
    s = position(
        2,
        players=[
            {"hand": ["Golem", "Imp"]},  # no head: 0 + Golem 4 = 4
            {"hand": ["Imp", "Fairy"]},
        ],
        deck=["Phoenix"] * 2,
    )
    s = command(s, "Golem", 4)
    assert s.vp[0].tolist() == [0, 0]
    assert zone(s, "stones", 0) == {"Golem": 1} and zone(s, "mana", 0) == {}
    assert zone(s, "hand", 0) == {"Imp": 1, "Phoenix": 1}
    assert int(s.active_player[0]) == 1


# =========================================================================================
# R6.3 Alchemy
# =========================================================================================


def _alchemy_position(deck_size: int, faith: int = 1) -> core.State:
    return position(
        2,
        players=[
            {"hand": ["Gargoyle", "Angel"], "head": "Imp", "faith": faith},
            {"hand": ["Imp", "Fairy"]},
        ],
        deck=["Golem"] * deck_size,
    )


def test_R6_3_alchemy_a_draws_one_card_and_gains_a_stone() -> None:
    """R6.3 (a): draw 1 card and gain a philosopher's stone (top card of the deck face down, R4.4)."""
    s = command(_alchemy_position(4), "Gargoyle", 5)  # Imp 1 + Gargoyle 4
    assert phase(s) == Phase.ALCHEMY and legal(s) == ["OPTION_A", "OPTION_B"]
    s = play(s, "OPTION_A")
    # action: a Golem to hand, a Golem face down; Phase III: one Golem kept, one assisted
    assert zone(s, "hand", 0) == {"Angel": 1, "Golem": 2}
    assert zone(s, "stones", 0) == {"Golem": 1}
    assert s.faith[0].tolist() == [1, 1]
    assert zone(s, "mana", 1) == {"Golem": 1} and int(s.head[0, 1]) == kind("Golem")
    assert int(s.deck[0].sum()) == 0


def test_R6_3_alchemy_b_gains_faith_and_a_stone() -> None:
    """R6.3 (b): gain 1 faith and a philosopher's stone; no card is drawn."""
    s = command(_alchemy_position(3), "Gargoyle", 5)
    s = play(s, "OPTION_B")
    assert s.faith[0].tolist() == [2, 1]
    assert zone(s, "stones", 0) == {"Golem": 1}
    assert zone(s, "hand", 0) == {"Angel": 1, "Golem": 1}  # only the card kept in Phase III
    assert int(s.deck[0].sum()) == 0 and int(s.active_player[0]) == 1


# =========================================================================================
# R6.4 Prayer
# =========================================================================================


def _prayer_position(hand: list[str], deck: list[str]) -> core.State:
    return position(
        2,
        players=[
            {"hand": ["Angel", *hand], "head": "Imp"},  # Imp 1 + Angel 5 = 6
            {"hand": ["Imp", "Dryad"]},
        ],
        deck=deck,
    )


def test_R6_4_prayer_a_draws_two_cards() -> None:
    """R6.4 (a): draw 2 cards."""
    s = command(_prayer_position(["Fairy", "Golem"], ["Phoenix"] * 4), "Angel", 6)
    assert phase(s) == Phase.PRAYER and legal(s) == ["OPTION_A", "OPTION_B"]
    s = play(s, "OPTION_A")
    assert zone(s, "hand", 0) == {"Fairy": 1, "Golem": 1, "Phoenix": 3}  # 2 + 1 kept in Phase III
    assert int(s.deck[0].sum()) == 0 and int(s.active_player[0]) == 1


def test_R6_4_prayer_b_discard_some_then_draw_up_to_five() -> None:
    """R6.4 (b): discard any number of cards from hand, then draw until holding 5."""
    s = _prayer_position(["Fairy", "Golem", "Golem", "Salamander"], ["Phoenix"] * 4)
    discarded_fairies = int(s.discard[0, kind("Fairy")])
    s = command(s, "Angel", 6)
    s = play(s, "OPTION_B")
    assert phase(s) == Phase.PRAYER_DISCARD
    assert legal(s) == ["Fairy", "Salamander", "Golem", "NO"]
    s = play(s, "Fairy")
    assert phase(s) == Phase.PRAYER_DISCARD
    # engine convention: the multiset of discards is chosen in ascending kind order
    assert legal(s) == ["Salamander", "Golem", "NO"]
    s = play(s, "NO")  # 3 cards left: draw 2, then Phase III
    assert zone(s, "hand", 0) == {"Salamander": 1, "Golem": 2, "Phoenix": 3}
    assert int(s.discard[0, kind("Fairy")]) == discarded_fairies + 1
    assert int(s.deck[0].sum()) == 0 and int(s.active_player[0]) == 1


def test_R6_4_prayer_b_zero_discards_allowed() -> None:
    """R6.4 (b): discarding zero cards is allowed; then draw up to 5 (here 1 card, not 2 as in (a))."""
    s = command(_prayer_position(["Fairy", "Golem", "Golem", "Salamander"], ["Phoenix"] * 3), "Angel", 6)
    s = play(s, "OPTION_B", "NO")
    assert zone(s, "hand", 0) == {"Fairy": 1, "Salamander": 1, "Golem": 2, "Phoenix": 2}
    assert int(s.deck[0].sum()) == 0 and int(s.active_player[0]) == 1


def test_R6_4_prayer_b_draws_nothing_when_holding_five_or_more() -> None:
    """R6.4 (b): nothing is drawn if the hand already holds 5 or more cards."""
    hand = ["Fairy", "Golem", "Golem", "Salamander", "Salamander", "Phoenix"]
    s = command(_prayer_position(hand, ["Undine"] * 2), "Angel", 6)
    s = play(s, "OPTION_B", "NO")
    # only Phase III: 2 Undines drawn, one kept; a further draw would have refilled the deck
    assert zone(s, "hand", 0) == {"Fairy": 1, "Golem": 2, "Salamander": 2, "Phoenix": 1, "Undine": 1}
    assert int(s.deck[0].sum()) == 0 and int(s.discard[0].sum()) > 0
    assert int(s.active_player[0]) == 1


def test_R6_4_prayer_b_discarding_the_whole_hand_draws_five() -> None:
    """R6.4 (b): any number includes the whole hand; then 5 cards are drawn."""
    s = command(_prayer_position(["Fairy", "Golem"], ["Phoenix"] * 4 + ["Undine"] * 3), "Angel", 6)
    s = play(s, "OPTION_B", "Fairy", "Golem")  # the hand is empty: the refill starts by itself
    if phase(s) == Phase.KEEP:
        assert hand_size(s, 0) == 5
    s = finish_turn(s, turn=0)
    hand = zone(s, "hand", 0)
    assert sum(hand.values()) == 6 and set(hand) <= {"Phoenix", "Undine"}
    assert int(s.deck[0].sum()) == 0


# =========================================================================================
# R6.5 Festival
# =========================================================================================


def _festival(faiths: list[int], deck: list[str], hand0=("Salamander", "Imp")) -> core.State:
    players = [{"hand": list(hand0), "head": "Gargoyle", "faith": faiths[0]}]  # Gargoyle 4 + Salamander 3
    players += [{"hand": ["Imp", "Fairy"], "faith": f} for f in faiths[1:]]
    return position(len(faiths), players=players, deck=deck)


def test_R6_5_festival_compares_faith_after_the_gain() -> None:
    """R6.5 (rulebook example): gain 1 faith FIRST, then compare: equal faith before the gain
    becomes higher after it, so both revealed cards go into the mana row."""
    s = command(_festival([2, 2], ["Angel"] * 4), "Salamander", 7)
    assert s.faith[0].tolist() == [3, 2]
    assert zone(s, "mana", 0) == {"Salamander": 1, "Gargoyle": 1, "Angel": 2}
    assert int(s.discard[0, kind("Angel")]) == 0
    assert zone(s, "hand", 0) == {"Imp": 1, "Angel": 1}  # Phase III: the 2 other Angels
    assert int(s.active_player[0]) == 1


def test_R6_5_festival_nobody_lower_one_card_to_mana_other_discarded() -> None:
    """R6.5: if no other player has lower faith (equal is not lower), one revealed card goes
    into the mana row and the other is discarded."""
    s = command(_festival([2, 3], ["Angel"] * 4), "Salamander", 7)
    assert s.faith[0].tolist() == [3, 3]
    assert zone(s, "mana", 0) == {"Salamander": 1, "Gargoyle": 1, "Angel": 1}
    assert int(s.discard[0, kind("Angel")]) == 1
    assert zone(s, "hand", 0) == {"Imp": 1, "Angel": 1}
    assert zone(s, "mana", 1) == {"Angel": 1}  # assisted
    assert int(s.deck[0].sum()) == 0


def test_R6_5_festival_player_chooses_the_revealed_card_to_keep() -> None:
    """R6.5: 'one of your choice': both revealed cards are offered, the chosen one becomes mana."""
    s = command(_festival([1, 5], ["Angel", "Imp"], hand0=("Salamander", "Fairy")), "Salamander", 7)
    assert phase(s) == Phase.FESTIVAL_PICK and int(s.current_player[0]) == 0
    assert s.faith[0].tolist() == [2, 5]
    assert zone(s, "offer") == {"Imp": 1, "Angel": 1}
    assert legal(s) == ["Imp", "Angel"]
    s = play(s, "Angel")
    assert zone(s, "mana", 0) == {"Salamander": 1, "Gargoyle": 1, "Angel": 1}
    assert total_cards(s).tolist() == [110]


def test_R6_5_festival_one_lower_player_is_enough() -> None:
    """R6.5: 'at least one other player' with lower faith: 3 players, one higher, one lower."""
    s = command(_festival([2, 6, 1], ["Angel"] * 4), "Salamander", 7)
    assert s.faith[0].tolist() == [3, 6, 1]
    assert zone(s, "mana", 0) == {"Salamander": 1, "Gargoyle": 1, "Angel": 2}
    assert int(s.head[0, 2]) == kind("Angel")  # Phase III: assisted to the right neighbour
    assert int(s.active_player[0]) == 1


# =========================================================================================
# R6.6 Inquisition
# =========================================================================================


def test_R6_6_inquisition_draws_three_cards() -> None:
    """R6.6: draw 3 cards (2 or 3 players); nobody has lower faith, so nobody gives."""
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Imp"], "head": "Salamander"},  # Salamander 3 + Angel 5 = 8
            {"hand": ["Imp", "Fairy"]},  # equal faith: not lower
        ],
        deck=["Phoenix"] * 3 + ["Golem"] * 2,
    )
    discard = int(s.discard[0].sum())
    s = command(s, "Angel", 8)
    s = finish_turn(s, turn=0)
    hand = zone(s, "hand", 0)
    assert sum(hand.values()) == 1 + 3 + 1 and hand["Imp"] == 1  # Imp + 3 drawn + 1 kept
    assert set(hand) <= {"Imp", "Phoenix", "Golem"}
    assert int(s.deck[0].sum()) == 0 and int(s.discard[0].sum()) == discard  # exactly 5 cards drawn
    assert zone(s, "hand", 1) == {"Imp": 1, "Fairy": 1}


def test_R6_6_inquisition_draws_two_with_four_players() -> None:
    """R6.6: in a 4-player game Inquisition draws 2 cards."""
    s = position(
        4,
        players=[
            {"hand": ["Angel", "Imp"], "head": "Salamander"},
            {"hand": ["Imp", "Fairy"]},
            {"hand": ["Imp", "Fairy"]},
            {"hand": ["Imp", "Fairy"]},
        ],
        deck=["Phoenix"] * 4,
    )
    s = command(s, "Angel", 8)
    assert zone(s, "hand", 0) == {"Imp": 1, "Phoenix": 3}  # 2 drawn + 1 kept
    assert int(s.head[0, 3]) == kind("Phoenix") and int(s.deck[0].sum()) == 0
    for p in (1, 2, 3):
        assert zone(s, "hand", p) == {"Imp": 1, "Fairy": 1}
    assert int(s.active_player[0]) == 1


def test_R6_6_lower_faith_players_give_a_card_of_their_choice_from_the_left() -> None:
    """R6.6: each other player with lower faith chooses a card from hand and gives it;
    givers act in turn order from the active player's left (equal faith does not give)."""
    s = position(
        4,
        players=[
            {"hand": ["Unicorn", "Valkyrie"], "faith": 2},  # lower: gives second
            {"hand": ["Imp", "Fairy"], "faith": 3},  # equal: gives nothing
            {"hand": ["Angel", "Imp"], "head": "Salamander", "faith": 3},  # active
            {"hand": ["Fairy", "Golem", "Undine"], "faith": 1},  # lower: gives first
        ],
        active=2,
        deck=["Phoenix"] * 4,
    )
    s = command(s, "Angel", 8)
    assert phase(s) == Phase.INQUISITION_GIFT
    assert int(s.active_player[0]) == 2 and int(s.current_player[0]) == 3
    assert legal(s) == ["Fairy", "Golem", "Undine"]
    assert zone(s, "hand", 2) == {"Imp": 1, "Phoenix": 2}, "the 2 cards are drawn before the gifts"
    s = play(s, "Fairy")
    assert phase(s) == Phase.INQUISITION_GIFT and int(s.current_player[0]) == 0
    assert legal(s) == ["Unicorn", "Valkyrie"]
    s = play(s, "Unicorn")
    assert zone(s, "hand", 2) == {"Imp": 1, "Fairy": 1, "Unicorn": 1, "Phoenix": 3}
    assert zone(s, "hand", 3) == {"Golem": 1, "Undine": 1}
    assert zone(s, "hand", 0) == {"Valkyrie": 1}
    assert zone(s, "hand", 1) == {"Imp": 1, "Fairy": 1}
    assert int(s.head[0, 1]) == kind("Phoenix")  # Phase III assist to player 2's right
    assert int(s.active_player[0]) == 3 and phase(s) == Phase.COMMAND


# =========================================================================================
# R6.7 Pilgrimage
# =========================================================================================


def _pilgrimage(faith: int, vp: int, deck: list[str], head: str = "Gargoyle") -> core.State:
    return position(
        2,
        players=[
            {"hand": ["Angel", "Imp"], "head": head, "faith": faith, "vp": vp},
            {"hand": ["Imp", "Fairy"]},
        ],
        deck=deck,
    )


def test_R6_7_pilgrimage_a_gains_vp_equal_to_faith_and_keeps_faith() -> None:
    """R6.7 (a): gain VP equal to your faith; the faith is kept."""
    s = command(_pilgrimage(4, 3, ["Phoenix"] * 2), "Angel", 9)  # Gargoyle 4 + Angel 5
    assert phase(s) == Phase.PILGRIMAGE and legal(s) == ["OPTION_A", "OPTION_B"]
    s = play(s, "OPTION_A")
    assert s.vp[0].tolist() == [7, 0] and s.faith[0].tolist() == [4, 1]
    assert zone(s, "hand", 0) == {"Imp": 1, "Phoenix": 1}  # no card drawn by the action


def test_R6_7_pilgrimage_b_draws_one_card_and_gains_one_faith() -> None:
    """R6.7 (b): draw 1 card and gain 1 faith."""
    s = command(_pilgrimage(4, 3, ["Phoenix"] * 3), "Angel", 9)
    s = play(s, "OPTION_B")
    assert s.vp[0].tolist() == [3, 0] and s.faith[0].tolist() == [5, 1]
    assert zone(s, "hand", 0) == {"Imp": 1, "Phoenix": 2}
    assert int(s.deck[0].sum()) == 0


@pytest.mark.parametrize("head, number", [("Gargoyle", 9), ("Angel", 10)])
def test_R6_7_command_number_9_or_more_is_pilgrimage(head, number) -> None:
    """R6 table / R10.3: every command number of 9 or more is Pilgrimage."""
    s = command(_pilgrimage(3, 0, ["Phoenix"] * 2, head=head), "Angel", number)
    assert phase(s) == Phase.PILGRIMAGE
    assert int(s.command_number[0]) == number


# =========================================================================================
# R1.4 Chips: faith capped at 10, VP unlimited, public
# =========================================================================================


@pytest.mark.parametrize("action", ["pilgrimage", "alchemy"])
def test_R1_4_faith_gain_beyond_10_is_lost(action) -> None:
    """R1.4: faith is capped at 10; the rest of the action still happens."""
    if action == "pilgrimage":
        s = command(_pilgrimage(10, 0, ["Phoenix"] * 3), "Angel", 9)
        s = play(s, "OPTION_B")
        assert zone(s, "hand", 0) == {"Imp": 1, "Phoenix": 2}, "the card is still drawn"
    else:
        s = command(_alchemy_position(3, faith=10), "Gargoyle", 5)
        s = play(s, "OPTION_B")
        assert zone(s, "stones", 0) == {"Golem": 1}, "the stone is still gained"
    assert s.faith[0].tolist() == [10, 1]


def test_R1_4_festival_at_faith_10_compares_capped_faith() -> None:
    """R1.4 + R6.5: at 10 faith the Festival gain is lost, so a player at 10 is not lower and
    the active player keeps only one revealed card."""
    s = command(_festival([10, 10], ["Angel"] * 4), "Salamander", 7)
    assert s.faith[0].tolist() == [10, 10]
    assert zone(s, "mana", 0) == {"Salamander": 1, "Gargoyle": 1, "Angel": 1}
    assert int(s.discard[0, kind("Angel")]) == 1


def test_R1_4_vp_chips_are_unlimited_and_public() -> None:
    """R1.4: VP chips are unlimited (no cap however many) and chips held are public: the other
    player's observation shows them."""
    s = command(_pilgrimage(10, 250, ["Phoenix"] * 2), "Angel", 9)
    s = play(s, "OPTION_A")
    assert s.vp[0].tolist() == [260, 0]
    sl = core.obs_slices()
    obs1 = core.observe(s, 1)[0]  # player 0 is seat 1 (one to the left) for player 1
    assert obs1[sl["seat1.vp"]][0] == pytest.approx(260 / 30)
    assert obs1[sl["seat1.faith"]][0] == pytest.approx(1.0)


# =========================================================================================
# R7.1 End declaration
# =========================================================================================


def test_R7_1_declaration_offered_with_30_vp_reached_this_turn() -> None:
    """R7.1: at the END of your turn, with 30+ VP chips, you may declare (VP gained this turn count)."""
    s = command(_pilgrimage(1, 29, ["Phoenix"] * 2), "Angel", 9)
    s = play(s, "OPTION_A")  # 29 + 1 = 30; Phase III runs by itself
    assert phase(s) == Phase.DECLARE and legal(s) == ["YES", "NO"]
    assert int(s.current_player[0]) == 0 and zone(s, "hand", 0) == {"Imp": 1, "Phoenix": 1}
    s = play(s, "YES")
    assert s.declarer[0] == 0 and not over(s)
    assert int(s.active_player[0]) == 1 and phase(s) == Phase.COMMAND


def test_R7_1_declaration_offered_with_10_spirits() -> None:
    """R7.1: 10 or more spirits in play allow the declaration (with 0 VP)."""
    spirits = ["Golem"] * 4 + ["Homunculus"] * 4 + ["Fairy"] * 2
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Imp"], "head": "Gargoyle", "spirits": spirits},
            {"hand": ["Imp", "Fairy"]},
        ],
        deck=["Phoenix"] * 3,
    )
    s = command(s, "Angel", 9)
    s = play(s, "OPTION_B")
    assert phase(s) == Phase.DECLARE and legal(s) == ["YES", "NO"] and s.vp[0, 0] == 0


def test_R7_1_no_declaration_below_both_thresholds() -> None:
    """R7.1: with 29 VP and 9 spirits the end cannot be declared: the turn passes."""
    spirits = ["Golem"] * 4 + ["Homunculus"] * 4 + ["Fairy"]
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Imp"], "head": "Gargoyle", "spirits": spirits, "vp": 29},
            {"hand": ["Imp", "Fairy"], "vp": 40},  # the other player's chips do not matter
        ],
        deck=["Phoenix"] * 3,
    )
    s = command(s, "Angel", 9)
    s = play(s, "OPTION_B")  # no VP gained
    assert core.final_scores(s)[0, 0] == 33, "the final score (chips + 4 Golems) does not count, only chips"
    assert int(s.active_player[0]) == 1 and phase(s) == Phase.COMMAND
    assert s.declarer[0] == -1


def test_R7_1_declaring_is_optional_and_possible_on_a_later_turn() -> None:
    """R7.1: the declaration is optional: NO lets the game go on, with no declarer; the player
    may declare at the end of a later turn."""
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Imp", "Fairy"], "head": "Gargoyle", "vp": 40},
            {"hand": ["Imp", "Salamander", "Golem"]},
        ],
        deck=["Phoenix"] * 2,
    )
    s = command(s, "Angel", 9)
    s = play(s, "OPTION_A")
    assert phase(s) == Phase.DECLARE
    s = play(s, "NO")
    assert s.declarer[0] == -1 and not over(s)
    assert int(s.active_player[0]) == 1 and int(s.turn[0]) == 1
    s = finish_turn(s)  # player 1's turn
    assert int(s.active_player[0]) == 0 and int(s.vp[0, 0]) >= 30
    s = finish_turn(s, declare="YES")
    assert s.declarer[0] == 0 and not over(s) and int(s.active_player[0]) == 1


def test_R7_1_only_the_first_declaration_counts() -> None:
    """R7.1: after a declaration nobody else may declare: a player with 30+ VP is not asked,
    and the end stays as the first declarer set it."""
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Imp"], "head": "Gargoyle", "vp": 35},
            {"hand": ["Imp", "Fairy", "Golem"]},
        ],
        deck=None,
        turn=5,
        declarer=1,
        last_turn=6,
    )  # player 1 declared at turn 4
    s = command(s, "Angel", 9)
    s = play(s, "OPTION_A")
    s = finish_turn(s, turn=5)  # no DECLARE phase may come up
    assert s.declarer[0] == 1 and int(s.vp[0, 0]) == 36
    assert int(s.active_player[0]) == 1 and not over(s)
    s = finish_turn(s, turn=6)  # the declarer's extra turn: the last one
    assert s.terminated[0] and s.declarer[0] == 1


# =========================================================================================
# R7.2 One more round, the declarer last
# =========================================================================================


@pytest.mark.parametrize("num_players, declarer, order", [(3, 0, [1, 2, 0]), (4, 2, [3, 0, 1, 2])])
def test_R7_2_one_more_round_with_the_declarer_last(num_players, declarer, order) -> None:
    """R7.2: after the declaration every player takes one more normal turn, the declarer last;
    the game ends after the declarer's extra turn. Nobody else is offered a declaration (R7.1)."""
    players = [{"hand": ["Imp", "Salamander", "Golem"], "vp": 35} for _ in range(num_players)]
    players[declarer] = {"hand": ["Angel", "Fairy", "Dryad"], "head": "Gargoyle", "vp": 30}
    s = position(num_players, players=players, active=declarer, turn=10)
    s = command(s, "Angel", 9)
    s = play(s, "OPTION_A")
    s = finish_turn(s, declare="YES", turn=10)
    assert s.declarer[0] == declarer and int(s.turn[0]) == 11
    played = []
    while not over(s):
        played.append(int(s.active_player[0]))
        assert (s.rewards == 0).all()
        s = finish_turn(s)  # fails if a 35-VP player is offered the declaration
    assert played == order
    assert int(s.turn[0]) == 10 + 1 + num_players
    assert s.terminated[0] and not s.truncated[0]
    assert phase(s) == Phase.GAME_OVER and not s.legal_action_mask[0].any()
    expected = sorted([-1.0 / (num_players - 1)] * (num_players - 1) + [1.0])
    np.testing.assert_allclose(sorted(s.rewards[0].tolist()), expected, rtol=1e-6)


def test_R7_2_extra_round_is_not_cut_by_the_turn_limit() -> None:
    """R7.2 + R7.5: a declaration in the last turn before the limit still gives the full extra
    round (opponent, then declarer); the game terminates by the rules, not by truncation."""
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Imp", "Fairy"], "head": "Gargoyle", "vp": 30},
            {"hand": ["Imp", "Salamander", "Golem"]},
        ],
        turn=9,
        max_turns=10,
    )
    s = command(s, "Angel", 9)
    s = play(s, "OPTION_A")
    s = finish_turn(s, declare="YES")
    assert int(s.turn[0]) == 10 and not over(s) and int(s.active_player[0]) == 1
    s = finish_turn(s)
    assert not over(s) and int(s.active_player[0]) == 0
    s = finish_turn(s)
    assert s.terminated[0] and not s.truncated[0]
    assert s.rewards[0].tolist() == [1.0, -1.0]  # 31 VP against at most 2


# =========================================================================================
# R7.3 Final score, R7.4 winner and tie-break, terminal rewards
# =========================================================================================


def test_R7_3_final_score_is_chips_plus_printed_points_plus_game_end_abilities() -> None:
    """R7.3: final score = VP chips + printed points + game-end abilities; faith and stones
    count only through abilities (Seraph, Ouroboros)."""
    s = position(
        2,
        players=[
            {
                "hand": ["Imp", "Angel"],
                "vp": 5,
                "faith": 4,
                "stones": ["Golem"] * 3,
                "spirits": ["Seraph", "Ouroboros", "Titania", "Chimera", "Imp", "Fairy"],
            },
            {"hand": ["Imp", "Fairy"], "vp": 7, "faith": 6, "stones": ["Golem"], "spirits": ["Giant"]},
        ],
    )
    # player 0: printed 2+2+2+2+1+0 = 9; Seraph faith 4; Ouroboros 3 stones; Titania 3 staffs
    # (2 Titania + 1 Fairy); Chimera: one full set (axe Imp, staff, sword Chimera, shield
    # Ouroboros, armour Seraph) = 7. Total 5 + 9 + 4 + 3 + 3 + 7 = 31.
    # player 1: 7 chips + Giant 3 = 10 (faith and stones add nothing)
    assert core.final_scores(s)[0].tolist() == [31, 10]


def test_R7_3_winner_has_the_highest_final_score_not_the_most_chips() -> None:
    """R7.3/R7.4: the winner is decided on final scores (player 0: 5 chips, 12 points in all)
    beating player 1 (8 chips, no spirits); terminal rewards +1 / -1."""
    s = position(
        2,
        players=[
            {"hand": ["Imp", "Fairy"], "vp": 5, "spirits": ["Giant", "Seraph"], "faith": 2},  # 5+3+2+2
            {"hand": ["Salamander", "Salamander", "Imp"], "head": "Salamander", "vp": 8},
        ],
        active=1,
        turn=20,
        declarer=1,
        last_turn=20,
    )
    s = command(s, "Salamander", 6)  # Prayer: draws only
    s = play(s, "OPTION_A")
    s = finish_turn(s, turn=20)
    assert s.terminated[0]
    assert core.final_scores(s)[0].tolist() == [12, 8]
    assert s.rewards[0].tolist() == [1.0, -1.0]


def _final_turn(vps: list[int], declarer: int) -> core.State:
    """The declarer's extra (last) turn, a Prayer (a) that changes no score; scores = chips."""
    players = [{"hand": ["Imp", "Fairy"], "vp": v} for v in vps]
    players[declarer] = {"hand": ["Salamander", "Imp", "Fairy"], "head": "Salamander", "vp": vps[declarer]}
    s = position(len(vps), players=players, active=declarer, turn=30, declarer=declarer, last_turn=30)
    s = command(s, "Salamander", 6)
    s = play(s, "OPTION_A")
    assert (s.rewards == 0).all() and not over(s)
    s = finish_turn(s, turn=30)
    assert s.terminated[0] and not s.truncated[0]
    assert core.final_scores(s)[0].tolist() == vps
    return s


def test_R7_4_tie_goes_to_the_tied_player_nearest_the_declarers_left() -> None:
    """R7.4: all three tie; player 2 (the declarer's left) beats player 0 and the declarer 1."""
    s = _final_turn([10, 10, 10], declarer=1)
    assert s.rewards[0].tolist() == [-0.5, -0.5, 1.0]


def test_R7_4_tie_break_goes_clockwise_around_the_table() -> None:
    """R7.4: 4 players, declarer 2; players 1 and 2 tie for the highest, players 3 and 0 sit
    nearer but score less: player 1 wins (clockwise after the declarer: 3, 0, 1)."""
    s = _final_turn([11, 12, 12, 11], declarer=2)
    third = -1.0 / 3.0
    np.testing.assert_allclose(s.rewards[0], [third, 1.0, third, third], rtol=1e-6)


def test_R7_4_declarer_never_wins_a_tie() -> None:
    """R7.4: 2 players tied: the declarer loses the tie."""
    s = _final_turn([15, 15], declarer=0)
    assert s.rewards[0].tolist() == [-1.0, 1.0]


def test_R7_4_declarer_with_the_strictly_highest_score_wins() -> None:
    """R7.4: without a tie the highest score wins, the declarer included."""
    s = _final_turn([16, 15, 3], declarer=0)
    assert s.rewards[0].tolist() == [1.0, -0.5, -0.5]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_R7_terminal_rewards_winner_plus_one_others_minus_one_over_p_minus_1(num_players) -> None:
    """Terminal rewards: the winner +1, every other player -1/(P-1) (zero-sum); only the final step."""
    vps = [5] * num_players
    vps[num_players - 1] = 9  # the winner, not the declarer (player 0)
    s = _final_turn(vps, declarer=0)
    expected = np.full(num_players, -1.0 / (num_players - 1))
    expected[num_players - 1] = 1.0
    np.testing.assert_allclose(s.rewards[0], expected, rtol=1e-6)
    assert abs(float(s.rewards[0].sum())) < 1e-6


# =========================================================================================
# R7.5 Truncation at the turn limit
# =========================================================================================


def test_R7_5_game_without_declaration_is_truncated_at_the_turn_limit() -> None:
    """R7.5 [decision]: with no declaration, the game is truncated once max_turns turns are
    played: nobody wins (all rewards 0, even with a clear leader); a finished game ignores actions."""
    s = position(
        2,
        players=[
            {"hand": ["Angel", "Imp"], "head": "Gargoyle", "vp": 20},
            {"hand": ["Imp", "Salamander", "Golem"]},
        ],
        turn=8,
        max_turns=10,
    )
    s = command(s, "Angel", 9)
    s = play(s, "OPTION_B")
    s = finish_turn(s, turn=8)
    assert int(s.turn[0]) == 9 and not over(s) and int(s.active_player[0]) == 1
    s = finish_turn(s, turn=9)  # the 10th turn
    assert s.truncated[0] and not s.terminated[0]
    assert int(s.turn[0]) == 10 and s.declarer[0] == -1
    assert (s.rewards[0] == 0).all()
    assert phase(s) == Phase.GAME_OVER and not s.legal_action_mask[0].any()
    before = (s.vp.copy(), s.hand.copy(), s.turn.copy())
    s = core.step(s, np.array([action_id("ACT")]))
    assert (s.vp == before[0]).all() and (s.hand == before[1]).all() and (s.turn == before[2]).all()
    assert s.truncated[0] and (s.rewards[0] == 0).all()


# =========================================================================================
# R8.1 Empty deck: shuffle the discard pile into a new deck
# =========================================================================================


def _all_placed(
    players: list[dict], *, holder: int, deck: list[str], discard: list[str], active: int = 0
) -> core.State:
    """A position with every card placed: the cards nobody else holds are ``holder``'s spirits."""
    used = list(deck) + list(discard)
    for spec in players:
        for key in ("hand", "mana", "stones", "spirits"):
            used += spec.get(key, [])
        if spec.get("head"):
            used.append(spec["head"])
    players = [dict(spec) for spec in players]
    players[holder]["spirits"] = players[holder].get("spirits", []) + rest_of_cards(used)
    return position(len(players), players=players, deck=deck, discard=discard, active=active)


def test_R8_1_empty_deck_is_refilled_from_the_discard_pile() -> None:
    """R8.1: when a card must be drawn from an empty deck, the discard pile becomes the deck."""
    s = _all_placed(
        [
            {"hand": ["Angel", "Imp"], "head": "Gargoyle"},
            {"hand": ["Imp", "Fairy"]},
            {"hand": ["Fairy", "Golem"]},
        ],
        holder=2,
        deck=[],
        discard=["Phoenix"] * 3,
    )
    assert int(s.deck[0].sum()) == 0 and int(s.discard[0].sum()) == 3
    s = command(s, "Angel", 9)
    s = play(s, "OPTION_B")  # draw 1: from the 3 Phoenixes of the discard pile
    assert zone(s, "hand", 0) == {"Imp": 1, "Phoenix": 2}  # + Phase III: 1 kept ...
    assert int(s.head[0, 2]) == kind("Phoenix")  # ... 1 assisted to player 2
    assert int(s.deck[0].sum()) == 0 and int(s.discard[0].sum()) == 0
    assert s.faith[0].tolist() == [2, 1, 1]
    assert total_cards(s).tolist() == [110]


# =========================================================================================
# R8.2 Empty hand: the top card of the deck is used
# =========================================================================================


def test_R8_2_empty_hand_plays_the_top_card_of_the_deck_as_command_card() -> None:
    """R8.2 / R3.1.2: a player with an empty hand plays the top card of the deck as command card."""
    s = position(
        2,
        players=[
            {"hand": ["Imp", "Fairy"], "head": "Imp"},
            {"hand": [], "head": "Golem"},
        ],
        deck=["Angel"] * 3,
    )
    s = command(s, "Imp", 2)  # Conquest from the supply; Phase III: Angel kept, Angel assisted
    # player 1: head Angel (assisted) + the deck's Angel = 10: Pilgrimage (Phase II has only ACT)
    assert int(s.active_player[0]) == 1 and phase(s) == Phase.PILGRIMAGE
    assert int(s.command_number[0]) == 10
    assert zone(s, "hand", 1) == {}
    assert zone(s, "mana", 1) == {"Golem": 1, "Angel": 2}
    assert int(s.deck[0].sum()) == 0
    assert zone(s, "hand", 0) == {"Fairy": 1, "Angel": 1} and s.vp[0].tolist() == [1, 0]


def test_R8_2_inquisition_giver_with_empty_hand_gives_the_top_card_of_the_deck() -> None:
    """R6.6 / R8.2: a lower-faith player with an empty hand gives the top card of the deck."""
    s = position(
        3,
        players=[
            {"hand": ["Angel", "Imp"], "head": "Salamander", "faith": 2},
            {"hand": ["Imp", "Fairy"], "faith": 2},  # equal: does not give
            {"hand": [], "faith": 1},  # lower, empty hand
        ],
        deck=["Phoenix"] * 4 + ["Golem"] * 2,
    )
    s = command(s, "Angel", 8)
    s = finish_turn(s, turn=0)
    hand = zone(s, "hand", 0)
    assert sum(hand.values()) == 1 + 3 + 1 + 1  # Imp, 3 drawn, 1 gift from the deck, 1 kept
    assert set(hand) <= {"Imp", "Phoenix", "Golem"}
    assert int(s.deck[0].sum()) == 0
    assert hand_size(s, 2) == 0 and zone(s, "hand", 1) == {"Imp": 1, "Fairy": 1}
    assert int(s.mana[0, 2].sum()) == 1 and int(s.head[0, 2]) >= 0  # the assisted card


# =========================================================================================
# R8.3 Nothing to draw: discard down to 9 cards and 9 mana, then draw on (or skip)
# =========================================================================================


def _mana_total(s: core.State, p: int) -> int:
    return int(s.mana[0, p].sum() + s.stones[0, p].sum())


def test_R8_3_nothing_to_draw_every_player_discards_to_9_then_the_draw_goes_on() -> None:
    """R8.3: deck and discard pile empty when a card must be drawn: every player, the active one
    first then clockwise, discards down to 9 cards in hand and 9 mana (their choice; stones
    count; a waiting head counts but may not be discarded, R4.3); the discards become the deck
    and the draw goes on."""
    p1_hand = [
        "Angel",
        "Imp",
        "Asmodai",
        "Nightmare",
        "Belial",
        "Succubus",
        "Leprechaun",
        "Baldanders",
        "Dryad",
        "Treant",
        "Fairy",
        "Salamander",
    ]
    s = _all_placed(
        [
            {"hand": ["Unicorn"] * 4 + ["Pegasus"] * 4 + ["Valkyrie", "Undine"]},  # 10 cards
            {
                "hand": p1_hand,
                "head": "Gargoyle",
                "stones": ["Undine"],  # active: 11 cards and 11 mana after Phase I
                "mana": ["Cerberus", "Ifrit", "Will-o'-wisp", "Phoenix", "Golem", "Sphinx", "Homunculus", "Giant"],
            },
            {
                "hand": ["Imp"] * 3 + ["Asmodai"] * 3 + ["Nightmare"] * 3 + ["Belial"],  # 10 cards
                "head": "Angel",
                "mana": ["Fairy"] * 3 + ["Golem"] * 3 + ["Salamander"] * 3,
            },  # 10 mana, 1 blue: the head
        ],
        holder=0,
        deck=[],
        discard=[],
        active=1,
    )
    s = play(s, "Angel")  # Gargoyle 4 + Angel 5 = 9
    assert phase(s) == Phase.MAIN
    s = play(s, "ACT", "OPTION_B")  # Pilgrimage (b): 1 faith, then a card must be drawn
    assert s.faith[0].tolist() == [1, 2, 1]
    # the active player first: hand, then mana
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 1
    assert "Imp" in legal(s) and "NO" not in legal(s)
    s = play(s, "Imp", "Asmodai")
    assert phase(s) == Phase.SHORTAGE_MANA and int(s.current_player[0]) == 1
    # 2 of: 4 red, 5 yellow (the head is ordinary mana after Phase I), 1 blue, 1 stone, in
    # ascending order (engine convention), so the stone can only be the second one
    assert legal(s) == ["MANA_RED", "MANA_YELLOW", "MANA_BLUE"]
    s = play(s, "MANA_RED")
    assert legal(s) == ["MANA_RED", "MANA_YELLOW", "MANA_BLUE", "STONE"]
    s = play(s, "STONE")  # a Foxfire card (the engine takes Cerberus) and the stone
    # then clockwise: player 2
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 2
    s = play(s, "Belial")
    assert phase(s) == Phase.SHORTAGE_MANA and int(s.current_player[0]) == 2
    assert legal(s) == ["MANA_GREEN", "MANA_RED", "MANA_YELLOW"], "the waiting head (Angel) may not go"
    s = play(s, "MANA_YELLOW")
    # then player 0 (10 cards; no mana)
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 0
    s = play(s, "Valkyrie")
    # the draw goes on: Pilgrimage's card, then Phase III's two from the 7 discarded cards
    assert phase(s) == Phase.KEEP and int(s.current_player[0]) == 1
    assert [hand_size(s, p) for p in range(3)] == [9, 10, 9]
    assert _mana_total(s, 1) == 9 and _mana_total(s, 2) == 9 and int(s.head[0, 2]) == kind("Angel")
    assert int(s.stones[0, 1].sum()) == 0
    kept_nine = Counter(p1_hand[3:])  # Nightmare .. Salamander (Angel played, Imp and Asmodai discarded)
    drawn = Counter(zone(s, "hand", 1)) - kept_nine
    assert sum(drawn.values()) == 1
    discarded = Counter(["Imp", "Asmodai", "Cerberus", "Undine", "Belial", "Golem", "Valkyrie"])
    assert drawn + Counter(zone(s, "offer")) + Counter(zone(s, "deck")) == discarded
    assert int(s.offer[0].sum()) == 2 and int(s.deck[0].sum()) == 4 and int(s.discard[0].sum()) == 0
    assert total_cards(s).tolist() == [110]


def test_R8_3_draw_goes_on_in_phase_three_after_the_discard_round() -> None:
    """R8.3: the deck runs dry between the two Phase III cards: the discard round happens, then
    the second card is drawn from the discarded cards."""
    hand = [
        "Angel",
        "Imp",
        "Asmodai",
        "Nightmare",
        "Belial",
        "Succubus",
        "Leprechaun",
        "Baldanders",
        "Dryad",
        "Treant",
        "Fairy",
        "Salamander",
    ]
    s = _all_placed(
        [
            {"hand": hand, "head": "Gargoyle"},  # 11 cards after Phase I
            {"hand": ["Imp", "Fairy"]},
            {"hand": ["Fairy", "Golem"], "head": "Unicorn"},
        ],
        holder=2,
        deck=["Phoenix"],
        discard=[],
    )
    s = command(s, "Angel", 9)
    s = play(s, "OPTION_A")  # VP = faith; no draw. Phase III: Phoenix, then nothing
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 0
    assert zone(s, "offer") == {"Phoenix": 1}
    s = play(s, "Imp", "Asmodai")
    assert phase(s) == Phase.KEEP and hand_size(s, 0) == 9
    offer = zone(s, "offer")
    assert offer.pop("Phoenix") == 1 and sum(offer.values()) == 1 and set(offer) <= {"Imp", "Asmodai"}
    assert int(s.deck[0].sum()) == 1 and int(s.discard[0].sum()) == 0


def test_R8_3_draw_is_skipped_when_still_nothing_can_be_drawn() -> None:
    """R8.3 [decision]: nothing to draw and nobody above 9 cards / 9 mana: the draw is skipped
    (Pilgrimage (b) still gives the faith; Phase III draws nothing, nothing is kept or assisted)."""
    s = _all_placed(
        [
            {"hand": ["Angel", "Imp"], "head": "Gargoyle"},
            {"hand": ["Imp", "Fairy"]},
            {"hand": ["Fairy", "Golem"], "head": "Unicorn"},
        ],
        holder=2,
        deck=[],
        discard=[],
    )
    s = command(s, "Angel", 9)
    s = play(s, "OPTION_B")
    assert s.faith[0].tolist() == [2, 1, 1]
    assert zone(s, "hand", 0) == {"Imp": 1}
    assert zone(s, "mana", 2) == {"Unicorn": 1} and int(s.head[0, 2]) == kind("Unicorn")
    assert int(s.active_player[0]) == 1 and phase(s) == Phase.COMMAND
    assert total_cards(s).tolist() == [110]


def test_R8_3_single_card_in_phase_three_is_kept_and_nothing_assisted() -> None:
    """R8.3 [decision]: if only one card can be drawn in Phase III it is kept; nothing is assisted."""
    s = _all_placed(
        [
            {"hand": ["Angel", "Imp"], "head": "Gargoyle"},
            {"hand": ["Imp", "Fairy"]},
            {"hand": ["Fairy", "Golem"], "head": "Unicorn"},
        ],
        holder=2,
        deck=["Phoenix"],
        discard=[],
    )
    s = command(s, "Angel", 9)
    s = play(s, "OPTION_A")
    assert s.vp[0].tolist() == [1, 0, 0]
    assert zone(s, "hand", 0) == {"Imp": 1, "Phoenix": 1}
    assert zone(s, "mana", 2) == {"Unicorn": 1} and int(s.head[0, 2]) == kind("Unicorn")
    assert int(s.active_player[0]) == 1 and phase(s) == Phase.COMMAND


def test_R8_3_one_discard_round_per_draw() -> None:
    """R8.3 [decision]: one discard round per draw. The deck runs dry again during the same draw
    (Prayer's two cards): the rest of that draw is skipped instead of a second round. Phase III
    is a new draw and may have its own round."""
    hand = [
        "Salamander",
        "Imp",
        "Asmodai",
        "Nightmare",
        "Belial",
        "Succubus",
        "Leprechaun",
        "Baldanders",
        "Dryad",
        "Treant",
        "Fairy",
    ]
    s = _all_placed(
        [
            {"hand": hand, "head": "Salamander"},
            {"hand": ["Imp", "Fairy"]},
            {"hand": ["Fairy", "Golem"], "head": "Unicorn"},
        ],
        holder=2,
        deck=[],
        discard=[],
    )
    s = command(s, "Salamander", 6)  # Prayer; 10 cards in hand
    s = play(s, "OPTION_A")  # draw 2: nothing to draw, the round starts
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 0
    s = play(s, "Imp")  # down to 9; Imp is drawn back, then the draw is skipped
    assert hand_size(s, 0) == 10 and zone(s, "hand", 0).get("Imp") == 1
    # Phase III: a new draw, so a new round
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 0
    s = play(s, "Imp")  # the only card to draw: kept, nothing assisted (the draw of the second is skipped)
    assert hand_size(s, 0) == 10 and int(s.active_player[0]) == 1
    assert int(s.deck[0].sum()) == 0 and int(s.discard[0].sum()) == 0
