"""Scenario tests for sequences that a draw interrupts (R6.6 with R8.2 and R8.3, and the other
places where a draw can start an R8.3 discard round in the middle of something else).

A draw with both the deck and the discard pile empty starts a discard round (R8.3): every
player, the active one first, discards down to 9 cards in hand and 9 mana. That round must
not disturb the sequence it interrupts: the Inquisition givers' order (R6.6), the number of
Leprechaun discards, the cards still to be drawn, the Succubus bonus for a gift. Each test sets
up a position where it happens and checks the exact outcome.

The positions place every one of the 110 cards: what the players below do not hold is the
``dump`` player's spirits (a player with faith 10 and more Pegasus icons than anyone, so never
lower in faith than the active player and never a giver).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from aos_env import core
from aos_env.core import Phase

from helpers import CARDS, legal, phase, play, position, total_cards, zone


def _rest(used: list[str]) -> list[str]:
    """Every card of the 110 not in ``used``, by name."""
    count = Counter(used)
    out = []
    for k, name in enumerate(CARDS.names):
        n = int(CARDS.copies[k]) - count[name]
        assert n >= 0, f"too many {name}"
        out += [name] * n
    return out


def _placed(players: list[dict], *, dump: int, deck: list[str], discard: list[str],
            active: int = 0) -> core.State:
    """A position where every card is placed: the rest are ``dump``'s spirits."""
    used = list(deck) + list(discard)
    for spec in players:
        for key in ("hand", "mana", "stones", "spirits"):
            used += spec.get(key, [])
        if spec.get("head"):
            used.append(spec["head"])
    players = [dict(spec) for spec in players]
    players[dump]["spirits"] = players[dump].get("spirits", []) + _rest(used)
    players[dump].setdefault("faith", 10)
    return position(len(players), players=players, deck=deck, discard=discard, active=active)


def _hand_size(s: core.State, p: int) -> int:
    return int(s.hand[0, p].sum())


def _inquisition(s: core.State) -> core.State:
    """Phase I with Angel onto a Salamander head (3 + 5 = 8: Inquisition), then Phase II: the action."""
    s = play(s, "Angel")
    assert int(s.command_number[0]) == 8
    if phase(s) == Phase.MAIN:
        s = play(s, "ACT")
    return s


_NINE = ["Imp", "Asmodai", "Nightmare", "Belial", "Leprechaun", "Baldanders", "Dryad", "Treant", "Fairy"]
_TEN = _NINE + ["Ifrit"]


def test_R6_6_R8_3_discard_round_in_the_inquisition_draw_skips_no_giver() -> None:
    """R6.6 with R8.3: the Inquisition's own draw runs a discard round in which the player two
    seats to the left discards; afterwards the givers still start from the active player's left,
    so the first lower-faith player gives first and nobody is skipped."""
    s = _placed([
        {"hand": ["Angel", "Imp"], "head": "Salamander", "faith": 3, "vp": 30},  # active; may declare
        {"hand": ["Golem", "Undine"], "faith": 1},  # lower: gives first
        {"hand": list(_TEN), "faith": 1},  # lower, 10 cards: discards in the round, then gives
        {},  # dump
    ], dump=3, deck=[], discard=[])
    s = _inquisition(s)  # draw 2 (4 players): nothing to draw, a round starts
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 2
    s = play(s, "Ifrit")  # down to 9; the Ifrit is drawn by the active player, then the draw is skipped
    assert zone(s, "hand", 0) == {"Imp": 1, "Ifrit": 1}
    assert phase(s) == Phase.INQUISITION_GIFT
    assert int(s.current_player[0]) == 1, "the giver on the active player's left gives first"
    assert legal(s) == ["Golem", "Undine"]
    s = play(s, "Undine")
    assert phase(s) == Phase.INQUISITION_GIFT and int(s.current_player[0]) == 2
    s = play(s, "Fairy")  # Phase III: nothing to draw, nobody over the limits: skipped
    assert phase(s) == Phase.DECLARE and int(s.active_player[0]) == 0
    assert zone(s, "hand", 0) == {"Imp": 1, "Ifrit": 1, "Undine": 1, "Fairy": 1}
    assert zone(s, "hand", 1) == {"Golem": 1} and _hand_size(s, 2) == 8
    assert total_cards(s).tolist() == [110]


def test_R6_6_R8_2_R8_3_empty_handed_giver_whose_gift_runs_a_discard_round_gives_once() -> None:
    """R6.6 with R8.2 and R8.3: a giver with an empty hand gives the top card of the deck; that
    draw runs a discard round (the active player holds 10 cards, and gets the discarded card
    back as the gift). The giver gives exactly once, then the next giver gives, and the turn
    goes on to its end (it used to choose the same giver again and again)."""
    s = _placed([
        {"hand": ["Angel"] + _NINE[:8], "head": "Salamander", "faith": 3},  # active: 8 cards after Phase I
        {"hand": [], "faith": 1},  # lower, empty hand: gives the top card of the deck
        {"hand": ["Golem", "Undine"], "faith": 1},  # lower: gives second
        {},
    ], dump=3, deck=["Phoenix", "Phoenix"], discard=[])
    s = _inquisition(s)  # draws both Phoenixes: 10 cards; then player 1's gift needs a card
    assert _hand_size(s, 0) == 10 and int(s.deck[0].sum()) == 0
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 0
    s = play(s, "Imp")  # down to 9; the deck is now that Imp: it is player 1's gift
    assert phase(s) == Phase.INQUISITION_GIFT, "player 1 has given; player 2 is next"
    assert int(s.current_player[0]) == 2
    assert _hand_size(s, 0) == 10 and zone(s, "hand", 0).get("Imp") == 1 and int(s.deck[0].sum()) == 0
    s = play(s, "Golem")
    assert _hand_size(s, 0) == 11 and zone(s, "hand", 2) == {"Undine": 1}
    # Phase III: nothing to draw, a new round (11 cards), then the two cards: the turn ends
    for _ in range(20):
        if int(s.active_player[0]) != 0:
            break
        s = core.step(s, np.array([int(np.argmax(s.legal_action_mask[0]))]))
    assert int(s.active_player[0]) == 1, "the turn ended"
    assert total_cards(s).tolist() == [110]


def test_R6_6_R8_3_succubus_scores_only_the_gifts_that_arrive() -> None:
    """R6.6 with R8.3 (and Succubus): the empty-handed giver's gift cannot be drawn (nothing to
    draw, nobody over the limits: the draw is skipped), so it scores nothing; the other gift
    scores 1."""
    s = _placed([
        {"hand": ["Angel", "Imp"], "head": "Salamander", "faith": 3, "vp": 30, "spirits": ["Succubus"]},
        {"hand": [], "faith": 1},
        {"hand": ["Golem", "Undine"], "faith": 1},
        {},
    ], dump=3, deck=[], discard=[])
    s = _inquisition(s)  # nothing to draw: the Inquisition draw and player 1's gift are skipped
    assert phase(s) == Phase.INQUISITION_GIFT and int(s.current_player[0]) == 2
    assert s.vp[0, 0] == 30, "no VP for the gift that never came"
    s = play(s, "Golem")  # Phase III: nothing to draw, skipped; the end may be declared
    assert phase(s) == Phase.DECLARE and int(s.active_player[0]) == 0
    assert s.vp[0, 0] == 31, "1 VP for the gift that came"
    assert zone(s, "hand", 0) == {"Imp": 1, "Golem": 1}
