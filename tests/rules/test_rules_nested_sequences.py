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

At the end, a random-play test starts hundreds of games from crowded positions (deck and
discard pile nearly empty) so that R8.3 rounds come up in every kind of draw, and checks the
invariants after every step.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import CARDS, check_invariants, legal, phase, play, position, random_actions, total_cards, zone

from aos_env import core
from aos_env.core import Phase


def _rest(used: list[str]) -> list[str]:
    """Every card of the 110 not in ``used``, by name."""
    count = Counter(used)
    out = []
    for k, name in enumerate(CARDS.names):
        n = int(CARDS.copies[k]) - count[name]
        assert n >= 0, f"too many {name}"
        out += [name] * n
    return out


def _placed(players: list[dict], *, dump: int, deck: list[str], discard: list[str], active: int = 0) -> core.State:
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
    s = _placed(
        [
            {"hand": ["Angel", "Imp"], "head": "Salamander", "faith": 3, "vp": 30},  # active; may declare
            {"hand": ["Golem", "Undine"], "faith": 1},  # lower: gives first
            {"hand": list(_TEN), "faith": 1},  # lower, 10 cards: discards in the round, then gives
            {},  # dump
        ],
        dump=3,
        deck=[],
        discard=[],
    )
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
    s = _placed(
        [
            {"hand": ["Angel"] + _NINE[:8], "head": "Salamander", "faith": 3},  # active: 8 cards after Phase I
            {"hand": [], "faith": 1},  # lower, empty hand: gives the top card of the deck
            {"hand": ["Golem", "Undine"], "faith": 1},  # lower: gives second
            {},
        ],
        dump=3,
        deck=["Phoenix", "Phoenix"],
        discard=[],
    )
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
    s = _placed(
        [
            {"hand": ["Angel", "Imp"], "head": "Salamander", "faith": 3, "vp": 30, "spirits": ["Succubus"]},
            {"hand": [], "faith": 1},
            {"hand": ["Golem", "Undine"], "faith": 1},
            {},
        ],
        dump=3,
        deck=[],
        discard=[],
    )
    s = _inquisition(s)  # nothing to draw: the Inquisition draw and player 1's gift are skipped
    assert phase(s) == Phase.INQUISITION_GIFT and int(s.current_player[0]) == 2
    assert s.vp[0, 0] == 30, "no VP for the gift that never came"
    s = play(s, "Golem")  # Phase III: nothing to draw, skipped; the end may be declared
    assert phase(s) == Phase.DECLARE and int(s.active_player[0]) == 0
    assert s.vp[0, 0] == 31, "1 VP for the gift that came"
    assert zone(s, "hand", 0) == {"Imp": 1, "Golem": 1}


# ---- the other sequences a draw can interrupt ---------------------------------------------


def _mana_total(s: core.State, p: int) -> int:
    return int(s.mana[0, p].sum() + s.stones[0, p].sum())


def _piles(s: core.State) -> tuple[int, int]:
    """(deck size, discard pile size) of game 0."""
    return int(s.deck[0].sum()), int(s.discard[0].sum())


def test_R6_5_R8_3_festival_reveal_goes_on_after_a_discard_round() -> None:
    """R6.5 with R8.3: the deck runs dry after the first revealed card; in the discard round
    only player 1 is over a limit; the second card is the one they discarded. Then the
    Festival resolves as usual (nobody has lower faith: the active player picks one and
    discards the other), its VP bonus counted once, and the turn goes on."""
    s = _placed(
        [
            {"hand": ["Golem", "Imp"], "head": "Salamander", "spirits": ["Salamander"]},  # active, faith 1
            {"hand": list(_TEN), "faith": 2},  # 10 cards; faith 2: not lower than the active player's 2
            {},  # dump
        ],
        dump=2,
        deck=["Phoenix"],
        discard=[],
    )
    s = play(s, "Golem")  # 3 + 4 = 7: Festival (Phase II has only ACT: Imp cannot be paid)
    assert s.faith[0, :2].tolist() == [2, 2] and s.vp[0, 0] == 1, "faith first; Salamander's VP"
    assert zone(s, "offer") == {"Phoenix": 1} and bool(s.offer_public[0])
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 1
    s = play(s, "Ifrit")  # down to 9; the reveal goes on with that Ifrit
    assert phase(s) == Phase.FESTIVAL_PICK and int(s.current_player[0]) == 0
    assert zone(s, "offer") == {"Ifrit": 1, "Phoenix": 1} and legal(s) == ["Ifrit", "Phoenix"]
    assert s.vp[0, 0] == 1 and s.faith[0, 0] == 2, "the action is not performed again"
    s = play(s, "Ifrit")  # Ifrit to the mana row, Phoenix to the discard pile
    # Phase III: the Phoenix (R8.1), then nothing and nobody over the limits: kept, nothing assisted
    assert phase(s) == Phase.COMMAND and int(s.active_player[0]) == 1
    assert zone(s, "hand", 0) == {"Imp": 1, "Phoenix": 1}
    assert zone(s, "mana", 0) == {"Salamander": 1, "Golem": 1, "Ifrit": 1}
    assert zone(s, "hand", 1) == Counter(_NINE) and zone(s, "mana", 1) == {}
    assert _piles(s) == (0, 0) and zone(s, "offer") == {}
    assert total_cards(s).tolist() == [110]


def test_R6_4_R8_3_prayer_a_with_dryad_draws_all_three_across_a_discard_round() -> None:
    """R6.4 (a) with Dryad and R8.3: three cards to draw (two, plus one for Dryad); the deck
    runs dry after the first; player 1 discards two in the round and both are drawn: the draw
    goes on with exactly what was left of it."""
    s = _placed(
        [
            {"hand": ["Salamander", "Imp"], "head": "Salamander", "spirits": ["Dryad"]},
            {"hand": _TEN + ["Titania"]},  # 11 cards: two to discard
            {},
        ],
        dump=2,
        deck=["Phoenix"],
        discard=[],
    )
    s = play(s, "Salamander", "OPTION_A")  # 3 + 3 = 6: Prayer (a)
    assert zone(s, "hand", 0) == {"Imp": 1, "Phoenix": 1}
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 1
    s = play(s, "Imp")
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 1, "11 cards: two to discard"
    s = play(s, "Titania")
    # Phase III: nothing to draw and nobody over the limits: skipped
    assert phase(s) == Phase.COMMAND and int(s.active_player[0]) == 1
    assert zone(s, "hand", 0) == {"Imp": 2, "Phoenix": 1, "Titania": 1}
    assert zone(s, "hand", 1) == Counter(_TEN[1:])
    assert _piles(s) == (0, 0) and total_cards(s).tolist() == [110]


def test_R6_4_R8_1_R8_3_prayer_b_refills_to_exactly_five_across_a_discard_round() -> None:
    """R6.4 (b) with R8.1 and R8.3: after discarding one card the player must draw three to
    hold five. The first is the card just discarded (the discard pile becomes the deck), then
    nothing is left: player 1 discards two in the round, and both are drawn. The refill is
    counted once, before the draw: the hand ends with exactly five."""
    s = _placed(
        [
            {"hand": ["Salamander", "Imp", "Fairy", "Golem"], "head": "Salamander"},
            {"hand": _TEN + ["Titania"]},
            {},
        ],
        dump=2,
        deck=[],
        discard=[],
    )
    s = play(s, "Salamander", "OPTION_B")  # Prayer (b)
    assert phase(s) == Phase.PRAYER_DISCARD and legal(s) == ["Imp", "Fairy", "Golem", "NO"]
    s = play(s, "Fairy")
    assert legal(s) == ["Golem", "NO"]
    s = play(s, "NO")  # 2 in hand: draw 3. The Fairy comes back (R8.1), then the deck is dry
    assert zone(s, "hand", 0) == {"Imp": 1, "Golem": 1, "Fairy": 1}
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 1
    s = play(s, "Imp", "Titania")
    assert phase(s) == Phase.COMMAND and int(s.active_player[0]) == 1
    assert zone(s, "hand", 0) == {"Imp": 2, "Golem": 1, "Fairy": 1, "Titania": 1}
    assert _piles(s) == (0, 0) and total_cards(s).tolist() == [110]


def test_R3_3_R8_3_phase_three_keeps_and_assists_after_a_round_that_asked_three_players() -> None:
    """R3.3 with R8.3: Phase III finds nothing to draw; the discard round asks the active
    player (seat 1) first, then clockwise player 2 (mana: the waiting head may not go) and,
    skipping the dump, player 0. Then the two cards are drawn from the three discards, the
    active player keeps one and assists the other to their right neighbour, player 0."""
    hand1 = [
        "Unicorn",
        "Imp",
        "Asmodai",
        "Nightmare",
        "Belial",
        "Leprechaun",
        "Baldanders",
        "Dryad",
        "Treant",
        "Fairy",
        "Salamander",
    ]  # none of them can be paid with two blue mana
    s = _placed(
        [
            {"hand": ["Golem"] * 4 + ["Homunculus"] * 4 + ["Giant"] * 2},  # 10 cards
            {"hand": hand1, "head": "Angel"},  # active: 5 + 5 = 10, Pilgrimage; 10 cards after Phase I
            {
                "hand": ["Undine", "Seraph"],
                "head": "Pegasus",
                "mana": ["Phoenix"] * 4 + ["Cerberus"] * 4 + ["Gargoyle"],
            },
            {},
        ],
        dump=3,
        deck=[],
        discard=[],
        active=1,
    )
    s = play(s, "Unicorn", "OPTION_A")  # VP = faith (1); Phase III: nothing to draw
    assert s.vp[0].tolist()[:3] == [0, 1, 0]
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 1
    s = play(s, "Imp")
    assert phase(s) == Phase.SHORTAGE_MANA and int(s.current_player[0]) == 2
    assert legal(s) == ["MANA_RED", "MANA_YELLOW"], "the waiting head (Pegasus) is its only blue mana"
    s = play(s, "MANA_YELLOW")  # the Gargoyle
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 0
    s = play(s, "Giant")
    assert phase(s) == Phase.KEEP and int(s.current_player[0]) == 1
    offer = zone(s, "offer")
    assert sum(offer.values()) == 2 and not Counter(offer) - Counter({"Imp": 1, "Gargoyle": 1, "Giant": 1})
    kept, assisted = legal(s)[0], (Counter(offer) - Counter([legal(s)[0]])).most_common(1)[0][0]
    s = play(s, kept)
    assert phase(s) == Phase.COMMAND and int(s.active_player[0]) == 2
    assert zone(s, "hand", 1) == Counter(hand1[2:] + [kept])
    assert int(s.head[0, 0]) == CARDS.kind(assisted) and zone(s, "mana", 0) == {assisted: 1}
    assert _hand_size(s, 0) == 9 and _mana_total(s, 2) == 9 and int(s.head[0, 2]) == CARDS.kind("Pegasus")
    assert _piles(s) == (1, 0) and total_cards(s).tolist() == [110]


def test_R10_4_R8_3_leprechaun_discards_one_per_copy_after_a_round_in_its_draw() -> None:
    """Leprechaun (R10.4) with R8.3: three copies draw three cards; the deck runs dry after the
    first, player 1 discards in the round and that card is the second; then the deck is dry
    again and the third is skipped (one round per draw). The player still discards three
    (one per copy, docs/rules.md), chosen one by one, and then plays a command card."""
    s = _placed(
        [
            {"hand": ["Golem", "Imp", "Fairy"], "head": "Salamander", "spirits": ["Leprechaun"] * 3},
            {"hand": list(_TEN)},
            {},
        ],
        dump=2,
        deck=["Phoenix"],
        discard=[],
    )
    assert phase(s) == Phase.LEPRECHAUN
    s = play(s, "YES")
    assert zone(s, "hand", 0) == {"Golem": 1, "Imp": 1, "Fairy": 1, "Phoenix": 1}
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 1
    s = play(s, "Ifrit")  # drawn back as Leprechaun's second card; the third cannot be drawn
    assert zone(s, "hand", 0) == {"Golem": 1, "Imp": 1, "Fairy": 1, "Phoenix": 1, "Ifrit": 1}
    for left in (3, 2, 1):
        assert phase(s) == Phase.LEPRECHAUN_DISCARD and int(s.current_player[0]) == 0, left
        assert int(s.choice_left[0]) == left
        s = play(s, {3: "Imp", 2: "Ifrit", 1: "Phoenix"}[left])
    assert phase(s) == Phase.COMMAND and legal(s) == ["Fairy", "Golem"]
    assert zone(s, "discard") == {"Imp": 1, "Ifrit": 1, "Phoenix": 1} and int(s.deck[0].sum()) == 0
    assert total_cards(s).tolist() == [110]


def test_R10_4_R8_3_R3_1_2_leprechaun_draw_cut_short_then_the_command_card_comes_from_the_deck() -> None:
    """Leprechaun (R10.4) with R8.3 and R3.1.2: two copies, an empty hand, one card in the deck
    and nobody over the limits: the second card is skipped. The player discards the one card
    they hold (fewer than two only because the hand is short), and with an empty hand the
    command card is the top card of the deck: that same card (R8.1)."""
    s = _placed(
        [
            {"hand": [], "head": "Salamander", "spirits": ["Leprechaun"] * 2},
            {"hand": ["Golem"]},
            {},
        ],
        dump=2,
        deck=["Phoenix"],
        discard=[],
    )
    assert phase(s) == Phase.LEPRECHAUN
    s = play(s, "YES")  # draw 2: Phoenix, then nothing; discard it (forced); Phoenix as command card
    assert int(s.cmd_card[0]) == CARDS.kind("Phoenix") and int(s.command_number[0]) == 6
    assert phase(s) == Phase.PRAYER and zone(s, "hand", 0) == {}
    assert zone(s, "mana", 0) == {"Salamander": 1, "Phoenix": 1}
    assert _piles(s) == (0, 0) and total_cards(s).tolist() == [110]


def test_R3_1_2_R8_2_R8_3_command_card_from_the_deck_after_a_discard_round() -> None:
    """R3.1.2 / R8.2 with R8.3: player 1 starts a turn with an empty hand and nothing to draw.
    The round asks player 1 first (10 mana; the waiting head may not go), then player 0; the
    command card is one of the two cards discarded (both blue: 5 + 5 = 10, Pilgrimage). Phase
    III is a new draw: one card, then its own round (player 1 again holds 10 mana), then the
    second card; one is kept and the other assisted to player 0."""
    hand0 = [
        "Unicorn",
        "Pegasus",
        "Imp",
        "Asmodai",
        "Nightmare",
        "Belial",
        "Leprechaun",
        "Baldanders",
        "Dryad",
        "Treant",
    ]
    s = _placed(
        [
            {"hand": hand0, "head": "Angel"},  # active: Pilgrimage, keeps a Titania: 10 cards
            {"hand": [], "head": "Seraph", "mana": ["Undine"] + ["Phoenix"] * 4 + ["Cerberus"] * 4},  # 10 mana
            {},
        ],
        dump=2,
        deck=["Titania", "Titania"],
        discard=[],
    )
    s = play(s, "Unicorn", "ACT", "OPTION_A")  # Phase III: Titania kept, Titania assisted to player 2
    assert int(s.active_player[0]) == 1 and zone(s, "hand", 1) == {}
    assert _hand_size(s, 0) == 10 and _piles(s) == (0, 0)
    assert phase(s) == Phase.SHORTAGE_MANA and int(s.current_player[0]) == 1
    assert legal(s) == ["MANA_RED", "MANA_BLUE"], "the Undine may go, the waiting Seraph may not"
    s = play(s, "MANA_BLUE")
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 0
    s = play(s, "Pegasus")  # the command card is the Undine or the Pegasus
    assert phase(s) == Phase.PILGRIMAGE and int(s.current_player[0]) == 1
    assert int(s.command_number[0]) == 10 and int(s.head[0, 1]) == -1
    cmd = CARDS.names[int(s.cmd_card[0])]
    other = {"Undine": "Pegasus", "Pegasus": "Undine"}[cmd]
    assert zone(s, "mana", 1) == {"Seraph": 1, "Phoenix": 4, "Cerberus": 4, cmd: 1}
    assert zone(s, "deck") == {other: 1} and int(s.discard[0].sum()) == 0
    s = play(s, "OPTION_A")  # Phase III: the other blue card, then nothing: a new round
    assert phase(s) == Phase.SHORTAGE_MANA and int(s.current_player[0]) == 1
    assert zone(s, "offer") == {other: 1}
    assert legal(s) == ["MANA_RED", "MANA_BLUE"], "no waiting head now: the Seraph may go too"
    s = play(s, "MANA_RED")  # a Cerberus (the engine takes the lowest red kind)
    assert phase(s) == Phase.KEEP and zone(s, "offer") == {other: 1, "Cerberus": 1}
    s = play(s, "Cerberus")
    assert int(s.active_player[0]) == 2
    assert zone(s, "hand", 1) == {"Cerberus": 1} and s.vp[0, 1] == 1
    assert int(s.head[0, 0]) == CARDS.kind(other) and zone(s, "mana", 0) == {"Angel": 1, "Unicorn": 1, other: 1}
    assert _piles(s) == (0, 0) and total_cards(s).tolist() == [110]


def test_R10_4_R8_1_R8_3_sphinx_cards_to_hand_then_mana_across_a_discard_round() -> None:
    """Sphinx (R10.4) with R8.1 and R8.3: five shields (two Gargoyles, a Giant, the Sphinx):
    three cards to hand, then two to the mana row. The first is the mana just paid (R8.1);
    then nothing is left, player 1 discards four in the round, and of those the next two go
    to the hand and the last two to the mana row."""
    s = _placed(
        [
            {"hand": ["Imp", "Sphinx"], "head": "Salamander", "spirits": ["Gargoyle", "Gargoyle", "Giant"]},
            {"hand": _TEN + ["Titania", "Chimera", "Seraph"]},  # 13 cards: four to discard
            {},
        ],
        dump=2,
        deck=[],
        discard=[],
    )
    s = play(s, "Imp")
    assert legal(s) == ["Sphinx", "ACT"]
    s = play(s, "Sphinx")  # YY* less two yellow (Gargoyles): one "any"
    assert phase(s) == Phase.PAY and legal(s) == ["MANA_BLACK", "MANA_RED"]
    s = play(s, "MANA_BLACK")  # the Imp; the Sphinx draws it back first
    assert zone(s, "spirits", 0) == {"Gargoyle": 2, "Giant": 1, "Sphinx": 1}
    assert zone(s, "hand", 0) == {"Imp": 1} and zone(s, "mana", 0) == {"Salamander": 1}
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 1
    discarded = ["Imp", "Asmodai", "Titania", "Seraph"]
    s = play(s, *discarded)
    assert phase(s) == Phase.COMMAND and int(s.active_player[0]) == 1  # Phase III: nothing to draw, skipped
    to_hand = Counter(zone(s, "hand", 0)) - Counter(["Imp"])
    to_mana = Counter(zone(s, "mana", 0)) - Counter(["Salamander"])
    assert _hand_size(s, 0) == 3 and to_hand["Imp"] <= 1 and sum(to_mana.values()) == 2
    assert to_hand + to_mana == Counter(discarded)
    assert int(s.head[0, 0]) == -1, "cards the Sphinx puts in the row are not a head (R4.5)"
    assert _piles(s) == (0, 0) and total_cards(s).tolist() == [110]


def test_R5_3_R8_1_R8_3_phoenix_draws_the_paid_mana_then_phase_three_has_its_own_round() -> None:
    """Phoenix (when summoned: 1 faith, draw 2) with R8.1 and R8.3: the two cards are the mana
    just paid (the summon's draw cannot run dry: its cost goes to the discard pile first).
    Phase III is a new draw: nothing is left, player 1 discards two in the round, and those
    are the two Phase III cards: one kept, one assisted."""
    s = _placed(
        [
            {"hand": ["Imp", "Phoenix"], "head": "Salamander", "spirits": ["Gargoyle", "Gargoyle"]},
            {"hand": _TEN + ["Titania"]},
            {},
        ],
        dump=2,
        deck=[],
        discard=[],
    )
    s = play(s, "Imp", "Phoenix")  # RR** less two red: "**", paid with the two mana (forced)
    assert zone(s, "spirits", 0) == {"Gargoyle": 2, "Phoenix": 1} and s.faith[0, 0] == 2
    assert zone(s, "hand", 0) == {"Imp": 1, "Salamander": 1} and zone(s, "mana", 0) == {}
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 1
    assert zone(s, "offer") == {}
    s = play(s, "Asmodai", "Titania")
    assert phase(s) == Phase.KEEP and int(s.current_player[0]) == 0
    assert zone(s, "offer") == {"Asmodai": 1, "Titania": 1}
    s = play(s, "Titania")  # the Asmodai goes to player 2 (the right neighbour)
    assert zone(s, "hand", 0) == {"Imp": 1, "Salamander": 1, "Titania": 1}
    assert int(s.head[0, 2]) == CARDS.kind("Asmodai") and int(s.active_player[0]) == 1
    assert _piles(s) == (0, 0) and total_cards(s).tolist() == [110]


def test_R6_3_R8_3_alchemy_a_stones_come_after_a_round_in_its_draw() -> None:
    """R6.3 (a) with Fairy, Golem and R8.3: two cards to hand (one for Fairy), then two stones
    (one for Golem). The deck runs dry after the first card; player 1 discards three in the
    round; of those the next one goes to the hand and the last two become stones."""
    s = _placed(
        [
            {"hand": ["Fairy", "Imp"], "head": "Salamander", "spirits": ["Fairy", "Golem"]},
            {"hand": _TEN + ["Titania", "Chimera"]},  # 12 cards: three to discard
            {},
        ],
        dump=2,
        deck=["Phoenix"],
        discard=[],
    )
    s = play(s, "Fairy", "OPTION_A")  # 2 + 3 = 5: Alchemy (a)
    assert zone(s, "hand", 0) == {"Imp": 1, "Phoenix": 1} and zone(s, "stones", 0) == {}
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 1
    discarded = ["Imp", "Nightmare", "Chimera"]
    s = play(s, *discarded)
    assert phase(s) == Phase.COMMAND and int(s.active_player[0]) == 1
    to_hand = Counter(zone(s, "hand", 0)) - Counter(["Imp", "Phoenix"])
    stones = Counter(zone(s, "stones", 0))
    assert sum(to_hand.values()) == 1 and sum(stones.values()) == 2
    assert to_hand + stones == Counter(discarded)
    assert _piles(s) == (0, 0) and total_cards(s).tolist() == [110]


def test_R6_6_R8_2_R8_3_each_gift_from_the_deck_may_run_its_own_round() -> None:
    """R6.6 with R8.2 and R8.3 (and Succubus): two givers with empty hands. Each gift is a draw
    of its own: both find nothing to draw and run a round in which the active player (10
    cards) discards, and gets that card back as the gift. Succubus scores both gifts. Phase
    III is a third draw with a third round; its second card is skipped (one round per draw)."""
    s = _placed(
        [
            {"hand": ["Angel"] + _NINE[:8], "head": "Salamander", "faith": 3, "spirits": ["Succubus"]},
            {"hand": [], "faith": 1},
            {"hand": [], "faith": 1},
            {},
        ],
        dump=3,
        deck=["Phoenix", "Phoenix"],
        discard=[],
    )
    s = _inquisition(s)  # draws both Phoenixes (10 cards); player 1's gift: nothing to draw
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 0 and _hand_size(s, 0) == 10
    assert s.vp[0, 0] == 0
    s = play(s, "Imp")  # player 1's gift is the Imp; player 2's gift: nothing to draw again
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 0 and _hand_size(s, 0) == 10
    assert zone(s, "hand", 0)["Imp"] == 1 and s.vp[0, 0] == 1
    s = play(s, "Asmodai")  # player 2's gift; Phase III: nothing to draw, a third round
    assert zone(s, "hand", 0).get("Asmodai") == 1 and s.vp[0, 0] == 2
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 0 and int(s.active_player[0]) == 0
    assert zone(s, "offer") == {}
    s = play(s, "Nightmare")  # drawn back, kept; nothing assisted
    assert int(s.active_player[0]) == 1 and _hand_size(s, 0) == 10 and zone(s, "hand", 0)["Nightmare"] == 1
    assert s.vp[0, 0] == 2 and zone(s, "mana", 3) == {}
    # player 1's turn: an empty hand and nothing to draw; the round asks player 0 (10 cards)
    assert phase(s) == Phase.SHORTAGE_HAND and int(s.current_player[0]) == 0
    assert total_cards(s).tolist() == [110]


def test_AS003_R3_3_nightmare_round_then_phase_three_draws_its_discards() -> None:
    """Nightmare with R3.3: the summon's discard round (limits 6 cards and 7 mana, not R8.3's 9)
    asks the summoner first, then player 1; Phase III then draws from what was paid and
    discarded (R8.1). Nobody can be over 9 after Nightmare, so had the deck run dry, the draw
    would simply have stopped (no R8.3 round)."""
    s = _placed(
        [
            {
                "hand": [
                    "Imp",
                    "Nightmare",
                    "Asmodai",
                    "Belial",
                    "Succubus",
                    "Leprechaun",
                    "Baldanders",
                    "Dryad",
                    "Treant",
                ],
                "head": "Salamander",
                "spirits": ["Gargoyle", "Gargoyle"],
            },  # 7 cards after the summon
            {"hand": ["Homunculus"], "mana": ["Phoenix"] * 4 + ["Cerberus"] * 3 + ["Golem"]},  # 8 mana
            {},
        ],
        dump=2,
        deck=[],
        discard=[],
    )
    s = play(s, "Imp", "Nightmare")  # KK* less two black: one "any"
    assert phase(s) == Phase.PAY and legal(s) == ["MANA_BLACK", "MANA_RED"]
    s = play(s, "MANA_RED")  # the Salamander
    assert zone(s, "spirits", 0) == {"Gargoyle": 2, "Nightmare": 1}
    assert phase(s) == Phase.NIGHTMARE and legal(s) == ["YES", "NO"]  # R10.1
    s = play(s, "YES")
    assert phase(s) == Phase.NIGHTMARE_HAND and int(s.current_player[0]) == 0
    s = play(s, "Treant")
    assert phase(s) == Phase.NIGHTMARE_MANA and int(s.current_player[0]) == 1
    assert legal(s) == ["MANA_RED", "MANA_YELLOW"]
    s = play(s, "MANA_YELLOW")  # the Golem
    assert phase(s) == Phase.KEEP and int(s.current_player[0]) == 0
    offer = Counter(zone(s, "offer"))
    assert sum(offer.values()) == 2 and not offer - Counter(["Salamander", "Treant", "Golem"])
    assert _hand_size(s, 0) == 6 and _mana_total(s, 0) == 1 and _mana_total(s, 1) == 7
    assert _piles(s) == (1, 0) and total_cards(s).tolist() == [110]


# ---- random play through many R8.3 rounds ------------------------------------------------

#: Decisions a turn can take, at most. A decision either moves at least one card out of the
#: hands and mana rows (a discard of any kind, a payment, a Belial use) or is one of the others
#: (command card, Leprechaun, Asmodai, summon-or-act, up to 4 Baldanders placements and NO, up
#: to 5 Research flips, a target, an option, a Festival pick, up to 3 gifts, Prayer's NO, keep,
#: Belial's NO, declare): fewer than 30. Cards enter the hands and rows during a turn only by
#: draws: at most 4 (Leprechaun) + 1 (command card) + 26 (a Sphinx with all 26 shields, more
#: than any action draws) + 3 (gifts from the deck) + 2 (Phase III). So a turn takes at most
#: 110 + 36 + 30 < 200 decisions, however many R8.3 rounds it runs.
MAX_DECISIONS_PER_TURN = 200
CROWDED_MAX_TURNS = 40  # short games: the crowded positions run into R8.3 within a few turns
MAX_PILE = 5  # cards left in the deck and in the discard pile, each, at the start
#: Dirichlet weights of a player's hand, mana, stones and spirits. Most cards are spirits, so
#: that few cards circulate and the deck and discard pile run dry again and again; hands and
#: rows still get enough to be over R8.3's limits.
_SHARE_WEIGHTS = np.array([1.0, 1.0, 0.3, 4.0])
#: Random play declares the end at the first chance half of the time, and these positions
#: allow it at once (ten spirits): declaring only sometimes lets games run for more turns.
_DECLARE_YES = 0.1


def _crowded_positions(batch: int, num_players: int, seed: int) -> core.State:
    """``batch`` random positions (the start of a turn) with the deck and the discard pile
    holding 0..5 cards each and every other card in the players' hands, mana rows (a random
    one of them the waiting head, most of the time), stones and spirits, in random shares
    (on average most in spirits, see _SHARE_WEIGHTS)."""
    rng = np.random.default_rng(seed)
    s = core.init(batch, num_players, seed=seed, max_turns=CROWDED_MAX_TURNS)
    B, P, K = batch, num_players, CARDS.num_kinds
    games = np.arange(B)
    cards = rng.permuted(np.tile(np.repeat(np.arange(K), CARDS.copies), (B, 1)), axis=1)  # (B, 110)
    # zone of each card: 4 per player (hand, mana, stones, spirits), then the deck and the discard pile
    shares = np.cumsum(rng.dirichlet(np.tile(_SHARE_WEIGHTS, P), B), axis=1)
    zone = np.minimum((rng.random((B, cards.shape[1], 1)) > shares[:, None, :]).sum(2), 4 * P - 1)
    n_deck, n_discard = rng.integers(0, MAX_PILE + 1, B), rng.integers(0, MAX_PILE + 1, B)
    place = np.arange(cards.shape[1])[None, :]
    zone = np.where(place < n_deck[:, None], 4 * P, zone)
    zone = np.where((place >= n_deck[:, None]) & (place < (n_deck + n_discard)[:, None]), 4 * P + 1, zone)
    zone[games, n_deck + n_discard] = 4 * s.active_player  # the active player holds a card (refresh)
    counts = np.zeros((B, 4 * P + 2, K), dtype=np.int64)
    np.add.at(counts, (games[:, None], zone, cards), 1)
    per_player = counts[:, : 4 * P].reshape(B, P, 4, K)
    for i, name in enumerate(("hand", "mana", "stones", "spirits")):
        getattr(s, name)[:] = per_player[:, :, i]
    s.deck[:], s.discard[:] = counts[:, 4 * P], counts[:, 4 * P + 1]
    # a waiting head: a random one of the player's mana cards, for 80% of the rows that have one
    mana = s.mana.reshape(B * P, K).astype(np.int64)
    cum = np.cumsum(mana, axis=1)
    pick = (cum > (rng.random(B * P) * cum[:, -1])[:, None]).argmax(1)
    s.head[:] = np.where((cum[:, -1] > 0) & (rng.random(B * P) < 0.8), pick, -1).reshape(B, P)
    s.faith[:] = rng.integers(0, 11, (B, P))
    s.vp[:] = rng.integers(0, 20, (B, P))
    return core.refresh(s)


_SHORTAGE = (Phase.SHORTAGE_HAND, Phase.SHORTAGE_MANA)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_R8_3_random_play_through_many_discard_rounds(num_players: int) -> None:
    """Random legal play from crowded positions (deck and discard pile nearly empty), so that
    R8.3 rounds come up in every kind of draw, often several in a turn. After every step: the
    invariants of random play (every card in one zone, faith 0..10, VP >= 0, a real choice in
    an unfinished game, none in a finished one); Inquisition givers are asked once each, in
    turn order (R6.6); a player asked in an R8.3 round is over a limit, and the deck is empty;
    no turn takes more than MAX_DECISIONS_PER_TURN decisions; every game ends in time."""
    batch = 256
    s = _crowded_positions(batch, num_players, seed=100 + num_players)
    rng = np.random.default_rng(num_players)
    assert (total_cards(s) == 110).all()  # (refresh never advances: a first choice may be single)
    turn, decisions = s.turn.copy(), np.zeros(batch, dtype=np.int64)
    shortage_decisions = rounds = 0
    was_short, had_round = np.zeros(batch, dtype=bool), np.zeros(batch, dtype=bool)
    giver = np.full(batch, -1)  # seat offset (from the active player) of the turn's last giver
    # steps: a game has at most CROWDED_MAX_TURNS turns, or P more after a late declaration (R7.2)
    budget = (CROWDED_MAX_TURNS + num_players) * MAX_DECISIONS_PER_TURN
    for _ in range(budget):
        live = ~(s.terminated | s.truncated)
        if not live.any():
            break
        decisions = np.where(s.turn == turn, decisions, 0) + live
        turn = s.turn.copy()
        assert decisions.max() <= MAX_DECISIONS_PER_TURN, "a turn takes too many decisions"
        actions = random_actions(s, rng)
        declare = s.phase == Phase.DECLARE
        actions[declare] = np.where(rng.random(int(declare.sum())) < _DECLARE_YES, core.YES, core.NO)
        s = core.step(s, actions)
        check_invariants(s)
        # R6.6: the givers are asked once each, from the active player's left on
        giver = np.where(s.turn == turn, giver, -1)
        gift = s.phase == Phase.INQUISITION_GIFT
        seat = (s.current_player - s.active_player) % num_players
        assert (seat[gift] > np.maximum(giver[gift], 0)).all(), "a giver is asked twice, or out of turn order"
        giver = np.where(gift, seat, giver)
        short = np.isin(s.phase, _SHORTAGE)
        rounds += int((short & ~was_short).sum())
        shortage_decisions += int(short.sum())
        was_short = short
        had_round |= short
        g = np.nonzero(short)[0]
        p = s.current_player[g]
        hand = s.hand[g, p].sum(1)
        mana = s.mana[g, p].sum(1) + s.stones[g, p].sum(1)
        on_hand = s.phase[g] == Phase.SHORTAGE_HAND
        assert (np.where(on_hand, hand, mana) > 9).all(), "a player asked in an R8.3 round is over its limit"
        assert (s.deck[g].sum(1) == 0).all(), "an R8.3 round only happens when nothing can be drawn"
    assert (s.terminated | s.truncated).all(), "every game ends or is truncated"
    # (rounds are counted when a game arrives at one of their decisions; rounds whose
    # discards are all forced are not seen)
    print(
        f"{num_players} players: {rounds} R8.3 rounds in {int(had_round.sum())} games, "
        f"{shortage_decisions} decisions in them; {int(s.terminated.sum())} games ended by a declaration"
    )
    assert rounds >= 2 * batch and had_round.sum() >= batch // 2, "R8.3 rounds must keep coming up"
    assert s.terminated.any() and s.truncated.any(), "both ways a game ends are played"
